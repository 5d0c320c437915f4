"""Privacy models, EMD and audit: the worked values of the tutorial (Dosselmann,
Sadeqi and Hamilton) and of Liang and Yuan's Tables 1-5."""
import json
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geoanon as ga
from geoanon.datasets import adult_hierarchy
from geoanon.errors import DataError, ParameterError
from geoanon.models import emd_rows, measure_classes

from checkers import emd_equal, emd_matrix, emd_ordered



def table(classes, column, values):
    """A released table: one quasi-identifier holding the class name."""
    return pd.DataFrame({"qi": [c for c, vs in zip(classes, values) for _ in vs],
                         column: [v for vs in values for v in vs]})


def per_class_t(report):
    return [round(x, 4) for x in report.per_class["measures", "t"]]


def test_incident_table_equal_ground():
    # tutorial Tables 1-2: zones as classes, Incident categorical
    released = table(["2C", "4F", "9A", "3B"], "incident", [
        ["power outage"] * 3,
        ["theft", "fire", "fatal accident", "fire"],
        ["sidewalk repair", "power outage"],
        ["pest control", "power outage", "sidewalk repair", "tree replanting", "sidewalk repair"]])
    report = ga.audit(released, ["qi"], "incident")
    assert per_class_t(report) == [0.6429, 0.7143, 0.4286, 0.4429]
    assert round(report.t, 4) == 0.7143
    assert report.k == 2 and report.l_distinct == 1 and report.classes == 4


def test_salary_ordered_ground():
    # tutorial Table 3 (Li et al.'s Table 4): salary as an ordered value
    released = table(["476**2*", "4790*>=40", "476**3*"], "salary",
                     [[3, 4, 5], [6, 11, 8], [7, 9, 10]])
    report = ga.audit(released, ["qi"], "salary", ground="ordered")
    assert per_class_t(report) == [0.375, 0.1667, 0.2361]
    assert ga.emd([1, 1, 1, 0, 0, 0, 0, 0, 0], [1] * 9, ground="ordered") == pytest.approx(0.375)


def test_salary_ordered_from_csv_strings_sorts_numerically():
    released = table(["a", "b", "c"], "salary", [["3", "4", "5"], ["6", "11", "8"], ["7", "9", "10"]])
    assert round(ga.audit(released, ["qi"], "salary", ground="ordered").t, 4) == 0.375


def test_merit_points_both_orderings():
    # tutorial Table 4 orders the values by frequency (3, 4, 1, 2), not by value
    released = table(["E", "U", "G", "R"], "points", [[1, 4, 2], [3], [3, 4, 3, 1], [4, 3]])
    by_frequency = ga.audit(released, ["qi"], "points", ground="ordered", order=[3, 4, 1, 2])
    assert per_class_t(by_frequency) == [0.3333, 0.3333, 0.0833, 0.1667]
    # ordered by value the published figures do not reproduce: the first class is then
    # 1/3 * (|1/3 - 2/10| + |2/3 - 3/10| + |2/3 - 7/10|) = 0.1778, not 0.3333
    by_value = ga.audit(released, ["qi"], "points", ground="ordered")
    assert per_class_t(by_value) == [0.1778, 0.2667, 0.05, 0.2333]


def test_disease_equal_ground():
    released = table(["a", "b", "c"], "disease", [
        ["gastric ulcer", "gastritis", "stomach cancer"], ["gastritis", "flu", "bronchitis"],
        ["bronchitis", "pneumonia", "stomach cancer"]])
    assert per_class_t(ga.audit(released, ["qi"], "disease")) == [0.4444] * 3


LY_TABLE1 = [  # Liang-Yuan Table 1: zipcode, age, education, disease
    ("98765", "38", "Bachelor", "Viral Infection"), ("98654", "39", "Doctorate", "Heart Disease"),
    ("98543", "32", "Master", "Heart Disease"), ("97654", "65", "Bachelor", "Cancer"),
    ("96689", "45", "Bachelor", "Viral Infection"), ("97427", "33", "Bachelor", "Viral Infection"),
    ("96552", "54", "Bachelor", "Heart Disease"), ("97017", "69", "Doctorate", "Cancer"),
    ("97023", "55", "Master", "Cancer"), ("97009", "62", "Bachelor", "Cancer")]
