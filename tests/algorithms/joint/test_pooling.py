"""The joint release's pooling budget (``max_pooled``): the records of the
sparsest places (``pool_by="places"``) or of the classes that lose most in
the other columns (``"classes"``) partitioned apart, the other columns
first, so the rest keep fine locations."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import geoanon as ga
from geoanon._geo import ground
from geoanon.errors import ParameterError
from geoanon.joint.km_loss import circle_widths
from geoanon.joint.pooling import sparsest_rows
from geoanon.options import release_spec
from geoanon.pipeline.joint_release import prepared
from checkers import check_joint_release

QI = ["age", "sex"]


def _towns_and_hamlets(towns=3, per_town=400, hamlets=12, per_hamlet=6, seed=0):
    """Records at a few towns holding hundreds each and at hamlets holding a handful, spread apart."""
    rng = np.random.default_rng(seed)
    places = [(40 + i, -90.0, per_town) for i in range(towns)] + \
        [(35 + 0.8 * (i % 4), -100 + 2.5 * (i // 4), per_hamlet) for i in range(hamlets)]
    lat = np.concatenate([np.full(n, y) for y, _, n in places])
    lon = np.concatenate([np.full(n, x) for _, x, n in places])
    m = lat.size
    return pd.DataFrame({"lat": lat, "lon": lon, "age": rng.integers(18, 90, m), "sex": rng.choice(["F", "M"], m),
                         "note": np.arange(m)})


def _pooled_rows(df, k, share, **options):
    spec = release_spec("anonymize", location=("lat", "lon"), qi=QI, k=k, keep=["note"], **options)
    return sparsest_rows(prepared(df, spec).dims, ground("EPSG:4326"), k, share)


def _classes(table) -> set:
    """A release's classes as sets of input rows (``table`` in input order)."""
    return {frozenset(g) for g in pd.Series(np.arange(len(table))).groupby(table["class_id"].to_numpy()).groups.values()}


def _pooled_apart(plain, pooled) -> np.ndarray:
    """Which rows sit in a class of ``pooled`` that ``plain`` (the same release without pooling) lacks."""
    t = pooled.in_input_order()
    apart = np.zeros(len(t), dtype=bool)
    for rows in _classes(t) - _classes(plain.in_input_order()):
        apart[list(rows)] = True
    return apart


def _assert_kept_or_pooled_whole(plain, apart: np.ndarray) -> None:
    """Every class of ``plain`` has its rows all in ``apart`` or all out of it."""
    for rows in _classes(plain.in_input_order()):
        assert len({bool(apart[r]) for r in rows}) == 1


