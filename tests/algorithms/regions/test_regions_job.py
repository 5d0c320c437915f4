"""The region job, from the API and the command line."""
import json
import os
import re

import numpy as np
import pandas as pd
import pytest

import geoanon as ga
from geoanon.datasets import data_path, nc_counties

from checkers import check_region_groups, drawn_shapes


def _centroids(frame):
    import shapely

    return shapely.get_coordinates(shapely.centroid(frame.geometry.values))


def _records(n=3000, seed=0):
    nc = nc_counties()
    rng = np.random.default_rng(seed)
    fips = rng.choice(nc.FIPS.to_numpy(), size=n, p=nc.BIR74 / nc.BIR74.sum())
    return pd.DataFrame({"id": [f"{i:05d}" for i in range(n)], "fips": fips,
                         "weight_g": rng.integers(2000, 4500, n).astype(str)})


# the columns of ``_records`` besides the region, published as they are (the id to follow each row)
KEEP = ["id", "weight_g"]


def test_release_keeps_rows_and_columns_and_groups_are_connected(nc_gdf):
    df = _records()
    rel = ga.generalize_regions(df, 150, column="fips", regions=nc_gdf, region_id="FIPS", keep=KEEP)
    t = rel.in_input_order()
    assert list(t.columns) == ["id", "fips", "weight_g", "class_id"] and len(t) == len(df)
    assert t["id"].equals(df["id"]) and t["weight_g"].equals(df["weight_g"])
    assert t.groupby("fips").size().min() >= 150 and t.groupby("class_id").size().min() >= 150
    # each label lists the members holding records, up to three, else names the one nearest the mean of their
    # centroids, +N others holding records (county FIPS codes: no ZIP3, county or state to name them by)
    nc = nc_gdf
    centroid = dict(zip(nc.FIPS, _centroids(nc)))
    for _, row in rel.classes.iterrows():
        members = row["members"].split(",")
        held = sorted(set(members) & set(df["fips"]))
        xy = np.array([centroid[m] for m in held]) * [1, 1]
        xy[:, 0] *= np.cos(np.radians(xy[:, 1].mean()))
        central = held[int(np.argmin(((xy - xy.mean(axis=0)) ** 2).sum(axis=1)))]
        assert row["label"] == ("|".join(held) if len(held) <= 3 else f"{central}+{len(held) - 1}")
        assert row["regions"] == len(members)
        raw = df["fips"].isin(members)
        assert (t.loc[raw, "class_id"] == row["class_id"]).all() and raw.sum() == row["weight"]
    G = ga.graph_from_polygons(nc_gdf, "FIPS")
    counts = df["fips"].value_counts().to_dict()
    check_region_groups(G, counts, 150, [m.split(",") for m in rel.classes["members"]])
    assert rel.classes.geometry.is_valid.all() and rel.classes.crs.to_epsg() == 4326
    r = rel.report
    assert r["min_class"] >= 150 and r["tree_degree"] == 3 and r["graph"]["planar"] is True


def test_centroids_with_and_without_an_edge_list(nc_gdf, nc_edges_df):
    nc = nc_gdf
    xy = _centroids(nc)
    centroids = pd.DataFrame({"fips": nc.FIPS, "lat": xy[:, 1].astype(str), "lon": xy[:, 0].astype(str)})
    edges = nc_edges_df
    df = _records()
    via_edges = ga.generalize_regions(df, 200, column="fips", regions=centroids, region_id="fips", edges=edges,
                                      keep=KEEP)
    assert via_edges.report["graph"]["edges"] == 231
    via_delaunay = ga.generalize_regions(df, 200, column="fips", regions=centroids, region_id="fips", keep=KEEP)
    assert via_delaunay.report["graph"]["edges"] > 231          # Delaunay also links non-touching centroids
    # groups known by centroids are drawn as the union of their Voronoi cells: areas that never overlap
    import shapely

    for rel in (via_edges, via_delaunay):
        shapes = rel.classes
        assert shapes.geom_type.isin(["Polygon", "MultiPolygon"]).all() and shapes.is_valid.all()
        assert np.isclose(shapes.area.sum(), shapely.union_all(shapes.geometry.to_numpy()).area)
        members = rel.classes.set_index("class_id")["members"].str.split(",")
        for cid, regions in members.items():
            inside = shapely.points(xy[nc.FIPS.isin(regions).to_numpy()])
            assert shapely.covers(shapes.geometry[shapes.class_id == cid].iloc[0], inside).all()
    # an edge list larger than the regions: its extra regions and their edges are left out
    larger = pd.concat([edges, pd.DataFrame({"FIPS_a": ["99999", "99999", "99998"],
                                             "FIPS_b": ["37001", "99998", "37003"]})], ignore_index=True)
    rel = ga.generalize_regions(df, 200, column="fips", regions=centroids, region_id="fips", edges=larger,
                                keep=KEEP)
    assert rel.report["dropped_edge_regions"] == 2 and rel.report["dropped_edges"] == 3
    assert rel.report["graph"]["edges"] == 231
    assert rel.warnings == ["the edge list names 2 regions that are not in the regions (99999, 99998); "
                            "they and 3 edges were left out"]
    assert rel.report["warnings"] is rel.warnings
    assert rel.in_input_order().equals(via_edges.in_input_order())


