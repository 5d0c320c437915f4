"""The suppression model: Theorem 10, the lattice heuristic, suppress()."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geoanon as ga
from geoanon.errors import DataError, InfeasibleError, ParameterError, VerificationError
from geoanon.models import Model
from geoanon.tables import Grouping, Instance, k_lower_bound, m_approximation

from checkers import brute_force_suppression, check_suppression, emd_equal, made_diverse
from shipped import ADULT_QI, adult_keep



@st.composite
def small_tables(draw):
    n = draw(st.integers(2, 7))
    m = draw(st.integers(1, 3))
    alphabet = draw(st.integers(1, 3))
    rows = [tuple(draw(st.integers(0, alphabet - 1)) for _ in range(m)) for _ in range(n)]
    sensitive = [draw(st.sampled_from("xyz")) for _ in range(n)]
    df = pd.DataFrame(rows, columns=[f"q{j}" for j in range(m)]).astype(str)
    df["s"] = sensitive
    return df


def qi_of(df):
    return [c for c in df.columns if c.startswith("q")]


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(small_tables(), st.integers(1, 3))
def test_k_anonymity_against_brute_force(df, k):
    qi = qi_of(df)
    k = min(k, len(df))
    optimum = brute_force_suppression(list(df[qi].itertuples(index=False)), k)
    inst = Instance(df, qi, Model(k=k))
    bound = inst.lower_bound()
    assert bound <= optimum
    approx_cost, _ = inst.cost(m_approximation(inst.type_size, k))
    assert approx_cost <= len(qi) * bound          # Theorem 10, certified by its own bound
    assert approx_cost <= len(qi) * optimum
    for method in ("lattice", "approx"):
        release = ga.suppress(df, qi, k=k, method=method, keep=["s"])
        cost = check_suppression(df, release.in_input_order(), qi, k)
        assert cost == release.report["cost"] >= optimum
        assert cost <= len(qi) * optimum
        assert release.report["optimal"] == (cost == bound)


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(small_tables(), st.sampled_from([("l", 2), ("l", 1.5), ("t", 0.3), ("t", 0.5), ("l_distinct", 2)]))
def test_l_and_t_against_brute_force(df, model):
    qi = qi_of(df)
    name, level = model
    kwargs = {name: level}
    s = df["s"].tolist()
    try:
        release = ga.suppress(df, qi, sensitive="s", **kwargs)
    except InfeasibleError:
        whole = ga.audit(df.assign(one=0), ["one"], "s")
        assert (name == "l" and whole.l < level) or (name == "l_distinct" and whole.l_distinct < level)
        return
    cost = check_suppression(df, release.in_input_order(), qi, 1, sensitive="s", emd=emd_equal, **kwargs)
    assert cost == release.report["cost"] >= release.report["lower_bound"]
    optimum = brute_force_suppression(list(df[qi].itertuples(index=False)), 1, s, emd=emd_equal, **kwargs)
    assert optimum is not None and release.report["lower_bound"] <= optimum <= cost


def test_theorem_10_cases_and_bounds():
    # Case 1: small types together reach k
    sizes = np.array([1, 1, 1, 5])
    assert k_lower_bound(sizes, 3) == 3
    # Case 2: small types (2 rows) below k=4, large types spare 1 + 2 rows
    assert k_lower_bound(np.array([1, 1, 5, 6]), 4) == 4
    classes = m_approximation(np.array([1, 1, 5, 6]), 4)
    classes.verify([1, 1, 5, 6], k=4)
    assert classes.sizes().min() >= 4 and classes.n_classes == 3
    # Case 3: large types cannot spare enough: the small types join the smallest large type
    assert k_lower_bound(np.array([1, 4, 5]), 4) == 1 + 4
    classes = m_approximation(np.array([1, 4, 5]), 4)
    assert sorted(classes.sizes().tolist()) == [5, 5]
    assert k_lower_bound(np.array([4, 5]), 4) == 0




QI = ADULT_QI


def kept(sensitive=None):
    """Adult's columns besides QI and the sensitive one: published as they are."""
    return adult_keep(QI, sensitive)


@pytest.mark.slow
@pytest.mark.parametrize("kwargs", [dict(k=10), dict(k=2, l=2), dict(l=3), dict(l_distinct=3), dict(t=0.2),
                                    dict(k=5, t=0.3)])
