"""Spanning trees of low maximum degree (Fürer and Raghavachari's local improvement),
and random spanning trees.

Theorem 1 of Du, Eppstein, Goodrich and Lueker bounds the greedy zip-code
partition by the maximum degree d of the spanning tree it runs on, so the tree
should have d as small as possible. Finding the minimum is NP-hard (d = 2 is a
Hamiltonian path); Fürer and Raghavachari (J. Algorithms 17, 1994) give a local
improvement that stops at d <= d* + 1, where d* is the optimum.

The implementation starts from a depth-first tree and improves it in
two steps per degree level k:

1. *Direct swaps*, in vectorized batches: for every vertex w of degree k find
   a non-tree edge (u, v) whose tree path passes through w and whose endpoints
   have degree <= k - 2; adding (u, v) and removing w's edge on that path lowers
   w to k - 1. Paths are tested with Euler-tour intervals and lowest common
   ancestors (binary lifting) on the rooted tree; swaps of one batch are kept
   only while their paths avoid the edges removed before them.
2. *The Fürer-Raghavachari phase*, when no direct swap is left: remove the
   vertices of degree k and k - 1 from the tree; the remaining forest's
   components are kept in a union-find. A non-tree edge between two components
   closes a cycle through removed vertices. If one has degree k, improve it;
   otherwise every removed vertex on the cycle has degree k - 1: it is
   unblocked with that edge as its *witness* and the components along the cycle
   merge. An improvement whose edge raises an unblocked endpoint to degree k
   recursively lowers it again through its witness. A phase that ends without
   an improvement proves d <= d* + 1.

No phase is needed once d <= L + 1 for a proven lower bound L on d*: 2 for
three or more vertices, and a vertex with p pendant neighbours (and other
neighbours) needs degree p (+1) in every spanning tree.

Also random spanning trees (:func:`random_spanning_tree`, Kruskal's algorithm
on the edges in random order): the further trees that method="balanced" runs
Theorem 1's tree pass on.
"""
from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from .._text import show
from ..errors import ParameterError
from .graphs import CompactGraph, UnionFind

__all__ = ["SpanningTree", "low_degree_spanning_tree", "random_spanning_tree"]



@dataclass
class SpanningTree:
    """A spanning forest (one tree per connected component).

    Attributes
    ----------
    parent : ndarray of int64
        Parent of each node in the rooted forest, -1 at the roots.
    degree : ndarray of int64
        Tree degree of each node.
    max_degree : int
        d, the largest tree degree.
    lower_bound : int
        A proven lower bound on the smallest possible d.
    certified : bool
        Whether d <= d* + 1 is proven (a phase found no improvement, or
        d <= lower_bound + 1).
    swaps, phases : int
        Degree-lowering swaps made (direct or through a phase), and
        Fürer-Raghavachari phases run.
    """

    parent: np.ndarray
    degree: np.ndarray
    max_degree: int
    lower_bound: int
    certified: bool
    swaps: int = 0
    phases: int = 0

    def edges(self) -> tuple[np.ndarray, np.ndarray]:
        child = np.flatnonzero(self.parent >= 0)
        return child, self.parent[child]


def low_degree_spanning_tree(G, *, start: str = "dfs") -> SpanningTree:
    """A spanning forest of ``G`` with maximum degree at most optimal + 1.

    Parameters
    ----------
    G : networkx.Graph or CompactGraph
    start : {"dfs", "bfs"}
        The tree the improvement starts from: depth-first (long paths, few
        high degrees: the fast default) or breadth-first from the highest-degree
        vertex (star-like: mainly to exercise the improvement).

    Returns
    -------
    SpanningTree
        Over ``list(G.nodes)`` in order (for a networkx graph).

    Examples
    --------
    A wheel's hub touches every node; the tree avoids it (a Hamiltonian path):

    >>> import networkx as nx
    >>> import geoanon as ga
    >>> tree = ga.low_degree_spanning_tree(nx.wheel_graph(6))
    >>> tree.max_degree, tree.lower_bound, tree.certified
    (2, 2, True)
    >>> tree.degree
    array([2, 1, 2, 2, 2, 1])
    """
    graph = G if isinstance(G, CompactGraph) else CompactGraph.from_networkx(G)
    if start not in ("dfs", "bfs"):
        raise ParameterError(f"start must be 'dfs' or 'bfs', got {show(start)}")
    return _Improver(graph, start).run()


