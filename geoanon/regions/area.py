"""Where a table's records lie on a region map: the regions that hold
records, and the regions without records that lie on the shortest routes
between them. A one-state table on a national ZIP map is partitioned within
its state; a region without records joins a group only to connect the
group's record-holding regions.

The routes are Mehlhorn's Steiner forest (K. Mehlhorn, *A faster
approximation algorithm for the Steiner problem in graphs*, Information
Processing Letters 27, 1988: within 2 (1 - 1/l) of the shortest tree joining
l terminals) over the km between adjacent regions' centroids: every region
joins the terminal nearest it (one multi-source Dijkstra), every edge between
the regions of two terminals is a route between them of its length plus its
ends' distances, and a minimum spanning forest of those routes keeps, in each
connected component, the shortest that join all of its terminals.
"""
from __future__ import annotations

import networkx as nx
import numpy as np

from .._geo import haversine_km
from .graphs import CompactGraph

__all__ = ["data_area", "edge_lengths", "edge_matrix", "steiner_forest", "trimmed_groups"]

SHORTEST = 1e-9       # km: an edge between regions sharing a centroid still counts as an edge


def steiner_forest(graph: CompactGraph, lengths: np.ndarray, terminals: np.ndarray,
                   limit: float = np.inf, weights=None) -> np.ndarray:
    """Whether each node of ``graph`` lies on Mehlhorn's Steiner forest
    joining the ``terminals`` (a mask) of each connected component;
    ``lengths``: each stored edge's (``graph.indices`` order); ``limit``:
    routes through nodes no farther from a terminal only (terminals farther
    apart stay apart); ``weights``: :func:`edge_matrix` of them, where the
    caller joins many sets of terminals on one graph (only the edges of the
    nodes reached are read, so a few terminals of a large graph cost little).

    Examples
    --------
    A path a - b - c - d with a branch b - e: joining a and c keeps b, not d or e.

    >>> g = CompactGraph.from_edges(list("abcde"), [0, 1, 2, 1], [1, 2, 3, 4])
    >>> steiner_forest(g, np.ones(g.indices.size), np.array([True, False, True, False, False])).tolist()
    [True, True, True, False, False]
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra, minimum_spanning_tree

    keep = np.asarray(terminals, dtype=bool).copy()
    sources = np.flatnonzero(keep)
    if sources.size < 2:
        return keep
    weights = edge_matrix(graph, lengths) if weights is None else weights
    dist, before, nearest = dijkstra(weights, directed=False, indices=sources, min_only=True,
                                     return_predecessors=True, limit=limit)
    reached = np.flatnonzero(nearest >= 0)
    starts, counts = graph.indptr[reached], np.diff(graph.indptr)[reached]
    edge = np.repeat(starts - (np.cumsum(counts) - counts), counts) + np.arange(counts.sum())
    a, b = np.repeat(reached, counts), graph.indices[edge]      # the reached nodes' edges, in CSR order
    across = (a < b) & (nearest[b] >= 0) & (nearest[a] != nearest[b])
    a, b, edge = a[across], b[across], edge[across]
    if not a.size:
        return keep
    cost = dist[a] + np.maximum(lengths[edge], SHORTEST) + dist[b]
    ta, tb = np.minimum(nearest[a], nearest[b]), np.maximum(nearest[a], nearest[b])
    order = np.lexsort((b, a, cost, tb, ta))                  # per pair of terminals, its shortest route first
    first = order[np.r_[True, (ta[order][1:] != ta[order][:-1]) | (tb[order][1:] != tb[order][:-1])]]
    ia, ib = np.searchsorted(sources, ta[first]), np.searchsorted(sources, tb[first])    # terminals' positions
    routes = csr_matrix((cost[first], (ia, ib)), shape=(sources.size, sources.size))
    tree = minimum_spanning_tree(routes).tocoo()
    route_of = {(int(x), int(y)): i for i, x, y in zip(first.tolist(), ia.tolist(), ib.tolist())}
    for x, y in zip(tree.row.tolist(), tree.col.tolist()):
        i = route_of[(min(x, y), max(x, y))]
        for v in (int(a[i]), int(b[i])):
            while not keep[v]:                               # back to its terminal, or to a node already kept
                keep[v] = True
                v = int(before[v])
    return keep


def edge_matrix(graph: CompactGraph, lengths: np.ndarray):
    """``graph``'s edges weighted by their ``lengths`` (at least ``SHORTEST``), as a sparse matrix."""
    from scipy.sparse import csr_matrix

    return csr_matrix((np.maximum(lengths, SHORTEST), graph.indices, graph.indptr), shape=(graph.n, graph.n))


