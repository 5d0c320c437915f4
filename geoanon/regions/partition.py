"""Connected partitions of region graphs (Du, Eppstein, Goodrich and Lueker,
Section 2, Theorem 1): every group a connected set of regions holding >= k
records, the largest group as light as possible."""
from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from functools import cached_property
from typing import Mapping

import numpy as np

from .._text import plural, show
from .._validation import check_choice, check_k, check_total
from ..errors import DataError, InfeasibleError, ParameterError, VerificationError
from ..partition import Partition
from .graphs import CompactGraph, UnionFind, is_lonlat, metric_coordinates
from .spanning import low_degree_spanning_tree

METHODS = ("balanced", "paper", "exact")
ON_SMALL = ("error", "suppress", "nearest")
SEARCH_ROUNDS = 50   # local-search improvements per group, at most
START_TREES = 32     # random spanning trees tried besides the low-degree one, at most ...
START_BUDGET = 600   # ... and at most this many regions' worth of them
RESOLVE_TREES = 3    # random spanning trees per re-solved neighbourhood
RESOLVE_HOPS = 3     # neighbourhoods re-solved: groups within 1, 2, ... hops of the heaviest
SMALL_GRAPH = 2000   # random spanning trees of graphs up to this size are drawn in plain Python
CHAIN_DEPTH = 2      # regions pushed onward to make room for a move out of the heaviest group
CHAIN_TRIES = 8      # moves out of the heaviest group tried with an ejection chain, per step
RESOLVE_MAX_REGIONS = 400  # larger neighbourhoods are not re-solved
RESOLVE_PASSES = 12  # tree passes a bisection takes, roughly (to charge a re-solve to the work budget)
RESPLIT_ROOTS = 8    # roots of the spanning trees tried when re-cutting a group with a neighbour
EXHAUSTIVE_SPLIT = 12  # unions of up to this many regions are split by trying every bipartition
WORK_PER_REGION = 100       # local search stops after touching this many regions per region ...
WORK_BASE = 1_000          # ... plus this many ...
WORK_CAP = 900_000         # ... and at most this many in all (large graphs)


@dataclass(frozen=True, eq=False, repr=False)
class GraphPartition(Partition):
    """A :class:`~geoanon.partition.Partition` of graph nodes into connected groups.

    ``labels`` follow ``nodes`` (the graph's node order); -1 marks regions in
    no group: those of components without records (``empty``) and, with
    ``on_small="suppress"``, of components too light for k. ``tree_degree`` is
    the largest degree d of the spanning trees used (Theorem 1's bound is
    heaviest node + d (k - 1)). ``bridges`` holds the links (pairs of node
    positions) that ``on_small="nearest"`` added from light components to
    their nearest regions: groups are connected in the graph plus bridges.
    """

    nodes: list = field(default=None)
    graph: CompactGraph = field(default=None)
    tree_degree: int | None = None
    bridges: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    empty: np.ndarray = field(default=None)

    def members(self) -> list[list]:
        """The region ids of each group, in class order."""
        return [[self.nodes[i] for i in group] for group in self.groups()]

    def class_of(self) -> dict:
        """Region id -> class id (-1 for regions in no group)."""
        return dict(zip(self.nodes, self.labels.tolist()))

    @cached_property
    def linked_graph(self) -> CompactGraph:
        """The graph with the bridges as edges."""
        return with_links(self.graph, self.bridges)

    def noncontiguous_groups(self) -> list[int]:
        """Class ids of the groups that are connected only through bridges."""
        inside = self.labels[self.bridges[:, 0]]
        inside = np.unique(inside[inside == self.labels[self.bridges[:, 1]]])
        groups = self.groups()
        return [int(c) for c in inside.tolist() if c >= 0 and not _connected_in(self.graph, self.labels, c, groups[c])]

    def _verify_kind(self) -> None:
        """Every group induces a connected subgraph (bridges count as edges)."""
        for c, group in enumerate(self.groups()):
            if not _connected_in(self.linked_graph, self.labels, c, group):
                raise VerificationError(f"group {c} is not connected ({plural(group.size, 'region')}, "
                                        f"from {show(self.nodes[int(group[0])])})")


