"""Local search for method="balanced" of :func:`~geoanon.regions.partition_graph`.

Theorem 1 of Du, Eppstein, Goodrich and Lueker (Section 2) bounds the heaviest
group of its tree pass by heaviest node + d (k - 1); the search (not in the
paper) lowers the heaviest group towards the lower bound on the graph itself:
it moves boundary regions out of it (making room with ejection chains),
re-cuts it together with a neighbouring group, and re-solves its
neighbourhood with tree passes (:mod:`.tree_pass`) on random spanning trees.
Every group stays connected and >= k; the work is bounded per region.
"""
from __future__ import annotations

import numba
import numpy as np

from .graphs import CompactGraph
from .spanning import random_spanning_tree
from .tree_pass import TreeShape, best_tree_partition

SEARCH_ROUNDS = 50   # local-search improvements per group, at most
RESOLVE_TREES = 3    # random spanning trees per re-solved neighbourhood
RESOLVE_HOPS = 3     # neighbourhoods re-solved: groups within 1, 2, ... hops of the heaviest
CHAIN_DEPTH = 2      # regions pushed onward to make room for a move out of the heaviest group
CHAIN_TRIES = 8      # moves out of the heaviest group tried with an ejection chain, per step
RESOLVE_MAX_REGIONS = 400  # larger neighbourhoods are not re-solved
RESOLVE_PASSES = 12  # tree passes a bisection takes, roughly (to charge a re-solve to the work budget)
RESPLIT_ROOTS = 8    # roots of the spanning trees tried when re-cutting a group with a neighbour
EXHAUSTIVE_SPLIT = 12  # unions of up to this many regions are split by trying every bipartition
WORK_PER_REGION = 100       # local search stops after touching this many regions per region ...
WORK_BASE = 1_000          # ... plus this many ...
WORK_CAP = 900_000         # ... and at most this many in all (large graphs)

_jit = numba.njit(cache=True, nogil=True)


