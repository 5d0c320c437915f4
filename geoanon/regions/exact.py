"""Optimal connected partitions of small graphs by mixed integer programming.

For a connected graph with n nodes, weights w and m directed arcs (both
directions of every edge), with G = floor(W / k) possible groups:

- x[v, g] = 1 if node v is in group g; each node in exactly one group;
- y[g] = 1 if group g is used; used groups first (y[g] >= y[g + 1]);
- sum_v w_v x[v, g] >= k y[g] and <= z; minimize z, the largest group;
- connectivity by single-commodity flow: each used group has one root
  (r[v, g], sum_v r[v, g] = y[g], r <= x); flow f[a, g] runs only on arcs inside
  the group (f <= (n - 1) x at both ends), and every member other than the
  root receives one unit net: inflow - outflow >= x[v, g] - n r[v, g].

Any group with positive net inflow at every non-root member is connected to
its root, so feasible solutions are exactly the connected partitions. Solved
by HiGHS (:mod:`geoanon._milp`, interruptible); meant for tests and small instances.
"""
from __future__ import annotations

import numpy as np

from .._milp import ConstraintRows
from .graphs import CompactGraph

__all__ = ["EXACT_MAX_NODES", "TIME_LIMIT", "exact_partition"]

EXACT_MAX_NODES = 40
TIME_LIMIT = 120.0


def exact_partition(graph: CompactGraph, w: np.ndarray, k: int, *, time_limit: float = TIME_LIMIT) -> np.ndarray:
    """Labels 0..c-1 of an optimal connected partition of a connected graph."""

    n = graph.n
    total = int(w.sum())
    groups = total // k
    if n == 1 or groups <= 1:
        return np.zeros(n, dtype=np.int64)
    src = graph.sources
    dst = graph.indices
    m = src.size
    # variable layout: x (n G), r (n G), y (G), f (m G), z
    X, R, Y, F = 0, n * groups, 2 * n * groups, 2 * n * groups + groups
    Z = F + m * groups
    nvar = Z + 1

    def x(v, g):
        return X + v * groups + g

    def r(v, g):
        return R + v * groups + g

    rows = ConstraintRows()
    add = rows.add

    inf = np.inf
    for v in range(n):
        add([(x(v, g), 1.0) for g in range(groups)], 1, 1)
    for g in range(groups):
        add([(x(v, g), float(w[v])) for v in range(n)] + [(Y + g, -float(k))], 0, inf)
        add([(x(v, g), float(w[v])) for v in range(n)] + [(Z, -1.0)], -inf, 0)
        add([(r(v, g), 1.0) for v in range(n)] + [(Y + g, -1.0)], 0, 0)
        if g + 1 < groups:
            add([(Y + g, 1.0), (Y + g + 1, -1.0)], 0, inf)
        for v in range(n):
            add([(x(v, g), 1.0), (Y + g, -1.0)], -inf, 0)
            add([(r(v, g), 1.0), (x(v, g), -1.0)], -inf, 0)
        for a in range(m):
            fa = F + a * groups + g
            add([(fa, 1.0), (x(int(src[a]), g), -(n - 1.0))], -inf, 0)
            add([(fa, 1.0), (x(int(dst[a]), g), -(n - 1.0))], -inf, 0)
        for v in range(n):
            inflow = [(F + a * groups + g, 1.0) for a in np.flatnonzero(dst == v).tolist()]
            outflow = [(F + a * groups + g, -1.0) for a in np.flatnonzero(src == v).tolist()]
            add(inflow + outflow + [(x(v, g), -1.0), (r(v, g), float(n))], 0, inf)
    integrality = np.zeros(nvar)
    integrality[:F] = 1
    upper = np.ones(nvar)
    upper[F:Z] = n - 1
    upper[Z] = total
    c = np.zeros(nvar)
    c[Z] = 1.0
    solution = rows.minimize(c, integrality=integrality, upper=upper, time_limit=time_limit)
    assign = solution[:R].reshape(n, groups).argmax(axis=1)
    _, labels = np.unique(assign, return_inverse=True)
    return labels.astype(np.int64)
