"""Optimal Min-Max Bin Covering for small instances, by mixed integer programming.

Items of equal size are interchangeable, so the program counts them by size:
with distinct sizes s_t of multiplicity m_t and at most G bins,

- y[t, g] >= 0 integer: items of size t in bin g; sum_g y[t, g] = m_t;
- u[g] = 1 if bin g is used; used bins first (u[g] >= u[g + 1]);
- level_g = sum_t s_t y[t, g] >= k u[g], level_g <= z, and a bin holds items
  only if used; levels non-increasing (symmetry breaking);
- minimize z, the largest bin.

Solved by HiGHS (:mod:`geoanon._milp`, interruptible). Meant for tests, adversarial
instances and the paper's exhaustive search on few bins.
"""
from __future__ import annotations

import numpy as np

from .._milp import ConstraintRows
from ..errors import ParameterError

EXACT_MAX_VARIABLES = 6000
TIME_LIMIT = 120.0


def exact_cover(x: np.ndarray, k: int, *, bins: int, upper: int | None = None,
                time_limit: float = TIME_LIMIT) -> np.ndarray:
    """Bins 0..c-1 of an optimal covering of the items ``x`` (positive ints).

    ``bins`` bounds the number of bins (any proven upper bound on a feasible
    count); ``upper`` optionally bounds the optimum (a heuristic's value).
    """

    sizes, types, mult = np.unique(x, return_inverse=True, return_counts=True)
    t_count, g_count = sizes.size, max(int(bins), 1)
    if g_count == 1:
        return np.zeros(x.size, dtype=np.int64)
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
    solution = rows.minimize(c, integrality=integrality, upper=high, time_limit=time_limit)
    counts = np.rint(solution[:U]).astype(np.int64).reshape(t_count, g_count)
    out = np.empty(x.size, dtype=np.int64)
    for t in range(t_count):
        members = np.flatnonzero(types == t)
        out[members] = np.repeat(np.arange(g_count), counts[t])
    _, labels = np.unique(out, return_inverse=True)
    return labels.astype(np.int64)
