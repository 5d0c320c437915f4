"""Exact suppression for small tables: the recursion of Liang and Yuan's
Theorem 8 (and Blocki and Williams' Theorem 3), OPT(M) = min(cost of M as one
class if it meets the model, min over splits OPT(T) + OPT(M - T)), evaluated
bottom-up over all subsets of rows.

Every subset's cost as one class and its verdict are computed at once,
vectorized over the 2^n bitmasks. Then, for the rows in decreasing order,
every subset M whose lowest row is b takes the best class G containing b:
OPT(M) = min over G of cost(G) + OPT(M - G), where M - G only holds rows after
b, so it is already known. For k-anonymity alone, classes of more than 2k - 1
rows are never needed (they split without adding stars), as Blocki and
Williams observe. Time O(4^n / 3) vectorized; meant for n <= ``EXACT_ROWS``.
"""
from __future__ import annotations

import numpy as np

from ..errors import ParameterError
from ..criteria import dense_measures
from ..models import emd_rows
from .grouping import Grouping
from .instance import Instance

__all__ = ["EXACT_ROWS", "exact_small"]

EXACT_ROWS = 16


def exact_small(inst: Instance) -> Grouping:
    """An optimal grouping (the rows listed entry by entry)."""
    n = inst.n
    if n > EXACT_ROWS:
        raise ParameterError(f"the exact recursion is for tables of at most {EXACT_ROWS} rows, got {n}")
    cost, valid = _single_classes(inst)
    full = (1 << n) - 1
    best = np.full(1 << n, np.inf)
    best[0] = 0.0
    choice = np.zeros(1 << n, dtype=np.int64)
    masks = np.arange(1 << n, dtype=np.int64)
    for b in range(n - 1, -1, -1):
        with_b = masks[(masks & ((1 << (b + 1)) - 1)) == (1 << b)]            # lowest row is b
        for g in with_b[valid[with_b]].tolist():
            supersets = with_b[(with_b & g) == g]
            total = cost[g] + best[supersets ^ g]
            better = total < best[supersets]
            best[supersets[better]] = total[better]
            choice[supersets[better]] = g
    if not np.isfinite(best[full]):
        raise AssertionError("no partition meets the model although the table was checked feasible")
    row_class, mask, c = np.empty(n, dtype=np.int64), full, 0
    while mask:
        g = int(choice[mask])
        row_class[[i for i in range(n) if g >> i & 1]] = c
        mask ^= g
        c += 1
    return Grouping.from_slots(row_class, inst.entries[2])


def _single_classes(inst: Instance):
    """Per bitmask of rows: its cost as one class and whether it meets the model."""
    types, values, rows = inst.entries
    entry = np.repeat(np.arange(rows.size), rows)                                  # the rows, entry by entry
    n, codes = inst.n, inst.type_codes[types[entry]]
    masks = np.arange(1 << n, dtype=np.int64)
    bits = (masks[:, None] >> np.arange(n)[None, :]) & 1                           # masks x rows
    size = bits.sum(axis=1)
    low = np.argmax(bits, axis=1)                                                  # lowest row of each mask
    same = (codes[:, None, :] == codes[None, :, :])                                # rows x rows x columns
    same_bits = (same * (1 << np.arange(n))[None, :, None]).sum(axis=1)            # rows x columns: who agrees
    agree = (masks[:, None] & ~same_bits[low]) == 0                                # masks x columns
    cost = (size * (~agree).sum(axis=1)).astype(float)
    measures = {"size": size}
    if values is not None:
        V = inst.n_values
        onehot = np.eye(V, dtype=np.int64)[values[entry]]                         # rows x values
        counts = bits @ onehot                                                     # masks x values
        measures["l"] = size / np.maximum(counts.max(axis=1), 1)
        measures["l_distinct"] = (counts > 0).sum(axis=1)
        distinct, back = np.unique(counts[1:] / size[1:, None], axis=0, return_inverse=True)
        measures["t"] = np.r_[np.inf, emd_rows(distinct, inst.q, inst.ground)[back.ravel()]]   # mask 0: no class
        if inst.model.on_distribution:
            measures.update(dense_measures(counts, inst.q, inst.model.recursive_l))
    valid = inst.meets(measures) & (size > 0)
    if not inst.model.needs_sensitive:
        valid &= size <= 2 * inst.model.k - 1
    return cost, valid
