"""The region job on messy real geography and hostile input (issue 10):
regions without records, islands joined to their nearest region, larger edge
lists, invalid polygons, centroid ranges, missing CRS, messages, formula-safe
labels and duplicate columns."""
import json

import networkx as nx
import numpy as np
import pandas as pd
import pytest
import shapely
from shapely.geometry import Polygon

import geoanon as ga
from geoanon.datasets import data_path, nc_counties
from geoanon.report.maps import render_html

from checkers import check_bridged_partition, check_region_groups, drawn_shapes, great_circle

WAKE = "37183"


def _records(n=3000, seed=0, among=None):
    """Records in NC counties (or in ``among``), drawn in proportion to 1974 births."""
    nc = nc_counties()
    if among is not None:
        nc = nc[nc.FIPS.isin(among)]
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"fips": rng.choice(nc.FIPS.to_numpy(), size=n, p=nc.BIR74 / nc.BIR74.sum())})


def _rook_edges():
    return pd.read_csv(data_path("nc_counties_rook_edges.csv"), dtype=str)


def _centroid_table():
    """The NC counties as a CSV-like table of centroid columns (text)."""
    nc = nc_counties()
    xy = shapely.get_coordinates(shapely.centroid(nc.geometry.values))
    return pd.DataFrame({"fips": nc.FIPS, "lat": xy[:, 1].astype(str), "lon": xy[:, 0].astype(str)})


def bow_tie(polygon):
    """The polygon's outer ring twisted into a figure eight: the stretch between
    a quarter and three quarters of its vertices runs backwards, so the ring
    crosses itself once and still covers most of the polygon's area."""
    ring = shapely.get_coordinates(polygon.exterior)[:-1]
    a, b = len(ring) // 4, 3 * len(ring) // 4
    return Polygon(np.concatenate([ring[:a + 1], ring[a + 1:b + 1][::-1], ring[b + 1:]]))


def _with_bow_tie():
    nc = nc_counties()
    wake = nc.FIPS == WAKE
    return nc.assign(geometry=nc.geometry.where(~wake, bow_tie(nc.geometry[wake].iloc[0])))


def _cli_args(tmp_path, regions, *extra, k=150, region_id="FIPS"):
    return ["zip", tmp_path / "in.csv", "-k", k, "--zip-col", "fips", "--regions", regions, "--region-id", region_id,
            "-o", tmp_path / "out.csv", "--report", tmp_path / "r.json", *extra]


# -- regions without records --------------------------------------------------------

