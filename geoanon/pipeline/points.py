"""The GPS job: a table's latitude/longitude columns into k-anonymous rectangles."""
from __future__ import annotations

import time
from contextlib import ExitStack

import numpy as np
import pandas as pd

from .._cells import with_decimal_mark
from .._forked import beside, forked
from .._text import plural, show
from .._validation import check_scalar_columns, check_total, check_unique_columns
from ..audit import require
from ..errors import DataError, InfeasibleError
from ..io import has_geometry
from ..points.frame import WORLD, rectangle_shapes
from ..points.isolated import WITHHELD, budget_rows
from ..points.partition import check_coordinates
from ..ncp import information_loss, plain_units
from ..options import release_spec
from ..progress import stepped
from .._geo import ground, is_geographic
from ..report.release import JobReport, Release, in_published_order, with_geometry
from .coordinates import null_island, numeric_column, rows_without_coordinates
from .roles import declared_table, measure_undeclared, undeclared
from ..options.locations import POINTS

__all__ = ["generalize_points", "isolated_warning", "located_classes", "published_bounds", "withheld_note"]


@stepped("partitioning points")
def generalize_points(df: pd.DataFrame, k: int, *, lat=None, lon=None, method="gaps",
                      missing="error", crs="EPSG:4326", bounds=None, keep=None, identifiers=None,
                      strict=True, max_withheld=WITHHELD, max_extent_km=None, decimal=".", n_jobs=1) -> Release:
    """Generalize a table's point locations into rectangles of >= k records.

    Parameters
    ----------
    df : DataFrame or GeoDataFrame
        One row per record.
    k : int
    lat, lon : str or None
        Coordinate columns (latitude = y, longitude = x; one not given is
        ``lat`` or ``lon``). With both ``None`` (the default), the columns
        ``lat`` and ``lon`` if the table has them, else a GeoDataFrame's point
        geometry (in its CRS); a geometry
        without a CRS is read as EPSG:4326 when every coordinate fits it (with
        a warning), and refused otherwise.
    method : {"gaps", "balanced", "paper"}
        See :func:`geoanon.partition_points`; ``"gaps"`` (default) places
        each cut in the widest gap that keeps the classes near the lower bound.
    missing : {"error", "suppress"}
        Rows without coordinates raise DataError, or form one fully
        generalized class (empty bounds), which must itself reach k.
    crs : CRS of the coordinate columns (ignored when the geometry is used):
        a projected one takes ``lat`` as the northing and ``lon`` as the
        easting, publishes the boxes in its unit, and measures every km on
        the ground (:mod:`geoanon._geo`; docs/python.md, "Projected coordinates").
    bounds : (xmin, ymin, xmax, ymax), optional
        Region the rectangles tile, exactly as given (``xmin > xmax``: across
        the antimeridian). Default: the data's bounding box padded outward to
        round numbers, so no published coordinate is a record's (see
        :func:`geoanon.partition_points`); bounds through a record are refused.
    keep, identifiers, strict
        Columns published as they are, and columns dropped. Any other
        column without a role is refused (UndeclaredColumnsError), or, with
        ``strict=False``, published as it is, with a warning and the records
        it singles out in the report (``undeclared``; :mod:`geoanon.pipeline.roles`).
    max_withheld : float
        The budget of isolated records (:mod:`geoanon.points.isolated`: far
        from the rest of the table) published without a location, as a
        share of the rows (default 2%, at least 2k rows; 0: none). They are
        set apart before the partition, which boxes every other record.
    max_extent_km : float, optional
        No published box wider than this (its diagonal on the ground, km):
        the records of wider classes (a remote group of k or more, boxed
        across the sea between them) are published without a location
        too, within ``max_withheld``, and the rest partitioned again;
        InfeasibleError where the budget cannot take them.
        ``report["max_extent"]`` says how many.
    decimal : {".", ","}
        The decimal mark of coordinates given as text (``","``: ``-118,27``).
    n_jobs : int
        Processes (-1: every core): with 2 or more, the points are sorted,
        the isolated records searched and the partition's kd levels cut in
        that many threads, a forked process checks the partition from when
        it is cut, and another audits the release (and measures its NCP)
        while this one measures its units, draws its classes and finds its
        published order. The release is the same.

    Returns
    -------
    Release
        ``table`` has ``{lat}_min, {lat}_max, {lon}_min, {lon}_max`` where
        ``lat`` was (``lon`` removed), and ``class_id`` last. A GeoDataFrame's
        geometry becomes the class's box. Each class publishes its records'
        box on a grid whose step grows with it, inside its rectangle of the
        partition (which tiles ``bounds``), so that no edge tells more of a
        record than the box over k does (:mod:`geoanon.points.edges`).
        Isolated records, within ``max_withheld``, are published without a
        location (``withheld_rows``), in the one class of rows without
        coordinates; ``report["isolated"]`` says how many, and the budget.
        ``report["bounds"]`` is the region the published boxes cover. A
        class with ``lon_min > lon_max``
        crosses the antimeridian (RFC 7946, 3.1.9) and its geometry is a
        MultiPolygon cut there. ``warnings`` name what was assumed or looks
        wrong (a CRS assumed, records at (0, 0)). ``partition`` is the
        partition of the plane (its rectangles tile ``bounds``).

    Examples
    --------
    >>> import pandas as pd
    >>> import geoanon as ga
    >>> df = pd.DataFrame({
    ...     "lat": [35.99, 36.01, 35.98, 36.02, 35.78, 35.80, 35.77, 35.79],
    ...     "lon": [-78.90, -78.91, -78.93, -78.89, -78.64, -78.66, -78.62, -78.63],
    ...     "diagnosis": ["flu", "copd", "flu", "gout", "copd", "flu", "gout", "flu"]})
    >>> release = ga.generalize_points(df, k=2, keep=["diagnosis"])
    >>> release.table
       lat_min  lat_max  lon_min  lon_max diagnosis  class_id
    0    35.95    36.05   -78.94   -78.90      copd         0
    1    35.95    36.05   -78.94   -78.90       flu         0
    2    35.95    36.05   -78.92   -78.88       flu         1
    3    35.95    36.05   -78.92   -78.88      gout         1
    4    35.76    35.82   -78.68   -78.62      copd         2
    5    35.76    35.82   -78.68   -78.62       flu         2
    6    35.76    35.80   -78.64   -78.60       flu         3
    7    35.76    35.80   -78.64   -78.60      gout         3
    >>> release.report["classes"], release.report["audit"]["k"]
    (4, 2)
    """
    started = time.perf_counter()
    spec = release_spec("points", k=k, lat=lat, lon=lon, method=method, missing=missing, crs=crs, bounds=bounds,
                        keep=keep, identifiers=identifiers, strict=strict, max_withheld=max_withheld,
                        max_extent_km=max_extent_km, decimal=decimal, n_jobs=n_jobs)
    k, bounds, max_withheld = spec.model.k, spec["bounds"], spec["max_withheld"]
    check_unique_columns(df)
    df, keep = declared_table(df, spec.columns.identifiers, spec.columns.keep)
    df = with_decimal_mark(df, [c for c in (lat, lon) if c in df.columns], spec["decimal"])
    geometry = has_geometry(df)
    warnings = []
    lat, lon, x, y, crs, (lat_name, lon_name) = _coordinates(df, spec["lat"], spec["lon"], spec["crs"], warnings)
    loose = undeclared(df, [lat, lon], keep, strict=spec["strict"])
    out_cols = [f"{lat_name}_min", f"{lat_name}_max", f"{lon_name}_min", f"{lon_name}_max"]
    clash = [c for c in out_cols + ["class_id"] if c in df.columns and c not in (lat, lon)]
    if clash:
        raise DataError(f"the output column {clash[0]!r} already exists in the input")

    absent = rows_without_coordinates(df, x, y, spec["missing"], "put rows without coordinates in one fully "
                                      "generalized class")
    n_absent = int(absent.sum())
    if n_absent and n_absent < k:
        raise InfeasibleError(f"{plural(n_absent, 'row')} without coordinates cannot form a suppressed class "
                              f"of k={k}")
    present = np.flatnonzero(~absent)
    xy = check_coordinates(np.column_stack([x[present], y[present]]), crs, row_names=df.index[present])
    if crs is not None and is_geographic(crs):
        warnings += null_island(xy)
    budget = budget_rows(max_withheld, len(df), k)
    with ExitStack() as checks:
        part, boxes, class_id, (withheld, extent), isolated, verified = located_classes(
            xy, present, len(df), k, spec["method"], crs, bounds, budget, checks, spec["max_extent_km"],
            spec["n_jobs"])
        warnings += isolated_warning(isolated, max_withheld)
        table, row_shapes, located = _published_table(df, lat, lon, out_cols, boxes, class_id, crs, geometry)
        treatments = {lat_name: ("interval", (f"{lat_name}_min", f"{lat_name}_max")),
                      lon_name: ("longitude" if is_geographic(crs) else "interval",
                                 (f"{lon_name}_min", f"{lon_name}_max"))}
        coordinates, published = pd.DataFrame({lat_name: y, lon_name: x}), table.reset_index(drop=True)
        weights = np.bincount(class_id)

        def audited() -> tuple:
            return require(table, out_cols, k=k), information_loss(coordinates, published, treatments, reach=k)

        def drawn() -> tuple:
            units = plain_units(coordinates, published, treatments, location=(lat_name, lon_name), crs=crs,
                                km=None if crs is None else _row_km(boxes, class_id, located, crs))
            classes = gpd_classes(boxes, weights[:boxes.shape[0]], crs)
            return units, classes, in_published_order(table, row_shapes)

        # the audit and the NCP beside the units, the classes' shapes and the published order
        (audit, ncp), (units, classes, (ordered, input_rows, input_index, shapes)) = beside(audited, drawn,
                                                                                           spec["n_jobs"])
        verified()
    report = JobReport(
        job="points", rows=int(len(df)), model={"k": k}, classes=int(weights.size),
        min_class=int(weights.min()), max_class=int(weights.max()), audit=audit,
        seconds=round(time.perf_counter() - started, 3),
        details={
            "lower_bound": part.lower_bound,
            "ratio": round(part.ratio, 6),
            "method": spec["method"],
            "suppressed_rows": int((~located).sum()),
            "withheld_rows": int(withheld + extent),
            "isolated": {"max_withheld": max_withheld, "budget_rows": budget, "published": isolated},
            "max_extent": {"km": spec["max_extent_km"], "withheld_rows": extent},
            "columns": {"lat": lat_name, "lon": lon_name},
            "crs": None if crs is None else str(crs),
            "bounds": published_bounds(boxes, crs is not None and is_geographic(crs)),
            "ncp": ncp,
            "units": units,
            **measure_undeclared(table, loose, k, warnings),
        })
    return Release(table=ordered, partition=part, report=report, classes=classes,
                   notes=_notes(n_absent, withheld, extent, spec["max_extent_km"], boxes, lon_name),
                   warnings=warnings, row_shapes=shapes, treatments=treatments,
                   location=POINTS.release_location({"lat": lat_name, "lon": lon_name}), input_rows=input_rows,
                   input_index=input_index)


