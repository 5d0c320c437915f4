"""Local search for method="balanced" of :func:`~geoanon.regions.partition_graph`.

Theorem 1 of Du, Eppstein, Goodrich and Lueker (Section 2) bounds the heaviest
group of its tree pass by heaviest node + d (k - 1); the search (not in the
paper) lowers the heaviest group towards the lower bound on the graph itself:
it moves boundary regions out of it (making room with ejection chains),
re-cuts it together with a neighbouring group, and re-solves its
neighbourhood with tree passes (:mod:`.tree_pass`) on random spanning trees.
Every group stays connected and >= k; the work is bounded per region.

The groups live in arrays (:class:`Groups`: labels, weights, member lists
linked through the regions, cached cut vertices), and the moves run as numba
kernels (cached on first use); the re-cuts and re-solves are driven from
Python.
"""
from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from .graphs import CompactGraph
from .spanning import random_spanning_tree
from .tree_pass import TreeShape, best_tree_partition

__all__ = ["LocalSearch"]

SEARCH_ROUNDS = 50   # local-search improvements per group, at most
RESOLVE_TREES = 3    # random spanning trees per re-solved neighbourhood
RESOLVE_HOPS = 3     # neighbourhoods re-solved: groups within 1, 2, ... hops of the heaviest
CHAIN_TRIES = 8      # moves out of the heaviest group tried with an ejection chain, per step
RESOLVE_MAX_REGIONS = 400  # larger neighbourhoods are not re-solved
RESOLVE_PASSES = 12  # tree passes a bisection takes, roughly (to charge a re-solve to the work budget)
RESPLIT_ROOTS = 8    # roots of the spanning trees tried when re-cutting a group with a neighbour
EXHAUSTIVE_SPLIT = 12  # unions of up to this many regions are split by trying every bipartition
WORK_PER_REGION = 100       # local search stops after touching this many regions per region ...
WORK_BASE = 1_000          # ... plus this many ...
WORK_CAP = 900_000         # ... and at most this many in all (large graphs)

_jit = numba.njit(cache=True, nogil=True)


class Groups(NamedTuple):
    """The partition's state, shared by the kernels. Group g's regions are the
    list from ``head[g]`` along ``after`` (``before`` links back); ``cut[u]``
    says whether u is a cut vertex of its group, valid while
    ``cut_known[label[u]]``; ``counters`` holds the regions touched (work)
    and the assignments made (changes)."""

    w: np.ndarray
    label: np.ndarray
    weight: np.ndarray
    size: np.ndarray
    head: np.ndarray
    after: np.ndarray
    before: np.ndarray
    cut_known: np.ndarray
    cut: np.ndarray
    position: np.ndarray       # scratch: -1 everywhere between kernel calls
    counters: np.ndarray


WORK, CHANGES = 0, 1