class LocalSearch:
    """A partition under local search: labels, member sets and weights."""

    def __init__(self, graph: CompactGraph, w: np.ndarray, k: int, labels: np.ndarray):
        self.graph, self.k = graph, k
        self.w = w.tolist()
        self.label = labels.tolist()
        count = int(labels.max()) + 1
        self.members = [set() for _ in range(count)]
        self.weight = [0] * count
        for v, g in enumerate(self.label):
            self.members[g].add(v)
            self.weight[g] += self.w[v]
        self.adj = graph.adjacency
        self.weights = np.asarray(w, dtype=np.int64)
        self.position = np.full(graph.n, -1, dtype=np.int64)     # scratch for the compiled kernels
        self.cuts: dict = {}                 # group -> its cut vertices, while unchanged
        self.changes = 0                     # assignments made so far
        self.stuck = None                    # (group, changes) when moves and re-splits last failed
        self.work = 0                        # regions touched by the search
        self.allowance = min(WORK_PER_REGION * graph.n + WORK_BASE, WORK_CAP)

    def max_weight(self) -> int:
        return max(self.weight)

    def count_at_max(self) -> int:
        top = self.max_weight()
        return sum(1 for x, m in zip(self.weight, self.members) if x == top and m)

    def labels(self) -> np.ndarray:
        """Labels renumbered 0..c-1 over the non-empty groups, in order of first node."""
        out, seen = [], {}
        for g in self.label:
            out.append(seen.setdefault(g, len(seen)))
        return np.asarray(out, dtype=np.int64)

    def improve(self, lower_bound: int, rng, resolve: bool = True) -> None:
        """Lower the heaviest group by moves, re-splits and (if ``resolve``)
        re-solving its neighbourhood, until none helps."""
        budget = SEARCH_ROUNDS * len(self.weight)
        while budget > 0 and self.work < self.allowance:
            budget -= 1
            g = max(range(len(self.weight)), key=lambda i: (self.weight[i], -i))
            if self.weight[g] <= lower_bound:
                return
            if self.stuck != (g, self.changes) and (self._move_out(g) or self._resplit(g)):
                continue
            self.stuck = (g, self.changes)             # not tried again until something changes
            if not (resolve and any(self._resolve(g, hops, lower_bound, rng) for hops in range(1, RESOLVE_HOPS + 1))):
                return

    def _around(self, g: int, hops: int) -> set:
        """g and the groups within ``hops`` steps of it in the group adjacency."""
        found, frontier = {g}, {g}
        for _ in range(hops):
            frontier = {self.label[x] for h in frontier for u in self.members[h] for x in self.adj[u]} - found
            found |= frontier
        return found

    def _resolve(self, g: int, hops: int, lower_bound: int, rng) -> bool:
        """Re-partition g and the groups within ``hops`` of it from scratch on
        random spanning trees of their union; keep the result if its largest
        group is lighter than g."""
        top = self.weight[g]
        around = self._around(g, hops)
        if hops > 1 and around == self._around(g, hops - 1):
            return False
        nodes = np.array(sorted(set().union(*(self.members[h] for h in around))), dtype=np.int64)
        cost = nodes.size * RESOLVE_TREES * RESOLVE_PASSES
        if nodes.size > RESOLVE_MAX_REGIONS or self.work + cost > self.allowance:
            return False
        self.work += cost
        sub = self.graph.subgraph(nodes)
        wsub = np.asarray([self.w[u] for u in nodes.tolist()], dtype=np.int64)
        best, best_max = None, top
        for _ in range(RESOLVE_TREES):
            shape = TreeShape(random_spanning_tree(sub, rng))
            labels, reached = best_tree_partition(sub, shape, wsub, self.k, lower_bound)
            if reached < best_max:
                best, best_max = labels, reached
        if best is None:
            return False
        ids = sorted(around)
        for extra in range(int(best.max()) + 1 - len(ids)):
            ids.append(len(self.weight))
            self.members.append(set())
            self.weight.append(0)
        self.changes += 1
        for h in sorted(around):
            self.members[h] = set()
            self.weight[h] = 0
            self.cuts.pop(h, None)
        for u, local in zip(nodes.tolist(), best.tolist()):
            h = ids[local]
            self.members[h].add(u)
            self.label[u] = h
            self.weight[h] += self.w[u]
        return True

    def _removable(self, g: int, u: int) -> bool:
        """Whether group g stays connected without region u (u is not one of
        its cut vertices); cut vertices are computed once per group state."""
        if g not in self.cuts:
            self.cuts[g] = self._cut_vertices(self.members[g])
            self.work += len(self.members[g])
        return len(self.members[g]) > 1 and u not in self.cuts[g]

    def _cut_vertices(self, nodes: set) -> set:
        """Articulation points of the subgraph induced by ``nodes``."""
        found = _cut_vertices(self.graph.indptr, self.graph.indices, _array(nodes), self.position)
        return set(found.tolist())

    def _move_out(self, g: int) -> bool:
        """Move one boundary region of g to a neighbouring group, first making
        room there by pushing one of its own regions onward (ejection chain of
        up to ``CHAIN_DEPTH`` steps) when it is too full."""
        top = self.weight[g]
        self.work += len(self.members[g])
        moves = []
        for u in self.members[g]:
            wu = self.w[u]
            if wu == 0 or top - wu < self.k:
                continue
            for h in {self.label[x] for x in self.adj[u]} - {g}:
                moves.append((max(top - wu, self.weight[h] + wu), -wu, u, h))
        chains = CHAIN_TRIES
        for after, _, u, h in sorted(moves):
            if after >= top and (chains == 0 or self.weight[h] <= self.k):
                continue
            if not self._removable(g, u):
                continue
            if after >= top:
                chains -= 1
            if after < top or self._make_room(h, self.weight[h] + self.w[u] - (top - 1), top, CHAIN_DEPTH,
                                              {g}, set(self.adj[u])):
                self._assign([u], g, h)
                return True
        return False

    def _make_room(self, h: int, need: int, top: int, depth: int, forbidden: set, keep: set) -> bool:
        """Lower group h by at least ``need`` by moving one of its boundary
        regions (not in ``keep``) to a neighbouring group that stays below
        ``top``, recursively making room there. True if done (moves applied)."""
        if depth == 0 or self.work >= self.allowance:
            return False
        self.work += len(self.members[h])
        options = []
        for v in self.members[h]:
            wv = self.w[v]
            if v in keep or wv < need or self.weight[h] - wv < self.k:
                continue
            for j in {self.label[x] for x in self.adj[v]} - {h} - forbidden:
                options.append((self.weight[j] + wv, v, j))
        for after, v, j in sorted(options):
            if after >= top and depth == 1:
                break
            if not self._removable(h, v):
                continue
            if after < top or self._make_room(j, after - (top - 1), top, depth - 1, forbidden | {h}, set(self.adj[v])):
                self._assign([v], h, j)
                return True
        return False

    def _assign(self, nodes, src: int, dst: int) -> None:
        self.changes += 1
        self.cuts.pop(src, None)
        self.cuts.pop(dst, None)
        self.work += len(nodes)
        for u in nodes:
            self.members[src].discard(u)
            self.members[dst].add(u)
            self.label[u] = dst
            self.weight[src] -= self.w[u]
            self.weight[dst] += self.w[u]

    def _resplit(self, g: int) -> bool:
        """Re-cut g together with a neighbouring group, or alone, into two
        connected groups >= k along an edge of a spanning tree of their union."""
        top = self.weight[g]
        neighbours = sorted({self.label[x] for u in self.members[g] for x in self.adj[u]} - {g},
                            key=lambda i: (self.weight[i], i))
        best = None
        for h in [None] + neighbours:
            union = self.members[g] | (self.members[h] if h is not None else set())
            self.work += len(union)
            found = self._best_cut(union, top)
            if found is not None and (best is None or found[0] < best[0]):
                best = (found[0], h, found[1], union)
        if best is None:
            return False
        _, h, side, union = best
        if h is None:
            h = len(self.weight)
            self.members.append(set())
            self.weight.append(0)
        other = union - side
        self._assign([u for u in other if self.label[u] == g], g, h)
        self._assign([u for u in side if self.label[u] == h], h, g)
        return True

    def _best_cut(self, nodes: set, top: int):
        """The split of ``nodes`` into two connected sides >= k whose heavier side
        is lightest, if lighter than ``top``: (weight, one side). Exhaustive up
        to ``EXHAUSTIVE_SPLIT`` regions; else along the edges of breadth- and
        depth-first spanning trees rooted at up to ``RESPLIT_ROOTS`` regions."""
        if len(nodes) <= EXHAUSTIVE_SPLIT:
            return self._best_split_exhaustive(nodes, top)
        items = _array(nodes)
        roots = items[np.lexsort((items, -self.weights[items]))[:RESPLIT_ROOTS]]
        heavier, side, reached = _best_tree_cut(self.graph.indptr, self.graph.indices, self.weights, items, roots,
                                                top, self.k, self.position)
        self.work += reached
        return None if heavier < 0 else (int(heavier), set(items[side].tolist()))

    def _best_split_exhaustive(self, nodes: set, top: int):
        """Every bipartition of ``nodes`` (weights summed for all subsets at once);
        the lightest-heavier-side one with both sides connected and >= k."""
        items = sorted(nodes)
        first, rest = items[0], np.asarray(items[1:], dtype=np.int64)
        weight = np.asarray([self.w[u] for u in items[1:]], dtype=np.int64)
        masks = np.arange(1 << rest.size, dtype=np.int64)
        bits = ((masks[:, None] >> np.arange(rest.size)) & 1).astype(bool)
        total = self.w[first] + int(weight.sum())
        a = self.w[first] + bits.astype(np.int64) @ weight
        b = total - a
        heavier = np.maximum(a, b)
        ok = np.flatnonzero((a >= self.k) & (b >= self.k) & (heavier < top) & (masks != masks[-1]))
        self.work += masks.size
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
