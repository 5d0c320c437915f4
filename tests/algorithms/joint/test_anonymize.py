"""The joint release (geoanon.anonymize): checked independently, against
exhaustive search on small tables, and against chaining the column jobs."""
import subprocess
import sys

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import geoanon as ga
from geoanon.errors import UndeclaredColumnsError
from checkers import (brute_force_set_ncp, brute_force_suppression, check_joint_release, coarsest_step, grid_edges,
                      without_context)

MARITAL = [["Married", "spouse present", "*"], ["Divorced", "spouse not present", "*"],
           ["Never-married", "spouse not present", "*"], ["Widowed", "spouse not present", "*"]]


def _table(n=600, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({
        "id": [f"r{i}" for i in range(n)],
        "lat": np.round(35 + rng.normal(0, 1.5, n), 4),
        "lon": np.round(-80 + rng.normal(0, 2.0, n), 4),
        "age": rng.integers(18, 90, n),
        "sex": rng.choice(["F", "M"], n),
        "marital": rng.choice([p[0] for p in MARITAL], n, p=[0.5, 0.2, 0.25, 0.05]),
        "diagnosis": rng.choice(["flu", "asthma", "diabetes", "copd", "cancer"], n),
    })


def declared(*treated):
    """The roles of the columns of ``_table`` a release does not treat itself
    (``treated``: its quasi-identifiers and sensitive column): the record id
    dropped, the others published as they are."""
    return {"identifiers": ["id"], "keep": [c for c in ("age", "sex", "marital", "diagnosis") if c not in treated]}


def published(df):
    """What a release of ``df`` publishes besides its treated columns: all but the dropped id."""
    return df.drop(columns="id")


@pytest.mark.parametrize("method", ["frontier", "location-first", "greedy", "joint"])
def test_release_is_valid_over_all_published_columns(method):
    df = _table()
    r = ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex", "marital"], k=8, method=method,
                     sensitive="diagnosis", l=2, suppress=["sex", "marital"],
                     **declared("age", "sex", "marital", "diagnosis"))
    cells = check_joint_release(published(df), r.in_input_order(), 8, lat="lat", lon="lon", intervals=["age"],
                                suppressed=["sex", "marital"], sensitive="diagnosis", l=2)
    ncp = r.report["ncp"]["columns"]
    for col in ("age", "sex", "marital"):
        assert ncp[col] == pytest.approx(cells[col], abs=1e-9)
    assert r.report["audit"]["ok"] and r.report["audit"]["k"] >= 8 and r.report["audit"]["l"] >= 2
    assert list(r.in_input_order().columns)[-1] == "class_id"


@pytest.mark.parametrize("resolution", [None, 0.1, 0.0001])
def test_boxes_are_the_records_box_on_a_grid_that_grows_with_it_inside_their_tile(resolution):
    df = _table(700, seed=5)
    df.loc[3, "age"] = 104                                     # one outlier
    box = ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex"], k=7, resolution=resolution,
                       method="frontier", suppress=["sex"], **declared("age", "sex"))
    check_joint_release(published(df), box.in_input_order(), 7, lat="lat", lon="lon", intervals=["age"], suppressed=["sex"])
    boxed = box.in_input_order()["lat_min"].notna()              # isolated records have none
    assert boxed.mean() > 0.95
    t, df = box.in_input_order()[boxed], df[boxed]
    for name in ("lat", "lon"):
        span = df[name].max() - df[name].min()
        step = resolution or 10 ** np.floor(np.log10(span / 1000))    # default: a thousandth, down to a power of ten
        lo, hi = t[f"{name}_min"], t[f"{name}_max"]
        loc = t.groupby([f"{name}_min", f"{name}_max"])[name + "_min"].transform("size")
        assert loc.min() >= 7
        box_lo = df[name].groupby([lo, hi]).transform("min")
        box_hi = df[name].groupby([lo, hi]).transform("max")
        # the location class's records' box, each side out to a grid whose step is the least round number of
        # at least its range over k - 2 (and the resolution): less than 2.5 times that beyond, less where the
        # tile ends first
        reach = 2.5 * np.maximum((box_hi - box_lo) / 5, step) + 1e-9
        assert (lo < box_lo).all() and (hi > box_hi).all()
        assert ((box_lo - lo) <= reach).all() and ((hi - box_hi) <= reach).all()
    # intervals hold the class's own range, on one round grid, an end moved past every value fewer than k
    # rows hold; the outlier's class has no upper end (104 is beyond what 7 rows reach)
    held = df["age"].value_counts()
    rare = set(held.index[held < 7])
    own_lo, own_hi = df["age"].groupby(t["class_id"]).transform("min"), df["age"].groupby(t["class_id"]).transform("max")
    closed = np.isfinite(t["age_max"])                           # an open end is inf
    assert (t["age_min"] <= own_lo).all() and (t["age_max"][closed] >= own_hi[closed]).all()
    step = np.gcd.reduce(t["age_min"].to_numpy(dtype=np.int64))
    assert ((t["age_max"][closed] + 1) % step == 0).all()
    assert (t["age_min"] < own_lo)[own_lo.isin(rare)].all() and (t["age_max"] > own_hi)[own_hi.isin(rare) & closed].all()
    assert (t.loc[df["age"] == 104, "age_max"] == np.inf).all()
    assert (t["age_max"][closed] <= 104).all()        # never rounded past the values 7 rows reach: open there