@pytest.mark.slow
def test_us_zip_regions_without_records_need_no_group(zip_nodes_df, zip_edges_df):
    """The shipped US ZIP graph cut at state lines (51 components), records in
    a third of the ZIPs of five states: components without records need no
    group (this used to be "... connected components weigh less than k")."""
    nodes = zip_nodes_df
    edges = zip_edges_df
    state = dict(zip(nodes.zip, nodes.state))
    inside = edges[edges.zip_a.map(state) == edges.zip_b.map(state)]
    rng = np.random.default_rng(0)
    pool = nodes.zip[nodes.state.isin(["NC", "SC", "GA", "VA", "DC"])].to_numpy()
    df = pd.DataFrame({"zip": rng.choice(rng.choice(pool, pool.size // 3, replace=False), 20000)})
    rel = ga.generalize_regions(df, 20, column="zip", regions=nodes, region_id="zip", edges=inside)

    G = ga.read_edge_list(inside, ids=nodes.zip)
    counts = df["zip"].value_counts().to_dict()
    components = list(nx.connected_components(G))
    empty = [c for c in components if not any(v in counts for v in c)]
    assert len(components) == 50 and len(empty) == 45
    r = rel.report
    grouped = {v for members in rel.classes["members"] for v in members.split(",")}
    assert r["empty_components"] == len(empty) and r["outside_regions"] == len(nodes) - len(grouped)
    assert r["empty_regions"] == len(grouped) - len(counts)
    assert r["suppressed_rows"] == 0 and r["suppressed_regions"] == 0 and r["audit"]["k"] >= 20
    check_region_groups(G, counts, 20, [m.split(",") for m in rel.classes["members"]])
    assert set(counts) <= grouped <= set().union(*(c for c in components if c not in empty))
    assert {state[v] for v in grouped} == {"NC", "SC", "GA", "VA", "DC"}
    assert rel.warnings == []             # the shipped graph has no centroid at (0, 0)


def test_cli_regions_without_records_are_left_out_of_classes_and_map(tmp_path, cli, nc_gdf):
    """NC cut in two at longitude -79, records only in the west: the east has
    no class, in the table, the classes file or the map."""
    nc = nc_gdf
    lon = dict(zip(nc.FIPS, shapely.get_coordinates(shapely.centroid(nc.geometry.values))[:, 0]))
    west = {f for f, x in lon.items() if x < -79}
    edges = _rook_edges()
    edges[(edges.FIPS_a.isin(west)) == (edges.FIPS_b.isin(west))].to_csv(tmp_path / "split.csv", index=False)
    _records(2000, among=west).to_csv(tmp_path / "in.csv", index=False)
    code, _, err = cli(*_cli_args(tmp_path, data_path("nc_counties.geojson"), "--edges", tmp_path / "split.csv",
                                  "--classes", tmp_path / "g.geojson", "--map", tmp_path / "m.html"))
    assert code == 0 and err == ""
    import geopandas as gpd

    groups = gpd.read_file(tmp_path / "g.geojson")
    members = {v for m in groups["members"] for v in m.split(",")}
    assert members == west
    G = ga.read_edge_list(pd.read_csv(tmp_path / "split.csv", dtype=str), ids=nc.FIPS)
    empty = [c for c in nx.connected_components(G) if not c & west]
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["empty_components"] == len(empty) >= 1 and report["classes"] == len(groups)
    assert report["outside_regions"] == 100 - len(west) == sum(map(len, empty)) and report["empty_regions"] == 0
    east = nc[~nc.FIPS.isin(west)].geometry.union_all()
    assert groups.geometry.union_all().intersection(east).area < 1e-9
    html = (tmp_path / "m.html").read_text()
    assert drawn_shapes(html) == len(groups)


# -- islands joined to the nearest region ------------------------------------------------

def _isolating(edges, county):
    return edges[(edges.FIPS_a != county) & (edges.FIPS_b != county)]


def test_isolated_light_county_joins_the_group_of_its_nearest_region(nc_gdf):
    df = _records()
    counts = df["fips"].value_counts()
    lonely = counts.index[-1]                                 # Clay County, 2 records
    edges = _isolating(_rook_edges(), lonely)
    with pytest.raises(ga.InfeasibleError, match=rf"^1 connected component weighs less than k=150 \(2 records in "
                                                 rf"region {lonely}\); connect it, or use on_small='suppress' or "
                                                 r"on_small='nearest'$"):
        ga.generalize_regions(df, 150, column="fips", regions=nc_gdf, region_id="FIPS", edges=edges)
    rel = ga.generalize_regions(df, 150, column="fips", regions=nc_gdf, region_id="FIPS", edges=edges,
                                on_small="nearest")
    nc = nc_gdf
    centroid = dict(zip(nc.FIPS, map(tuple, shapely.get_coordinates(shapely.centroid(nc.geometry.values)))))
    G = ga.read_edge_list(edges, ids=nc.FIPS)
    class_of = rel.partition.class_of()
    bridges = [[rel.partition.nodes[u], rel.partition.nodes[v]] for u, v in rel.partition.bridges.tolist()]
    check_bridged_partition(G, counts.to_dict(), 150, class_of, bridges, centroid, great_circle)
    nearest = min((v for v in centroid if v != lonely), key=lambda v: great_circle(centroid[lonely], centroid[v]))
    assert bridges == [[lonely, nearest]] and class_of[lonely] == class_of[nearest]
    # the published report counts the links; which regions they join (one holds records below k) it keeps back
    assert rel.report["bridges"] == 1 and lonely not in json.dumps(rel.report.to_dict())
    group = rel.classes.set_index("class_id").loc[class_of[lonely]]
    assert rel.report["noncontiguous_groups"] == [group["label"]] and lonely in group["members"].split(",")
    assert rel.notes == ["1 group joined to the nearest region across a gap (not contiguous)"]
    assert rel.report["suppressed_rows"] == 0 and (rel.in_input_order().groupby("fips").size() >= 150).all()


def test_cli_small_nearest_with_a_larger_edge_list(tmp_path, cli):
    """--small nearest joins an island county; an edge list naming a region
    the regions lack is accepted with a warning."""
    df = _records()
    df.to_csv(tmp_path / "in.csv", index=False)
    lonely = df["fips"].value_counts().index[-1]
    extra = pd.DataFrame({"FIPS_a": ["99999"], "FIPS_b": ["37001"]})
    pd.concat([_isolating(_rook_edges(), lonely), extra]).to_csv(tmp_path / "e.csv", index=False)
    args = _cli_args(tmp_path, data_path("nc_counties.geojson"), "--edges", tmp_path / "e.csv")
    code, _, err = cli(*args)
    assert code == 2 and len(err.splitlines()) == 1
    assert err.strip().endswith("connect it, or use --small suppress or --small nearest")
    code, _, err = cli(*args, "--small", "nearest", "--map", tmp_path / "m.html")
    assert code == 0
    assert err.splitlines() == ["geoanon zip: warning: the edge list names 1 region that is not in the regions "
                                "(99999); it and 1 edge were left out"]
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["bridges"] == 1 and len(report["noncontiguous_groups"]) == 1
    assert report["dropped_edge_regions"] == 1 and report["dropped_edges"] == 1
    assert "not contiguous" in (tmp_path / "m.html").read_text()


# -- invalid polygons ------------------------------------------------------------------

def test_bow_tie_county_is_repaired_and_keeps_its_neighbours(nc_gdf):
    bent = _with_bow_tie()
    polygon = bent.set_index("FIPS").geometry[WAKE]
    assert shapely.is_valid_reason(polygon).startswith("Self-intersection")
    G = ga.graph_from_polygons(bent, "FIPS")
    assert G.graph["repaired"] == [WAKE]
    assert set(map(frozenset, G.edges)) == set(map(frozenset, ga.graph_from_polygons(nc_gdf, "FIPS").edges))


def test_bow_tie_county_through_the_job(nc_gdf):
    df = _records()
    rel = ga.generalize_regions(df, 150, column="fips", regions=_with_bow_tie(), region_id="FIPS")
    assert rel.report["repaired_polygons"] == 1
    assert rel.warnings == [f"1 region had an invalid polygon ({WAKE}), repaired with shapely.make_valid keeping "
                            "the polygonal parts"]
    classes = rel.classes
    assert classes.is_valid.all() and len(classes) == rel.report["classes"]
    wake = classes[classes["members"].str.split(",").map(lambda m: WAKE in m)]
    original = nc_gdf.set_index("FIPS").geometry
    members = wake["members"].iloc[0].split(",")
    assert wake.geometry.iloc[0].area == pytest.approx(original[members].union_all().area, rel=0.05)
    html = render_html(rel.preview())
    assert drawn_shapes(html) == len(classes)


def test_cli_bow_tie_county_with_classes_and_map(tmp_path, cli):
    _with_bow_tie().to_file(tmp_path / "bent.geojson")
    _records().to_csv(tmp_path / "in.csv", index=False)
    code, out, err = cli(*_cli_args(tmp_path, tmp_path / "bent.geojson", "--classes", tmp_path / "g.geojson",
                                    "--map", tmp_path / "m.html"))
    assert code == 0 and "wrote" in out
    assert err == (f"geoanon zip: warning: 1 region had an invalid polygon ({WAKE}), repaired with "
                   "shapely.make_valid keeping the polygonal parts\n")
    import geopandas as gpd

    groups = gpd.read_file(tmp_path / "g.geojson")
    assert groups.is_valid.all() and groups.geom_type.isin(["Polygon", "MultiPolygon"]).all()
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["repaired_polygons"] == 1 and report["warnings"] == [err[len("geoanon zip: warning: "):-1]]
    assert drawn_shapes((tmp_path / "m.html").read_text()) == len(groups)


# -- centroids and CRS -----------------------------------------------------------------

@pytest.mark.parametrize("column, value, message", [
    ("lat", "95", "region '37063' has latitude 95.0, outside [-90, 90] (2 regions out of range)"),
    ("lat", "-90.5", "region '37063' has latitude -90.5, outside [-90, 90] (2 regions out of range)"),
    ("lon", "-200", "region '37063' has longitude -200.0, outside [-180, 180] (2 regions out of range)"),
    ("lon", "180.25", "region '37063' has longitude 180.25, outside [-180, 180] (2 regions out of range)"),
])
def test_centroids_outside_longitude_latitude_are_refused(column, value, message):
    table = _centroid_table()
    bad = table.fips.isin(["37063", "37183"])            # Durham comes first in the file
    assert table.fips[bad].tolist() == ["37063", "37183"]
    table.loc[bad, column] = value
    with pytest.raises(ga.DataError) as refused:
        ga.generalize_regions(_records(), 150, column="fips", regions=table, region_id="fips")
    assert str(refused.value) == message


def test_centroids_on_the_limits_are_accepted():
    table = _centroid_table()
    table.loc[table.fips == "37063", ["lat", "lon"]] = ["90", "-180"]
    rel = ga.generalize_regions(_records(), 150, column="fips", regions=table, region_id="fips")
    assert rel.report["audit"]["k"] >= 150 and rel.warnings == []


def test_centroids_at_null_island_are_warned_about():
    df = _records()
    table = _centroid_table()
    table.loc[table.fips.isin(["37001", "37003"]), ["lat", "lon"]] = "0"
    rel = ga.generalize_regions(df, 150, column="fips", regions=table, region_id="fips")
    assert rel.warnings == ["2 regions have their centroid at (0, 0), usually a failed geocoding (37001, 37003); "
                            "check their coordinates"]
    assert rel.report["warnings"] == rel.warnings
    table = _centroid_table()
    table.loc[table.index[:7], ["lat", "lon"]] = "0.0"
    [warning] = ga.generalize_regions(df, 150, column="fips", regions=table, region_id="fips").warnings
    first = ", ".join(table.fips[:5])
    assert warning == (f"7 regions have their centroid at (0, 0), usually a failed geocoding (e.g. {first}); "
                       "check their coordinates")


def test_regions_without_crs(nc_gdf):
    df = _records()
    bare = nc_gdf.set_crs(None, allow_override=True)
    rel = ga.generalize_regions(df, 150, column="fips", regions=bare, region_id="FIPS")
    assert rel.warnings == ["the regions have no CRS; their coordinates fit longitude/latitude, so EPSG:4326 "
                            "is assumed"]
    assert rel.classes.crs.to_epsg() == 4326 and drawn_shapes(render_html(rel.preview())) > 0
    projected = nc_gdf.to_crs(32119)                  # NC State Plane, metres
    rel = ga.generalize_regions(df, 150, column="fips", regions=projected, region_id="FIPS")
    assert rel.warnings == [] and rel.classes.crs.to_epsg() == 32119
    assert drawn_shapes(render_html(rel.preview())) > 0
    with pytest.raises(ga.DataError, match=r"^the regions have no CRS and their coordinates are not "
                                           r"longitude/latitude; give the file a CRS \(GeoDataFrame.set_crs, "
                                           r"ogr2ogr -a_srs\)$"):
        ga.generalize_regions(df, 150, column="fips", regions=projected.set_crs(None, allow_override=True),
                              region_id="FIPS")
    with pytest.raises(ga.DataError, match=r"^region '37009' has longitude 418.76029, outside \[-180, 180\] "
                                           r"\(100 regions out of range\); if the coordinates are not "
                                           r"longitude/latitude, the regions' CRS \(EPSG:4326\) is wrong"):
        ga.generalize_regions(df, 150, column="fips", region_id="FIPS",
                              regions=nc_gdf.set_geometry(nc_gdf.geometry.translate(500, 0)))


# -- messages, labels, columns ---------------------------------------------------------

def test_light_components_are_counted_in_words(nc_gdf):
    df = _records()
    light = df["fips"].value_counts().index[-2:].tolist()
    edges = _isolating(_isolating(_rook_edges(), light[0]), light[1])
    with pytest.raises(ga.InfeasibleError, match=r"^2 connected components weigh less than k=150 \(\d+ records in "
                                                 r"regions \d+, \d+\); connect them, or use on_small='suppress' "
                                                 r"or on_small='nearest'$"):
        ga.generalize_regions(df, 150, column="fips", regions=nc_gdf, region_id="FIPS", edges=edges)
    with pytest.raises(ga.InfeasibleError, match=r"^\d+ records would be suppressed \(unknown regions or "
                                                 r"components lighter than k\), too few to form a class of k=150$"):
        ga.generalize_regions(df, 150, column="fips", regions=nc_gdf, region_id="FIPS", edges=edges,
                              on_small="suppress")


def test_group_labels_cannot_start_a_formula(tmp_path):
    ids = ['=HYPERLINK("x")', "-5", "-7", "b", "c", "@SUM(1)", "z"]
    regions = pd.DataFrame({"id": ids, "lat": ["0", "0", "0", "10", "10", "20", "20"],
                            "lon": ["0", "1", "2", "0", "1", "0", "1"]})
    edges = pd.DataFrame({"a": ids[0:2] + ["b", "@SUM(1)"], "b": ["-5", "-7", "c", "z"]})
    df = pd.DataFrame({"r": np.repeat(ids, [3, 3, 2, 3, 3, 3, 2]), "n": np.arange(19).astype(str)})
    rel = ga.generalize_regions(df, 3, column="r", regions=regions, region_id="id", edges=edges, keep=["n"])
    labels = {"'=HYPERLINK(\"x\")", "'-5|-7", "b", "c", "'@SUM(1)|z"}
    assert set(rel.in_input_order()["r"]) == set(rel.classes["label"]) == labels
    assert set(rel.classes["members"]) == {"'=HYPERLINK(\"x\")", "'-5,-7", "b", "c", "'@SUM(1),z"}
    rel.to_file(tmp_path / "out.csv")
    written = pd.read_csv(tmp_path / "out.csv", dtype=str, keep_default_na=False)
    assert set(written["r"]) == labels
    # each record (by its kept column n) written with its class's escaped label, in a random order
    by_n = written.set_index("n")["r"]
    assert sorted(by_n.index) == sorted(df["n"]) and (by_n[df["n"]].to_numpy() == rel.in_input_order()["r"].to_numpy()).all()
    assert written["n"].tolist() != df["n"].tolist()


def test_duplicate_columns_are_a_type_error(nc_gdf):
    df = _records()
    twice = pd.concat([df, df[["fips"]]], axis=1)
    with pytest.raises(ga.DuplicateColumnError, match=r"^the table has 2 columns named 'fips'; rename them apart$"):
        ga.generalize_regions(twice, 150, column="fips", regions=nc_gdf, region_id="FIPS")
    table = _centroid_table()
    with pytest.raises(TypeError, match=r"^the regions have 2 columns named 'lat'; rename them apart$"):
        ga.generalize_regions(df, 150, column="fips", regions=pd.concat([table, table[["lat"]]], axis=1),
                              region_id="fips")
    edges = _rook_edges()
    edges.columns = ["a", "a"]
    with pytest.raises(ga.DuplicateColumnError, match=r"^the edge list has 2 columns named 'a'"):
        ga.generalize_regions(df, 150, column="fips", regions=table, region_id="fips", edges=edges)


def test_the_report_counts_suppressed_regions_without_naming_them():
    """Regions suppressed for being too light hold records the release hides:
    the published report counts them, never names them."""
    centroids = pd.DataFrame({"id": ["r1", "r2", "r3", "islet-a", "islet-b"], "lat": ["35", "35.1", "35.2", "34", "33"],
                              "lon": ["-80", "-80.1", "-80.2", "-76", "-75"]})
    edges = pd.DataFrame({"x": ["r1", "r2"], "y": ["r2", "r3"]})
    df = pd.DataFrame({"r": ["r1"] * 6 + ["r2"] * 6 + ["r3"] * 6 + ["islet-a"] * 3 + ["islet-b"] * 3})
    rel = ga.generalize_regions(df, 6, column="r", regions=centroids, region_id="id", edges=edges,
                                on_small="suppress")
    assert rel.report["suppressed_regions"] == 2 and rel.report["suppressed_rows"] == 6
    assert "islet" not in json.dumps(rel.report.to_dict())
    assert (rel.in_input_order()["r"] == "*").sum() == 6
