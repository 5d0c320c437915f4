"""Passes over a large table's class ids, compiled: the stable order of small
whole-number keys by counting, and whether a column is constant within
each class (imported only for tables large enough to repay numba's import)."""
from __future__ import annotations

import numba
import numpy as np

__all__ = ["constant_within", "counting_order"]


@numba.njit(cache=True, nogil=True)
def counting_order(keys, n):
    """``np.argsort(keys, kind="stable")`` of int keys in [0, n)."""
    start = np.zeros(n + 1, dtype=np.int64)
    for v in keys:
        start[v + 1] += 1
    for i in range(n):
        start[i + 1] += start[i]
    out = np.empty(keys.size, dtype=np.int64)
    for i in range(keys.size):
        out[start[keys[i]]] = i
        start[keys[i]] += 1
    return out


@numba.njit(cache=True, nogil=True)
def constant_within(group, key, groups):
    """Whether ``key`` holds one value within each group (``group``: each
    row's, in [0, groups)), stopping at the first row that differs."""
    first = np.empty(groups, dtype=key.dtype)
    seen = np.zeros(groups, dtype=np.bool_)
    for i in range(group.size):
        g = group[i]
        if not seen[g]:
            first[g], seen[g] = key[i], True
        elif first[g] != key[i]:
            return False
    return True