def test_unknown_regions_and_small_components(nc_gdf):
    df = _records(800)
    df.loc[[5, 9], "fips"] = ["99999", ""]
    with pytest.raises(ga.DataError, match=r"2 records name regions that are not in the regions \(e.g. '99999'"):
        ga.generalize_regions(df, 50, column="fips", regions=nc_gdf, region_id="FIPS", keep=KEEP)
    with pytest.raises(ga.InfeasibleError, match="2 records would be suppressed"):
        ga.generalize_regions(df, 50, column="fips", regions=nc_gdf, region_id="FIPS", unknown="suppress",
                              keep=KEEP)
    df.loc[: 60, "fips"] = "00000"       # 61 unknown records: enough for a suppressed class
    rel = ga.generalize_regions(df, 50, column="fips", regions=nc_gdf, region_id="FIPS", unknown="suppress",
                                keep=KEEP)
    starred = rel.in_input_order()["fips"] == "*"
    assert starred.sum() == 61 and rel.in_input_order().loc[starred, "class_id"].nunique() == 1
    assert rel.report["unknown_rows"] == 61 and rel.report["suppressed_rows"] == 61


def test_island_regions_suppressed_or_refused():
    centroids = pd.DataFrame({"id": ["a", "b", "c", "d"], "lat": ["0", "0", "0", "5"], "lon": ["0", "1", "2", "9"]})
    edges = pd.DataFrame({"x": ["a", "b"], "y": ["b", "c"]})          # d is an island
    df = pd.DataFrame({"r": ["a"] * 6 + ["b"] * 6 + ["c"] * 6 + ["d"] * 5})
    with pytest.raises(ga.InfeasibleError, match=r"^1 connected component weighs less than k=6 "
                                                 r"\(5 records in region d\)"):
        ga.generalize_regions(df, 6, column="r", regions=centroids, region_id="id", edges=edges)
    rel = ga.generalize_regions(df, 5, column="r", regions=centroids, region_id="id", edges=edges, on_small="suppress")
    assert rel.report["suppressed_regions"] == 0 and rel.report["classes"] == 4
    with pytest.raises(ga.InfeasibleError, match="5 records would be suppressed"):
        ga.generalize_regions(df, 6, column="r", regions=centroids, region_id="id", edges=edges, on_small="suppress")


def test_geodataframe_records_get_group_shapes(nc_gdf):
    import geopandas as gpd

    df = _records(1000)
    nc = nc_gdf.set_index("FIPS")
    points = gpd.GeoDataFrame(df, geometry=gpd.points_from_xy(*_centroids(nc.loc[df.fips]).T), crs=4326)
    t = ga.generalize_regions(points, 100, column="fips", regions=nc_gdf, region_id="FIPS", keep=KEEP).in_input_order()
    assert (t.geom_type.isin(["Polygon", "MultiPolygon"])).all()
    assert t.geometry.covers(points.geometry).all()


def test_cli_zip_polygons_with_classes_map_report(tmp_path, cli):
    df = _records()
    df.to_csv(tmp_path / "in.csv", index=False)
    args = ["zip", tmp_path / "in.csv", "-k", 150, "--zip-col", "fips", "--regions", data_path("nc_counties.geojson"),
            "--region-id", "FIPS", "-o", tmp_path / "out.csv", "--classes", tmp_path / "groups.geojson",
            "--map", tmp_path / "map.html", "--report", tmp_path / "r.json", "--keep", ",".join(KEEP)]
    code, out, err = cli(*args)
    assert code == 0, err
    res = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert sorted(res["id"]) == df["id"].tolist() and res.groupby("fips").size().min() >= 150
    import geopandas as gpd

    groups = gpd.read_file(tmp_path / "groups.geojson")
    assert set(groups.columns) >= {"class_id", "label", "members", "regions", "weight"}
    # each record's group (by its id) holds its region
    members = dict(zip(groups["label"], groups["members"].str.split(",")))
    raw = dict(zip(df["id"], df["fips"]))
    assert all(raw[i] in members[label] for i, label in zip(res["id"], res["fips"]))
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["classes"] == len(groups) and report["min_class"] >= 150
    html = (tmp_path / "map.html").read_text()
    assert drawn_shapes(html) == len(groups) and "regions" in html


def test_cli_zip_csv_regions_and_edges(tmp_path, cli, nc_gdf):
    nc = nc_gdf
    xy = _centroids(nc)
    pd.DataFrame({"fips": nc.FIPS, "lat": xy[:, 1], "lon": xy[:, 0]}).to_csv(tmp_path / "regions.csv", index=False)
    _records().to_csv(tmp_path / "in.csv", index=False)
    code, _, err = cli(*["zip", tmp_path / "in.csv", "-k", 300, "--zip-col", "fips", "--regions", tmp_path / "regions.csv",
                        "--region-id", "fips", "--edges", data_path("nc_counties_rook_edges.csv"),
                        "-o", tmp_path / "out.parquet", "--classes", tmp_path / "g.gpkg", "--identifiers", "id",
                        "--keep", "weight_g"])
    assert code == 0, err
    assert pd.read_parquet(tmp_path / "out.parquet").groupby("fips").size().min() >= 300


