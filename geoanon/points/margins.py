"""Published edges keep away from the records they enclose.

A box edge that lies a hair from one of its records tells where that record
is (a cut halfway between two records a millionth of a degree apart publishes
both coordinates to seven decimals). The rule: no published edge lies closer
to any record published with it than :data:`EDGE_MARGIN` of the box's extent
on that axis. Cuts are placed in gaps wide enough where the data allow
(:func:`needed_gap`); a class whose box still pins one of its records is
published without a location (:func:`pinned_rows` finds them), so the rule
holds for every box released.
"""
from __future__ import annotations

import numpy as np

__all__ = ["EDGE_MARGIN", "needed_gap", "pinned_rows"]

EDGE_MARGIN = 0.01     # share of a box's extent that separates each edge from the records published with it


def pinned_rows(x: np.ndarray, y: np.ndarray, boxes: np.ndarray) -> np.ndarray:
    """Which rows lie closer than :data:`EDGE_MARGIN` of their box's extent to
    one of its edges, on either axis.

    ``boxes`` holds each row's published (xmin, ymin, xmax, ymax), NaN where
    it has none; ``xmin > xmax`` crosses the antimeridian (widths mod 360)."""
    boxes = np.asarray(boxes, dtype=np.float64).reshape(-1, 4)
    out = np.zeros(len(boxes), dtype=bool)
    known = ~np.isnan(boxes).any(axis=1)
    for axis, v in ((0, np.asarray(x, dtype=np.float64)), (1, np.asarray(y, dtype=np.float64))):
        lo, hi = boxes[known, axis], boxes[known, axis + 2]
        w = v[known]
        if axis == 0:
            width, below, above = (hi - lo) % 360, (w - lo) % 360, (hi - w) % 360
            plain = lo <= hi
            width = np.where(plain, hi - lo, np.where(width == 0, 360.0, width))
            below, above = np.where(plain, w - lo, below), np.where(plain, hi - w, above)
        else:
            width, below, above = hi - lo, w - lo, hi - w
        reach = EDGE_MARGIN * width
        out[known] |= (below < reach) | (above < reach)
    return out


def needed_gap(extent) -> np.ndarray:
    """The gap a cut of a node whose records span ``extent`` on the cut's
    axis needs between its two sides' nearest records, so that any box it
    bounds (at most that wide) keeps :data:`EDGE_MARGIN` on both sides
    (elementwise)."""
    return 2.0 * EDGE_MARGIN * np.asarray(extent, dtype=np.float64)