def _connected_in(g: CompactGraph, labels: np.ndarray, c: int, group: np.ndarray) -> bool:
    """Whether the nodes labelled c (``group``) induce a connected subgraph of g."""
    seen = {int(group[0])}
    queue = deque(seen)
    while queue:
        x = queue.popleft()
        for y in g.neighbors(x).tolist():
            if labels[y] == c and y not in seen:
                seen.add(y)
                queue.append(y)
    return len(seen) == group.size


def with_links(graph: CompactGraph, links: np.ndarray) -> CompactGraph:
    """``graph`` with extra edges (pairs of node positions)."""
    if not len(links):
        return graph
    src = np.repeat(np.arange(graph.n), np.diff(graph.indptr))
    return CompactGraph.from_edges(graph.ids, np.r_[src, links[:, 0]], np.r_[graph.indices, links[:, 1]])


def partition_graph(G, k, weights=None, *, method="balanced", on_small="error") -> GraphPartition:
    """Partition a region graph into connected groups of weight >= k.

    Parameters
    ----------
    G : networkx.Graph
        Regions as nodes, adjacency as edges (see :func:`graph_from_polygons`).
    k : int
    weights : str, mapping, array_like or None
        Records per region: a node attribute name, a mapping region -> count
        (missing regions weigh 0), an array in ``list(G.nodes)`` order, or None
        for one record per region. Zero-weight regions stay in the graph and
        join groups, keeping them connected; a connected component without
        records needs no group (label -1, counted in
        ``params["empty_components"]``).
    method : {"balanced", "paper", "exact"}
        ``"paper"``: Theorem 1. On a spanning tree of maximum degree d (from
        :func:`low_degree_spanning_tree`), merge greedily in post-order: a node's
        piece (the node and its children's open pieces) closes as a group once
        it weighs >= k, else it passes up; the leftover at the root joins an
        adjacent group. Every group weighs at most heaviest node + d (k - 1)
        <= (d + 1) OPT.
        ``"balanced"`` (default): aims at the lower bound. A tree pass closes
        pieces as soon as they reach k but keeps them at most a target M by
        handing children's open pieces to adjacent groups with room; M is
        bisected between the lower bound and Theorem 1's result. Then local
        search on the graph moves boundary regions out of the heaviest group
        and re-splits it with a neighbouring group, keeping both connected and
        >= k. Never worse than ``"paper"`` on the same tree.
        ``"exact"``: the optimum by mixed integer programming (flow-based
        connectivity, solved by HiGHS); components of up to
        ``EXACT_MAX_NODES`` regions.
    on_small : {"error", "suppress", "nearest"}
        A connected component with records but lighter than k can never form
        a group alone: raise InfeasibleError naming its regions, suppress it
        (label -1), or link it to the nearest region (by centroid) of another
        component with records, round after round until every linked piece
        weighs >= k (:func:`nearest_bridges`; needs each node's ``centroid``
        attribute, which :func:`graph_from_polygons` and
        :func:`graph_from_points` set). The links are the partition's
        ``bridges``; the pieces they join are solved as connected graphs.

    Returns
    -------
    GraphPartition
        With ``lower_bound``: per component (bridges included), the largest of
        k, its heaviest region, ceil(W / floor(W / k)) and, for each region
        lighter than k, its weight plus its lightest neighbour's (its group
        must hold both).
    """
    from .exact import EXACT_MAX_NODES, exact_partition

    k = check_k(k)
    method = check_choice("method", method, METHODS)
    on_small = check_choice("on_small", on_small, ON_SMALL)
    graph = CompactGraph.from_networkx(G)
    w = node_weights(G, graph, weights)
    if graph.n == 0:
        raise DataError("the graph has no regions")
    check_total(int(w.sum()), k)
    points = node_points(G, graph) if on_small == "nearest" else None
    comp = graph.components()
    comp_weight = np.bincount(comp, weights=w).astype(np.int64)
    empty = comp_weight[comp] == 0
    light = np.flatnonzero((comp_weight > 0) & (comp_weight < k))
    if light.size and on_small == "error":
        in_light = np.isin(comp, light)
        names = [graph.ids[i] for c in light[:6].tolist() for i in np.flatnonzero(comp == c)[:3].tolist()][:6]
        more = ", ..." if int(in_light.sum()) > len(names) else ""
        one = light.size == 1
        raise InfeasibleError(f"{plural(light.size, 'connected component')} {'weighs' if one else 'weigh'} less "
                              f"than k={k} ({plural(int(comp_weight[light].sum()), 'record')} in "
                              f"{'region' if len(names) == 1 and not more else 'regions'} "
                              f"{', '.join(map(str, names))}{more}); connect {'it' if one else 'them'}, or use "
                              "on_small='suppress' or on_small='nearest'")
    bridges = np.zeros((0, 2), dtype=np.int64)
    linked = graph
    if light.size and on_small == "nearest":
        bridges = nearest_bridges(points, comp, comp_weight, k)
        linked = with_links(graph, bridges)
        comp = linked.components()
    order = np.argsort(comp, kind="stable")
    starts = np.flatnonzero(np.r_[True, comp[order][1:] != comp[order][:-1]])
    labels = np.full(graph.n, -1, dtype=np.int64)
    bounds, degrees, next_id, suppressed = [], [], 0, 0
    for nodes in np.split(order, starts[1:]):
        total = int(w[nodes].sum())
        if total < k:
            suppressed += total > 0
            continue
        sub = linked.subgraph(nodes)
        if method == "exact":
            if nodes.size > EXACT_MAX_NODES:
                raise DataError(f"method='exact' solves components of up to {EXACT_MAX_NODES} regions, "
                                f"this one has {plural(nodes.size, 'region')}")
            local, d = exact_partition(sub, w[nodes], k), None
        else:
            local, d = _heuristic(sub, w[nodes], k, method)
        labels[nodes] = local + next_id
        next_id += int(local.max()) + 1
        bounds.append(component_lower_bound(sub, w[nodes], k))
        degrees.append(d)
    if not bounds:
        raise InfeasibleError(f"no connected component weighs k={k} or more")
    known = [d for d in degrees if d is not None]
    params = {"on_small": on_small, "suppressed_components": suppressed,
              "empty_components": int(np.count_nonzero(comp_weight == 0)), "bridges": len(bridges)}
    return GraphPartition(labels=labels, element_weights=w, k=k, lower_bound=max(bounds), method=method,
                          params=params, nodes=graph.ids, graph=graph, tree_degree=max(known) if known else None,
                          bridges=bridges, empty=empty)