def _published_table(df, lat, lon, out_cols: list, boxes: np.ndarray, class_id: np.ndarray, crs, geometry: bool):
    """The published table in the input's order (each row's class's box in
    ``out_cols`` where ``lat`` and ``lon`` were, ``class_id`` last; the
    boxes as its geometry where the input had one), a callable giving each
    row's box shape, and which rows have a box."""
    located = class_id < boxes.shape[0]
    ends = np.vstack([boxes, np.full((1, 4), np.nan)])       # the last class has no box
    table = _replace_columns(df, lat, lon, {c: ends[:, j].take(class_id) for c, j in zip(out_cols, (1, 3, 0, 2))},
                             class_id)

    def row_shapes():
        import geopandas as gpd

        shapes = np.full(len(df), None, dtype=object)
        shapes[located] = rectangle_shapes(boxes[class_id[located]])
        return gpd.GeoSeries(shapes, index=df.index, crs=crs)

    return (with_geometry(table, row_shapes()) if geometry else table), row_shapes, located


def _row_km(boxes: np.ndarray, class_id: np.ndarray, located: np.ndarray, crs) -> np.ndarray:
    """Each row's box's diagonal on the ground (km; NaN: no box), from its class's."""
    km = np.full(len(class_id), np.nan)
    km[located] = ground(crs).extents(*boxes.T)[2][class_id[located]]
    return km


