"""suppress under its time limit and Ctrl-C: the deadline counts from the start,
programs too large or too slow to build are skipped, every HiGHS solve stops
on KeyboardInterrupt with no solver left running; formula-safe cells; roles."""
import importlib
import math
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pandas as pd
import pytest

import geoanon as ga
import geoanon.tables.milp as milp
from geoanon._milp import ConstraintRows, certified, solve_highs
from geoanon.datasets import adult
from geoanon.errors import DuplicateColumnError, InfeasibleError, ParameterError
from geoanon.models import Model
from geoanon.tables import Instance

from checkers import check_suppression
from shipped import ADULT_QI

QI = ADULT_QI
suppress_module = importlib.import_module("geoanon.tables.solve")     # where the job's solvers are called


@pytest.mark.parametrize("value", [math.nan, math.inf, -math.inf, -1, 0, True, np.bool_(True), "5", None])
def test_time_limit_must_be_a_positive_finite_number(value):
    df = pd.DataFrame({"a": ["1", "1", "2", "2"]})
    with pytest.raises(ParameterError, match="^time_limit must be a positive number of seconds, got ") as error:
        ga.suppress(df, ["a"], k=2, time_limit=value)
    assert "np." not in str(error.value) and "\n" not in str(error.value)
    assert ga.suppress(df, ["a"], k=2, time_limit=np.float32(0.5)).report["cost"] == 0


def adult_instance(rows=2000, **model):
    df = adult().head(rows).astype({"age": "int64"})
    sensitive = model.pop("sensitive", None)
    ground = model.pop("ground", "equal")
    return Instance(df, QI, Model(**model, sensitive=sensitive, ground=ground))


@pytest.mark.parametrize("model", [dict(k=3), dict(l=2, sensitive="occupation"),
                                   dict(k=2, l_distinct=2, sensitive="occupation"),
                                   dict(t=0.3, sensitive="occupation"),
                                   dict(t=0.3, sensitive="age", ground="ordered"),
                                   dict(k=2, l=2, l_distinct=3, t=0.5, sensitive="occupation", ground="ordered")])
def test_the_size_estimate_is_the_built_program(model, monkeypatch):
    seen = []
    real = milp._check_size
    monkeypatch.setattr(milp, "_check_size", lambda size, deadline: seen.append(size) or real(size, deadline))
    monkeypatch.setattr(milp, "solve_highs", lambda *args, **kwargs: (None, None, -np.inf, False, "not solved"))
    result = milp.optimal_suppression(adult_instance(**model), time_limit=60)
    # the program's two estimates (x alone, then all), and for t those of the relaxation it starts from
    assert result.skipped is None and len(seen) == (4 if "t" in model else 2)
    estimate = seen[1]
    assert (estimate.variables, estimate.integer_variables, estimate.constraints, estimate.nonzeros) == \
        (result.variables, result.integer_variables, result.constraints, result.nonzeros)


def test_a_program_over_the_memory_budget_is_skipped_and_the_heuristic_released(monkeypatch, adult_df):
    monkeypatch.setattr(milp, "PROGRAM_BYTES", 10**6)
    df = adult_df.head(1500)
    release = ga.suppress(df, QI, k=5, method="milp", keep=[c for c in df.columns if c not in QI])
    report = release.report
    assert set(report["program"]) == {"skipped"} and "GiB budget" in report["program"]["skipped"]
    assert report["method"] in ("lattice", "approx") and not report["optimal"]
    assert report["audit"]["ok"] and report["warnings"] is release.warnings
    assert len(release.warnings) == 1 and release.warnings[0].startswith("Theorem 9's program was skipped: its ")
    assert check_suppression(df, release.in_input_order(), QI, 5) == report["cost"]


def test_a_program_too_slow_to_build_in_the_time_left_is_skipped(monkeypatch):
    monkeypatch.setattr(milp, "BUILT_NONZEROS_PER_SECOND", 1.0)
    result = milp.optimal_suppression(adult_instance(k=5), time_limit=30)
    assert result.grouping is None and result.status == "skipped"
    assert "more than half of the" in result.skipped and result.nonzeros > 0


