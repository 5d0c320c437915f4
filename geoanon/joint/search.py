"""Joint top-down partitions of a table over all its quasi-identifiers.

Location classes must not overlap (rectangles tile the plane, ZIP groups
partition the regions), so every location cut lies above every other cut:
the location is cut first, and the other quasi-identifiers inside each
location class. The designs differ in where the location cuts stop:

``"frontier"`` (default)
    Cut the location down to its finest classes (the location tree), then
    choose, by dynamic programming over that tree, the set of location nodes
    (a frontier) that minimizes the total NCP when the other quasi-identifiers
    are cut inside each of them. A node's own cost is computed only when its
    location cost alone is below what its children reach, so the large nodes
    near the root, whose rectangles already cost more, are never partitioned.
``"location-first"``
    One location class size for the whole table: the frontier of the nodes
    holding fewer than 2 K' records, for K' in k, 2k, 4k, ..., keeping the K'
    of least total NCP.
``"greedy"``
    One top-down pass over all dimensions: at every node the cut that removes
    the most NCP, where a location cut is admissible only while no other cut
    lies above the node.
``"joint"``
    One top-down pass over all dimensions with location cuts anywhere, as
    Mondrian cuts (LeFevre et al., 2006): every class is its own location
    class and publishes its own records' box, so the rectangles (or ZIP
    groups) of different classes may overlap; the classes are disjoint only
    in the space of all quasi-identifiers together. The least NCP, at the
    price of the location tiling.

Every cut keeps both sides within the model (Du et al., Theorem 2's rule), so
every class of every design meets it.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np

from .._forked import forked_map
from .batch import MAX_WEIGHTINGS, first_dims, location_forest, split_all, split_weighted, vectorizable
from .cuts import best_cut, own_cut
from .dims import RankDim
from .problem import SearchProblem
from .first_cuts import FIRST_CUT_ROWS, finish_pieces, piece_rows
from .solved import Solved

__all__ = ["JointPartition", "cut_down", "joint_partition", "joint_partitions", "location_first"]



@dataclass
class JointPartition:
    """Classes of rows from a joint search.

    ``row_class``: class of every row (0..C-1, numbered in the order of the classes' states);
    ``states``: the published state of every class (one entry per dimension);
    ``location_class``: the location class each class lies in; ``cost``: the
    summed NCP of all cells (per dimension); ``design`` and ``evaluated``
    (location nodes whose inner partition was computed); ``suppressed``: the
    class of the records published fully suppressed (:mod:`geoanon.joint.outliers`), -1 for none.
    """

    row_class: np.ndarray
    states: list
    location_class: np.ndarray
    cost: np.ndarray
    design: str
    evaluated: int = 0
    location_classes: int = 0
    location_states: list = field(default_factory=list)
    suppressed: int = -1

    @property
    def shared_location(self) -> bool:
        """Whether classes share their location class's location (a tiling
        design's), rather than each publishing its own (the joint design's)."""
        return self.design != "joint"


SHARD_ROWS = 1 << 14     # location nodes above this are cut first; each shard below is solved on its own
NODES_PER_JOB = 4        # the joint design's nodes go to the processes at this many per process's share


def joint_partition(problem: SearchProblem, design: str = "frontier", n_jobs: int = 1, rows=None) -> JointPartition:
    """Partition all rows of ``problem`` (see the module).

    The location is first cut down to shards of at most ``SHARD_ROWS`` rows;
    the location tree, the frontier and the inner partitions of each shard
    are computed on their own, in ``n_jobs`` processes (results do not
    depend on ``n_jobs``). A location class therefore holds at most
    ``SHARD_ROWS`` rows, unless the location cannot be cut further.
    ``rows``: partition only these rows (default all); the others' class is -1."""
    rows = np.arange(problem.check.codes.size, dtype=np.int64) if rows is None else np.asarray(rows, dtype=np.int64)
    return ALGORITHMS[design](problem, rows, n_jobs)


# -- the designs: one function each, (problem, rows, n_jobs) -> JointPartition --------------------------

def _frontier_design(problem, rows, n_jobs) -> JointPartition:
    """``"frontier"``: in each shard's location tree, the frontier of least
    total loss by dynamic programming (:func:`_frontier`)."""
    return _tree_design(problem, rows, n_jobs, "frontier", _frontier)


def _location_first_design(problem, rows, n_jobs) -> JointPartition:
    """``"location-first"``: one location class size K' = k 2^j per tree, the
    one of least total loss (:func:`_uniform`)."""
    return _tree_design(problem, rows, n_jobs, "location-first", _uniform)


