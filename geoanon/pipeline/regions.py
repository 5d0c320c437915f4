"""The region job: a table's region column (zip codes, counties, tracts) into
connected groups of regions holding >= k records each."""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .._validation import check_choice, check_k
from ..audit import SUPPRESSED, require
from ..errors import DataError, InfeasibleError
from ..io import has_geometry
from ..regions import graph_from_points, graph_from_polygons, graph_summary, partition_graph, read_edge_list
from ..regions.graphs import region_ids
from .points import numeric_column
from .release import MISSING_TOKENS, Release, check_job_columns, with_geometry

PLANARITY_MAX_NODES = 5000   # larger graphs are reported without a planarity test (seconds in networkx)


def generalize_regions(df: pd.DataFrame, k: int, *, column: str, regions, region_id: str, edges=None,
                       contiguity: str = "rook", method: str = "balanced", unknown: str = "error",
                       on_small: str = "error") -> Release:
    """Generalize a table's region column into connected groups of >= k records.

    Parameters
    ----------
    df : DataFrame
        One row per record; ``column`` names each record's region.
    k : int
    column : str
        The region column (values compared with region ids as strings).
    regions : DataFrame or GeoDataFrame
        One row per region: polygons (adjacency from shared boundaries), point
        geometry, or ``lat``/``lon`` centroid columns (Delaunay adjacency).
    region_id : str
        Column of ``regions`` with the region ids.
    edges : DataFrame, path or None
        An edge list of two region id columns; when given it is the adjacency.
    contiguity : {"rook", "queen"}
        For polygons, see :func:`geoanon.graph_from_polygons`.
    method : {"balanced", "paper", "exact"}
        See :func:`geoanon.partition_graph`.
    unknown : {"error", "suppress"}
        Records whose region is missing or not among the regions: DataError
        naming examples, or generalize them fully (``"*"``).
    on_small : {"error", "suppress"}
        Connected components lighter than k: error, or suppress their records.

    Returns
    -------
    Release
        ``table`` with ``column`` replaced by each record's group label (the
        group's smallest region id, with ``+N`` for its N other regions; ``*``
        for suppressed records) and ``class_id`` last; ``classes`` holds one row
        per group (label, members, regions, weight, dissolved shape).
        Suppressed records form one class, which must itself reach k.
    """
    started = time.perf_counter()
    k = check_k(k)
    unknown = check_choice("unknown", unknown, ("error", "suppress"))
    check_job_columns(df, column)
    graph, shapes = region_graph(regions, region_id, edges=edges, contiguity=contiguity)

    values = _region_values(df[column])
    known = values.isin(pd.Index(list(graph.nodes)))
    outside = ~known
    if outside.any() and unknown == "error":
        examples = pd.unique(values[outside].fillna("(missing)"))[:5]
        raise DataError(f"{int(outside.sum())} records name regions that are not in the regions "
                        f"(e.g. {', '.join(map(repr, examples))}); use unknown='suppress' (--unknown suppress) "
                        "to generalize them fully")
    counts = values[known].value_counts().to_dict()
    part = partition_graph(graph, k, counts, method=method, on_small=on_small)

    members = part.members()
    labels = [m[0] if len(m) == 1 else f"{min(m)}+{len(m) - 1}" for m in (sorted(x) for x in members)]
    class_of = part.class_of()
    record_class = values.map(class_of).fillna(-1).astype(np.int64).to_numpy()
    suppressed = record_class < 0
    n_suppressed = int(suppressed.sum())
    if 0 < n_suppressed < k:
        raise InfeasibleError(f"{n_suppressed} records would be suppressed (unknown regions or components lighter "
                              f"than k), too few to form a class of k={k}")
    class_id = np.where(suppressed, part.n_classes, record_class)
    text = np.asarray(labels + [SUPPRESSED], dtype=object)[class_id]
    table = df.copy()
    table[column] = text
    table["class_id"] = class_id

    classes = _class_shapes(shapes, members, labels, part.weights)
    if has_geometry(df):
        table = with_geometry(table, _row_shapes(classes, class_id, table.index))
    part.verify()
    audit = require(table, [column], k=k)
    sizes = np.r_[part.weights, [n_suppressed] if n_suppressed else []].astype(np.int64)
    summary = graph_summary(graph, planarity=graph.number_of_nodes() <= PLANARITY_MAX_NODES)
    report = {
        "rows": int(len(df)),
        "k": k,
        "classes": int(sizes.size),
        "min_class": int(sizes.min()),
        "max_class": int(sizes.max()),
        "lower_bound": part.lower_bound,
        "ratio": round(part.ratio, 6),
        "method": method,
        "tree_degree": part.tree_degree,
        "suppressed_rows": n_suppressed,
        "unknown_rows": int(outside.sum()),
        "suppressed_regions": [part.nodes[i] for i in np.flatnonzero(part.suppressed)],
        "column": column,
        "graph": summary,
        "audit": audit,
        "seconds": round(time.perf_counter() - started, 3),
    }
    notes = [f"{n_suppressed} records generalized to '*' (unknown regions or components lighter than k)"] \
        if n_suppressed else []
    return Release(table=table, partition=part, report=report, classes=classes, notes=notes,
                   row_shapes=lambda: _row_shapes(classes, class_id, table.index))


