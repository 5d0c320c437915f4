"""A scalable heuristic for k-anonymity, l-diversity and t-closeness under the
suppression model: climb the lattice of suppressed column sets, then merge
what is left into the class where it adds the fewest stars.

1. Types that meet the model on their own are classes (no star).
2. For s = 1..m stars: among the column sets S of size s, take the one whose
   grouping of the pending types (equal outside S) releases the most rows in
   groups that meet the model; those groups become classes. Repeat while some
   S releases rows, then go to s + 1. Column sets are all C(m, s) while that
   is at most ``SUBSETS``, else the best ones of the level below extended by
   one column.
3. The pending rows left (they differ everywhere that matters) form one group;
   while it misses the model, it absorbs the class whose union with it adds
   the fewest stars, among the ``CANDIDATES`` cheapest preferring unions that
   meet the model. Merging classes that each meet the model keeps it (sizes
   add; a union's shares and distribution are mixtures of its parts').
"""
from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np

from ..models import measure_classes
from .instance import Instance, class_patterns, combined_key, first_appearance_ids

SUBSETS = 256          # column sets tried per level, at most
CANDIDATES = 32        # classes tried for the final merges, per step


def lattice(inst: Instance) -> np.ndarray:
    """Class of every row (ids in order of first appearance); see the module."""
    n_types = inst.type_size.size
    class_of_type = np.full(n_types, -1, dtype=np.int64)
    alone = inst.passes(np.arange(n_types), n_types)
    class_of_type[alone] = np.arange(int(alone.sum()))
    count = int(alone.sum())
    best_sets = [()]
    for size in range(1, inst.m + 1):
        sets = _column_sets(inst.m, size, best_sets)
        gains = {}
        while (class_of_type < 0).any():
            pending = np.flatnonzero(class_of_type < 0)
            results = [(s, *_release(inst, pending, s)) for s in sets]
            for s, released, _, _ in results:
                gains[s] = gains.get(s, 0) + released
            s, released, group, ok = max(results, key=lambda r: r[1])
            if released == 0:
                break
            new = np.flatnonzero(ok)
            ids = np.full(ok.size, -1, dtype=np.int64)
            ids[new] = count + np.arange(new.size)
            class_of_type[pending] = np.where(ids[group] >= 0, ids[group], -1)
            count += new.size
        if not (class_of_type < 0).any():
            break
        best_sets = sorted(sets, key=lambda s: -gains.get(s, 0))[:16]
    row_class = class_of_type[inst.type_of_row]
    if (row_class < 0).any():
        row_class = _merge_leftover(inst, row_class, count)
    return first_appearance_ids(row_class)


def _column_sets(m, size, best_below):
    """Column sets of ``size`` to try: all of them, or extensions of the best below."""
    if comb(m, size) <= SUBSETS:
        return list(combinations(range(m), size))
    grown = {tuple(sorted({*s, j})) for s in best_below for j in range(m) if j not in s}
    return sorted(grown)[:SUBSETS]


def _release(inst, pending, columns):
    """Group the pending types by their codes outside ``columns``: rows
    released (in groups that meet the model), group per pending type, verdicts."""
    keep = [j for j in range(inst.m) if j not in columns]
    group = combined_key(inst.type_codes[pending][:, keep])
    n_groups = int(group.max()) + 1
    of_type = np.full(inst.type_size.size, -1, dtype=np.int64)
    of_type[pending] = group
    ok = inst.passes(of_type, n_groups)
    released = int(np.bincount(group, weights=inst.type_size[pending], minlength=n_groups)[ok].sum())
    return released, group, ok


def _merge_leftover(inst, row_class, count):
    """The pending rows as one group, absorbing the cheapest classes until it meets the model."""
    left = row_class < 0
    row_class = row_class.copy()
    row_class[left] = count
    while True:
        patterns = class_patterns(inst.codes, row_class)
        sizes = np.bincount(row_class)
        mine = patterns[count]
        if inst.meets(_measures(inst, row_class, [count]))[0]:
            return row_class
        if count == 0:
            raise AssertionError("the whole table misses the model although it was checked feasible")
        others = patterns[:count]
        kept = (others == mine[None, :]) & (mine[None, :] >= 0)
        added = sizes[:count] * ((others >= 0) & ~kept).sum(axis=1) + sizes[count] * ((mine >= 0)[None, :] & ~kept).sum(axis=1)
        candidates = np.argsort(added, kind="stable")[:CANDIDATES]
        trial = row_class.copy()
        verdicts = []
        for c in candidates.tolist():
            trial[row_class == c] = count
            verdicts.append(inst.meets(_measures(inst, trial, [count]))[0])
            trial[row_class == c] = c
        passing = [c for c, v in zip(candidates.tolist(), verdicts) if v]
        chosen = passing[0] if passing else int(candidates[0])
        row_class[row_class == chosen] = count
        row_class[row_class > chosen] -= 1       # keep ids dense: the leftover group is now count - 1
        count -= 1


def _measures(inst, row_class, which):
    """Model figures of the classes ``which`` of a row grouping."""
    mask = np.isin(row_class, which)
    ids = np.searchsorted(np.asarray(which), row_class[mask])
    s = None if inst.sensitive is None else inst.sensitive[mask]
    return measure_classes(ids, s, inst.n_values, inst.ground, q=inst.q)