def edge_lengths(graph: CompactGraph, centroids: np.ndarray, geographic: bool) -> np.ndarray:
    """Each stored edge's length: the distance between its ends'
    ``centroids`` (n x 2: x, y), in km when ``geographic`` (longitude,
    latitude), else in the map's units; 1 per edge (hops) where an edge's
    end has no centroid."""
    a = graph.sources
    xy = np.asarray(centroids, dtype=np.float64).reshape(graph.n, 2)
    p, q = xy[a], xy[graph.indices]
    if np.isnan(p).any() or np.isnan(q).any():
        return np.ones(a.size)
    return haversine_km(p[:, 1], p[:, 0], q[:, 1], q[:, 0]) if geographic else np.hypot(*(p - q).T)


def _centroids(G, ids) -> np.ndarray:
    """The nodes' ``centroid`` attributes (NaN where missing)."""
    return np.array([G.nodes[v].get("centroid", (np.nan, np.nan)) for v in ids], dtype=np.float64).reshape(-1, 2)


def data_area(G, held):
    """The subgraph of the region graph ``G`` (nodes with a ``centroid``;
    ``G.graph["geographic"]``) on the regions in ``held`` (those holding
    records) and the regions of :func:`steiner_forest`'s routes between them,
    its nodes and edges in the order of their ids: the same area of two maps
    (the national map and one cut to a state) is the same graph, whatever
    order their files list the regions in.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.path_graph(["a", "b", "c", "d"])
    >>> sorted(data_area(G, {"a", "c"}).nodes)
    ['a', 'b', 'c']
    """
    graph = CompactGraph.from_networkx(G)
    lengths = edge_lengths(graph, _centroids(G, graph.ids), bool(G.graph.get("geographic")))
    keep = steiner_forest(graph, lengths, np.array([v in held for v in graph.ids], dtype=bool))
    nodes = sorted((v for v, kept in zip(graph.ids, keep.tolist()) if kept), key=str)
    area = nx.Graph(**G.graph)
    area.add_nodes_from((v, G.nodes[v]) for v in nodes)
    edges = (tuple(sorted(e, key=str)) for e in G.subgraph(nodes).edges)
    area.add_edges_from(sorted(edges, key=lambda e: (str(e[0]), str(e[1]))))
    return area


def trimmed_groups(graph: CompactGraph, lengths: np.ndarray, labels: np.ndarray, held: np.ndarray) -> np.ndarray:
    """``labels`` (each node's group, -1: none) with every region without
    records that its group does not need to connect its ``held`` regions
    (:func:`steiner_forest` within the group) set to -1."""
    a = graph.sources
    inside = (labels[a] == labels[graph.indices]) & (labels[a] >= 0)
    within = CompactGraph.from_edges(graph.ids, a[inside], graph.indices[inside])
    kept = steiner_forest(within, _stored(within, graph, lengths), np.asarray(held, dtype=bool) & (labels >= 0))
    return np.where(kept, labels, -1)


def _stored(sub: CompactGraph, graph: CompactGraph, lengths: np.ndarray) -> np.ndarray:
    """``graph``'s edge ``lengths`` for the stored edges of ``sub`` (the same nodes, fewer edges)."""
    n = max(graph.n, 1)
    key = graph.sources * n + graph.indices         # sorted: CSR order
    sub_key = sub.sources * n + sub.indices
    return lengths[np.searchsorted(key, sub_key)]
