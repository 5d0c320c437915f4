"""Entropy and recursive (c, l)-diversity, beta-likeness and delta-disclosure
(geoanon.criteria): the audit against the papers' definitions written out
class by class, the union property each search relies on, and releases that
meet them on both engines' solvers."""
import math
from collections import Counter

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geoanon as ga
from geoanon.errors import InfeasibleError, ParameterError

from checkers import by_definition


tables = st.lists(st.tuples(st.integers(0, 5), st.sampled_from("abcde")), min_size=2, max_size=60)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(tables)
def test_the_audit_measures_each_model_as_defined(rows):
    df = pd.DataFrame(rows, columns=["qi", "s"])
    report = ga.audit(df, ["qi"], "s")
    groups = {key: list(g["s"]) for key, g in df.groupby("qi")}
    table = Counter(df["s"])
    if len(table) < 2:
        assert report.recursive is None
        return
    want = by_definition(groups, table, len(table))
    assert report.recursive["l"] == len(table)
    for name in ("l_entropy", "beta", "delta"):
        assert report[name] == pytest.approx(want[name], rel=1e-9, abs=1e-12)
    for got, expected in ((report.beta_enhanced, want["beta_enhanced"]), (report.recursive["c"], want["c"])):
        assert (got is None) == math.isinf(expected)
        if got is not None:
            assert got == pytest.approx(expected, rel=1e-9)


def test_a_worked_table():
    # x: 3, y: 4, z: 1 of 8; class 1 = x x y z, class 2 = x y y y
    df = pd.DataFrame({"qi": [1, 1, 1, 1, 2, 2, 2, 2], "s": list("xxyzxyyy")})
    report = ga.audit(df, ["qi"], model=ga.Model(k=2, sensitive="s", recursive=(2, 2), delta=0.5, beta=1.0))
    assert report.l_entropy == pytest.approx(math.exp(-(0.25 * math.log(0.25) + 0.75 * math.log(0.75))))
    assert report.beta == pytest.approx(1.0)            # z: 1/4 against 1/8
    assert report.beta_enhanced == pytest.approx(1.0)   # 1.0 <= -ln(1/8)
    assert report.delta == pytest.approx(math.log(2))
    assert report.recursive == {"l": 2, "c": 3.0}        # class 2: 3 / 1
    assert report.violations["recursive"]["classes"] == 1 and report.violations["recursive"]["level"] == [2, 2]
    assert report.violations["delta"]["rows"] == 4      # class 2: |ln(3/4 / 1/2)| = 0.405 < 0.5
    assert report.violations["beta"]["classes"] == 0    # beta <= 1.0 holds at equality
    assert not report.ok


def test_strict_definitions_refuse_equality():
    df = pd.DataFrame({"qi": [1, 1, 1, 1, 2, 2, 2, 2], "s": list("xxyzxyyy")})
    at = ga.audit(df, ["qi"], model=ga.Model(k=1, sensitive="s", delta=math.log(2), recursive=(3, 2)))
    assert at.violations["delta"]["classes"] == 1      # class 1 at ln 2 exactly: |ln p/q| < delta, strictly
    assert at.violations["recursive"]["classes"] == 1  # r_1 < c (r_l + ...), strictly


def test_enhanced_beta_has_no_level_when_a_share_passes_minus_log_q():
    # a value held by 1 row in 100 fills a class of 2: (1/2 - 1/100) / (1/100) = 49 > ln 100
    df = pd.DataFrame({"qi": [0] * 98 + [1, 1], "s": ["a"] * 98 + ["a", "b"]})
    report = ga.audit(df, ["qi"], model=ga.Model(k=1, sensitive="s", beta_enhanced=1000))
    assert report.beta == pytest.approx(49)
    assert report.beta_enhanced is None
    # and a class of one value never meets it: (1 - q) / q > -ln q for every q < 1
    assert report.violations["beta_enhanced"]["classes"] == 2


counts = st.lists(st.integers(0, 6), min_size=4, max_size=4)


@pytest.mark.slow
@settings(max_examples=300, deadline=None)
@given(counts, counts, counts)
def test_unions_keep_entropy_recursive_and_beta(a, b, rest):
    """Theorem-style: two classes meeting a level, merged, meet it (entropy is
    concave; a union's shares are a convex combination of its parts')."""
    a, b, rest = (np.array(v) for v in (a, b, rest))
    if a.sum() == 0 or b.sum() == 0:
        return
    table = a + b + rest + 1                      # every value occurs in the table
    q = table / table.sum()
    check = ga.Model(k=1, sensitive="s").compile(pd.DataFrame({"s": np.arange(4)}))
    check.q = q
    for level in ({"l_entropy": 1.5}, {"recursive": (2.0, 2)}, {"beta": 1.0}, {"beta_enhanced": 1.0}):
        check.model = ga.Model(k=1, sensitive="s", **level)
        ok = check.holds(np.array([a, b, a + b]))
        if ok[0] and ok[1]:
            assert ok[2], (level, a, b)


def test_delta_over_held_values_is_not_closed_under_union():
    """Why every search checks the classes it publishes for delta: two classes
    within delta whose union is not (a value rare in one part becomes rarer)."""
    check = ga.Model(k=1, sensitive="s").compile(pd.DataFrame({"s": [0, 1]}))
    check.q = np.array([0.5, 0.5])
    check.model = ga.Model(k=1, sensitive="s", delta=0.75)
    ok = check.holds(np.array([[4, 0], [3, 1], [7, 1]]))    # value 1: 1/4 in the second, 1/8 merged
    assert ok[0] and ok[1] and not ok[2]


def patients(n=400, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"lat": 35 + rng.normal(0, 1, n), "lon": -80 + rng.normal(0, 1, n),
                         "age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n),
                         "diag": rng.choice(list("abcdef"), n, p=[0.3, 0.2, 0.2, 0.1, 0.1, 0.1])})


