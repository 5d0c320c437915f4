"""Optimal Min-Max Bin Covering for small instances, by mixed integer programming.

Items of equal size are interchangeable, so the program counts them by size:
with distinct sizes s_t of multiplicity m_t and at most G bins,

- y[t, g] >= 0 integer: items of size t in bin g; sum_g y[t, g] = m_t;
- u[g] = 1 if bin g is used; used bins first (u[g] >= u[g + 1]);
- level_g = sum_t s_t y[t, g] >= k u[g], level_g <= z, and a bin holds items
  only if used; levels non-increasing (symmetry breaking);
- minimize z, the largest bin.

Solved by HiGHS (:mod:`geoanon._milp`, interruptible). Meant for tests, adversarial
instances and the paper's exhaustive search on few bins. The largest bin is
a whole number, so HiGHS' dual bound b certifies it when ceil(b - 1e-6)
reaches it (:func:`geoanon._milp.certified`); the status is no proof.
"""
from __future__ import annotations

import numpy as np

from .._milp import BOUND_TOLERANCE, ConstraintRows, not_proven
from ..errors import InfeasibleError, ParameterError

__all__ = ["TIME_LIMIT", "bounded_cover", "exact_cover"]

EXACT_MAX_VARIABLES = 6000
TIME_LIMIT = 120.0


def exact_cover(x: np.ndarray, k: int, *, bins: int, upper: int | None = None,
                time_limit: float = TIME_LIMIT) -> np.ndarray:
    """Bins 0..c-1 of an optimal covering of the items ``x`` (positive ints).

    ``bins`` bounds the number of bins (any proven upper bound on a feasible
    count); ``upper`` optionally bounds the optimum (a heuristic's value).
    InfeasibleError unless HiGHS' dual bound certifies the optimum, saying
    when the time limit stopped it (:func:`bounded_cover` keeps such an answer).
    """
    labels, bound, status = bounded_cover(x, k, bins=bins, upper=upper, time_limit=time_limit)
    largest = int(np.bincount(labels, weights=x).max())
    if bound < largest:
        raise InfeasibleError(not_proven("the exact solver", status, time_limit, largest, bound))
    return labels


def bounded_cover(x: np.ndarray, k: int, *, bins: int, upper: int | None = None,
                  time_limit: float = TIME_LIMIT) -> tuple[np.ndarray, int, str]:
    """The best covering HiGHS found in ``time_limit`` seconds (arguments as
    :func:`exact_cover`): (bins 0..c-1, a proven lower bound on the optimum,
    HiGHS' status). The answer is optimal when its largest bin equals the
    bound: ceil(dual bound - 1e-6), the integer the dual bound proves; a
    time limit can leave it above. When HiGHS finds no covering in time,
    InfeasibleError says the time limit."""

    sizes, types, mult = np.unique(x, return_inverse=True, return_counts=True)
    t_count, g_count = sizes.size, max(int(bins), 1)
    if g_count == 1:                                 # one bin holds everything: its weight is the optimum
        return np.zeros(x.size, dtype=np.int64), int(x.sum()), "one bin"

    if t_count * g_count > EXACT_MAX_VARIABLES:
        raise ParameterError(f"method='exact' is for small instances: {t_count} distinct sizes x {g_count} bins "
                             f"exceeds {EXACT_MAX_VARIABLES} variables")
    total = int(x.sum())
    n_var = t_count * g_count + g_count + 1          # y (t-major), u, z
    U, Z = t_count * g_count, t_count * g_count + g_count

    def y(t, g):
        return t * g_count + g

    rows = ConstraintRows()
    add = rows.add

    inf = np.inf
    level = [[(y(t, g), float(sizes[t])) for t in range(t_count)] for g in range(g_count)]
    for t in range(t_count):
        add([(y(t, g), 1.0) for g in range(g_count)], mult[t], mult[t])
    for g in range(g_count):
        add(level[g] + [(U + g, -float(k))], 0, inf)
        add(level[g] + [(Z, -1.0)], -inf, 0)
        add([(y(t, g), 1.0) for t in range(t_count)] + [(U + g, -float(x.size))], -inf, 0)
        if g + 1 < g_count:
            add([(U + g, 1.0), (U + g + 1, -1.0)], 0, inf)
            add(level[g] + [(c, -v) for c, v in level[g + 1]], 0, inf)
    integrality = np.ones(n_var)
    integrality[Z] = 0
    high = np.empty(n_var)
    high[:U] = np.repeat(mult, g_count)
    high[U:Z] = 1
    high[Z] = total if upper is None else upper
    c = np.zeros(n_var)
    c[Z] = 1.0
    solution, objective, dual, status = rows.solve(c, integrality=integrality, upper=high, time_limit=time_limit)
    counts = np.rint(solution[:U]).astype(np.int64).reshape(t_count, g_count)
    out = np.empty(x.size, dtype=np.int64)
    for t in range(t_count):
        members = np.flatnonzero(types == t)
        out[members] = np.repeat(np.arange(g_count), counts[t])
    _, labels = np.unique(out, return_inverse=True)
    largest = int(np.bincount(labels, weights=x).max())
    # the integer the dual bound proves (a feasible covering caps it: more is rounding noise)
    bound = min(int(np.ceil(dual - BOUND_TOLERANCE)), largest) if np.isfinite(dual) else 0
    return labels.astype(np.int64), bound, status
