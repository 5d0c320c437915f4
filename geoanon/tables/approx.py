"""Liang and Yuan, Theorem 10: k-anonymity under the suppression model within a
factor m (the number of quasi-identifiers) of the optimum, in polynomial time
for every k.

Let C_1 <= ... <= C_R be the types (rows identical on every quasi-identifier)
by size, C_1..C_L those below k and S their total. Every row of a small type
pays at least one star, so OPT >= S.

- Case 1, S >= k: the small types form one class; the others stay alone.
  Cost <= m S <= m OPT.
- Case 2, S < k <= S + sum_{i > L} (|C_i| - k): the small types and k - S rows
  spared by the large types (each keeping >= k) form one class. OPT >= k
  (some class pays, and all its >= k rows do), so cost <= m k <= m OPT.
- Case 3, otherwise: some large type pays in every solution, so
  OPT >= S + |C_{L+1}|; the small types join C_{L+1}. Cost <= m OPT.
"""
from __future__ import annotations

import numpy as np

from .grouping import Grouping

__all__ = ["k_lower_bound", "m_approximation"]


def k_lower_bound(type_size: np.ndarray, k: int) -> int:
    """The lower bound on the optimal cost that Theorem 10's case analysis proves."""
    small = type_size < k
    total = int(type_size[small].sum())
    if total == 0:
        return 0
    if total >= k:
        return total                                          # Case 1
    spare = int((type_size[~small] - k).sum())
    if total + spare >= k:
        return k                                              # Case 2
    return total + int(type_size[~small].min())               # Case 3


def m_approximation(type_size: np.ndarray, k: int) -> Grouping:
    """Classes of the types by Theorem 10 (Liang-Yuan); cost <= m * k_lower_bound.
    Types are the entries (k-anonymity has no sensitive value); a large type
    lends its last rows in Case 2."""
    small = type_size < k
    n = type_size.size
    klass = np.arange(n)                                      # every type alone to start
    total = int(type_size[small].sum())
    if total == 0:
        return Grouping.by_entry(klass, type_size)
    merged = int(np.flatnonzero(small)[0])                    # the small types' class takes this id
    klass[small] = merged
    lent = np.zeros(n, dtype=np.int64)
    if total < k:
        large = np.flatnonzero(~small)
        spare = type_size[large] - k
        if total + int(spare.sum()) >= k:                     # Case 2: rows spared by large types, largest first
            need = k - total
            for t in large[np.argsort(-spare, kind="stable")].tolist():
                if need == 0:
                    break
                lent[t] = max(min(need, int(type_size[t]) - k), 0)
                need -= lent[t]
        else:                                                 # Case 3: with the smallest large type
            klass[int(large[np.argmin(type_size[large])])] = merged
    kept = type_size - lent
    return Grouping.of(np.r_[np.arange(n), np.arange(n)], np.r_[np.zeros(n), kept], np.r_[kept, lent],
                       np.r_[klass, np.full(n, merged)])
