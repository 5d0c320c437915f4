"""A heuristic for Liang-Yuan l-diversity (with k and distinct l) under the
suppression model: keep every type's free part, and repair the rest level by
level, pulling rows out of free parts where the rest needs them.

1. Type t keeps at most ``cap_t`` rows of each sensitive value: its largest
   part that meets the model alone (the free part of
   :meth:`Instance.lower_bound`), a class without stars. The other rows, its
   *excess*, must join a class with stars.
2. For s = 1..m stars: among the column sets S of size s, take the one whose
   groups (types equal outside S) repair the most excess rows, less
   ``PULL_WEIGHT`` for each row they pull out of free parts. A group repairs its types' excess by
   lowering free parts' caps one at a time (a row of each of the type's most
   frequent values leaves it; by concavity the part still meets l): each time
   the type whose rows bring the group's rest nearest the model per row,
   until the rest meets the model (when no step helps, the whole group is
   the rest, if it meets the model). The rest is one class, starred where its
   types differ; only groups whose repair gains are repaired. Repeat while
   some S repairs rows, then go to s + 1.

At s = m the whole table is one group. If its rest still misses the model
(earlier classes took the rows it needed), the rest absorbs earlier classes
and free parts, the most helpful per row first, until it meets the model.

On Adult (sex, race, marital-status, workclass; sensitive occupation, l = 3)
this pays 1,823 stars where the lattice pays 3,231 (the optimum is 1,126);
for l = 2 the lattice is better (309 against 325), so
:func:`~geoanon.tables.lattice.lattice` keeps the cheaper.
"""
from __future__ import annotations

import numpy as np

from .._codes import combined_key, first_appearance_ids
from .instance import Instance, rank_within

PULL_WEIGHT = 0.75     # a row pulled out of a free part counts against a group as this many repaired rows


def free_part_repair(inst: Instance) -> np.ndarray:
    """Class of every row (ids in order of first appearance); see the module.
    The instance must be feasible (:meth:`Instance.check_feasible`)."""
    from .lattice import _column_sets

    search = _Repair(inst)
    best_sets = [()]
    for size in range(1, inst.m + 1):
        sets = _column_sets(inst.m, size, best_sets)
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
    return search.row_class()