def _greedy_design(problem, rows, n_jobs) -> JointPartition:
    """``"greedy"``: one top-down pass over all dimensions, no shards; a
    location cut only while no other cut lies above the node (:func:`_greedy`)."""
    location, other = _location_and_other(problem)
    leaves, owner = _greedy(problem, rows, problem.root(rows), location, other)
    return _result(problem, leaves, owner, "greedy", 0, _unique_states(leaves, owner), problem.check.codes.size)


def _joint_design(problem, rows, n_jobs) -> JointPartition:
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
    process's share of the rows; the nodes left are finished in ``n_jobs``
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
    keep what costs least. A category's start is not searched under a
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
        return [_joint_by_node(problem.weighted(w), rows, location, other) for w in weights]
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
            leaves = min(candidates, key=lambda leaves: _cost(problem, leaves, w))
            out.append(_result(problem, leaves, None, "joint", 0, None, problem.check.codes.size, w))
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
    the groups of ``rows`` the search starts from (:func:`_located_apart`;
    None where the array search does not take the dimensions)."""
    problem = replace(problem, shared_location=False, compact_cuts=True)
    location, other = _location_and_other(problem)
    table = _located_apart(problem, rows, location) if vectorizable(problem, location + other) else None
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


def _cost(problem, leaves, weights) -> float:
    """The summed weighted loss of ``leaves`` ``(rows, state)`` under ``weights``."""
    return float(problem.summed_costs([st for _, st in leaves], [r.size for r, _ in leaves], weights).sum())


def _joint_batch(problem, groups, weights, n_jobs, categories, solved=None) -> list:
    """The joint design's leaves ``(rows, state)`` of ``groups`` ``(rows, state)``
    under each of the weightings ``weights``; with ``categories`` (positions, not empty),
    each piece finished as it is or after one of them is cut first
    (:func:`~geoanon.joint.first_cuts.finish_pieces`); the nodes ``solved``
    knows are not cut again."""
    location, other = _location_and_other(problem)
    first_cuts = bool(categories)
    rows = sum(r.size for r, _ in groups)
    if first_cuts:
        limit = piece_rows(problem.check.model.k)
    else:
        limit = SHARD_ROWS if n_jobs == 1 else max(SHARD_ROWS, rows // (NODES_PER_JOB * n_jobs))
    pieces = _pieces(problem, groups, location, weights)
    leaves, pending = split_weighted(problem, pieces, location + other, weights, limit, park=first_cuts,
                                     solved=solved)
    finish = partial(_first_cut_shards, weights, categories, solved=solved) if first_cuts \
        else partial(_joint_shards, weights, solved=solved)
    for more in _map_shards((problem, finish, location, other), pending, n_jobs):
        for w, found in enumerate(more):
            leaves[w].extend(found)
    return leaves


def _pieces(problem, groups, location, weights) -> list:
    """The groups ``(rows, state, mask)`` the joint design starts from
    (``groups``, cut down by :func:`_within_target`), each with the
    weightings (bits of ``weights``' rows) that start from it."""
    out: dict = {}
    for group in groups:
        if problem.too_wide is None:
            out[len(out)] = (*group, (1 << len(weights)) - 1)
            continue
        for w, row in enumerate(weights):
            for r, st in _within_target(problem.weighted(row), *group, location):
                key = (st, r.tobytes())
                out[key] = (r, st, out.get(key, (None, None, 0))[2] | (1 << w))
    return list(out.values())


def _joint_by_node(problem, rows, location, other) -> JointPartition:
    """The ``"joint"`` design cut node by node (:func:`cut_down` without lookahead)."""
    leaves = [leaf for group in _located_apart(problem, rows, location)
              for piece in _within_target(problem, *group, location)
              for leaf in cut_down(problem, [piece], location + other, 0)[0]]
    return _result(problem, leaves, None, "joint", 0, None, problem.check.codes.size)


ALGORITHMS = {"joint": _joint_design, "frontier": _frontier_design, "location-first": _location_first_design,
              "greedy": _greedy_design}  # design -> (problem, rows, n_jobs) -> JointPartition
# the keys, in order, are choices.DESIGNS, which the release's ``method`` is checked against


def _tree_design(problem, rows, n_jobs, design, choose) -> JointPartition:
    """A design that cuts each shard's location tree at the nodes ``choose`` picks."""
    leaves, owner, loc_states, evaluated = _sharded(problem, rows, n_jobs, partial(_tree_shards, choose))
    return _result(problem, leaves, np.array(owner, dtype=np.int64), design, evaluated, loc_states, problem.check.codes.size)


def _location_and_other(problem) -> tuple[list, list]:
    """The positions of the location's dimensions, and of the others."""
    return ([j for j, d in enumerate(problem.items) if d.location],
            [j for j, d in enumerate(problem.items) if not d.location])


def _sharded(problem, rows, n_jobs, solve) -> tuple:
    """Every shard solved by ``solve`` (:func:`_solve_shards`): the inner
    leaves, the location class of each, the location classes' states and the
    number of location nodes whose inner partition was computed."""
    location, other = _location_and_other(problem)
    shards = [shard for group in _located_apart(problem, rows, location)
              for shard in _shards(problem, *group, location)]
    solved = _map_shards((problem, solve, location, other), shards, n_jobs)     # runs of shards
    leaves, owner, loc_states, evaluated = [], [], [], 0
    for states, inners, count in solved:
        for state, inner in zip(states, inners):
            leaves.extend(inner)
            owner.extend([len(loc_states)] * len(inner))
            loc_states.append(state)
        evaluated += count
    return leaves, owner, loc_states, evaluated


def _located_apart(problem, rows, location) -> list:
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


def _shards(problem, rows, root, location) -> list:
    """Location nodes of at most ``SHARD_ROWS`` rows (or that cannot be cut), in order."""
    return _location_cuts(problem, rows, root, location, lambda r, st: r.size > SHARD_ROWS)


def _within_target(problem, rows, root, location) -> list:
    """Location nodes no wider than the precision target ``problem.too_wide`` (or that cannot be cut)."""
    wide = problem.too_wide
    return _location_cuts(problem, rows, root, location, lambda r, st: wide is not None and wide(st))


def _location_cuts(problem, rows, root, location, cutting) -> list:
    """The location cut (only) while ``cutting(rows, state)`` holds and a cut is admissible; the nodes, in order."""
    out, stack = [], [(rows, root)]
    while stack:
        r, st = stack.pop()
        cut = best_cut(problem, r, st, location) if location and cutting(r, st) else None
        if cut is None:
            out.append((r, st))
        else:
            stack.extend(reversed(cut.parts))
    return out


CHUNKS_PER_JOB = 4  # shards go to the workers in this many runs per worker, for balance


def _map_shards(job, shards, n_jobs) -> list:
    """Solve every shard, in order: all together in this process, or in runs
    of consecutive shards of about as many rows (:func:`_runs`) in ``n_jobs``
    forked worker processes that ignore Ctrl-C (the caller's interrupt
    terminates them). Shards are solved independently, so the runs do not
    change the result."""
    if n_jobs == 1 or len(shards) == 1:
        return [_solve_shards(job, shards)]
    return forked_map(partial(_solve_shards, job), _runs(shards, min(CHUNKS_PER_JOB * n_jobs, len(shards))),
                      n_jobs)


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


def _joint_shards(weights, problem, shards, location, other, solved=None) -> list:
    """Every node ``(rows, state, mask)`` cut along all dimensions without
    lookahead under the weightings of its mask: per weighting, the leaves
    (the nodes ``solved`` knows not cut again)."""
    return split_weighted(problem, shards, location + other, weights, solved=solved)[0]


def _first_cut_shards(weights, categories, problem, shards, location, other, solved=None) -> list:
    """As :func:`_joint_shards`, each node a piece that may cut one of
    ``categories`` first (:func:`~geoanon.joint.first_cuts.finish_pieces`)."""
    return finish_pieces(problem, shards, location + other, categories, weights, solved)


def _tree_shards(choose, problem, shards, location, other) -> tuple:
    """One location tree per shard, solved together: the nodes ``choose``
    (:func:`_frontier`, :func:`_uniform`) picks, with their inner leaves."""
    tree = _location_forest(problem, shards, location)
    chosen, evaluated, inner = choose(problem, tree, other)
    return [tree.state[node] for node in chosen], [inner[node] for node in chosen], evaluated


def _unique_states(leaves, owner):
    seen = {}
    for (_, state), o in zip(leaves, owner):
        seen.setdefault(int(o), state)
    return [seen[o] for o in sorted(seen)]


def _result(problem, leaves, owner, design, evaluated, loc_states, n, weights=None) -> JointPartition:
    """Classes numbered in the order of their states (what they publish, by
    rank), not of their rows, so that ids say nothing about row order;
    ``owner`` None: each class its own location class; the cost under
    ``weights`` (default the dimensions')."""
    row_class = np.full(n, -1, dtype=np.int64)
    order = np.array(sorted(range(len(leaves)), key=lambda i: (leaves[i][1], int(leaves[i][0].min()))),
                     dtype=np.int64)
    states, location_class = [], np.empty(len(leaves), dtype=np.int64)
    for c, i in enumerate(order.tolist()):
        r, st = leaves[i]
        row_class[r] = c
        states.append(st)
        location_class[c] = c if owner is None else owner[i]
    cost = problem.summed_costs(states, [leaves[i][0].size for i in order.tolist()], weights)
    if owner is None:
        loc_states = states
    return JointPartition(row_class=row_class, states=states, location_class=location_class, cost=cost,
                          design=design, evaluated=evaluated, location_classes=len(loc_states),
                          location_states=loc_states)


FINAL_LOOKAHEAD = 1    # Adult at ZIP centroids, k = 5/10/50: NCP 6-10% lower than none (the tiling designs)


def _split_down(problem, rows, state, allowed) -> list:
    """Cut while an admissible cut removes NCP; the leaves (rows, state) in order."""
    leaves, stack = [], [(rows, state)]
    while stack:
        r, st = stack.pop()
        cut = best_cut(problem, r, st, allowed) if allowed else None
        if cut is None:
            leaves.append((r, st))
        else:
            stack.extend(reversed(cut.parts))
    return leaves


def _greedy(problem, rows, root, location, other):
    """One pass over all dimensions; a node below a non-location cut keeps its location."""
    leaves, owner, stack = [], [], [(rows, root, False)]
    loc_ids: dict = {}
    while stack:
        r, st, frozen = stack.pop()
        cut = best_cut(problem, r, st, other if frozen else location + other)
        if cut is None:
            leaves.append((r, st))
            key = tuple(st[j] for j in location)
            owner.append(loc_ids.setdefault(key, len(loc_ids)))
            continue
        below = frozen or cut.dim in other
        stack.extend((p, s, below) for p, s in reversed(cut.parts))
    return leaves, np.array(owner, dtype=np.int64)


@dataclass
class _Tree:
    parent: list
    children: list
    rows: list
    state: list


def _location_forest(problem, groups, location) -> _Tree:
    """The location tree of each group (rows, state), one forest, roots first:
    location cuts only, down to the finest admissible classes (all nodes of a
    depth at once with :func:`geoanon.joint.batch.location_forest` for
    coordinates)."""
    if location and all(isinstance(problem.items[j], RankDim) for j in location) \
            and vectorizable(problem, range(len(problem.items))):
        return _Tree(*location_forest(problem, groups, location))
    return _location_forest_by_node(problem, groups, location)


def _location_forest_by_node(problem, groups, location) -> _Tree:
    """:func:`_location_forest` one node at a time with :func:`best_cut` (the reference of the batch search)."""
    tree = _Tree([-1] * len(groups), [[] for _ in groups], [r for r, _ in groups], [st for _, st in groups])
    for root in range(len(groups)):
        stack = [root]
        while stack:
            node = stack.pop()
            cut = best_cut(problem, tree.rows[node], tree.state[node], location) if location else None
            if cut is None:
                continue
            for part_rows, part_state in cut.parts:
                tree.parent.append(node)
                tree.children.append([])
                tree.rows.append(part_rows)
                tree.state.append(part_state)
                tree.children[node].append(len(tree.parent) - 1)
            stack.extend(reversed(tree.children[node]))
    return tree


def _inner_many(problem, tree, nodes, other) -> dict:
    """{node: (leaves, NCP)} of the other quasi-identifiers cut inside each
    location node, without lookahead: all nodes at once with
    :func:`geoanon.joint.batch.split_all` where it applies."""
    if vectorizable(problem, other):
        leaves, total = split_all(problem, [(tree.rows[n], tree.state[n]) for n in nodes], other)
        return {n: (leaves[i], float(total[i])) for i, n in enumerate(nodes)}
    return {n: _inner(problem, tree, n, other) for n in nodes}


def _inner(problem, tree, node, other):
    """The other quasi-identifiers cut inside a location node: its leaves and their NCP."""
    rows = tree.rows[node]
    leaves = _split_down(problem, rows, tree.state[node], other)
    return leaves, sum(r.size * problem.cost(st) for r, st in leaves)


LOOKAHEAD_CLASSES = 8   # lookahead while a node could hold this many classes (NCP +0.2-0.5% on Adult, faster)


def cut_down(problem, groups, allowed, lookahead=FINAL_LOOKAHEAD) -> list:
    """The leaves of every group ``(rows, state)`` cut along ``allowed`` with
    ``lookahead`` while a node holds at least ``LOOKAHEAD_CLASSES`` times k
    rows; smaller nodes (every node, without lookahead) are finished
    together by the array search (:func:`geoanon.joint.batch.split_all`)."""
    tops, below = [[] for _ in groups], []
    threshold = LOOKAHEAD_CLASSES * problem.check.model.k if lookahead else np.inf
    for g, group in enumerate(groups):
        stack = [group]
        while stack:
            r, st = stack.pop()
            small = r.size < threshold and vectorizable(problem, allowed)
            cut = None if small else best_cut(problem, r, st, allowed, lookahead)
            if small:
                below.append((g, r, st))
            elif cut is None:
                tops[g].append((r, st))
            else:
                stack.extend(reversed(cut.parts))
    finished, _ = split_all(problem, [(r, st) for _, r, st in below], allowed) if below else ([], None)
    for (g, _, _), leaves in zip(below, finished):
        tops[g].extend(leaves)
    return tops


def _refined(problem, tree, chosen, inner, other) -> dict:
    """The chosen location classes cut again by :func:`cut_down`, keeping
    whichever inner partition costs less (the search above estimates each
    node's cost without lookahead, for speed)."""
    tops = cut_down(problem, [(tree.rows[node], tree.state[node]) for node in chosen], other)
    out = {}
    for node, leaves in zip(chosen, tops):
        cost = sum(r.size * problem.cost(st) for r, st in leaves)
        out[node] = leaves if cost < inner[node][1] else list(inner[node][0])
    return out


def _frontier(problem, tree, other):
    """The frontier of least total cost (dynamic programming, children first,
    the nodes of one depth evaluated together); a node wider than the
    precision target (``problem.too_wide``) stops only where it has no children."""
    n_nodes = len(tree.parent)
    best = np.zeros(n_nodes)
    stop = np.zeros(n_nodes, dtype=bool)
    depth = np.zeros(n_nodes, dtype=np.int64)
    roots = [node for node in range(n_nodes) if tree.parent[node] < 0]
    for node in range(n_nodes):                    # parents have smaller ids than their children
        if tree.parent[node] >= 0:
            depth[node] = depth[tree.parent[node]] + 1
    located = problem.location_loss.node_losses(problem, tree)
    inner, evaluated = {}, 0
    for d in range(int(depth.max()), -1, -1):
        below, todo = {}, []
        for node in np.flatnonzero(depth == d).tolist():
            kids = tree.children[node]
            below[node] = float(best[kids].sum()) if kids else np.inf
            if located[node] >= below[node] or (kids and problem.too_wide is not None
                                                                 and problem.too_wide(tree.state[node])):
                best[node] = below[node]
            else:
                todo.append(node)
        for node, (leaves, cost) in _inner_many(problem, tree, todo, other).items():
            evaluated += 1
            total = problem.location_loss.relocated(problem, tree, node, cost, located)
            if total <= below[node]:
                best[node], stop[node] = total, True
                inner[node] = (leaves, cost)
            else:
                best[node] = below[node]
    chosen, stack = [], list(reversed(roots))
    while stack:
        node = stack.pop()
        if stop[node]:
            chosen.append(node)
        else:
            stack.extend(reversed(tree.children[node]))
    return chosen, evaluated, _refined(problem, tree, chosen, inner, other)


def _uniform(problem, tree, other):
    """One location class size K' for each tree of the forest: the least
    total NCP over K' = k 2^j (the nodes of every tree evaluated together)."""
    k = problem.check.model.k
    sizes = np.array([r.size for r in tree.rows])
    roots = [node for node in range(len(tree.parent)) if tree.parent[node] < 0]
    located = problem.location_loss.node_losses(problem, tree)
    inner, evaluated, best, done = {}, 0, {}, set()
    size = k
    while len(done) < len(roots):
        frontier = {}
        for root in roots:
            if root in done:
                continue
            chosen, stack = [], [root]
            while stack:
                node = stack.pop()
                if sizes[node] < 2 * size or not tree.children[node]:
                    chosen.append(node)
                else:
                    stack.extend(reversed(tree.children[node]))
            frontier[root] = chosen
        new = [node for chosen in frontier.values() for node in chosen if node not in inner]
        inner.update(_inner_many(problem, tree, new, other))
        evaluated += len(new)
        for root, chosen in frontier.items():
            total = 0.0
            for node in chosen:
                total += problem.location_loss.relocated(problem, tree, node, inner[node][1], located)
            if root not in best or total < best[root][0]:
                best[root] = (total, chosen)
            if chosen == [root]:
                done.add(root)
        size *= 2
    chosen = [node for root in roots for node in best[root][1]]
    return chosen, evaluated, _refined(problem, tree, chosen, inner, other)
