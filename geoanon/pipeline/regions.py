"""The region job: a table's region column (zip codes, counties, tracts) into
connected groups of regions holding >= k records each."""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._cells import escape_formulas
from .._geo import ground
from .._text import plural
from .._validation import check_scalar_columns, check_unique_columns
from ..audit import require
from ..errors import InfeasibleError
from ..io import has_geometry
from ..ncp import information_loss, km_spread, plain_units
from ..progress import stepped
from ..regions import graph_summary
from ..joint.km_loss import node_diameters
from ..regions.groups import region_groups
from .._validation import check_job_columns
from ..report.release import JobReport, Release, with_geometry
from ..options import release_spec
from .region_map import EXAMPLES, RegionGraph, code_width, level_column, refuse_unknown, region_boxes, region_graph, \
    region_values, rolled_values
from .region_shapes import group_shapes
from .roles import declared_table, measure_undeclared, undeclared
from ..options.locations import ZIP

__all__ = ["RegionGroups", "check_suppressed", "generalize_regions"]

PLANARITY_MAX_NODES = 5000   # larger graphs are reported without a planarity test (seconds in networkx)


@stepped("partitioning regions")
def generalize_regions(df: pd.DataFrame, k: int, *, column: str, regions, region_id: str, edges=None,
                       contiguity: str = "rook", method: str = "balanced", unknown: str = "error",
                       on_small: str = "error", zip_level: str = "zip", keep=None, identifiers=None,
                       strict: bool = True) -> Release:
    """Generalize a table's region column into connected groups of >= k
    records, within the records' area (:mod:`geoanon.regions.area`: regions
    without records join a group only on the routes between its regions
    that hold records).

    Parameters
    ----------
    df : DataFrame
        One row per record; ``column`` names each record's region.
    k : int
    column : str
        The region column (values compared with region ids as strings).
    regions : DataFrame or GeoDataFrame
        One row per region: polygons (adjacency from shared boundaries), point
        geometry, or ``lat``/``lon`` centroid columns (Delaunay adjacency
        without its long edges, see :func:`geoanon.graph_from_points`).
        Invalid polygons are repaired (:func:`shapely.make_valid`); geometry
        without a CRS is taken as EPSG:4326 when its coordinates fit
        longitude/latitude; both are reported in ``warnings``.
    region_id : str
        Column of ``regions`` with the region ids.
    edges : DataFrame, path or None
        An edge list of two region id columns; when given it is the adjacency.
        Regions it names that ``regions`` lacks are left out, with their edges
        (counted in the report and warned about).
    contiguity : {"rook", "queen"}
        For polygons, see :func:`geoanon.graph_from_polygons`.
    method : {"balanced", "paper", "exact"}
        See :func:`geoanon.partition_graph`.
    unknown : {"error", "suppress"}
        Records whose region is missing or not among the regions: DataError
        naming examples, or generalize them fully (``"*"``).
    on_small : {"error", "suppress", "nearest"}
        Connected components with records but lighter than k: error, suppress
        their records, or link each to the nearest region by centroid distance
        (see :func:`geoanon.partition_graph`; the report lists the groups that
        are not contiguous). Regions beyond the records' area need no group.
    zip_level : {"zip", "zip3", "county", "state"}
        Publish ZIP codes rolled up: the groups are unions of whole ZIP3
        areas (the codes' first three digits), counties or states, each
        the union of its regions (their states and counties from the
        regions' ``state`` and ``county`` columns, else from
        :func:`geoanon.datasets.zip_counties`), published in a column named
        for the level (``zip3``, ``county``, ``state``; DataError where the
        table has another column of that name). Records of a region without
        such a unit follow ``unknown``.
    keep, identifiers, strict
        Columns published as they are, and columns dropped. Any other
        column without a role is refused (UndeclaredColumnsError), or, with
        ``strict=False``, published as it is, with a warning and the records
        it singles out in the report (``undeclared``; :mod:`geoanon.pipeline.roles`).

    Returns
    -------
    Release
        ``table`` with ``column`` replaced by each record's group label (its
        regions or roll-up units that hold records, up to three, else their
        ZIP3 areas, counties or a central one and ``+N``:
        :mod:`geoanon.regions.naming`; ``*`` for suppressed records; a label
        that could start a spreadsheet formula is prefixed with ``'``) and
        ``class_id`` last; ``classes`` holds one row per group (label,
        members drawn, regions, weight, dissolved shape). Suppressed records
        form one class, which must itself reach k. ``report["location_km"]``:
        the median, 90th percentile, max and mean over records of their
        group's diameter in km (the diagonal of the box of the centroids of
        its regions that hold records), the figures of ``units``.

    Examples
    --------
    Ten records in five ZIP codes, the regions given by their centroids:

    >>> import pandas as pd
    >>> import geoanon as ga
    >>> regions = pd.DataFrame({"zip": ["27701", "27703", "27705", "27707", "27713"],
    ...                         "lat": [35.99, 35.97, 36.02, 35.95, 35.90],
    ...                         "lon": [-78.90, -78.84, -78.95, -78.95, -78.92]})
    >>> df = pd.DataFrame({"zip": ["27701"] * 3 + ["27703"] + ["27705"] * 2 + ["27707"] + ["27713"] * 3})
    >>> release = ga.generalize_regions(df, k=3, column="zip", regions=regions, region_id="zip")
    >>> release.table["zip"].tolist()
    ['27701|27703', '27701|27703', '27701|27703', '27701|27703', '27705|27707', '27705|27707', '27705|27707',
     '27713', '27713', '27713']
    >>> release.classes[["label", "members", "weight"]]
             label      members  weight
    0  27701|27703  27701,27703       4
    1  27705|27707  27705,27707       3
    2        27713        27713       3
    """
    started = time.perf_counter()
    spec = release_spec("zip", k=k, column=column, regions=regions, region_id=region_id, edges=edges,
                        contiguity=contiguity, method=method, unknown=unknown, on_small=on_small, zip_level=zip_level,
                        keep=keep, identifiers=identifiers, strict=strict)
    k = spec.model.k
    check_unique_columns(df)
    df, keep = declared_table(df, spec.columns.identifiers, spec.columns.keep)
    check_job_columns(df, column)
    published = level_column(df, column, zip_level)
    loose = undeclared(df, [column], keep, strict=strict)
    check_scalar_columns(df, [column])
    found = region_graph(regions, region_id, edges=edges, contiguity=contiguity)
    values = region_values(df[column], code_width(found.graph.nodes), found.warnings)
    graph, units, values = rolled_values(found.graph, values, regions, region_id, zip_level, unknown)
    known = values.isin(pd.Index(list(graph.nodes)))
    outside = ~known
    if unknown == "error":
        refuse_unknown(int(outside.sum()), pd.unique(values[outside].fillna("(missing)"))[:EXAMPLES])
    part, members, labels, class_of = region_groups(graph, values[known].value_counts().to_dict(), k, method,
                                                    on_small)
    record_class = values.map(class_of).fillna(-1).astype(np.int64).to_numpy()
    suppressed = record_class < 0
    n_suppressed = int(suppressed.sum())
    check_suppressed(n_suppressed, k)
    class_id = np.where(suppressed, part.n_classes, record_class)
    table = df.copy()
    table[column] = np.asarray(labels, dtype=object)[class_id]
    table = table.rename(columns={column: published})
    table["class_id"] = class_id

    groups = RegionGroups(found, part, members, labels, n_suppressed, int(outside.sum()), column, method, graph,
                          units)
    classes = groups.classes()
    if has_geometry(df):
        table = with_geometry(table, _row_shapes(classes, class_id, table.index))
    part.verify()
    audit = require(table, [published], k=k)
    treatments = {column: ("set", published)}
    sizes = groups.sizes()
    report = JobReport(
        job="regions", rows=int(len(df)), model={"k": k}, classes=int(sizes.size), min_class=int(sizes.min()),
        max_class=int(sizes.max()), audit=audit, seconds=round(time.perf_counter() - started, 3),
        details={**groups.details(), "ncp": information_loss(df, table, treatments),
                 "units": plain_units(df, table, treatments, location=(column,), crs=found.shapes.crs,
                                      km=np.append(groups.diameters(), np.nan)[class_id]),
                 **measure_undeclared(table, loose, k, found.warnings)})
    notes = groups.notes()
    return Release(table=table, partition=part, report=report, classes=classes, notes=notes,
                   warnings=found.warnings, row_shapes=lambda: _row_shapes(classes, class_id, table.index),
                   treatments=treatments, location=ZIP.release_location({"zip": column}))


