"""A scalable heuristic for k-anonymity, l-diversity and t-closeness under the
suppression model: climb the lattice of suppressed column sets, then merge
what is left into the class where it adds the fewest stars.

0. For l-diversity, a type that misses the model splits into its largest
   part that meets it alone and the rest (:meth:`Instance.with_free_parts`):
   only the rest pays stars, as in the lower bound (Adult, Liang-Yuan l = 2:
   858 stars without the split, 309 with it, the optimum 276). Without t,
   :func:`~geoanon.tables.repair.free_part_repair` runs too and the cheaper
   release is kept (l = 3: 1,360 stars against the lattice's 3,231, the
   optimum 1,126).
1. Types that meet the model on their own are classes (no star).
2. For s = 1..m stars: among the column sets S of size s, take the one whose
   grouping of the pending types (equal outside S) releases the most rows in
   groups that meet the model; those groups become classes. Repeat while some
   S releases rows. Then the groups still short may borrow rows from
   classes of step 1 with their values outside S that can spare them (for
   k, l and l_distinct; Theorem 10's Case 2 done level by level), and go to
   s + 1. Column sets are all C(m, s) while that is at most ``SUBSETS``, else
   the best ones of the level below extended by one column.
3. The pending types left form one group; while it misses the model, it
   absorbs a class: among the ``CANDIDATES`` whose union with it adds the
   fewest stars, the cheapest union that meets the model, else the union that
   comes closest to it. Merging classes that each meet the model keeps it (sizes
   add; a union's shares and distribution are mixtures of its parts').
"""
from __future__ import annotations


import numpy as np

from .._codes import combined_key
from .grouping import Grouping
from .instance import Instance, class_patterns
from .repair import column_sets, free_part_repair

__all__ = ["lattice"]

CANDIDATES = 32        # classes tried for the final merges, per step


def lattice(inst: Instance) -> Grouping:
    """The classes of the rows; see the module.
    For l without t, also :func:`~geoanon.tables.repair.free_part_repair`,
    keeping the cheaper (the lattice on a tie). The repair is skipped when no
    type has a free part: it would only climb again, without borrowing (on
    Adult placed at ZIP centroids and chained after ``points``, 29,416 types
    of about one row each, it took 303 s for 62 more stars than the climb's 5 s)."""
    if inst.model.l is None:
        return _climb(inst)
    split = inst.with_free_parts()
    climbed = split.to_base(_climb(split))
    if inst.model.t is not None or inst.model.on_distribution or not (inst.free_caps > 0).any():
        return climbed
    return min((climbed, free_part_repair(inst)), key=lambda grouping: inst.cost(grouping)[0])


def _climb(inst: Instance, *, borrow: bool = True) -> Grouping:
    """Steps 1-3 of the module on the types of ``inst``."""
    n_types = inst.type_size.size
    class_of_type = np.full(n_types, -1, dtype=np.int64)
    alone = inst.passes(np.arange(n_types), n_types)
    class_of_type[alone] = np.arange(int(alone.sum()))
    count = int(alone.sum())
    lender = _Lenders(inst, alone) if borrow and inst.model.t is None and not inst.model.on_distribution else None
    best_sets = [()]
    for size in range(1, inst.m + 1):
        sets = column_sets(inst.m, size, best_sets)
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
        if lender is not None and (class_of_type < 0).any():
            count = lender.complete(class_of_type, count, max(sets, key=lambda s: gains.get(s, 0)))
        if not (class_of_type < 0).any():
            break
        best_sets = sorted(sets, key=lambda s: -gains.get(s, 0))[:16]
    if (class_of_type < 0).any() and not _merge_leftover(inst, class_of_type, count,
                                                          frozen=set() if lender is None else lender.gave):
        if lender is None:
            raise AssertionError("the whole table misses the model although it was checked feasible")
        return _climb(inst, borrow=False)
    types, values, rows = inst.entries
    if lender is None or not lender.transfers:
        return Grouping.by_entry(class_of_type[types], rows)
    grouping = lender.apply(class_of_type)
    if not inst.meets(inst.measure(grouping.cls, None if values is None else values[grouping.entry],
                                   grouping.rows)).all():
        return _climb(inst, borrow=False)
    return grouping