LEVELS = [{"l_entropy": 3.0}, {"recursive": (3.0, 2)}, {"beta": 1.0}, {"beta_enhanced": 1.2}, {"delta": 1.0}]


def independent_figures(table, qi, sensitive, original):
    groups = {key: list(g[sensitive]) for key, g in table.groupby(qi, dropna=False)}
    table_counts = Counter(original[sensitive])
    return by_definition(groups, table_counts, 2)


@pytest.mark.parametrize("level", LEVELS, ids=lambda v: next(iter(v)))
def test_releases_meet_the_level(level):
    df = patients()
    model = ga.Model(k=5, sensitive="diag", **level)
    name, value = next(iter(level.items()))
    released = [ga.suppress(df[["age", "sex", "diag"]], ["age", "sex"], model=model).in_input_order(),
                ga.anonymize(df, location={"lat": "lat", "lon": "lon"}, qi=["age", "sex"], model=model,
                             identifiers=[]).in_input_order()]
    for table in released:
        qi = [c for c in table.columns if c != "diag"]
        assert table.groupby(qi, dropna=False).size().min() >= 5
        got = independent_figures(table, qi, "diag", df)
        if name == "l_entropy":
            assert got["l_entropy"] >= value - 1e-9
        elif name == "recursive":
            assert got["c"] < value[0]
        elif name == "delta":
            assert got["delta"] < value
        else:
            assert got[name] <= value + 1e-9
        assert len(table) == len(df) and table["class_id"].value_counts().min() >= 5


@pytest.mark.slow
@pytest.mark.parametrize("level", LEVELS, ids=lambda v: next(iter(v)))
def test_the_heuristic_never_beats_the_exact_solver(level):
    rng = np.random.default_rng(3)
    for trial in range(6):
        df = pd.DataFrame({"a": rng.integers(0, 3, 14), "b": rng.integers(0, 2, 14),
                           "s": rng.choice(list("xyz"), 14)})
        model = ga.Model(k=2, sensitive="s", **level)
        try:
            exact = ga.suppress(df, ["a", "b"], model=model, method="exact")
        except InfeasibleError:
            with pytest.raises(InfeasibleError):
                ga.suppress(df, ["a", "b"], model=model, method="lattice")
            continue
        lattice = ga.suppress(df, ["a", "b"], model=model, method="lattice")
        assert exact.report.details["cost"] <= lattice.report.details["cost"]
        assert exact.report.audit["ok"] and lattice.report.audit["ok"]


def test_unsupported_solvers_and_bad_levels_say_so():
    df = patients()[["age", "sex", "diag"]]
    with pytest.raises(ParameterError, match="Theorem 9's program"):
        ga.suppress(df, ["age", "sex"], model=ga.Model(k=5, sensitive="diag", delta=1.0), method="milp")
    with pytest.raises(ParameterError, match="approx"):
        ga.suppress(df, ["age", "sex"], model=ga.Model(k=5, sensitive="diag", beta=1.0), method="approx")
    with pytest.raises(ParameterError, match="not both"):
        ga.suppress(df, ["age", "sex"], k=5, model=ga.Model(k=5, sensitive="diag", beta=1.0))
    for bad in ({"recursive": (3, 0)}, {"recursive": 3}, {"beta": 0}, {"delta": float("nan")}, {"l_entropy": 0.5}):
        with pytest.raises(ParameterError):
            ga.Model(k=2, sensitive="diag", **bad)
    with pytest.raises(ParameterError, match="need a sensitive column"):
        ga.Model(k=2, beta=1.0)
    with pytest.raises(InfeasibleError, match="l_entropy"):
        ga.suppress(df, ["age", "sex"], model=ga.Model(k=5, sensitive="diag", l_entropy=7))


def test_the_command_line_and_job_files_take_every_level(cli, tmp_path):
    import json

    patients().to_csv(tmp_path / "in.csv", index=False)
    code, out, err = cli("suppress", tmp_path / "in.csv", "--qi", "age,sex", "--sensitive", "diag", "--delta", "1.2",
                         "-k", "5", "--identifiers", "lat,lon", "-o", tmp_path / "s.csv", "--report", tmp_path / "s.json")
    assert code == 0, err
    report = json.loads((tmp_path / "s.json").read_text())
    assert report["delta"] == 1.2 and report["audit"]["delta"] < 1.2 and report["audit"]["ok"]
    code, out, _ = cli("audit", tmp_path / "s.csv", "--qi", "age,sex,class_id", "--sensitive", "diag",
                       "--recursive", "2,2", "--l-entropy", "5")
    assert code == 1 and "l_entropy=5.0: VIOLATED" in out and "recursive=[2.0, 2]" in out
    (tmp_path / "job.toml").write_text(
        '[input]\npath = "in.csv"\n[columns]\nlocation = { lat = "lat", lon = "lon" }\nqi = ["sex"]\n'
        'interval = ["age"]\nsensitive = "diag"\n[model]\nk = 5\nrecursive = [3, 2]\nbeta = 2.0\n'
        '[output]\ntable = "j.csv"\nreport = "j.json"\n')
    code, _, err = cli("run", tmp_path / "job.toml")
    assert code == 0, err
    audit = json.loads((tmp_path / "j.json").read_text())["audit"]
    assert audit["ok"] and audit["recursive"]["l"] == 2 and audit["recursive"]["c"] < 3 and audit["beta"] <= 2.0
    (tmp_path / "bad.toml").write_text((tmp_path / "job.toml").read_text().replace("[3, 2]", "[3, 2.5]"))
    code, _, err = cli("run", tmp_path / "bad.toml")
    assert code == 2 and "[c, l]" in err
