"""Counting sort, compiled: the stable order of small whole-number keys in
one pass (imported only for tables large enough to repay numba's import)."""
from __future__ import annotations

import numba
import numpy as np

__all__ = ["counting_order"]


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