def test_adult_releases_meet_the_model(kwargs, adult_df):
    df = adult_df.head(3000)
    sensitive = "occupation" if set(kwargs) - {"k"} else None
    release = ga.suppress(df, QI, sensitive=sensitive, method="lattice", keep=kept(sensitive), **kwargs)
    report = release.report
    assert report["audit"]["ok"] and report["audit"]["k"] >= kwargs.get("k", 1)
    assert report["lower_bound"] <= report["cost"] < len(df) * len(QI)
    assert report["audit"]["suppressed_cells"] == report["cost"]
    check_suppression(df, release.in_input_order(), QI, kwargs.get("k", 1), sensitive=sensitive, emd=emd_equal,
                      **{n: v for n, v in kwargs.items() if n != "k"})


@pytest.mark.slow
def test_k_only_never_costs_more_than_theorem_10(adult_df):
    df = adult_df
    for k in (5, 50):
        lattice = ga.suppress(df, QI, k=k, method="lattice", keep=kept()).report
        approx = ga.suppress(df, QI, k=k, method="approx", keep=kept()).report
        assert lattice["cost"] <= approx["cost"] <= len(QI) * lattice["lower_bound"]


@pytest.mark.slow
def test_deterministic_and_rows_kept(adult_df):
    df = adult_df.head(2000)
    for method, model, rows in (("lattice", {"t": 0.3, "sensitive": "occupation"}, 2000), ("auto", {}, 600)):
        a = ga.suppress(df.head(rows), QI, k=7, method=method, keep=kept(model.get("sensitive")), **model)
        b = ga.suppress(df.head(rows), QI, k=7, method=method, keep=kept(model.get("sensitive")), **model)
        assert a.in_input_order().equals(b.in_input_order())
        assert a.in_input_order().drop(columns=QI + ["class_id"]).equals(df.head(rows).drop(columns=QI))


def test_missing_values_form_classes():
    df = pd.DataFrame({"age": [np.nan] * 3 + [30.0] * 3, "sex": ["f"] * 6})
    release = ga.suppress(df, ["age", "sex"], k=3)
    assert release.report["cost"] == 0 and release.report["classes"] == 2


def test_errors():
    df = pd.DataFrame({"a": ["1", "2", "3"], "s": ["x", "x", "y"]})
    with pytest.raises(InfeasibleError, match="larger than the table"):
        ga.suppress(df, ["a"], k=4, keep=["s"])
    with pytest.raises(InfeasibleError, match="fills 66.7%"):
        ga.suppress(df, ["a"], l=2, sensitive="s")
    with pytest.raises(InfeasibleError, match="only 2 distinct"):
        ga.suppress(df, ["a"], l_distinct=3, sensitive="s")
    with pytest.raises(ParameterError, match="k must be an integer >= 1"):
        ga.suppress(df, ["a"], k=0, keep=["s"])
    with pytest.raises(ParameterError, match="k-anonymity only"):
        ga.suppress(df, ["a"], k=2, l=2, sensitive="s", method="approx")
    with pytest.raises(ParameterError, match="cannot also be a quasi-identifier"):
        ga.suppress(df, ["a", "s"], k=2, t=0.2, sensitive="s")
    with pytest.raises(DataError, match="no column 'b'"):
        ga.suppress(df, ["b"], k=2, keep=["a", "s"])
    with pytest.raises(DataError, match="need a sensitive column"):
        ga.suppress(df, ["a"], t=0.2, keep=["s"])
    with pytest.raises(DataError, match="no rows"):
        ga.suppress(df.head(0), ["a"], k=1, keep=["s"])


def test_a_suppression_release_has_no_map():
    release = ga.suppress(pd.DataFrame({"a": ["1", "1", "2", "2"]}), ["a"], k=2)
    with pytest.raises(ParameterError, match="no map"):
        release.preview()


def test_lower_bound_counts_rows_outside_the_largest_diverse_part_of_each_type():
    # one type, diagnoses a a a a a b c: at most 4 rows (a a b c) can be a 2-diverse class
    df = pd.DataFrame({"q": ["x"] * 7, "s": list("aaaaabc")})
    inst = Instance(df, ["q"], Model(l=2, sensitive="s"))
    assert inst.lower_bound() == 3
    assert Instance(df, ["q"], Model(k=5, l=2, sensitive="s")).lower_bound() == 7   # 4 rows < k: none free
    assert Instance(df, ["q"], Model(l_distinct=3, sensitive="s")).lower_bound() == 0