def _notes(n_absent: int, withheld: int, extent: int, max_km, boxes: np.ndarray, lon_name: str) -> list:
    """The release's notes: the records without coordinates, those withheld
    (isolated, and for the extent), the classes across the antimeridian."""
    notes = [f"{plural(n_absent, 'record')} without coordinates form one suppressed class"] if n_absent else []
    if withheld:
        notes.append(withheld_note(withheld))
    if extent:
        notes.append(f"{plural(extent, 'record')} of classes wider than max_extent_km={max_km:g} published without a "
                     "location")
    across = int((boxes[:, 0] > boxes[:, 2]).sum())
    if across:
        notes.append(f"{plural(across, 'class', 'classes')} across the antimeridian "
                     f"({lon_name}_min > {lon_name}_max, RFC 7946)")
    return notes


def _coordinates(df, lat, lon, crs, warnings: list) -> tuple:
    """The coordinate columns (None for a GeoDataFrame's point geometry),
    x and y, the CRS, and the names the published columns start with."""
    geometry = has_geometry(df)
    if lat is not None or lon is not None or not geometry or {"lat", "lon"} <= set(df.columns):
        lat, lon = lat or "lat", lon or "lon"
    if geometry and lat is not None and lat not in df.columns:
        raise DataError(f"no column {show(lat)} in the GeoDataFrame: omit lat and lon to use its geometry")
    check_scalar_columns(df, [lat, lon])
    if lat is not None:
        return lat, lon, numeric_column(df, lon), numeric_column(df, lat), crs, (lat, lon)
    x, y, crs = _geometry_coordinates(df, warnings)                 # a GeoDataFrame without lat and lon columns
    names = ("lat", "lon") if is_geographic(crs) else ("y", "x")
    raw = [c for c in names if c in df.columns]
    if raw:
        raise DataError(f"the GeoDataFrame has a column {show(raw[0])} besides its geometry, which would be "
                        "published as it is: give lat and lon to generalize the columns, or drop them")
    return lat, lon, x, y, crs, names


