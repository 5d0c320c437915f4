"""geoanon's default for Min-Max Bin Covering: spread the items evenly over as
many classes as the data can cover.

With at most B classes (:func:`bins_upper_bound`), the largest class weighs
at least W / B, so the aim is B classes of nearly equal weight:

1. the items heavier than ``FINE`` of the average class, largest first, in
   rounds: each round deals one item to every class still below the average,
   the largest to the lightest (LPT by rounds); the many small items
   that remain then fill the classes up to a common water level, cut from
   their prefix sums in one vectorized step;
2. classes below k take items from classes that can spare them (moves or
   swaps); when that fails, fewer classes are tried (binary search on B);
3. local search: move one item, or swap two, between the heaviest class and
   one of the lightest while that lowers the heaviest and keeps both >= k,
   until the heaviest reaches the lower bound or no exchange helps; classes
   are also re-divided in pairs by subset sums (a dynamic program on
   bitsets) when that is small enough, in the repair as well.
"""
from __future__ import annotations

import numpy as np

__all__ = ["balanced", "bins_upper_bound"]

FINE = 1 / 100         # items at most this fraction of the average class are water-filled
PARTNERS = 8           # lightest (or heaviest) classes tried for an exchange, per step
STEPS_PER_CLASS = 4    # exchanges per class, at most (plus STEPS_BASE)
STEPS_BASE = 64
RESPLIT_CELLS = 1 << 22   # two classes are re-divided by subset sums when items x weight is at most this
SMALL = 64             # instances of up to this many items also try one and two classes fewer


def bins_upper_bound(x: np.ndarray, k: int) -> int:
    """At most this many classes of weight >= k exist: each item >= k can head
    one, and the other items together cover at most floor(their total / k)."""
    big = x >= k
    return int(big.sum()) + int(x[~big].sum()) // k


def balanced(x: np.ndarray, k: int, lower_bound: int) -> np.ndarray:
    """Class of every item (for ``x`` in its given order); see the module."""
    order = np.argsort(-x, kind="stable")
    xs = x[order]
    best = _most_classes(xs, k, bins_upper_bound(xs, k), lower_bound)
    if xs.size <= SMALL:
        fewer = (_spread_over(xs, k, c, lower_bound) for c in range(best.count - 1, max(best.count - 3, 0), -1))
        best = min([best, *(c for c in fewer if c is not None)], key=lambda c: (int(c.levels.max()), -c.count))
    result = np.empty(x.size, dtype=np.int64)
    result[order] = best.bins
    return result


def _most_classes(xs, k, top, lower_bound):
    """The spread over the most classes (at most ``top``) that all reach k."""
    found = _spread_over(xs, k, top, lower_bound)
    if found is not None:
        return found
    lo, hi, best = 1, top - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        candidate = _spread_over(xs, k, mid, lower_bound)
        if candidate is None:
            hi = mid - 1
        else:
            best, lo = candidate, mid + 1
    return best if best is not None else _Classes(xs, np.zeros(xs.size, dtype=np.int64), 1)


def _spread_over(xs, k, count, lower_bound):
    """Items (sorted decreasing) over ``count`` classes, repaired and improved;
    None when the classes cannot all reach k."""
    classes = _Classes(xs, _lpt_then_fill(xs, count), count)
    if not classes.repair(k):
        return None
    classes.improve(k, lower_bound)
    return classes


def _lpt_then_fill(xs, count):
    """LPT by rounds for the items above ``FINE`` of the average class,
    water-filling for the rest."""
    bins = np.empty(xs.size, dtype=np.int64)
    levels = np.zeros(count, dtype=np.int64)
    fine = max(1.0, FINE * float(xs.sum()) / count)
    coarse = int(np.searchsorted(-xs, -fine, side="left"))    # items > fine come first
    left = np.r_[np.cumsum(xs[::-1])[::-1], 0]                   # mass of the items from i on
    start = 0
    while start < coarse:
        rank = np.argsort(levels, kind="stable")
        below, _ = _water_level(levels[rank], float(left[start]))     # classes the rest will fill
        end = min(start + below, coarse)
        bins[start:end] = rank[:end - start]
        levels[rank[:end - start]] += xs[start:end]
        start = end
    if coarse < xs.size:
        bins[coarse:] = _water_fill(xs[coarse:], levels)
    return bins