class LocalSearch:
    """A partition under local search."""

    def __init__(self, graph: CompactGraph, w: np.ndarray, k: int, labels: np.ndarray):
        self.graph, self.k = graph, k
        n, count = graph.n, int(labels.max()) + 1
        capacity = max(2 * count, 4)
        self.state = Groups(w=np.asarray(w, dtype=np.int64), label=np.full(n, -1, dtype=np.int64),
                            weight=np.zeros(capacity, dtype=np.int64), size=np.zeros(capacity, dtype=np.int64),
                            head=np.full(capacity, -1, dtype=np.int64), after=np.full(n, -1, dtype=np.int64),
                            before=np.full(n, -1, dtype=np.int64), cut_known=np.zeros(capacity, dtype=np.bool_),
                            cut=np.zeros(n, dtype=np.bool_), position=np.full(n, -1, dtype=np.int64),
                            counters=np.zeros(2, dtype=np.int64))
        _regroup(self.state, np.arange(n), np.asarray(labels, dtype=np.int64))
        self.groups = count                  # group ids in use; emptied groups keep theirs
        self.adj = graph.adjacency
        self.stuck = None                    # (group, changes) when moves and re-splits last failed
        self.allowance = min(WORK_PER_REGION * n + WORK_BASE, WORK_CAP)

    @property
    def work(self) -> int:
        return int(self.state.counters[WORK])

    @property
    def changes(self) -> int:
        return int(self.state.counters[CHANGES])

    def max_weight(self) -> int:
        return int(self.state.weight.max())

    def count_at_max(self) -> int:
        return int(np.count_nonzero(self.state.weight == self.state.weight.max()))

    def labels(self) -> np.ndarray:
        """Labels renumbered 0..c-1 over the non-empty groups, in order of first node."""
        _, first, inverse = np.unique(self.state.label, return_index=True, return_inverse=True)
        rank = np.empty(first.size, dtype=np.int64)
        rank[np.argsort(first)] = np.arange(first.size)
        return rank[inverse]

    def members(self, g: int) -> np.ndarray:
        return _members(self.state, g)

    def improve(self, lower_bound: int, rng, resolve: bool = True) -> None:
        """Lower the heaviest group by moves, re-splits and (if ``resolve``)
        re-solving its neighbourhood, until none helps."""
        budget = SEARCH_ROUNDS * self.groups
        while budget > 0 and self.work < self.allowance:
            budget -= 1
            g = int(np.argmax(self.state.weight))
            if self.state.weight[g] <= lower_bound:
                return
            if self.stuck != (g, self.changes) and (self._move_out(g) or self._resplit(g)):
                continue
            self.stuck = (g, self.changes)             # not tried again until something changes
            if not (resolve and any(self._resolve(g, hops, lower_bound, rng) for hops in range(1, RESOLVE_HOPS + 1))):
                return

    def _move_out(self, g: int) -> bool:
        return _move_out(self.graph.indptr, self.graph.indices, self.state, g, self.k, self.allowance)

    def _new_group(self) -> int:
        if self.groups == self.state.weight.size:
            grow = self.state.weight.size
            self.state = self.state._replace(
                weight=np.r_[self.state.weight, np.zeros(grow, dtype=np.int64)],
                size=np.r_[self.state.size, np.zeros(grow, dtype=np.int64)],
                head=np.r_[self.state.head, np.full(grow, -1, dtype=np.int64)],
                cut_known=np.r_[self.state.cut_known, np.zeros(grow, dtype=np.bool_)])
        self.groups += 1
        return self.groups - 1

    def _assign(self, nodes: list, dst: int) -> None:
        self.state.counters[CHANGES] += 1
        self.state.counters[WORK] += len(nodes)
        _assign(self.state, np.asarray(nodes, dtype=np.int64), dst)

    def _neighbour_groups(self, nodes: np.ndarray) -> set:
        """The groups of the neighbours of ``nodes`` (their own included)."""
        return set(_neighbour_labels(self.graph.indptr, self.graph.indices, self.state.label, nodes).tolist())

    def _around(self, g: int, hops: int) -> set:
        """g and the groups within ``hops`` steps of it in the group adjacency."""
        found, frontier = {g}, {g}
        for _ in range(hops):
            if not frontier:
                break
            nodes = np.concatenate([self.members(h) for h in sorted(frontier)])
            frontier = self._neighbour_groups(nodes) - found
            found |= frontier
        return found

    def _resolve(self, g: int, hops: int, lower_bound: int, rng) -> bool:
        """Re-partition g and the groups within ``hops`` of it from scratch on
        random spanning trees of their union; keep the result if its largest
        group is lighter than g."""
        top = int(self.state.weight[g])
        around = self._around(g, hops)
        if hops > 1 and around == self._around(g, hops - 1):
            return False
        nodes = np.sort(np.concatenate([self.members(h) for h in sorted(around)]))
        cost = nodes.size * RESOLVE_TREES * RESOLVE_PASSES
        if nodes.size > RESOLVE_MAX_REGIONS or self.work + cost > self.allowance:
            return False
        self.state.counters[WORK] += cost
        sub = self.graph.subgraph(nodes)
        wsub = self.state.w[nodes]
        best, best_max = None, top
        for _ in range(RESOLVE_TREES):
            shape = TreeShape(random_spanning_tree(sub, rng))
            labels, reached = best_tree_partition(sub, shape, wsub, self.k, lower_bound)
            if reached < best_max:
                best, best_max = labels, reached
        if best is None:
            return False
        ids = sorted(around)
        while len(ids) <= int(best.max()):
            ids.append(self._new_group())
        self.state.counters[CHANGES] += 1
        _regroup(self.state, nodes, np.asarray(ids, dtype=np.int64)[best])
        self.state.cut_known[sorted(around)] = False
        return True

    def _resplit(self, g: int) -> bool:
        """Re-cut g together with a neighbouring group, or alone, into two
        connected groups >= k along an edge of a spanning tree of their union."""
        weight = self.state.weight
        top = int(weight[g])
        own = self.members(g)
        neighbours = sorted(self._neighbour_groups(own) - {g}, key=lambda i: (weight[i], i))
        best = None
        for h in [None] + neighbours:
            union = set(own.tolist()) | (set(self.members(h).tolist()) if h is not None else set())
            self.state.counters[WORK] += len(union)
            found = self._best_cut(union, top)
            if found is not None and (best is None or found[0] < best[0]):
                best = (found[0], h, found[1], union)
        if best is None:
            return False
        _, h, side, union = best
        if h is None:
            h = self._new_group()
        label = self.state.label
        self._assign([u for u in union - side if label[u] == g], h)
        self._assign([u for u in side if label[u] == h], g)
        return True

    def _best_cut(self, nodes: set, top: int):
        """The split of ``nodes`` into two connected sides >= k whose heavier side
        is lightest, if lighter than ``top``: (weight, one side). Exhaustive up
        to ``EXHAUSTIVE_SPLIT`` regions; else along the edges of breadth- and
        depth-first spanning trees rooted at up to ``RESPLIT_ROOTS`` regions."""
        if len(nodes) <= EXHAUSTIVE_SPLIT:
            return self._best_split_exhaustive(nodes, top)
        w = self.state.w
        items = _array(nodes)
        roots = items[np.lexsort((items, -w[items]))[:RESPLIT_ROOTS]]
        heavier, side, reached = _best_tree_cut(self.graph.indptr, self.graph.indices, w, items, roots, top, self.k,
                                                self.state.position)
        self.state.counters[WORK] += reached
        return None if heavier < 0 else (int(heavier), set(items[side].tolist()))

    def _best_split_exhaustive(self, nodes: set, top: int):
        """Every bipartition of ``nodes`` (weights summed for all subsets at once);
        the lightest-heavier-side one with both sides connected and >= k."""
        w = self.state.w
        items = sorted(nodes)
        first, rest = items[0], np.asarray(items[1:], dtype=np.int64)
        weight = w[rest]
        masks = np.arange(1 << rest.size, dtype=np.int64)
        bits = ((masks[:, None] >> np.arange(rest.size)) & 1).astype(bool)
        total = int(w[first] + weight.sum())
        a = w[first] + bits.astype(np.int64) @ weight
        b = total - a
        heavier = np.maximum(a, b)
        ok = np.flatnonzero((a >= self.k) & (b >= self.k) & (heavier < top) & (masks != masks[-1]))
        self.state.counters[WORK] += masks.size
        for i in ok[np.argsort(heavier[ok], kind="stable")].tolist():
            side = {first, *rest[bits[i]].tolist()}
            if self._connected(side) and self._connected(nodes - side):
                return int(heavier[i]), side
        return None

    def _connected(self, nodes: set) -> bool:
        start = next(iter(nodes))
        seen, stack = {start}, [start]
        while stack:
            x = stack.pop()
            for y in self.adj[x]:
                if y in nodes and y not in seen:
                    seen.add(y)
                    stack.append(y)
        return len(seen) == len(nodes)