def node_points(G, graph: CompactGraph) -> np.ndarray:
    """Each node's ``centroid`` as metric coordinates (unit vectors on the
    sphere when the graph is geographic), for nearest-region links."""
    values = [G.nodes[v].get("centroid") for v in graph.ids]
    missing = next((v for v, x in zip(graph.ids, values) if x is None), None)
    if missing is not None:
        raise ParameterError(f"on_small='nearest' needs every region's centroid, and region {show(missing)} has "
                             "no 'centroid' attribute (graph_from_polygons and graph_from_points set it)")
    try:
        xy = np.asarray(values, dtype=np.float64).reshape(graph.n, 2)
    except (TypeError, ValueError):
        raise DataError("each region's 'centroid' must be a pair of numbers (x, y)") from None
    if not np.isfinite(xy).all():
        raise DataError("each region's 'centroid' must be a pair of finite numbers (x, y)")
    geographic = G.graph.get("geographic")
    return metric_coordinates(xy, is_lonlat(xy) if geographic is None else bool(geographic))


def nearest_bridges(points: np.ndarray, comp: np.ndarray, comp_weight: np.ndarray, k: int) -> np.ndarray:
    """Links (pairs of node positions) joining light components to others.

    Every round, each piece with records that weighs less than k is linked
    from one of its regions to the nearest region (Euclidean distance between
    ``points``, one k-d tree) of another piece with records, and linked
    pieces merge; rounds go on until every piece weighs >= k. Each round
    merges every light piece, so there are fewer pieces after each; the links
    form a forest over the components. Needs a total weight of at least k.
    """
    from scipy.spatial import cKDTree

    targets = np.flatnonzero(comp_weight[comp] > 0)
    tree = cKDTree(points[targets])
    pieces = UnionFind(comp_weight.size)
    links = []
    while True:
        piece_of = np.asarray([pieces.find(c) for c in range(comp_weight.size)], dtype=np.int64)
        piece = piece_of[comp[targets]]
        piece_weight = np.bincount(piece_of, weights=comp_weight, minlength=comp_weight.size)
        light = np.flatnonzero(piece_weight[piece] < k)
        if not light.size:
            return np.asarray(links, dtype=np.int64).reshape(-1, 2)
        for u, v in zip(*_nearest_outside(tree, piece, light)):
            if pieces.union(int(comp[targets[u]]), int(comp[targets[v]])):
                links.append((int(targets[u]), int(targets[v])))