def _water_fill(items, levels):
    """Pour ``items`` (decreasing) into the lowest classes up to a common water
    level, in chunks of similar size (each item more than half the chunk's
    first): each chunk's items are cut into contiguous runs that bring the
    classes below its level to within one item of it, and the next, smaller
    chunk evens out what that left. Updates ``levels``; returns the classes."""
    bins = np.empty(items.size, dtype=np.int64)
    start = 0
    while start < items.size:
        end = max(int(np.searchsorted(-items, -items[start] / 2.0, side="right")), start + 1)
        chunk = items[start:end]
        rank = np.argsort(levels, kind="stable")
        below, water = _water_level(levels[rank], float(chunk.sum()))
        reach = np.cumsum(water - levels[rank[:below]])
        middle = np.cumsum(chunk) - chunk / 2.0
        bins[start:end] = rank[np.minimum(np.searchsorted(reach, middle, side="right"), below - 1)]
        levels += np.bincount(bins[start:end], weights=chunk, minlength=levels.size).astype(np.int64)
        start = end
    return bins


def _water_level(low, mass):
    """Pouring ``mass`` over classes at levels ``low`` (ascending): how many
    classes it covers and the common level they reach."""
    water = (mass + np.cumsum(low, dtype=float)) / np.arange(1, low.size + 1)
    j = int(np.flatnonzero(water <= np.r_[low[1:], np.inf])[0])
    return j + 1, float(water[j])


