"""Isolated records: the few that any box holding them would place far from the rest.

A class holding a few records far from where the rest of the table lies
publishes a box that is mostly empty space, its far corners holding only
those few: whoever reads the box learns that one or a handful of records lie
out there, and about where (300 records around Raleigh and one on Bermuda: a
box from Raleigh to the Atlantic, Bermuda in its corner). Such records are
*isolated*: chaining records that lie within :data:`ISOLATION` times the
usual spread of k records (that of nine records in ten of the table) of one
another, they reach fewer than k records in all (:func:`isolated_rows`).
One far record, a handful scattered about, or a remote cluster smaller than
k are all found so, whether the partition puts them in a class with a
handful from the mainland or in one of their own; a table's sparse records
(its rural ones), each within that reach of others that chain on to k or
more, never are, however few of them the table holds, nor is the smaller of
two towns in one class. They are published without a location, the farthest
first, within a budget of records (:func:`within_budget`); the rest of their
class keeps its box, held to the records it keeps.

A rule relative to each class (records ten times its core's width away from
it, fewer than k) lost: it withheld the smaller town of classes spanning two
and missed a class made of remote records and a few from the coast. A rule
on each record's own k records (their spread beyond the reach) withheld
the rural records of a table whose sparsest tenth was rural (82 of the 300
farms of a test table of towns and farms at k = 25), though each sits among
others in a box of its own kind.
"""
from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from .. import _threads
from ..choices import WITHHELD

__all__ = ["ISOLATION", "WITHHELD", "budget_rows", "isolated_rows", "within_budget"]

ISOLATION = 10.0    # isolated: k records around it spread this many times as far as around the usual record
USUAL = 0.9         # the share of the table whose k records' spread is usual
NEIGHBOURS = 63     # beyond this many, the spread of k records is measured on a sample of the table
PROBES = 100_000    # beyond this many rows, the usual spread is measured around a sample of them
TREES = 4           # the most k-d trees the records are split between (each query searches them all)


def budget_rows(share: float, rows: int, k: int) -> int:
    """The rows a budget of ``share`` of a table of ``rows`` allows to be
    withheld: at least ``2 k`` (a whole class of up to 2k - 1 records can go,
    where one isolated record cannot be a class of its own), none for 0."""
    return 0 if share == 0 else max(int(np.ceil(share * rows)), 2 * k)


