"""A release from the relaxation of Theorem 9's program (Liang and Yuan):
its fractional counts rounded to whole rows, then repaired and improved by
moving rows between suppression patterns.

In the program every pattern is one class, so a release is a count of rows
per entry and suppression set (:class:`PatternCounts`). Measured on Adult
with t = 0.2 and 0.3 (equal ground): HiGHS finds no feasible point of the
t-closeness program in 60 s, nor on 1,000 or 3,000 of its rows in 120 s
(t = 0.2), because every class of the relaxation sits exactly at t and
rounding breaks nearly all of them. The relaxation, solved with t
tightened by ``TIGHTEN`` so that rounding keeps most classes within t, is rounded per entry (largest remainders), classes
that miss the model send rows one suppression level up (:func:`repair`), the
all-``*`` class takes the rows it lacks from others (:func:`fill_top`), and
single rows go back down wherever both classes stay within the model
(:func:`descend`). Measured on Adult (stars after :func:`descend`, t = 0.2 /
0.3): tightening by 0 gives 14,328 / 6,445; by 0.025, 14,050 / 6,002; by
0.06, 13,966 / 5,926; by 0.1, 14,274 / 6,081.
"""
from __future__ import annotations

import numpy as np

from ..models import emd_rows
from .instance import Instance

__all__ = ["TIGHTEN", "release_from_relaxation"]

TIGHTEN = 0.06        # the relaxation is solved with t (1 - TIGHTEN); see the module


class PatternCounts:
    """Rows of every entry (:attr:`Instance.entries`) per suppression set
    (bit j: column j starred), and the sensitive counts of every pattern's class."""

    def __init__(self, inst: Instance, pattern: np.ndarray, counts: np.ndarray):
        self.inst, self.pattern, self.counts = inst, pattern, counts            # entries x sets
        self.value = inst.entries[1]
        n_sets = pattern.shape[1]
        self.stars = np.array([bin(s).count("1") for s in range(n_sets)])
        self.level = np.zeros(int(pattern.max()) + 1, dtype=np.int64)
        self.level[pattern.ravel()] = np.tile(self.stars, pattern.shape[0])
        self.hist = np.zeros((self.level.size, inst.n_values), dtype=np.int64)
        np.add.at(self.hist, (pattern.ravel(), np.repeat(self.value, n_sets)), counts.ravel())

    @property
    def cost(self) -> int:
        return int((self.counts * self.stars).sum())

    def shortfall(self, hist: np.ndarray) -> np.ndarray:
        """:meth:`Instance.shortfall` of classes given by their sensitive
        counts (rows of ``hist``); -inf for an empty one, which is no class."""
        size = hist.sum(axis=1)
        share = hist / np.maximum(size, 1)[:, None]
        inst = self.inst
        measures = {"size": size, "l": size / np.maximum(hist.max(axis=1), 1), "l_distinct": (hist > 0).sum(axis=1),
                    "t": emd_rows(share, inst.q, inst.ground)}
        return np.where(size > 0, inst.shortfall(measures), -np.inf)

    def bad(self) -> np.ndarray:
        """Patterns whose class misses the model."""
        return np.flatnonzero(self.shortfall(self.hist) > 0)

    def move(self, entry: int, source: int, target: int, rows: int = 1) -> None:
        """``rows`` rows of ``entry`` from suppression set ``source`` to ``target``."""
        v = self.value[entry]
        self.counts[entry, source] -= rows
        self.counts[entry, target] += rows
        self.hist[self.pattern[entry, source], v] -= rows
        self.hist[self.pattern[entry, target], v] += rows

    def with_row(self, patterns, value, sign=1) -> np.ndarray:
        """Histograms of ``patterns`` with one row of ``value`` added (sign 1) or taken out (-1)."""
        out = self.hist[patterns].copy()
        out[:, value] += sign
        return out

    def holders(self, pattern: int, value: int | None = None):
        """(entries, sets) holding rows in ``pattern`` (of ``value`` when given)."""
        entries, sets = np.nonzero((self.pattern == pattern) & (self.counts > 0))
        if value is not None:
            keep = self.value[entries] == value
            entries, sets = entries[keep], sets[keep]
        return entries, sets