DIGITS = ["z1", "z2", "z3", "z4", "z5", "a1", "a2", "education"]


def liang_yuan_table():
    """Table 1 with each digit of zipcode and age as its own quasi-identifier (8 QIs)."""
    return pd.DataFrame([list(z) + list(a) + [e, d] for z, a, e, d in LY_TABLE1], columns=DIGITS + ["disease"])


def grouped(groups):
    """Class of each of the 10 rows from 1-based row groups."""
    out = np.empty(10, dtype=np.int64)
    for c, rows in enumerate(groups):
        out[[r - 1 for r in rows]] = c
    return out


def release_of(df, row_class):
    from geoanon.models import Model
    from geoanon.tables import Instance

    inst = Instance(df, DIGITS, Model())
    grouping = inst.grouping_of(row_class)
    cost = inst.cost(grouping)[0]
    row_class, patterns = inst.row_classes(grouping)
    out = df.copy()
    for j, col in enumerate(DIGITS):
        out[col] = df[col].where(patterns[row_class, j] >= 0, "*")
    return out, cost


def test_liang_yuan_table2_costs_54():
    df = liang_yuan_table()
    released, cost = release_of(df, grouped([[1, 2, 3], [4, 5, 6, 7], [8, 9, 10]]))
    assert cost == 54
    report = ga.audit(released, DIGITS, "disease")
    assert report.suppressed_cells == 54 and report.k == 3 and report.l_distinct == 1


def test_liang_yuan_table3_is_2_diverse_but_not_03_close():
    df = liang_yuan_table()
    released, _ = release_of(df, grouped([[1, 2], [3, 5, 8, 9], [4, 6], [7, 10]]))
    released["class"] = grouped([[1, 2], [3, 5, 8, 9], [4, 6], [7, 10]])   # classes 3 and 4 share their QIs
    report = ga.audit(released, DIGITS + ["class"], "disease", l=2, t=0.3)
    assert report.l == 2.0 and report.l_distinct == 2
    assert report.per_class["measures", "t"][0] == pytest.approx(0.4)
    assert report.violations["l"]["classes"] == 0 and report.violations["t"]["classes"] >= 1
    assert not report.ok


def test_liang_yuan_table5_is_01_close():
    df = liang_yuan_table()
    released, _ = release_of(df, grouped([[1, 2, 4], [3, 5, 8, 9], [6, 7, 10]]))
    report = ga.audit(released, DIGITS, "disease", t=0.1)
    assert report.t <= 0.1 + 1e-12 and report.ok


def test_matrix_ground_agrees_with_the_closed_forms():
    rng = np.random.default_rng(7)
    hierarchy = adult_hierarchy("occupation")
    for ground, m in (("equal", 6), ("ordered", 7), (hierarchy, len(hierarchy.leaves))):
        if ground == "equal":
            d = 1.0 - np.eye(m)
        elif ground == "ordered":
            d = np.abs(np.subtract.outer(np.arange(m), np.arange(m))) / (m - 1)
        else:
            d = hierarchy.distance_matrix()
        for _ in range(5):
            p, q = rng.random(m) * (rng.random(m) < 0.7), rng.random(m)
            p[0] += 0.1
            assert ga.emd(p, q, ground=d) == pytest.approx(ga.emd(p, q, ground=ground), abs=1e-9)