class _Classes:
    """Items (sorted decreasing) in classes, with levels and member lists kept
    up to date under exchanges."""

    def __init__(self, xs, bins, count):
        self.xs, self.bins, self.count = xs, bins, count
        self.levels = np.bincount(bins, weights=xs, minlength=count).astype(np.int64)
        self.sizes = np.bincount(bins, minlength=count)
        self._order = np.argsort(bins, kind="stable")
        self._starts = np.r_[0, np.cumsum(self.sizes)]
        self._changed = {}                     # members of the classes exchanges have touched

    def members(self, c) -> np.ndarray:
        found = self._changed.get(c)
        return self._order[self._starts[c]:self._starts[c + 1]] if found is None else found

    def repair(self, k) -> bool:
        """Bring every class to k by exchanges with classes that stay >= k.
        Each step lowers the total shortfall, so the loop ends."""
        while True:
            short = int(np.argmin(self.levels))
            need = k - int(self.levels[short])
            if need <= 0:
                return True
            best = None                                   # (covers the need, preference, exchange, donor)
            # donors: the classes with the most to spare, among those of two or more items
            spares = np.where(self.sizes > 1, self.levels, np.iinfo(np.int64).min)
            for donor in np.argsort(-spares, kind="stable")[:PARTNERS].tolist():
                spare = int(self.levels[donor]) - k
                if spare <= 0:
                    break
                shift, give, take = self._shifts(donor, short, need, above=True)
                fits = shift <= spare
                if fits.any():
                    i = int(np.argmin(np.where(fits, shift, np.inf)))
                    option = (1, -shift[i], (give[i], take[i]), donor)
                else:
                    shift, give, take = self._shifts(donor, short, spare, above=False)
                    if not (shift > 0).any():
                        continue
                    i = int(np.argmax(np.where(shift > 0, shift, -1)))
                    option = (0, shift[i], (give[i], take[i]), donor)
                if best is None or option[:2] > best[:2]:
                    best = option
                if best[0]:
                    break
            if best is not None:
                self._exchange(best[3], short, *best[2])
            elif not any(self._resplit(short, donor, k, int(self.levels.max()) + 1)
                         for donor in np.argsort(-spares, kind="stable")[:PARTNERS].tolist() if donor != short):
                return False

    def improve(self, k, lower_bound) -> None:
        """Exchanges between the heaviest class and the lightest ones while
        they lower the heaviest below its level and keep it >= k."""
        for _ in range(STEPS_PER_CLASS * self.count + STEPS_BASE):
            heavy = int(np.argmax(self.levels))
            top = int(self.levels[heavy])
            if top <= lower_bound:
                return
            for other in np.argsort(self.levels, kind="stable")[:PARTNERS].tolist():
                gap = top - int(self.levels[other])
                if gap <= 1:
                    return
                sides = [self._shifts(heavy, other, gap / 2, above=a) for a in (True, False)]
                shift, give, take = (np.concatenate(parts) for parts in zip(*sides))
                ok = (shift > 0) & (shift < gap) & (top - shift >= k)
                if ok.any():
                    i = int(np.argmin(np.where(ok, np.maximum(top - shift, top - gap + shift), np.inf)))
                    self._exchange(heavy, other, give[i], take[i])
                    break
            else:
                if not any(self._resplit(heavy, other, k, top)
                           for other in np.argsort(self.levels, kind="stable")[:PARTNERS].tolist() if other != heavy):
                    return

    def _resplit(self, a, b, k, ceiling) -> bool:
        """Divide the items of classes a and b anew, as evenly as subset sums
        allow with both >= k, if the dynamic program is small enough
        (``RESPLIT_CELLS``) and the heavier part comes out below ``ceiling``.
        Returns whether it did."""
        union = np.r_[self.members(a), self.members(b)]
        total = int(self.levels[a]) + int(self.levels[b])
        if union.size * total > RESPLIT_CELLS:
            return False
        sizes = self.xs[union].tolist()
        reach, rows = 1, []
        for size in sizes:                      # bit s of reach: some subset sums to s
            rows.append(reach)
            reach |= reach << size
        above = reach >> ((total + 1) // 2)
        if above == 0:
            return False
        heavier = (total + 1) // 2 + (above & -above).bit_length() - 1
        if heavier > total - k or heavier >= ceiling:
            return False
        inside, left = np.zeros(union.size, dtype=bool), heavier
        for i in range(union.size - 1, -1, -1):  # walk back: item i is in the subset unless left was reachable without it
            if not (rows[i] >> left) & 1:
                inside[i], left = True, left - sizes[i]
        self.bins[union[inside]], self.bins[union[~inside]] = a, b
        self._changed[a], self._changed[b] = union[inside], union[~inside]
        self.sizes[a], self.sizes[b] = int(inside.sum()), int((~inside).sum())
        self.levels[a], self.levels[b] = heavier, total - heavier
        return True

    def _shifts(self, source, target, wanted, *, above):
        """For each item a of ``source``: the exchange with an item b of
        ``target`` (or none, size 0) whose shift a - b is the smallest >=
        ``wanted`` (``above``) or the largest <= it. Returns the shifts (nan
        where there is none), the items given and the items taken (-1: none)."""
        ours = self.members(source)
        theirs = np.r_[-1, self.members(target)]
        sizes = np.r_[0, self.xs[theirs[1:]]]
        order = np.argsort(sizes, kind="stable")
        sizes, theirs = sizes[order], theirs[order]
        a = self.xs[ours]
        if above:
            pos = np.searchsorted(sizes, a - wanted, side="right") - 1
        else:
            pos = np.searchsorted(sizes, a - wanted, side="left")
        valid = (pos >= 0) & (pos < sizes.size)
        pos = np.clip(pos, 0, sizes.size - 1)
        return np.where(valid, a - sizes[pos], np.nan), ours, theirs[pos]

    def _exchange(self, source, target, give, take) -> None:
        """Move item ``give`` from source to target, and item ``take`` (if >= 0) back."""
        moved = int(self.xs[give]) - (int(self.xs[take]) if take >= 0 else 0)
        ours, theirs = self.members(source), self.members(target)
        ours, theirs = ours[ours != give], np.append(theirs, give)
        self.bins[give] = target
        if take >= 0:
            ours, theirs = np.append(ours, take), theirs[theirs != take]
            self.bins[take] = source
        self._changed[source], self._changed[target] = ours, theirs
        self.sizes[source], self.sizes[target] = ours.size, theirs.size
        self.levels[source] -= moved
        self.levels[target] += moved
