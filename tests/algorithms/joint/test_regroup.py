"""``regroup_km``: neighbouring classes pooled and cut again by the other
columns within a median and p90 box (:mod:`geoanon.joint.regroup`)."""
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import geoanon as ga
from geoanon.errors import ParameterError
from geoanon.joint.regroup import regrouped, within_counts
from geoanon.options import release_spec
from geoanon.pipeline import joint_release as jr
from checkers import check_joint_release

QI = ["age", "sex", "job"]
EARTH_KM = 6371.0088


def _people(seed: int, n: int = 600) -> pd.DataFrame:
    """``n`` records around a few towns, each with an age, a sex, a job, a diagnosis and a note."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform([33, -105], [44, -80], (int(rng.integers(3, 8)), 2))
    at = rng.integers(0, len(centres), n)
    return pd.DataFrame({"lat": (centres[at, 0] + rng.normal(0, 0.4, n)).round(4),
                         "lon": (centres[at, 1] + rng.normal(0, 0.4, n)).round(4),
                         "age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n),
                         "job": rng.choice(["clerk", "nurse", "farmer", "teacher", "driver"], n),
                         "dx": rng.choice(["a", "b", "c"], n), "note": np.arange(n)})


def _box_km(table: pd.DataFrame) -> np.ndarray:
    """Every record's published box in km, computed here: the longer of its great-circle diagonal and its
    width along its equatorward edge (inf: no box)."""
    y0, y1, x0, x1 = (np.radians(table[c].to_numpy(float)) for c in ("lat_min", "lat_max", "lon_min", "lon_max"))
    h = np.sin((y1 - y0) / 2) ** 2 + np.cos(y0) * np.cos(y1) * np.sin((x1 - x0) / 2) ** 2
    diagonal = 2 * EARTH_KM * np.arcsin(np.sqrt(np.clip(h, 0, 1)))
    width = (x1 - x0) * EARTH_KM * np.cos(np.minimum(np.abs(y0), np.abs(y1)))
    km = np.maximum(diagonal, width)
    return np.where(np.isnan(km), np.inf, km)


def _spread(table) -> tuple:
    return tuple(np.quantile(_box_km(table), [0.5, 0.9]))


def _other_ncp(release) -> float:
    return float(np.mean([release.report["ncp"]["columns"][c] for c in QI]))


def test_within_counts_hold_the_median_and_the_p90_and_are_the_least_that_do():
    for n in range(2, 80):
        for q, need in zip((0.5, 0.9), within_counts(n)):
            assert np.quantile(np.r_[np.zeros(need), np.ones(n - need)], q) == 0
            assert np.quantile(np.r_[np.zeros(need - 1), np.ones(n - need + 1)], q) > 0


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), k=st.sampled_from([3, 5, 8]), l=st.sampled_from([None, 2]),
       slack=st.sampled_from([0.0, 1.5, 4.0]))
def test_regrouped_releases_keep_the_model_rows_and_widths(seed, k, l, slack):
    df = _people(seed, 300)
    ask = dict(location=("lat", "lon"), qi=QI, k=k, location_precision=0.7,
               **({"sensitive": "dx", "l": l, "keep": ["note"]} if l else {"keep": ["note", "dx"]}))
    plain = ga.anonymize(df, **ask)
    median, p90 = _spread(plain.in_input_order())
    widths = (median * slack, p90 * slack)
    r = ga.anonymize(df, **ask, regroup_km=widths)
    t = r.in_input_order()
    check_joint_release(df, t, k, lat="lat", lon="lon", intervals=["age"], sets=["sex", "job"],
                        sensitive="dx" if l else None, l=l)
    assert r.report.audit["ok"]
    bounds = (max(widths[0], median), max(widths[1], p90))
    got = _spread(t)
    assert got[0] <= bounds[0] * (1 + 1e-6) + 1e-6 and got[1] <= bounds[1] * (1 + 1e-6) + 1e-6
    done = r.report.details["regrouped"]
    assert done["other_loss_after"] <= done["other_loss_before"] + 1e-9
    assert (done["changes"] == 0) == (_other_ncp(r) == pytest.approx(_other_ncp(plain)))


def test_spending_a_wider_median_lowers_the_other_columns_loss():
    df = _people(7, 900)
    ask = dict(location=("lat", "lon"), qi=QI, k=10, keep=["note", "dx"], location_precision=0.8)
    plain = ga.anonymize(df, **ask)
    median, p90 = _spread(plain.in_input_order())
    own = ga.anonymize(df, **ask, regroup_km=(0, 0))
    wider = ga.anonymize(df, **ask, regroup_km=(2 * median, 2 * p90))
    assert _other_ncp(wider) < _other_ncp(own) <= _other_ncp(plain) + 1e-12
    assert wider.report.details["regrouped"]["changes"] > 0
    assert "the other columns lose" in wider.notes[-1]
    got = _spread(own.in_input_order())
    assert got[0] <= median * (1 + 1e-6) and got[1] <= p90 * (1 + 1e-6)


def test_regrouping_is_deterministic_in_any_number_of_processes_and_off_by_default():
    df = _people(11, 250)
    ask = dict(location=("lat", "lon"), qi=QI, k=5, keep=["note", "dx"])
    assert "regrouped" not in ga.anonymize(df, **ask).report.details
    a = ga.anonymize(df, **ask, regroup_km=(500, 900))
    b = ga.anonymize(df, **ask, regroup_km=(500, 900))
    forked = ga.anonymize(df, **ask, regroup_km=(500, 900), n_jobs=2)     # more groups than one process's run
    assert a.report.details["regrouped"]["changes"] > 0
    pd.testing.assert_frame_equal(a.table, b.table)
    pd.testing.assert_frame_equal(a.table, forked.table)
    assert a.report.details["regrouped"] == forked.report.details["regrouped"]


def test_max_extent_bounds_every_regrouped_box():
    df = _people(5, 300)
    ask = dict(location=("lat", "lon"), qi=QI, k=5, keep=["note", "dx"], location_precision=0.6)
    plain = ga.anonymize(df, **ask)
    widest = float(_box_km(plain.in_input_order())[np.isfinite(_box_km(plain.in_input_order()))].max())
    r = ga.anonymize(df, **ask, max_extent_km=widest * 1.01, regroup_km=(10_000, 10_000))
    km = _box_km(r.in_input_order())
    assert km[np.isfinite(km)].max() <= widest * 1.01 + 1e-6


def test_the_partition_verifies_and_the_suppressed_class_stays():
    df = _people(2, 500)
    spec = release_spec("anonymize", location=("lat", "lon"), qi=QI, k=5, keep=["note", "dx"], max_suppressed=0.05,
                        regroup_km=(300, 600))
    job = jr.prepared(df, spec)
    part = jr.partitioned(job, spec)[0]
    problem = jr._problem(job, spec)
    part.verify(problem)
    assert (part.row_class >= 0).all()
    if part.suppressed >= 0:
        plain = jr.partitioned(job, spec.but(regroup_km=None))[0]
        assert set(np.flatnonzero(part.row_class == part.suppressed)) == \
            set(np.flatnonzero(plain.row_class == plain.suppressed))


def test_nothing_moves_where_no_pair_fits():
    df = _people(4, 200)
    spec = release_spec("anonymize", location=("lat", "lon"), qi=QI, k=5, keep=["note", "dx"])
    job = jr.prepared(df, spec)
    problem = jr._problem(job, spec)
    part = jr.partitioned(job, spec)[0]
    done = regrouped(problem, part, lambda states: np.full(len(states), np.nan),
                     np.zeros((len(df), 3)), (100.0, 100.0))
    assert done.changes == 0 and done.loss_after == done.loss_before
    np.testing.assert_array_equal(np.sort(np.bincount(done.part.row_class)), np.sort(np.bincount(part.row_class)))


@pytest.mark.parametrize("ask, message", [
    (dict(regroup_km=(-1, 5)), "regroup_km must be a pair (median_km, p90_km) of numbers >= 0"),
    (dict(regroup_km=(1, 2, 3)), "regroup_km must be a pair"),
    (dict(regroup_km=(100, 200), method="frontier"), "regroup_km works with a points location and method='joint'"),
])
def test_bad_regrouping_is_a_parameter_error(ask, message):
    with pytest.raises(ParameterError, match=message.replace("(", r"\(").replace(")", r"\)")):
        ga.anonymize(_people(1, 60), location=("lat", "lon"), qi=QI, k=5, keep=["note", "dx"], **ask)


def test_a_table_without_a_points_location_cannot_regroup():
    df = pd.DataFrame({"age": range(10), "sex": ["F", "M"] * 5})
    with pytest.raises(ParameterError, match="regroup_km works with a points location and method='joint', not no "):
        ga.anonymize(df, qi=["age", "sex"], k=5, regroup_km=(10, 20))


def test_the_command_line_spends_the_widths_asked(tmp_path, cli):
    df = _people(3, 300)
    df.to_csv(tmp_path / "in.csv", index=False)
    base = ["anonymize", tmp_path / "in.csv", "--lat", "lat", "--lon", "lon", "--qi", ",".join(QI), "-k", "5",
            "--keep", "note,dx"]
    code, _, err = cli(*base, "--regroup", "400km,900", "-o", tmp_path / "out.csv", "--report", tmp_path / "r.json")
    assert code == 0, err
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["regrouped"]["regroup_km"] == [400.0, 900.0] and report["regrouped"]["changes"] > 0
    code, _, err = cli(*base, "--regroup", "400", "-o", tmp_path / "bad.csv")
    assert code == 2 and "MEDIAN,P90" in err and not (tmp_path / "bad.csv").exists()
