"""The region job: a table's region column (zip codes, counties, tracts) into
connected groups of regions holding >= k records each."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd

from .._cells import escape_formulas
from .._geo import is_geographic, km_per_unit
from .._text import plural, show
from .._validation import check_scalar_columns, check_unique_columns
from ..audit import require
from ..errors import DataError, InfeasibleError
from ..io import has_geometry
from ..ncp import information_loss, plain_units
from ..progress import stepped
from ..regions import graph_from_points, graph_from_polygons, graph_summary
from ..regions.graphs import read_edge_list, region_ids, repair_polygons
from ..regions.rollup import rolled_up, unit_names
from ..joint.km_loss import node_diameters
from .coordinates import numeric_column
from ..regions.groups import region_groups
from .._cells import MISSING_TOKENS
from .._validation import check_job_columns
from ..report.release import JobReport, Release, with_geometry
from ..spec import release_spec
from .roles import declared_table, measure_undeclared, undeclared
from ..spec.locations import ZIP

__all__ = ["EXAMPLES", "RegionGroups", "check_suppressed", "code_width", "generalize_regions", "group_shapes",
           "km_spread", "leading_zeros", "refuse_unknown", "region_boxes", "region_graph",
           "region_units", "region_values", "rolled_values", "units_of"]

PLANARITY_MAX_NODES = 5000   # larger graphs are reported without a planarity test (seconds in networkx)
EXAMPLES = 5                 # region ids named in a warning
COUNTRY_SHARE = 0.01         # of the centroids: a country holding fewer is not drawn on (see _on_land)


@stepped("partitioning regions")
def generalize_regions(df: pd.DataFrame, k: int, *, column: str, regions, region_id: str, edges=None,
                       contiguity: str = "rook", method: str = "balanced", unknown: str = "error",
                       on_small: str = "error", zip_level: str = "zip", keep=None, identifiers=None,
                       strict: bool = True) -> Release:
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
        are not contiguous). Components without records need no group.
    zip_level : {"zip", "zip3", "county", "state"}
        Publish ZIP codes rolled up: the groups are unions of whole ZIP3
        areas (the codes' first three digits), counties or states, each
        the union of its regions (their states and counties from the
        regions' ``state`` and ``county`` columns, else from
        :func:`geoanon.datasets.zip_counties`), and a group is named after
        its units (:func:`geoanon.regions.naming.unit_group_names`:
        ``276``, ``NC/Durham County|NC/Wake County``). Records of a region
        without such a unit follow ``unknown``.
    keep, identifiers, strict
        Columns published as they are, and columns dropped. Any other
        column without a role is refused (UndeclaredColumnsError), or, with
        ``strict=False``, published as it is, with a warning and the records
        it singles out in the report (``undeclared``; :mod:`geoanon.pipeline.roles`).

    Returns
    -------
    Release
        ``table`` with ``column`` replaced by each record's group label (the
        id of its central region, nearest the mean of all the members'
        centroids, with ``+N`` for its N other regions, or its roll-up units:
        :mod:`geoanon.regions.naming`; ``*`` for suppressed records; a label that could start a spreadsheet formula
        is prefixed with ``'``) and ``class_id`` last; ``classes`` holds one
        row per group (label, members, regions, weight, dissolved shape).
        Suppressed records form one class, which must itself reach k.
        ``report["location_km"]``: the median and 90th percentile over
        records of their group's diameter in km (the diagonal of the box of
        its regions' centroids).

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
    ['27701+1', '27701+1', '27701+1', '27701+1', '27707+1', '27707+1', '27707+1', '27713', '27713', '27713']
    >>> release.classes[["label", "members", "weight"]]
         label      members  weight
    0  27701+1  27701,27703       4
    1  27707+1  27705,27707       3
    2    27713        27713       3
    """
    started = time.perf_counter()
    spec = release_spec("zip", k=k, column=column, regions=regions, region_id=region_id, edges=edges,
                        contiguity=contiguity, method=method, unknown=unknown, on_small=on_small, zip_level=zip_level,
                        keep=keep, identifiers=identifiers, strict=strict)
    k = spec.model.k
    check_unique_columns(df)
    df, keep = declared_table(df, spec.columns.identifiers, spec.columns.keep)
    check_job_columns(df, column)
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
    table["class_id"] = class_id

    groups = RegionGroups(found, part, members, labels, n_suppressed, int(outside.sum()), column, method, graph,
                          units)
    classes = groups.classes()
    if has_geometry(df):
        table = with_geometry(table, _row_shapes(classes, class_id, table.index))
    part.verify()
    audit = require(table, [column], k=k)
    treatments = {column: ("set", column)}
    sizes = groups.sizes()
    centroids = {label: [graph.nodes[v]["centroid"] for v in m] for label, m in zip(labels, members)}
    report = JobReport(
        job="regions", rows=int(len(df)), model={"k": k}, classes=int(sizes.size), min_class=int(sizes.min()),
        max_class=int(sizes.max()), audit=audit, seconds=round(time.perf_counter() - started, 3),
        details={**groups.details(), "ncp": information_loss(df, table, treatments),
                 "units": plain_units(df, table, treatments, location=(column,), crs=found.shapes.crs,
                                      groups=centroids),
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

    found: "RegionGraph"
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
        """Each group's diameter in km: the diagonal of the box of its regions' centroids."""
        up = np.repeat(np.arange(len(self.members)), [len(m) for m in self.members])
        boxes = region_boxes(self.graph, [v for m in self.members for v in m])
        crs = self.found.shapes.crs
        return node_diameters([up], boxes, bool(self.graph.graph.get("geographic")),
                              km_per_unit(crs))[0]

    def sizes(self) -> np.ndarray:
        return np.r_[self.part.weights, [self.suppressed] if self.suppressed else []].astype(np.int64)

    def details(self) -> dict:
        part, graph = self.part, self.graph
        lonely = part.suppressed & ~part.empty
        return {
            "lower_bound": part.lower_bound,
            "ratio": round(part.ratio, 6),
            "method": self.method,
            "tree_degree": part.tree_degree,
            "suppressed_rows": self.suppressed,
            "unknown_rows": self.unknown,
            "suppressed_regions": int(np.count_nonzero(lonely)),
            "empty_regions": int(np.count_nonzero(part.element_weights == 0)),
            "empty_components": part.params["empty_components"],
            "bridges": int(len(part.bridges)),
            "noncontiguous_groups": [self.labels[c] for c in part.noncontiguous_groups()],
            **self.found.counts,
            "column": self.column,
            "zip_level": self.graph.graph.get("level", "zip"),
            "location_km": km_spread(np.repeat(self.diameters(), np.asarray(self.part.weights, dtype=np.int64))),
            "graph": graph_summary(graph, planarity=graph.number_of_nodes() <= PLANARITY_MAX_NODES),
        }

    def notes(self) -> list:
        notes = [f"{plural(self.suppressed, 'record')} generalized to '*' (unknown regions or components lighter "
                 "than k)"] if self.suppressed else []
        joined = len(self.part.noncontiguous_groups())
        if joined:
            notes.append(f"{plural(joined, 'group')} joined to the nearest region across a gap (not contiguous)")
        return notes


@dataclass
class RegionGraph:
    """What :func:`region_graph` found: the adjacency graph (nodes carry their
    ``centroid``), each region's shape (a GeoSeries of polygons or centroid
    points indexed by region id), warnings about what was repaired or assumed,
    and counts for the job's report."""

    graph: object
    shapes: object
    warnings: list = field(default_factory=list)
    counts: dict = field(default_factory=dict)


def region_graph(regions, region_id: str, *, edges=None, contiguity: str = "rook") -> RegionGraph:
    """The adjacency graph of the regions, and their shapes (see :class:`RegionGraph`).

    Polygons are repaired when invalid; geometry without a CRS is taken as
    EPSG:4326 when it fits longitude/latitude (DataError otherwise);
    longitude/latitude outside [-180, 180] x [-90, 90] is refused and
    centroids at exactly (0, 0) are warned about. An edge list's regions
    that are not among the regions are left out, with their edges.
    """
    import geopandas as gpd
    import shapely

    check_unique_columns(regions, "the regions have")
    ids = region_ids(regions, region_id)
    found = RegionGraph(None, None, counts={"repaired_polygons": 0, "dropped_edge_regions": 0, "dropped_edges": 0,
                                            "pruned_edges": 0})
    if has_geometry(regions):
        geoms = np.asarray(regions.geometry.values, dtype=object)
        if shapely.is_missing(geoms).any():
            i = int(np.flatnonzero(shapely.is_missing(geoms))[0])
            raise DataError(f"region {ids[i]!r} has no geometry")
        kinds = set(shapely.get_type_id(geoms).tolist())
        polygonal = kinds <= {shapely.GeometryType.POLYGON, shapely.GeometryType.MULTIPOLYGON}
        if not (polygonal or kinds <= {shapely.GeometryType.POINT}):
            raise DataError("region geometries must be all polygons or all points")
        crs = _crs(regions.crs, geoms, found.warnings)
        geographic = bool(is_geographic(crs))
        if polygonal:
            geoms = _repaired(geoms, ids, found)
        if geographic:
            _check_lonlat(ids, shapely.bounds(geoms), crs)
        shapes = gpd.GeoSeries(geoms, index=ids, crs=crs)
        centroids = shapely.get_coordinates(shapely.centroid(geoms))
        if edges is None:
            graph = (graph_from_polygons(gpd.GeoDataFrame({region_id: ids}, geometry=geoms, crs=crs), region_id,
                                         contiguity=contiguity)
                     if polygonal else graph_from_points(centroids, ids, geographic=geographic))
    else:
        lon, lat = numeric_column(regions, "lon"), numeric_column(regions, "lat")
        if np.isnan(lon).any() or np.isnan(lat).any():
            i = int(np.flatnonzero(np.isnan(lon) | np.isnan(lat))[0])
            raise DataError(f"region {ids[i]!r} has no centroid: every region needs numbers in its 'lat' and "
                            "'lon' columns")
        _check_lonlat(ids, np.column_stack([lon, lat, lon, lat]), None)
        geographic = True
        centroids = np.column_stack([lon, lat])
        shapes = gpd.GeoSeries(gpd.points_from_xy(lon, lat), index=ids, crs="EPSG:4326")
        if edges is None:
            graph = graph_from_points(centroids, ids, geographic=True)
    if edges is not None:
        graph = _edge_graph(edges, ids, found)
        graph.add_nodes_from((i, {"centroid": (float(x), float(y))}) for i, (x, y) in zip(ids, centroids))
        graph.graph["geographic"] = geographic
    found.counts["pruned_edges"] = int(graph.graph.get("pruned", 0))
    if geographic:
        _warn_null_island(ids, centroids, found.warnings)
    found.graph, found.shapes = graph, shapes
    return found


def _crs(crs, geoms, warnings: list):
    """The regions' CRS; EPSG:4326 (with a warning) when they have none and
    their coordinates fit longitude/latitude, else DataError."""
    import shapely

    if crs is not None:
        return crs
    xmin, ymin, xmax, ymax = shapely.total_bounds(geoms)
    if -180 <= xmin and xmax <= 180 and -90 <= ymin and ymax <= 90:
        warnings.append("the regions have no CRS; their coordinates fit longitude/latitude, so EPSG:4326 "
                        "is assumed")
        return "EPSG:4326"
    raise DataError("the regions have no CRS and their coordinates are not longitude/latitude; give the file "
                    "a CRS (GeoDataFrame.set_crs, ogr2ogr -a_srs)")


def _repaired(geoms, ids, found: RegionGraph):
    """Polygons made valid, counted and warned about."""
    geoms, fixed = repair_polygons(geoms, ids)
    if fixed.size:
        found.counts["repaired_polygons"] = int(fixed.size)
        found.warnings.append(f"{plural(fixed.size, 'region')} had an invalid polygon ({_named(ids, fixed)}), "
                              "repaired with shapely.make_valid keeping the polygonal parts")
    return geoms


def _check_lonlat(ids, bounds: np.ndarray, crs) -> None:
    """DataError naming the first region whose (xmin, ymin, xmax, ymax) leave
    longitude [-180, 180] or latitude [-90, 90]; for geometry, the message
    names its ``crs`` (a GeoJSON file without one is read as longitude/latitude)."""
    lon_bad = (bounds[:, 0] < -180) | (bounds[:, 2] > 180)
    lat_bad = (bounds[:, 1] < -90) | (bounds[:, 3] > 90)
    bad = np.flatnonzero(lon_bad | lat_bad)
    if bad.size:
        i = int(bad[0])
        what, lo, hi, limit = (("latitude", bounds[i, 1], bounds[i, 3], 90) if lat_bad[i]
                               else ("longitude", bounds[i, 0], bounds[i, 2], 180))
        value = lo if lo < -limit else hi
        hint = "" if crs is None else (f"; if the coordinates are not longitude/latitude, the regions' CRS "
                                       f"({_crs_name(crs)}) is wrong: give the file its CRS (GeoDataFrame.set_crs, "
                                       "ogr2ogr -a_srs)")
        raise DataError(f"region {ids[i]!r} has {what} {show(float(value))}, outside [-{limit}, {limit}] "
                        f"({plural(bad.size, 'region')} out of range){hint}")


def _crs_name(crs) -> str:
    """A CRS as its authority code (``EPSG:4326``), else its name."""
    from pyproj import CRS

    crs = CRS.from_user_input(crs)
    authority = crs.to_authority()
    return ":".join(authority) if authority else crs.name


def _named(ids, positions) -> str:
    """The ids at ``positions``, or ``e.g.`` and the first few of them."""
    names = ", ".join(str(ids[i]) for i in positions[:EXAMPLES].tolist())
    return names if len(positions) <= EXAMPLES else f"e.g. {names}"


def _warn_null_island(ids, centroids: np.ndarray, warnings: list) -> None:
    """A warning when centroids sit exactly at (0, 0), usually a failed geocoding."""
    zero = np.flatnonzero((centroids[:, 0] == 0) & (centroids[:, 1] == 0))
    if zero.size:
        one = zero.size == 1
        warnings.append(f"{plural(zero.size, 'region')} {'has its' if one else 'have their'} centroid at (0, 0), "
                        f"usually a failed geocoding ({_named(ids, zero)}); check {'its' if one else 'their'} "
                        "coordinates")


def _edge_graph(edges, ids, found: RegionGraph):
    """The edge list's graph over ``ids``, without regions the regions lack."""
    graph = read_edge_list(edges, ids=ids)
    known = set(ids)
    strangers = [v for v in graph.nodes if v not in known]
    if strangers:
        dropped = len(list(graph.edges(strangers)))
        graph.remove_nodes_from(strangers)
        found.counts["dropped_edge_regions"] = len(strangers)
        found.counts["dropped_edges"] = dropped
        one = len(strangers) == 1
        found.warnings.append(f"the edge list names {plural(len(strangers), 'region')} that {'is' if one else 'are'} "
                              f"not in the regions ({_named(strangers, np.arange(len(strangers)))}); "
                              f"{'it' if one else 'they'} and {plural(dropped, 'edge')} were left out")
    return graph


def refuse_unknown(n_outside: int, examples) -> None:
    """DataError when records name regions that are not in the regions."""
    if n_outside:
        one = n_outside == 1
        raise DataError(f"{plural(n_outside, 'record')} "
                        f"{'names a region that is' if one else 'name regions that are'} not in the regions "
                        f"(e.g. {', '.join(map(show, examples))}); use unknown='suppress' to "
                        f"generalize {'it' if one else 'them'} fully")


def region_units(regions, region_id: str, level: str) -> dict:
    """Region id -> its unit at ``level`` (:func:`geoanon.regions.rollup.unit_names`;
    None: no unit): the state and county from the regions' ``state`` and
    ``county`` columns, else the shipped crosswalk's
    (:func:`geoanon.datasets.zip_counties`) for the ids that are ZIP codes it
    lists."""
    from ..datasets import zip_counties

    ids = region_ids(regions, region_id)
    needed = {"state", "county"} if level == "county" else {"state"} if level == "state" else set()
    table = regions if needed <= set(regions.columns) else zip_counties().reindex(ids).reset_index()
    units = dict(zip(ids, unit_names(ids, level, *(table[c].tolist() if c in needed else None
                                                   for c in ("state", "county")))))
    if not any(units.values()):
        raise DataError(f"zip_level={level!r}: no region has a {level}; give the regions "
                        f"{' and '.join(map(repr, sorted(needed)))} columns, or ids that are ZIP codes of the shipped "
                        "crosswalk (geoanon.datasets.zip_counties)")
    return units


def rolled_values(graph, values: pd.Series, regions, region_id: str, level: str, unknown: str) -> tuple:
    """The region ``graph``, its roll-up units' members (None at ``"zip"``)
    and each record's node, with the regions rolled up to ``level``
    (:func:`geoanon.regions.rollup.rolled_up`, :func:`units_of`)."""
    if level == "zip":
        return graph, None, values
    graph, units = rolled_up(graph, region_units(regions, region_id, level))
    graph.graph["level"] = level
    return graph, units, units_of(values, units, unknown)


def units_of(values: pd.Series, members: dict, unknown: str) -> pd.Series:
    """Each record's roll-up unit (``members``: unit -> its regions), NaN for
    a region that has none or is not among the regions (DataError naming
    them unless ``unknown="suppress"``)."""
    values = region_values(values)
    units = values.map({v: unit for unit, regions in members.items() for v in regions})
    if unknown == "error":
        outside = units.isna().to_numpy()
        refuse_unknown(int(outside.sum()), pd.unique(values[outside].fillna("(missing)"))[:EXAMPLES])
    return units


def region_boxes(graph, names) -> np.ndarray:
    """The box (x0, y0, x1, y1) of each of ``names``' regions' centroids in
    ``graph``: a roll-up unit's ``box``, a region's centroid; NaN for a name
    not in the graph (the ``*`` of suppressed records)."""
    out = np.full((len(names), 4), np.nan)
    for i, v in enumerate(names):
        if v in graph:
            node = graph.nodes[v]
            out[i] = node["box"] if "box" in node else (*node["centroid"], *node["centroid"])
    return out


def km_spread(diameters: np.ndarray) -> dict | None:
    """``median`` and ``p90`` of per-record diameters in km (NaN: records
    without a place, left out); None when no record has one."""
    known = np.asarray(diameters, dtype=np.float64)
    known = known[~np.isnan(known)]
    if not known.size:
        return None
    return {"median": round(float(np.median(known)), 3), "p90": round(float(np.quantile(known, 0.9)), 3)}


def check_suppressed(n_suppressed: int, k: int) -> None:
    """InfeasibleError when the suppressed records cannot form a class of k."""
    if 0 < n_suppressed < k:
        raise InfeasibleError(f"{plural(n_suppressed, 'record')} would be suppressed (unknown regions or components "
                              f"lighter than k), too few to form a class of k={k}")


def region_values(series: pd.Series, width: int | None = None, warnings: list | None = None) -> pd.Series:
    """Record region values as stripped strings, NaN where missing. A column
    of numbers (Parquet, or a CSV read as numbers) has lost the leading zeros
    of codes such as ZIP codes: with ``width`` (:func:`code_width` of the
    regions' ids) its codes get them back (:func:`leading_zeros`); a number
    that is not whole is refused."""
    numbers = pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)
    if numbers:
        series = _whole_numbers_as_text(series)
    text = series.astype("string").str.strip()
    missing = series.isna() | text.str.lower().isin(MISSING_TOKENS)
    text = text.astype(object).where(~missing.to_numpy(), np.nan)
    return leading_zeros(text, width, series.name, warnings) if numbers and width else text


def code_width(ids) -> int | None:
    """The number of digits every region id has, where all are digit strings
    of one length (ZIP codes: 5, county FIPS codes: 5); else None."""
    ids = [str(i) for i in ids]
    lengths = {len(i) for i in ids}
    return lengths.pop() if len(lengths) == 1 and all(i.isdigit() for i in ids) else None


def leading_zeros(codes: pd.Series, width: int, name, warnings: list | None, records=None) -> pd.Series:
    """``codes`` (text, NaN where missing) written with ``width`` digits,
    2134 -> 02134, the records restored so (``records``: per code, default
    one each) named in ``warnings``."""
    padded = codes.where(codes.isna(), codes.astype(str).str.zfill(width))
    short = (codes.notna() & (codes.astype(str).str.len() < width)).to_numpy()
    if short.any() and warnings is not None:
        n = int(short.sum() if records is None else np.asarray(records)[short].sum())
        first = int(np.flatnonzero(short)[0])
        warnings.append(f"column {show(name)} holds numbers: leading zeros restored to {width} digits for "
                        f"{plural(n, 'record')} (e.g. {codes.iloc[first]} -> {padded.iloc[first]}); store the column "
                        "as text to keep them")
    return padded


def _whole_numbers_as_text(series: pd.Series) -> pd.Series:
    """Whole numbers as their digits (2134.0 -> "2134"); DataError for others."""
    values = series.to_numpy(dtype=np.float64, na_value=np.nan)
    present = ~np.isnan(values)
    odd = values[present][(values[present] != np.round(values[present])) | (values[present] < 0)]
    if odd.size:
        raise DataError(f"column {show(series.name)} holds numbers that are not region codes (e.g. {show(odd[0])}): "
                        "give the codes as text")
    text = pd.Series(np.where(present, values, 0).astype(np.int64).astype(str), index=series.index, dtype=object,
                     name=series.name)
    return text.where(present, None)


def _class_shapes(shapes, members, labels, weights, units=None):
    """One row per group: label, regions (or roll-up units), members, weight
    and shape (:func:`group_shapes`; a unit's shape the union of its
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


def group_shapes(shapes, members) -> np.ndarray:
    """Each group's shape: the union of its ``members``' (region ids of
    ``shapes``) polygons or, for regions known by centroids, of their
    Voronoi cells (:func:`_voronoi_cells`); None for a group without members."""
    import shapely

    if not shapes.geom_type.isin(["Polygon", "MultiPolygon"]).all():
        shapes = _voronoi_cells(shapes)
    geoms = shapes.to_numpy()[shapes.index.get_indexer([v for m in members for v in m])]
    ends = np.cumsum([len(m) for m in members])
    out = np.full(len(members), None, dtype=object)
    for g, (start, end) in enumerate(zip(np.r_[0, ends[:-1]], ends)):
        if end > start:
            out[g] = shapely.union_all(geoms[start:end])
    return out


def _voronoi_cells(points):
    """Each centroid's Voronoi cell among all centroids, clipped to their convex
    hull widened by the median distance between nearest centroids and, in
    longitude/latitude, to the land (:func:`_on_land`): regions known only by
    centroids become areas that tile the map, so every group is an area and
    no two groups overlap (regions sharing a centroid share its cell)."""
    import geopandas as gpd
    import shapely
    from scipy.spatial import cKDTree

    xy = shapely.get_coordinates(points.to_numpy())
    sites, site_of = np.unique(xy, axis=0, return_inverse=True)
    if len(sites) > 1:
        gap = float(np.median(cKDTree(sites).query(sites, k=2)[0][:, 1]))
    else:
        gap = 0.01 * max(1.0, float(np.abs(sites).max()))
    frame = shapely.buffer(shapely.convex_hull(shapely.multipoints(sites)), gap)
    if points.crs is not None and is_geographic(points.crs):
        frame = _on_land(frame, sites, gap)
    if len(sites) == 1:
        cells = np.array([frame], dtype=object)
    else:
        pieces = shapely.get_parts(shapely.voronoi_polygons(shapely.multipoints(sites), extend_to=frame))
        at, cell = shapely.STRtree(pieces).query(shapely.points(sites), predicate="within")
        cells = np.empty(len(sites), dtype=object)
        cells[at] = _clipped(pieces[cell], frame)
    return gpd.GeoSeries(cells[site_of.ravel()], index=points.index, crs=points.crs)


def _on_land(frame, sites: np.ndarray, gap: float):
    """``frame`` cut to the countries holding the sites (:func:`geoanon.datasets.land`;
    a country holding fewer than ``COUNTRY_SHARE`` of them is a neighbour into
    which border regions' centroids fall), the small islands holding sites,
    and a disc around each site off them (as wide as its distance to that
    land, at most ``gap``); ``frame`` as it is when that land holds fewer than
    half of the sites (sites at sea)."""
    import shapely

    faces, country = _land()
    points = shapely.points(sites)
    face, site = shapely.STRtree(points).query(faces, predicate="intersects")     # each face prepared once
    codes, held = np.unique(country[face], return_counts=True)
    kept = np.isin(country, codes[(held >= COUNTRY_SHARE * len(sites)) & (codes != "")])
    kept[face[country[face] == ""]] = True
    on = np.unique(site[kept[face]])
    if 2 * on.size < len(sites):
        return frame
    land = shapely.union_all(faces[kept])
    off = points[np.setdiff1d(np.arange(len(sites)), on)]
    reach = np.minimum(shapely.distance(off, land), gap)      # to the land, if nearer: no bleeding across a border
    return shapely.intersection(frame, shapely.union_all(np.r_[land, shapely.buffer(off, reach)]))


@lru_cache(maxsize=1)
def _land() -> tuple:
    """The shipped land polygons and their country codes, decoded once per process."""
    from ..datasets import land

    found = land()
    return found.geometry.to_numpy(), found["country"].to_numpy()


def _clipped(cells: np.ndarray, frame) -> np.ndarray:
    """The cells cut to ``frame``; those wholly inside it as they are."""
    import shapely

    shapely.prepare(frame)
    out = cells.copy()
    cut = ~shapely.contains_properly(frame, cells)
    out[cut] = shapely.intersection(cells[cut], frame)
    return out


def _row_shapes(classes, class_id, index):
    """Each record's group shape (None for suppressed records)."""
    import geopandas as gpd

    shapes = np.append(classes.geometry.to_numpy(), None)
    return gpd.GeoSeries(shapes[np.minimum(class_id, len(classes))], index=index, crs=classes.crs)
