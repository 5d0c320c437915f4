"""Records let go coarse in location so that the rest stay fine (``max_pooled``).

A class must hold k records that share a box. Where a place has few records
alike near it, a class fine in location is a mix of whatever few records are
there, and pays for it in every other column; the same records among many
alike elsewhere would lose little. ``max_pooled`` names the share of the
rows a user lets go coarse in location so that the rest stay fine; those
records are searched apart with the other columns first
(``location_precision`` ``POOL_PRECISION``), and the two partitions are one
release (:func:`pooled`). Each partition's classes meet the model, so their
union does; the release is audited as any other. ``pool_by`` chooses the
records:

- ``"places"`` (the default): before the search, the records of the sparsest
  places (:func:`sparsest_rows`), whole places; the rest is searched at the
  asked setting without them.
- ``"classes"``: after the search, the whole classes whose records lose most
  in the other columns (:func:`costliest_rows`); every other class is kept
  as the search found it.

A place's sparsity is the diameter of the smallest circle around it that
holds ``POOL_REACH`` times k records (0 where the place alone holds that
many; 1: its k-neighbourhood, as the tail's scale is measured), then how few
records it holds: the places whose circles are widest go first, then those
holding fewest, while their records fit the share. ``POOL_REACH`` was chosen
on the ZIP-coded tuning tables (``pennsylvania`` and ``patients``, k = 5, 10
and 50, ``max_pooled`` 0.09) among 1, 2 and 4, by the least mean over the
six cases of the worst ratio against the peers' releases
(``bench/bench_frontier.py``'s, with the pooled releases counted among
geoanon's): 1 gives 0.813 (Pennsylvania 0.87x / 0.90x / 0.92x, from 1.00x /
0.98x / 0.92x without pooling; the patients' 0.67x / 0.73x / 0.79x
unchanged), 2 gives 0.820 and 4 0.848. A ZIP location's places are its
regions' centroids, each holding its records: the regions holding fewer
than k records, far from others, go first, then the emptiest
(``bench/RESULTS.md``, the frontier against real peers on the ZIP-coded
tables, with the ``pooled`` releases).

Neither choice wins everywhere (``bench/RESULTS.md``, "Pooling the costliest
classes"): on Pennsylvania the classes' pool at 9% leaves the worst ratio at
0.99x / 0.98x (k = 5 / 10) where the places' gives 0.81x / 0.90x, since
only a pool chosen before the search lets the rest's groups keep their own
ZIP code; beside ``tail_reach=None`` at 5% on the national tables, the
classes' pool lowers the worst ratio against Lighthouse's breakouts (0.80x
to 0.73x on airports at k = 5), where the places' pool does not move it.
"""
from __future__ import annotations

import numpy as np

from .km_loss import circle_widths
from .outliers import whole_classes
from .partition import JointPartition, partition_of

__all__ = ["POOL_PRECISION", "POOL_REACH", "costliest_rows", "pooled", "sparsest_rows"]

POOL_REACH = 1          # a place's sparsity: the circle around it holding this many times k records
POOL_PRECISION = 0.0    # the pooled records' location_precision: the other columns first


def sparsest_rows(dims, ground, k: int, share: float) -> np.ndarray:
    """The rows (ascending) of the sparsest places of ``dims``' location (its
    two rank dimensions, longitude first, on ``ground``): whole places, the
    widest circle holding ``POOL_REACH * k`` records first (ties: the place
    holding fewest, then of least coordinates), while their rows are at most
    ``share`` of all rows and hold at least k; rows without a location are
    never pooled."""
    x, y = (d for d in dims.items if d.location)
    n = x.rank.size
    held = (x.rank < x.size) & (y.rank < y.size)
    cells, place, counts = np.unique(x.rank[held] * y.size + y.rank[held], return_inverse=True, return_counts=True)
    budget = int(np.floor(share * n))
    if budget < k or cells.size < 2:
        return np.zeros(0, dtype=np.int64)
    lon, lat = x.low[cells // y.size], y.low[cells % y.size]
    width = circle_widths(ground.positions(lon, lat), counts, POOL_REACH * k)
    order = np.lexsort((np.arange(cells.size), counts, -width))  # widest first, then the fewest records, then least cell
    taken = order[np.cumsum(counts[order]) <= budget]
    if counts[taken].sum() < k:
        return np.zeros(0, dtype=np.int64)
    chosen = np.zeros(cells.size, dtype=bool)
    chosen[taken] = True
    return np.flatnonzero(held)[chosen[place.ravel()]].astype(np.int64)


def costliest_rows(problem, part: JointPartition, share: float) -> np.ndarray:
    """The rows (ascending) of whole classes of ``part`` whose records lose
    most in the other columns (a record's weighted NCP of its class's cells,
    the location's left out) first, while they are at most ``share`` of the
    table's rows (:func:`~geoanon.joint.outliers.whole_classes`); none where
    they would be fewer than k."""
    weights = [0.0 if d.location else w for d, w in zip(problem.items, problem.weights)]
    loss = problem.cost_rows(part.states, weights, part.columns).sum(axis=1) if part.states else np.zeros(0)
    rows = whole_classes(problem, part, loss, int(np.floor(share * problem.check.codes.size)))
    return rows if rows.size >= problem.check.model.k else np.zeros(0, dtype=np.int64)


def pooled(problem, rest: JointPartition, pool: JointPartition) -> JointPartition:
    """One partition (the joint design's, each class its own location class):
    ``pool``'s classes and those of ``rest`` that hold none of ``pool``'s
    rows (whole classes: a pool chosen from ``rest``'s classes, or rows
    ``rest`` left out), numbered by what they publish
    (:func:`~geoanon.joint.partition.partition_of`), so ids say nothing of
    which rows were pooled; its ``pooled_rows``, the pool's rows."""
    taken = pool.row_class >= 0
    leaves = [leaf for leaf in rest.leaves() if not taken[leaf[0][0]]] + pool.leaves()
    joined = partition_of(problem, leaves, None, rest.design, rest.evaluated + pool.evaluated, [])
    joined.pooled_rows = int(taken.sum())
    return joined