def test_an_isolated_record_goes_without_a_location_or_in_a_box_on_a_coarse_grid():
    """A record 40 km from anyone, where 9 others lie within a kilometre of
    everyone else: published without a location (with its class, too few
    without it), or, with no budget, in a box whose edges lie on a grid of at
    least its width over k."""
    rng = np.random.default_rng(3)
    cluster = np.c_[35 + rng.random(40) * 0.01, -80 + rng.random(40) * 0.01]
    far = np.c_[39 + rng.random(41) * 0.01, -74 + rng.random(41) * 0.01]     # another town, far away
    df = pd.DataFrame({"lat": np.r_[cluster[:, 0], 35.3, far[:, 0]], "lon": np.r_[cluster[:, 1], -79.7, far[:, 1]],
                       "age": np.r_[rng.integers(20, 60, 40), 40, rng.integers(20, 60, 41)]})
    release = ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=10)
    t = release.in_input_order()
    withheld = t["lat_min"].isna()
    assert withheld.iloc[40] and t["lat_min"].iloc[41:].notna().all()           # the far town keeps its boxes
    assert 10 <= withheld.sum() < 20 and release.report.details["isolated"] == {
        "max_withheld": 0.02, "budget_rows": 20, "withheld_rows": int(withheld.sum()), "published": 0}
    kept = ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=10, max_withheld=0)
    t = kept.in_input_order()
    assert kept.report.details["isolated"]["published"] == 1 and any("1 isolated record" in w for w in kept.warnings)
    for name in ("lat", "lon"):
        lo, hi = float(t[f"{name}_min"].iloc[40]), float(t[f"{name}_max"].iloc[40])
        assert grid_edges(lo, hi, 10) == 2 and coarsest_step(lo, hi - lo) >= (hi - lo) / 10


def test_tiles_cover_the_bounds_and_the_range():
    df = _table(500, seed=6)
    bounds = (-95.0, 25.0, -65.0, 45.0)
    tile = ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=6, extent="tile", bounds=bounds, method="frontier",
                        **declared("age"))
    box = ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=6, bounds=bounds, method="frontier", **declared("age"))
    check_joint_release(published(df), tile.in_input_order(), 6, lat="lat", lon="lon", intervals=["age"],
                        tiles="disjoint")
    t = tile.in_input_order()
    rects = t[["lon_min", "lat_min", "lon_max", "lat_max"]].dropna().drop_duplicates().to_numpy()
    area = ((rects[:, 2] - rects[:, 0]) * (rects[:, 3] - rects[:, 1])).sum()
    whole = (bounds[2] - bounds[0]) * (bounds[3] - bounds[1])
    # the tiles cover the bounds, but for those of classes whose records a tile's edge would pin (published
    # without a location); disjoint, as check_joint_release checks
    assert 0.5 * whole < area <= whole * (1 + 1e-9)
    assert t["lat_min"].isna().sum() == tile.report.rows - tile.in_input_order()["lat_min"].notna().sum()
    ages = t[["age_min", "age_max"]].drop_duplicates().sort_values("age_min").to_numpy()
    # the range padded outward to round numbers: the youngest and the oldest are not shown
    assert ages[:, 0].min() < df["age"].min() and ages[:, 1].max() > df["age"].max()
    assert ages[:, 0].min() % 5 == 0 and (ages[:, 1].max() + 1) % 5 == 0
    # a box inside its tile: the location loses less (NCP clipped to the input's range, and in km)
    for col in ("lat", "lon"):
        assert box.report["ncp"]["columns"][col] < tile.report["ncp"]["columns"][col]
    assert box.report["units"]["location"]["p90_km"] < tile.report["units"]["location"]["p90_km"]


