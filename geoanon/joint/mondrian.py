"""The ``"joint"`` design: Mondrian cuts (LeFevre et al., 2006) over every
dimension, location cuts anywhere, each class its own location class; under
several weightings at once, with first cuts (:mod:`geoanon.joint.first_cuts`)
and the nodes its starts meet again cut once (:mod:`geoanon.joint.solved`)."""
from __future__ import annotations

from dataclasses import replace
from functools import partial

import numpy as np

from .._forked import forked_map
from . import sharding
from .batch import MAX_WEIGHTINGS, first_dims, split_weighted, vectorizable
from .cuts import own_cut
from .dims import RankDim
from .first_cuts import FIRST_CUT_ROWS, finish_pieces, piece_rows
from .partition import JointPartition, partition_of
from .problem import SearchProblem
from .sharding import located_apart, location_and_other, map_shards, within_target
from .solved import Solved
from .tiling import cut_down

__all__ = ["NODES_PER_JOB", "joint_by_node", "joint_design", "joint_partitions", "location_first"]

NODES_PER_JOB = 2        # the joint design's nodes go to the processes at this many per process's share


def joint_design(problem, rows, n_jobs) -> JointPartition:
    """``"joint"``: Mondrian cuts (LeFevre et al., 2006) with location cuts
    anywhere, without lookahead; every class its own location class, boxes
    may overlap (:func:`joint_partitions` under the dimensions' weights)."""
    return joint_partitions(problem, [problem.weights], n_jobs, rows)[0]