def degree_lower_bound(graph: CompactGraph) -> int:
    """A lower bound on the maximum degree of any spanning forest of ``graph``."""
    degree = np.diff(graph.indptr)
    comp = graph.components()
    sizes = np.bincount(comp) if comp.size else np.zeros(0, dtype=np.int64)
    bound = int(min(sizes.max() - 1, 2)) if sizes.size else 0
    if graph.indices.size:
        src = np.repeat(np.arange(graph.n), degree)
        pendant = np.bincount(src, weights=(degree[graph.indices] == 1), minlength=graph.n).astype(np.int64)
        need = pendant + (degree > pendant)
        bound = max(bound, int(need.max()))
    return bound


def random_spanning_tree(graph: CompactGraph, rng) -> np.ndarray:
    """Parent array of a random spanning tree of a connected graph: Kruskal's
    algorithm on the edges in random order, rooted at a random node."""
    src = graph.sources
    upper = src < graph.indices
    a, b = src[upper], graph.indices[upper]
    root = int(rng.integers(graph.n))
    order = rng.permutation(a.size)
    return _kruskal(graph.n, a[order], b[order], root)


@numba.njit(cache=True, nogil=True)
def _kruskal(n, a, b, root):
    """The spanning forest Kruskal's algorithm keeps from edges (a, b) in this
    order, as parent pointers from ``root`` (-1 there and for unreached nodes)."""
    find = np.arange(n)
    degree = np.zeros(n + 1, dtype=np.int64)
    kept = np.zeros(a.size, dtype=np.bool_)
    for e in range(a.size):
        x, y = a[e], b[e]
        while find[x] != x:
            find[x] = find[find[x]]
            x = find[x]
        while find[y] != y:
            find[y] = find[find[y]]
            y = find[y]
        if x != y:
            find[x] = y
            kept[e] = True
            degree[a[e] + 1] += 1
            degree[b[e] + 1] += 1
    start = np.cumsum(degree)
    fill = start[:-1].copy()
    neighbour = np.empty(start[-1], dtype=np.int64)
    for e in np.flatnonzero(kept):
        neighbour[fill[a[e]]] = b[e]
        fill[a[e]] += 1
        neighbour[fill[b[e]]] = a[e]
        fill[b[e]] += 1
    parent = np.full(n, -2, dtype=np.int64)
    parent[root] = -1
    stack = np.empty(n, dtype=np.int64)
    stack[0], top = root, 1
    while top:
        top -= 1
        x = stack[top]
        for i in range(start[x], start[x + 1]):
            y = neighbour[i]
            if parent[y] == -2:
                parent[y] = x
                stack[top] = y
                top += 1
    return np.maximum(parent, -1)