def test_hierarchy_reading_and_distances():
    h = adult_hierarchy("marital-status")
    assert h.height == 2 and h.leaves[0] == "Married-civ-spouse"
    d = h.distance_matrix()
    i, j, x = h.leaves.index("Married-civ-spouse"), h.leaves.index("Married-AF-spouse"), h.leaves.index("Divorced")
    assert d[i, j] == 0.5 and d[i, x] == 1.0 and d[i, i] == 0.0
    # all the mass moved between the two "spouse present" leaves costs half
    p, q = np.zeros(len(h.leaves)), np.zeros(len(h.leaves))
    p[i], q[j] = 1, 1
    assert ga.emd(p, q, ground=h) == pytest.approx(0.5)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8), st.integers(1, 40), st.integers(0, 2**32 - 1))
def test_vectorized_class_measures_match_the_definitions(n_values, n_rows, seed):
    rng = np.random.default_rng(seed)
    classes = np.unique(rng.integers(0, max(1, n_rows // 3), n_rows), return_inverse=True)[1].ravel()
    s = rng.integers(0, n_values, n_rows)
    counts = np.zeros((classes.max() + 1, n_values))
    np.add.at(counts, (classes, s), 1)
    q = np.bincount(s, minlength=n_values) / n_rows
    for ground in ("equal", "ordered"):
        got = measure_classes(classes, s, n_values, ground)
        P = counts / counts.sum(axis=1, keepdims=True)
        assert np.allclose(got["t"], emd_rows(P, q, ground))
        assert np.allclose(got["l"], counts.sum(axis=1) / counts.max(axis=1))
        assert (got["l_distinct"] == (counts > 0).sum(axis=1)).all()
        if n_values > 1:
            d = (1.0 - np.eye(n_values)) if ground == "equal" else \
                np.abs(np.subtract.outer(np.arange(n_values), np.arange(n_values))) / (n_values - 1)
            assert got["t"][0] == pytest.approx(ga.emd(P[0], q, ground=d), abs=1e-9)


def test_missing_values_are_values():
    df = pd.DataFrame({"age": [np.nan, np.nan, 30, 30, None], "sex": ["f", "f", "m", "m", "f"]})
    report = ga.audit(df, ["age", "sex"])
    assert report.rows == 5 and report.classes == 2 and report.k == 2


def test_audit_report_serializes_and_lists_violations():
    df = pd.DataFrame({"zip": ["1", "1", "2", "2", "2", "3"], "d": ["a", "b", "a", "a", "b", "a"]})
    report = ga.audit(df, ["zip"], "d", k=2, l=2)
    assert report.violations["k"] == {"level": 2, "classes": 1, "rows": 1,
                                      "examples": [{"zip": "3", "size": 1, "k": 1}]}
    assert report.violations["l"]["classes"] == 2     # zip 2 (a a b: 3/2 < 2) and zip 3
    json.dumps(report)


def test_audit_and_require_take_one_model_or_the_keywords():
    from geoanon.audit import require
    from geoanon.errors import AuditError

    df = pd.DataFrame({"zip": ["1", "1", "2", "2", "2", "3"], "d": ["a", "b", "a", "a", "b", "a"]})
    model = ga.Model(k=2, l=2, sensitive="d", ground="ordered")
    assert ga.audit(df, ["zip"], model=model) == ga.audit(df, ["zip"], "d", k=2, l=2, ground="ordered")
    with pytest.raises(ParameterError, match="not both"):
        ga.audit(df, ["zip"], "d", model=model)
    with pytest.raises(ParameterError, match="not both"):
        require(df, ["zip"], k=2, model=model)
    with pytest.raises(ParameterError, match="must be a geoanon.Model"):
        ga.audit(df, ["zip"], model={"k": 2})
    with pytest.raises(AuditError, match="violates k=2"):
        require(df, ["zip"], model=model)
    assert require(df, ["zip"], model=ga.Model(k=1))["ok"]


def test_errors():
    df = pd.DataFrame({"a": [1, 2], "s": ["x", "y"]})
    with pytest.raises(DataError):
        ga.audit(df, ["b"])
    with pytest.raises(ParameterError):
        ga.audit(df, ["a"], l=2)
    with pytest.raises(ParameterError):
        ga.audit(df, ["a"], "s", t=1.5)
    with pytest.raises(ParameterError):
        ga.audit(df, ["a"], "s", ground="manhattan")
    with pytest.raises(DataError):
        ga.audit(df, ["a"], "s", ground="ordered", order=["x"])
    with pytest.raises(DataError):
        ga.emd([1, 0], [0, 1, 0])
    with pytest.raises(ParameterError):
        ga.emd([1, 0], [0, 1], ground=[[0, 1], [2, 0]])


@pytest.mark.parametrize("levels", [{"l": float("nan")}, {"l": float("inf")}, {"l": 0.5}, {"t": float("nan")},
                                    {"t": float("inf")}, {"t": -0.1}, {"k": 2.5}, {"k": True}, {"l_distinct": 1.5},
                                    {"l_distinct": 0}, {"l": "2"}])
def test_levels_must_be_finite_numbers_in_range(levels):
    df = pd.DataFrame({"a": [1, 1, 2, 2], "s": ["x", "y", "x", "y"]})
    with pytest.raises(ParameterError):
        ga.audit(df, ["a"], "s", **levels)


def test_audit_refuses_what_it_cannot_measure():
    from geoanon import DuplicateColumnError, InfeasibleError

    df = pd.DataFrame({"a": [1, 1, 2, 2], "s": ["x", "y", "x", "y"]})
    with pytest.raises(InfeasibleError, match=r"k=5 is larger than the table \(4 rows\)"):
        ga.audit(df, ["a"], k=5)
    with pytest.raises(ParameterError, match="listed twice"):
        ga.audit(df, ["a", "a"])
    with pytest.raises(ParameterError, match="cannot also be a quasi-identifier"):
        ga.audit(df, ["a", "s"], "s")
    twins = pd.DataFrame([[1, 2, "x"]] * 4, columns=["a", "a", "s"])
    with pytest.raises(DuplicateColumnError):
        ga.audit(twins, ["a"])
    with pytest.raises(TypeError):
        ga.audit(twins, ["s"])


def test_the_audit_keeps_values_of_different_kinds_apart():
    # True, 1 and 1.0 are published as three different cells: three classes, not one of three rows
    df = pd.DataFrame({"v": pd.Series([True, 1, 1.0], dtype=object)})
    assert ga.audit(df, ["v"]).classes == 3
    assert ga.audit(pd.DataFrame({"v": [None, np.nan, None]}), ["v"]).classes == 1


def test_reports_are_strict_json():
    from geoanon.report.release import report_json

    text = report_json({"a": float("nan"), "b": [np.float64("inf"), np.int64(3)], "c": {"d": np.bool_(True)}})
    assert json.loads(text) == {"a": None, "b": [None, 3], "c": {"d": True}}
    assert "NaN" not in text and "Infinity" not in text


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 9)), min_size=2, max_size=7),
       st.integers(0, 10_000))