def _nearest_outside(tree, piece: np.ndarray, light: np.ndarray):
    """For each piece among the nodes ``light`` (positions in the tree's
    data): the pair (u, v) of one of its nodes and the nearest node of
    another piece. Queries grow 8, 32, ... neighbours deep, only for nodes
    whose neighbours so far are all their own piece's and nearer than their
    piece's best pair yet."""
    m = tree.n
    best_d = np.full(light.size, np.inf)
    best_v = np.full(light.size, -1, dtype=np.int64)
    own = piece[light]
    todo = np.arange(light.size)
    depth = min(8, m)
    while todo.size:
        dist, near = tree.query(tree.data[light[todo]], k=depth)
        dist, near = dist.reshape(todo.size, -1), near.reshape(todo.size, -1)
        outside = piece[near] != own[todo][:, None]
        found = outside.any(axis=1)
        first = outside.argmax(axis=1)
        rows = np.flatnonzero(found)
        best_d[todo[rows]] = dist[rows, first[rows]]
        best_v[todo[rows]] = near[rows, first[rows]]
        if depth == m:
            break
        piece_best = np.full(int(piece.max()) + 1, np.inf)
        np.minimum.at(piece_best, own, best_d)
        rest = np.flatnonzero(~found)
        todo = todo[rest[dist[rest, -1] < piece_best[own[todo[rest]]]]]
        depth = min(depth * 4, m)
    order = np.lexsort((best_v, light, best_d, own))
    first = order[np.r_[True, own[order][1:] != own[order][:-1]]]
    return light[first].tolist(), best_v[first].tolist()


def node_weights(G, graph: CompactGraph, weights) -> np.ndarray:
    """Records per node as int64, in ``graph.ids`` order."""
    from .._validation import check_weights

    if weights is None:
        return np.ones(graph.n, dtype=np.int64)
    if isinstance(weights, str):
        values = [G.nodes[v].get(weights) for v in graph.ids]
        missing = [v for v, x in zip(graph.ids, values) if x is None]
        if missing:
            raise DataError(f"region {show(missing[0])} has no {show(weights)} attribute")
        return check_weights(np.asarray(values), graph.n)
    if isinstance(weights, Mapping):
        return check_weights(np.asarray([weights.get(v, 0) for v in graph.ids]), graph.n)
    return check_weights(weights, graph.n)


def component_lower_bound(graph: CompactGraph, w: np.ndarray, k: int) -> int:
    """A lower bound on the largest group of any connected partition (see
    :func:`partition_graph`)."""
    from ..partition import count_lower_bound

    bound = count_lower_bound(int(w.sum()), k, int(w.max()))
    light = np.flatnonzero(w < k)
    if light.size and graph.indices.size:
        degree = np.diff(graph.indptr)
        neighbour_min = np.full(graph.n, np.iinfo(np.int64).max)
        src = np.repeat(np.arange(graph.n), degree)
        np.minimum.at(neighbour_min, src, w[graph.indices])
        has = degree[light] > 0
        if has.any():
            bound = max(bound, int((w[light][has] + neighbour_min[light][has]).max()))
    return bound


# -- Theorem 1 and the balanced variant -------------------------------------------