@dataclass
class RegionGroups:
    """What a partition of a region graph publishes, whichever engine counted
    the records: its classes (dissolved shapes), class sizes, the report's
    figures and the map's notes."""

    found: RegionGraph
    part: object
    members: list
    labels: list
    suppressed: int        # records generalized to '*'
    unknown: int           # records naming no region of the graph
    column: str
    method: str
    graph: object = None   # the graph partitioned (default found.graph; a roll-up's units)
    units: dict | None = None    # a roll-up unit -> its regions

    def __post_init__(self):
        self.graph = self.found.graph if self.graph is None else self.graph

    def classes(self):
        return _class_shapes(self.found.shapes, self.members, self.labels[:-1], self.part.weights, self.units)

    def diameters(self) -> np.ndarray:
        """Each group's diameter in km: the diagonal of the box of the
        centroids of its regions that hold records (of its roll-up units'
        boxes), as the joint release measures a group."""
        part = self.part
        held = [[part.nodes[i] for i in group if part.element_weights[i] > 0] for group in part.groups()]
        up = np.repeat(np.arange(len(held)), [len(m) for m in held])
        boxes = region_boxes(self.graph, [v for m in held for v in m])
        return node_diameters([up], boxes, ground(self.found.shapes.crs))[0]

    def sizes(self) -> np.ndarray:
        return np.r_[self.part.weights, [self.suppressed] if self.suppressed else []].astype(np.int64)

    def details(self) -> dict:
        part, graph = self.part, self.graph
        return {
            "lower_bound": part.lower_bound,
            "ratio": round(part.ratio, 6),
            "method": self.method,
            "tree_degree": part.tree_degree,
            "suppressed_rows": self.suppressed,
            "unknown_rows": self.unknown,
            **self.region_counts(),
            "bridges": int(len(part.bridges)),
            "noncontiguous_groups": [self.labels[c] for c in part.noncontiguous_groups()],
            **self.found.counts,
            "column": self.column,
            "zip_level": self.graph.graph.get("level", "zip"),
            "location_km": km_spread(np.repeat(self.diameters(), np.asarray(self.part.weights, dtype=np.int64))),
            "graph": graph_summary(graph, planarity=graph.number_of_nodes() <= PLANARITY_MAX_NODES),
        }

    def region_counts(self) -> dict:
        """The map's regions: ``suppressed_regions`` (those of connected
        pieces lighter than k), ``empty_regions`` (without records, in a
        group to connect it), ``outside_regions`` (in no group: the map
        beyond the records' area, and the suppressed) and
        ``empty_components`` (connected pieces of the map without records)."""
        import networkx as nx

        part = self.part
        piece = part.linked_graph.components()
        weight = np.bincount(piece, weights=part.element_weights)
        grouped = part.labels >= 0
        held = {v for v, w in zip(part.nodes, part.element_weights.tolist()) if w > 0}
        return {"suppressed_regions": int(np.count_nonzero((weight[piece] > 0) & (weight[piece] < part.k))),
                "empty_regions": int(np.count_nonzero(grouped & (part.element_weights == 0))),
                "outside_regions": int(self.graph.number_of_nodes() - np.count_nonzero(grouped)),
                "empty_components": sum(not (c & held) for c in nx.connected_components(self.graph))}

    def notes(self) -> list:
        notes = [f"{plural(self.suppressed, 'record')} generalized to '*' (unknown regions or components lighter "
                 "than k)"] if self.suppressed else []
        joined = len(self.part.noncontiguous_groups())
        if joined:
            notes.append(f"{plural(joined, 'group')} joined to the nearest region across a gap (not contiguous)")
        return notes


