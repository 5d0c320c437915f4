"""Isolated records: the few that a class's box would place far from the rest.

A class holding a few records far from where the rest of it lies publishes a
box that is mostly empty space, its far corners holding only those few:
whoever reads the box learns that one or a handful of records lie out
there, and about where (300 records around Raleigh and one on Bermuda: a box
from Raleigh to the Atlantic, Bermuda in its corner). Such records are
*isolated*: farther from their class's core (its records within twice the
median distance from its centre, the median of their coordinates) than
:data:`ISOLATION` times the core's own diagonal (at least the grid the boxes
are published on), and fewer than k of them: without them the box would be
a tenth as wide or less. One far record, a handful scattered about, or a
remote cluster smaller than k are all found so, while a class spread evenly,
or over two towns of about equal size, has none. They are published without
a location, the farthest first, within a budget of records
(:func:`within_budget`); the rest of their class keeps its box, held to the
records it keeps.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..choices import WITHHELD

__all__ = ["ISOLATION", "WITHHELD", "budget_rows", "isolated_rows", "within_budget"]

ISOLATION = 10.0    # records farther from their class's core than this many times its diagonal are isolated


def budget_rows(share: float, rows: int, k: int) -> int:
    """The rows a budget of ``share`` of a table of ``rows`` allows to be
    withheld: at least ``2 k`` (a whole class of up to 2k - 1 records can go,
    where one isolated record cannot be a class of its own), none for 0."""
    return 0 if share == 0 else max(int(np.ceil(share * rows)), 2 * k)


def isolated_rows(x, y, x_km, y_km: float, labels: np.ndarray, k: int, floor_km: float = 0.0
                  ) -> tuple[np.ndarray, np.ndarray]:
    """Which rows are isolated in their class, and how far each lies from its
    class's core (km; 0 where not isolated).

    ``x``, ``y``: each row's coordinates (``x`` unwrapped across the
    antimeridian); ``x_km`` (per row, or a number) and ``y_km`` what one unit
    of each is worth on the ground; ``labels``: each row's class, -1 for
    rows without one; ``floor_km``: the least radius a class's core is taken
    to have (the grid of published edges: no record is isolated from a
    street away).

    >>> x = np.r_[np.linspace(-78.9, -78.4, 9), -64.8]; y = np.r_[np.linspace(35.7, 36.0, 9), 32.3]
    >>> flagged, far = isolated_rows(x, y, 90.0, 111.0, np.zeros(10, dtype=int), 5)
    >>> np.flatnonzero(flagged).tolist(), round(float(far[9]))
    ([9], 1281)
    """
    labels = np.asarray(labels, dtype=np.int64)
    flagged = np.zeros(labels.size, dtype=bool)
    apart = np.zeros(labels.size)
    rows = np.flatnonzero(labels >= 0)
    if rows.size == 0:
        return flagged, apart
    c = labels[rows]
    x, y = np.asarray(x, dtype=np.float64)[rows], np.asarray(y, dtype=np.float64)[rows]
    x_scale = np.broadcast_to(np.asarray(x_km, dtype=np.float64), labels.shape)[rows]
    frame = pd.DataFrame({"c": c, "x": x, "y": y})
    centre = frame.groupby("c")[["x", "y"]].transform("median")
    distance = np.hypot((x - centre["x"].to_numpy()) * x_scale, (y - centre["y"].to_numpy()) * y_km)
    radius = pd.Series(distance).groupby(c).transform("median").to_numpy()
    core = frame[distance <= 2 * np.maximum(radius, floor_km)].groupby("c").agg(
        x0=("x", "min"), x1=("x", "max"), y0=("y", "min"), y1=("y", "max")).reindex(c)
    x0, x1, y0, y1 = (core[name].to_numpy() for name in ("x0", "x1", "y0", "y1"))
    outside = np.hypot(np.maximum(np.maximum(x0 - x, x - x1), 0.0) * x_scale,
                       np.maximum(np.maximum(y0 - y, y - y1), 0.0) * y_km)
    diagonal = np.hypot((x1 - x0) * x_scale, (y1 - y0) * y_km)
    far = outside > ISOLATION * np.maximum(diagonal, floor_km)
    few = pd.Series(far).groupby(c).transform("sum").to_numpy() < k
    flagged[rows] = far & few
    apart[rows] = np.where(far & few, outside, 0.0)
    return flagged, apart


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
