"""A region map as the region jobs read it: its adjacency graph and shapes
(:func:`region_graph`), the records' region codes matched to its ids
(:func:`region_values`), records naming no region (:func:`refuse_unknown`),
and its regions rolled up to ZIP3 areas, counties or states
(:func:`rolled_values`)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._cells import MISSING_TOKENS
from .._geo import is_geographic
from .._text import plural, show
from .._validation import check_unique_columns
from ..errors import DataError
from ..io import has_geometry
from ..regions import graph_from_points, graph_from_polygons
from ..regions.graphs import read_edge_list, region_ids, repair_polygons
from ..regions.rollup import rolled_up, unit_names
from .coordinates import numeric_column

__all__ = ["EXAMPLES", "RegionGraph", "ZIP_CODED", "code_width", "leading_zeros", "level_column", "name_groups_by",
           "refuse_unknown", "region_boxes", "region_graph", "region_units", "region_values", "rolled_values", "units_of"]

EXAMPLES = 5                 # region ids named in a warning
ZIP_CODED = 0.95             # region ids are ZIP codes when five digits and this share of them in the crosswalk


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
    (:func:`geoanon.regions.rollup.rolled_up`, :func:`units_of`), the graph
    carrying the ladder its groups are named by (:func:`name_groups_by`)."""
    if level == "zip":
        return name_groups_by(graph, regions, region_id, level), None, values
    graph, units = rolled_up(graph, region_units(regions, region_id, level))
    graph.graph["level"] = level
    return name_groups_by(graph, regions, region_id, level, units), units, units_of(values, units, unknown)


def name_groups_by(graph, regions, region_id: str, level: str, units=None):
    """``graph`` (its nodes: the regions, or their roll-up ``units`` at
    ``level``) with ``graph.graph["ladder"]``, the levels its groups are
    named at (:func:`geoanon.regions.naming.zip_ladder`): ZIP3 areas when
    the ids are ZIP codes (five digits, at least ``ZIP_CODED`` of them in
    the shipped crosswalk, :func:`geoanon.datasets.zip_counties`), counties
    and states from the regions' ``state`` and ``county`` columns, else from
    the crosswalk for ZIP codes."""
    from ..datasets import zip_counties
    from ..regions.naming import zip_ladder

    ids = region_ids(regions, region_id)
    crosswalk = zip_counties()
    zip_codes = code_width(ids) == 5 and float(pd.Index(ids).isin(crosswalk.index).mean()) >= ZIP_CODED
    table = regions if "state" in regions.columns else crosswalk.reindex(ids) if zip_codes else {}
    state, county = (table[c].tolist() if c in table else None for c in ("state", "county"))
    graph.graph["ladder"] = zip_ladder(level, ids, state, county if state is not None else None, zip_codes, units)
    return graph


def level_column(df: pd.DataFrame, column: str, level: str) -> str:
    """The name of the published column of ZIP codes in ``column`` at
    ``level``: the column's own at ``"zip"``, else the level's (``zip3``,
    ``county``, ``state``); DataError where another column of ``df`` has it."""
    if level == "zip":
        return column
    if level in df.columns:
        raise DataError(f"zip_level={level!r} publishes column {show(column)} as {show(level)}, the name of another "
                        f"column of the table; rename that column, or list it among the identifiers")
    return level


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
