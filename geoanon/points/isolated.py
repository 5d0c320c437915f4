"""Isolated records: the few that a class's box would place far from the rest.

A class whose records fall on two sides of a wide empty gap, one side holding
fewer than k of them, publishes a box whose far side is mostly empty space:
whoever reads the box knows that its far corner holds a record or a handful,
and how far out (300 records around Raleigh and one on Bermuda: a box from
Raleigh to the Atlantic, Bermuda in its corner). Such records are *isolated*:
along an axis, beyond the widest gap between a class's consecutive records
lie fewer than k of them, and the nearest of them lies farther from the
others (two at least) than :data:`ISOLATION` times the diagonal of the others' own box, or
of the grid the boxes are published on where that is wider (the two groups
are apart on the ground, not merely side by side on one axis or a street
apart). They are published without a location, most isolated first (the
farthest, in km), within a budget of records (:func:`within_budget`); the
rest of their class keeps its box, held to the records it keeps.
"""
from __future__ import annotations

import numpy as np

from ..choices import WITHHELD

__all__ = ["ISOLATION", "WITHHELD", "budget_rows", "isolated_rows", "within_budget"]

ISOLATION = 4.0     # records farther than this many times the rest's diagonal from the rest of their class


def budget_rows(share: float, rows: int, k: int) -> int:
    """The rows a budget of ``share`` of a table of ``rows`` allows to be
    withheld: at least ``2 k`` (a whole class of up to 2k - 1 records can go,
    where one isolated record cannot be a class of its own), none for 0."""
    return 0 if share == 0 else max(int(np.ceil(share * rows)), 2 * k)


def isolated_rows(x, y, x_km, y_km: float, labels: np.ndarray, k: int, floor_km: float = 0.0
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Which rows are isolated in their class, and how far each lies from the
    rest of its class (km; 0 where not isolated).

    ``x``, ``y``: each row's coordinates (``x`` unwrapped across the
    antimeridian); ``x_km`` (per row, or a number) and ``y_km`` what one unit
    of each is worth on the ground; ``labels``: each row's class, -1 for
    rows without one; ``floor_km``: the least diagonal the rest of a class is
    taken to have (the grid of published edges)."""
    labels = np.asarray(labels, dtype=np.int64)
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    x_km = np.broadcast_to(np.asarray(x_km, dtype=np.float64), labels.shape)
    flagged = np.zeros(labels.size, dtype=bool)
    apart = np.zeros(labels.size)
    rows = np.flatnonzero(labels >= 0)
    if rows.size == 0:
        return flagged, apart
    for values in (x, y):
        for members, far in _far_sides(values[rows], labels[rows], k):
            group, rest = rows[members[far]], rows[members[~far]]
            scale = float(np.mean(x_km[rows[members]]))
            gx, gy, rx, ry = x[group] * scale, y[group] * y_km, x[rest] * scale, y[rest] * y_km
            diagonal = max(float(np.hypot(np.ptp(rx), np.ptp(ry))), floor_km)
            nearest = np.sqrt(((gx[:, None] - rx[None, :]) ** 2 + (gy[:, None] - ry[None, :]) ** 2).min())
            if nearest > ISOLATION * diagonal:
                flagged[group] = True
                apart[group] = np.maximum(apart[group], nearest)
    return flagged, apart


def _far_sides(values: np.ndarray, labels: np.ndarray, k: int):
    """Per class whose widest gap along ``values`` has fewer than ``k`` rows
    beyond it and at least two on this side, and is wider than
    :data:`ISOLATION` times what those span along it (the ground distance
    must be that much too): its rows' positions, and whether each lies on
    the far side."""
    order = np.lexsort((values, labels))
    lv, vv = labels[order], values[order]
    starts = np.flatnonzero(np.r_[True, lv[1:] != lv[:-1]])
    ends = np.r_[starts[1:], lv.size]
    diff = np.r_[0.0, np.diff(vv)]
    diff[starts] = -1.0                                   # no gap before a class's first record
    widest = np.maximum.reduceat(diff, starts)
    owner = np.repeat(np.arange(starts.size), ends - starts)
    at = np.flatnonzero((diff == widest[owner]) & (diff > 0))
    found, first = np.unique(owner[at], return_index=True)
    cut = at[first]
    before, after = cut - starts[found], ends[found] - cut
    rest = np.where(before <= after, vv[ends[found] - 1] - vv[cut], vv[cut - 1] - vv[starts[found]])
    wide = (np.minimum(before, after) < k) & (np.maximum(before, after) >= 2) & (widest[found] > ISOLATION * rest)
    for c, cut, before, after in zip(found[wide].tolist(), cut[wide].tolist(), before[wide].tolist(),
                                     after[wide].tolist()):
        members = order[starts[c]:ends[c]]
        far = np.arange(members.size) < before if before <= after else np.arange(members.size) >= before
        yield members, far


def within_budget(flagged: np.ndarray, apart: np.ndarray, labels: np.ndarray, sizes: np.ndarray, k: int,
                  budget: int) -> np.ndarray:
    """The isolated rows to withhold: each class's isolated rows together,
    the farthest first, taken while the rows they take with them stay within
    ``budget``: the isolated rows, or the whole class (``sizes``: rows per
    class) where fewer than ``k`` would be left."""
    rows = np.flatnonzero(flagged)
    chosen = np.zeros(flagged.size, dtype=bool)
    if rows.size == 0:
        return chosen
    classes, inverse, count = np.unique(labels[rows], return_inverse=True, return_counts=True)
    farthest = np.zeros(classes.size)
    np.maximum.at(farthest, inverse, apart[rows])
    cost = np.where(sizes[classes] - count >= k, count, sizes[classes])
    used = 0
    for i in np.lexsort((classes, -farthest)).tolist():
        if used + cost[i] <= budget:
            used += int(cost[i])
            chosen[rows[inverse == i]] = True
    return chosen
