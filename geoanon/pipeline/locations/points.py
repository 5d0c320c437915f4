"""A points location: latitude and longitude (or x and y in a projected
CRS) as two ordered dimensions of the search, published as rectangles
(:mod:`~geoanon.pipeline.locations.rectangles`)."""
from __future__ import annotations

import numpy as np

from ..._geo import ground, row_box_extents
from ..._text import show
from ...errors import ParameterError
from ...joint.dims import Dims, RankDim
from ...points.frame import RELATIVE_SCALE
from ...options.locations import POINTS
from .kind import LocationKind
from .rectangles import PointsPublisher

SCALE_SLACK = 0.02   # round_below: a projected unit's scale on the ground within this of a round number keeps it

__all__ = ["PointsKind", "default_resolution", "finest_step", "framed_location", "ground_spans", "points_location",
           "robust_spans", "round_below", "unit_metres"]


class PointsKind(LocationKind):
    """Points, cut as :func:`points_location` reads them; a record's width
    in km is its published box's diagonal."""

    shape = POINTS

    def read(self, df, loc, check, options, warnings):
        return points_location(df, loc, options["missing"], options["crs"], options["bounds"], warnings,
                               options["extent"], options["resolution"], check.model.k, threads=options.get("n_jobs", 1))

    def record_km(self, table, loc, crs, publisher):
        return row_box_extents(table, loc["lat"], loc["lon"], crs)[2]

    def km_figures(self, table, loc, crs, location_km):
        """Median and p90 over every record, a record published without a box
        counting as infinitely wide; the max over the boxes published (None: none)."""
        d = self.record_km(table, loc, crs, None)
        boxed = d[~np.isnan(d)]
        d = np.where(np.isnan(d), np.inf, d)              # a record published without a box: no location
        return {**{f"{name}_km": float(np.round(np.quantile(d, q), 3)) for name, q in (("median", 0.5), ("p90", 0.9))},
                "max_km": float(np.round(boxed.max(), 3)) if boxed.size else None}


def points_location(df, loc, missing, crs, bounds, warnings, extent="box", resolution=None, k=1, frame=None,
                    threads=1):
    """Longitude and latitude as two ordered location dimensions, cut in the
    frame of :func:`geoanon.partition_points` (padded bounds, antimeridian).
    ``extent="tile"`` publishes each location class's tile; ``"box"`` its
    records' box on a grid that grows with it (:mod:`geoanon.points.edges`,
    for the model's ``k``; the least step ``resolution``, default
    :func:`default_resolution` per axis, and at least k times the
    coordinates' own resolution), inside the tile. ``frame``: the located
    rows' :func:`~geoanon.points.partition.rank_frame`, when the caller has
    it; else found with its sorts in ``threads`` threads (the same frame)."""
    from ...points.frame import check_bounds
    from ..._geo import is_geographic
    from ...points.partition import check_coordinates, rank_frame
    from ..coordinates import null_island, numeric_column, rows_without_coordinates

    lat, lon = loc["lat"], loc["lon"]
    x, y = numeric_column(df, lon), numeric_column(df, lat)
    absent = rows_without_coordinates(df, x, y, missing, "give rows without coordinates a location class of "
                                      "their own")
    present = np.flatnonzero(~absent)
    xy = check_coordinates(np.column_stack([x[present], y[present]]), crs, row_names=df.index[present])
    finest = finest_step(float(np.abs(xy).max()))
    if resolution is not None and resolution < finest:
        raise ParameterError(f"resolution={show(resolution)} is finer than coordinates as large as "
                             f"{show(float(np.abs(xy).max()))} can hold; give at least {finest:g}")
    geographic = crs is not None and is_geographic(crs)
    if bounds is not None:
        bounds = check_bounds(bounds, geographic)
    frame = rank_frame(xy, None, geographic, bounds, threads) if frame is None else frame
    reach = float(np.abs(frame.box).max())
    if resolution is not None and resolution > reach:
        raise ParameterError(f"resolution={show(resolution)} is coarser than the region the boxes tile (coordinates "
                             f"up to {show(reach)}); give at most {show(reach)}")
    if geographic:
        warnings += null_island(xy)
    return framed_location(xy, present, len(df), frame, (lat, lon), list(df.columns), crs, bounds is None, extent,
                           resolution, k)


