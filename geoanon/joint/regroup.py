"""Neighbouring classes pooled and cut again by the other columns, spending a
median and p90 box (``regroup_km``).

The search keeps many records' boxes well under the median box a user
accepts: width the other columns could spend. :func:`regrouped` spends it by
local search over class boundaries: each class is pooled with each of its
``NEIGHBOURS`` nearest classes (by their records' mean position on the
ground) and the pair's rows are cut again from their root by the search's
own node-by-node cuts (:func:`~geoanon.joint.tiling.split_down`) with the
location's weight 0, so only the other columns' loss counts. Per round, the
changes are taken by their gain (the other columns' weighted NCP they
remove) over one plus the records they move beyond the median or the p90
bound, one change per class, while the located records keep the bounds; up
to ``ROUNDS`` rounds, while a change gains.

Guarantees (tests assert each):

- every class meets the model: a pair is cut again only where its union
  meets it, and every cut keeps both sides within it (Du et al., Theorem 2's
  rule with the model in place of k, :mod:`geoanon.joint.cuts`);
- every row keeps exactly one class; classes without a box (withheld,
  suppressed) are left as they are;
- the median and the p90 box of the records (those without a box counted
  infinitely wide, as a peer's suppressed ones) stay within the bounds,
  each the wider of the asked one and the partition's own; no box is
  wider than ``max_km``, and a new box no wider than the wider of its pair's
  and the p90 bound;
- the other columns' summed loss never grows (a change is taken only where
  it gains).

``ROUNDS`` comes from ``bench/bench_slack.py``; ``NEIGHBOURS`` and
``TRIPLES_FROM`` were chosen on tuning ``city`` at k = 50 by the worst ratio
against the bench's Mondrian (``bench/bench_regroup.py``; bench/RESULTS.md,
"regroup_km"): 8 neighbours 0.88x, 16 0.81x, 32 0.79x; groups of three
besides 0.786x against 0.787x, at 1.7x the time, so pairs alone.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import combinations

import numpy as np

from .._forked import forked_map
from .location_loss import NCP
from .partition import JointPartition, partition_of
from .tiling import split_down

__all__ = ["NEIGHBOURS", "ROUNDS", "Regrouped", "regrouped", "within_counts"]

NEIGHBOURS = 32    # a class is pooled with each of this many nearest classes
ROUNDS = 30        # rounds of changes at most
TRIPLES_FROM = 0   # a class is pooled with each two of this many nearest classes too (0: pairs alone)
RUN = 500          # groups cut again by one forked process at a time


@dataclass
class Regrouped:
    """:func:`regrouped`'s result: the partition, the bounds it kept (km),
    the changes and rounds it made, and the other columns' weighted loss
    before and after."""

    part: JointPartition
    median_km: float
    p90_km: float
    changes: int
    rounds: int
    loss_before: float
    loss_after: float


def within_counts(n: int) -> tuple:
    """How many of ``n`` values must lie within a bound for their median and
    their p90 (``numpy.quantile``'s linear interpolation) to lie within it."""
    return n // 2 + 1, int(np.ceil(0.9 * (n - 1))) + 1


class _Classes:
    """The classes being regrouped (``leaves`` where ``movable``): rows,
    states, box km and other-column loss; and every record's box km
    (``row_km``, at its ``slot``; those of classes left as they are
    infinitely wide, having none)."""

    def __init__(self, problem, leaves: list, movable: np.ndarray, km: np.ndarray, km_of, positions, n_rows: int):
        self.problem, self.km_of, self.positions = problem, km_of, positions
        self.rows = [r for (r, _), m in zip(leaves, movable) if m]
        self.states = [s for (_, s), m in zip(leaves, movable) if m]
        self.km = km[movable]
        self.loss = self._loss([leaf for leaf, m in zip(leaves, movable) if m])
        self.seen = {}          # ids of a group's classes' rows -> (their rows, :meth:`recut_all`'s result)
        held = np.concatenate([r for r, _ in leaves]) if leaves else np.zeros(0, dtype=np.int64)
        self.slot = np.full(n_rows, -1, dtype=np.int64)
        self.slot[held] = np.arange(held.size)
        self.row_km = np.repeat(np.where(movable, km, np.inf), [r.size for r, _ in leaves])

    def _loss(self, leaves) -> np.ndarray:
        return self.problem.class_costs([s for _, s in leaves], np.array([r.size for r, _ in leaves]))

    def centres(self) -> np.ndarray:
        return np.array([self.positions[r].mean(axis=0) for r in self.rows])

    def recut_all(self, groups: list, bound: float, max_km: float | None, allowed, n_jobs: int = 1) -> list:
        """Each group of classes of ``groups`` (tuples of class ids) pooled and
        cut again: (parts, their km, gain), or None where its union misses the
        model, would be wider than its widest class and ``bound`` (or
        ``max_km``), or gains nothing; each found once while its classes
        stand, the new unions' widths in one call of ``km_of``, the cuts in
        ``n_jobs`` forked processes (the same results in any number)."""
        keys = [tuple(id(self.rows[c]) for c in g) for g in groups]
        todo = [(key, g) for key, g in zip(keys, groups) if key not in self.seen]
        check, roots = self.problem.check, []
        for _, g in todo:
            rows = np.sort(np.concatenate([self.rows[c] for c in g]))
            held = check.holds(check.histogram(rows)[None, :])[0]
            roots.append((rows, self.problem.root(rows) if held else None))
        known = [st for _, st in roots if st is not None]
        widths = iter(self.km_of(known) if known else [])
        work = []
        for (_, g), (rows, root) in zip(todo, roots):
            width = float(next(widths)) if root is not None else np.inf
            fits = width <= max(*self.km[list(g)], bound) and (max_km is None or width <= max_km)
            work.append((g, rows, root) if fits else None)
        for (key, g), done in zip(todo, self._recut_many(work, allowed, n_jobs)):
            self.seen[key] = ([self.rows[c] for c in g], done)
        return [self.seen[key][1] for key in keys]

    def _recut_many(self, work: list, allowed, n_jobs: int) -> list:
        """:meth:`_recut` of each (group, rows, root) of ``work`` (None where
        None), in runs of :data:`RUN` over ``n_jobs`` forked processes."""
        runs = [work[i:i + RUN] for i in range(0, len(work), RUN)]
        done = forked_map(lambda run: [w and self._recut(*w, allowed) for w in run], runs, n_jobs)
        return [d for run in done for d in run]

    def take(self, parts: list, parts_km: np.ndarray, counted: list, bounds: tuple) -> bool:
        """Give the rows of ``parts`` their boxes' km if every record's median
        and p90 box stay within ``bounds``: at once where enough records lie
        within each (``counted``, :func:`within_counts`), else as
        ``numpy.quantile`` finds them (the counts alone miss an interpolated
        quantile). Whether it did."""
        at = np.concatenate([self.slot[r] for r, _ in parts])
        before = self.row_km[at]
        self.row_km[at] = np.repeat(parts_km, [r.size for r, _ in parts])
        if all(counted) or np.all(_quantiles(self.row_km) <= np.asarray(bounds)):
            return True
        self.row_km[at] = before
        return False

    def forget(self) -> None:
        """Forget the groups of classes that no longer stand."""
        standing = {id(r) for r in self.rows}
        self.seen = {key: v for key, v in self.seen.items() if standing.issuperset(key)}

    def _recut(self, group: tuple, rows: np.ndarray, root: tuple, allowed) -> tuple | None:
        parts = split_down(self.problem, rows, root, allowed)
        before = float(self.loss[list(group)].sum())
        gain = before - float(self._loss(parts).sum())
        if gain <= 1e-9 * max(1.0, before):
            return None
        return parts, self.km_of([s for _, s in parts]), gain


def regrouped(problem, part: JointPartition, km_of, positions: np.ndarray, bounds: tuple,
              max_km: float | None = None, neighbours: int | None = None, n_jobs: int = 1) -> Regrouped:
    """``part`` (the joint design's: each class its own location class) with
    neighbouring classes pooled and cut again (see the module) within
    ``bounds`` (median km, p90 km) of every record's box.

    ``km_of(states)``: each state's published box diagonal in km (NaN: no
    box); ``positions``: every row's position (n x d, any metric space whose
    distance orders neighbours, e.g. unit vectors on the sphere); ``max_km``:
    no box wider; ``neighbours``: the classes each is pooled with (default
    ``NEIGHBOURS``); ``n_jobs``: forked processes cutting the groups again
    (the result does not depend on it). Returns a :class:`Regrouped`."""
    other = replace(problem, weights=[0.0 if d.location else w for d, w in zip(problem.items, problem.weights)],
                    location_loss=NCP)
    leaves = part.leaves()
    km = km_of([s for _, s in leaves]) if leaves else np.zeros(0)
    movable = np.isfinite(km)
    if part.suppressed >= 0:
        movable[part.suppressed] = False
    fixed = [leaf for leaf, m in zip(leaves, movable) if not m]
    classes = _Classes(other, leaves, movable, km, km_of, positions, part.row_class.size)
    median, p90 = _quantiles(classes.row_km) if classes.row_km.size else (0.0, 0.0)
    bounds = (max(float(bounds[0]), float(median)), max(float(bounds[1]), float(p90)))
    loss_before = float(classes.loss.sum())
    allowed = list(range(len(problem.items)))
    changes = rounds = 0
    for rounds in range(1, ROUNDS + 1):
        made = _round(classes, bounds, max_km, allowed, neighbours or NEIGHBOURS, n_jobs)
        if not made:
            rounds -= 1
            break
        changes += made
    joined = _partition(problem, part, fixed, classes)
    return Regrouped(joined, bounds[0], bounds[1], changes, rounds, loss_before, float(classes.loss.sum()))


def _quantiles(km: np.ndarray) -> np.ndarray:
    """The median and p90 of ``km`` as ``numpy.quantile`` finds them, infinite
    where both records around one have no box (inf - inf)."""
    with np.errstate(invalid="ignore"):
        return np.nan_to_num(np.quantile(km, [0.5, 0.9]), nan=np.inf)


def _round(classes: _Classes, bounds, max_km, allowed, neighbours, n_jobs) -> int:
    """One round of changes (see the module); how many it made."""
    from scipy.spatial import cKDTree

    count = len(classes.rows)
    if count < 2:
        return 0
    centres = classes.centres()
    near = cKDTree(centres).query(centres, k=min(neighbours + 1, count))[1]
    sizes = np.array([r.size for r in classes.rows])
    groups = sorted({(min(i, j), max(i, j)) for i in range(count) for j in near[i].tolist() if j != i})
    groups += sorted({tuple(sorted((i, *two))) for i in range(count)
                      for two in combinations([j for j in near[i][:TRIPLES_FROM + 1].tolist() if j != i], 2)})
    found = []
    for group, done in zip(groups, classes.recut_all(groups, bounds[1], max_km, allowed, n_jobs)):
        if done is not None:
            parts, parts_km, gain = done
            moved = [sum(r.size for (r, _), d in zip(parts, parts_km) if d <= b)
                     - sum(int(sizes[c]) for c in group if classes.km[c] <= b) for b in bounds]
            found.append((-gain / (1 + max(-moved[0], 0) + max(-moved[1], 0)), group, parts, parts_km, moved))
    found.sort(key=lambda f: (f[0], f[1]))
    need = within_counts(classes.row_km.size)
    within = [int((classes.row_km <= b).sum()) for b in bounds]
    used, new = set(), []
    for _, group, parts, parts_km, moved in found:
        if used & set(group) or not classes.take(parts, parts_km, [w + m >= n for w, m, n in zip(within, moved, need)],
                                                 bounds):
            continue
        used |= set(group)
        within = [w + m for w, m in zip(within, moved)]
        new.append((parts, parts_km))
    if not new:
        return 0
    kept = [c for c in range(count) if c not in used]
    leaves = [p for parts, _ in new for p in parts]
    classes.rows = [classes.rows[c] for c in kept] + [r for r, _ in leaves]
    classes.states = [classes.states[c] for c in kept] + [s for _, s in leaves]
    classes.km = np.r_[classes.km[kept], np.concatenate([k for _, k in new])]
    classes.loss = np.r_[classes.loss[kept], classes._loss(leaves)]
    classes.forget()
    return len(new)


def _partition(problem, part: JointPartition, fixed: list, classes: _Classes) -> JointPartition:
    """The partition of the ``fixed`` leaves and the regrouped classes,
    numbered by what they publish (:func:`~geoanon.joint.partition.partition_of`),
    ``part``'s suppressed class and pooled rows kept."""
    leaves = fixed + list(zip(classes.rows, classes.states))
    suppressed_row = int(np.flatnonzero(part.row_class == part.suppressed)[0]) if part.suppressed >= 0 else None
    joined = partition_of(problem, leaves, None, part.design, part.evaluated, [])
    if suppressed_row is not None:
        joined.suppressed = int(joined.row_class[suppressed_row])
    joined.pooled_rows = part.pooled_rows
    return joined
