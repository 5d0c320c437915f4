"""Large neighbourhood search on Theorem 9's program (Shaw, CP 1998): from a
release, free the counts of a few related entries, keep every other count
fixed, and let HiGHS solve that small program for a fraction of a second
from the release; keep any cheaper answer.

A neighbourhood is the entries that agree with one entry on one or two
quasi-identifiers (so that they share suppression patterns), drawn from the
entries with rows under two or more ``*`` when there are any. Measured on
Adult with t = 0.2 from the rounded relaxation (13,966 stars): 13,579 after
45 s with 30 entries and 0.3 s per program; 15 entries gave 13,603, 45 gave
13,826, and drawing from every entry 13,696. Limiting each program by nodes
instead of time (deterministic) gave 13,747 or worse, so the result depends on
the machine's speed, like any program stopped by its time limit.
"""
from __future__ import annotations

import time

import numpy as np

from .._milp import solve_highs

__all__ = ["improve"]

NEIGHBOURS = 30         # entries freed at a time
STEP_SECONDS = 0.3      # HiGHS' time on one neighbourhood
STALL = 100             # neighbourhoods in a row without a cheaper release end the search


def improve(program, counts: np.ndarray, deadline: float, *, seed: int = 0) -> np.ndarray:
    """A release at most as costly as ``counts`` (x of ``program``, a
    :class:`~geoanon.tables.milp._Program`), searched until ``deadline`` or
    until ``STALL`` neighbourhoods in a row found nothing cheaper."""
    inst, n_sets = program.inst, program.n_sets
    codes = inst.type_codes[inst.entries[0]]
    stars = program.cost[:n_sets]
    by_column, by_row = program.matrix.tocsc(), program.matrix.tocsr()
    low, high, upper = program.lows(), program.highs(), np.concatenate(program.upper)
    best = program.complete(counts)
    cost = float(program.cost @ best)
    rng = np.random.default_rng(seed)
    idle = 0
    while deadline - time.perf_counter() > STEP_SECONDS and idle < STALL:
        idle += 1
        x = best[:program.n_x].reshape(-1, n_sets)
        hot = np.flatnonzero((x[:, stars >= 2] > 0).any(axis=1))
        centre = rng.choice(hot if hot.size else np.arange(x.shape[0]))
        columns = rng.choice(inst.m, size=min(int(rng.integers(1, 3)), inst.m), replace=False)
        entries = np.flatnonzero((codes[:, columns] == codes[centre, columns]).all(axis=1))
        if entries.size > NEIGHBOURS:
            entries = rng.choice(entries, NEIGHBOURS, replace=False)
        free = _free_variables(by_column, by_row, program.n_x, (entries[:, None] * n_sets + np.arange(n_sets)).ravel())
        rows = np.unique(by_column[:, free].indices)
        block = by_row[rows]
        fixed = best.copy()
        fixed[free] = 0.0
        shift = block @ fixed
        answer, objective, *_ = solve_highs(
            program.cost[free], block[:, free], low[rows] - shift, high[rows] - shift, upper[free],
            program.integer[free], time_limit=min(STEP_SECONDS, deadline - time.perf_counter()),
            start=(np.arange(free.size), best[free]), in_thread=True)
        if answer is None:
            continue
        candidate = best.copy()
        candidate[free] = answer
        candidate = program.complete(np.rint(candidate[:program.n_x]))
        if program.cost @ candidate < cost - 0.5 and program.holds(candidate):
            best, cost, idle = candidate, float(program.cost @ candidate), 0
    return best[:program.n_x]


def _free_variables(by_column, by_row, n_x, x_free):
    """The freed x and every auxiliary variable in a constraint with one of them."""
    rows = np.unique(by_column[:, x_free].indices)
    touched = by_row[rows].indices
    return np.r_[x_free, np.unique(touched[touched >= n_x])]