def test_sets_publish_the_values_of_the_class_and_cost_less_than_stars():
    df = _table(600, seed=7)
    df.loc[::7, "marital"] = "a|b\\c"          # a value holding the separator and the escape
    df.loc[::11, "marital"] = None
    # the location measured by NCP too (location_loss="range"), as the report measures it
    star = ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex", "marital"], k=9, sensitive="diagnosis", l=2,
                        location_loss="range", suppress=["sex", "marital"],
                        **declared("age", "sex", "marital", "diagnosis"))
    sets = ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex", "marital"], k=9, sensitive="diagnosis", l=2,
                        sets=["sex", "marital"], location_loss="range", **declared("age", "sex", "marital", "diagnosis"))
    cells = check_joint_release(published(df), sets.in_input_order(), 9, lat="lat", lon="lon", intervals=["age"], sets=["sex", "marital"],
                                sensitive="diagnosis", l=2)
    for col in ("sex", "marital"):
        assert sets.report["ncp"]["columns"][col] == pytest.approx(cells[col], abs=1e-9)
    assert sets.report["qi"]["marital"] == "set"
    assert sets.report["ncp"]["overall"] <= star.report["ncp"]["overall"]


def test_hierarchy_columns_publish_ancestors_and_cost_less_than_stars():
    df = _table()
    h = ga.Hierarchy.from_frame(pd.DataFrame(MARITAL))
    star = ga.anonymize(df, location=("lat", "lon"), qi=["age", "marital"], k=10, suppress=["marital"],
                        method="frontier", **declared("age", "marital"))
    node = ga.anonymize(df, location=("lat", "lon"), qi=["age", "marital"], k=10, hierarchies={"marital": h},
                        method="frontier", **declared("age", "marital"))
    check_joint_release(published(df), node.in_input_order(), 10, lat="lat", lon="lon", intervals=["age"], hierarchies={"marital": MARITAL})
    assert set(node.in_input_order()["marital"]) <= {p[j] for p in MARITAL for j in range(3)}
    assert node.report["ncp"]["overall"] <= star.report["ncp"]["overall"] + 1e-12


@pytest.mark.slow
def test_points_then_suppress_by_hand_is_unsafe_or_worse():
    df = _table(800, seed=3)
    qi = ["age", "sex", "marital"]
    by_hand = ga.generalize_points(df.drop(columns=qi), 10, lat="lat", lon="lon", identifiers=["id"],
                                   keep=["diagnosis"]).in_input_order()
    chained = by_hand.drop(columns="class_id").join(df[qi])
    rect = ["lat_min", "lat_max", "lon_min", "lon_max"]
    assert ga.audit(chained, rect + qi)["k"] < 10                     # the points job alone leaves the table unsafe
    fixed = ga.suppress(chained, rect + qi, k=10, method="lattice", keep=["diagnosis"]).in_input_order()
    assert ga.audit(fixed, rect + qi)["k"] >= 10
    joint = ga.anonymize(df, location=("lat", "lon"), qi=qi, k=10, **declared(*qi))
    assert joint.report["audit"]["k"] >= 10
    fixed[rect] = fixed[rect].replace("*", np.nan)            # a starred edge publishes no location: it costs 1
    chained_loss = ga.information_loss(df, fixed, {"lat": ("interval", ("lat_min", "lat_max")),
                                                   "lon": ("interval", ("lon_min", "lon_max")),
                                                   "age": ("suppress", "age"), "sex": ("suppress", "sex"),
                                                   "marital": ("suppress", "marital")})
    assert joint.report["ncp"]["overall"] < chained_loss["overall"]


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(6, 40), st.integers(1, 4), st.booleans(), st.booleans(), st.sampled_from(["box", "tile"]),
       st.sampled_from(["frontier", "joint"]), st.integers(0, 10_000))
def test_mixed_tables(n, k, with_location, with_missing, extent, method, seed):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "x": rng.integers(0, 5, n).astype(float),
        "c": rng.choice(["a", "b", "c"], n).astype(object),
        "d": rng.choice(["p", "q", "r", "s"], n).astype(object),
        "s": rng.choice(["u", "v", "w"], n),
    })
    if with_location:
        df["lat"] = np.round(rng.uniform(-10, 10, n), 2)
        df["lon"] = np.round(rng.uniform(-10, 10, n), 2)
    if with_missing:
        df.loc[df.index[:2], "x"] = np.nan
        df.loc[df.index[2:4], "c"] = None
        df.loc[df.index[3:5], "d"] = None
    df = pd.concat([df, df.iloc[:3]], ignore_index=True)                     # duplicates
    location = ("lat", "lon") if with_location else None
    r = ga.anonymize(df, location=location, qi=["x", "c", "d"], k=k, sensitive="s", sets=["d"], suppress=["c"],
                     extent=extent, method=method)
    check_joint_release(df, r.in_input_order(), k, lat="lat" if with_location else None, lon="lon" if with_location else None,
                        intervals=["x"], suppressed=["c"], sets=["d"],
                        tiles=(extent == "tile" and ("overlapping" if method == "joint" else "disjoint")) or None)


