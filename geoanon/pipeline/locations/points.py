"""A points location: latitude and longitude (or x and y in a projected
CRS) as two ordered dimensions of the search, published as rectangles
(:mod:`~geoanon.pipeline.locations.rectangles`)."""
from __future__ import annotations

import numpy as np

from ..._geo import KM_PER_DEGREE, row_box_extents
from ..._text import show
from ...errors import ParameterError
from ...joint.dims import Dims, RankDim
from ...points.frame import RELATIVE_SCALE
from ...options.locations import POINTS
from .kind import LocationKind
from .rectangles import PointsPublisher

__all__ = ["PointsKind", "default_resolution", "finest_step", "ground_spans", "points_location", "robust_spans"]


class PointsKind(LocationKind):
    """Points, cut as :func:`points_location` reads them; a record's width
    in km is its published box's diagonal."""

    shape = POINTS
    boxes = True

    def read(self, df, loc, check, options, warnings):
        return points_location(df, loc, options["missing"], options["crs"], options["bounds"], warnings,
                               options["extent"], options["resolution"], check.model.k)

    def record_km(self, table, loc, crs, publisher):
        return row_box_extents(table, loc["lat"], loc["lon"], crs)[2]

    def km_quantiles(self, table, loc, crs, location_km):
        """Over every record; a record published without a box counts as infinitely wide."""
        d = self.record_km(table, loc, crs, None)
        d = np.where(np.isnan(d), np.inf, d)              # a record published without a box: no location
        return tuple(float(np.round(np.quantile(d, q), 3)) for q in (0.5, 0.9))


def points_location(df, loc, missing, crs, bounds, warnings, extent="box", resolution=None, k=1):
    """Longitude and latitude as two ordered location dimensions, cut in the
    frame of :func:`geoanon.partition_points` (padded bounds, antimeridian).
    ``extent="tile"`` publishes each location class's tile; ``"box"`` its
    records' box on a grid that grows with it (:mod:`geoanon.points.edges`,
    for the model's ``k``; the least step ``resolution``, default
    :func:`default_resolution` per axis, and at least k times the
    coordinates' own resolution), inside the tile."""
    from ...points.edges import coordinate_resolution
    from ...points.frame import check_bounds
    from ..._geo import is_geographic
    from ...points.partition import check_coordinates, rank_frame
    from ..coordinates import null_island, numeric_column, rows_without_coordinates

    lat, lon = loc["lat"], loc["lon"]
    x, y = numeric_column(df, lon), numeric_column(df, lat)
    absent = rows_without_coordinates(df, x, y, missing, "give rows without coordinates a location class of "
                                      "their own")
    n_absent = int(absent.sum())
    present = np.flatnonzero(~absent)
    xy = check_coordinates(np.column_stack([x[present], y[present]]), crs, row_names=df.index[present])
    finest = finest_step(float(np.abs(xy).max()))
    if resolution is not None and resolution < finest:
        raise ParameterError(f"resolution={show(resolution)} is finer than coordinates as large as "
                             f"{show(float(np.abs(xy).max()))} can hold; give at least {finest:g}")
    geographic = crs is not None and is_geographic(crs)
    if bounds is not None:
        bounds = check_bounds(bounds, geographic)
    frame = rank_frame(xy, None, geographic, bounds)
    reach = float(np.abs(frame.box).max())
    if resolution is not None and resolution > reach:
        raise ParameterError(f"resolution={show(resolution)} is coarser than the region the boxes tile (coordinates "
                             f"up to {show(reach)}); give at most {show(reach)}")
    if geographic:
        warnings += null_island(xy)
    dims = []
    for axis, name, ranks in ((0, lon, frame.rx), (1, lat, frame.ry)):
        lows, highs = frame.x_ends if axis == 0 else frame.y_ends
        if axis == 0:      # unwrapped across the antimeridian, for widths
            first = np.unique(ranks, return_index=True)[1]
            last = np.r_[first[1:] - 1, ranks.size - 1]
            lows, highs = frame.x[first], frame.x[last]
        box_lo, box_hi = frame.box[axis], frame.box[axis + 2]
        if axis == 0 and box_hi < box_lo:
            box_hi += 360.0
        edges = np.r_[box_lo, (highs[:-1] + lows[1:]) / 2, box_hi]
        rank = np.full(len(df), lows.size, dtype=np.int64)
        rank[present] = ranks[frame.row_point]
        span = float(highs[-1] - lows[0])
        dims.append(RankDim(name=name, rank=rank, edges=edges, low=lows, high=highs, span=span, location=True,
                            missing=bool(n_absent), extent="tile" if extent == "tile" else "grid",
                            resolution=resolution or default_resolution(span, finest), k=k,
                            min_step=k * coordinate_resolution(xy[:, axis])))
    return Dims(dims), PointsPublisher(lat, lon, frame, list(df.columns), crs, geographic, (x, y), bounds is None)


def ground_spans(dims, crs) -> None:
    """The location dimensions' spans set to one km on the ground
    (``location_loss="spacing"``, whose loss does not read them): the location
    tree is then cut on ground distance alone, towards boxes square in km, as
    the location would be cut without the other columns (a km of box costs
    more than any other column's whole range). A degree of longitude counts
    the cosine of the records' median latitude times a degree of latitude."""
    from pyproj import CRS

    x, y = (d for d in dims.items if d.location)           # longitude, latitude
    crs = CRS.from_user_input(crs)
    if not crs.is_geographic:
        x.span = y.span = 1000.0 / crs.axis_info[0].unit_conversion_factor
        return
    held = y.rank[y.rank < y.size]
    lat = float(np.median(y.low[held])) if held.size else 0.0
    y.span = 1.0 / KM_PER_DEGREE
    x.span = 1.0 / (KM_PER_DEGREE * max(np.cos(np.radians(lat)), 0.01))


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


def default_resolution(span: float, finest: float = 0.0) -> float:
    """The power of ten nearest below a thousandth of ``span`` (0.01 degrees
    for a country-wide table), and not below ``finest``: the grid of
    published box edges."""
    step = 10.0 ** np.floor(np.log10(span / 1000)) if span > 0 else 1.0
    return max(step, finest)


def finest_step(magnitude: float) -> float:
    """The finest grid that values as large as ``magnitude`` can hold well
    apart: the power of ten at or above a billionth of it (edges one float
    apart from a record would be as good as its coordinate)."""
    return 10.0 ** np.ceil(np.log10(RELATIVE_SCALE * magnitude)) if magnitude > 0 else 0.0
