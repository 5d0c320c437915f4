import re

import numpy as np
import pandas as pd
import pytest

import geoanon as ga
from geoanon.audit import audit

from checkers import check_published_boxes, drawn_shapes


def _records(n=300, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "id": [f"{i:05d}" for i in range(n)],
        "lat": np.round(40 + rng.normal(size=n), 3),
        "note": rng.choice(["a", "b", "NA"], size=n),
        "lon": np.round(-100 + rng.normal(size=n), 3),
        "age": rng.integers(18, 90, size=n),
    })


# what each column of ``_records`` is besides the location: the record id is dropped, the rest published as it is
ROLES = {"identifiers": ["id"], "keep": ["note", "age"]}


def test_columns_rows_and_order_are_kept():
    df = _records()
    rel = ga.generalize_points(df, 7, **ROLES)
    t = rel.in_input_order()
    assert list(t.columns) == ["lat_min", "lat_max", "lon_min", "lon_max", "note", "age", "class_id"]
    assert len(t) == len(df) and t.index.equals(df.index)
    for col in ("note", "age"):
        assert t[col].equals(df[col])
    # raw coordinates never appear; the report's bounds are the published boxes' (never the records' extremes)
    assert not {"lat", "lon"} & set(t.columns)
    boxes = t[["lon_min", "lat_min", "lon_max", "lat_max"]].dropna()
    assert rel.report["bounds"] == [boxes["lon_min"].min(), boxes["lat_min"].min(), boxes["lon_max"].max(),
                                    boxes["lat_max"].max()]
    # each row in its published box, no edge near it (or no box at all), boxes disjoint, classes >= k
    check_published_boxes(df[["lon", "lat"]].to_numpy(), t.class_id.to_numpy(),
                          t[["lon_min", "lat_min", "lon_max", "lat_max"]].to_numpy(), 7)
    assert t["lat_min"].isna().sum() == rel.report["withheld_rows"] < 0.05 * len(df)
    # the released columns are k-anonymous on their own, and the partition beneath tiles the bounds
    assert audit(t, ["lat_min", "lat_max", "lon_min", "lon_max"])["k"] >= 7
    rel.partition.verify()


def test_report_contract():
    rel = ga.generalize_points(_records(), 5, **ROLES)
    r = rel.report
    for key in ("rows", "k", "classes", "min_class", "max_class", "lower_bound", "ratio", "method", "seconds"):
        assert key in r
    assert r["rows"] == 300 and r["k"] == 5 and r["min_class"] >= 5
    assert r["ratio"] == pytest.approx(rel.partition.max_weight / r["lower_bound"], abs=1e-6)   # the partition's
    assert r["audit"]["k"] >= 5


def test_job_reports_are_typed_and_read_as_their_flat_dict():
    from geoanon.joint.search import JointPartition

    df = _records()
    points = ga.generalize_points(df, 5, **ROLES)
    joint = ga.anonymize(df, location=("lat", "lon"), qi=["age"], sensitive="note", l=2, k=5, identifiers=["id"])
    suppressed = ga.suppress(df, ["note"], k=5, sensitive="age", l_distinct=2, identifiers=["id", "lat", "lon"])
    for rel in (points, joint, suppressed):
        r = rel.report
        assert isinstance(r, ga.JobReport) and dict(r) == r.to_dict() and list(r) == list(r.keys())
        assert (r.rows, r.classes, r.min_class, r.max_class) == (r["rows"], r["classes"], r["min_class"],
                                                                  r["max_class"])
        assert r.warnings is rel.warnings and r.get("nope") is None and r.audit is r["audit"]
    assert list(joint.report)[:10] == ["rows", "k", "l", "l_distinct", "t", "sensitive", "location", "qi", "method",
                                       "classes"]
    assert list(suppressed.report)[:4] == ["rows", "qi", "sensitive", "k"]
    assert list(points.report)[-3:] == ["audit", "seconds", "warnings"]
    assert isinstance(joint.partition, JointPartition) and suppressed.partition is None


def test_string_columns_are_parsed_and_missing_rows_suppressed():
    df = _records(60).astype(str)
    df.loc[[3, 10, 11, 20, 30], "lat"] = ["", "NA", "null", "nan", " "]
    with pytest.raises(ga.DataError, match=r"5 rows have no coordinates \(first: row 3\)"):
        ga.generalize_points(df, 5, **ROLES)
    rel = ga.generalize_points(df, 5, missing="suppress", **ROLES)
    t = rel.in_input_order()
    gone = t.loc[[3, 10, 11, 20, 30]]
    assert gone[["lat_min", "lat_max", "lon_min", "lon_max"]].isna().all().all()
    assert gone.class_id.nunique() == 1 and (t.class_id == gone.class_id.iloc[0]).sum() == 5
    assert rel.report["suppressed_rows"] == 5 and rel.report["min_class"] >= 5
    with pytest.raises(ga.InfeasibleError, match="5 rows without coordinates cannot form"):
        ga.generalize_points(df, 6, missing="suppress", **ROLES)


