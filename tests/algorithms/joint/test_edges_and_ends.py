"""What a release publishes tells no more of one record than of k (issues 33
and 48): box edges on a grid whose step grows with the box (at least its
width over k), isolated records published without a location; interval
ends round, inside the column's range, open beyond the values k records
reach."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geoanon as ga

from checkers import check_published_boxes


def _boxes(table, lat="lat", lon="lon"):
    return table[[f"{lon}_min", f"{lat}_min", f"{lon}_max", f"{lat}_max"]].to_numpy(dtype=float)


@st.composite
def towns(draw):
    """Records around a few towns, some sharing a household's coordinate, rounded to 5 decimals."""
    seed = draw(st.integers(0, 10_000))
    rng = np.random.default_rng(seed)
    n = draw(st.integers(60, 400))
    centres = rng.uniform([-100, 30], [-80, 45], (draw(st.integers(1, 4)), 2))
    xy = centres[rng.integers(0, len(centres), n)] + rng.normal(0, draw(st.sampled_from([0.001, 0.05, 1.0])), (n, 2))
    share = rng.random(n) < 0.2
    xy[1:][share[1:]] = xy[:-1][share[1:]]
    return np.round(xy, 5), draw(st.integers(2, 12))


@pytest.mark.slow
@given(towns())
@settings(max_examples=40, deadline=None)
def test_the_points_job_publishes_edges_on_a_grid_of_its_boxes_over_k(case):
    xy, k = case
    df = pd.DataFrame({"lat": xy[:, 1], "lon": xy[:, 0]})
    release = ga.generalize_points(df, k, lat="lat", lon="lon")
    table = release.in_input_order()
    check_published_boxes(xy, table["class_id"].to_numpy(), _boxes(table), k)
    sizes = table["class_id"].value_counts()
    assert sizes.min() >= k and release.report.audit["k"] >= k
    withheld = table["lat_min"].isna()
    assert release.report.details["withheld_rows"] == withheld.sum()
    assert table.loc[withheld, "class_id"].nunique() <= 1     # one class without a location
    release.partition.verify()


@pytest.mark.slow
@given(towns(), st.sampled_from(["frontier", "location-first", "joint"]))
@settings(max_examples=25, deadline=None)
def test_the_joint_release_publishes_edges_on_a_grid_of_its_boxes_over_k(case, method):
    xy, k = case
    rng = np.random.default_rng(len(xy))
    df = pd.DataFrame({"lat": xy[:, 1], "lon": xy[:, 0], "age": rng.integers(0, 100, len(xy)),
                       "sex": rng.choice(["F", "M"], len(xy))})
    release = ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex"], k=k, method=method)
    table = release.in_input_order()
    location = table.groupby(["lon_min", "lat_min", "lon_max", "lat_max"], dropna=False).ngroup().to_numpy()
    check_published_boxes(xy, location, _boxes(table), k)
    assert release.report.audit["k"] >= k


def test_gaps_keep_theorem_2s_bound():
    """On 3,000 clustered points the job's default (cuts in gaps) keeps every
    class within Theorem 2's bound, as the balanced cuts do."""
    rng = np.random.default_rng(5)
    xy = np.round(rng.normal(0, 1, (3000, 2)) * [0.3, 0.2] + [-75, 40], 5)
    df = pd.DataFrame({"lat": xy[:, 1], "lon": xy[:, 0]})
    for method in ("gaps", "balanced"):
        release = ga.generalize_points(df, 10, lat="lat", lon="lon", method=method)
        kept = release.in_input_order().loc[release.in_input_order()["lat_min"].notna(), "class_id"].value_counts()
        assert kept.max() <= 4 * 9 + 1           # Theorem 2's bound on the partition's classes


def test_rows_without_coordinates_are_a_location_class_of_their_own():
    rng = np.random.default_rng(2)
    n = 300
    df = pd.DataFrame({"lat": np.round(rng.normal(41, 0.1, n), 5), "lon": np.round(rng.normal(-71, 0.1, n), 5),
                       "age": rng.integers(20, 80, n)})
    df.loc[:11, ["lat", "lon"]] = np.nan
    release = ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=5, missing="suppress")
    t = release.in_input_order()
    assert t.loc[12:, "lat_min"].notna().mean() > 0.95          # the located rows keep their boxes
    assert t.loc[:11, "lat_min"].isna().all() and release.report.details["location_classes"] > 10
    assert not set(t.loc[:11, "class_id"]) & set(t.loc[12:, "class_id"])