def _heuristic(graph: CompactGraph, w: np.ndarray, k: int, method: str):
    """Labels (0..c-1) of one connected component, and the tree degree used."""
    if graph.n == 1:
        return np.zeros(1, dtype=np.int64), 0
    tree = low_degree_spanning_tree(graph)
    shape = _TreeShape(tree.parent)
    paper = greedy_tree_partition(shape, w, k)
    if method == "paper":
        return paper, tree.max_degree
    lower = component_lower_bound(graph, w, k)
    rng = np.random.default_rng(0)
    shapes = [shape] + [_TreeShape(random_spanning_tree(graph, rng)) for _ in range(_extra_trees(graph.n))]
    starts = [_Groups(graph, w, k, paper)]
    for start in shapes:
        starts.append(_Groups(graph, w, k, best_tree_partition(graph, start, w, k, lower)[0]))
        if starts[-1].max_weight() <= lower:
            break
    for groups in starts:
        groups.improve(lower, rng, resolve=False)
    winner = min(starts, key=lambda g: (g.max_weight(), g.count_at_max()))
    winner.improve(lower, rng, resolve=True)
    return winner.labels(), tree.max_degree


def _extra_trees(n: int) -> int:
    """More random starting trees on small graphs, none on huge ones."""
    return int(min(START_TREES, START_BUDGET // max(n, 1)))


def random_spanning_tree(graph: CompactGraph, rng) -> np.ndarray:
    """Parent array of a random spanning tree of a connected graph: Kruskal's
    algorithm on the edges in random order, rooted at a random node."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import breadth_first_order, minimum_spanning_tree

    src = np.repeat(np.arange(graph.n), np.diff(graph.indptr))
    upper = src < graph.indices
    a, b = src[upper], graph.indices[upper]
    root = int(rng.integers(graph.n))
    if graph.n > SMALL_GRAPH:
        weights = rng.random(a.size) + 1e-9
        tree = minimum_spanning_tree(csr_matrix((weights, (a, b)), shape=(graph.n, graph.n)))
        tree = tree + tree.T
        _, parent = breadth_first_order(tree, root, directed=False, return_predecessors=True)
        return np.where(parent < 0, -1, parent).astype(np.int64)
    forest = UnionFind(graph.n)
    adj = [[] for _ in range(graph.n)]
    for e in rng.permutation(a.size).tolist():
        x, y = int(a[e]), int(b[e])
        if forest.union(x, y):
            adj[x].append(y)
            adj[y].append(x)
    parent = [-2] * graph.n
    parent[root] = -1
    stack = [root]
    while stack:
        x = stack.pop()
        for y in adj[x]:
            if parent[y] == -2:
                parent[y] = x
                stack.append(y)
    return np.asarray(parent, dtype=np.int64)


def best_tree_partition(graph: CompactGraph, shape, w: np.ndarray, k: int, lower: int):
    """Bisect the target M of :func:`balanced_tree_partition` between the lower
    bound and Theorem 1's result on the same tree; labels and largest group."""
    best = greedy_tree_partition(shape, w, k)
    low, high = lower, int(np.bincount(best, weights=w).max())
    while low < high:
        target = (low + high) // 2
        labels = balanced_tree_partition(graph, shape, w, k, target)
        reached = int(np.bincount(labels, weights=w).max())
        if reached <= target:
            high, best = reached, labels
        else:
            low = target + 1
    return best, high


class _TreeShape:
    """A rooted spanning tree: children lists and a post-order."""

    def __init__(self, parent: np.ndarray):
        n = parent.size
        self.parent = parent.tolist()
        self.children = [[] for _ in range(n)]
        root = -1
        for v, p in enumerate(self.parent):
            if p >= 0:
                self.children[p].append(v)
            else:
                root = v
        order, stack = [], [root]
        while stack:
            v = stack.pop()
            order.append(v)
            stack.extend(self.children[v])
        self.root = root
        self.postorder = order[::-1]


def greedy_tree_partition(tree: _TreeShape, w: np.ndarray, k: int) -> np.ndarray:
    """Theorem 1's greedy on a rooted tree: labels 0..c-1 per node."""
    n = len(tree.parent)
    label = [-1] * n
    group_weight = []
    open_weight = [0] * n
    open_members: list = [None] * n
    open_adjacent: list = [None] * n
    weights = w.tolist()
    for v in tree.postorder:
        total, members, adjacent = weights[v], [v], []
        for c in tree.children[v]:
            if label[c] >= 0:
                adjacent.append(label[c])
            else:
                total += open_weight[c]
                members.extend(open_members[c])
                adjacent.extend(open_adjacent[c])
                open_members[c] = open_adjacent[c] = None
        if total >= k:
            _close(members, total, label, group_weight)
        else:
            open_weight[v], open_members[v], open_adjacent[v] = total, members, adjacent
    root = tree.root
    if label[root] < 0:
        gid = min(open_adjacent[root], key=lambda g: (group_weight[g], g))
        for m in open_members[root]:
            label[m] = gid
    return np.asarray(label, dtype=np.int64)


def _close(members, total: int, label: list, group_weight: list) -> None:
    """Make ``members`` a new group of weight ``total``."""
    gid = len(group_weight)
    group_weight.append(total)
    for m in members:
        label[m] = gid


def balanced_tree_partition(graph: CompactGraph, tree: _TreeShape, w: np.ndarray, k: int, target: int) -> np.ndarray:
    """One pass aiming at groups in [k, target]: a node's piece closes at k;
    when its children's open pieces would push it past the target, some of them
    join an adjacent closed group with room instead. Labels 0..c-1."""
    n = len(tree.parent)
    label = [-1] * n
    group_weight: list = []
    open_weight = [0] * n
    open_members: list = [None] * n
    weights = w.tolist()
    adj = graph.adjacency

    def room_for(members, need):
        """The lightest closed group adjacent to ``members`` that can take ``need``."""
        best = -1
        for m in members:
            for x in adj[m]:
                g = label[x]
                if g >= 0 and group_weight[g] + need <= target and (best < 0 or group_weight[g] < group_weight[best]):
                    best = g
        return best

    for v in tree.postorder:
        pieces = [c for c in tree.children[v] if label[c] < 0]
        total = weights[v] + sum(open_weight[c] for c in pieces)
        if total > target and pieces:
            total = _shed(pieces, total, open_weight, open_members, room_for, label, group_weight, k, target)
        members = [v]
        for c in pieces:
            if label[c] < 0:
                members.extend(open_members[c])
            open_members[c] = None
        if total >= k:
            _close(members, total, label, group_weight)
        else:
            open_weight[v], open_members[v] = total, members
    root = tree.root
    if label[root] < 0:
        leftover = open_members[root]
        candidates = {label[x] for m in leftover for x in adj[m]} - {-1}
        gid = min(candidates, key=lambda g: (group_weight[g], g))
        for m in leftover:
            label[m] = gid
    return np.asarray(label, dtype=np.int64)


def _shed(pieces, total, open_weight, open_members, room_for, label, group_weight, k, target):
    """Hand some children's open pieces to adjacent groups so that the rest
    lands in [k, target] (else below k, else as low as possible); returns the
    node's new piece weight. At most 2^4 subsets are tried."""
    options = [c for c in sorted(pieces, key=lambda c: -open_weight[c])][:4]
    best_key, best_set = None, ()
    for mask in range(1 << len(options)):
        chosen = [options[i] for i in range(len(options)) if mask >> i & 1]
        rest = total - sum(open_weight[c] for c in chosen)
        key = (0, -rest) if k <= rest <= target else (1, -rest) if rest < k else (2, rest)
        if best_key is None or key < best_key:
            best_key, best_set = key, chosen
    for c in best_set:
        g = room_for(open_members[c], open_weight[c])
        if g < 0:
            continue
        group_weight[g] += open_weight[c]
        for m in open_members[c]:
            label[m] = g
        total -= open_weight[c]
    return total


# -- local search on the graph -------------------------------------------------------

class _Groups:
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
            if not (self._move_out(g) or self._resplit(g) or (resolve and any(
                    self._resolve(g, hops, lower_bound, rng) for hops in range(1, RESOLVE_HOPS + 1)))):
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
            shape = _TreeShape(random_spanning_tree(sub, rng))
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
