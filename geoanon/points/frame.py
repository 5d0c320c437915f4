"""The region the rectangles tile, and the longitude frame they are cut in.

**Outer bounds.** By default the rectangles tile the records' bounding box
padded outward, so that no outer edge is a record's coordinate. Per axis, the
*scale* is the records' span (when it is 0, the coordinates' magnitude, or 1
at the origin), never below 1e-9 of the magnitude nor 1e-12. Each side moves
out by ``PAD_FRACTION`` of the scale and then out to a multiple of the *step*,
the largest of 1, 2 or 5 times a power of ten that is at most a tenth of the
scale. The edges are round numbers that depend on the data's scale, not on
one record. In a geographic CRS they are clipped to [-180, 180] x [-90, 90].

**The antimeridian.** Longitudes lie on a circle. In a geographic CRS the
rectangles are cut in the frame that starts after the records' largest
longitude gap; when that is not the gap across ±180°, the frame crosses the
antimeridian and the region is published as ``xmin > xmax`` (RFC 7946,
section 3.1.9), as is every class that straddles it. Longitudes are published
normalized: ``lon_min`` in [-180, 180), ``lon_max`` in (-180, 180].
"""
from __future__ import annotations

import math
import numbers

import numpy as np

from .._text import plural, show
from ..errors import DataError, ParameterError

__all__ = ["RELATIVE_SCALE", "WORLD", "check_bounds", "check_contains", "default_bounds", "measurable",
           "padded_box", "rectangle_shapes", "shortest_decimal_between", "unwrapped", "wraps"]

PAD_FRACTION = 0.05     # the bounds lie at least this fraction of the scale beyond the records
RELATIVE_SCALE = 1e-9   # the scale is at least this fraction of the coordinates' magnitude ...
ABSOLUTE_SCALE = 1e-12  # ... and at least this
WORLD = (-180.0, -90.0, 180.0, 90.0)


def wraps(bounds) -> bool:
    """Whether a region (xmin, ymin, xmax, ymax) crosses the antimeridian."""
    return bounds[0] > bounds[2]


def default_bounds(x_sorted: np.ndarray, y_lo: float, y_hi: float, geographic: bool) -> tuple:
    """The padded region around records with sorted x (longitudes) and y
    extent [y_lo, y_hi] (see the module's rules)."""
    south, north = _padded(y_lo, y_hi, y_hi - y_lo)
    if geographic:
        south, north = max(south, WORLD[1]), min(north, WORLD[3])
        across = _antimeridian_frame(x_sorted)
        if across is not None:
            return across[0], south, across[1], north
    return padded_box(float(x_sorted[0]), y_lo, float(x_sorted[-1]), y_hi, geographic)


def padded_box(x_lo: float, y_lo: float, x_hi: float, y_hi: float, geographic: bool) -> tuple:
    """The padded region around the box [x_lo, x_hi] x [y_lo, y_hi], without
    crossing the antimeridian: what :func:`default_bounds` gives for records
    whose largest longitude gap is the one across ±180°."""
    west, east = _padded(x_lo, x_hi, x_hi - x_lo)
    south, north = _padded(y_lo, y_hi, y_hi - y_lo)
    if geographic:
        west, east = max(west, WORLD[0]), min(east, WORLD[2])
        south, north = max(south, WORLD[1]), min(north, WORLD[3])
    return west, south, east, north


def _antimeridian_frame(x: np.ndarray):
    """(west, east) of a padded frame that crosses the antimeridian, or None
    when the largest longitude gap is the one across ±180° (or when padding
    would close the circle)."""
    gaps = np.diff(x)
    if gaps.size == 0:
        return None
    i = int(np.argmax(gaps))
    if gaps[i] <= x[0] + 360.0 - x[-1]:
        return None
    east_record, west_record = float(x[i]), float(x[i + 1])
    cut = float(shortest_decimal_between(np.array([east_record]), np.array([west_record]))[0])
    west, east = _padded(west_record, east_record, east_record + 360.0 - west_record)
    west, east = max(west, cut), min(east, cut)
    return None if west == east == cut else (west, east)


def _padded(lo: float, hi: float, span: float) -> tuple:
    """``lo`` and ``hi`` moved outward by the margin and out to the round step."""
    magnitude = max(abs(lo), abs(hi))
    scale = max(span if span > 0 else magnitude or 1.0, RELATIVE_SCALE * magnitude, ABSOLUTE_SCALE)
    margin = PAD_FRACTION * scale
    try:
        mantissa, exponent = _round_step(scale / 10)
        step = mantissa * 10.0 ** exponent

        def multiple(n):
            # exact integers, one correctly rounded division: the value prints short
            return float(n * mantissa * 10 ** exponent) if exponent >= 0 else n * mantissa / 10 ** -exponent

        return multiple(math.floor((lo - margin) / step)), multiple(math.ceil((hi + margin) / step))
    except OverflowError:
        raise DataError(f"coordinates as large as {show(magnitude)} leave no room to pad the bounds") from None


def _round_step(x: float) -> tuple:
    """``(m, e)`` with m in (1, 2, 5) and m 10^e the largest such number <= x."""
    e = math.floor(math.log10(x))
    if 10.0 ** (e + 1) <= x:
        e += 1
    for m in (5, 2, 1):
        if m * 10.0 ** e <= x:
            return m, e
    return 5, e - 1


def measurable(box) -> bool:
    """Whether the area of ``box`` (xmin, ymin, xmax, ymax) is a finite float."""
    return math.isfinite((float(box[2]) - float(box[0])) * (float(box[3]) - float(box[1])))


