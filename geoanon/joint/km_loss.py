"""The location's loss in km, on a log scale (``location_loss="km"``).

A class whose location box has a diagonal of ``D`` km costs each of its
rows, per location column,

    log(1 + D / u) / log(1 + F / u),      u = F / 10 ** DECADES,

where ``F`` is the diagonal of the box of all the table's records: the whole
table's box costs 1, and every tenfold of width costs the same share, 1 /
``DECADES``, so 2 km against 1 km weighs as much as 200 km against 100 km (a
street against a district as a county against a state). NCP over the range
(``"range"``) charges width linearly: there a town-sized box costs nothing and
the search buys other columns' precision with a few very wide boxes only when
no box is wide. Boxes are measured as the search sees them (the records' box
on the grid, or the tile), on the ground: longitude degrees times the cosine
of the box's middle latitude.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._geo import KM_PER_DEGREE

__all__ = ["DECADES", "KmLoss", "km_loss"]

DECADES = 4.0       # the widths below F / 10**DECADES cost almost nothing


@dataclass(frozen=True)
class KmLoss:
    """The loss of :mod:`geoanon.joint.km_loss` for a location of two
    :class:`~geoanon.joint.dims.RankDim` (positions ``x``, ``y``: longitude,
    latitude or a projected pair), ``geographic`` or in units of
    ``km_per_unit``; ``unit`` u and ``full`` F in km."""

    x: int
    y: int
    geographic: bool
    km_per_unit: float
    unit: float
    full: float

    def diagonal(self, dims, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """The diagonal in km of the boxes of the location states ``xs``, ``ys`` (n x 4)."""
        dx, dy = dims.items[self.x], dims.items[self.y]
        x0, x1 = dx.intervals(xs)
        y0, y1 = dy.intervals(ys)
        if self.geographic:
            across = np.abs(x1 - x0) * KM_PER_DEGREE * np.cos(np.radians(np.clip((y0 + y1) / 2, -90, 90)))
            return np.hypot(across, (y1 - y0) * KM_PER_DEGREE)
        return np.hypot(x1 - x0, y1 - y0) * self.km_per_unit

    def loss(self, dims, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        """Each state's loss per row and location column: the module's, 0
        where no location is held, 1 where located and unlocated rows mix."""
        xs, ys = np.asarray(xs, dtype=np.int64).reshape(-1, 4), np.asarray(ys, dtype=np.int64).reshape(-1, 4)
        size = dims.items[self.x].size, dims.items[self.y].size
        none = (xs[:, 2] >= size[0]) | (ys[:, 2] >= size[1])
        mixed = (xs[:, 3] > size[0]) | (ys[:, 3] > size[1])
        d = np.maximum(self.diagonal(dims, xs, ys), 0.0)
        scaled = np.log1p(d / self.unit) / np.log1p(self.full / self.unit)
        return np.where(none, 0.0, np.where(mixed, 1.0, scaled))

    def loss_of(self, dims, x: tuple, y: tuple) -> float:
        """:meth:`loss` of one state, in plain floats (the node-by-node search asks for many, one at a time)."""
        dx, dy = dims.items[self.x], dims.items[self.y]
        if x[2] >= dx.size or y[2] >= dy.size:
            return 0.0
        if x[3] > dx.size or y[3] > dy.size:
            return 1.0
        (x0, x1), (y0, y1) = dx.interval(x), dy.interval(y)
        if self.geographic:
            across = abs(x1 - x0) * KM_PER_DEGREE * math.cos(math.radians(min(max((y0 + y1) / 2, -90.0), 90.0)))
            d = math.hypot(across, (y1 - y0) * KM_PER_DEGREE)
        else:
            d = math.hypot(x1 - x0, y1 - y0) * self.km_per_unit
        return math.log1p(max(d, 0.0) / self.unit) / math.log1p(self.full / self.unit)


def km_loss(dims, geographic: bool, km_per_unit: float = 1.0) -> KmLoss:
    """The :class:`KmLoss` of ``dims``' location (its two rank dimensions,
    longitude first), ``F`` measured on all its records."""
    x, y = (j for j, d in enumerate(dims.items) if d.location)
    loss = KmLoss(x, y, geographic, km_per_unit, 1.0, 1.0)
    root = dims.root(np.arange(dims.items[x].rank.size))
    full = float(loss.diagonal(dims, np.array([root[x]]), np.array([root[y]]))[0])
    full = full if np.isfinite(full) and full > 0 else 1.0
    return KmLoss(x, y, geographic, km_per_unit, full / 10 ** DECADES, full)