def joint_partitions(problem: SearchProblem, weights, n_jobs: int = 1, rows=None) -> list:
    """The ``"joint"`` design's partition under each weighting (a row of
    ``weights``: every dimension's weight), sharing the nodes the weightings
    cut alike (:func:`~geoanon.joint.batch.split_weighted`); each partition is
    the one the design makes under its weighting alone.

    The array search cuts in this process until no node holds more than
    ``SHARD_ROWS`` rows or, with ``n_jobs`` > 1, a ``NODES_PER_JOB``-th of a
    process's share of the rows (each node set aside as soon as it holds no
    more); the nodes left are finished in ``n_jobs``
    processes, which cut each on its own, so the classes do not depend on
    ``n_jobs``. With a precision target (``problem.too_wide``), the location
    alone is first cut down to pieces no wider. Dimensions the array search
    does not take (:func:`~geoanon.joint.batch.vectorizable`) are cut node by
    node, one weighting at a time.

    Searches of at most ``FIRST_CUT_ROWS`` rows also try first cuts
    (:mod:`geoanon.joint.first_cuts`): the whole search again after each
    category's cut of the table made first, and, in the search without one,
    each node set aside at ``piece_rows(k)`` rows finished as it is and
    after the cut of the category it loses most in (at most one first cut
    on any record's path); under each weighting, the table and every piece
    keep what costs least (with a precision target, the fewest rows wider
    than it first). A category's start is not searched under a
    weighting whose search makes that cut first anyway (:func:`_cut_anyway`):
    the release is the same, 15-20% sooner at the default setting. The
    starts meet the same nodes along different paths; each is cut once
    (:class:`~geoanon.joint.solved.Solved`). With ``n_jobs`` > 1 the
    starts, not the nodes, go to the processes (:func:`_searched_starts`),
    each searched in one."""
    rows = np.arange(problem.check.codes.size, dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
    weights = np.asarray(weights, dtype=np.float64).reshape(-1, len(problem.items))
    problem, location, other, table = _joint_table(problem, rows)
    if table is None:
        return [joint_by_node(problem.weighted(w), rows, location, other) for w in weights]
    categories = [j for j in other if not isinstance(problem.items[j], RankDim)] if rows.size <= FIRST_CUT_ROWS else []
    firsts = [(j, cuts) for j in categories if any(cuts := [own_cut(problem, j, r, st) for r, st in table])]
    solved = Solved() if firsts else None       # the starts meet the same nodes
    out = []
    for first in range(0, len(weights), MAX_WEIGHTINGS):
        batch = weights[first:first + MAX_WEIGHTINGS]
        starts = [(table, np.arange(len(batch)), categories)]
        # with a precision target the starts cut the location first, so no start is the search's own path
        chosen = first_dims(problem, table, location + other, batch) if firsts and problem.too_wide is None \
            else None
        for j, cuts in firsts:
            needed = np.arange(len(batch)) if chosen is None else np.flatnonzero(~_cut_anyway(chosen, j, cuts))
            if needed.size:
                groups = [part for group, cut in zip(table, cuts) for part in ([group] if cut is None else cut.parts)]
                starts.append((groups, needed, None))
        tried = [[] for _ in batch]                # per weighting, the leaves of each start searched, in order
        for (_, needed, _), found in zip(starts, _searched_starts(problem, batch, starts, n_jobs, solved)):
            for w, leaves in zip(needed.tolist(), found):
                tried[w].append(leaves)
        for w, candidates in zip(batch, tried):
            leaves = candidates[0] if len(candidates) == 1 else \
                min(candidates, key=lambda leaves: (_beyond_target(problem, leaves, len(candidates)),
                                                    _weighted_loss(problem, leaves, w)))
            out.append(partition_of(problem, leaves, None, "joint", 0, None, w))
    return out


def location_first(problem: SearchProblem, weights) -> np.ndarray:
    """Per weighting (a row of ``weights``), whether :func:`joint_partitions`
    cuts the location first at the table's root (one round of the search)."""
    weights = np.asarray(weights, dtype=np.float64).reshape(-1, len(problem.items))
    problem, location, other, table = _joint_table(problem, np.arange(problem.check.codes.size, dtype=np.int64))
    if not location or table is None:
        return np.zeros(len(weights), dtype=bool)
    return np.concatenate([np.isin(first_dims(problem, table, location + other, weights[a:a + MAX_WEIGHTINGS]),
                                   location).any(axis=1) for a in range(0, len(weights), MAX_WEIGHTINGS)])


def _joint_table(problem: SearchProblem, rows: np.ndarray) -> tuple:
    """``problem`` as the joint design cuts them (no shared location, compact
    cuts), the positions of the location's dimensions and of the others, and
    the groups of ``rows`` the search starts from (:func:`located_apart`;
    None where the array search does not take the dimensions)."""
    problem = replace(problem, shared_location=False, compact_cuts=True)
    location, other = location_and_other(problem)
    table = located_apart(problem, rows, location) if vectorizable(problem, location + other) else None
    return problem, location, other, table


def _searched_starts(problem, weights, starts, n_jobs, solved=None) -> list:
    """Each start ``(groups, weightings, categories)`` searched under its
    weightings (positions in ``weights``) by :func:`_joint_batch`, in order,
    reusing the nodes ``solved`` (a :class:`~geoanon.joint.solved.Solved`)
    knows: with ``n_jobs`` > 1 and several starts, one start at a time per
    forked worker, each in one process (the leaves do not depend on where)."""
    if n_jobs == 1 or len(starts) == 1:
        return [_joint_batch(problem, groups, weights[needed], n_jobs, categories, solved)
                for groups, needed, categories in starts]

    def searched(i):
        groups, needed, categories = starts[i]
        return _joint_batch(problem, groups, weights[needed], 1, categories, solved)

    return forked_map(searched, list(range(len(starts))), n_jobs)


def _cut_anyway(chosen: np.ndarray, j: int, cuts: list) -> np.ndarray:
    """Per weighting, whether the search alone makes category ``j``'s first
    cut (``cuts``: its cut of each group, None where it has none) itself:
    it cuts every group ``j`` can cut along ``j`` first (``chosen``: the first
    cut's dimension, weightings x groups). The start after that cut is then
    the search's own path, which the table's start finishes at no greater
    loss (its pieces keep the plain finish unless another costs less), so it
    is not searched again: the release is the same."""
    can = np.array([cut is not None for cut in cuts])
    return (chosen[:, can] == j).all(axis=1)


def _beyond_target(problem, leaves, starts: int) -> int:
    """The rows of ``leaves`` ``(rows, state)`` wider than the precision
    target (``problem.too_wide``), which a start keeps fewer of first: 0
    without a target or another start."""
    wide = problem.too_wide
    if wide is None or starts == 1 or not leaves:
        return 0
    return int(np.array([r.size for r, _ in leaves])[wide([st for _, st in leaves])].sum())


def _weighted_loss(problem, leaves, weights) -> float:
    """The summed weighted loss of ``leaves`` ``(rows, state)`` under ``weights``."""
    return float(problem.summed_costs([st for _, st in leaves], [r.size for r, _ in leaves], weights).sum())


def _joint_batch(problem, groups, weights, n_jobs, categories, solved=None) -> list:
    """The joint design's leaves ``(rows, state)`` of ``groups`` ``(rows, state)``
    under each of the weightings ``weights``; with ``categories`` (positions, not empty),
    each piece finished as it is or after one of them is cut first
    (:func:`~geoanon.joint.first_cuts.finish_pieces`); the nodes ``solved``
    knows are not cut again."""
    location, other = location_and_other(problem)
    first_cuts = bool(categories)
    rows = sum(r.size for r, _ in groups)
    if first_cuts:
        limit = piece_rows(problem.check.model.k)
    else:
        limit = sharding.SHARD_ROWS if n_jobs == 1 else max(sharding.SHARD_ROWS, rows // (NODES_PER_JOB * n_jobs))
    pieces = _pieces(problem, groups, location, weights)
    leaves, pending = split_weighted(problem, pieces, location + other, weights, limit, park=first_cuts or n_jobs > 1,
                                     solved=solved)
    finish = partial(_first_cut_shards, weights, categories, solved=solved) if first_cuts \
        else partial(_joint_shards, weights, solved=solved)
    for more in map_shards((problem, finish, location, other), pending, n_jobs, leaves=True):
        for w, found in enumerate(more):
            leaves[w].extend(found)
    return leaves


def _pieces(problem, groups, location, weights) -> list:
    """The groups ``(rows, state, mask)`` the joint design starts from
    (``groups``, cut down by :func:`within_target`), each with the
    weightings (bits of ``weights``' rows) that start from it."""
    out: dict = {}
    for group in groups:
        if problem.too_wide is None:
            out[len(out)] = (*group, (1 << len(weights)) - 1)
            continue
        for w, row in enumerate(weights):
            for r, st in within_target(problem.weighted(row), *group, location):
                key = (st, r.tobytes())
                out[key] = (r, st, out.get(key, (None, None, 0))[2] | (1 << w))
    return list(out.values())


def joint_by_node(problem, rows, location, other) -> JointPartition:
    """The ``"joint"`` design cut node by node (:func:`cut_down` without lookahead)."""
    leaves = [leaf for group in located_apart(problem, rows, location)
              for piece in within_target(problem, *group, location)
              for leaf in cut_down(problem, [piece], location + other, 0)[0]]
    return partition_of(problem, leaves, None, "joint", 0, None)


def _joint_shards(weights, problem, shards, location, other, solved=None) -> list:
    """Every node ``(rows, state, mask)`` cut along all dimensions without
    lookahead under the weightings of its mask: per weighting, the leaves
    (the nodes ``solved`` knows not cut again)."""
    return split_weighted(problem, shards, location + other, weights, solved=solved)[0]


def _first_cut_shards(weights, categories, problem, shards, location, other, solved=None) -> list:
    """As :func:`_joint_shards`, each node a piece that may cut one of
    ``categories`` first (:func:`~geoanon.joint.first_cuts.finish_pieces`)."""
    return finish_pieces(problem, shards, location + other, categories, weights, solved)