class _Lenders:
    """Rows that classes of one type (no star) can lend to a pending group with
    their values outside the suppressed columns, while they keep meeting the
    model (k, l, l_distinct): Theorem 10's Case 2, level by level. A group
    borrows at most as many rows as keep its stars within what it would pay
    one level up."""

    def __init__(self, inst, alone):
        self.inst, self.lv = inst, inst.model
        types, values, rows = inst.entries
        self.V = max(inst.n_values, 1)
        self.counts = np.zeros((inst.type_size.size, self.V), dtype=np.int64)   # rows each type can still lend
        np.add.at(self.counts, (types, np.zeros_like(types) if values is None else values), rows)
        self.can_lend = alone.copy()
        self.transfers, self.gave = [], set()

    def complete(self, class_of_type, count, columns) -> int:
        """Complete the pending groups (equal outside ``columns``) that borrowing lets meet the model."""
        inst = self.inst
        keep = [j for j in range(inst.m) if j not in columns]
        key = combined_key(inst.type_codes[:, keep])
        pending = np.flatnonzero(class_of_type < 0)
        for group_key in np.unique(key[pending]).tolist():
            members = pending[key[pending] == group_key]
            lenders = np.flatnonzero(self.can_lend & (key == group_key))
            if lenders.size == 0:
                continue
            own = self.counts[members].sum(axis=0)
            budget = int(own.sum()) // len(columns)     # (rows + borrowed) x |S| <= rows x (|S| + 1)
            taken = self._borrow(own.copy(), lenders, budget)
            if taken is None:
                continue
            class_of_type[members] = count
            for t, v, r in taken:
                self.counts[t, v] -= r
                self.transfers.append((t, v, r, count))
                self.gave.add(t)
            count += 1
        return count

    def _borrow(self, mine, lenders, budget):
        """(type, value, rows) taken from ``lenders`` until ``mine`` meets the model, or None."""
        lv, counts = self.lv, self.counts[lenders].copy()
        taken = []
        while not self._meets(mine):
            want = _wanted_values(lv, mine)
            spare = _spare(lv, counts, want)
            i, j = np.unravel_index(int(np.argmax(spare)), spare.shape)
            v, available = int(want[j]), int(spare[i, j])
            need = _rows_needed(lv, mine, v)
            take = min(need, available, budget)
            if take <= 0:
                return None
            taken.append((int(lenders[i]), v, take))
            counts[i, v] -= take
            mine[v] += take
            budget -= take
        return taken

    def _meets(self, mine) -> bool:
        size = int(mine.sum())
        return bool(self.inst.meets({"size": np.array([size]), "l": np.array([size / max(int(mine.max()), 1)]),
                                     "l_distinct": np.array([int((mine > 0).sum())])})[0])

    def apply(self, class_of_type) -> Grouping:
        """The types' classes, with the borrowed rows (the last rows of each type and value) in theirs."""
        types, values, rows = self.inst.entries
        key = types * self.V + (0 if values is None else values)
        used = np.zeros(types.size, dtype=np.int64)
        moved = []
        for t, v, r, c in self.transfers:
            e = int(np.searchsorted(key, t * self.V + v))
            if e >= key.size or key[e] != t * self.V + v:
                raise AssertionError("rows were borrowed from an entry that does not exist")
            used[e] += r
            moved.append((e, rows[e] - used[e], r, c))
        e, start, r, c = np.array(moved, dtype=np.int64).reshape(-1, 4).T
        everyone = np.arange(types.size)
        return Grouping.of(np.r_[everyone, e], np.r_[np.zeros(types.size), start], np.r_[rows - used, r],
                           np.r_[class_of_type[types], c])


def _wanted_values(lv, mine):
    """The sensitive values whose rows bring a group closer to the model."""
    if lv.l_distinct is not None and int((mine > 0).sum()) < lv.l_distinct:
        return np.flatnonzero(mine == 0)
    if lv.l is not None and mine.sum() < lv.l * mine.max() - 1e-9:
        return np.flatnonzero(np.arange(mine.size) != int(np.argmax(mine)))
    return np.arange(mine.size)