def _clustered(seed: int) -> pd.DataFrame:
    """60-200 records around 3-12 random centres in the US, with an age, a sex and a note."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(60, 200))
    centres = rng.uniform([30, -110], [45, -80], (int(rng.integers(3, 12)), 2))
    at = rng.integers(0, len(centres), n)
    return pd.DataFrame({"lat": (centres[at, 0] + rng.normal(0, 0.2, n)).round(3),
                         "lon": (centres[at, 1] + rng.normal(0, 0.2, n)).round(3),
                         "age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M", "X"], n), "note": np.arange(n)})


def test_circle_widths_reach_the_records_asked():
    on = ground("EPSG:4326")
    points = on.positions(np.array([0.0, 1.0, 2.0]), np.zeros(3))
    chords = circle_widths(points, np.array([2, 2, 2]), 3)
    one_degree = np.linalg.norm(points[0] - points[1])
    assert np.allclose(chords, 2 * one_degree)
    assert np.allclose(circle_widths(points, np.array([2, 2, 2]), 2), 0)
    two_degrees = np.linalg.norm(points[0] - points[2])
    # fewer records than asked: each place's widest reach
    assert np.allclose(circle_widths(points, np.array([1, 1, 1]), 9), [2 * two_degrees, 2 * one_degree, 2 * two_degrees])


def test_the_hamlets_are_pooled_whole_and_the_towns_never():
    df = _towns_and_hamlets()
    rows = _pooled_rows(df, 5, 0.06)
    hamlet = (df["lat"] < 39).to_numpy()
    assert rows.size and hamlet[rows].all() and rows.size <= 0.06 * len(df)
    assert rows.size % 6 == 0                        # whole places
    assert np.array_equal(rows, np.sort(rows))
    assert _pooled_rows(df, 5, 0.001).size == 0      # the budget holds fewer than k rows


def test_a_pooled_release_keeps_the_towns_fine_and_the_hamlets_useful():
    df = _towns_and_hamlets()
    k = 5
    plain = ga.anonymize(df, location=("lat", "lon"), qi=QI, k=k, keep=["note"], location_precision=1)
    pooled = ga.anonymize(df, location=("lat", "lon"), qi=QI, k=k, keep=["note"], location_precision=1,
                          max_pooled=0.06)
    for r in (plain, pooled):
        check_joint_release(df, r.in_input_order(), k, lat="lat", lon="lon", intervals=["age"], sets=["sex"])
        assert r.report.audit["ok"]
    rows = _pooled_rows(df, k, 0.06)
    assert pooled.report.details["pooled"] == {"max_pooled": 0.06, "pool_by": "places", "rows": rows.size,
                                               "share": round(rows.size / len(df), 6)}
    assert "partitioned apart" in pooled.notes[-1]
    t = pooled.in_input_order()
    pool = np.zeros(len(df), dtype=bool)
    pool[rows] = True
    mixed = pd.Series(pool).groupby(t["class_id"].to_numpy()).nunique()
    assert (mixed == 1).all()                        # no class mixes pooled rows with the rest
    span = (t["age_max"] - t["age_min"]).to_numpy()
    before = plain.in_input_order()
    plain_span = (before["age_max"] - before["age_min"]).to_numpy()
    assert span[pool].mean() < plain_span[pool].mean()      # the hamlets' other columns gain
    town_box = (t["lat_max"] - t["lat_min"]).to_numpy()[~pool]
    assert town_box.max() == pytest.approx((before["lat_max"] - before["lat_min"]).to_numpy()[~pool].max())


def test_the_costliest_classes_are_pooled_whole_the_others_kept_as_they_were():
    df = _towns_and_hamlets()
    k = 5
    ask = dict(location=("lat", "lon"), qi=QI, k=k, keep=["note"], location_precision=1)
    plain = ga.anonymize(df, **ask)
    pooled = ga.anonymize(df, **ask, max_pooled=0.06, pool_by="classes")
    check_joint_release(df, pooled.in_input_order(), k, lat="lat", lon="lon", intervals=["age"], sets=["sex"])
    assert pooled.report.audit["ok"]
    apart = _pooled_apart(plain, pooled)
    hamlet = (df["lat"] < 39).to_numpy()
    assert apart.any() and hamlet[apart].all()       # the classes mixing a hamlet's few records lose most
    details = pooled.report.details["pooled"]
    assert details["pool_by"] == "classes" and apart.sum() <= details["rows"] <= 0.06 * len(df)
    assert "pool_by='classes'" in pooled.notes[-1]
    before = plain.in_input_order()
    _assert_kept_or_pooled_whole(plain, apart)
    t = pooled.in_input_order()
    span = (t["age_max"] - t["age_min"]).to_numpy()
    plain_span = (before["age_max"] - before["age_min"]).to_numpy()
    assert span[apart].mean() < plain_span[apart].mean()     # the pooled records' other columns gain
    none = ga.anonymize(df, **ask, max_pooled=0.001, pool_by="classes")     # the budget holds fewer than k rows
    assert none.report.details["pooled"]["rows"] == 0 and "no rows pooled" in none.notes[-1]
    pd.testing.assert_frame_equal(none.table, plain.table)


def test_pooling_is_deterministic_and_off_by_default():
    df = _towns_and_hamlets(seed=1)
    ask = dict(location=("lat", "lon"), qi=QI, k=5, keep=["note"], location_precision=0.8)
    a = ga.anonymize(df, **ask, max_pooled=0.06).table
    b = ga.anonymize(df, **ask, max_pooled=0.06).table
    pd.testing.assert_frame_equal(a, b)
    off = ga.anonymize(df, **ask)
    pd.testing.assert_frame_equal(ga.anonymize(df, **ask, max_pooled=None).table, off.table)
    pd.testing.assert_frame_equal(ga.anonymize(df, **ask, max_pooled=0).table, off.table)
    assert "pooled" not in off.report.details


@pytest.mark.parametrize("pool_by", ["places", "classes"])
def test_explore_publishes_what_anonymize_does_at_each_setting(pool_by):
    df = _towns_and_hamlets(seed=2)
    ask = dict(location=("lat", "lon"), qi=QI, k=5, keep=["note"], max_pooled=0.06, pool_by=pool_by)
    explored = ga.explore(df, **ask, settings=(0.2, 0.9), location_precision=0.9)
    pd.testing.assert_frame_equal(explored.table, ga.anonymize(df, **ask, location_precision=0.9).table)
    low = ga.anonymize(df, **ask, location_precision=0.2)
    point = next(p for p in explored.report.details["frontier"]["points"] if p["location_precision"] == 0.2)
    assert point["classes"] == low.table["class_id"].nunique()


def test_a_zip_location_pools_its_emptiest_regions():
    from geoanon.datasets import data_path

    regions = pd.read_csv(data_path("us_zip_delaunay_nodes.csv.gz"), dtype={"zip": str}, keep_default_na=False)
    state = regions[regions["state"] == "DE"].reset_index(drop=True)
    rng = np.random.default_rng(3)
    weights = rng.lognormal(0, 1.5, len(state))
    zips = rng.choice(state["zip"].to_numpy(), 1500, p=weights / weights.sum())
    df = pd.DataFrame({"zip": zips, "age": rng.integers(18, 90, zips.size), "sex": rng.choice(["F", "M"], zips.size)})
    location = {"zip": "zip", "regions": regions, "region_id": "zip"}
    r = ga.anonymize(df, location=location, qi=QI, k=5, location_precision=0.9, max_pooled=0.09)
    counts = df["zip"].value_counts()
    assert r.report.audit["ok"] and r.report.details["pooled"]["rows"] > 0
    t = r.in_input_order()
    assert t.groupby("class_id").size().min() >= 5
    own = (t["zip"] == df["zip"]).to_numpy()
    # the records kept at their own ZIP code sit in the fuller regions
    assert df["zip"].map(counts)[own].median() > df["zip"].map(counts)[~own].median()


@pytest.mark.parametrize("ask, message", [
    (dict(location=("lat", "lon"), method="frontier"), "max_pooled works with a points or ZIP location and "
                                                       "method='joint', not a points location"),
    (dict(), "not no location"),
    (dict(location=("lat", "lon"), max_suppressed=0.02), "max_pooled and max_suppressed both spend"),
    (dict(location=("lat", "lon"), max_pooled=1.5), "max_pooled"),
    (dict(location=("lat", "lon"), max_pooled=-0.1), "max_pooled"),
    (dict(location=("lat", "lon"), max_pooled=None, pool_by="classes"), "pool_by='classes' chooses the records of "
                                                                          "max_pooled: give max_pooled too"),
    (dict(location=("lat", "lon"), pool_by="rows"), "pool_by"),
])
def test_bad_pooling_is_a_parameter_error(ask, message):
    df = _towns_and_hamlets(towns=1, hamlets=2)
    ask = {"max_pooled": 0.05, **ask}
    with pytest.raises(ParameterError, match=message):
        ga.anonymize(df, qi=QI, k=5, **ask)


def test_the_command_line_pools(tmp_path, cli):
    df = _towns_and_hamlets(towns=2, per_town=200)
    src, out = tmp_path / "in.csv", tmp_path / "out.csv"
    df.to_csv(src, index=False)
    code, _, err = cli("anonymize", src, "-o", out, "--lat", "lat", "--lon", "lon", "--qi", "age,sex", "--keep", "note",
                       "-k", "5", "--max-pooled", "8%", "--location-precision", "1")
    assert code == 0, err
    written = pd.read_csv(out)
    assert len(written) == len(df) and written.groupby("class_id").size().min() >= 5
    code, _, err = cli("anonymize", src, "-o", tmp_path / "classes.csv", "--lat", "lat", "--lon", "lon", "--qi",
                       "age,sex", "--keep", "note", "-k", "5", "--max-pooled", "8%", "--pool-by", "classes")
    assert code == 0, err
    assert pd.read_csv(tmp_path / "classes.csv").groupby("class_id").size().min() >= 5
    code, _, err = cli("anonymize", src, "-o", tmp_path / "no.csv", "--lat", "lat", "--lon", "lon", "--qi", "age,sex",
                       "--keep", "note", "-k", "5", "--max-pooled", "8%", "--method", "frontier")
    assert code == 2 and "max_pooled works with" in err and not (tmp_path / "no.csv").exists()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), k=st.integers(2, 6), share=st.sampled_from([0.05, 0.1, 0.2]),
       precision=st.sampled_from([0.0, 0.5, 1.0]))
def test_every_pooled_release_is_a_release(seed, k, share, precision):
    df = _clustered(seed)
    n = len(df)
    r = ga.anonymize(df, location=("lat", "lon"), qi=QI, k=k, keep=["note"], location_precision=precision,
                     max_pooled=share, max_withheld=0)
    check_joint_release(df, r.in_input_order(), k, lat="lat", lon="lon", intervals=["age"], sets=["sex"])
    pooled = r.report.details["pooled"]["rows"]
    assert pooled <= share * n and (pooled == 0 or pooled >= k)
    rows = _pooled_rows(df, k, share, max_withheld=0)
    assert rows.size == pooled


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), k=st.integers(2, 6), share=st.sampled_from([0.05, 0.1, 0.2]),
       precision=st.sampled_from([0.25, 0.5, 1.0]))
def test_every_release_pooling_classes_is_a_release_keeping_the_other_classes(seed, k, share, precision):
    df = _clustered(seed)
    n = len(df)
    ask = dict(location=("lat", "lon"), qi=QI, k=k, keep=["note"], location_precision=precision, max_withheld=0)
    r = ga.anonymize(df, **ask, max_pooled=share, pool_by="classes")
    check_joint_release(df, r.in_input_order(), k, lat="lat", lon="lon", intervals=["age"], sets=["sex"])
    pooled = r.report.details["pooled"]["rows"]
    assert pooled <= share * n and (pooled == 0 or pooled >= k)
    plain = ga.anonymize(df, **ask)
    apart = _pooled_apart(plain, r)
    assert apart.sum() <= pooled                     # a pooled class found again as it was counts as kept
    _assert_kept_or_pooled_whole(plain, apart)
