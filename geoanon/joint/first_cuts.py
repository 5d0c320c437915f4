"""First cuts: the joint design's search, tried with one category cut first.

A top-down search ranks a node's cuts by the loss they remove there. Near
the root a location cut removes the most, yet every location cut is made
sooner or later, while a category cut (sex, say) pays best at the root,
where it gives each value its own location partition; lower down it needs
a node of 3k records to separate k of them and strands the rest. So the
search never makes such a cut where it pays best, and no weighting of the
losses reaches those releases.

A search of at most ``FIRST_CUT_ROWS`` rows is therefore run as it is and
after each category's own cut of the table (:func:`~geoanon.joint.cuts.own_cut`)
made first; in the run as it is, every node set aside at ``piece_rows(k)``
rows (a piece) is finished as it is and after the cut of the category that
loses most in its leaves (:func:`finish_pieces`). Under each weighting the
table and every piece keep the finish of least weighted loss, so a release
never costs more than the search alone, and no record's path holds more than
one first cut. ``bench/RESULTS.md`` holds the measured alternatives.
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