def check_bounds(bounds, geographic: bool) -> tuple:
    """``bounds`` as four floats, or ParameterError: finite, ymin <= ymax,
    xmin <= xmax unless the region wraps (geographic CRS only), and within
    the world in a geographic CRS."""
    try:
        values = list(bounds)
    except TypeError:
        values = None
    if values is None or len(values) != 4 or not all(
            isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)) for v in values):
        shown = show(bounds) if values is None else "(" + ", ".join(show(v) for v in values) + ")"
        raise ParameterError(f"bounds must be four numbers (xmin, ymin, xmax, ymax), got {shown}")
    b = tuple(float(v) for v in values)
    text = ", ".join(show(v) for v in b)
    if not all(math.isfinite(v) for v in b):
        raise ParameterError(f"bounds must be finite numbers, got ({text})")
    if b[1] > b[3]:
        raise ParameterError(f"bounds ({text}): ymin is above ymax")
    if not measurable(b):
        raise ParameterError(f"bounds ({text}) are too large: their area is beyond what a float holds")
    if not geographic:
        if b[0] > b[2]:
            raise ParameterError(f"bounds ({text}): xmin is above xmax (a region across the antimeridian "
                                 "needs a geographic crs)")
        return b
    if not (WORLD[0] <= min(b[0], b[2]) and max(b[0], b[2]) <= WORLD[2] and WORLD[1] <= b[1] and b[3] <= WORLD[3]):
        raise ParameterError(f"bounds ({text}) must lie within longitude [-180, 180] and latitude [-90, 90]")
    if wraps(b) and (b[0] == 180 or b[2] == -180):
        raise ParameterError(f"bounds ({text}) cross the antimeridian, which lies at xmin -180 and xmax 180; "
                             "write 180 as -180 for xmin, and -180 as 180 for xmax")
    return b


def check_contains(bounds: tuple, x: np.ndarray, y: np.ndarray) -> None:
    """DataError unless the region ``bounds`` holds every point, none on its
    edge: an edge through a record would publish that record's coordinate."""
    xmin, ymin, xmax, ymax = bounds
    inside_x = ((x >= xmin) | (x <= xmax)) if wraps(bounds) else ((x >= xmin) & (x <= xmax))
    outside = np.flatnonzero(~(inside_x & (y >= ymin) & (y <= ymax)))
    text = ", ".join(show(v) for v in bounds)
    if outside.size:
        i = outside[0]
        n = outside.size
        raise DataError(f"bounds ({text}) must contain every point; {plural(n, 'point')} "
                        f"{'lies' if n == 1 else 'lie'} outside, e.g. ({show(x[i])}, {show(y[i])})")
    touching = np.flatnonzero((x == xmin) | (x == xmax) | (y == ymin) | (y == ymax))
    if touching.size:
        n = touching.size
        raise DataError(f"bounds ({text}) touch {plural(n, 'point')}: an edge on a record would publish its "
                        "coordinate; give bounds beyond the records, or none (the records' box, padded)")


def unwrapped(rectangles: np.ndarray, bounds: tuple) -> tuple:
    """Rectangles and bounds with longitudes east of the antimeridian moved by
    +360, so that a wrapped region is one interval (for geometry, not for
    membership: the shift rounds)."""
    if not wraps(bounds):
        return rectangles, bounds
    r = rectangles.astype(np.float64, copy=True)
    west = bounds[0]
    r[:, 0] += np.where(r[:, 0] < west, 360.0, 0.0)
    r[:, 2] += np.where(r[:, 2] <= west, 360.0, 0.0)
    return r, (bounds[0], bounds[1], bounds[2] + 360.0, bounds[3])


def rectangle_shapes(rectangles: np.ndarray) -> np.ndarray:
    """Shapely geometry of each rectangle (xmin, ymin, xmax, ymax): a box, or
    for ``xmin > xmax`` a MultiPolygon of two boxes cut at the antimeridian
    (RFC 7946, 3.1.9)."""
    import shapely

    r = np.asarray(rectangles, dtype=np.float64)
    out = shapely.box(r[:, 0], r[:, 1], r[:, 2], r[:, 3])
    across = np.flatnonzero(r[:, 0] > r[:, 2])
    if across.size:
        a = r[across]
        east = shapely.box(a[:, 0], a[:, 1], WORLD[2], a[:, 3])
        west = shapely.box(WORLD[0], a[:, 1], a[:, 2], a[:, 3])
        out[across] = shapely.multipolygons(np.stack([east, west], 1))
    return out


def shortest_decimal_between(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """For a < b elementwise, the number with the fewest significant decimal digits
    in the open interval (a, b), nearest the midpoint among those; ``b`` itself
    when no float lies strictly between."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    out = np.nextafter(a, np.inf)   # the next float: strictly between, or b itself
    if a.size == 0:
        return out
    # Grid steps from one decade above the largest magnitude (where only 0 can
    # fall inside an interval) down to the smallest decimals a float holds.
    magnitude = max(float(np.abs(a).max()), float(np.abs(b).max()), 1e-300)
    todo = out < b
    with np.errstate(over="ignore", invalid="ignore"):
        for d in range(max(-int(np.ceil(np.log10(magnitude))) - 1, -308), 309):
            idx = np.flatnonzero(todo)
            if idx.size == 0:
                break
            aa, bb = a[idx], b[idx]
            scale = 10.0 ** abs(d)
            if d >= 0:
                up, down = (lambda v: v * scale), (lambda v: v / scale)
            else:
                up, down = (lambda v: v / scale), (lambda v: v * scale)
            lo, hi = np.floor(up(aa)) + 1, np.ceil(up(bb)) - 1
            c = down(np.clip(np.round(up((aa + bb) / 2)), lo, hi))
            ok = (lo <= hi) & (aa < c) & (c < bb)
            out[idx[ok]] = c[ok]
            todo[idx[ok]] = False
    return out