@settings(max_examples=25, deadline=None)
@given(st.integers(4, 8), st.integers(1, 3), st.integers(0, 10_000))
def test_never_better_than_exhaustive_search(n, k, seed):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.choice(["p", "q"], n), "b": rng.choice(["x", "y", "z"], n)})
    r = ga.anonymize(df, qi=["a", "b"], k=k, suppress=["a", "b"])
    best = brute_force_suppression(list(zip(df["a"], df["b"])), k)
    stars = r.report["ncp"]["overall"] * n * 2
    assert stars >= best - 1e-9
    combos = df.groupby(["a", "b"]).size()
    if combos.min() >= k:                     # every combination can be its own class: nothing to hide
        assert stars == 0


@settings(max_examples=25, deadline=None)
@given(st.integers(4, 8), st.integers(1, 3), st.integers(0, 10_000))
def test_sets_never_better_than_exhaustive_search(n, k, seed):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"a": rng.choice(["p", "q", "r"], n), "b": rng.choice(["x", "y", "z", "w"], n)})
    r = ga.anonymize(df, qi=["a", "b"], k=k, sets=["a", "b"])
    best = brute_force_set_ncp(df[["a", "b"]].values.tolist(), k)
    assert r.report["ncp"]["overall"] >= best - 1e-9
    if df.groupby(["a", "b"]).size().min() >= k:
        assert r.report["ncp"]["overall"] == 0


@pytest.mark.slow
def test_zip_location_groups_are_connected(births_df, nc_gdf):
    births = births_df
    counties = nc_gdf
    r = ga.anonymize(births, location={"zip": "county_fips", "regions": counties, "region_id": "FIPS"},
                     qi=["sex", "birth_weight_g"], k=200, method="frontier", identifiers=["record_id"])
    assert r.report["audit"]["k"] >= 200
    G = ga.graph_from_polygons(counties, "FIPS")
    for label, rows in r.in_input_order().groupby("county_fips").groups.items():
        members = set(births.loc[rows, "county_fips"].astype(str))
        assert nx.is_connected(G.subgraph(members)), label
    groups = [set(births.loc[rows, "county_fips"]) for rows in r.in_input_order().groupby("county_fips").groups.values()]
    assert sum(len(g) for g in groups) == len(set().union(*groups))       # groups never share a county


@pytest.mark.slow
def test_zip_location_joint_design_draws_each_group_over_its_own_counties(births_df, nc_gdf):
    births = births_df
    counties = nc_gdf
    r = ga.anonymize(births, location={"zip": "county_fips", "regions": counties, "region_id": "FIPS"},
                     qi=["sex", "birth_weight_g"], k=200, method="joint", identifiers=["record_id"])
    assert r.report["audit"]["k"] >= 200
    points = counties.set_index("FIPS").geometry.representative_point()
    G = ga.graph_from_polygons(counties, "FIPS")
    for shape in r.classes.geometry:               # its counties joined by those between them: one piece
        assert nx.is_connected(G.subgraph([f for f, p in points.items() if shape.contains(p)]))
    by_class = r.classes.set_index("class_id").geometry
    for c, rows in r.in_input_order().groupby("class_id").groups.items():
        for fips in set(births.loc[rows, "county_fips"].astype(str)):
            assert by_class[c].contains(points[fips]), (c, fips)


def test_same_input_same_bytes(tmp_path):
    df = _table(300)
    a = ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex"], k=5, **declared("age", "sex"))
    b = ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex"], k=5, **declared("age", "sex"))
    a.to_file(tmp_path / "a.csv")
    b.to_file(tmp_path / "b.csv")
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


def test_map_shows_classes_never_records():
    df = _table(300)
    r = ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex"], k=5, **declared("age", "sex"))
    from geoanon.report.maps import render_html

    html = without_context(render_html(r.preview()))
    for v in df["lat"].head(30).tolist() + df["lon"].head(30).tolist():
        assert f"{v}" not in html
    assert "age_min" in html or "age" in html