def region_graph(regions, region_id: str, *, edges=None, contiguity: str = "rook"):
    """The adjacency graph of the regions, and each region's shape (a GeoSeries
    of polygons or centroid points indexed by region id)."""
    import geopandas as gpd
    import shapely

    ids = region_ids(regions, region_id)
    if has_geometry(regions):
        geoms = np.asarray(regions.geometry.values, dtype=object)
        kinds = set(shapely.get_type_id(geoms[~shapely.is_missing(geoms)]).tolist())
        polygonal = kinds <= {shapely.GeometryType.POLYGON, shapely.GeometryType.MULTIPOLYGON}
        pointlike = kinds <= {shapely.GeometryType.POINT}
        if not (polygonal or pointlike) or shapely.is_missing(geoms).any():
            raise DataError("region geometries must be all polygons or all points, none missing")
        shapes = gpd.GeoSeries(geoms, index=ids, crs=regions.crs)
        if edges is None:
            graph = (graph_from_polygons(regions.assign(**{region_id: ids}), region_id, contiguity=contiguity)
                     if polygonal else graph_from_points(shapely.get_coordinates(geoms), ids))
            return graph, shapes
    else:
        lon, lat = numeric_column(regions, "lon"), numeric_column(regions, "lat")
        if np.isnan(lon).any() or np.isnan(lat).any():
            raise DataError("every region needs its centroid in numeric 'lat' and 'lon' columns")
        shapes = gpd.GeoSeries(gpd.points_from_xy(lon, lat), index=ids, crs="EPSG:4326")
        if edges is None:
            return graph_from_points(np.column_stack([lon, lat]), ids), shapes
    graph = read_edge_list(edges, ids=ids)
    strangers = [v for v in graph.nodes if v not in shapes.index]
    if strangers:
        raise DataError(f"the edge list names {len(strangers)} regions that are not in the regions "
                        f"(e.g. {', '.join(map(repr, strangers[:5]))})")
    return graph, shapes


def _region_values(series: pd.Series) -> pd.Series:
    """Record region values as stripped strings, NaN where missing."""
    text = series.astype("string").str.strip()
    missing = series.isna() | text.str.lower().isin(MISSING_TOKENS)
    return text.astype(object).where(~missing.to_numpy(), np.nan)


def _class_shapes(shapes, members, labels, weights):
    """One row per group: label, regions, members, weight and shape (the union
    of its polygons, or the convex hull of its centroids)."""
    import geopandas as gpd
    import shapely

    polygons = shapes.geom_type.isin(["Polygon", "MultiPolygon"]).all()
    geometry = []
    for group in members:
        parts = shapes.loc[group].to_numpy()
        geometry.append(shapely.union_all(parts) if polygons else shapely.convex_hull(shapely.multipoints(parts)))
    return gpd.GeoDataFrame({
        "class_id": np.arange(len(members)),
        "label": labels,
        "regions": [len(m) for m in members],
        "members": [",".join(sorted(m)) for m in members],
        "weight": np.asarray(weights, dtype=np.int64),
    }, geometry=geometry, crs=shapes.crs)


def _row_shapes(classes, class_id, index):
    """Each record's group shape (None for suppressed records)."""
    import geopandas as gpd

    shapes = np.append(classes.geometry.to_numpy(), None)
    return gpd.GeoSeries(shapes[np.minimum(class_id, len(classes))], index=index, crs=classes.crs)
