"""Optimal solvers under the suppression model: the exact recursion (Theorem 8),
Theorem 9's program with kernelization, the simplex matching special cases,
and the choice made by method="auto"."""
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geoanon as ga
from geoanon.errors import ParameterError
from geoanon.models import Model
from geoanon.tables import Instance
from geoanon.tables.exact import exact_small
from geoanon.tables import matching
from geoanon.tables.matching import matching_program, simplex_condition_holds, simplex_matching
from geoanon.tables.milp import kernelize, optimal_suppression

from checkers import brute_force_suppression, check_suppression, emd_equal, emd_ordered, made_diverse
from shipped import ADULT_QI, adult_keep

MODELS = [dict(k=1), dict(k=2), dict(k=3), dict(l=2), dict(l=1.5), dict(l_distinct=2), dict(t=0.3),
          dict(k=2, t=0.4), dict(t=0.25, ground="ordered")]


@st.composite
def small_tables(draw, max_rows=9):
    n = draw(st.integers(2, max_rows))
    m = draw(st.integers(1, 3))
    alphabet = draw(st.integers(1, 3))
    rows = [[str(draw(st.integers(0, alphabet - 1))) for _ in range(m)] for _ in range(n)]
    df = pd.DataFrame(rows, columns=[f"q{j}" for j in range(m)])
    df["s"] = [draw(st.sampled_from(["1", "2", "3"])) for _ in range(n)]
    return df


def feasible(df, model):
    """The drawn table and model made releasable: k at most the rows, the
    sensitive values spread until the whole table meets l and l_distinct."""
    model = dict(model)
    if "k" in model:
        model["k"] = min(model["k"], len(df))
    df = df.assign(s=made_diverse(df["s"], l=model.get("l"), l_distinct=model.get("l_distinct"), choices="123"))
    return df, model


def instance(df, model):
    model = dict(model)
    ground = model.pop("ground", "equal")
    sensitive = "s" if set(model) - {"k"} else None
    inst = Instance(df, [c for c in df.columns if c != "s"], Model(**model, sensitive=sensitive, ground=ground))
    return inst, model, sensitive, ground


def brute(df, model, sensitive, ground):
    qi = [c for c in df.columns if c != "s"]
    ordered = ground == "ordered"
    return brute_force_suppression(list(df[qi].itertuples(index=False)), model.get("k", 1),
                                   df["s"].tolist() if sensitive else None, l=model.get("l"), t=model.get("t"),
                                   l_distinct=model.get("l_distinct"), emd=emd_ordered if ordered else emd_equal,
                                   order=sorted(set(df["s"])) if ordered else None)


@pytest.mark.slow
@settings(max_examples=120, deadline=None)
@given(small_tables(), st.sampled_from(MODELS))
def test_exact_solvers_agree_with_brute_force(df, model):
    df, model = feasible(df, model)
    inst, levels, sensitive, ground = instance(df, model)
    inst.check_feasible()
    exact = inst.cost(exact_small(inst))[0]
    program = optimal_suppression(inst, time_limit=30)
    assert program.optimal and inst.cost(program.grouping)[0] == exact == program.objective
    assert np.ceil(program.bound - 1e-6) >= program.objective        # the certificate: HiGHS' own dual bound
    assert exact == brute(df, levels, sensitive, ground)
    assert inst.lower_bound() <= exact
    if ground == "ordered":     # ga.suppress below would need the order too
        return
    release = ga.suppress(df, [c for c in df.columns if c != "s"], sensitive=sensitive, **levels,
                          keep=["s"] if sensitive is None else None)
    assert release.report["solver"] == "exact" and release.report["optimal"]
    assert check_suppression(df, release.in_input_order(), [c for c in df.columns if c != "s"], levels.get("k", 1),
                             sensitive=sensitive, l=levels.get("l"), l_distinct=levels.get("l_distinct"),
                             t=levels.get("t"), emd=emd_equal) == exact


@pytest.mark.slow
@settings(max_examples=60, deadline=None)
@given(small_tables(max_rows=12), st.sampled_from([dict(k=2), dict(l=2)]))
def test_simplex_matching_is_optimal(df, model):
    df, model = feasible(df, model)
    inst, *_ = instance(df, model)
    inst.check_feasible()
    result = matching_program(inst)
    grouping = result.grouping
    assert result.optimal and inst.cost(grouping)[0] == inst.cost(exact_small(inst))[0] == result.objective
    assert np.ceil(result.bound - 1e-6) >= result.objective       # the certificate: HiGHS' own dual bound
    assert simplex_matching(inst)[1]
    assert grouping.sizes().min() >= 2
    types, _, rows = inst.entries
    assert simplex_condition_holds(inst.type_codes[types[np.repeat(np.arange(rows.size), rows)]])