def isolated_warning(published: int, share: float) -> list:
    """The warning on isolated records left in their class's box."""
    if not published:
        return []
    return [f"{plural(published, 'isolated record')} ({'none' if share == 0 else 'beyond the budget'}"
            f"{'' if share == 0 else f' of {share:.0%}'} withheld) {'is' if published == 1 else 'are'} published in "
            "boxes whose far side holds only them and few others: raise max_withheld to publish them without a "
            "location"]


def withheld_note(withheld: int) -> str:
    """The map's and report's note on records published without a location."""
    return (f"{plural(withheld, 'record')} published without a location: isolated records, far from the rest of "
            "their class (geoanon.points.isolated), and any records of their class too few to stand alone")


def located_classes(xy, present, rows: int, k: int, method: str, crs, bounds, budget: int, checks: ExitStack,
                    max_km: float | None = None, n_jobs: int = 1) -> tuple:
    """The partition of the located rows ``present`` (of ``rows``; checked
    coordinates ``xy``) and what its classes publish: each its records' box
    on the grid of :mod:`geoanon.points.edges`, inside its rectangle (the
    joint release's rule, :class:`~geoanon.pipeline.locations.rectangles.PointsPublisher`).

    Isolated records (:mod:`geoanon.points.isolated`), the farthest first
    while at most ``budget`` rows go, are set apart before the partition and
    join the rows without coordinates in one last class without a location,
    with the records nearest them where they are fewer than k (a budget is
    at least 2k rows); the partition (Theorem 2's) then boxes every other
    record. With ``max_km``, the records of classes whose box is wider (its
    diagonal on the ground) join them too, and the rest is partitioned
    again, until no box is wider; InfeasibleError where the budget cannot
    take them. ``n_jobs``: threads sorting the points, searching the
    isolated records and cutting the partition's levels, and with 2 or
    more, a forked worker verifying each partition from when it is cut
    (:func:`geoanon._forked.forked`, under ``checks``) while this process
    goes on. Returns the partition, its classes' boxes, every row's class
    (the number of boxes for the last one), the number of rows withheld for
    isolation and for the extent, of isolated rows still published, and a
    callable that returns once the partition is verified (raising
    VerificationError if it fails)."""
    from ..points.frame import check_bounds
    from ..points.partition import rank_frame

    check_total(len(xy), k)
    geographic = crs is not None and is_geographic(crs)
    if bounds is not None:
        bounds = check_bounds(bounds, geographic)
    frame = rank_frame(xy, None, geographic, bounds, n_jobs)
    dims, publisher = _location(xy, present, rows, frame, crs, bounds, k)
    label = np.full(rows, -1, dtype=np.int64)
    label[present] = 0
    flagged, reach = publisher.isolated(dims, label, k, n_jobs)
    farthest = np.flatnonzero(flagged)
    chosen = farthest[np.lexsort((farthest, -reach[farthest]))][:budget]
    short = k - chosen.size - (rows - present.size)          # rows without coordinates are >= k or none
    if chosen.size and short > 0:
        chosen = np.r_[chosen, _nearest(xy, present, chosen, short, crs)]
    if present.size - chosen.size < k:
        chosen = chosen[:0]
    gone = np.zeros(rows, dtype=bool)
    gone[chosen] = True
    isolated = int(gone.sum())
    located = (frame, xy, present, rows, k, method, crs, bounds, n_jobs, checks)
    part, boxes, label, verified = _partition_rest(located, gone, (dims, publisher))
    while max_km is not None:
        km = ground(crs).extents(*boxes.T)[2]
        wide = np.flatnonzero(np.isin(label, np.flatnonzero(km > max_km)))
        if not wide.size:
            break
        if gone.sum() + wide.size > budget or present.size - gone[present].sum() - wide.size < k:
            raise InfeasibleError(
                f"{plural(int(wide.size), 'record')} lie in classes wider than max_extent_km={max_km:g} (the "
                f"widest is {km.max():,.0f} km) and the withholding budget cannot take them: raise max_extent_km "
                "or max_withheld")
        gone[wide] = True
        part, boxes, label, verified = _partition_rest(located, gone)
    class_id = np.where(label < 0, part.n_classes, label)
    withheld = int(gone.sum())
    return part, boxes, class_id, (isolated, withheld - isolated), int((flagged & ~gone).sum()), verified


