"""ZIP codes under the joint design (geoanon.pipeline.locations.placed_groups):
the regions' places cut as points are, each class publishing the group of
the regions its own records hold, checked here from the raw ZIP codes."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from shapely.geometry import Point

import geoanon as ga
from geoanon.errors import InfeasibleError, ParameterError

from test_zip_km import check_release, diameter_km, grid_records, grid_regions, location, release


def _held(df, rel, column="zip"):
    """Per class: its published label and the set of (known) ZIP codes its records hold."""
    t = rel.in_input_order()
    g = pd.DataFrame({"label": t[column].to_numpy(), "zip": df["zip"].to_numpy(), "c": t["class_id"].to_numpy()})
    return g.groupby("c").agg(label=("label", "first"), labels=("label", "nunique"),
                              held=("zip", lambda s: frozenset(s[s != "99999"])), rows=("zip", "size"))


def _check_groups(df, rel, k):
    """Every class of k or more, one label, '*' exactly for classes of unknown ZIP codes; classes holding the
    same ZIP codes share a label and others do not; the report's km its groups' diameters, from the raw ZIPs."""
    check_release(df, rel, k)
    regions = grid_regions()[0].set_index("zip")
    by = _held(df, rel)
    assert (by["labels"] == 1).all() and (by["rows"] >= k).all()
    starred = by["label"] == "*"
    assert (by.loc[starred, "held"].map(len) == 0).all() and (by.loc[~starred, "held"].map(len) > 0).all()
    named = by[~starred]
    assert named.groupby("held")["label"].nunique().eq(1).all()
    assert named.groupby("label")["held"].nunique().eq(1).all()
    km = named["held"].map(lambda h: diameter_km(regions.loc[list(h), "lat"], regions.loc[list(h), "lon"]))
    per_row = np.repeat(km.to_numpy(), named["rows"].to_numpy())
    d = rel.report.details["location_km"]
    assert d["median"] == round(float(np.median(per_row)), 3) and d["max"] == round(float(per_row.max()), 3)
    return named, km


def test_each_class_publishes_the_regions_its_own_records_hold():
    df = grid_records(seed=1, unknown=12)
    rel = release(df, method="joint")
    named, km = _check_groups(df, rel, 10)
    d = rel.report.details                                 # no default target: the tail is priced as points'
    assert "max_extent_km" not in d and isinstance(d["tail_reach_km"], float)
    assert rel.notes[0].startswith(f"ZIP groups wider than {d['tail_reach_km']:,.1f} km (4 typical k-neighbourhoods")
    shapes = rel.classes.set_index("class_id").geometry
    regions = grid_regions()[0].set_index("zip")
    for c, held in named["held"].items():                 # drawn over its own regions and those between
        inside = {z for z, (lat, lon) in regions[["lat", "lon"]].iterrows() if shapes[c].covers(Point(lon, lat))}
        assert set(held) <= inside


@pytest.mark.parametrize("max_km", [40.0, 90.0])
def test_max_extent_bounds_every_group(max_km):
    df = grid_records(seed=1, unknown=12)
    try:
        rel = release(df, method="joint", max_extent_km=max_km)
    except InfeasibleError as e:
        assert "raise max_extent_km" in str(e)
        return
    _, km = _check_groups(df, rel, 10)
    assert km.max() <= max_km and rel.report.details["max_extent_km"] == max_km


def test_a_bound_on_rolled_up_groups_needs_the_tiling_design():
    with pytest.raises(ParameterError, match="max_extent_km with zip_level='county' works with method='frontier'"):
        release(grid_records(seed=3), method="joint", zip_level="county", max_extent_km=100)


def test_zip_codes_are_cut_at_their_places_by_default_and_rolled_up_ones_tiled():
    """The default design: the joint one at ZIP level; rolled up, the tiling, which takes a bound."""
    df = grid_records(seed=3)
    assert release(df).report["method"] == "joint"
    pd.testing.assert_frame_equal(release(df).table, release(df, method="joint").table)
    rolled = release(df, zip_level="county", max_extent_km=500)
    assert rolled.report["method"] == "frontier" and rolled.report.details["max_extent_km"] == 500
    pd.testing.assert_frame_equal(rolled.table, release(df, zip_level="county", max_extent_km=500,
                                                        method="frontier").table)


def test_rolled_up_groups_hold_whole_counties():
    df = grid_records(seed=3)
    rel = release(df, method="joint", zip_level="county")
    check_release(df, rel, 10, column="county")
    regions = grid_regions()[0]
    county = df["zip"].map(dict(zip(regions["zip"], regions["state"] + "/" + regions["county"])))
    t = rel.in_input_order()
    for label, rows in t.groupby("county").groups.items():     # a label lists its records' counties
        held = set(county[rows])
        assert "+" in label or set(label.split(" #")[0].split("|")) == held


def test_the_same_input_gives_the_same_release_and_map(tmp_path):
    df = grid_records(seed=4, unknown=12)
    a, b = release(df, method="joint"), release(df, method="joint")
    pd.testing.assert_frame_equal(a.table, b.table)
    a.to_html(tmp_path / "a.html")
    b.to_html(tmp_path / "b.html")
    assert (tmp_path / "a.html").read_bytes() == (tmp_path / "b.html").read_bytes()


def test_explore_publishes_finer_groups_at_higher_settings():
    df = grid_records(seed=5, unknown=12)
    r = ga.explore(df, location=location(unknown="suppress"), qi=["age"], sensitive="diagnosis", k=10, l=2,
                   identifiers=["id"], method="joint", settings=(0.0, 1.0))
    points = sorted(r.report.details["frontier"]["points"], key=lambda p: p["location_precision"])
    coarse, fine = points[0], points[-1]
    assert fine["mean_km"] < coarse["mean_km"] / 2


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), k=st.integers(2, 12), unknown=st.sampled_from([0, 15]))
def test_any_table_gives_classes_of_k_over_their_own_regions(seed, k, unknown):
    df = grid_records(seed=seed, unknown=unknown)
    rel = ga.anonymize(df, location=location(unknown="suppress"), qi=["age"], k=k, identifiers=["id", "diagnosis"],
                       method="joint", location_precision=(seed % 5) / 4)
    t = rel.in_input_order()
    assert len(t) == len(df) and t.index.equals(df.index)
    by = _held(df, rel)
    assert (by["rows"] >= k).all() and (by["labels"] == 1).all()
    named = by[by["label"] != "*"]
    assert named.groupby("held")["label"].nunique().eq(1).all()
    assert named.groupby("label")["held"].nunique().eq(1).all()


def test_each_group_is_drawn_as_one_piece_over_the_regions_between_its_own():
    """Every class's drawn regions: those its records hold, and others only where they join them."""
    import networkx as nx

    df = grid_records(seed=6)
    drop = df["zip"].isin(df["zip"].drop_duplicates().sample(20, random_state=6))    # regions without records
    df = df[~drop].reset_index(drop=True)
    rel = release(df, method="joint")
    regions, edges = grid_regions()
    grid = nx.from_pandas_edgelist(edges, "zip_a", "zip_b")
    shapes = rel.classes.set_index("class_id").geometry
    for c, held in _held(df, rel)["held"].items():
        drawn = {z for z, (lat, lon) in regions.set_index("zip")[["lat", "lon"]].iterrows()
                 if shapes[c].covers(Point(lon, lat))}
        assert held <= drawn and nx.is_connected(grid.subgraph(drawn))
        reach = diameter_km(*(regions.set_index("zip").loc[list(held), c] for c in ("lat", "lon"))) + 23
        for z in drawn - held:                 # a joining region lies within the group's reach of its regions
            assert min(diameter_km(*(regions.set_index("zip").loc[[z, h], c] for c in ("lat", "lon")))
                       for h in held) <= reach