@pytest.mark.parametrize("kwargs, error", [
    ({"qi": ["age", "age"]}, ga.ParameterError),
    ({"qi": ["lat"], "location": ("lat", "lon")}, ga.ParameterError),
    ({"qi": ["age"], "sensitive": "age"}, ga.ParameterError),
    ({"qi": ["age"], "interval": ["sex"]}, ga.DataError),         # sex is a quasi-identifier now, and not a number
    ({"qi": ["sex"], "interval": ["sex"]}, ga.DataError),
    ({"qi": ["age"], "k": 0}, ga.ParameterError),
    ({"qi": ["age"], "k": 10_000}, ga.InfeasibleError),
    ({"qi": ["age"], "l": 2}, ga.ParameterError),
    ({"qi": ["age"], "location": {"lat": "lat"}}, ga.ParameterError),
    ({"qi": ["nope"]}, ga.DataError),
    ({"qi": ["age"], "method": "best"}, ga.ParameterError),
    ({"qi": ["age"], "extent": "hull"}, ga.ParameterError),
    ({"qi": ["age"], "n_jobs": 0}, ga.ParameterError),
    ({"qi": ["age"], "n_jobs": 1.5}, ga.ParameterError),
    ({"qi": ["sex"], "sets": ["sex"], "suppress": ["sex"]}, ga.ParameterError),
    ({"qi": ["age"], "sets": ["nope"]}, ga.DataError),
    ({"qi": ["age"], "resolution": 0}, ga.ParameterError),
    ({"qi": ["age"], "resolution": float("nan")}, ga.ParameterError),
    ({"qi": ["age"], "resolution": True}, ga.ParameterError),
])
def test_bad_arguments_raise_typed_errors(kwargs, error):
    location = kwargs.get("location", {})
    used = {*kwargs["qi"], *kwargs.get("interval", ()), *kwargs.get("sets", ()), *kwargs.get("suppress", ()),
            kwargs.get("sensitive"), *(location.values() if isinstance(location, dict) else location)}
    # every other column declared, so that the error is the argument's own
    roles = {"identifiers": [c for c in ("id", "lat", "lon") if c not in used],
             "keep": [c for c in ("age", "sex", "marital", "diagnosis") if c not in used]}
    with pytest.raises(error) as raised:
        ga.anonymize(_table(100), **{"k": 5, **roles, **kwargs})
    assert not isinstance(raised.value, UndeclaredColumnsError), raised.value