@numba.njit(cache=True, nogil=True)
def _search(indptr, indices, roots, depth_first):
    """Depth-first (a node's first unvisited neighbour next, as scipy's
    ``depth_first_order``) or breadth-first search from each root in turn:
    the preorder, parents (-1 at roots and unreached nodes) and depths."""
    n = indptr.size - 1
    order = np.empty(n, dtype=np.int64)
    parent = np.full(n, -1, dtype=np.int64)
    depth = np.zeros(n, dtype=np.int64)
    seen = np.zeros(n, dtype=np.bool_)
    stack = np.empty(n, dtype=np.int64)       # the path (depth-first) or the queue (breadth-first)
    edge = np.empty(n, dtype=np.int64)        # each path node's next edge to look at
    count = 0
    for root in roots:
        if seen[root]:
            continue
        seen[root] = True
        order[count] = root
        count += 1
        if depth_first:
            stack[0], edge[0], top = root, indptr[root], 1
            while top:
                x, e = stack[top - 1], edge[top - 1]
                while e < indptr[x + 1] and seen[indices[e]]:
                    e += 1
                edge[top - 1] = e + 1
                if e == indptr[x + 1]:
                    top -= 1
                    continue
                y = indices[e]
                seen[y], parent[y], depth[y] = True, x, depth[x] + 1
                order[count] = y
                count += 1
                stack[top], edge[top] = y, indptr[y]
                top += 1
        else:
            head = count - 1
            while head < count:
                x = order[head]
                head += 1
                for e in range(indptr[x], indptr[x + 1]):
                    y = indices[e]
                    if not seen[y]:
                        seen[y], parent[y], depth[y] = True, x, depth[x] + 1
                        order[count] = y
                        count += 1
    return order[:count], parent, depth


def _first_tree(graph: CompactGraph, start: str) -> tuple[list, np.ndarray]:
    """The improvement's first forest, as adjacency sets, and its roots: one
    tree per component, depth-first from its lowest-degree node (``"dfs"``) or
    breadth-first from its highest-degree node."""
    n, degree = graph.n, np.diff(graph.indptr)
    comp = graph.components()
    order = np.lexsort((np.arange(n), degree if start == "dfs" else -degree, comp))
    roots = order[np.r_[True, comp[order][1:] != comp[order][:-1]]] if n else order
    pred = _search(graph.indptr, graph.indices, roots, start == "dfs")[1]
    adj = [set() for _ in range(n)]
    child = np.flatnonzero(pred >= 0)
    for c, p in zip(child.tolist(), pred[child].tolist()):
        adj[c].add(p)
        adj[p].add(c)
    return adj, roots