def _partition_rest(located: tuple, gone: np.ndarray, placed: tuple | None = None) -> tuple:
    """Theorem 2's partition of the located rows not ``gone``, its classes'
    published boxes, every row's class (-1: none) and the partition's
    verification (see :func:`located_classes`). ``located``: the frame,
    coordinates and rows of every located row, the table's size, k, the
    method, CRS, bounds, threads and checks; ``placed``: their location
    dimensions and publisher, where none is gone."""
    from ..points.partition import frame_without, partition_in_frame

    frame, xy, present, rows, k, method, crs, bounds, n_jobs, checks = located
    keep = ~gone[present]
    if not keep.all():
        frame = frame_without(frame, xy, ~keep, crs is not None and is_geographic(crs), bounds, n_jobs)
        xy, present, placed = xy[keep], present[keep], None
    dims, publisher = placed or _location(xy, present, rows, frame, crs, bounds, k)
    part = partition_in_frame(frame, xy, np.ones(len(xy), dtype=np.int64), k, method, crs, n_jobs)

    def checked() -> None:          # the partition itself does not travel back
        part.verify()

    verified = checks.enter_context(forked(checked, n_jobs))
    label = np.full(rows, -1, dtype=np.int64)
    label[present] = part.labels
    return part, publisher.rectangles(dims, _states(dims, part, label), tiles=part.rectangles), label, verified


def _nearest(xy, present, chosen: np.ndarray, count: int, crs) -> np.ndarray:
    """The ``count`` located rows (of ``present``, at ``xy``) nearest on the
    ground to any of the rows ``chosen``, ties by row: with them, the chosen
    fill a class of k without a location."""
    from .._geo import ground

    where = ground(crs).positions(xy[:, 0], xy[:, 1])
    mine = np.searchsorted(present, chosen)
    near = np.full(len(present), np.inf)
    for i in mine:
        np.minimum(near, np.linalg.norm(where - where[i], axis=1), out=near)
    near[mine] = np.inf
    bound = np.partition(near, count - 1)[count - 1]
    candidates = np.flatnonzero(near <= bound)
    return present[candidates[np.lexsort((candidates, near[candidates]))][:count]]


def _location(xy, present, rows: int, frame, crs, bounds, k: int):
    """The location dimensions and publisher of the rows ``present`` at
    ``xy`` (the others without a location), cut in ``frame``."""
    from .locations.points import framed_location

    return framed_location(xy, present, rows, frame, ("lat", "lon"), ["lat", "lon"], crs, bounds is None, k=k)


