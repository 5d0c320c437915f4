"""The joint release's record suppression budget (``max_suppressed``):
outliers published fully suppressed, as one class, instead of widening their
neighbours' classes."""
import json

import numpy as np
import pandas as pd
import pytest

import geoanon as ga
from geoanon.joint.outliers import suppressed_rows
from geoanon.joint.dims import Dims
from geoanon.joint.problem import SearchProblem
from geoanon.joint.search import JointPartition
from geoanon._geo import row_box_extents
from checkers import check_joint_release

QI = ["age", "sex"]
RECT = ["lat_min", "lat_max", "lon_min", "lon_max"]


def _mainland_and_islands(n=800, islands=((21.3, -157.9), (13.4, 144.8), (64.8, -147.7)), per_island=4, seed=0):
    """Records in one region and a few on islands far from it and each other."""
    rng = np.random.default_rng(seed)
    lat = [38 + rng.normal(0, 1.0, n)]
    lon = [-90 + rng.normal(0, 1.5, n)]
    for y, x in islands:
        lat.append(y + rng.normal(0, 0.05, per_island))
        lon.append(x + rng.normal(0, 0.05, per_island))
    m = n + per_island * len(islands)
    return pd.DataFrame({"lat": np.concatenate(lat).round(4), "lon": np.concatenate(lon).round(4),
                         "age": rng.integers(18, 90, m), "sex": rng.choice(["F", "M"], m),
                         "diagnosis": rng.choice(["flu", "asthma", "copd", "cancer"], m)})


def _check_suppressed(df, r, k, method="joint"):
    """Every rule of a joint release for the other rows; the suppressed rows
    publish nothing, one class of at least k; the report counts them."""
    t = r.in_input_order()
    hidden = t["lat_min"].isna().to_numpy()
    kept = ~hidden
    check_joint_release(df[kept].reset_index(drop=True), t[kept].reset_index(drop=True), k, lat="lat", lon="lon",
                        intervals=["age"], sets=["sex"])
    if hidden.any():
        assert t.loc[hidden, "class_id"].nunique() == 1 and hidden.sum() >= k
        assert not set(t.loc[hidden, "class_id"]) & set(t.loc[kept, "class_id"])
        assert t.loc[hidden, [*RECT, "age_min", "age_max"]].isna().all().all()
        assert (t.loc[hidden, "sex"] == "*").all()
        assert t.loc[hidden, "diagnosis"].tolist() == df.loc[hidden, "diagnosis"].tolist()
    assert r.report.details["suppressed_records"] == int(hidden.sum())
    assert r.report.audit["ok"] and r.report.audit["k"] >= k
    return hidden


@pytest.mark.parametrize("method", ["joint", "frontier"])
def test_islands_are_suppressed_and_no_longer_widen_the_mainland(method):
    df = _mainland_and_islands()
    plain = ga.anonymize(df, location=("lat", "lon"), qi=QI, k=5, keep=["diagnosis"], method=method,
                         max_withheld=0)
    budget = ga.anonymize(df, location=("lat", "lon"), qi=QI, k=5, keep=["diagnosis"], max_suppressed=0.02,
                          method=method, max_withheld=0)
    hidden = _check_suppressed(df, budget, 5, method)
    assert 5 <= hidden.sum() <= 0.02 * len(df)
    assert set(np.flatnonzero(hidden)) >= set(range(800, len(df)))       # every island record
    widest = row_box_extents(plain.in_input_order(), "lat", "lon", "EPSG:4326")[2]
    left = row_box_extents(budget.in_input_order()[~hidden], "lat", "lon", "EPSG:4326")[2]
    assert np.nanmax(widest) > 5000 > np.nanmax(left)
    # the report's NCP charges every suppressed cell in full
    assert budget.report["ncp"]["columns"]["sex"] >= hidden.mean() - 1e-9


def test_a_budget_smaller_than_any_class_changes_nothing():
    df = _mainland_and_islands(300)
    plain = ga.anonymize(df, location=("lat", "lon"), qi=QI, k=10, keep=["diagnosis"])
    for share in (0.0, 9 / len(df)):
        r = ga.anonymize(df, location=("lat", "lon"), qi=QI, k=10, keep=["diagnosis"], max_suppressed=share)
        pd.testing.assert_frame_equal(r.in_input_order(), plain.in_input_order())
        assert r.report.details["suppressed_records"] == 0


