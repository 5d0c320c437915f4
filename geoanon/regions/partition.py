"""Connected partitions of region graphs (Du, Eppstein, Goodrich and Lueker,
Section 2): every group a connected set of regions holding >= k records, the
largest group as light as possible.

Here: the entry point :func:`partition_graph` and its result
:class:`GraphPartition`, the lower bounds on the largest group that results
are measured against, and the links that join components lighter than k to
their nearest regions. Theorem 1's tree pass and its balanced variant are in
:mod:`.tree_pass`, the local search that follows them in :mod:`.local_search`.
"""
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
from .local_search import LocalSearch
from .spanning import low_degree_spanning_tree
from .tree_pass import TreeShape, best_tree_partition, greedy_tree_partition

from ..choices import REGION_SMALL as ON_SMALL

__all__ = ["GraphPartition", "ON_SMALL", "nearest_bridges", "node_points", "partition_graph"]


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

    Examples
    --------
    >>> import networkx as nx
    >>> import geoanon as ga
    >>> G = nx.Graph([("a", "b"), ("b", "c"), ("a", "d"), ("b", "e"), ("c", "f"), ("d", "e"), ("e", "f")])
    >>> part = ga.partition_graph(G, k=2)
    >>> part.verify()
    GraphPartition(method='balanced', k=2, classes=3, max_weight=2, lower_bound=2, ratio=1.0000)
    >>> part.class_of()
    {'a': 0, 'b': 0, 'c': 1, 'd': 2, 'e': 2, 'f': 1}
    """

    nodes: list = field(default=None)
    graph: CompactGraph = field(default=None)
    tree_degree: int | None = None
    bridges: np.ndarray = field(default_factory=lambda: np.zeros((0, 2), dtype=np.int64))
    empty: np.ndarray = field(default=None)

    def element_names(self) -> list | None:
        """The region ids (:meth:`members`, :meth:`class_of`: -1 for regions in no group)."""
        return self.nodes

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
    src = graph.sources
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

    Examples
    --------
    Six regions on a 2 x 3 grid (``a b c`` above ``d e f``); ``d`` and ``e``
    hold no record and join the group they connect:

    >>> import networkx as nx
    >>> import geoanon as ga
    >>> G = nx.Graph([("a", "b"), ("b", "c"), ("a", "d"), ("b", "e"), ("c", "f"), ("d", "e"), ("e", "f")])
    >>> part = ga.partition_graph(G, k=3, weights={"a": 3, "b": 1, "c": 2, "f": 1})
    >>> part.members()
    [['a', 'b'], ['c', 'd', 'e', 'f']]
    >>> part.weights, part.lower_bound
    (array([4, 3]), 4)
    """
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
        sub = linked if nodes.size == linked.n else linked.subgraph(nodes)    # one component: nodes in order
        local, d = ALGORITHMS[method](sub, w[nodes], k)
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


# -- the methods: one function each, (one connected component, its weights, k) -> (labels, tree degree) ------

def _paper(graph: CompactGraph, w: np.ndarray, k: int):
    """Theorem 1: the greedy post-order pass on a low-degree spanning tree of
    maximum degree d. Guarantee: every group weighs at most heaviest node +
    d (k - 1) <= (d + 1) OPT."""
    if graph.n == 1:
        return np.zeros(1, dtype=np.int64), 0
    tree = low_degree_spanning_tree(graph)
    return greedy_tree_partition(TreeShape(tree.parent), w, k), tree.max_degree


def _balanced(graph: CompactGraph, w: np.ndarray, k: int):
    """Local search from Theorem 1's partition and from the tree pass aimed by
    bisection, on the same low-degree tree (once when they agree); never worse
    than ``"paper"`` on that tree.

    Measured on bench_regions: starting from 6 more random spanning trees as
    well (on graphs of up to 100 regions) cost 2.5-3x the time on NC
    counties, RI and DE and left the largest group as it was or at most 0.7%
    larger, so it was dropped."""
    if graph.n == 1:
        return np.zeros(1, dtype=np.int64), 0
    tree = low_degree_spanning_tree(graph)
    shape = TreeShape(tree.parent)
    paper = greedy_tree_partition(shape, w, k)
    lower = component_lower_bound(graph, w, k)
    rng = np.random.default_rng(0)
    starts = [LocalSearch(graph, w, k, paper)]
    aimed = best_tree_partition(graph, shape, w, k, lower)[0]
    if not np.array_equal(aimed, paper):
        starts.append(LocalSearch(graph, w, k, aimed))
    for groups in starts:
        groups.improve(lower, rng, resolve=False)
    winner = min(starts, key=lambda g: (g.max_weight(), g.count_at_max()))
    winner.improve(lower, rng, resolve=True)
    return winner.labels(), tree.max_degree


def _exact(graph: CompactGraph, w: np.ndarray, k: int):
    """The optimum by mixed integer programming (:mod:`.exact`, HiGHS), on
    components of up to ``EXACT_MAX_NODES`` regions; no spanning tree."""
    from .exact import EXACT_MAX_NODES, exact_partition

    if graph.n > EXACT_MAX_NODES:
        raise DataError(f"method='exact' solves components of up to {EXACT_MAX_NODES} regions, "
                        f"this one has {plural(graph.n, 'region')}")
    return exact_partition(graph, w, k), None


ALGORITHMS = {"balanced": _balanced, "paper": _paper, "exact": _exact}   # method -> (graph, w, k) -> (labels, degree)
METHODS = tuple(ALGORITHMS)            # what ``method`` is checked against; the order of choices.REGION_METHODS
