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
once after each category's own cut of the table
(:func:`geoanon.joint.cuts.own_cut`: the values that meet the model apart,
the rest together) made first; and in the run without one, every node the
search sets aside at ``piece_rows(k)`` rows (a piece) is finished as it is
and again after the cut of the category that loses most in its leaves
(:func:`finish_pieces`). Under each weighting the table and every piece
keep whichever finish has the least weighted loss, so the release never
costs more than the search alone under the search's own objective, and no
record's path holds more than one first cut. Pieces decide on their own:
dense places may cut a category first while sparse ones keep their
location, which lets the knob move between the two by steps rather than one
jump.

Measured alternatives (``bench/bench_frontier.py``'s nine cases, worst
ratio to the weighted Mondrian, settings 0.0125 apart): the table's root
alone (0.64 on the airports at k = 50, but 1.06 and 1.00 at k = 50 on the
ZIP centroids and in Chicago, where the one jump leaves a gap in km); pieces
alone (0.71 on the airports at k = 50; pieces of 16,384 rows 0.73); every
category tried in every piece (within 0.02 of the default: 0.59 against
0.61 on the ZIP centroids at k = 5; ``explore``'s 8 settings a quarter
slower on 2 processes); no category start under a weighting whose search
cuts the location first (``explore``'s 8 settings on 2 processes 2.0-2.1 s
instead of 2.9-3.3 s at k = 10, still 3.3-3.5x one release; of its 72
points on the three tables at k = 5, 10, 50, 14 moved: 5 wider and lossier,
other NCP up to 12% higher, 1 narrower and less lossy, the others trading
km for loss, up to 18% more NCP for 0.4% narrower boxes); the lossiest
category only at the root too (0.68 on the airports at k = 50, 0.67
against 0.57 on the ZIP centroids at k = 10); age tried as well (no
frontier moved by more than 0.005, two thirds slower).

``bench/RESULTS.md`` holds the measured frontiers.
"""
from __future__ import annotations

import numpy as np

from .batch import split_weighted
from .cuts import own_cut

__all__ = ["FIRST_CUT_ROWS", "finish_pieces", "lossiest", "piece_rows"]

FIRST_CUT_ROWS = 1 << 18   # searches of at most this many rows try first cuts (1.4-1.5x the release's time)
PIECE_ROWS = 1 << 12       # a piece holds at most this many rows ...
PIECE_CLASSES = 64         # ... or this many classes of k, whichever is more


def piece_rows(k: int) -> int:
    """The largest node a piece may be: ``PIECE_ROWS`` rows or ``PIECE_CLASSES`` classes of ``k``."""
    return max(PIECE_ROWS, PIECE_CLASSES * k)


def finish_pieces(problem, pieces: list, allowed: list, categories: list, weights: np.ndarray,
                  solved=None) -> list:
    """Cut every piece ``(rows, state, mask)`` down along ``allowed`` under
    each weighting of its mask (:func:`~geoanon.joint.batch.split_weighted`),
    and again after the cut of the one of ``categories`` that loses the
    most in the piece's leaves under that weighting (:func:`lossiest`) made
    first; each piece keeps, under each weighting, whichever finish has the
    least weighted loss (ties: as it is). Returns, per weighting, the leaves
    ``(rows, state)``. ``solved``: as :func:`~geoanon.joint.batch.split_weighted` takes it."""
    owner = np.full(problem.check.codes.size, -1, dtype=np.int64)   # a weighting's pieces are disjoint; others' overlap
    cost, by_piece = np.zeros((len(weights), len(pieces))), []
    picked = np.full((len(weights), len(pieces)), -1, dtype=np.int64)
    for w, found in enumerate(split_weighted(problem, pieces, allowed, weights, solved=solved)[0]):
        _own(pieces, w, owner)
        per_dim = _piece_costs(problem, found, owner, len(pieces), weights[w])
        cost[w] = per_dim.sum(axis=1)
        picked[w] = lossiest(per_dim, categories)
        by_piece.append(_by_piece(found, owner, len(pieces)))
    for j in categories:
        tried, groups = [], []
        for p, (rows, state, mask) in enumerate(pieces):
            chosen = mask & _mask_of(picked[:, p] == j)
            cut = own_cut(problem, j, rows, state) if chosen else None
            if cut is not None:
                tried.append(p)
                groups.extend((r, st, chosen) for r, st in cut.parts)
        if not groups:
            continue
        for w, found in enumerate(split_weighted(problem, groups, allowed, weights, solved=solved)[0]):
            if not found:
                continue
            _own(pieces, w, owner)
            here = _piece_costs(problem, found, owner, len(pieces), weights[w]).sum(axis=1)
            better = [p for p in tried if picked[w, p] == j and here[p] < cost[w, p] - 1e-9 * max(1.0, cost[w, p])]
            if better:
                split = _by_piece(found, owner, len(pieces))
                for p in better:
                    cost[w, p], by_piece[w][p] = here[p], split[p]
    return [[leaf for piece in found for leaf in piece] for found in by_piece]


def lossiest(per_dim: np.ndarray, categories: list) -> np.ndarray:
    """For each row of ``per_dim`` (a weighted loss per dimension), the one
    of ``categories`` with the greatest loss (the first on ties), -1 where
    none loses anything."""
    if not categories:
        return np.full(per_dim.shape[0], -1, dtype=np.int64)
    losses = per_dim[:, categories]
    return np.where(losses.max(axis=1) > 0, np.asarray(categories)[np.argmax(losses, axis=1)], -1)


def _mask_of(chosen: np.ndarray) -> int:
    """The mask of the weightings where ``chosen`` holds."""
    return sum(1 << int(w) for w in np.flatnonzero(chosen))


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


def _piece_costs(problem, leaves: list, owner: np.ndarray, count: int, weights) -> np.ndarray:
    """The weighted loss of ``leaves`` per piece and dimension (pieces x dimensions; 0 for a piece with none)."""
    out = np.zeros((count, len(problem.items)))
    if leaves:
        sizes = np.array([r.size for r, _ in leaves], dtype=np.float64)
        each = problem.cost_rows([st for _, st in leaves], weights) * sizes[:, None]
        at = owner[[r[0] for r, _ in leaves]]
        for j in range(len(problem.items)):
            out[:, j] = np.bincount(at, weights=each[:, j], minlength=count)
    return out