def twelve_rows():
    """12 distinct rows, 4 attributes: 2-anonymity costs 16 stars, over the instance's own lower bound of 12."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame(rng.integers(0, 3, (12, 4)).astype(str), columns=list("abcd"))
    return Instance(df, list("abcd"), Model(k=2))


def stopped_with_a_gap(real, status, says_optimal):
    """solve_highs as if HiGHS stopped with its answer, a dual bound 1.5 under it, and this status."""
    def solve(*args, **kwargs):
        x, objective, *_ = real(*args, **kwargs)
        return x, objective, objective - 1.5, says_optimal, status
    return solve


def test_a_matching_is_optimal_only_when_its_dual_bound_meets_its_cost(monkeypatch):
    inst = twelve_rows()
    assert inst.lower_bound() == 12
    result = matching_program(inst)
    assert result.optimal and result.objective == 16 and np.ceil(result.bound - 1e-6) == 16
    for status, says_optimal in (("Optimal", True), ("Time limit reached", False)):
        monkeypatch.setattr(matching, "solve_highs", stopped_with_a_gap(matching.solve_highs, status, says_optimal))
        stopped = matching_program(inst)
        assert stopped.objective == 16 and stopped.bound == 14.5 and stopped.status == status
        assert not stopped.optimal and not simplex_matching(inst)[1]
        monkeypatch.undo()


def test_a_matching_with_no_solution_in_time_says_the_time_limit():
    with pytest.raises(ParameterError, match=r"^the matching solver found no solution within the time limit "
                                             r"of 0 s$"):
        matching_program(twelve_rows(), time_limit=0)


@pytest.mark.slow
def test_two_anonymity_on_60_distinct_rows_with_8_attributes():
    rng = np.random.default_rng(4)
    df = pd.DataFrame(rng.integers(0, 3, (200, 8)).astype(str)).drop_duplicates().head(60)
    df.columns = [f"a{j}" for j in range(8)]
    inst = Instance(df, list(df.columns), Model(k=2))
    grouping, optimal = simplex_matching(inst)
    program = optimal_suppression(inst, time_limit=60)
    assert optimal and program.optimal and inst.cost(grouping)[0] == program.objective


# adult's columns besides the quasi-identifiers sex, race, marital-status and workclass: published as they are
ADULT_OTHERS = adult_keep(ADULT_QI)


@pytest.mark.slow
def test_a_proven_optimum_reports_plain_json(adult_df):
    # the certificate is computed with numpy; the report must still serialize (it did not: numpy.bool_)
    import json

    release = ga.suppress(adult_df.head(2000), ADULT_QI, k=5, method="milp",
                          keep=ADULT_OTHERS)
    assert release.report["optimal"] is True
    assert json.loads(json.dumps(release.report.to_dict()))["optimal"] is True


def test_kernel_keeps_the_optimum():
    # one heavy type (T = 2 k^2 2^m = 16 for k = 2, m = 1) and light ones
    df = pd.DataFrame({"a": ["x"] * 40 + ["y", "z", "w"]})
    inst = Instance(df, ["a"], Model(k=2))
    kept = kernelize(inst)
    assert kept.max() <= 16 and ((inst.type_size - kept) % 2 == 0).all()
    program = optimal_suppression(inst, time_limit=30)
    assert program.optimal and program.kernel_rows < len(df)
    # y, z, w together (3 stars) beat y, z and w with a borrowed x (2 + 2)
    assert inst.cost(program.grouping)[0] == 3
    assert program.grouping.sizes().min() >= 2


@pytest.mark.slow
def test_auto_chooses_by_size():
    rng = np.random.default_rng(5)
    small = pd.DataFrame(rng.integers(0, 2, (12, 3)).astype(str), columns=list("abc"))
    assert ga.suppress(small, list("abc"), k=3).report["solver"] == "exact"
    medium = pd.DataFrame(rng.integers(0, 2, (40, 3)).astype(str), columns=list("abc"))
    assert ga.suppress(medium, list("abc"), k=2).report["solver"] == "matching"
    report = ga.suppress(medium, list("abc"), k=4).report
    assert report["solver"] == "milp" and report["optimal"] and report["program"]["variables"] > 0
    wide = pd.DataFrame(rng.integers(0, 9, (3000, 13)).astype(str), columns=[f"c{j}" for j in range(13)])
    assert ga.suppress(wide, list(wide.columns), k=3).report["solver"] == "lattice"


def test_explicit_methods_refuse_what_they_cannot_do():
    df = pd.DataFrame(np.arange(40).reshape(20, 2).astype(str), columns=["a", "b"])
    with pytest.raises(ParameterError, match="at most 16 rows"):
        ga.suppress(df, ["a", "b"], k=2, method="exact")
    with pytest.raises(ParameterError, match="2-anonymity or 2-diversity"):
        ga.suppress(df, ["a", "b"], k=3, method="matching")


@pytest.mark.slow
def test_a_start_solution_is_taken_and_never_worsened(adult_df):
    df = adult_df.head(3000)
    inst = Instance(df, ADULT_QI, Model(k=5))
    start = ga.suppress(df, ADULT_QI, k=5, method="lattice",
                        keep=ADULT_OTHERS).in_input_order()["class_id"]
    program = optimal_suppression(inst, time_limit=30, start=inst.grouping_of(start.to_numpy()))
    assert program.optimal and program.objective <= inst.cost(inst.grouping_of(start.to_numpy()))[0]
    assert program.objective == optimal_suppression(inst, time_limit=30).objective


def test_a_program_stopped_early_still_releases_the_heuristic(adult_df):
    df = adult_df.head(2000)
    release = ga.suppress(df, ADULT_QI, sensitive="age", t=0.1,
                          ground="ordered", method="milp", time_limit=0.2,
                          keep=[c for c in ADULT_OTHERS if c != "age"])
    report = release.report
    assert report["audit"]["ok"] and not report["optimal"]
    assert report["cost"] <= report["costs_tried"]["lattice"] and 0 <= report["lower_bound"] <= report["cost"]