@pytest.mark.slow
def test_demo_also_runs_the_region_job(tmp_path, cli, births_df):
    """The demo's births are a joint release too: the county (each class
    publishes the group of counties its births hold), sex and birth weight
    generalized, record_id dropped, k=100."""
    code, out, err = cli(*["demo", "--out", tmp_path])
    assert code == 0, err
    births = births_df
    report = json.loads((tmp_path / "regions_report.json").read_text())
    assert report["rows"] == len(births) and report["k"] == 100 and report["method"] == "joint"
    assert report["audit"]["ok"] and report["audit"]["k"] >= 100
    assert report["location"]["kind"] == "zip" and report["qi"] == {"sex": "set", "birth_weight_g": "interval"}
    published = pd.read_csv(tmp_path / "regions.csv", dtype=str)
    assert sorted(published.columns) == ["birth_weight_g_max", "birth_weight_g_min", "class_id", "county_fips",
                                         "sex"]                                           # record_id dropped
    sizes = published.groupby("class_id").size()
    assert sizes.min() >= 100 and len(sizes) == report["location_classes"]
    # each group is named "A|B|C" (up to three counties) or "FIPS+N" (a county and N more), of the demo's
    # counties; the classes file draws each class's group, with its births
    import geopandas as gpd

    counties = set(births["county_fips"].astype(str))
    for name in published["county_fips"].unique():
        first, _, more = name.split(" #")[0].partition("+")
        named = [first] if more else first.split("|")
        assert set(named) <= counties and (int(more) >= 1 if more else 1 <= len(named) <= 3), name
    groups = gpd.read_file(tmp_path / "regions_classes.geojson")
    assert len(groups) == len(sizes) and groups.is_valid.all() and (groups["classes"] == 1).all()
    assert sorted(groups["weight"]) == sorted(sizes)
    assert "geoanon anonymize with method &quot;frontier&quot; publishes groups that never overlap" in \
        (tmp_path / "regions_map.html").read_text()
    for name in ("regions.csv", "regions_map.html", "regions_classes.geojson", "regions_report.html"):
        assert str(tmp_path / name) in out
    regions = out.split("Regions:")[1]
    assert "k=100" in regions and int(re.search(r"audited k = (\d+)", regions)[1]) >= 100


BAD = [
    ("missing column", ["--zip-col", "zipcode"], "no column 'zipcode'"),
    ("unknown region", None, "1 record names a region that is not in the regions (e.g. '12345'); "
                             "use --unknown suppress to generalize it fully"),
    ("k too large", ["-k", 10**7], "k=10000000 is larger than the data (total weight 500)"),
    ("bad region id column", ["--region-id", "GEOID"], "no column 'GEOID' in the regions"),
    ("classes not geo", ["--classes", "{d}/g.csv"], "the classes file must be geojson, gpkg, parquet, shp"),
    ("missing regions file", ["--regions", "{d}/nowhere.geojson"], "no such file"),
    ("bad method", ["--method", "maxp"], "invalid choice"),
]


@pytest.mark.parametrize("name, change, message", BAD, ids=[b[0] for b in BAD])
def test_cli_zip_bad_input(tmp_path, cli, name, change, message):
    df = _records(500)
    if name == "unknown region":
        df.loc[3, "fips"] = "12345"
    df.to_csv(tmp_path / "in.csv", index=False)
    base = {"-k": 20, "--zip-col": "fips", "--regions": str(data_path("nc_counties.geojson")), "--region-id": "FIPS",
            "-o": str(tmp_path / "out.csv"), "--map": str(tmp_path / "m.html"), "--classes": str(tmp_path / "g.geojson"),
            "--identifiers": "id", "--keep": "weight_g"}
    for key, value in zip((change or [])[::2], (change or [])[1::2]):
        base[key] = str(value).format(d=tmp_path)
    before = sorted(os.listdir(tmp_path))
    code, _, err = cli(*["zip", tmp_path / "in.csv", *[x for kv in base.items() for x in kv]])
    assert code == 2 and len(err.strip().splitlines()) == 1 and message in err
    assert sorted(os.listdir(tmp_path)) == before


def test_region_map_escapes_labels():
    from geoanon.report.maps import render_html

    regions = pd.DataFrame({"id": ["<b>x</b>", "y", "z"], "lat": [0, 0, 0], "lon": [0, 1, 2]})
    df = pd.DataFrame({"r": ["<b>x</b>"] * 3 + ["y"] * 3 + ["z"] * 3})
    rel = ga.generalize_regions(df, 3, column="r", regions=regions, region_id="id")
    html = render_html(rel.preview())
    # the label reaches the page HTML-escaped (inside JSON, & is written \u0026)
    assert "<b>x</b>" not in html and "\\u003cb\\u003e" not in html
    assert "&lt;b&gt;x&lt;/b&gt;" in html.replace("\\u0026", "&")
