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
3. The pending types left form one group; while it misses the model, it
   absorbs a class: among the ``CANDIDATES`` whose union with it adds the
   fewest stars, the cheapest union that meets the model, else the union that
   comes closest to it. Merging classes that each meet the model keeps it (sizes
   add; a union's shares and distribution are mixtures of its parts').
"""
from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np

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
    if (class_of_type < 0).any():
        _merge_leftover(inst, class_of_type, count)
    return first_appearance_ids(class_of_type[inst.type_of_row])


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


def _merge_leftover(inst, class_of_type, count) -> None:
    """The pending types as one class (id ``count``), absorbing classes until
    it meets the model: among the ``CANDIDATES`` whose union with it adds the
    fewest stars, the cheapest union that meets the model, else the one that
    comes closest (:meth:`Instance.shortfall`). Updates ``class_of_type``."""
    left = count
    class_of_type[class_of_type < 0] = left
    patterns = class_patterns(inst.type_codes, class_of_type)
    sizes = np.bincount(class_of_type, weights=inst.type_size).astype(np.int64)
    alive = np.ones(count, dtype=bool)
    types, values, rows = inst.entries
    while True:
        entry_class = class_of_type[types]
        mine = entry_class == left
        if inst.meets(inst.measure(np.zeros(int(mine.sum()), dtype=np.int64),
                                   None if values is None else values[mine], rows[mine]))[0]:
            return
        if not alive.any():
            raise AssertionError("the whole table misses the model although it was checked feasible")
        others, own = patterns[:count], patterns[left]
        kept = (others == own) & (own >= 0)
        added = sizes[:count] * ((others >= 0) & ~kept).sum(axis=1) + sizes[left] * ((own >= 0) & ~kept).sum(axis=1)
        added = np.where(alive, added, np.iinfo(np.int64).max)
        candidates = np.argsort(added, kind="stable")[:min(CANDIDATES, int(alive.sum()))]
        slot = np.full(count + 1, -1, dtype=np.int64)
        slot[candidates] = np.arange(candidates.size)
        theirs = np.flatnonzero(slot[entry_class] >= 0)
        ours = np.flatnonzero(mine)
        groups = np.r_[slot[entry_class[theirs]], np.repeat(np.arange(candidates.size), ours.size)]
        picked = np.r_[theirs, np.tile(ours, candidates.size)]
        short = inst.shortfall(inst.measure(groups, None if values is None else values[picked], rows[picked]))
        chosen = int(candidates[np.lexsort((added[candidates], np.maximum(short, 0)))[0]])
        class_of_type[class_of_type == chosen] = left
        patterns[left] = np.where(patterns[chosen] == own, own, -1)
        sizes[left] += sizes[chosen]
        alive[chosen] = False