class _Repair:
    def __init__(self, inst: Instance):
        self.inst, self.lv = inst, inst.model
        types, values, rows = inst.entries
        self.V = inst.n_values
        self.H = np.zeros((inst.type_size.size, self.V), dtype=np.int64)
        np.add.at(self.H, (types, values), rows)
        self.cap = inst.free_caps.copy()
        self.pending = (self.H > self.cap[:, None]).any(axis=1)
        self.events = []          # (type, lowest rank, end rank, class): rows of those ranks of every value go there
        self.classes = 0
        self.counts, self.merged_into = [], []     # each class's rows per sensitive value; the class it joined
        self.tick, self.changed = 0, np.zeros(self.cap.size, dtype=np.int64)
        self.cache, self.groups = {}, {}

    def _groups(self, columns):
        """Types grouped by their codes outside ``columns``: (order, starts)."""
        if columns not in self.groups:
            keep = [j for j in range(self.inst.m) if j not in columns]
            key = combined_key(self.inst.type_codes[:, keep]) if keep else np.zeros(self.cap.size, dtype=np.int64)
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
        for g, (a, b) in enumerate(zip(starts[:-1].tolist(), starts[1:].tolist())):
            ts = order[a:b]
            if not self.pending[ts].any():
                continue
            hit = self.cache.get((columns, g))
            if hit is None or self.changed[ts].max() > hit[0]:
                hit = (self.tick, self._plan(ts))
                self.cache[(columns, g)] = hit
            plan = hit[1]
            if plan is None:
                continue
            caps, rest = plan
            own = int((self.H[ts] - np.minimum(self.H[ts], self.cap[ts, None]))[self.pending[ts]].sum())
            gain = own - PULL_WEIGHT * (int(rest.sum()) - own)
            if gain > 0 or last:
                plans.append((ts, caps, rest))
                score += max(gain, 1e-9)
        return score, plans

    def _plan(self, ts):
        """New caps of the types ``ts`` and the counts of their rest once it meets the model, or None."""
        H, c = self.H[ts], self.cap[ts].copy()
        rest = ((H - np.minimum(H, c[:, None])) * self.pending[ts, None]).sum(axis=0)
        whole = rest + np.minimum(H, c[:, None]).sum(axis=0)      # the excess and every free part
        need = self._deficit(rest[None, :])[0]
        while need > 0:
            lower = np.maximum(c - 1, 0)
            lower = np.where(np.minimum(H, lower[:, None]).sum(axis=1) < self.lv.k, 0, lower)
            moved = np.minimum(H, c[:, None]) - np.minimum(H, lower[:, None])
            after = rest[None, :] + moved
            rows = moved.sum(axis=1)
            gain = np.where(rows > 0, (need - self._deficit(after)) / np.maximum(rows, 1), -np.inf)
            i = int(np.argmax(gain))
            if gain[i] <= 0:            # no single step helps: the whole group as one class, if it meets the model
                return (np.zeros_like(c), whole) if self._deficit(whole[None, :])[0] == 0 else None
            c[i], rest, need = lower[i], after[i], self._deficit(after[i][None, :])[0]
        return c, rest

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
            for t, c in zip(ts.tolist(), caps.tolist()):
                if self.pending[t]:
                    self.events.append((t, c, -1, self.classes))
                elif c < self.cap[t]:
                    self.events.append((t, c, int(self.cap[t]), self.classes))
                if self.pending[t] or c < self.cap[t]:
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
            rest += self.H[t] - np.minimum(self.H[t], self.cap[t])
            self.events.append((t, int(self.cap[t]), -1, final))
        self.pending[:] = False
        alive = [c for c in range(final) if self.merged_into[c] < 0]
        while self._deficit(rest[None, :])[0] > 0:
            free = np.flatnonzero(self.cap > 0)
            options = np.vstack([np.array([self.counts[c] for c in alive]).reshape(-1, self.V),
                                 np.minimum(self.H[free], self.cap[free, None])])
            rows = options.sum(axis=1)
            gain = (self._deficit(rest[None, :])[0] - self._deficit(rest[None, :] + options)) / np.maximum(rows, 1)
            i = int(np.argmax(np.where(rows > 0, gain, -np.inf)))
            rest = rest + options[i]
            if i < len(alive):
                self.merged_into[alive.pop(i)] = final
            else:
                t = int(free[i - len(alive)])
                self.events.append((t, 0, int(self.cap[t]), final))
                self.cap[t] = 0
        self.counts.append(rest)
        self.merged_into.append(-1)
        self.classes += 1

    def row_class(self) -> np.ndarray:
        """Rows of rank below their type's cap (per sensitive value) in the type's free class, the others
        where the events sent them."""
        inst = self.inst
        t_row = inst.type_of_row
        rank = rank_within(t_row * self.V + inst.sensitive)
        span = int(inst.type_size.max()) + 1
        out = np.empty(inst.n, dtype=np.int64)
        free = rank < self.cap[t_row]
        out[free] = self.classes + t_row[free]
        ev = np.array(self.events, dtype=np.int64).reshape(-1, 4)
        ev = ev[np.lexsort((ev[:, 1], ev[:, 0]))]
        starts = ev[:, 0] * span + ev[:, 1]
        rest = ~free
        at = np.searchsorted(starts, t_row[rest] * span + rank[rest], side="right") - 1
        ends = np.where(ev[at, 2] < 0, span, ev[at, 2])
        if (at < 0).any() or (ev[at, 0] != t_row[rest]).any() or (rank[rest] >= ends).any():
            raise AssertionError("a row outside its type's free part was sent to no class")
        into = np.array(self.merged_into + [-1], dtype=np.int64)
        group = ev[at, 3]
        out[rest] = np.where(into[group] >= 0, into[group], group)
        return first_appearance_ids(out)