def framed_location(xy, present, rows: int, frame, names: tuple, columns: list, crs, own_bounds: bool,
                    extent="box", resolution=None, k=1):
    """:func:`points_location` of checked coordinates ``xy`` of the rows
    ``present`` (of ``rows``; the others without a location) in their
    ``frame``; ``names``: the latitude and longitude columns, ``columns``:
    the table's; ``own_bounds``: the frame's bounds are the records' own."""
    from ...points.edges import coordinate_resolution
    from ..._geo import is_geographic

    lat, lon = names
    geographic = crs is not None and is_geographic(crs)
    unit_m = unit_metres(crs, frame.x, xy[:, 1])
    finest = finest_step(float(np.abs(xy).max()))
    dims = []
    for axis, name, ranks in ((0, lon, frame.rx), (1, lat, frame.ry)):
        lows, highs = values = frame.x_ends if axis == 0 else frame.y_ends      # values[0]: sorted, distinct
        if axis == 0:      # unwrapped across the antimeridian, for widths (ranks ascend in the frame's order)
            first = np.flatnonzero(np.r_[True, ranks[1:] != ranks[:-1]])
            last = np.r_[first[1:] - 1, ranks.size - 1]
            lows, highs = frame.x[first], frame.x[last]
        box_lo, box_hi = frame.box[axis], frame.box[axis + 2]
        if axis == 0 and box_hi < box_lo:
            box_hi += 360.0
        edges = np.r_[box_lo, (highs[:-1] + lows[1:]) / 2, box_hi]
        rank = np.full(rows, lows.size, dtype=np.int64)
        rank[present] = ranks[frame.row_point]
        span = float(highs[-1] - lows[0])
        dims.append(RankDim(name=name, rank=rank, edges=edges, low=lows, high=highs, span=span, location=True,
                            missing=present.size < rows, extent="tile" if extent == "tile" else "grid",
                            resolution=resolution or default_resolution(span, finest, unit_m[axis]), k=k,
                            min_step=k * coordinate_resolution(values[0])))
    return Dims(dims), PointsPublisher(lat, lon, frame, columns, crs, geographic, own_bounds)


def unit_metres(crs, x, y) -> tuple:
    """What one unit of x and one of y of a projected ``crs`` are worth in
    metres on the ground at the middle of points (x, y) (:meth:`geoanon._geo.Ground.axis_km`);
    (None, None) in a geographic CRS or a plane, whose grid is in its own unit."""
    on = ground(crs)
    if not on.projected:
        return None, None
    return tuple(1000 * float(v) for v in on.axis_km(np.median(x), np.median(y)))


def ground_spans(dims, crs) -> None:
    """The location dimensions' spans set to one km on the ground
    (``location_loss="spacing"``, whose loss does not read them): the location
    tree is then cut on ground distance alone, towards boxes square in km, as
    the location would be cut without the other columns (a km of box costs
    more than any other column's whole range). A unit of each axis counts
    what it is worth on the ground at the records' median point
    (:meth:`geoanon._geo.Ground.axis_km`; a degree of longitude: the cosine
    of the median latitude times a degree of latitude)."""
    x, y = (d for d in dims.items if d.location)           # longitude or easting, latitude or northing
    middle = [float(np.median(d.low[d.rank[d.rank < d.size]])) if (d.rank < d.size).any() else 0.0 for d in (x, y)]
    x_km, y_km = (float(v) for v in ground(crs).axis_km(*middle))
    y.span = 1.0 / y_km
    x.span = 1.0 / max(x_km, 0.01 * y_km)


def robust_spans(dims) -> None:
    """The location dimensions' NCP measured over their records' interquartile
    range instead of their range (``location_loss="spread"``); the range
    where half the records share one value."""
    for d in dims.items:
        if d.location and isinstance(d, RankDim):
            held = d.rank[d.rank < d.size]
            q1, q3 = np.quantile(d.low[held], [0.25, 0.75])
            if q3 > q1:
                d.span = float(q3 - q1)


def default_resolution(span: float, finest: float = 0.0, unit_m: float | None = None) -> float:
    """The power of ten nearest below a thousandth of ``span`` (0.01 degrees
    for a country-wide table), and not below ``finest``: the grid of
    published box edges. In a projected CRS whose unit is worth ``unit_m``
    metres on the ground, the power of ten of metres below a thousandth of
    the span's length on the ground, written as the round step (1, 2 or 5
    times a power of ten) of the unit at or below it, so that the grid is
    never coarser on the ground than a metric one, whatever the unit: 100 m
    is 100 UTM metres, 200 US survey feet (61 m; a power of ten of feet
    would be 30 m or 305 m), 100 Web Mercator metres at latitude 30 and 200
    at latitude 60.

    >>> default_resolution(2e5), default_resolution(6.6e5, unit_m=0.3048006), default_resolution(4e5, unit_m=0.5)
    (100.0, 200.0, 200.0)
    """
    if span <= 0:
        return max(1.0, finest)
    if unit_m is None:
        return max(float(10.0 ** np.floor(np.log10(span / 1000))), finest)
    metres = 10.0 ** np.floor(np.log10(span * unit_m / 1000))
    return max(round_below(metres / unit_m), finest)


def round_below(v: float) -> float:
    """The greatest round number (1, 2 or 5 times a power of ten) at most
    ``v`` > 0, or 2% above it (a UTM metre is 0.9996 to 1.001 m on the
    ground: 1000 m is 1000 of them, not 500).

    >>> round_below(328.08), round_below(116.7), round_below(0.0007), round_below(999.6)
    (200.0, 100.0, 0.0005, 1000.0)
    """
    power = np.floor(np.log10(v))
    candidates = [float(np.round(m * 10.0 ** p, max(0, int(-p)))) for p in (power - 1, power, power + 1)
                  for m in (1, 2, 5)]
    return max(c for c in candidates if c <= v * (1 + SCALE_SLACK))


def finest_step(magnitude: float) -> float:
    """The finest grid that values as large as ``magnitude`` can hold well
    apart: the power of ten at or above a billionth of it (edges one float
    apart from a record would be as good as its coordinate)."""
    return 10.0 ** np.ceil(np.log10(RELATIVE_SCALE * magnitude)) if magnitude > 0 else 0.0
