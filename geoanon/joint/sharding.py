"""The location cut down before a search: the rows with and without a
location apart, shards of at most ``SHARD_ROWS`` rows, pieces within the
precision target; and shards solved in forked processes, in runs."""
from __future__ import annotations

from functools import partial

import numpy as np

from .._forked import forked_map
from .cuts import best_parts, descend
from .target_cuts import target_parts
from .dims import RankDim

__all__ = ["CHUNKS_PER_JOB", "SHARD_ROWS", "located_apart", "location_and_other", "map_shards", "shards_of",
           "within_target"]

SHARD_ROWS = 1 << 14     # location nodes above this are cut first; each shard below is solved on its own
CHUNKS_PER_JOB = 4  # shards go to the workers in this many runs per worker, for balance


def location_and_other(problem) -> tuple[list, list]:
    """The positions of the location's dimensions, and of the others."""
    return ([j for j, d in enumerate(problem.items) if d.location],
            [j for j, d in enumerate(problem.items) if not d.location])


def located_apart(problem, rows, location) -> list:
    """The rows with a location and those without (a coordinate missing) as
    two groups (rows, state), when the rows without meet the model on their
    own: they are a location class of their own. Else one group: the rows
    without a location share the class of the last located ones, which then
    publishes none."""
    ranked = [problem.items[j] for j in location if isinstance(problem.items[j], RankDim)]
    absent = np.zeros(rows.size, dtype=bool)
    for d in ranked:
        absent |= d.rank[rows] >= d.size
    if absent.all() or not absent.any() or not problem.check.holds(problem.check.histogram(rows[absent])[None, :])[0]:
        return [(rows, problem.root(rows))]
    return [(part, problem.root(part)) for part in (rows[~absent], rows[absent])]


def shards_of(problem, rows, root, location) -> list:
    """Location nodes of at most ``SHARD_ROWS`` rows (or that cannot be cut), in order."""
    return _location_cuts(problem, rows, root, location, lambda r, st: r.size > SHARD_ROWS)


def within_target(problem, rows, root, location) -> list:
    """Location nodes no wider than the precision target ``problem.too_wide``
    (or that cannot be cut), each cut leaving the fullest part that fits
    (:func:`~geoanon.joint.target_cuts.target_parts`)."""
    wide = problem.too_wide
    return descend((rows, root), lambda node: target_parts(problem, node, location)
                   if wide is not None and bool(wide([node[1]])[0]) else None)


def _location_cuts(problem, rows, root, location, cutting) -> list:
    """The location cut (only) while ``cutting(rows, state)`` holds and a cut is admissible; the nodes, in order."""
    return descend((rows, root), lambda node: best_parts(problem, node, location) if cutting(*node) else None)


def map_shards(job, shards, n_jobs, leaves: bool = False) -> list:
    """Solve every shard, in order: all together in this process, or in runs
    of consecutive shards of about as many rows (:func:`_runs`) in ``n_jobs``
    forked worker processes that ignore Ctrl-C (the caller's interrupt
    terminates them), the runs of most rows first, so that no worker is left
    with a long one at the end. Shards are solved independently, so the runs
    do not change the result. ``leaves``: a run's result is a list of
    leaves ``(rows, state)`` per weighting, which a worker sends packed
    (:func:`_packed`)."""
    if n_jobs == 1 or len(shards) == 1:
        return [_solve_shards(job, shards)]
    runs = _runs(shards, min(CHUNKS_PER_JOB * n_jobs, len(shards)))
    order = sorted(range(len(runs)), key=lambda i: -sum(shard[0].size for shard in runs[i]))
    solve = partial(_solve_packed, job) if leaves else partial(_solve_shards, job)
    found = dict(zip(order, forked_map(solve, [runs[i] for i in order], n_jobs)))
    return [[_unpacked(*packed) for packed in found[i]] if leaves else found[i] for i in range(len(runs))]


def _solve_packed(job, shards) -> list:
    """:func:`_solve_shards`' leaves, each weighting's packed (:func:`_packed`)."""
    return [_packed(leaves) for leaves in _solve_shards(job, shards)]


def _packed(leaves: list) -> tuple:
    """``leaves`` ``(rows, state)`` as every leaf's rows end to end, their
    sizes and the states: a process sends one array many times sooner than
    thousands of small ones."""
    rows = np.concatenate([r for r, _ in leaves]) if leaves else np.zeros(0, dtype=np.int64)
    return rows, np.array([r.size for r, _ in leaves], dtype=np.int64), [st for _, st in leaves]


def _unpacked(rows, sizes, states) -> list:
    """The leaves :func:`_packed` packed."""
    return list(zip(np.split(rows, np.cumsum(sizes)[:-1]), states)) if states else []


def _runs(shards: list, count: int) -> list:
    """``shards`` in at most ``count`` runs of consecutive shards holding about as many rows each."""
    rows = np.cumsum([shard[0].size for shard in shards])
    bounds = np.unique(np.r_[0, np.searchsorted(rows, rows[-1] * np.arange(1, count) / count, side="right"),
                             len(shards)])
    return [shards[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def _solve_shards(job, shards) -> tuple:
    """The location classes of consecutive shards, by the design's ``solve``
    ``job`` ``(problem, solve, location, other)``: their states,
    inner leaves, and the number of location nodes whose inner partition was
    computed."""
    problem, solve, location, other = job
    return solve(problem, shards, location, other)
