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

from collections import deque

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
        """Articulation points of the subgraph induced by ``nodes`` (iterative
        depth-first search with low points)."""
        adj = self.adj
        order, low, cut = {}, {}, set()
        for root in nodes:
            if root in order:
                continue
            order[root] = low[root] = len(order)
            children = 0
            stack = [(root, -1, iter(adj[root]))]
            while stack:
                x, parent, it = stack[-1]
                advanced = False
                for y in it:
                    if y not in nodes:
                        continue
                    if y not in order:
                        order[y] = low[y] = len(order)
                        stack.append((y, x, iter(adj[y])))
                        advanced = True
                        if x == root:
                            children += 1
                        break
                    if y != parent:
                        low[x] = min(low[x], order[y])
                if advanced:
                    continue
                stack.pop()
                if parent >= 0:
                    low[parent] = min(low[parent], low[x])
                    if parent != root and low[x] >= order[parent]:
                        cut.add(parent)
            if children > 1:
                cut.add(root)
        return cut

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
        roots = sorted(nodes, key=lambda u: (-self.w[u], u))[:RESPLIT_ROOTS]
        best = None
        for root in roots:
            for depth_first in (False, True):
                found = self._best_cut_from(nodes, root, top if best is None else best[0], depth_first)
                if found is not None:
                    best = found
        return best

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

    def _best_cut_from(self, nodes: set, root: int, top: int, depth_first: bool):
        parent, order = {root: -1}, []
        frontier = deque([root])
        while frontier:
            x = frontier.pop() if depth_first else frontier.popleft()
            order.append(x)
            for y in self.adj[x]:
                if y in nodes and y not in parent:
                    parent[y] = x
                    frontier.append(y)
        self.work += len(order)
        total = sum(self.w[u] for u in nodes)
        below = {u: self.w[u] for u in nodes}
        for u in reversed(order[1:]):
            below[parent[u]] += below[u]
        best = None
        for u in order[1:]:
            a = below[u]
            b = total - a
            if a >= self.k and b >= self.k and max(a, b) < top and (best is None or max(a, b) < best[0]):
                best = (max(a, b), u)
        if best is None:
            return None
        side, stack = set(), [best[1]]          # the subtree under the cut edge
        children = {}
        for u in order[1:]:
            children.setdefault(parent[u], []).append(u)
        while stack:
            x = stack.pop()
            side.add(x)
            stack.extend(children.get(x, []))
        return best[0], side