def test_records_all_of_unknown_codes_publish_one_starred_group():
    regions = pd.DataFrame({"id": list("abc"), "lat": [35.0, 35.1, 35.2], "lon": [-80.0, -80.1, -80.2]})
    df = pd.DataFrame({"zip": ["zz"] * 12 + [""] * 3, "sex": ["F", "M", "F"] * 5})
    rel = ga.anonymize(df, location={"zip": "zip", "regions": regions, "region_id": "id", "unknown": "suppress"},
                       qi=["sex"], k=5, method="joint")
    assert (rel.in_input_order()["zip"] == "*").all() and rel.report.audit["k"] >= 5


@pytest.mark.parametrize("method", ["joint", "frontier"])
@pytest.mark.parametrize("zips", [["a"] * 15, ["a"] * 10 + ["zz"] * 5, ["a"] * 5 + ["b"] * 5 + ["c"] * 5])
def test_records_at_one_or_few_places_are_released(zips, method, tmp_path):
    regions = pd.DataFrame({"id": list("abc"), "lat": [35.0, 35.1, 35.2], "lon": [-80.0, -80.1, -80.2]})
    edges = pd.DataFrame({"a": ["a", "b"], "b": ["b", "c"]})
    df = pd.DataFrame({"zip": zips, "sex": ["F", "M", "F"] * 5})
    rel = ga.anonymize(df, location={"zip": "zip", "regions": regions, "region_id": "id", "unknown": "suppress",
                                     "edges": edges}, qi=["sex"], k=5, method=method)
    assert rel.report.audit["k"] >= 5 and len(rel.table) == 15
    assert 0.0 <= rel.report.details["ncp"]["km_loss"]["zip"] <= 1.0
    rel.to_html(tmp_path / "map.html")