def _rows_needed(lv, mine, v) -> int:
    """Rows of value v to add: enough for k and for l without making v the most frequent."""
    size, top = int(mine.sum()), int(mine.max())
    need = max(lv.k - size, 1)
    if lv.l is not None and size < lv.l * top - 1e-9:
        need = max(1, min(int(np.ceil(lv.l * top - size - 1e-9)), top - int(mine[v])))
    return need


def _spare(lv, counts, values):
    """Rows of each of ``values`` each lender can give while still meeting k, l and l_distinct."""
    size = counts.sum(axis=1)
    out = np.minimum(counts[:, values], (size - lv.k)[:, None])
    for j, v in enumerate(values.tolist()):
        if lv.l is not None:
            others = np.delete(counts, v, axis=1).max(axis=1) if counts.shape[1] > 1 else np.zeros(len(counts))
            out[:, j] = np.minimum(out[:, j], np.floor(size - lv.l * others + 1e-9).astype(np.int64))
        if lv.l_distinct is not None:
            last = ((counts > 0).sum(axis=1) <= lv.l_distinct).astype(np.int64)
            out[:, j] = np.minimum(out[:, j], counts[:, v] - last)
    return np.maximum(out, 0)


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


def _merge_leftover(inst, class_of_type, count, frozen=frozenset()) -> bool:
    """The pending types as one class (id ``count``), absorbing classes until
    it meets the model: among the ``CANDIDATES`` whose union with it adds the
    fewest stars, the cheapest union that meets the model, else the one that
    comes closest (:meth:`Instance.shortfall`). Updates ``class_of_type``;
    False if no class is left to absorb (classes in ``frozen`` lent rows and
    stay as they are)."""
    left = count
    class_of_type[class_of_type < 0] = left
    patterns = class_patterns(inst.type_codes, class_of_type)
    sizes = np.bincount(class_of_type, weights=inst.type_size).astype(np.int64)
    alive = np.ones(count, dtype=bool)
    alive[[int(class_of_type[t]) for t in frozen]] = False      # classes that lent rows stay as they are
    types, values, rows = inst.entries
    value = np.zeros(types.size, dtype=np.int64) if values is None else values
    width = max(inst.n_values, 1)
    while True:
        entry_class = class_of_type[types]
        mine = entry_class == left
        # a class's figures depend only on its rows per sensitive value: one entry per value
        own = np.bincount(value[mine], weights=rows[mine], minlength=width).astype(np.int64)
        own_values = np.flatnonzero(own)
        if inst.meets(inst.measure(np.zeros(own_values.size, dtype=np.int64),
                                   None if values is None else own_values, own[own_values]))[0]:
            return True
        if not alive.any():
            return False
        others, own_pattern = patterns[:count], patterns[left]
        kept = (others == own_pattern) & (own_pattern >= 0)
        added = sizes[:count] * ((others >= 0) & ~kept).sum(axis=1) \
            + sizes[left] * ((own_pattern >= 0) & ~kept).sum(axis=1)
        added = np.where(alive, added, np.iinfo(np.int64).max)
        candidates = np.argsort(added, kind="stable")[:min(CANDIDATES, int(alive.sum()))]
        slot = np.full(count + 1, -1, dtype=np.int64)
        slot[candidates] = np.arange(candidates.size)
        theirs = np.flatnonzero(slot[entry_class] >= 0)
        hist = np.bincount(slot[entry_class[theirs]] * width + value[theirs], weights=rows[theirs],
                           minlength=candidates.size * width).reshape(candidates.size, width).astype(np.int64)
        hist += own[None, :]
        groups, at = np.nonzero(hist)
        short = inst.shortfall(inst.measure(groups, None if values is None else at, hist[groups, at]))
        chosen = int(candidates[np.lexsort((added[candidates], np.maximum(short, 0)))[0]])
        class_of_type[class_of_type == chosen] = left
        patterns[left] = np.where(patterns[chosen] == own_pattern, own_pattern, -1)
        sizes[left] += sizes[chosen]
        alive[chosen] = False