def test_the_deadline_cuts_the_program_while_it_is_built(monkeypatch):
    real = milp._Program.add

    def slow(self, *args, **kwargs):
        time.sleep(0.3)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(milp._Program, "add", slow)
    result = milp.optimal_suppression(adult_instance(k=5), time_limit=0.2)
    assert result.grouping is None and result.status == "Time limit reached"
    assert result.skipped == "the time limit ran out while it was built"


def test_the_heuristic_counts_against_the_time_limit(monkeypatch, adult_df):
    real = suppress_module.lattice

    def slow(inst, **kwargs):
        time.sleep(0.3)
        return real(inst, **kwargs)

    monkeypatch.setattr(suppress_module, "lattice", slow)
    df = adult_df.head(1500)
    release = ga.suppress(df, QI, k=5, sensitive="occupation", l=2, method="milp", time_limit=0.2,
                          keep=[c for c in df.columns if c not in (*QI, "occupation")])
    assert release.report["program"] == {"skipped": "no time was left for it"}
    assert release.report["method"] == "lattice" and release.report["audit"]["ok"]
    assert release.warnings[0] == (f"Theorem 9's program was skipped: no time was left for it; released the lattice "
                                   f"answer, not proven optimal (gap {release.report['gap']:.1%} to the lower bound)")
    assert len(release.warnings) == 1 + (release.report["audit"]["far_from_table"]["records"] > 0)


@pytest.mark.slow
def test_a_program_killed_at_its_deadline_keeps_the_solutions_it_sent(monkeypatch, adult_df):
    # Adult's k=10 program (14,666 nonzeros: a child process) takes HiGHS about 20 s to prove; HiGHS' own
    # limit is set past the deadline, so the child is killed and what it sent is the answer
    import geoanon._milp as m

    monkeypatch.setattr(m, "STOP_MARGIN", -60.0)
    calls = []

    def keep(*args, **kwargs):
        calls.append((args, solve_highs(*args, **kwargs)))
        return calls[-1][1]

    monkeypatch.setattr(milp, "solve_highs", keep)
    result = milp.optimal_suppression(Instance(adult_df, QI, Model(k=10)), time_limit=4)
    (c, matrix, low, high, upper, integrality), (x, objective, bound, optimal, status) = calls[0]
    assert status == result.status == "Time limit reached" and not optimal
    assert -np.inf < bound <= 563 and result.bound == bound                 # 563: the optimum (bench/RESULTS.md)
    assert x is not None and result.grouping is not None                 # HiGHS finds one within a second
    ax = matrix.tocsr() @ x
    assert (ax >= low - 1e-6).all() and (ax <= high + 1e-6).all() and (x <= upper + 1e-6).all()
    assert abs(c @ x - objective) < 1e-6 and objective >= 563
    assert np.allclose(x[integrality != 0], np.rint(x[integrality != 0]))


def test_the_certificate_is_a_dual_bound_equal_to_the_cost():
    assert certified(16, 16.0) and certified(16, 15.9999995) and certified(16, 15.5)    # whole stars: > 15 is 16
    assert not certified(16, 15.0) and not certified(16, 15.0000001) and not certified(16, -np.inf)
    assert not certified(None, 3.0)
    assert certified(2.5, 2.4999995, integral=False) and not certified(2.5, 2.4, integral=False)


def tiny_program():
    rows = ConstraintRows()                 # min x0 + x1, x0 + x1 >= 1.5, integers: the optimum is 2
    rows.add([(0, 1.0), (1, 1.0)], 1.5, np.inf)
    return rows, dict(integrality=np.ones(2), upper=np.full(2, 5.0))


def test_minimize_needs_the_certificate_and_names_the_time_limit(monkeypatch):
    import geoanon._milp as m

    rows, program = tiny_program()
    x, objective, bound, status = rows.solve(np.ones(2), time_limit=10, **program)
    assert objective == 2 and bound == 2 and status == "Optimal"
    assert rows.minimize(np.ones(2), time_limit=10, **program).sum() == 2
    with pytest.raises(InfeasibleError, match=r"^the exact solver found no solution within the time limit of 0 s$"):
        rows.minimize(np.ones(2), time_limit=0, **program)
    monkeypatch.setattr(m, "solve_highs", lambda *a, **kw: (x, 2.0, 1.0, False, "Time limit reached"))
    with pytest.raises(InfeasibleError, match=r"^the exact solver stopped at the time limit of 10 s with cost 2 "
                                              r"above its lower bound 1: not proven optimal$"):
        rows.minimize(np.ones(2), time_limit=10, **program)


