"""First cuts: the joint design's search, tried with one other column cut first.

The top-down search ranks a node's cuts by the loss they remove at that node.
Near the root a location cut removes the most, yet every location cut is
made sooner or later: the classes' final boxes are set by how many records
share a place, not by the order of the cuts. A category cut, by contrast,
pays there once and for all: cutting sex first leaves each sex its own
location partition, classes k records of one sex each, boxes wider by about
the square root of the share the part keeps. Made at the bottom instead, the
same cut needs a node of 3k records for k women and strands the others. So
the search never makes the cut where it pays best, and a weighted sum of
losses cannot reach the releases it misses (the frontier is not convex
there).

So a search of at most ``FIRST_CUT_ROWS`` rows is run once as it is and
once after each category's own cut of the table (:func:`geoanon.joint.cuts.own_cut`:
the values that meet the model apart, the rest together) made first; and in
the run without one, every node the search sets aside at ``piece_rows(k)``
rows (a piece) is finished as it is and after each category's cut of the
piece made first (:func:`finish_pieces`). Under each weighting the table and
every piece keep whichever finish has the least weighted loss, so the
release never costs more than the search alone under the search's own
objective, and no record's path holds more than one first cut. Pieces
decide on their own: dense places may cut a category first while sparse
ones keep their location, which lets the knob move between the two by
steps rather than one jump. Numbers are not tried: their compact cuts
already land where they pay, and trying age first changed no measured
frontier by more than 0.005 while it took 40% longer.

On the airports table at k = 50 (``bench/bench_frontier.py``) this takes
the finest releases from 246 km / 0.595 (other columns' NCP) to 253 km /
0.513; see ``bench/RESULTS.md`` for the measured frontiers.
"""
from __future__ import annotations

import numpy as np

from .batch import split_weighted
from .cuts import own_cut

__all__ = ["FIRST_CUT_ROWS", "finish_pieces", "piece_rows"]

FIRST_CUT_ROWS = 1 << 18   # searches of at most this many rows try first cuts (each costs one more finish)
PIECE_ROWS = 1 << 12       # a piece holds at most this many rows ...
PIECE_CLASSES = 64         # ... or this many classes of k, whichever is more


def piece_rows(k: int) -> int:
    """The largest node a piece may be: ``PIECE_ROWS`` rows or ``PIECE_CLASSES`` classes of ``k``."""
    return max(PIECE_ROWS, PIECE_CLASSES * k)


def finish_pieces(dims, check, pieces: list, allowed: list, categories: list, weights: np.ndarray) -> list:
    """Cut every piece ``(rows, state, mask)`` down along ``allowed`` under
    each weighting of its mask (:func:`~geoanon.joint.batch.split_weighted`),
    as it is or after the cut of one dimension of ``categories`` made first,
    whichever leaves the piece the least weighted loss under that weighting
    (ties: as it is, then the earlier dimension). Returns, per weighting,
    the leaves ``(rows, state)``."""
    owner = np.full(check.codes.size, -1, dtype=np.int64)      # a weighting's pieces are disjoint; others' overlap
    best = split_weighted(dims, check, pieces, allowed, weights)[0]
    cost, by_piece = np.zeros((len(weights), len(pieces))), []
    for w, found in enumerate(best):
        _own(pieces, w, owner)
        cost[w] = _piece_costs(dims, found, owner, len(pieces), weights[w])
        by_piece.append(_by_piece(found, owner, len(pieces)))
    for j in categories:
        tried, groups = [], []
        for p, (rows, state, mask) in enumerate(pieces):
            cut = own_cut(dims, j, rows, state, check)
            if cut is not None:
                tried.append(p)
                groups.extend((r, st, mask) for r, st in cut.parts)
        if not groups:
            continue
        for w, found in enumerate(split_weighted(dims, check, groups, allowed, weights)[0]):
            _own(pieces, w, owner)
            here = _piece_costs(dims, found, owner, len(pieces), weights[w])
            better = [p for p in tried if pieces[p][2] >> w & 1 and here[p] < cost[w, p] - 1e-9 * max(1.0, cost[w, p])]
            if better:
                split = _by_piece(found, owner, len(pieces))
                for p in better:
                    cost[w, p], by_piece[w][p] = here[p], split[p]
    return [[leaf for piece in found for leaf in piece] for found in by_piece]


def _own(pieces: list, w: int, owner: np.ndarray) -> None:
    """Set ``owner`` to the piece of every row under weighting ``w``."""
    for p, (rows, _, mask) in enumerate(pieces):
        if mask >> w & 1:
            owner[rows] = p


def _by_piece(leaves: list, owner: np.ndarray, count: int) -> list:
    """``leaves`` grouped by the piece that holds them."""
    out = [[] for _ in range(count)]
    for leaf in leaves:
        out[owner[leaf[0][0]]].append(leaf)
    return out


def _piece_costs(dims, leaves: list, owner: np.ndarray, count: int, weights) -> np.ndarray:
    """The weighted loss of ``leaves`` summed per piece (0 for a piece with none)."""
    if not leaves:
        return np.zeros(count)
    sizes = np.array([r.size for r, _ in leaves], dtype=np.float64)
    each = dims.class_costs([st for _, st in leaves], sizes, weights)
    return np.bincount(owner[[r[0] for r, _ in leaves]], weights=each, minlength=count)