def _largest_diverse_part(counts, k, l):
    """Brute force: the most rows of a count vector whose part has >= k rows and no value above 1/l of it."""
    import itertools

    best = 0
    for part in itertools.product(*[range(c + 1) for c in counts]):
        size = sum(part)
        if size >= k and size and max(part) * l <= size + 1e-9:
            best = max(best, size)
    return best


@settings(max_examples=80, deadline=None)
@given(st.integers(2, 40), st.integers(1, 4), st.sampled_from([1.5, 2, 3]), st.integers(0, 10_000))
def test_free_parts_are_the_largest_parts_that_meet_the_model(n, k, l, seed):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"q0": rng.choice(list("ab"), n), "q1": rng.choice(list("xyz"), n),
                       "s": rng.choice(list("uvw"), n, p=[0.6, 0.3, 0.1])})
    inst = Instance(df, ["q0", "q1"], Model(k=k, l=l, sensitive="s"))
    split = inst.with_free_parts()
    assert split.n == inst.n
    types, values, rows = inst.entries
    split_types, split_values, split_rows = split.entries
    base = np.arange(types.size) if split.origin is None else split.origin[0]
    assert (split_values == values[base]).all()
    Grouping.of(base, np.zeros(base.size) if split.origin is None else split.origin[1], split_rows,
                np.arange(base.size)).verify(rows)                     # the parts tile every entry
    original = {}
    for t in range(split.type_size.size):
        old = set(types[base[split_types == t]].tolist())
        assert len(old) == 1                                          # a new type lies inside one old type
        assert (split.type_codes[t] == inst.type_codes[min(old)]).all()
        part = np.bincount(split_values[split_types == t], weights=split_rows[split_types == t],
                           minlength=inst.n_values)
        original.setdefault(min(old), []).append(part)
    for old, parts in original.items():
        counts = np.bincount(values[types == old], weights=rows[types == old], minlength=inst.n_values)
        best = _largest_diverse_part(sorted(counts.astype(int).tolist(), reverse=True), k, l)
        kept = [p for p in parts if p.sum() >= k and p.max() * l <= p.sum() + 1e-9]
        assert max((int(p.sum()) for p in kept), default=0) == best, (counts, [p.sum() for p in parts])
        assert len(parts) <= 2


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(small_tables(), st.sampled_from([1.5, 2]), st.integers(1, 2))
def test_lattice_with_l_against_brute_force(df, l, k):
    qi = qi_of(df)
    df["s"] = made_diverse(df["s"], l=l, choices="xyz")       # a table that meets l as a whole
    release = ga.suppress(df, qi, k=min(k, len(df)), l=l, sensitive="s", method="lattice")
    cost = check_suppression(df, release.in_input_order(), qi, min(k, len(df)), sensitive="s", l=l)
    optimum = brute_force_suppression(list(df[qi].itertuples(index=False)), min(k, len(df)),
                                      df["s"].tolist(), l=l)
    assert release.report["lower_bound"] <= optimum <= cost == release.report["cost"]


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(st.integers(10, 300), st.integers(1, 6), st.sampled_from([1.5, 2, 3]), st.booleans(), st.integers(0, 10_000))
def test_free_part_repair_releases_meet_the_model(n, k, l, distinct, seed):
    from geoanon.tables.repair import free_part_repair

    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"q0": rng.choice(list("ab"), n), "q1": rng.choice(list("xyzw"), n, p=[0.5, 0.3, 0.15, 0.05]),
                       "q2": rng.choice(list("pq"), n), "s": rng.choice(list("uvwxy"), n, p=[0.4, 0.3, 0.15, 0.1, 0.05])})
    df["s"] = made_diverse(df["s"], l=l, l_distinct=2 if distinct else None, choices="uvwxy")
    model = Model(k=min(k, n), l=l, l_distinct=2 if distinct else None, sensitive="s")
    inst = Instance(df, ["q0", "q1", "q2"], model)
    inst.check_feasible()
    grouping = free_part_repair(inst)
    grouping.verify(inst.entries[2], model.k)
    released = df.copy()
    row_class, patterns = inst.row_classes(grouping)
    cost = inst.cost(grouping)[0]
    for j, col in enumerate(["q0", "q1", "q2"]):
        released[col] = np.where(patterns[row_class, j] < 0, "*", df[col])
    released["class_id"] = row_class
    assert check_suppression(df, released, ["q0", "q1", "q2"], min(k, n), sensitive="s", l=l,
                             l_distinct=2 if distinct else None) == cost >= inst.lower_bound()