def test_emd_agrees_with_the_checkers_own(pairs, seed):
    p, q = [a for a, _ in pairs], [b for _, b in pairs]
    p[0] += 1
    q[-1] += 1
    assert ga.emd(p, q) == pytest.approx(emd_equal(p, q), abs=1e-9)
    assert ga.emd(p, q, ground="ordered") == pytest.approx(emd_ordered(p, q), abs=1e-9)
    rng = np.random.default_rng(seed)
    points = rng.uniform(0, 1, (len(p), 2))          # a metric: distances between points
    d = np.sqrt(((points[:, None] - points[None]) ** 2).sum(-1))
    assert ga.emd(p, q, ground=d) == pytest.approx(emd_matrix(p, q, d.tolist()), abs=1e-7)


def test_emd_accepts_mappings_and_series():
    import pandas as pd

    assert ga.emd({"a": 1, "b": 1}, {"a": 2}) == ga.emd([1, 1], [1, 0]) == 0.5
    assert ga.emd(pd.Series({3: 1, 1: 1}), {2: 1}, ground="ordered") == ga.emd([1, 0, 1], [0, 1, 0], ground="ordered")
    h = ga.Hierarchy.from_frame(pd.DataFrame([["flu", "resp", "*"], ["cold", "resp", "*"], ["ulcer", "dig", "*"]]))
    assert ga.emd({"ulcer": 1}, {"flu": 1, "cold": 1}, ground=h) == ga.emd([0, 0, 1], [1, 1, 0], ground=h)
    with pytest.raises(ga.DataError, match="not a leaf"):
        ga.emd({"gout": 1}, {"flu": 1}, ground=h)
    with pytest.raises(ga.DataError, match="both as vectors or both as mappings"):
        ga.emd({"a": 1}, [1])
    with pytest.raises(ga.DataError, match="matrix ground"):
        ga.emd({"a": 1}, {"b": 1}, ground=[[0, 1], [1, 0]])