def round_largest_remainder(x: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Whole counts per entry (rows of ``x``) summing to ``rows``: the floors,
    plus one for the largest fractional parts (and any rows still missing on
    the largest count)."""
    counts = np.floor(x + 1e-9).astype(np.int64)
    counts = np.minimum(counts, rows[:, None])
    fraction = np.where(counts < rows[:, None], x - counts, -np.inf)
    order = np.argsort(-fraction, axis=1, kind="stable")
    missing = rows - counts.sum(axis=1)
    while (missing < 0).any():                                  # floors above the rows (float noise): trim
        e = int(np.flatnonzero(missing < 0)[0])
        counts[e, int(np.argmax(counts[e]))] -= 1
        missing[e] += 1
    take = np.arange(x.shape[1])[None, :] < missing[:, None]
    np.add.at(counts, (np.repeat(np.arange(x.shape[0]), x.shape[1])[take.ravel()], order[take]), 1)
    left = rows - counts.sum(axis=1)                            # x short of the rows by more than one per set
    counts[np.arange(x.shape[0]), np.argmax(x, axis=1)] += left
    return counts


def repair(pc: PatternCounts) -> None:
    """Level by level from the unstarred classes up: a class that misses the
    model gives away, one at a time, the row whose leaving helps it most, to
    the parent pattern (one more ``*``) that takes it best; when no single row
    helps (too small for k), all its rows go up. The all-``*`` class is left
    to :func:`fill_top`."""
    top = pc.stars.size - 1
    for level in range(pc.stars[top]):
        for p in pc.bad():
            if pc.level[p] != level:
                continue
            while pc.hist[p].sum() > 0 and pc.shortfall(pc.hist[p][None])[0] > 0:
                present = np.flatnonzero(pc.hist[p])
                after = pc.hist[p][None, :] - np.eye(pc.hist.shape[1], dtype=np.int64)[present]
                gains = pc.shortfall(pc.hist[p][None])[0] - pc.shortfall(after)
                if gains.max() <= 0:
                    for entry, source in zip(*pc.holders(p)):
                        pc.move(entry, source, _best_parent(pc, entry, source), pc.counts[entry, source])
                    break
                value = present[int(np.argmax(gains))]
                entries, sets = pc.holders(p, value)
                entry, source = int(entries[0]), int(sets[0])
                pc.move(entry, source, _best_parent(pc, entry, source))


def _best_parent(pc: PatternCounts, entry: int, source: int) -> int:
    """The suppression set one ``*`` above ``source`` whose class is left
    furthest within the model by one more row of the entry (ties: the larger class)."""
    parents = [source | 1 << j for j in range(pc.stars[-1]) if not source >> j & 1]
    patterns = pc.pattern[entry, parents]
    after = pc.shortfall(pc.with_row(patterns, pc.value[entry]))
    order = np.lexsort((-pc.hist[patterns].sum(axis=1), after))
    return parents[int(order[0])]


def fill_top(pc: PatternCounts) -> bool:
    """Make the all-``*`` class meet the model by taking, one row at a time,
    the value that helps it most from the most starred class that stays
    within the model without it. False when no row can be taken."""
    full = pc.stars.size - 1
    top = int(pc.pattern[0, full])
    while pc.shortfall(pc.hist[top][None])[0] > 0:
        now = pc.shortfall(pc.hist[top][None])[0]
        values = np.arange(pc.hist.shape[1])
        gains = now - pc.shortfall(pc.hist[top][None, :] + np.eye(values.size, dtype=np.int64))
        for value in values[np.argsort(-gains, kind="stable")]:
            if gains[value] <= 0:
                return False
            entries, sets = np.nonzero((pc.counts > 0) & (pc.value[:, None] == value))
            keep = sets != full
            entries, sets = entries[keep], sets[keep]
            if entries.size == 0:
                continue
            sources = pc.pattern[entries, sets]
            fits = pc.shortfall(pc.with_row(sources, value, -1)) <= 0
            if fits.any():
                pick = np.flatnonzero(fits)[np.argmax(pc.stars[sets[fits]])]
                pc.move(int(entries[pick]), int(sets[pick]), full)
                break
        else:
            return False
    return True


def descend(pc: PatternCounts) -> None:
    """Single rows down to a suppression set with fewer ``*`` (the fewest
    first) wherever both classes stay within the model, most starred rows
    first, until no row moves."""
    n_sets = pc.stars.size
    subsets = [np.array(sorted((t for t in range(s) if t & s == t), key=lambda t: pc.stars[t]), dtype=np.int64)
               for s in range(n_sets)]
    moved = True
    while moved:
        moved = False
        entries, sets = np.nonzero(pc.counts)
        for i in np.argsort(-pc.stars[sets], kind="stable"):
            entry, source = int(entries[i]), int(sets[i])
            targets, value = subsets[source], pc.value[entry]
            while targets.size and pc.counts[entry, source] > 0:
                if pc.shortfall(pc.with_row([pc.pattern[entry, source]], value, -1))[0] > 0:
                    break
                fits = pc.shortfall(pc.with_row(pc.pattern[entry, targets], value)) <= 0
                if not fits.any():
                    break
                pc.move(entry, source, int(targets[np.argmax(fits)]))
                moved = True


def release_from_relaxation(inst: Instance, pattern: np.ndarray, x: np.ndarray) -> np.ndarray | None:
    """Counts per entry and suppression set of a release meeting the model,
    from the relaxation's counts ``x`` (entries x sets); None if the repair fails."""
    pc = PatternCounts(inst, pattern, round_largest_remainder(x, inst.entries[2]))
    repair(pc)
    if not fill_top(pc):
        return None
    descend(pc)
    if pc.bad().size:
        return None
    return pc.counts