def test_without_a_location_the_costliest_classes_go():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"age": np.r_[rng.integers(30, 40, 400), [97, 101, 104, 99]],
                       "sex": rng.choice(["F", "M"], 404)})
    plain = ga.anonymize(df, qi=["age", "sex"], k=4, method="frontier")
    r = ga.anonymize(df, qi=["age", "sex"], k=4, max_suppressed=0.02)
    hidden = r.in_input_order()["age_min"].isna().to_numpy()
    assert r.report.details["suppressed_records"] == hidden.sum() >= 4 and hidden[-4:].all()
    assert (r.in_input_order().loc[~hidden, "age_max"] <= 41).all()
    assert (plain.in_input_order().iloc[-4:]["age_max"] == np.inf).all()     # without a budget, top-coded: 96+
    assert r.report.audit["k"] >= 4


def test_the_suppressed_class_meets_the_model_or_nothing_is_suppressed():
    df = _mainland_and_islands()
    r = ga.anonymize(df, location=("lat", "lon"), qi=QI, k=5, sensitive="diagnosis", l=2, max_suppressed=0.02)
    hidden = r.in_input_order()["lat_min"].isna().to_numpy()
    counts = df.loc[hidden, "diagnosis"].value_counts()
    assert hidden.sum() == 0 or counts.max() * 2 <= hidden.sum()
    assert r.report.audit["l"] >= 2

    class Refuses:                      # a model no union of classes meets: nothing is suppressed
        codes = np.zeros(20, dtype=np.int64)

        def histogram(self, rows):
            return np.array([rows.size])

        def holds(self, hist):
            return np.array([False])

    part = JointPartition(row_class=np.repeat([0, 1], 10), states=[(0,), (1,)], location_class=np.array([0, 1]),
                          cost=np.zeros(1), design="frontier")
    problem = SearchProblem(Dims([]), Refuses())
    assert suppressed_rows(problem, part, 20, widths=lambda states: np.array([5.0, 9.0])).size == 0


def test_bad_budgets_are_refused(tmp_path, cli):
    df = _mainland_and_islands(200)
    for bad in (-0.1, 1, 1.5, "2%", True, float("nan")):
        with pytest.raises(ga.ParameterError, match="max_suppressed"):
            ga.anonymize(df, location=("lat", "lon"), qi=QI, k=5, max_suppressed=bad, keep=["diagnosis"])
    df["place"] = np.where(df.lat > 30, "north", "south")
    with pytest.raises(ga.ParameterError, match="points location or none"):
        ga.anonymize(df, location={"label": "place"}, qi=QI, k=5, max_suppressed=0.02, keep=["diagnosis"],
                     identifiers=["lat", "lon"])
    df.drop(columns="place").to_csv(tmp_path / "in.csv", index=False)
    base = ("anonymize", tmp_path / "in.csv", "--lat", "lat", "--lon", "lon", "--qi", ",".join(QI), "-k", "5",
            "--keep", "diagnosis")
    code, out, err = cli(*base, "--max-suppressed", "5%", "-o", tmp_path / "o.csv", "--report", tmp_path / "r.json",
                         "--keep-order")
    assert code == 0, err
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["max_suppressed"] == 0.05 and report["suppressed_records"] >= 5
    assert f"{report['suppressed_records']} records suppressed" in out
    api = ga.anonymize(df.drop(columns="place"), location=("lat", "lon"), qi=QI, k=5, keep=["diagnosis"],
                       max_suppressed=0.05).in_input_order()
    pd.testing.assert_series_equal(pd.read_csv(tmp_path / "o.csv")["lat_min"], api["lat_min"], check_dtype=False)
    for bad, message in (("lots", "share of the rows"), ("150%", "max_suppressed")):
        code, _, err = cli(*base, "--max-suppressed", bad, "-o", tmp_path / "o2.csv")
        assert code == 2 and message in err and not (tmp_path / "o2.csv").exists()
    (tmp_path / "job.toml").write_text(
        '[input]\npath = "in.csv"\n[columns]\nlocation = { lat = "lat", lon = "lon" }\nqi = ["sex"]\n'
        'interval = ["age"]\nkeep = ["diagnosis"]\n[model]\nk = 5\n[release]\nmax_suppressed = %s\n'
        '[output]\ntable = "j.csv"\n' % "1.5")
    code, _, err = cli("run", tmp_path / "job.toml", "--dry-run")
    assert code == 2 and "[release]" in err and "max_suppressed" in err