def _array(nodes: set) -> np.ndarray:
    return np.fromiter(nodes, dtype=np.int64, count=len(nodes))


# -- kernels: the group lists ---------------------------------------------------------

@_jit
def _link(s, u, g):
    """Put region u (in no list) at the head of group g's list."""
    s.before[u], s.after[u] = -1, s.head[g]
    if s.head[g] >= 0:
        s.before[s.head[g]] = u
    s.head[g] = u
    s.label[u] = g
    s.size[g] += 1
    s.weight[g] += s.w[u]


@_jit
def _unlink(s, u):
    g = s.label[u]
    if s.before[u] >= 0:
        s.after[s.before[u]] = s.after[u]
    else:
        s.head[g] = s.after[u]
    if s.after[u] >= 0:
        s.before[s.after[u]] = s.before[u]
    s.size[g] -= 1
    s.weight[g] -= s.w[u]


@_jit
def _members(s, g):
    out = np.empty(s.size[g], dtype=np.int64)
    u = s.head[g]
    for i in range(out.size):
        out[i] = u
        u = s.after[u]
    return out


@_jit
def _assign(s, nodes, dst):
    """Move ``nodes`` to group dst."""
    for u in nodes:
        s.cut_known[s.label[u]] = False
        _unlink(s, u)
        _link(s, u, dst)
    s.cut_known[dst] = False


@_jit
def _move(s, u, dst):
    """One move of the search: region u to group dst (an assignment, one region touched)."""
    s.counters[CHANGES] += 1
    s.counters[WORK] += 1
    _assign(s, np.full(1, u), dst)


@_jit
def _regroup(s, nodes, groups):
    """Move each of ``nodes`` (in a group or not yet) to its group in ``groups``."""
    for i in range(nodes.size):
        if s.label[nodes[i]] >= 0:
            _unlink(s, nodes[i])
    for i in range(nodes.size - 1, -1, -1):
        _link(s, nodes[i], groups[i])
        s.cut_known[groups[i]] = False