def twelve_rows():
    rng = np.random.default_rng(0)     # 2-anonymity costs 16 stars; the instance's own lower bound is 12
    return pd.DataFrame(rng.integers(0, 3, (12, 4)).astype(str), columns=list("abcd"))


def test_a_matching_stopped_by_the_time_limit_is_released_not_proven(monkeypatch):
    import geoanon.tables.matching as matching

    df = twelve_rows()
    report = ga.suppress(df, list("abcd"), k=2, method="matching").report
    assert report["optimal"] and report["cost"] == report["lower_bound"] == 16    # the dual bound's certificate
    real = matching.solve_highs

    def stopped(*args, **kwargs):             # HiGHS' answer, its dual bound 1.5 under the cost, out of time
        x, objective, *_ = real(*args, **kwargs)
        return x, objective, objective - 1.5, False, "Time limit reached"

    monkeypatch.setattr(matching, "solve_highs", stopped)
    release = ga.suppress(df, list("abcd"), k=2, method="matching")
    report = release.report
    assert not report["optimal"] and report["cost"] == 16 and report["lower_bound"] == 15
    assert release.warnings == [f"the matching program stopped at the time limit; released the matching answer, "
                                f"not proven optimal (gap {report['gap']:.1%} to the lower bound)"]


def test_a_matching_with_no_solution_in_time_says_the_time_limit(monkeypatch):
    import geoanon.tables.matching as matching

    monkeypatch.setattr(matching, "solve_highs", lambda *a, **kw: (None, None, -np.inf, False, "Time limit reached"))
    with pytest.raises(ParameterError, match=r"^the matching solver found no solution within the time limit of "
                                             r"[0-9.]+ s$"):
        ga.suppress(twelve_rows(), list("abcd"), k=2, method="matching", time_limit=5)


CHILD = """
import signal, subprocess, sys, threading
signal.signal(signal.SIGINT, signal.default_int_handler)   # Ctrl-C raises, as in a terminal, even where the
                                                           # runner's shell started the suite ignoring SIGINT
import geoanon._milp as m
m.INLINE_NONZEROS = {inline}
workers = []
class Traced(subprocess.Popen):
    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        workers.append(self)
m.subprocess.Popen = Traced
for name in ("_solve_in_child", "_solve_in_thread"):
    def traced(*a, _real=getattr(m, name), **kw):
        print("solving", flush=True)
        return _real(*a, **kw)
    setattr(m, name, traced)
import geoanon as ga
from geoanon.datasets import adult
try:
    {call}
except KeyboardInterrupt:
    for t in threading.enumerate():
        if t is not threading.main_thread():
            t.join(5)
    alive = [t for t in threading.enumerate() if t.is_alive()]    # a thread just ended may still be listed
    print("workers", [w.poll() is not None for w in workers], "threads", len(alive), flush=True)
    raise
"""

SOLVES = {
    "suppress, child process": (5_000, "ga.suppress(adult(), {qi}, l=3, sensitive='occupation', method='milp', "
                                       "time_limit=600, keep={keep_l})"),
    "suppress, thread": (10**9, "ga.suppress(adult(), {qi}, k=10, method='milp', time_limit=600, keep={keep})"),
    "cover_labels exact": (5_000, "(lambda i: ga.cover_labels(i.counts, i.k, method='exact'))"
                                  "(ga.three_partition_instance(m=12, B=1000, seed=1))"),     # minutes to solve
}


@pytest.mark.slow
@pytest.mark.parametrize("name", SOLVES)
def test_ctrl_c_stops_a_solve_with_no_solver_left(name, adult_df):
    inline, call = SOLVES[name]
    others = [c for c in adult_df.columns if c not in QI]         # published as they are
    code = CHILD.format(inline=inline, call=call.format(qi=QI, keep=others,
                                                        keep_l=[c for c in others if c != "occupation"]))
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "solving"
        time.sleep(1.0)                                      # inside HiGHS by now
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=10)            # a liveness bound, not a timing benchmark
    finally:
        child.kill()
        child.wait()
    assert err.strip().splitlines()[-1] == "KeyboardInterrupt"
    assert out.strip() == {"suppress, child process": "workers [True] threads 1",
                           "suppress, thread": "workers [] threads 1"}.get(name, out.strip())
    assert out.strip().endswith("threads 1") and "False" not in out


