"""Adjacency graphs of regions (zip codes, counties, tracts) as networkx graphs:
the graphs of Du, Eppstein, Goodrich and Lueker's Section 2, whose groups must
be connected.

Region ids are strings, so zip codes and FIPS codes keep their leading zeros.
Partitioners work on a compact array form (:class:`CompactGraph`) built once.
Every node built from polygons or centroids carries its ``centroid`` (x, y);
``G.graph["geographic"]`` says whether those are longitude/latitude. Edge
list files are read by :func:`read_edge_list`.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from functools import cached_property

import networkx as nx
import numba
import numpy as np
import pandas as pd

from .._text import plural, show
from .._validation import check_unique_columns
from ..errors import DataError, ParameterError

from ..choices import CONTIGUITY

__all__ = ["CompactGraph", "UnionFind", "graph_from_points", "graph_from_polygons", "graph_summary", "is_lonlat",
           "metric_coordinates", "read_edge_list", "region_ids", "repair_polygons"]
PRUNE = 8.0   # graph_from_points drops Delaunay edges longer than this many local spacings


def graph_from_polygons(gdf, id_col: str, *, contiguity: str = "rook") -> nx.Graph:
    """Adjacency graph of polygons: one node per region, an edge per pair of neighbours.

    Parameters
    ----------
    gdf : GeoDataFrame
        One (Multi)Polygon per region.
    id_col : str
        Column of unique region ids (turned into strings).
    contiguity : {"rook", "queen"}
        ``"rook"``: regions whose boundaries share a stretch of positive length.
        ``"queen"`` also links regions that touch at a single point. Corner
        contacts can make the graph non-planar (four regions meeting at a point
        become a K4 drawn with a crossing), which Theorem 1's degree bounds for
        planar graphs do not cover; rook keeps a map's adjacency planar.

    Region ids are node names; each node carries its ``centroid`` (x, y).
    Invalid polygons (a self-intersecting ring, a bow-tie) are repaired with
    :func:`shapely.make_valid`, keeping their polygonal parts; their ids are
    listed in ``G.graph["repaired"]``.

    Examples
    --------
    Six unit squares in two rows (``a b c`` below ``d e f``):

    >>> import geopandas as gpd
    >>> from shapely.geometry import box
    >>> import geoanon as ga
    >>> squares = gpd.GeoDataFrame({"zip": list("abcdef")},
    ...                            geometry=[box(x, y, x + 1, y + 1) for y in (0, 1) for x in (0, 1, 2)])
    >>> G = ga.graph_from_polygons(squares, "zip")
    >>> sorted(G.edges)
    [('a', 'b'), ('a', 'd'), ('b', 'c'), ('b', 'e'), ('c', 'f'), ('d', 'e'), ('e', 'f')]
    >>> ga.graph_from_polygons(squares, "zip", contiguity="queen").number_of_edges()   # corners too
    11
    >>> G.nodes["a"]
    {'centroid': (0.5, 0.5)}
    """
    import shapely

    if contiguity not in CONTIGUITY:
        raise ParameterError(f"contiguity must be 'rook' or 'queen', got {show(contiguity)}")
    ids = region_ids(gdf, id_col)
    geoms = np.asarray(gdf.geometry.values, dtype=object)
    kinds = shapely.get_type_id(geoms)
    polygonal = np.isin(kinds, [shapely.GeometryType.POLYGON, shapely.GeometryType.MULTIPOLYGON])
    bad = ~polygonal | shapely.is_missing(geoms) | shapely.is_empty(geoms)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(f"region {ids[i]!r} has no polygon geometry; use graph_from_points for centroids")
    geoms, repaired = repair_polygons(geoms, ids)
    tree = shapely.STRtree(geoms)
    a, b = tree.query(geoms, predicate="intersects")
    keep = a < b
    a, b = a[keep], b[keep]
    if contiguity == "rook":
        shared = shapely.intersection(shapely.boundary(geoms[a]), shapely.boundary(geoms[b]))
        touching = shapely.length(shared) > 0
        a, b = a[touching], b[touching]
    centroids = shapely.get_coordinates(shapely.centroid(geoms))
    crs = getattr(gdf, "crs", None)
    geographic = bool(crs.is_geographic) if crs is not None else is_lonlat(centroids)
    G = _graph(ids, centroids, a, b, geographic)
    G.graph["repaired"] = [ids[i] for i in repaired]
    return G


def repair_polygons(geoms: np.ndarray, ids) -> tuple[np.ndarray, np.ndarray]:
    """Invalid (Multi)Polygons made valid (:func:`shapely.make_valid`, polygonal
    parts kept); returns the geometries and the positions repaired. DataError
    when a region has no area left."""
    import shapely

    fixed = np.asarray(geoms, dtype=object).copy()
    bad = np.flatnonzero(~shapely.is_valid(fixed))
    polygon_types = [shapely.GeometryType.POLYGON, shapely.GeometryType.MULTIPOLYGON]
    for i in bad.tolist():
        parts = shapely.get_parts(shapely.make_valid(fixed[i]))
        parts = parts[np.isin(shapely.get_type_id(parts), polygon_types)]
        shape = shapely.union_all(parts) if parts.size else None
        if shape is None or shape.is_empty or shape.area == 0:
            raise DataError(f"region {ids[i]!r} has an invalid polygon with no area")
        fixed[i] = shape
    return fixed, bad


def graph_from_points(xy, ids=None, *, prune: float | None = PRUNE, geographic: bool | None = None) -> nx.Graph:
    """Delaunay graph of region centroids, without its long edges.

    Parameters
    ----------
    xy : array_like, shape (n, 2)
        Centroids (x, y), e.g. longitude/latitude.
    ids : sequence, optional
        Region ids (default ``"0"``, ``"1"``, ...), turned into strings.
    prune : float or None
        C of the long-edge rule below (default 8); None keeps every Delaunay edge.
    geographic : bool or None
        Whether xy are longitude/latitude in degrees; None: when every point
        fits [-180, 180] x [-90, 90]. Geographic centroids are triangulated
        with longitudes scaled by the cosine of their mean latitude, and
        lengths are great-circle chords (on the unit sphere, so edges across
        the antimeridian measure what they are); others are planar.

    The triangulation's outer edges join far-apart regions (on the US ZIP
    centroids, Florida with Maine and Texas, Washington with Michigan). Rule:
    a centroid's *spacing* is its second-shortest Delaunay edge (its only
    one if it has one; a twin centroid a few metres away does not count as
    the spacing of a town), its *local spacing* the median spacing of itself and
    its Delaunay neighbours (so an outlier, such as a centroid at (0, 0) or
    an island territory, takes the spacing of the places it is joined to);
    an edge longer than C times the local spacing at both its ends is dropped.
    Pieces left apart are then joined again by the shortest dropped edges
    between them (Kruskal's algorithm over the dropped edges by length), so
    the graph stays connected (as many components as the full triangulation).
    On the 29,442 ZIP centroids of the 48 states and DC that geoanon ships
    (``us_zip_delaunay_nodes.csv.gz`` without its one centroid at (0, 0)),
    C = 8 drops 307 of 88,295 edges: all 93 longer than 3 degrees (Florida to
    Maine, North Carolina and Texas across the sea, Maine to Minnesota and
    Michigan to New York across Canada), the 1-degree links across Lake
    Michigan, and none shorter than 0.2 degrees (the shortest span the bays
    of Long Island and New Jersey); the longest edge kept spans 2.8 degrees
    of West Texas. With the (0, 0) centroid as well, the shortest link that
    joins it back runs to Maine. The number of dropped edges is
    ``G.graph["pruned"]``.

    Regions sharing a centroid are triangulated once: the first of them (by id)
    takes part in the triangulation and the others hang off it by one edge.
    Fewer than three distinct centroids, or all on one line, are joined in order.

    Examples
    --------
    Four centroids on a unit square and one far away, which keeps only its
    shortest link:

    >>> import geoanon as ga
    >>> xy = [[0, 0], [1, 0], [0, 1], [1, 1], [10, 10]]
    >>> G = ga.graph_from_points(xy, ["a", "b", "c", "d", "e"], geographic=False)
    >>> sorted(G.edges)
    [('a', 'b'), ('a', 'c'), ('b', 'c'), ('b', 'd'), ('c', 'd'), ('d', 'e')]
    >>> G.graph["pruned"], G.nodes["e"]["centroid"]
    (2, (10.0, 10.0))
    """
    from scipy.spatial import Delaunay, QhullError

    xy = np.asarray(xy, dtype=np.float64)
    if xy.ndim != 2 or xy.shape[1] != 2 or len(xy) == 0:
        raise DataError(f"centroids must have shape (n, 2) with n >= 1, got {xy.shape}")
    if not np.isfinite(xy).all():
        raise DataError("centroids must be finite numbers")
    if prune is not None and not (isinstance(prune, (int, float)) and np.isfinite(prune) and prune >= 1):
        raise ParameterError(f"prune must be a number >= 1 or None, got {show(prune)}")
    ids = [str(i) for i in range(len(xy))] if ids is None else [str(i) for i in ids]
    if len(ids) != len(xy):
        raise DataError(f"{plural(len(ids), 'id')} for {plural(len(xy), 'centroid')}")
    _check_unique(ids)
    geographic = is_lonlat(xy) if geographic is None else bool(geographic)
    order = sorted(range(len(ids)), key=ids.__getitem__)
    _, first, inverse = np.unique(xy[order], axis=0, return_index=True, return_inverse=True)
    rep = np.asarray(order)[first]            # triangulated representative of each distinct point
    hang_a = rep[inverse.ravel()]
    hang_b = np.asarray(order)
    hanging = hang_a != hang_b
    pts = xy[rep]
    pruned = 0
    try:
        if len(pts) < 3:
            raise QhullError("too few points")
        plane = pts * [np.cos(np.radians(pts[:, 1].mean())), 1.0] if geographic else pts
        triangulation = Delaunay(plane)
        a, b = _unique_edges(triangulation.simplices, len(pts))
        if triangulation.coplanar.size:       # points Qhull left out (too close to another)
            a = np.r_[a, triangulation.coplanar[:, 0]]
            b = np.r_[b, triangulation.coplanar[:, 2]]
        if prune is not None:
            a, b, pruned = _prune_long_edges(metric_coordinates(pts, geographic), a, b, prune)
        a, b = rep[a], rep[b]
    except QhullError:
        line = rep[np.lexsort((pts[:, 1], pts[:, 0]))]
        a, b = line[:-1], line[1:]
    a = np.concatenate([a, hang_a[hanging]])
    b = np.concatenate([b, hang_b[hanging]])
    G = _graph(ids, xy, a, b, geographic)
    G.graph["pruned"] = pruned
    return G


def is_lonlat(xy) -> bool:
    """Whether every point fits longitude [-180, 180] x latitude [-90, 90]."""
    xy = np.asarray(xy, dtype=np.float64).reshape(-1, 2)
    return bool((np.abs(xy[:, 0]) <= 180).all() and (np.abs(xy[:, 1]) <= 90).all())


def metric_coordinates(xy, geographic: bool) -> np.ndarray:
    """Coordinates whose Euclidean distances measure the regions' distances:
    unit vectors on the sphere (chords) for longitude/latitude, else xy."""
    xy = np.asarray(xy, dtype=np.float64)
    if not geographic:
        return xy
    lon, lat = np.radians(xy[:, 0]), np.radians(xy[:, 1])
    return np.column_stack([np.cos(lat) * np.cos(lon), np.cos(lat) * np.sin(lon), np.sin(lat)])


def _unique_edges(simplices: np.ndarray, n: int):
    """The distinct undirected edges of triangles, as (smaller, larger) index arrays."""
    a = np.concatenate([simplices[:, 0], simplices[:, 1], simplices[:, 2]]).astype(np.int64)
    b = np.concatenate([simplices[:, 1], simplices[:, 2], simplices[:, 0]]).astype(np.int64)
    key = np.unique(np.minimum(a, b) * n + np.maximum(a, b))
    return key // n, key % n


def _prune_long_edges(points: np.ndarray, a: np.ndarray, b: np.ndarray, factor: float):
    """The edges (a, b) without those longer than ``factor`` local spacings at
    both ends, the pieces left rejoined by the shortest dropped edges; also the
    number dropped (see :func:`graph_from_points`)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import connected_components

    n = len(points)
    length = np.linalg.norm(points[a] - points[b], axis=1)
    src, dst = np.concatenate([a, b]), np.concatenate([b, a])
    spacing = _nth_smallest(np.concatenate([length, length]), src, n, 2)
    local = _nth_smallest(np.concatenate([spacing[dst], spacing]), np.concatenate([src, np.arange(n)]), n, None)
    long = length > factor * np.maximum(local[a], local[b])
    if not long.any():
        return a, b, 0
    kept = ~long
    _, piece = connected_components(csr_matrix((np.ones(int(kept.sum())), (a[kept], b[kept])), shape=(n, n)),
                                    directed=False)
    pieces = UnionFind(int(piece.max()) + 1)
    dropped = np.flatnonzero(long)
    for e in dropped[np.lexsort((b[dropped], a[dropped], length[dropped]))].tolist():
        if pieces.union(int(piece[a[e]]), int(piece[b[e]])):
            kept[e] = True
    return a[kept], b[kept], int((~kept).sum())


def _nth_smallest(values: np.ndarray, owner: np.ndarray, n: int, nth: int | None) -> np.ndarray:
    """Per owner 0..n-1, its ``nth`` smallest value (its largest when it has
    fewer), or its lower median when ``nth`` is None; every owner has a value."""
    order = np.lexsort((values, owner))
    start = np.searchsorted(owner[order], np.arange(n))
    count = np.bincount(owner, minlength=n)
    pick = (count - 1) // 2 if nth is None else np.minimum(nth, count) - 1
    return values[order][start + pick]


def graph_from_edges(a, b, ids=None) -> nx.Graph:
    """Graph of the edges (a[i], b[i]) between region ids (strings, e.g. from
    :func:`read_edge_list`); self-loops and repeated edges are
    dropped. ``ids`` adds regions that have no edge (isolated nodes)."""
    G = nx.Graph()
    if ids is not None:
        G.add_nodes_from(str(i) for i in ids)
    G.add_edges_from((u, v) for u, v in zip(a, b) if u != v)
    return G


def region_ids(frame, id_col: str) -> list[str]:
    """The region id column as unique strings, or DataError."""
    if id_col not in frame.columns:
        raise DataError(f"no column {show(id_col)} in the regions (columns: {', '.join(map(str, frame.columns[:12]))})")
    column = frame[id_col]
    if column.isna().any():
        raise DataError(f"region id column {show(id_col)} has missing values")
    ids = column.astype(str).str.strip().tolist()
    _check_unique(ids)
    return ids


def _check_unique(ids) -> None:
    seen = pd.Index(ids)
    if seen.has_duplicates:
        raise DataError(f"region id {seen[seen.duplicated()][0]!r} appears more than once")


def _graph(ids, centroids, a, b, geographic: bool) -> nx.Graph:
    G = nx.Graph(geographic=geographic)
    G.add_nodes_from((i, {"centroid": (float(x), float(y))}) for i, (x, y) in zip(ids, centroids))
    G.add_edges_from(zip((ids[i] for i in a), (ids[j] for j in b)))
    return G


def graph_summary(G: nx.Graph, *, planarity: bool = True) -> dict:
    """Nodes, edges, connected components (sizes), degrees and, if asked, planarity.

    Planarity testing is linear but slow in networkx (seconds for 30,000 nodes);
    ``planarity=False`` leaves it out (reported as None).

    Examples
    --------
    The rook adjacency of North Carolina's 100 counties, shipped in ``data/``:

    >>> import geoanon as ga
    >>> G = ga.read_edge_list(ga.datasets.data_path("nc_counties_rook_edges.csv"))
    >>> summary = ga.graph_summary(G)
    >>> summary["nodes"], summary["edges"], summary["components"], summary["max_degree"], summary["planar"]
    (100, 231, 1, 9, True)
    """
    graph = CompactGraph.from_networkx(G)
    degree = np.diff(graph.indptr)
    comp = graph.components()
    sizes = np.bincount(comp) if comp.size else np.zeros(0, dtype=np.int64)
    return {
        "nodes": graph.n,
        "edges": int(graph.indices.size // 2),
        "components": int(sizes.size),
        "largest_component": int(sizes.max()) if sizes.size else 0,
        "isolated_nodes": int(np.count_nonzero(degree == 0)),
        "min_degree": int(degree.min()) if graph.n else 0,
        "max_degree": int(degree.max()) if graph.n else 0,
        "planar": bool(nx.check_planarity(G)[0]) if planarity else None,
    }


class UnionFind:
    """Disjoint sets of 0..n-1 with path halving; ``union(x, y)`` hangs x's
    root under y's, so callers decide which root stays."""

    __slots__ = ("parent",)

    def __init__(self, n: int):
        self.parent = list(range(n))

    def find(self, x: int) -> int:
        parent = self.parent
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def union(self, x: int, y: int) -> bool:
        """Merge the sets of x and y; False if they were one already."""
        rx, ry = self.find(x), self.find(y)
        if rx == ry:
            return False
        self.parent[rx] = ry
        return True


@dataclass
class CompactGraph:
    """An undirected graph as arrays: node ``i`` is ``ids[i]``, its neighbours
    are ``indices[indptr[i]:indptr[i + 1]]`` (sorted, each edge stored twice)."""

    ids: list
    indptr: np.ndarray
    indices: np.ndarray

    @property
    def n(self) -> int:
        return len(self.ids)

    @classmethod
    def from_networkx(cls, G: nx.Graph) -> "CompactGraph":
        ids = list(G.nodes)
        index = {v: i for i, v in enumerate(ids)}
        ends = np.fromiter((index[x] for edge in G.edges for x in edge), dtype=np.int64,
                           count=2 * G.number_of_edges()).reshape(-1, 2)
        return cls.from_edges(ids, ends[:, 0], ends[:, 1])

    @classmethod
    def from_edges(cls, ids, a, b) -> "CompactGraph":
        """From edge endpoint index arrays (duplicates and self-loops dropped)."""
        n = len(ids)
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        keep = a != b
        src = np.concatenate([a[keep], b[keep]])
        dst = np.concatenate([b[keep], a[keep]])
        key = np.unique(src * max(n, 1) + dst)
        src, dst = key // max(n, 1), key % max(n, 1)
        indptr = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(src, minlength=n), out=indptr[1:])
        return cls(list(ids), indptr, dst.astype(np.int64))

    def neighbors(self, i: int) -> np.ndarray:
        return self.indices[self.indptr[i]:self.indptr[i + 1]]

    @cached_property
    def sources(self) -> np.ndarray:
        """Each stored edge's first end (``indices`` holds its second), in CSR order."""
        return np.repeat(np.arange(self.n), np.diff(self.indptr))

    @cached_property
    def adjacency(self) -> list[list[int]]:
        """Neighbour lists as plain Python lists (for the loops of local search)."""
        indices = self.indices.tolist()
        bounds = self.indptr.tolist()
        return [indices[bounds[i]:bounds[i + 1]] for i in range(self.n)]

    def matrix(self):
        """The adjacency as a scipy CSR matrix (for scipy.sparse.csgraph)."""
        from scipy.sparse import csr_matrix

        return csr_matrix((np.ones(self.indices.size, dtype=np.int8), self.indices, self.indptr),
                          shape=(self.n, self.n))

    def components(self) -> np.ndarray:
        """Connected component label of every node, numbered in order of their first node."""
        return _components(self.indptr, self.indices)

    def subgraph(self, nodes: np.ndarray) -> "CompactGraph":
        """The induced subgraph on ``nodes`` (indices), renumbered in that order."""
        position = np.full(self.n, -1, dtype=np.int64)
        position[nodes] = np.arange(nodes.size)
        counts = np.diff(self.indptr)[nodes]
        src = np.repeat(np.arange(nodes.size), counts)
        slots = np.repeat(self.indptr[nodes] - (np.cumsum(counts) - counts), counts) + np.arange(int(counts.sum()))
        dst = position[self.indices[slots]]
        keep = dst >= 0
        return CompactGraph.from_edges([self.ids[i] for i in nodes], src[keep], dst[keep])


@numba.njit(cache=True, nogil=True)
def _components(indptr, indices):
    n = indptr.size - 1
    comp = np.full(n, -1, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    count = 0
    for start in range(n):
        if comp[start] >= 0:
            continue
        comp[start], stack[0], top = count, start, 1
        while top:
            top -= 1
            x = stack[top]
            for e in range(indptr[x], indptr[x + 1]):
                y = indices[e]
                if comp[y] < 0:
                    comp[y] = count
                    stack[top] = y
                    top += 1
        count += 1
    return comp


def read_edge_list(source, *, columns=None, ids=None):
    """Region graph (networkx) from an edge list: a table file (e.g. CSV) or a
    DataFrame with two id columns.

    ``columns`` names the two id columns (default: the first two). Ids are read
    as strings; self-loops and repeated edges are dropped. ``ids`` adds regions
    that have no edge (isolated nodes).

    Examples
    --------
    >>> import pandas as pd
    >>> import geoanon as ga
    >>> edges = pd.DataFrame({"from": ["27701", "27701", "27703"], "to": ["27703", "27705", "27705"]})
    >>> G = ga.read_edge_list(edges, ids=["27709"])        # 27709 has no neighbour
    >>> sorted(G.nodes), G.number_of_edges()
    (['27701', '27703', '27705', '27709'], 3)
    """
    from ..io import read_table

    frame = pd.DataFrame(read_table(source) if isinstance(source, (str, Path)) else source)
    if frame.shape[1] < 2:
        raise DataError("an edge list needs two id columns")
    check_unique_columns(frame, "the edge list has")
    cols = list(frame.columns[:2]) if columns is None else list(columns)
    missing = [c for c in cols if c not in frame.columns]
    if missing:
        raise DataError(f"no column {show(missing[0])} in the edge list")
    left = frame[cols[0]].astype(str).str.strip()
    right = frame[cols[1]].astype(str).str.strip()
    blank = (left == "") | (right == "") | frame[cols[0]].isna() | frame[cols[1]].isna()
    if blank.any():
        raise DataError(f"edge list row {show(frame.index[int(np.flatnonzero(blank.to_numpy())[0])])} has an empty id")
    return graph_from_edges(left, right, ids=ids)
