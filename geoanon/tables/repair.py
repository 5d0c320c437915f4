"""A heuristic for Liang-Yuan l-diversity (with k and distinct l) under the
suppression model: keep every type's free part, and repair the rest level by
level, pulling rows out of free parts where the rest needs them.

1. Type t keeps at most ``cap[t, v]`` rows of each sensitive value v: at
   first its largest part that meets the model alone (the free part of
   :meth:`Instance.lower_bound`), a class without stars. The other rows, its
   *excess*, must join a class with stars.
2. For s = 1..m stars: among the column sets S of size s, take the one whose
   groups (types equal outside S) repair the most excess rows, less
   ``PULL_WEIGHT`` for each row they pull out of free parts. A group repairs
   its types' excess by pulling rows out of its free parts, one step at a
   time, the step that brings the group's rest nearest the model per row
   pulled: a single row of the value the rest needs most, from a free part
   that still meets the model without it; or a free part one level lower (a
   row of each of its most frequent values leaves it), or emptied when the
   lower part would miss the model. When no step helps, the whole group is
   the rest, if it meets the model. The rest is one class, starred where its
   types differ; only groups whose repair gains are repaired. Repeat while
   some S repairs rows, then go to s + 1.

At s = m the whole table is one group. If its rest still misses the model
(earlier classes took the rows it needed), the rest absorbs earlier classes
and free parts, the most helpful per row first, until it meets the model.

On Adult (sex, race, marital-status, workclass; sensitive occupation, l = 3)
this pays 1,360 stars (the optimum is 1,126; the lattice climb pays 3,231, and
this repair without single-row pulls 1,823); for l = 2 the climb is better
(309 against 316), so :func:`~geoanon.tables.lattice.lattice` keeps the
cheaper.
"""
from __future__ import annotations

from itertools import combinations
from math import comb

import numpy as np

from .._codes import combined_key
from .grouping import Grouping
from .instance import Instance

__all__ = ["column_sets", "free_part_repair"]

SUBSETS = 256          # column sets tried per level, at most

# A row pulled out of a free part counts against a group as this many repaired rows. Tuned on Adult (sex, race,
# marital-status, workclass; occupation, l = 3) by a scan of 0.2-0.7: 0.3 released the fewest stars (1,360; 0.75
# before single-row pulls); the 10^6-row synthetic table of bench_tables.py went from 228,661 to 141,460 stars.
PULL_WEIGHT = 0.3


def free_part_repair(inst: Instance) -> Grouping:
    """The classes of the rows; see the module.
    The instance must be feasible (:meth:`Instance.check_feasible`)."""

    search = _Repair(inst)
    best_sets = [()]
    for size in range(1, inst.m + 1):
        sets = column_sets(inst.m, size, best_sets)
        scores = {}
        while search.pending.any():
            plans = {s: search.plans(s) for s in sets}
            for s, (score, _) in plans.items():
                scores[s] = max(scores.get(s, -np.inf), score)
            s = max(sets, key=lambda s: plans[s][0])
            if plans[s][0] <= 0:
                break
            search.apply(plans[s][1])
        if not search.pending.any():
            break
        best_sets = sorted(sets, key=lambda s: -scores.get(s, -np.inf))[:16]
    if search.pending.any():
        search.absorb()
    return search.grouping()