def test_a_keyboard_interrupt_in_the_caller_kills_the_child_process(monkeypatch, adult_df):
    import geoanon._milp as m

    workers = []

    class Traced(subprocess.Popen):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            workers.append(self)

    monkeypatch.setattr(m.subprocess, "Popen", Traced)
    monkeypatch.setattr(m.pickle, "dump", lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt))
    inst = Instance(adult_df, QI, Model(k=10))
    with pytest.raises(KeyboardInterrupt):
        milp.optimal_suppression(inst, time_limit=600)
    assert len(workers) == 1 and workers[0].returncode is not None


def test_kept_values_that_could_start_a_formula_are_escaped():
    df = pd.DataFrame({"q": ["=HYPERLINK(\"http://x\")+1"] * 2 + ["-2"] * 2 + ["@SUM(A1)", "+x"] + ["\tt"] * 2,
                       "n": ["-74.5", "+3", "=1+1", "plain", "a", "b", "c", "d"],
                       "raw": ["=evil()"] * 8})
    release = ga.suppress(df, ["q", "n"], k=2, keep=["raw"])
    table, classes = release.in_input_order(), release.classes
    assert table["raw"].tolist() == df["raw"].tolist()                 # untouched column, as given
    assert table["q"].tolist()[:4] == ["'=HYPERLINK(\"http://x\")+1"] * 2 + ["-2"] * 2
    assert table["q"].tolist()[6:] == ["'\tt"] * 2
    for frame in (table, classes):
        for col in ("q", "n"):
            text = [v for v in frame[col] if isinstance(v, str)]
            assert not any(v.startswith(("=", "+", "@", "\t", "\r")) or v.startswith("-") and v != "-2"
                           for v in text)
    assert classes["class_id"].tolist() == list(range(len(classes)))
    assert table["class_id"].dtype.kind == "i"
    assert release.report["audit"]["ok"]


def test_roles_and_duplicate_columns():
    df = pd.DataFrame({"a": ["1", "2", "1", "2"], "s": ["x", "y", "y", "x"]})
    twice = pd.concat([df, df[["a"]]], axis=1)
    with pytest.raises(DuplicateColumnError) as error:
        ga.suppress(twice, ["a"], k=2)
    assert isinstance(error.value, TypeError)
    with pytest.raises(ParameterError, match="^the quasi-identifier 'a' is listed twice$"):
        ga.suppress(df, ["a", "a"], k=2, keep=["s"])
    with pytest.raises(ParameterError, match="^the sensitive column 's' cannot also be a quasi-identifier$"):
        ga.suppress(df, ["a", "s"], k=2, l=2, sensitive="s")
    assert ga.suppress(df, "a", k=2, keep=["s"]).report["qi"] == ["a"]


def test_messages_show_values_as_typed_with_plurals():
    df = pd.DataFrame({"a": [1, 2, 3], "s": [7, 7, 8]})
    with pytest.raises(InfeasibleError, match=r"^no grouping reaches l=2: the sensitive value 7 fills 66.7%"):
        ga.suppress(df, ["a"], l=2, sensitive="s")
    with pytest.raises(InfeasibleError, match=r"the table has only 2 distinct sensitive values$"):
        ga.suppress(df, ["a"], l_distinct=3, sensitive="s")
    with pytest.raises(InfeasibleError, match=r"the table has only 1 distinct sensitive value$"):
        ga.suppress(df.head(2), ["a"], l_distinct=2, sensitive="s")
    with pytest.raises(InfeasibleError, match=r"^k=2 is larger than the table \(1 row\)$"):
        ga.suppress(df.head(1), ["a"], k=2, keep=["s"])
    with pytest.raises(ga.DataError, match=r"^no column 5 in the table \(columns: a, s\)$"):
        ga.suppress(df, [5], k=2, keep=["a", "s"])