def _ages(n=2000, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"age": np.r_[rng.integers(17, 88, n - 6), [95, 97, 99, 101, 103, 104]],
                         "cost": np.round(rng.lognormal(6, 1, n)).astype(int),
                         "sex": rng.choice(["F", "M"], n)})


def test_interval_ends_are_round_bounded_and_open_in_the_tails():
    df = _ages()
    release = ga.anonymize(df, qi=["age", "cost", "sex"], k=15)     # classes wide enough for round ends
    t = release.in_input_order()
    step = np.gcd.reduce(t["age_min"].dropna().to_numpy(dtype=np.int64))      # the round grid the ends lie on
    closed = t["age_max"][np.isfinite(t["age_max"])]
    assert step in (2, 5, 10, 20) and ((closed + 1) % step == 0).all()
    assert (t["age_min"].dropna() >= 0).all() and (t["cost_min"].dropna() >= 0).all()   # no value is negative
    oldest = t.iloc[-6:]                       # ages no k records reach: an open upper end ("85+": 85 to inf)
    assert (oldest["age_max"] == np.inf).all() and oldest["age_min"].notna().all()
    assert (oldest["age_min"] <= 95).all()
    for col in ("age", "cost"):                # every value inside its published interval
        lo, hi = t[f"{col}_min"].astype(float), t[f"{col}_max"].astype(float)
        assert ((lo.isna() | (lo <= df[col])) & (hi.isna() | (df[col] <= hi))).all()
    ncp = release.report["ncp"]["columns"]["age"]
    assert 0 < ncp < 1 and release.report.audit["k"] >= 15


def test_declared_ranges_bound_the_ends_and_refuse_values_outside():
    df = _ages()
    release = ga.anonymize(df, ga.Columns(qi=["age", "sex"], identifiers=["cost"], ranges={"age": (0, 110)}), k=10)
    assert release.in_input_order()["age_max"].max() <= 110 and release.in_input_order()["age_min"].min() >= 0
    with pytest.raises(ga.DataError, match=r"column 'age', row 1994: 95 is outside its range \[-inf, 90\] \(6 rows\)"):
        ga.anonymize(df, ga.Columns(qi=["age", "sex"], identifiers=["cost"], ranges={"age": (None, 90)}), k=10)
    for ranges, message in (({"sex": (0, 1)}, "not a number quasi-identifier"), ({"age": (5, 1)}, "low below"),
                            ({"age": (0, "x")}, "numbers or None"), ({"age": 3}, r"\(low, high\)")):
        with pytest.raises(ga.ParameterError, match=message):
            ga.anonymize(df, ga.Columns(qi=["age", "sex"], identifiers=["cost"], ranges=ranges), k=10)


def test_the_command_line_and_job_files_take_ranges(tmp_path, cli):
    df = _ages()
    df.to_csv(tmp_path / "in.csv", index=False)
    base = ["anonymize", tmp_path / "in.csv", "--qi", "age,sex", "--identifiers", "cost", "-k", 10]
    code, out, err = cli(*base, "--range", "age=0:110", "-o", tmp_path / "o.csv")
    assert code == 0, err
    code, out, err = cli(*base, "--range", "age=20:", "-o", tmp_path / "o2.csv")
    assert code == 2 and "is outside its range [20, inf]" in err and not (tmp_path / "o2.csv").exists()
    code, out, err = cli(*base, "--range", "age", "-o", tmp_path / "o3.csv")
    assert (code, err.strip()) == (2, "geoanon anonymize: error: --range expects COL=LOW:HIGH such as age=0:120, "
                                      "got 'age'")
    (tmp_path / "job.toml").write_text(
        '[input]\npath = "in.csv"\n[columns]\nqi = ["age", "sex"]\nidentifiers = ["cost"]\n'
        'ranges = { age = [0, 110] }\n[model]\nk = 10\n[output]\ntable = "job.csv"\n', encoding="utf-8")
    code, out, err = cli("run", tmp_path / "job.toml")
    assert code == 0, err
    assert pd.read_csv(tmp_path / "job.csv")["age_max"].max() <= 110