class _Repair:
    def __init__(self, inst: Instance):
        self.inst, self.lv = inst, inst.model
        types, values, rows = inst.entries
        self.V = inst.n_values
        self.H = np.zeros((inst.type_size.size, self.V), dtype=np.int64)
        np.add.at(self.H, (types, values), rows)
        self.cap = np.minimum(self.H, inst.free_caps[:, None])     # rows per value each free part keeps
        self.pending = (self.H > self.cap).any(axis=1)
        self.events = []          # (type, value, lowest rank, end rank or -1, class): those rows go there
        self.classes = 0
        self.counts, self.merged_into = [], []     # each class's rows per sensitive value; the class it joined
        self.tick, self.changed = 0, np.zeros(self.H.shape[0], dtype=np.int64)
        self.cache, self.groups = {}, {}

    def _groups(self, columns):
        """Types grouped by their codes outside ``columns``: (order, starts)."""
        if columns not in self.groups:
            keep = [j for j in range(self.inst.m) if j not in columns]
            key = combined_key(self.inst.type_codes[:, keep]) if keep else np.zeros(self.H.shape[0], dtype=np.int64)
            order = np.argsort(key, kind="stable")
            starts = np.r_[0, np.flatnonzero(np.diff(key[order])) + 1, order.size]
            self.groups[columns] = (order, starts)
        return self.groups[columns]

    def plans(self, columns) -> tuple[float, list]:
        """The score of repairing along ``columns`` and its plans (types, new caps, rest counts): the groups
        whose repair gains (excess repaired less ``PULL_WEIGHT`` per row pulled), or every group at the last
        level."""
        order, starts = self._groups(columns)
        last = len(columns) == self.inst.m
        plans, score = [], 0.0
        pending = np.add.reduceat(self.pending[order], starts[:-1]) > 0
        changed = np.maximum.reduceat(self.changed[order], starts[:-1])
        for g in np.flatnonzero(pending).tolist():
            ts = order[starts[g]:starts[g + 1]]
            hit = self.cache.get((columns, g))
            if hit is None or changed[g] > hit[0]:
                hit = (self.tick, self._plan(ts))
                self.cache[(columns, g)] = hit
            plan = hit[1]
            if plan is None:
                continue
            caps, rest = plan
            own = int((self.H[ts] - self.cap[ts])[self.pending[ts]].sum())
            gain = own - PULL_WEIGHT * (int(rest.sum()) - own)
            if gain > 0 or last:
                plans.append((ts, caps, rest))
                score += max(gain, 1e-9)
        return score, plans

    def _plan(self, ts):
        """New caps of the types ``ts`` and the counts of their rest once it meets the model, or None."""
        H, c = self.H[ts], self.cap[ts].copy()
        rest = ((H - c) * self.pending[ts, None]).sum(axis=0)
        whole = rest + c.sum(axis=0)                # the excess and every free part
        need = self._deficit(rest[None, :])[0]
        one = np.eye(self.V, dtype=np.int64)
        while need > 0:
            lower = np.minimum(c, np.maximum(c.max(axis=1) - 1, 0)[:, None])
            lower = np.where((self._deficit(lower) > 0)[:, None], 0, lower)
            after = rest[None, :] + c - lower
            rows = (c - lower).sum(axis=1)
            gain = np.where(rows > 0, (need - self._deficit(after)) / np.maximum(rows, 1), -np.inf)
            i = int(np.argmax(gain))
            single = np.where(self._spares_one(c), (need - self._deficit(rest[None, :] + one))[None, :], -np.inf)
            t, v = np.unravel_index(int(np.argmax(single)), single.shape)
            if max(gain[i], single[t, v]) <= 0:      # no step helps: the whole group as one class, if it can be
                return (np.zeros_like(c), whole) if self._deficit(whole[None, :])[0] == 0 else None
            if single[t, v] > gain[i]:
                c[t, v] -= 1
                rest = rest + one[v]
            else:
                c[i], rest = lower[i], after[i]
            need = self._deficit(rest[None, :])[0]
        return c, rest

    def _spares_one(self, parts: np.ndarray) -> np.ndarray:
        """Whether each part (rows per value) still meets the model, or is empty,
        without one row of each value: a boolean per part and value."""
        lv, size = self.lv, parts.sum(axis=1, keepdims=True) - 1
        top = parts.max(axis=1, keepdims=True)
        alone_at_top = (parts == top) & ((parts == top).sum(axis=1, keepdims=True) == 1)
        ok = (parts > 0) & (size >= lv.k)
        if lv.l is not None:
            ok &= size >= lv.l * (top - alone_at_top) - 1e-9
        if lv.l_distinct is not None:
            ok &= (parts > 0).sum(axis=1, keepdims=True) - (parts == 1) >= lv.l_distinct
        return ok | ((parts > 0) & (size == 0))

    def _deficit(self, counts: np.ndarray) -> np.ndarray:
        """Rows each count vector lacks to meet k, l and l_distinct (0 when it meets them)."""
        lv, size = self.lv, counts.sum(axis=1)
        out = lv.k - size.astype(float)
        if lv.l is not None:
            out = np.maximum(out, lv.l * counts.max(axis=1) - size - 1e-9)
        if lv.l_distinct is not None:
            out = np.maximum(out, lv.l_distinct - (counts > 0).sum(axis=1))
        return np.maximum(out, 0)

    def apply(self, plans):
        """Make each plan's rest a class: the excess of its pending types and the rows its caps pulled."""
        self.tick += 1
        for ts, caps, rest in plans:
            for t, c in zip(ts.tolist(), caps):
                old, pending = self.cap[t], self.pending[t]
                for v in np.flatnonzero((c < old) | (pending & (self.H[t] > c))).tolist():
                    self.events.append((t, v, int(c[v]), -1 if pending else int(old[v]), self.classes))
                if pending or (c < old).any():
                    self.changed[t] = self.tick
                self.pending[t] = False
                self.cap[t] = c
            self.counts.append(rest)
            self.merged_into.append(-1)
            self.classes += 1

    def absorb(self):
        """The excess left (the last level's group missed the model: earlier classes took the rows it
        needed) as one class absorbing, one at a time, the earlier class or free part that brings it
        nearest the model per row; the whole table meets the model, so this ends."""
        final = self.classes
        rest = np.zeros(self.V, dtype=np.int64)
        for t in np.flatnonzero(self.pending).tolist():
            rest += self.H[t] - self.cap[t]
            for v in np.flatnonzero(self.H[t] > self.cap[t]).tolist():
                self.events.append((t, v, int(self.cap[t, v]), -1, final))
        self.pending[:] = False
        alive = [c for c in range(final) if self.merged_into[c] < 0]
        while self._deficit(rest[None, :])[0] > 0:
            free = np.flatnonzero(self.cap.any(axis=1))
            options = np.vstack([np.array([self.counts[c] for c in alive]).reshape(-1, self.V), self.cap[free]])
            rows = options.sum(axis=1)
            gain = (self._deficit(rest[None, :])[0] - self._deficit(rest[None, :] + options)) / np.maximum(rows, 1)
            i = int(np.argmax(np.where(rows > 0, gain, -np.inf)))
            rest = rest + options[i]
            if i < len(alive):
                self.merged_into[alive.pop(i)] = final
            else:
                t = int(free[i - len(alive)])
                for v in np.flatnonzero(self.cap[t]).tolist():
                    self.events.append((t, v, 0, int(self.cap[t, v]), final))
                self.cap[t] = 0
        self.counts.append(rest)
        self.merged_into.append(-1)
        self.classes += 1

    def grouping(self) -> Grouping:
        """Each entry's rows of rank below its type's cap for its value in the
        type's free class, the others where the events sent them (the last
        event starting at or before a row's rank, which must end after it)."""
        types, values, rows = self.inst.entries
        free = np.minimum(self.cap[types, values], rows)
        into = np.array(self.merged_into + [-1], dtype=np.int64)
        blocks = [(np.arange(types.size), np.zeros(types.size), free, self.classes + types)]
        by_key = {}
        for t, v, low, end, group in self.events:          # later events for the same start win
            by_key.setdefault((t, v), {})[low] = (end, int(into[group]) if into[group] >= 0 else group)
        key = types * self.V + values
        for (t, v), events in by_key.items():
            e = int(np.searchsorted(key, t * self.V + v))
            starts = sorted(events)
            cuts = [int(free[e])] + [s for s in starts if free[e] < s < rows[e]] + [int(rows[e])]
            for low, high in zip(cuts[:-1], cuts[1:]):
                owner = [s for s in starts if s <= low]
                if low == high:
                    continue
                end, group = events[owner[-1]] if owner else (None, None)
                if not owner or (end >= 0 and high > end):
                    raise AssertionError("a row outside its type's free part was sent to no class")
                blocks.append(([e], [low], [high - low], [group]))
        entry, start, size, klass = (np.concatenate([np.asarray(b[i]) for b in blocks]) for i in range(4))
        return Grouping.of(entry, start, size, klass)


def column_sets(m, size, best_below):
    """Column sets of ``size`` to try: all of them, or extensions of the best below."""
    if comb(m, size) <= SUBSETS:
        return list(combinations(range(m), size))
    grown = {tuple(sorted({*s, j})) for s in best_below for j in range(m) if j not in s}
    return sorted(grown)[:SUBSETS]