@settings(max_examples=80, deadline=None)
@given(st.lists(st.lists(st.integers(0, 5), min_size=3, max_size=3), min_size=1, max_size=6),
       st.integers(1, 6), st.sampled_from([None, 1.5, 2, 3]), st.sampled_from([None, 2, 3]))
def test_a_single_row_pull_keeps_the_free_part_meeting_the_model(parts, k, l, distinct):
    """The repair pulls one row of value v out of a free part only if what is
    left meets k, l and l_distinct (or nothing is left): checked against the
    counts after removing the row."""
    from geoanon.tables.repair import _Repair

    search = _Repair.__new__(_Repair)
    search.lv = Model(k=k, l=l, l_distinct=distinct, sensitive="s")
    parts = np.array(parts, dtype=np.int64)
    spares = search._spares_one(parts)
    for i, part in enumerate(parts):
        for v in range(part.size):
            left = part.copy()
            left[v] -= 1
            size = int(left.sum())
            meets = size >= k and (l is None or size >= l * left.max() - 1e-9) and \
                (distinct is None or int((left > 0).sum()) >= distinct)
            assert spares[i, v] == (part[v] > 0 and (size == 0 or meets))


@pytest.mark.slow
@pytest.mark.parametrize("l, optimum", [(2, 276), (3, 1126)])
def test_the_lattice_stays_within_the_issue_target_on_adult(l, optimum, adult_df):
    """Issue 12's target: on Adult (sex, race, marital-status, workclass;
    sensitive occupation) the lattice pays at most 1.5x the optimum that
    bench_exact proves (a dual bound equal to the cost): 276 stars for l = 2
    and 1,126 for l = 3. The free-part repair's single-row pulls brought l = 3
    from 1,823 to 1,360."""
    df = adult_df
    qi = ADULT_QI
    release = ga.suppress(df, qi, l=l, sensitive="occupation", method="lattice", keep=kept("occupation"))
    cost = check_suppression(df, release.in_input_order(), qi, 1, sensitive="occupation", l=l)
    assert cost == release.report["cost"] <= 1.5 * optimum


def test_the_lattice_skips_the_free_part_repair_when_no_type_has_a_free_part(monkeypatch):
    """Types of one row each have no part that meets l alone: the repair would
    only climb again (and on many types slowly), so the lattice keeps its climb."""
    import importlib

    lattice_module = importlib.import_module("geoanon.tables.lattice")

    def forbidden(inst):
        raise AssertionError("free_part_repair ran although no type has a free part")

    rng = np.random.default_rng(3)
    df = pd.DataFrame({"q0": np.arange(60), "q1": rng.choice(list("abc"), 60), "s": rng.choice(list("uvw"), 60)})
    monkeypatch.setattr(lattice_module, "free_part_repair", forbidden)
    release = ga.suppress(df, ["q0", "q1"], k=3, l=2, sensitive="s", method="lattice")
    assert check_suppression(df, release.in_input_order(), ["q0", "q1"], 3, sensitive="s", l=2) == release.report["cost"]
    df["q0"] = 0          # now types are large and have free parts: the repair runs (and is forbidden)
    with pytest.raises(AssertionError, match="free_part_repair ran"):
        ga.suppress(df, ["q0", "q1"], k=3, l=2, sensitive="s", method="lattice")


def test_grouping_verify_refuses_a_light_class_a_gap_and_a_row_twice():
    rows = np.array([3, 2])
    good = Grouping.of([0, 0, 1], [0, 2, 0], [2, 1, 2], [0, 1, 1])
    assert good.verify(rows, k=2) is good
    with pytest.raises(VerificationError, match="fewer than k=4"):
        good.verify(rows, k=4)
    with pytest.raises(VerificationError, match="exactly one class"):
        Grouping.of([0, 0, 1], [0, 1, 0], [2, 1, 2], [0, 1, 1]).verify(rows)
    with pytest.raises(VerificationError, match="not contiguous"):
        Grouping(np.array([0, 1]), np.array([0, 0]), np.array([3, 2]), np.array([0, 2])).verify(rows)