class _Improver:
    """State of the local improvement: the tree as adjacency sets plus degrees."""

    def __init__(self, graph: CompactGraph, start: str = "dfs"):
        self.graph = graph
        n = graph.n
        self.n = n
        self.adj, self.roots = _first_tree(graph, start)
        self.deg = np.array([len(a) for a in self.adj], dtype=np.int64)
        self.swaps = self.phases = 0
        src = graph.sources
        upper = src < graph.indices
        self.edge_u, self.edge_v = src[upper], graph.indices[upper]

    # -- the driver ------------------------------------------------------------
    def run(self, shortcut: bool = True) -> SpanningTree:
        """Improve until certified. ``shortcut=False`` keeps improving below the
        lower bound's certificate, down to a phase without improvement (tests)."""
        bound = degree_lower_bound(self.graph)
        certified = self.n == 0
        while self.n:
            k = int(self.deg.max())
            if (shortcut and k <= bound + 1) or k <= 2:
                certified = True
                break
            if self._direct_swaps(k):
                continue
            if self._phase(k):
                continue
            certified = True
            break
        parent, _, _ = self._rooted()
        return SpanningTree(parent=parent, degree=self.deg.copy(), max_degree=int(self.deg.max()) if self.n else 0,
                            lower_bound=bound, certified=certified, swaps=self.swaps, phases=self.phases)

    # -- rooting -----------------------------------------------------------------
    def _rooted(self):
        """Parent, depth and preorder of the current forest, rooted at ``self.roots``."""
        indptr = np.zeros(self.n + 1, dtype=np.int64)
        np.cumsum(self.deg, out=indptr[1:])
        indices = np.fromiter((j for a in self.adj for j in sorted(a)), dtype=np.int64, count=int(indptr[-1]))
        preorder, parent, depth = _search(indptr, indices, self.roots, True)
        return parent, depth, preorder

    # -- step 1: batches of direct swaps -------------------------------------------
    def _direct_swaps(self, k: int) -> bool:
        parent, depth, preorder = self._rooted()
        n = self.n
        tin = np.empty(n, dtype=np.int64)
        tin[preorder] = np.arange(n)
        size = np.ones(n, dtype=np.int64)
        for v in preorder[::-1].tolist():
            p = parent[v]
            if p >= 0:
                size[p] += size[v]
        tout = tin + size
        lift = _Lifting(parent, depth)
        in_tree = self._tree_edge_mask(parent)
        low = (self.deg[self.edge_u] <= k - 2) & (self.deg[self.edge_v] <= k - 2) & ~in_tree
        u, v = self.edge_u[low], self.edge_v[low]
        if u.size == 0:
            return False
        lca = lift.lca(u, v)
        tin_u, tin_v = tin[u], tin[v]
        removed = []           # (child, subtree start, subtree end) of edges cut in this batch
        applied = 0
        for w in np.flatnonzero(self.deg == k).tolist():
            if self.deg[w] != k:
                continue
            in_u = (tin[w] <= tin_u) & (tin_u < tout[w])
            in_v = (tin[w] <= tin_v) & (tin_v < tout[w])
            through = (in_u != in_v) | (lca == w)
            for e in np.flatnonzero(through).tolist():
                a, b = int(u[e]), int(v[e])
                if self.deg[a] > k - 2 or self.deg[b] > k - 2 or b in self.adj[a]:
                    continue
                if any((s <= tin_u[e] < t) != (s <= tin_v[e] < t) for _, s, t in removed):
                    continue       # the path used an edge cut earlier in this batch
                inner = a if in_u[e] else b
                c = int(lift.ancestor(np.array([inner]), np.array([depth[w] + 1]))[0])
                if c not in self.adj[w]:
                    continue
                self._swap(add=(a, b), remove=(w, c))
                removed.append((c, tin[c], tout[c]))
                applied += 1
                break
        self.swaps += applied
        return applied > 0

    def _tree_edge_mask(self, parent) -> np.ndarray:
        """Whether each graph edge (edge_u, edge_v) is in the current tree."""
        u, v = self.edge_u, self.edge_v
        return (parent[u] == v) | (parent[v] == u)

    def _swap(self, add, remove) -> None:
        a, b = add
        x, y = remove
        self.adj[x].discard(y)
        self.adj[y].discard(x)
        self.adj[a].add(b)
        self.adj[b].add(a)
        for z in (x, y):
            self.deg[z] -= 1
        for z in (a, b):
            self.deg[z] += 1

    # -- step 2: a Fürer-Raghavachari phase ------------------------------------------
    def _phase(self, k: int) -> bool:
        """One phase at maximum degree k; True if an improvement was made."""
        self.phases += 1
        parent, depth, _ = self._rooted()
        lift = _Lifting(parent, depth)
        n = self.n
        deg = self.deg
        blocked = (deg >= k - 1).tolist()
        components = UnionFind(n)
        find = components.find
        par, dep = parent.tolist(), depth.tolist()
        for c in range(n):
            p = par[c]
            if p >= 0 and not blocked[c] and not blocked[p]:
                components.union(c, p)
        top = {}
        for v in sorted(range(n), key=dep.__getitem__):
            if not blocked[v]:
                top.setdefault(find(v), v)
        witness = {}
        in_tree = self._tree_edge_mask(parent)
        edges = list(zip(self.edge_u[~in_tree].tolist(), self.edge_v[~in_tree].tolist()))

        def walk(a, b):
            """Blocked vertices and component roots on the tree path a..b."""
            lca = int(lift.lca(np.array([a]), np.array([b]))[0])
            stops, comps = [], []
            for x in (a, b):
                while True:
                    if blocked[x]:
                        if x not in stops:
                            stops.append(x)
                        if x == lca:
                            break
                        x = par[x]
                    else:
                        r = find(x)
                        comps.append(r)
                        t = top[r]
                        if dep[t] <= dep[lca]:
                            break
                        x = par[t]
            return stops, comps, lca

        changed = True
        while changed:
            changed = False
            for a, b in edges:
                if blocked[a] or blocked[b]:
                    continue
                ra, rb = find(a), find(b)
                if ra == rb:
                    continue
                stops, comps, lca = walk(a, b)
                heavy = [x for x in stops if deg[x] >= k]
                if heavy:
                    if self._improve(heavy[0], (a, b), lca, lift, depth, witness, k):
                        return True
                    continue
                # every blocked vertex on the cycle has degree k - 1: unblock and merge
                best = min((top[r] for r in comps), key=dep.__getitem__)
                for x in stops:
                    blocked[x] = False
                    witness[x] = (a, b)
                    if dep[x] < dep[best]:
                        best = x
                root = find(comps[0])
                for x in comps[1:] + stops:
                    components.union(x, root)
                top[find(root)] = best
                changed = True
        return False

    def _improve(self, x, edge, lca, lift, depth, witness, k) -> bool:
        """Lower degree-k vertex x with ``edge``, then lower any endpoint pushed to
        degree k through its witness, recursively. Undone if it would not help."""
        a, b = edge
        if x == lca:
            y = int(lift.ancestor(np.array([a]), np.array([depth[x] + 1]))[0])
        else:
            y = int(lift.parent[x])
        log = []
        before = int(np.count_nonzero(self.deg >= k))
        self._logged_swap(log, add=(a, b), remove=(x, y))
        stack = [e for e in (a, b) if self.deg[e] >= k]
        ok = True
        while stack and ok:
            e = stack.pop()
            if self.deg[e] < k:
                continue
            if e not in witness:
                ok = False
                break
            c, d = witness[e]
            path = self._path(c, d)
            if path is None or e not in path or c in self.adj[d]:
                ok = False
                break
            i = path.index(e)
            z = path[i + 1] if i + 1 < len(path) else path[i - 1]
            self._logged_swap(log, add=(c, d), remove=(e, z))
            stack.extend(f for f in (c, d) if self.deg[f] >= k)
        if ok and self.deg.max() <= k and np.count_nonzero(self.deg >= k) < before:
            self.swaps += len(log)
            return True
        for add, remove in reversed(log):      # undo
            self._swap(add=remove, remove=add)
        return False

    def _logged_swap(self, log, add, remove) -> None:
        self._swap(add=add, remove=remove)
        log.append((add, remove))

    def _path(self, a: int, b: int):
        """The path a..b in the current tree (breadth-first search), or None."""
        prev = {a: -1}
        frontier = [a]
        while frontier and b not in prev:
            nxt = []
            for x in frontier:
                for y in self.adj[x]:
                    if y not in prev:
                        prev[y] = x
                        nxt.append(y)
            frontier = nxt
        if b not in prev:
            return None
        path = [b]
        while path[-1] != a:
            path.append(prev[path[-1]])
        return path[::-1]