@_jit
def _removable(indptr, indices, s, g, u):
    """Whether group g stays connected without region u (u is not one of
    its cut vertices); cut vertices are computed once per group state."""
    if not s.cut_known[g]:
        nodes = _members(s, g)
        s.cut[nodes] = False
        s.cut[_cut_vertices(indptr, indices, nodes, s.position)] = True
        s.cut_known[g] = True
        s.counters[WORK] += nodes.size
    return s.size[g] > 1 and not s.cut[u]


# -- kernels: moves and ejection chains --------------------------------------------------

@_jit
def _move_out(indptr, indices, s, g, k, allowance):
    """Move one boundary region of g to a neighbouring group, first making
    room there by pushing one of its own regions onward (an ejection chain of
    up to two steps) when it is too full. Moves are tried by the
    heavier of the two groups after it, then heavier regions first."""
    top = s.weight[g]
    s.counters[WORK] += s.size[g]
    u, h = _boundary_moves(indptr, indices, s, g, 1, top - k, -1, np.full(1, g))
    wu = s.w[u]
    after = np.maximum(top - wu, s.weight[h] + wu)
    chains = CHAIN_TRIES
    for i in _lexorder(after, -wu, u, h):
        if after[i] >= top and (chains == 0 or s.weight[h[i]] <= k):
            continue
        if not _removable(indptr, indices, s, g, u[i]):
            continue
        if after[i] >= top:
            chains -= 1
        if after[i] < top or _make_room(indptr, indices, s, h[i], s.weight[h[i]] + wu[i] - (top - 1), top,
                                        np.full(1, g), u[i], k, allowance):
            _move(s, u[i], h[i])
            return True
    return False


@_jit
def _make_room(indptr, indices, s, h, need, top, banned, keep, k, allowance):
    """Lower group h by at least ``need`` by moving one of its boundary
    regions (no neighbour of region ``keep``, which is moving in) to a
    neighbouring group (not in ``banned``) that stays below ``top``, or that
    does after :func:`_make_room_last` pushes one of its regions onward.
    True if done (moves applied). Not recursive: numba's cache cannot hold
    recursive functions (numba issue 6061)."""
    if s.counters[WORK] >= allowance:
        return False
    v, j, after = _room_moves(indptr, indices, s, h, need, keep, banned, k)
    further = np.append(banned, h)
    for i in range(v.size):
        if not _removable(indptr, indices, s, h, v[i]):
            continue
        if after[i] < top or _make_room_last(indptr, indices, s, j[i], after[i] - (top - 1), top, further, v[i], k,
                                             allowance):
            _move(s, v[i], j[i])
            return True
    return False


@_jit
def _make_room_last(indptr, indices, s, h, need, top, banned, keep, k, allowance):
    """The last step of an ejection chain: :func:`_make_room` by a direct move only."""
    if s.counters[WORK] >= allowance:
        return False
    v, j, after = _room_moves(indptr, indices, s, h, need, keep, banned, k)
    for i in range(v.size):
        if after[i] >= top:
            break
        if _removable(indptr, indices, s, h, v[i]):
            _move(s, v[i], j[i])
            return True
    return False


@_jit
def _room_moves(indptr, indices, s, h, need, keep, banned, k):
    """The moves that lower group h by ``need`` or more (see :func:`_make_room`),
    lightest destination after the move first: regions, groups, that weight."""
    s.counters[WORK] += s.size[h]
    v, j = _boundary_moves(indptr, indices, s, h, need, s.weight[h] - k, keep, banned)
    after = s.weight[j] + s.w[v]
    order = _lexorder(after, v, j, j)
    return v[order], j[order], after[order]


@_jit
def _boundary_moves(indptr, indices, s, g, least, most, keep, banned):
    """Pairs (u, h), each once: u in group g with least <= w[u] <= most and
    no neighbour of region ``keep`` (-1: none), h the group of a neighbour of
    u and not in ``banned``."""
    nodes = _members(s, g)
    count = 0
    for u in nodes:
        count += indptr[u + 1] - indptr[u]
    regions = np.empty(count, dtype=np.int64)
    groups = np.empty(count, dtype=np.int64)
    count = 0
    for u in nodes:
        if s.w[u] < least or s.w[u] > most:
            continue
        if keep >= 0 and np.any(indices[indptr[keep]:indptr[keep + 1]] == u):
            continue
        for e in range(indptr[u], indptr[u + 1]):
            h = s.label[indices[e]]
            if h == g or np.any(banned == h):
                continue
            repeat = False
            for f in range(indptr[u], e):
                repeat = repeat or s.label[indices[f]] == h
            if not repeat:
                regions[count], groups[count] = u, h
                count += 1
    return regions[:count], groups[:count]