@pytest.mark.slow
def test_cli_end_to_end_and_refusals(tmp_path):
    df = _table(400)
    src = tmp_path / "in.csv"
    df.to_csv(src, index=False)
    out = tmp_path / "out.csv"
    run = [sys.executable, "-m", "geoanon.cli", "anonymize", str(src), "--lat", "lat", "--lon", "lon",
           "--qi", "age,sex,marital", "--sensitive", "diagnosis", "-l", "2", "-k", "6", "--identifiers", "id",
           "--suppress", "sex,marital", "--keep-order", "-o", str(out), "--report", str(tmp_path / "r.json"),
           "--map", str(tmp_path / "m.html")]
    done = subprocess.run(run, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    released = pd.read_csv(out, keep_default_na=False)
    check_joint_release(published(df).astype({"age": int}), released, 6, lat="lat", lon="lon", intervals=["age"],
                        suppressed=["sex", "marital"], sensitive="diagnosis", l=2)
    bad = subprocess.run(run[:-6] + ["--lat", "lat", "--lon", "lat", "-o", str(tmp_path / "x.csv")],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and not (tmp_path / "x.csv").exists()
    assert "'lat' is given two roles: location lat and location lon" in bad.stderr
    nomap = subprocess.run([sys.executable, "-m", "geoanon.cli", "anonymize", str(src), "--qi", "age", "-k", "5",
                            "--identifiers", "id,lat,lon", "--keep", "sex,marital,diagnosis",
                            "-o", str(tmp_path / "y.csv"), "--map", str(tmp_path / "y.html")],
                           capture_output=True, text=True)
    assert nomap.returncode == 2 and "--map needs a location" in nomap.stderr and not (tmp_path / "y.csv").exists()
    tiles = subprocess.run([sys.executable, "-m", "geoanon.cli", "anonymize", str(src), "--lat", "lat", "--lon", "lon",
                            "--qi", "age,sex,marital", "--sets", "marital", "--suppress", "sex", "--extent", "tile",
                            "--method", "frontier", "-k", "6",
                            "--identifiers", "id", "--keep", "diagnosis", "--keep-order",
                            "-o", str(tmp_path / "t.csv")], capture_output=True, text=True)
    assert tiles.returncode == 0, tiles.stderr
    check_joint_release(published(df).astype({"age": int}), pd.read_csv(tmp_path / "t.csv", keep_default_na=False), 6,
                        lat="lat", lon="lon", intervals=["age"], suppressed=["sex"], sets=["marital"], tiles="disjoint")
    bad_step = subprocess.run(run[:-4] + ["--resolution", "-1"], capture_output=True, text=True)
    assert bad_step.returncode == 2 and "resolution" in bad_step.stderr


@pytest.mark.slow
def test_audit_measures_the_information_loss_of_a_release(tmp_path):
    df = _table(500, seed=8)
    h = ga.Hierarchy.from_frame(pd.DataFrame(MARITAL))
    r = ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex", "marital", "diagnosis"], k=8,
                     hierarchies={"marital": h}, sets=["diagnosis"], identifiers=["id"])
    qi = ["lat_min", "lat_max", "lon_min", "lon_max", "age_min", "age_max", "sex", "marital", "diagnosis", "class_id"]
    measured = ga.audit(r.in_input_order(), qi, k=8, original=df, hierarchies={"marital": h})
    assert measured["ok"] and measured["ncp"]["columns"] == pytest.approx(r.report["ncp"]["columns"])
    assert measured["ncp"]["overall"] == pytest.approx(r.report["ncp"]["overall"])
    with pytest.raises(ga.DataError):
        ga.audit(r.in_input_order(), qi, original=df.iloc[:10])
    src, released = tmp_path / "in.csv", tmp_path / "out.csv"
    df.to_csv(src, index=False)
    r.in_input_order().to_csv(released, index=False)
    (tmp_path / "m.csv").write_text("\n".join(";".join(p) for p in MARITAL) + "\n")
    done = subprocess.run([sys.executable, "-m", "geoanon.cli", "audit", str(released), "--qi", ",".join(qi),
                           "-k", "8", "--original", str(src), "--hierarchy", f"marital={tmp_path / 'm.csv'}"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert f"NCP {r.report['ncp']['overall']:.4f}" in done.stdout
    alone = subprocess.run([sys.executable, "-m", "geoanon.cli", "audit", str(released), "--qi", "sex",
                            "--hierarchy", f"marital={tmp_path / 'm.csv'}"], capture_output=True, text=True)
    assert alone.returncode == 2 and alone.stderr.count("\n") == 1


@pytest.mark.slow
@pytest.mark.parametrize("first_cuts", [True, False])
def test_shards_solved_apart_give_the_same_release_in_any_number_of_processes(monkeypatch, first_cuts):
    """Pieces (with first cuts, small tables) or shards (large tables) of at most 150 rows."""
    from geoanon.joint import first_cuts as pieces, mondrian, sharding

    monkeypatch.setattr(sharding, "SHARD_ROWS", 150)
    monkeypatch.setattr(pieces, "PIECE_ROWS", 150)
    monkeypatch.setattr(pieces, "PIECE_CLASSES", 1)
    if not first_cuts:
        monkeypatch.setattr(mondrian, "FIRST_CUT_ROWS", 0)
    df = _table(900, seed=9)
    kwargs = dict(location=("lat", "lon"), qi=["age", "sex", "marital"], k=7, sensitive="diagnosis", l=2,
                  sets=["marital"], suppress=["sex"], identifiers=["id"])
    one = ga.anonymize(df, **kwargs)
    two = ga.anonymize(df, **kwargs, n_jobs=2)
    check_joint_release(published(df), two.in_input_order(), 7, lat="lat", lon="lon", intervals=["age"], suppressed=["sex"],
                        sets=["marital"], sensitive="diagnosis", l=2)
    assert one.in_input_order().equals(two.in_input_order()) and one.report["ncp"] == two.report["ncp"]
    assert two.report["location_classes"] >= 6        # 900 rows in shards of at most 150


@pytest.mark.slow
def test_joint_design_cuts_the_location_below_other_cuts():
    df = _table(900, seed=11)
    frontier = ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex", "marital"], k=6, sets=["sex", "marital"],
                            method="frontier", **declared("age", "sex", "marital"))
    joint = ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex", "marital"], k=6, sets=["sex", "marital"],
                         method="joint", **declared("age", "sex", "marital"))
    check_joint_release(published(df), joint.in_input_order(), 6, lat="lat", lon="lon", intervals=["age"], sets=["sex", "marital"])
    rect = ["lat_min", "lat_max", "lon_min", "lon_max"]
    boxes = joint.in_input_order().groupby("class_id")[rect].first().to_numpy()
    overlaps = sum(bool((boxes[a, 0] < boxes[b, 1]) & (boxes[b, 0] < boxes[a, 1])
                        & (boxes[a, 2] < boxes[b, 3]) & (boxes[b, 2] < boxes[a, 3]))
                   for a in range(len(boxes)) for b in range(a + 1, len(boxes)))
    assert overlaps > 0                                  # classes of different ages share ground
    assert joint.report["location_classes"] == joint.report["classes"]
    assert joint.report["ncp"]["overall"] < frontier.report["ncp"]["overall"]


def test_set_and_hierarchy_loss_names_both_measures():
    # 4 distinct values; a set of 2 costs (2 - 1) / (4 - 1) by Iyengar, 2 / 4 by Xu et al.; one value 0 in both
    original = pd.DataFrame({"c": list("abcdab"), "x": [1.0, 2, 3, 4, 5, 6]})
    released = pd.DataFrame({"c": ["a|b", "a|b", "c", "*", "a|b", "a|b"], "x_min": [1.0, 1, 3, 3, 5, 5],
                             "x_max": [2.0, 2, 4, 4, 6, 6]})
    loss = ga.information_loss(original, released, {"c": ("set", "c"), "x": ("interval", ("x_min", "x_max"))})
    # the '*' row stands for 'd' alone as a published label: one value, 0 by both measures
    assert loss["columns"]["c"] == pytest.approx(4 / 6 * (1 / 3))
    assert loss["xu_ncp"]["columns"]["c"] == pytest.approx(4 / 6 * (2 / 4))
    assert loss["columns"]["x"] == loss["xu_ncp"]["columns"]["x"] == pytest.approx(1 / 5)
    h = ga.Hierarchy.from_frame(pd.DataFrame([["a", "ab", "*"], ["b", "ab", "*"], ["c", "cd", "*"],
                                              ["d", "cd", "*"]]))
    nodes = pd.DataFrame({"c": ["ab", "ab", "c", "*", "ab", "ab"]})
    by_node = ga.information_loss(original, nodes, {"c": ("hierarchy", "c")}, hierarchies={"c": h})
    assert by_node["columns"]["c"] == pytest.approx((4 * 1 / 3 + 1) / 6)
    assert by_node["xu_ncp"]["columns"]["c"] == pytest.approx((4 * 2 / 4 + 1) / 6)
    suppressed = ga.information_loss(original, released, {"x": ("interval", ("x_min", "x_max"))})
    assert "xu_ncp" not in suppressed


def test_weights_trade_location_for_the_other_columns(tmp_path, cli):
    df = _table(600, seed=4)
    qi = ["age", "sex", "marital"]
    plain = ga.anonymize(df, location=("lat", "lon"), qi=qi, k=8, **declared(*qi))
    ones = ga.anonymize(df, location=("lat", "lon"), qi=qi, k=8, weights={"location": 1, "age": 1.0}, **declared(*qi))
    pd.testing.assert_frame_equal(plain.in_input_order(), ones.in_input_order())                 # weight 1 is the default, bit for bit

    def spread(r):
        t = r.in_input_order()
        return float(np.nanmedian((t.lat_max - t.lat_min) + (t.lon_max - t.lon_min))), float(
            np.nanmedian(t.age_max - t.age_min))

    heavy = ga.anonymize(df, location=("lat", "lon"), qi=qi, k=8, weights={"location": 16}, **declared(*qi))
    assert heavy.report.audit["k"] >= 8 and heavy.report.details["weights"] == {"location": 16.0}
    (box, age), (heavy_box, heavy_age) = spread(plain), spread(heavy)
    assert heavy_box < box and heavy_age >= age
    for bad, message in (({"nope": 2}, "neither 'location' nor a quasi-identifier"), ({"age": 0}, "> 0"),
                         ({"age": float("nan")}, "> 0"), ([1, 2], "must be a dict")):
        with pytest.raises(ga.ParameterError, match=message):
            ga.anonymize(df, location=("lat", "lon"), qi=qi, k=8, weights=bad, **declared(*qi))
    with pytest.raises(ga.ParameterError, match="has none"):
        ga.anonymize(df, qi=qi, k=8, weights={"location": 2}, identifiers=["id", "lat", "lon"], keep=["diagnosis"])
    df.to_csv(tmp_path / "in.csv", index=False)
    code, _, err = cli("anonymize", tmp_path / "in.csv", "--lat", "lat", "--lon", "lon", "--qi", ",".join(qi),
                       "-k", "8", "--weight", "location=16", "--keep", "diagnosis", "--identifiers", "id", "--keep-order",
                       "-o", tmp_path / "o.csv")
    assert code == 0, err
    pd.testing.assert_series_equal(pd.read_csv(tmp_path / "o.csv")["age_min"], heavy.in_input_order()["age_min"].reset_index(
        drop=True), check_dtype=False)
    code, _, err = cli("anonymize", tmp_path / "in.csv", "--lat", "lat", "--lon", "lon", "--qi", ",".join(qi),
                       "-k", "8", "--weight", "location", "-o", tmp_path / "o2.csv")
    assert code == 2 and "NAME=NUMBER" in err
    (tmp_path / "job.toml").write_text(
        '[input]\npath = "in.csv"\n[columns]\nlocation = { lat = "lat", lon = "lon" }\nqi = ["sex", "marital"]\n'
        'interval = ["age"]\nkeep = ["diagnosis"]\nidentifiers = ["id"]\n[model]\nk = 8\n'
        '[release]\nweights = { location = 16, sexx = 1 }\n'
        '[output]\ntable = "j.csv"\n')
    code, _, err = cli("run", tmp_path / "job.toml", "--dry-run")
    assert code == 2 and "[release] weights names 'sexx'" in err


@pytest.mark.parametrize("method", ["joint", "frontier"])
def test_a_precision_target_cuts_the_location_further(tmp_path, cli, method):
    from geoanon._geo import row_box_extents

    df = _table(900, seed=6)
    qi = ["age", "sex", "marital"]
    plain = ga.anonymize(df, location=("lat", "lon"), qi=qi, k=8, method=method, **declared(*qi))
    wide = np.nanmedian(row_box_extents(plain.in_input_order(), "lat", "lon", "EPSG:4326")[2])
    target = wide
    # the sparse tail's classes cannot be cut within the median: their records are withheld within the
    # budget, or the release is refused (it was published wider, with a warning)
    with pytest.raises(ga.InfeasibleError, match=r"cannot be cut within max_extent_km=.*raise max_extent_km or "
                                                 r"max_withheld$"):
        ga.anonymize(df, location=("lat", "lon"), qi=qi, k=8, max_extent_km=target, method=method, **declared(*qi))
    tight = ga.anonymize(df, location=("lat", "lon"), qi=qi, k=8, max_extent_km=target, method=method,
                         max_withheld=0.3, **declared(*qi))
    assert tight.report.audit["k"] >= 8
    d = row_box_extents(tight.in_input_order(), "lat", "lon", "EPSG:4326")[2]
    assert np.nanmax(d) <= target and tight.report.details["beyond_max_extent"] == 0
    withheld = tight.report.details["isolated"]
    assert 0 < withheld["withheld_beyond_extent"] <= withheld["budget_rows"] - withheld["withheld_rows"]
    assert np.isnan(d).sum() == withheld["withheld_rows"] + withheld["withheld_beyond_extent"]
    if method == "frontier":
        assert tight.report.details["location_classes"] > plain.report.details["location_classes"]
    for bad, message in (({"max_extent_km": 0}, "> 0"), ({"max_extent_km": 50, "method": "greedy"}, "frontier")):
        with pytest.raises(ga.ParameterError, match=message):
            ga.anonymize(df, location=("lat", "lon"), qi=qi, k=8, **bad, **declared(*qi))
    with pytest.raises(ga.ParameterError, match="points location"):
        ga.anonymize(df, qi=qi, k=8, max_extent_km=50, identifiers=["id", "lat", "lon"], keep=["diagnosis"])
    df.to_csv(tmp_path / "in.csv", index=False)
    code, _, err = cli("anonymize", tmp_path / "in.csv", "--lat", "lat", "--lon", "lon", "--qi", ",".join(qi), "-k",
                       "8", "--max-extent", f"{target:.3f}km", "--keep", "id,diagnosis", "-o", tmp_path / "o.csv")
    assert code == 2 and "raise max_extent_km or max_withheld" in err and not (tmp_path / "o.csv").exists()
    code, _, err = cli("anonymize", tmp_path / "in.csv", "--lat", "lat", "--lon", "lon", "--qi", ",".join(qi), "-k",
                       "8", "--max-extent", f"{target:.3f}km", "--max-withheld", "0.3", "--keep", "id,diagnosis",
                       "-o", tmp_path / "o.csv", "--report", tmp_path / "r.json")
    assert code == 0, err
    import json
    assert json.loads((tmp_path / "r.json").read_text())["max_extent_km"] == pytest.approx(target, abs=1e-3)
    code, _, err = cli("anonymize", tmp_path / "in.csv", "--lat", "lat", "--lon", "lon", "--qi", ",".join(qi), "-k",
                       "8", "--max-extent", "far", "-o", tmp_path / "o2.csv")
    assert code == 2 and "distance in km" in err