def isolated_rows(where: np.ndarray, k: int, floor_km: float = 0.0,
                  threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Which rows are isolated, and how far the k records nearest each
    reach (the distance to its (k-1)-th nearest other, km; 0 where not
    isolated). ``where``: each row's position in km (:meth:`geoanon._geo.Ground.positions`;
    NaN for rows without one, never isolated); ``floor_km``: the least usual
    reach (the grid the boxes are published on); ``threads``: threads
    searching the neighbours.

    A row is isolated when the rows it reaches by steps of at most the
    isolation reach (:data:`ISOLATION` times the usual reach, the
    :data:`USUAL` quantile of every row's reach) are fewer than k, itself
    among them: its cluster at that linkage holds fewer than k records.
    Only a row whose own k records spread beyond the isolation reach can be
    (:func:`_chained` follows the chains from those). Beyond
    :data:`NEIGHBOURS` neighbours the reach is measured among a sample of
    that many rows in k - 1, and beyond :data:`PROBES` rows the usual reach
    around a sample of that many (both drawn with seed 0: density
    estimates, published nowhere). Rows sharing a cell of a grid fine
    enough that the cell's diagonal is within the isolation reach, with
    k - 1 others, are never isolated and are not searched (:func:`_crowded`).

    >>> where = np.r_[np.random.default_rng(0).random((200, 2)) * 10, [[900.0, 900.0]]]
    >>> flagged, reach = isolated_rows(where, 5)
    >>> np.flatnonzero(flagged).tolist(), round(float(reach[200]))
    ([200], 1259)
    """
    n = len(where)
    flagged, reach = np.zeros(n, dtype=bool), np.zeros(n)
    rows = np.flatnonzero(~np.isnan(where).any(axis=1))
    need = k - 1
    located = among = where[rows]
    sampled = need > NEIGHBOURS
    if sampled:
        among = among[np.random.default_rng(0).random(len(among)) < NEIGHBOURS / need]
        need = NEIGHBOURS
    if need < 1 or len(among) <= need:
        return flagged, reach
    trees = _Trees(among, threads)
    probe = located
    if len(rows) > PROBES:       # the usual reach from a sample: the share of the table is what it is about
        probe = probe[np.sort(np.random.default_rng(0).choice(len(rows), PROBES, replace=False))]
    usual = max(float(np.quantile(trees.query(probe, need + 1)[0][:, -1], USUAL)), floor_km)
    limit = ISOLATION * usual
    doubt = np.flatnonzero(~_crowded(among, located, limit, need + 1, threads))
    spread, nearest = trees.query(located[doubt], need + 1)
    far = spread[:, -1] > limit
    candidates = doubt[far]
    if sampled:                  # the chains run over every row
        spread_all, nearest = _Trees(located, threads).query(located[candidates], min(k, len(located)), limit)
        within = np.where(spread_all <= limit, nearest, len(located))
    else:
        within = np.where(spread[far] <= limit, nearest[far], len(located))
    alone = _chained(within, candidates, len(located), k)
    flagged[rows[candidates[alone]]] = True
    reach[rows[candidates[alone]]] = spread[far, -1][alone]
    return flagged, reach


class _Trees:
    """k-d trees over ``threads`` runs of ``points`` (at most :data:`TREES`),
    built in threads, queried as one. What :func:`isolated_rows` reads of a
    query (the distances, and every neighbour within a reach that fewer than
    the count asked for lie within) is the same however the points are split."""

    def __init__(self, points: np.ndarray, threads: int):
        from scipy.spatial import cKDTree

        parts = _threads.runs(len(points), threads, TREES)
        self.starts, self.n, self.threads = [a for a, _ in parts], len(points), threads
        build = partial(cKDTree, balanced_tree=False, compact_nodes=False)      # built 3x as fast, the same answers
        self.trees = _threads.in_threads([partial(build, points[a:b]) for a, b in parts])

    def query(self, at: np.ndarray, count: int, reach: float = np.inf) -> tuple[np.ndarray, np.ndarray]:
        """The distances to the ``count`` points nearest each of ``at`` (inf
        beyond ``reach``) and their positions (the number of points there)."""
        found = [tree.query(at, k=count, distance_upper_bound=reach, workers=self.threads) for tree in self.trees]
        if len(found) == 1:
            return found[0]
        spread = np.concatenate([d for d, _ in found], axis=1)
        nearest = np.concatenate([np.where(i < tree.n, i + start, self.n)
                                  for (_, i), tree, start in zip(found, self.trees, self.starts)], axis=1)
        pick = np.argsort(spread, axis=1, kind="stable")[:, :count]
        return np.take_along_axis(spread, pick, 1), np.take_along_axis(nearest, pick, 1)


def _chained(within: np.ndarray, candidates: np.ndarray, n: int, k: int) -> np.ndarray:
    """Which ``candidates`` (positions among ``n``; each row of ``within``:
    the positions within the isolation reach of one, ``n`` padding) chain,
    by steps within that reach, to fewer than k rows: none of their chain
    reaches a row that is no candidate (that row has k - 1 others within
    the reach) or k rows within the reach of one."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    at = np.full(n + 1, -1, dtype=np.int64)
    at[candidates] = np.arange(candidates.size)
    real = within < n
    other = at[within]
    held = (real & (other < 0)).any(axis=1) | (real.sum(axis=1) >= k)
    i, j = np.nonzero(real & (other >= 0))
    graph = coo_matrix((np.ones(i.size, dtype=np.int8), (i, other[i, j])), shape=(candidates.size,) * 2)
    chain = connected_components(graph, directed=False)[1]
    size = np.bincount(chain)
    joined = np.bincount(chain, weights=held) > 0
    return ~joined[chain] & (size[chain] < k)


def _crowded(among: np.ndarray, where: np.ndarray, limit: float, count: int, threads: int = 1) -> np.ndarray:
    """Which positions ``where`` lie in a cell of a grid whose cells' diagonal
    is ``limit``, holding at least ``count`` positions of ``among``: each has
    that many within ``limit``. Counted among themselves (``among`` is
    ``where``) in ``threads`` threads: the cells numbered in runs of the
    positions, then counted in as many sets of cells."""
    side = limit / np.sqrt(where.shape[1])
    if not side > 0:
        return np.zeros(len(where), dtype=bool)
    same = among is where           # counted among themselves: each position's cell once
    low = np.minimum(among.min(axis=0), where.min(axis=0))
    high = np.maximum(among.max(axis=0), where.max(axis=0))
    shape = np.floor((high - low) / side).astype(np.int64) + 1
    parts = _threads.runs(len(where), threads)
    if same and len(parts) > 1 and np.prod(shape.astype(np.float64)) < 2.0**62:
        cell = np.concatenate(_threads.in_threads([partial(_cell_numbers, where[a:b], low, side, shape)
                                                   for a, b in parts]))
        which = (cell % len(parts)).astype(np.min_scalar_type(len(parts) - 1))      # a cell's positions in one set
        sets = np.split(np.argsort(which, kind="stable"), np.cumsum(np.bincount(which, minlength=len(parts)))[:-1])
        crowded = np.empty(len(where), dtype=bool)
        for rows, held in zip(sets, _threads.in_threads([partial(_held, cell[rows], count) for rows in sets])):
            crowded[rows] = held
        return crowded
    cells = np.floor(((among if same else np.concatenate([among, where])) - low) / side).astype(np.int64)
    if np.prod(shape.astype(np.float64)) < 2.0**62:    # one integer per cell: hashed, a fast 1-d unique
        inverse = pd.factorize(np.ravel_multi_index(tuple(cells.T), tuple(shape)))[0]
    else:
        inverse = np.unique(cells, axis=0, return_inverse=True)[1].ravel()
    held = np.bincount(inverse[:len(among)], minlength=int(inverse.max()) + 1)
    return held[inverse if same else inverse[len(among):]] >= count


def _cell_numbers(where: np.ndarray, low: np.ndarray, side: float, shape: np.ndarray) -> np.ndarray:
    """The number of each position's cell in :func:`_crowded`'s grid."""
    return np.ravel_multi_index(tuple(np.floor((where - low) / side).astype(np.int64).T), tuple(shape))


def _held(cell: np.ndarray, count: int) -> np.ndarray:
    """Whether each position's cell (``cell``: its number) holds ``count`` of them or more."""
    inverse = pd.factorize(cell)[0]
    return np.bincount(inverse)[inverse] >= count


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