@pytest.mark.parametrize("rows, message", [
    ([["a", "x", "a", "*"], ["b", "x", "y", "*"]], "a hierarchy row lists 'a' twice"),
    ([["a", "x", "*"], ["x", "y", "*"]], "'x' is a leaf of the hierarchy and also a node above other leaves"),
    ([["a", "x", "p", "*"], ["b", "x", "q", "*"]], "'x' has two parents in the hierarchy ('p' and 'q')"),
    ([["a", "", "*"], ["b", "x", "*"]], "a hierarchy row has an empty value (the row of leaf 'a')"),
    ([["a", "x", "*"], ["a", "y", "*"]], "a hierarchy lists a leaf twice"),
    ([["a", "x", "*"], ["b", "x", "+"]], "a hierarchy must end in one root"),
])
def test_malformed_hierarchies_are_refused(rows, message, tmp_path):
    with pytest.raises(ga.DataError, match=re.escape(message)):
        ga.Hierarchy.from_frame(pd.DataFrame(rows))
    path = tmp_path / "h.csv"
    path.write_text("\n".join(";".join(r) for r in rows) + "\n")
    with pytest.raises(ga.DataError, match=f"^the hierarchy {re.escape(str(path))}: " + re.escape(message)):
        ga.Hierarchy.read_csv(path)
    good = ga.Hierarchy.from_frame(pd.DataFrame([["a", "x", "*"], ["b", "x", "*"], ["c", "y", "*"]]))
    assert good.leaves == ["a", "b", "c"]


def test_journalist_and_marketer_risk_against_a_population():
    population = pd.DataFrame({"a": ["x"] * 10 + ["y"] * 5 + ["z"] * 5})
    sample = population.iloc[[0, 1, 2, 10, 11, 15, 16, 17]]          # classes x: 3, y: 2, z: 3 of 10, 5, 5
    risk = ga.audit(sample, ["a"], population=population)["risk"]
    assert risk["prosecutor"] == {"max": 0.5, "mean": 3 / 8}
    assert risk["journalist"]["max"] == pytest.approx(1 / 5)
    assert risk["journalist"]["mean"] == pytest.approx((3 / 10 + 2 / 5 + 3 / 5) / 8)
    assert risk["marketer"] == pytest.approx((3 / 10 + 2 / 5 + 3 / 5) / 8)
    assert ga.audit(sample, ["a"])["risk"] == {"prosecutor": {"max": 0.5, "mean": 0.375}, "marketer": 0.375}
    with pytest.raises(DataError, match="must hold every released row"):
        ga.audit(sample, ["a"], population=population.iloc[:12])


def test_the_audit_command_takes_a_population(tmp_path, cli):
    population = pd.DataFrame({"a": ["x"] * 10 + ["y"] * 5 + ["z"] * 5})
    population.to_csv(tmp_path / "pop.csv", index=False)
    population.iloc[[0, 1, 2, 10, 11, 15, 16, 17]].to_csv(tmp_path / "s.csv", index=False)
    code, out, err = cli("audit", tmp_path / "s.csv", "--qi", "a", "--population", tmp_path / "pop.csv")
    assert code == 0, err
    assert "journalist 20.00% at most, marketer 16.25%" in out