class _Lifting:
    """Binary lifting on a rooted forest: ancestors and lowest common ancestors."""

    def __init__(self, parent: np.ndarray, depth: np.ndarray):
        n = parent.size
        self.parent = parent
        self.depth = depth
        up0 = np.where(parent >= 0, parent, np.arange(n))
        self.up = [up0]
        for _ in range(max(1, int(depth.max(initial=0)).bit_length())):
            self.up.append(self.up[-1][self.up[-1]])

    def ancestor(self, x: np.ndarray, at_depth: np.ndarray) -> np.ndarray:
        """The ancestor of each x at the given depth (<= its own)."""
        x = x.copy()
        diff = self.depth[x] - at_depth
        for j, up in enumerate(self.up):
            move = ((diff >> j) & 1).astype(bool)
            x[move] = up[x[move]]
        return x

    def lca(self, u: np.ndarray, v: np.ndarray) -> np.ndarray:
        """Lowest common ancestor of each pair (same tree assumed)."""
        swap = self.depth[u] < self.depth[v]
        u, v = np.where(swap, v, u), np.where(swap, u, v)
        u = self.ancestor(u, self.depth[v])
        for up in reversed(self.up):
            a, b = up[u], up[v]
            move = a != b
            u = np.where(move, a, u)
            v = np.where(move, b, v)
        return np.where(u == v, u, self.up[0][u])