def _states(dims, part, label: np.ndarray) -> np.ndarray:
    """The joint release's class states of the classes of ``part`` as
    :meth:`~geoanon.pipeline.locations.rectangles.PointsPublisher.rectangles`
    reads them, (n, 2, 4): per axis, the tile and the ranks its rows
    (``label``: each row's class, -1 for none) hold."""
    rows = np.flatnonzero(label >= 0)
    states = np.empty((part.n_classes, 2, 4), dtype=np.int64)
    states[:, 0, :2], states[:, 1, :2] = part.rank_boxes[:, 0:2], part.rank_boxes[:, 2:4]
    for axis, d in enumerate(dims.items[:2]):
        first = np.full(part.n_classes, np.iinfo(np.int64).max)
        end = np.full(part.n_classes, -1)
        np.minimum.at(first, label[rows], d.rank[rows])
        np.maximum.at(end, label[rows], d.rank[rows] + 1)
        states[:, axis, 2], states[:, axis, 3] = first, end
    return states


def published_bounds(boxes: np.ndarray, geographic: bool = True) -> list:
    """The region the published ``boxes`` (xmin, ymin, xmax, ymax; xmin > xmax
    across the antimeridian) cover: what a report may say of the release's
    extent (never the records', whose extremes are single records). In
    longitude, the covered arcs of the circle from the end of its widest
    uncovered gap to its start (west > east across the antimeridian)."""
    if len(boxes) == 0:
        return []
    b = np.asarray(boxes, dtype=np.float64)
    south, north = float(b[:, 1].min()), float(b[:, 3].max())
    if not geographic:
        return [float(b[:, 0].min()), south, float(b[:, 2].max()), north]
    start = np.where(b[:, 0] >= 180.0, b[:, 0] - 360.0, b[:, 0])
    end = start + np.where(b[:, 0] > b[:, 2], b[:, 2] + 360.0 - b[:, 0], b[:, 2] - b[:, 0])
    order = np.argsort(start)
    start, end = start[order], np.maximum.accumulate(end[order])
    gaps = np.r_[start[1:] - end[:-1], start[0] + 360.0 - end[-1]]     # before each arc; the last wraps round
    widest = int(np.argmax(gaps))
    west = float(start[(widest + 1) % start.size])
    east = float(end[widest])
    east = east - 360.0 if east > 180.0 else east
    return [west, south, east, north]


def gpd_classes(boxes: np.ndarray, weights: np.ndarray, crs):
    """One row per published class: ``class_id``, ``weight`` and its box."""
    import geopandas as gpd

    return gpd.GeoDataFrame({"class_id": np.arange(len(boxes)), "weight": np.asarray(weights, dtype=np.int64)},
                            geometry=rectangle_shapes(boxes), crs=crs)


def _replace_columns(df, lat, lon, new: dict, class_id) -> pd.DataFrame:
    """``df`` without ``lat``/``lon``, the new columns where the first of them
    was (at the end when coordinates came from the geometry), ``class_id`` last."""
    columns = list(df.columns)
    at = len(columns) if lat is None else min(columns.index(lat), columns.index(lon))
    out = df[[c for c in columns if c not in (lat, lon)]].copy()
    for offset, (name, values) in enumerate(new.items()):
        out.insert(at + offset, name, values)
    out["class_id"] = class_id
    return out


def _geometry_coordinates(gdf, warnings: list):
    """x, y (NaN where empty) and CRS of a GeoDataFrame of points. Without a
    CRS, EPSG:4326 is assumed (and a warning added) when every coordinate fits
    longitude/latitude; otherwise DataError."""
    import shapely

    geom = gdf.geometry.to_numpy()
    kinds = shapely.get_type_id(geom)
    empty = shapely.is_missing(geom) | shapely.is_empty(geom)
    bad = ~empty & (kinds != shapely.GeometryType.POINT)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(f"row {show(gdf.index[i])}: geometry is a {geom[i].geom_type}, not a point")
    x = np.full(len(geom), np.nan)
    y = np.full(len(geom), np.nan)
    x[~empty], y[~empty] = shapely.get_x(geom[~empty]), shapely.get_y(geom[~empty])
    if gdf.crs is not None:
        return x, y, gdf.crs
    fits = ~((np.abs(x) > WORLD[2]) | (np.abs(y) > WORLD[3]))   # NaN (empty) fits
    if not fits.all():
        i = int(np.flatnonzero(~fits)[0])
        raise DataError(f"the input geometry has no CRS and row {show(gdf.index[i])} at ({show(x[i])}, "
                        f"{show(y[i])}) is not a longitude/latitude; give the file its CRS "
                        "(GeoDataFrame.set_crs, ogr2ogr -a_srs)")
    warnings.append("the input geometry has no CRS; assumed EPSG:4326 (longitude/latitude), "
                    "since every coordinate fits it")
    return x, y, "EPSG:4326"