def check_suppressed(n_suppressed: int, k: int) -> None:
    """InfeasibleError when the suppressed records cannot form a class of k."""
    if 0 < n_suppressed < k:
        raise InfeasibleError(f"{plural(n_suppressed, 'record')} would be suppressed (unknown regions or components "
                              f"lighter than k), too few to form a class of k={k}")


def _class_shapes(shapes, members, labels, weights, units=None):
    """One row per group: label, regions (or roll-up units), members, weight
    and shape (:func:`~geoanon.pipeline.region_shapes.group_shapes`; a unit's shape the union of its
    regions' in ``units``)."""
    import geopandas as gpd

    return gpd.GeoDataFrame({
        "class_id": np.arange(len(members)),
        "label": labels,
        "regions": [len(m) for m in members],
        "members": escape_formulas(pd.Series([",".join(sorted(m)) for m in members], dtype=object)),
        "weight": np.asarray(weights, dtype=np.int64),
    }, geometry=group_shapes(shapes, members if units is None else [[v for u in m for v in units[u]] for m in members]),
       crs=shapes.crs)


def _row_shapes(classes, class_id, index):
    """Each record's group shape (None for suppressed records)."""
    import geopandas as gpd

    shapes = np.append(classes.geometry.to_numpy(), None)
    return gpd.GeoSeries(shapes[np.minimum(class_id, len(classes))], index=index, crs=classes.crs)