@pytest.mark.parametrize("value, match", [
    ("abc", r"column 'lat', row 4: 'abc' is not a number"),
    ("inf", "NaN or infinite"),
    ("95.5", "outside longitude"),
])
def test_bad_coordinates(value, match):
    df = _records(20).astype(str)
    df.loc[4, "lat"] = value
    with pytest.raises(ga.DataError, match=match):
        ga.generalize_points(df, 2, **ROLES)


def test_bad_parameters():
    df = _records(20)
    with pytest.raises(ga.DataError, match="no column 'latitude'"):
        ga.generalize_points(df, 2, lat="latitude", **ROLES)
    with pytest.raises(ga.InfeasibleError, match="k=21 is larger"):
        ga.generalize_points(df, 21, **ROLES)
    with pytest.raises(ga.ParameterError, match="k must be"):
        ga.generalize_points(df, 0, **ROLES)
    with pytest.raises(ga.ParameterError, match="missing"):
        ga.generalize_points(df, 2, missing="drop", **ROLES)
    with pytest.raises(ga.DataError, match="already exists"):
        ga.generalize_points(df.assign(class_id=1), 2, **ROLES)
    with pytest.raises(ga.DataError, match="booleans"):
        ga.generalize_points(df.assign(lat=True), 2, **ROLES)


def test_a_geodataframe_uses_its_geometry_by_default_and_never_publishes_coordinate_columns():
    import geopandas as gpd

    df = _records(200)
    points = gpd.GeoDataFrame(df.drop(columns=["lat", "lon"]), geometry=gpd.points_from_xy(df.lon, df.lat), crs=4326)
    table = ga.generalize_points(points, 8, **ROLES).in_input_order()            # no lat/lon given: the geometry
    assert {"lat_min", "lon_max"} <= set(table.columns) and (table.geometry.geom_type == "Polygon").all()
    with pytest.raises(ga.DataError, match="omit lat and lon"):
        ga.generalize_points(points, 8, lat="lat", lon="lon", **ROLES)
    metres = points.to_crs(5070).assign(x=1.0)             # a raw column named like the output's base
    with pytest.raises(ga.DataError, match="column 'x' besides its geometry"):
        ga.generalize_points(metres, 8, **ROLES)


def test_the_dataframe_accessor_calls_the_library():
    df = _records(120)
    release = df.geoanon.generalize_points(6, **ROLES)
    assert release.report.min_class >= 6
    assert release.in_input_order().geoanon.audit(["lat_min", "lat_max", "lon_min", "lon_max"], k=6)["k"] >= 6
    joint = df.geoanon.anonymize(location=("lat", "lon"), k=6, **ROLES)
    assert joint.report.min_class >= 6


def test_geodataframe_geometry_is_replaced_by_rectangles():
    import geopandas as gpd

    df = _records(200)
    gdf = gpd.GeoDataFrame(df.drop(columns=["lat", "lon"]), geometry=gpd.points_from_xy(df.lon, df.lat), crs=4326)
    rel = ga.generalize_points(gdf, 8, lat=None, lon=None, **ROLES)
    t = rel.in_input_order()
    assert isinstance(t, gpd.GeoDataFrame) and t.crs.to_epsg() == 4326
    assert (t.geometry.geom_type == "Polygon").all()
    assert t.geometry.covers(gdf.geometry).all()
    assert {"lat_min", "lon_max", "class_id"} <= set(t.columns)
    # with coordinate columns, a point geometry still never leaks
    gdf2 = gpd.GeoDataFrame(df, geometry=gpd.points_from_xy(df.lon, df.lat), crs=4326)
    t2 = ga.generalize_points(gdf2, 8, **ROLES).in_input_order()
    assert (t2.geometry.geom_type == "Polygon").all()


def test_preview_draws_classes_not_points():
    rel = ga.generalize_points(_records(), 10, **ROLES)
    m = rel.preview(title="<script>alert(1)</script>")
    from geoanon.report.maps import render_html

    html = render_html(m)
    assert "<script>alert(1)</script>" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert drawn_shapes(html) == rel.partition.n_classes
    places = re.search(r"\(function \(map, places\).*?\}\)\(map_\w+, ", html, flags=re.S)[0]   # labels of towns
    html = html.replace(places, "")
    assert '"type":"Point"' not in html and "L.marker(" not in html and "L.circleMarker(" not in html


def test_geometry_column_with_another_name():
    import geopandas as gpd

    df = _records(60)
    gdf = gpd.GeoDataFrame(df[["id"]], geometry=gpd.points_from_xy(df.lon, df.lat), crs=4326).rename_geometry("geom")
    t = ga.generalize_points(gdf, 6, lat=None, lon=None, identifiers=["id"]).in_input_order()
    assert t.geometry.name == "geom" and (t.geom.geom_type == "Polygon").all()
    assert t.geom.covers(gdf.geom).all()
