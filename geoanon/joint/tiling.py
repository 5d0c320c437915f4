"""The tiling designs (``"frontier"``, ``"location-first"``, ``"greedy"``):
every location cut above every other cut, so location classes never
overlap; and the node-by-node finish with lookahead (:func:`cut_down`)."""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from .batch import location_forest, split_all, vectorizable
from .cuts import best_cut, best_parts, descend
from .dims import RankDim
from .partition import JointPartition, partition_of
from .sharding import located_apart, location_and_other, map_shards, shards_of

__all__ = ["FINAL_LOOKAHEAD", "LOOKAHEAD_CLASSES", "Tree", "cut_down", "frontier_design", "greedy_design",
           "location_first_design", "location_tree", "split_down"]


def frontier_design(problem, rows, n_jobs) -> JointPartition:
    """``"frontier"``: in each shard's location tree, the frontier of least
    total loss by dynamic programming (:func:`_frontier`)."""
    return _tree_design(problem, rows, n_jobs, "frontier", _frontier)


def location_first_design(problem, rows, n_jobs) -> JointPartition:
    """``"location-first"``: one location class size K' = k 2^j per tree, the
    one of least total loss (:func:`_one_size`)."""
    return _tree_design(problem, rows, n_jobs, "location-first", _one_size)


def greedy_design(problem, rows, n_jobs) -> JointPartition:
    """``"greedy"``: one top-down pass over all dimensions, no shards; a
    location cut only while no other cut lies above the node (:func:`_greedy`)."""
    location, other = location_and_other(problem)
    leaves, owner = _greedy(problem, rows, problem.root(rows), location, other)
    return partition_of(problem, leaves, owner, "greedy", 0, _unique_states(leaves, owner))


def _tree_design(problem, rows, n_jobs, design, choose) -> JointPartition:
    """A design that cuts each shard's location tree at the nodes ``choose`` picks."""
    leaves, owner, loc_states, evaluated = _sharded(problem, rows, n_jobs, partial(_tree_shards, choose))
    return partition_of(problem, leaves, np.array(owner, dtype=np.int64), design, evaluated, loc_states)


def _sharded(problem, rows, n_jobs, solve) -> tuple:
    """Every shard solved by ``solve`` (:func:`~geoanon.joint.sharding.map_shards`): the inner
    leaves, the location class of each, the location classes' states and the
    number of location nodes whose inner partition was computed."""
    location, other = location_and_other(problem)
    shards = [shard for group in located_apart(problem, rows, location)
              for shard in shards_of(problem, *group, location)]
    solved = map_shards((problem, solve, location, other), shards, n_jobs)     # runs of shards
    leaves, owner, loc_states, evaluated = [], [], [], 0
    for states, inners, count in solved:
        for state, inner in zip(states, inners):
            leaves.extend(inner)
            owner.extend([len(loc_states)] * len(inner))
            loc_states.append(state)
        evaluated += count
    return leaves, owner, loc_states, evaluated


def _tree_shards(choose, problem, shards, location, other) -> tuple:
    """One location tree per shard, solved together: the nodes ``choose``
    (:func:`_frontier`, :func:`_one_size`) picks, with their inner leaves."""
    tree = location_tree(problem, shards, location)
    chosen, evaluated, inner = choose(problem, tree, other)
    return [tree.state[node] for node in chosen], [inner[node] for node in chosen], evaluated


def _unique_states(leaves, owner):
    seen = {}
    for (_, state), o in zip(leaves, owner):
        seen.setdefault(int(o), state)
    return [seen[o] for o in sorted(seen)]


FINAL_LOOKAHEAD = 1    # Adult at ZIP centroids, k = 5/10/50: NCP 6-10% lower than none (the tiling designs)


def split_down(problem, rows, state, allowed) -> list:
    """Cut while an admissible cut removes NCP; the leaves (rows, state) in order."""
    return descend((rows, state), lambda node: best_parts(problem, node, allowed))


def _greedy(problem, rows, root, location, other):
    """One pass over all dimensions; a node below a non-location cut keeps its location."""
    def parts_of(node):
        r, st, frozen = node
        cut = best_cut(problem, r, st, other if frozen else location + other)
        return None if cut is None else [(p, s, frozen or cut.dim in other) for p, s in cut.parts]

    leaves = [(r, st) for r, st, _ in descend((rows, root, False), parts_of)]
    places: dict = {}
    owner = [places.setdefault(tuple(st[j] for j in location), len(places)) for _, st in leaves]
    return leaves, np.array(owner, dtype=np.int64)


@dataclass
class Tree:
    """Location trees, one forest: every node's ``parent`` (-1: a root, the
    roots first; parents before children), ``children``, ``rows`` and ``state``."""

    parent: list
    children: list
    rows: list
    state: list


def location_tree(problem, groups, location) -> Tree:
    """The location tree of each group (rows, state), one forest, roots first:
    location cuts only, down to the finest admissible classes (all nodes of a
    depth at once with :func:`geoanon.joint.batch.location_forest` for
    coordinates)."""
    if location and all(isinstance(problem.items[j], RankDim) for j in location) \
            and vectorizable(problem, range(len(problem.items))):
        return Tree(*location_forest(problem, groups, location))
    return location_tree_by_node(problem, groups, location)


def location_tree_by_node(problem, groups, location) -> Tree:
    """:func:`location_tree` one node at a time with :func:`best_cut` (the reference of the batch search)."""
    tree = Tree([-1] * len(groups), [[] for _ in groups], [r for r, _ in groups], [st for _, st in groups])

    def grown(node):
        parts = best_parts(problem, (tree.rows[node], tree.state[node]), location)
        for part_rows, part_state in parts or ():
            tree.parent.append(node)
            tree.children.append([])
            tree.rows.append(part_rows)
            tree.state.append(part_state)
            tree.children[node].append(len(tree.parent) - 1)
        return tree.children[node] if parts else None

    for root in range(len(groups)):
        descend(root, grown)
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
    leaves = split_down(problem, rows, tree.state[node], other)
    return leaves, sum(r.size * problem.cost(st) for r, st in leaves)


LOOKAHEAD_CLASSES = 8   # lookahead while a node could hold this many classes (NCP +0.2-0.5% on Adult, faster)


def cut_down(problem, groups, allowed, lookahead=FINAL_LOOKAHEAD) -> list:
    """The leaves of every group ``(rows, state)`` cut along ``allowed`` with
    ``lookahead`` while a node holds at least ``LOOKAHEAD_CLASSES`` times k
    rows; smaller nodes (every node, without lookahead) are finished
    together by the array search (:func:`geoanon.joint.batch.split_all`)."""
    tops, below = [[] for _ in groups], []
    threshold = LOOKAHEAD_CLASSES * problem.check.model.k if lookahead else np.inf
    together = vectorizable(problem, allowed)

    def small(node) -> bool:
        return together and node[0].size < threshold

    for g, group in enumerate(groups):
        for r, st in descend(group, lambda node: None if small(node) else best_parts(problem, node, allowed, lookahead)):
            if small((r, st)):
                below.append((g, r, st))
            else:
                tops[g].append((r, st))
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
                                                                 and problem.too_wide([tree.state[node]])[0]):
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


def _one_size(problem, tree, other):
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