@_jit
def _lexorder(a, b, c, d):
    """The order sorting by a, then b, c and d."""
    order = np.argsort(d, kind="mergesort")
    for key in (c, b, a):
        order = order[np.argsort(key[order], kind="mergesort")]
    return order


@_jit
def _neighbour_labels(indptr, indices, label, nodes):
    """The labels of the neighbours of ``nodes`` (with repeats)."""
    count = 0
    for x in nodes:
        count += indptr[x + 1] - indptr[x]
    out = np.empty(count, dtype=np.int64)
    count = 0
    for x in nodes:
        for e in range(indptr[x], indptr[x + 1]):
            out[count] = label[indices[e]]
            count += 1
    return out


# -- kernels: re-cuts ------------------------------------------------------------------

@_jit
def _cut_vertices(indptr, indices, nodes, position):
    """Articulation points of the subgraph induced by ``nodes`` (iterative
    depth-first search with low points). ``position`` is -1 everywhere, and
    again on return."""
    m = nodes.size
    for i in range(m):
        position[nodes[i]] = i
    order = np.full(m, -1, dtype=np.int64)
    low = np.zeros(m, dtype=np.int64)
    cut = np.zeros(m, dtype=np.bool_)
    at = np.empty(m, dtype=np.int64)         # the stack: node, its parent, its next edge
    up = np.empty(m, dtype=np.int64)
    edge = np.empty(m, dtype=np.int64)
    seen = 0
    for root in range(m):
        if order[root] >= 0:
            continue
        order[root] = low[root] = seen
        seen += 1
        children, top = 0, 1
        at[0], up[0], edge[0] = root, -1, indptr[nodes[root]]
        while top:
            x, parent = at[top - 1], up[top - 1]
            advanced = False
            while edge[top - 1] < indptr[nodes[x] + 1]:
                y = position[indices[edge[top - 1]]]
                edge[top - 1] += 1
                if y < 0:
                    continue
                if order[y] < 0:
                    order[y] = low[y] = seen
                    seen += 1
                    at[top], up[top], edge[top] = y, x, indptr[nodes[y]]
                    top += 1
                    advanced = True
                    children += x == root
                    break
                if y != parent:
                    low[x] = min(low[x], order[y])
            if advanced:
                continue
            top -= 1
            if parent >= 0:
                low[parent] = min(low[parent], low[x])
                if parent != root and low[x] >= order[parent]:
                    cut[parent] = True
        if children > 1:
            cut[root] = True
    position[nodes] = -1
    return nodes[cut]


@_jit
def _best_tree_cut(indptr, indices, w, nodes, roots, top, k, position):
    """The edge of a breadth- or depth-first spanning tree of ``nodes`` (from
    each of ``roots``) whose removal leaves two sides >= k with the lightest
    heavier side, if lighter than ``top``: (that weight or -1, the side below
    the edge as a mask over ``nodes``, regions reached by the traversals)."""
    m = nodes.size
    for i in range(m):
        position[nodes[i]] = i
    total = 0
    for x in nodes:
        total += w[x]
    parent = np.empty(m, dtype=np.int64)
    order = np.empty(m, dtype=np.int64)
    below = np.empty(m, dtype=np.int64)
    queue = np.empty(m, dtype=np.int64)
    side = np.zeros(m, dtype=np.bool_)
    best, reached = -1, 0
    for root in roots:
        for depth_first in (False, True):
            parent[:] = -2
            start = position[root]
            parent[start] = -1
            queue[0], head, tail, count = start, 0, 1, 0
            while head < tail:
                if depth_first:
                    tail -= 1
                    x = queue[tail]
                else:
                    x = queue[head]
                    head += 1
                order[count] = x
                count += 1
                for e in range(indptr[nodes[x]], indptr[nodes[x] + 1]):
                    y = position[indices[e]]
                    if y >= 0 and parent[y] == -2:
                        parent[y] = x
                        queue[tail] = y
                        tail += 1
            reached += count
            for j in range(count):
                below[order[j]] = w[nodes[order[j]]]
            for j in range(count - 1, 0, -1):
                below[parent[order[j]]] += below[order[j]]
            limit, cut = top if best < 0 else best, -1
            for j in range(1, count):
                a = below[order[j]]
                heavier = max(a, total - a)
                if a >= k and total - a >= k and heavier < limit:
                    limit, cut = heavier, j
            if cut < 0:
                continue
            best = limit
            side[:] = False
            side[order[cut]] = True
            for j in range(cut + 1, count):
                side[order[j]] = side[parent[order[j]]]
    position[nodes] = -1
    return best, side, reached
