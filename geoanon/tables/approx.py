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

from .._codes import first_appearance_ids


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


def m_approximation(type_of_row: np.ndarray, type_size: np.ndarray, k: int) -> np.ndarray:
    """Class of every row by Theorem 10 (Liang-Yuan); cost <= m * k_lower_bound."""
    small = type_size < k
    row_class = type_of_row.copy()                            # every type alone to start
    total = int(type_size[small].sum())
    if total == 0:
        return first_appearance_ids(row_class)
    merged = int(np.flatnonzero(small)[0])                    # the small types' class takes this id
    row_class[small[type_of_row]] = merged
    if total < k:
        large = np.flatnonzero(~small)
        spare = type_size[large] - k
        if total + int(spare.sum()) >= k:                     # Case 2: rows spared by large types, largest first
            need = k - total
            for t in large[np.argsort(-spare, kind="stable")].tolist():
                if need == 0:
                    break
                take = min(need, int(type_size[t]) - k)
                rows = np.flatnonzero(type_of_row == t)[-take:] if take > 0 else []
                row_class[rows] = merged
                need -= take
        else:                                                 # Case 3: with the smallest large type
            smallest = int(large[np.argmin(type_size[large])])
            row_class[type_of_row == smallest] = merged
    return first_appearance_ids(row_class)
