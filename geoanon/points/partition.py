"""GPS coordinates generalized into disjoint axis-aligned rectangles (Du, Eppstein,
Goodrich and Lueker, Section 3, Theorem 2)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._geo import ground, is_geographic
from .._text import plural, show
from .._threads import argsort, in_threads, runs
from .._validation import check_choice, check_k, check_total, check_weights
from ..errors import DataError, VerificationError
from ..partition import Partition, count_lower_bound
from .frame import (check_bounds, check_contains, default_bounds, measurable, rectangle_shapes,
                    shortest_decimal_between, unwrapped, wraps)
from .kdtree import kd_partition
from .repair import repair, unforced

__all__ = ["RectanglePartition", "check_coordinates", "frame_without", "partition_in_frame", "partition_points",
           "rank_frame"]

SLACK_PERCENT = 5               # balanced aims at classes of at most (1 + 5%) k ...
EXACT_FIRST_POINTS = 200_000    # ... after trying the lower bound itself on instances this small
MAX_PASSES = 5                  # passes of the search for a reachable target


@dataclass(frozen=True, eq=False, repr=False)
class RectanglePartition(Partition):
    """A :class:`~geoanon.partition.Partition` of points into rectangles.

    Class ``c`` is the rectangle ``rectangles[c] = (xmin, ymin, xmax, ymax)``,
    half-open: it holds the points with ``xmin <= x < xmax`` and
    ``ymin <= y < ymax``, closed on the sides that lie on the outer boundary
    ``bounds``. The rectangles are disjoint and tile ``bounds``. A region or
    class with ``xmin > xmax`` crosses the antimeridian (RFC 7946, 3.1.9): it
    holds ``x >= xmin`` and ``x < xmax``.

    Examples
    --------
    >>> import numpy as np
    >>> import geoanon as ga
    >>> lonlat = np.array([[-78.90, 35.99], [-78.91, 36.01], [-78.64, 35.78], [-78.66, 35.80]])
    >>> part = ga.partition_points(lonlat, k=2)
    >>> part.verify()
    RectanglePartition(method='balanced', k=2, classes=2, max_weight=2, lower_bound=2, ratio=1.0000)
    >>> part.members()
    [[0, 1], [2, 3]]
    >>> part.to_geodataframe().total_bounds.tolist() == list(part.bounds)
    True
    """

    xy: np.ndarray = field(default=None)          # (n, 2) coordinates of the elements
    rectangles: np.ndarray = field(default=None)  # (n_classes, 4)
    bounds: tuple = field(default=None)           # (xmin, ymin, xmax, ymax) tiled
    crs: Any = None
    rank_boxes: np.ndarray = field(default=None)  # (n_classes, 4) the rectangles as rank boundaries of the frame

    def contains(self, xy: np.ndarray, classes: np.ndarray) -> np.ndarray:
        """Whether each point lies in the rectangle of its class (half-open rule)."""
        inside = np.ones(len(xy), dtype=bool)
        r = self.rectangles
        for axis in (0, 1):     # one column at a time: a large table's rows never gather whole rectangles
            lo, hi, v = r[:, axis].take(classes), r[:, axis + 2].take(classes), xy[:, axis]
            within = (lo <= v) & (v < hi)
            if axis == 0 and wraps(self.bounds):
                within = np.where(lo > hi, (v >= lo) | (v < hi), within)
            inside &= within | ((v == hi) & (hi == self.bounds[axis + 2]))
        return inside

    def _verify_kind(self) -> None:
        """Rectangles contain their points, are pairwise disjoint and tile the bounds."""
        import shapely

        outside = np.flatnonzero(~self.contains(self.xy, self.labels))
        if outside.size:
            i = int(outside[0])
            raise VerificationError(f"point {i} ({show(self.xy[i, 0])}, {show(self.xy[i, 1])}) lies outside "
                                    f"its rectangle {int(self.labels[i])}")
        r, bounds = unwrapped(self.rectangles, self.bounds)
        if (r[:, 2] < r[:, 0]).any() or (r[:, 3] < r[:, 1]).any():
            raise VerificationError("a rectangle has negative extent")
        shapes = shapely.box(r[:, 0], r[:, 1], r[:, 2], r[:, 3])
        a, b = shapely.STRtree(shapes).query(shapes)       # boxes: their envelopes meet where they do
        a, b = a[a < b], b[a < b]
        overlap = np.ones(a.size, dtype=bool)
        for axis in (0, 1):
            lo = np.maximum(r[a, axis], r[b, axis])
            hi = np.minimum(r[a, axis + 2], r[b, axis + 2])
            closed = (r[a, axis + 2] == bounds[axis + 2]) & (r[b, axis + 2] == bounds[axis + 2])
            overlap &= (lo < hi) | (closed & (lo <= hi))
        if overlap.any():
            i = int(np.flatnonzero(overlap)[0])
            raise VerificationError(f"rectangles {int(a[i])} and {int(b[i])} overlap")
        width = bounds[2] - bounds[0]
        height = bounds[3] - bounds[1]
        areas = (r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1])
        if width > 0 and height > 0 and not np.isclose(areas.sum(), width * height, rtol=1e-9, atol=0):
            raise VerificationError("the rectangles do not tile the bounds")

    def to_geodataframe(self):
        """The classes as a GeoDataFrame: ``class_id``, ``weight``, rectangle geometry
        (a MultiPolygon cut at the antimeridian for a class that crosses it)."""
        import geopandas as gpd

        return gpd.GeoDataFrame(
            {"class_id": np.arange(self.n_classes), "weight": self.weights},
            geometry=rectangle_shapes(self.rectangles),
            crs=self.crs,
        )


def partition_points(xy, k, weights=None, *, method="balanced", crs="EPSG:4326", bounds=None) -> RectanglePartition:
    """Partition points into disjoint axis-aligned rectangles holding >= k records each.

    Parameters
    ----------
    xy : array_like, shape (n, 2)
        Coordinates, one row per record or per weighted point: longitude/latitude
        (x, y order) by default, or projected x/y. Real numbers only (no
        booleans, no complex numbers).
    k : int
        Every class (rectangle) holds at least ``k`` records.
    weights : array_like of int, shape (n,), optional
        Records per row (default 1 each). Rows at identical coordinates are one
        point whose weight is their sum; they always share a class.
    method : {"balanced", "gaps", "paper"}
        ``"paper"`` is the kd-tree rule of Theorem 2 (Du, Eppstein, Goodrich and
        Lueker, Section 3): alternate axes, cut at the weighted median, and keep
        cutting while some axis-parallel cut leaves weight >= k on both sides.
        ``"balanced"`` (default) keeps the same stopping rule but picks, on both
        axes, the cut whose two sides can best be divided into classes no heavier
        than a target near the lower bound (for unit weights: cuts at multiples of
        k), looking one level ahead for sides that must become two classes, then
        preferring the axis of wider spread and the cut nearest the median. Any
        class left above the target is repaired by an exact search over the
        guillotine partitions of a region around it (of up to 4,096 records,
        :mod:`geoanon.points.repair`). ``"gaps"`` (what the
        table jobs use) is ``"balanced"`` with each cut placed, among those that
        keep the classes' sizes as good, in the widest gap between records.
    crs : str, pyproj.CRS or None
        Coordinate reference system of ``xy`` (default ``"EPSG:4326"``, x = longitude,
        y = latitude). Geographic coordinates must lie in [-180, 180] x [-90, 90].
        ``None`` means plain planar coordinates.
    bounds : (xmin, ymin, xmax, ymax), optional
        The region the rectangles tile, used exactly as given: finite, containing
        every point, within the world in a geographic CRS; ``xmin > xmax`` (geographic
        only) is a region across the antimeridian. Default: the records' bounding
        box padded outward to round numbers (see Notes).

    Returns
    -------
    RectanglePartition
        ``labels`` per row of ``xy``, ``rectangles`` per class, ``lower_bound`` =
        max(k, heaviest point, ceil(W / floor(W / k))) and ``ratio``.

    Notes
    -----
    Guarantee (Theorem 2): the greedy cutting stops only when no axis-parallel
    cut of a rectangle leaves >= k on both sides. In such a rectangle of weight M
    the sides of the last admissible x position weigh at most k-1 each, so one
    column of equal x holds more than M - 2(k-1); likewise one row; they share at
    most one point p, hence M <= 4(k-1) + w(p) <= 5 OPT. Four points of weight
    k-1 around a point of weight k reach the bound. A repair replaces a region
    only by one whose largest class is lighter, so the bound holds for both
    methods.

    No published coordinate is a record's. Cuts run between consecutive
    distinct coordinates at the decimal with the fewest digits strictly between
    them (coordinates one float apart are never cut between). The default outer
    edges pad the records' extent per axis: the scale is the span (the
    coordinates' magnitude when all are equal), each side moves out by 5% of it
    and then out to a multiple of the round step, the largest of 1, 2 or 5 times
    a power of ten that is at most a tenth of the scale; geographic edges are
    clipped to the world, so only a record at a pole or on the antimeridian can
    share an edge. Padding moves outer edges only: classes are the same as
    without it.

    In a geographic CRS, longitudes are cut in the frame that starts after the
    records' largest longitude gap: data that straddles ±180° (Fiji, the
    Aleutians, Guam with Hawaii) gets classes that wrap, published normalized
    with ``xmin > xmax`` (RFC 7946, 3.1.9), not classes that span the globe.
    The result is deterministic.

    Examples
    --------
    Nine points on a 3 x 3 grid of planar coordinates, in classes of at least 3:

    >>> import numpy as np
    >>> import geoanon as ga
    >>> xy = np.array([[x, y] for y in (0.5, 1.5, 2.5) for x in (0.5, 1.5, 2.5)])
    >>> part = ga.partition_points(xy, k=3, crs=None)
    >>> part.labels
    array([0, 1, 2, 0, 1, 2, 0, 1, 2])
    >>> part.rectangles.tolist()            # (xmin, ymin, xmax, ymax) per class
    [[0.4, 0.4, 1.0, 2.6], [1.0, 0.4, 2.0, 2.6], [2.0, 0.4, 2.6, 2.6]]
    >>> part.max_weight, part.lower_bound   # every class holds k: optimal
    (3, 3)
    """
    k = check_k(k)
    method = check_choice("method", method, METHODS)
    xy = check_coordinates(xy, crs)
    w = check_weights(weights, len(xy))
    check_total(int(w.sum()), k)
    geographic = is_geographic(crs)
    if bounds is not None:
        bounds = check_bounds(bounds, geographic)

    frame = rank_frame(xy, None if weights is None else w, geographic, bounds)
    return partition_in_frame(frame, xy, w, k, method, crs)


def partition_in_frame(frame: "RankFrame", xy: np.ndarray, w: np.ndarray, k: int, method: str, crs,
                       threads: int = 1) -> RectanglePartition:
    """:func:`partition_points` of checked coordinates ``xy`` (weights ``w``)
    whose :func:`rank_frame` is ``frame``: for a caller that reads the
    frame too (the points job publishes its boxes in it). ``threads``: the
    kd-tree's levels are cut in that many threads (the same partition)."""
    pw, row_point, rx, ry = frame.pw, frame.row_point, frame.rx, frame.ry
    heaviest = int(pw.max())
    if frame.merged:   # a cell of equal ranks is one point
        cells = np.unique(rx * (int(ry.max()) + 1) + ry, return_inverse=True)[1]
        heaviest = int(np.bincount(cells, weights=pw).max())
    total = int(w.sum())
    lower_bound = count_lower_bound(total, k, heaviest)
    leaf_of_point, boxes = ALGORITHMS[method](frame, k, lower_bound, threads)

    edges = frame.rectangles(boxes, threads)
    # Number classes deterministically by their lower-left corner (in the frame).
    rank = np.empty(len(edges), dtype=np.int64)
    rank[np.lexsort((boxes[:, 0], boxes[:, 2]))] = np.arange(len(edges))
    return RectanglePartition(
        labels=rank[leaf_of_point[row_point]],
        element_weights=w,
        k=k,
        lower_bound=lower_bound,
        method=method,
        params={"crs": None if crs is None else str(crs)},
        xy=xy,
        rectangles=edges[np.argsort(rank)],
        bounds=frame.box,
        crs=crs,
        rank_boxes=boxes[np.argsort(rank)],
    )


# -- the methods: (frame, k, lower_bound, threads) -> (leaf of every point, boxes of rank boundaries) --

def _paper(frame: "RankFrame", k: int, lower_bound: int, threads: int):
    """Theorem 2's kd-tree rule (Du, Eppstein, Goodrich and Lueker, Section 3):
    alternate axes, cut at the weighted median while some cut leaves >= k on
    both sides. Guarantee: every class weighs at most 5 OPT."""
    tree = kd_partition(frame.rx, frame.ry, frame.x, frame.pxy[:, 1], frame.pw, k, lower_bound, "paper",
                        y_order=frame.y_order, threads=threads)
    return tree.label, tree.box[tree.leaves]


def _balanced(frame: "RankFrame", k: int, lower_bound: int, threads: int):
    """Theorem 2's stopping rule with cuts aimed at a target near the lower
    bound, then exact repair of the classes above it (:func:`_balanced_leaves`);
    the repair keeps Theorem 2's 5 OPT."""
    return _aimed_leaves(frame, k, lower_bound, False, threads)


def _gaps(frame: "RankFrame", k: int, lower_bound: int, threads: int):
    """As ``"balanced"``, among the cuts that keep the classes' sizes as
    good, the one in the widest gap (:mod:`~geoanon.points.kdtree`)."""
    return _aimed_leaves(frame, k, lower_bound, True, threads)


def _aimed_leaves(frame: "RankFrame", k: int, lower_bound: int, gaps: bool, threads: int):
    """:func:`_balanced_leaves` on the frame's points. A few points of k or
    more records (a geocoder's default location) would set the scale of every
    class: aim at the other points' bound then, and measure a class beyond
    such a point."""
    pw = frame.pw
    total = int(pw.sum())
    light, heavy = pw[pw < k], int(pw[pw >= k].sum())
    few_heavy = light.size > 0 and 0 < 2 * heavy < total
    aim = count_lower_bound(total, k, int(light.max())) if few_heavy else lower_bound
    return _balanced_leaves(frame.rx, frame.ry, frame.x, frame.pxy[:, 1], pw, k, aim, frame.y_order, few_heavy,
                            gaps=gaps, threads=threads)


ALGORITHMS = {"balanced": _balanced, "gaps": _gaps, "paper": _paper}   # method -> the function above
METHODS = tuple(ALGORITHMS)            # what ``method`` is checked against; the order of choices.POINT_METHODS


def check_coordinates(xy, crs, row_names=None) -> np.ndarray:
    """(n, 2) finite real float64 coordinates, geographic ones within range,
    projected ones inside the area their CRS can take back to longitude and
    latitude (every distance is measured there, :mod:`geoanon._geo`), or DataError.

    ``row_names`` (default: positions) name the rows in error messages.
    """
    _reject_bool_and_complex(xy, row_names)
    try:
        a = np.asarray(xy, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DataError(f"coordinates must be numeric: {exc}") from None
    if a.ndim != 2 or a.shape[1] != 2:
        raise DataError(f"coordinates must have shape (n, 2), got {a.shape}")
    if a.shape[0] == 0:
        raise DataError("no points given")

    def name(i):
        return f"row {i}" if row_names is None else f"row {show(row_names[i])}"

    if not np.isfinite(a).all():
        bad = ~np.isfinite(a).all(axis=1)
        i, n = int(np.flatnonzero(bad)[0]), int(bad.sum())
        raise DataError(f"{plural(n, 'point')} {'has' if n == 1 else 'have'} NaN or infinite coordinates "
                        f"(first: {name(i)}, x={show(a[i, 0])}, y={show(a[i, 1])})")
    on = ground(crs)
    if on.geographic:
        out = (np.abs(a[:, 0]) > 180) | (np.abs(a[:, 1]) > 90)
        if out.any():
            i, n = int(np.flatnonzero(out)[0]), int(out.sum())
            raise DataError(
                f"{plural(n, 'point')} {'lies' if n == 1 else 'lie'} outside longitude [-180, 180] / latitude "
                f"[-90, 90] (first: {name(i)}, lon={show(a[i, 0])}, lat={show(a[i, 1])})" + _wrap_hint(a, out))
    elif on.projected:
        out = np.isnan(on.lonlat(a[:, 0], a[:, 1])[0])
        if out.any():
            i, n = int(np.flatnonzero(out)[0]), int(out.sum())
            raise DataError(f"{plural(n, 'point')} {'lies' if n == 1 else 'lie'} outside the area that crs "
                            f"{show(crs)} maps (first: {name(i)}, x={show(a[i, 0])}, y={show(a[i, 1])}): "
                            "are the coordinates in that CRS?")
    box = (a[:, 0].min(), a[:, 1].min(), a[:, 0].max(), a[:, 1].max())   # per column: a strided axis-0 pass is slow
    if not measurable(box):
        raise DataError(f"the points spread over x from {show(box[0])} to {show(box[2])} and y from "
                        f"{show(box[1])} to {show(box[3])}: an area beyond what a float holds")
    return np.ascontiguousarray(a + 0.0)  # -0.0 becomes 0.0: equal coordinates are one point


def _wrap_hint(a: np.ndarray, out: np.ndarray) -> str:
    """The hint for longitudes written from 0 to 360 (every point out of
    range has its latitude in range and its longitude in (180, 360]): wrap
    them first. Not done here: the published boxes would be in another
    convention than the input's column, and a longitude past 180 may as well
    be a typo or a projected x."""
    lon, lat = a[out, 0], a[out, 1]
    if not ((lon > 180) & (lon <= 360) & (np.abs(lat) <= 90)).all():
        return ""
    return "; the longitudes look written from 0 to 360: give them from -180 to 180 (lon - 360 where lon > 180)"


def _reject_bool_and_complex(xy, row_names=None) -> None:
    """DataError when coordinates are booleans or complex numbers (numpy would
    read True as 1 and drop an imaginary part)."""
    try:
        a = np.asarray(xy)
    except (TypeError, ValueError):   # ragged: the conversion to floats names the problem
        return
    if a.dtype.kind == "O" or (isinstance(xy, (list, tuple)) and a.dtype.kind in "iuf"):
        cells = np.asarray(xy, dtype=object)
        flags = np.frompyfunc(lambda v: isinstance(v, (bool, np.bool_, complex, np.complexfloating)), 1, 1)
        bad = flags(cells).astype(bool)
        if bad.any():
            at = np.argwhere(bad)[0]
            where = f"row {at[0]}" if row_names is None else f"row {show(row_names[at[0]])}"
            raise DataError(f"coordinates must be real numbers, got {show(cells[tuple(at)])} at {where}")
    elif a.dtype.kind in "bc":
        kind = "booleans" if a.dtype.kind == "b" else "complex numbers"
        raise DataError(f"coordinates must be real numbers, got {kind}")


def _balanced_leaves(rx, ry, x, y, pw, k, lower_bound, y_order, beyond_heavy=False, gaps=False, threads=1):
    """Leaves of the balanced rule: greedy kd cuts aimed at a target T, exact
    repair of the leaves above T, and a short search for a T the data can meet.

    Aiming exactly at the lower bound leaves no slack (with a total weight that
    is a multiple of k every class would have to weigh exactly k), and classes
    grow by whole points, so a window [k, T] narrower than a typical point is
    easily stepped over. The targets tried, lowest first, are the lower bound,
    ``(1 + 5%) k`` and ``k + s - 1`` with s the weight of a typical point (the
    records' 75th percentile); the first pass that meets its target wins.
    ``SLACK_PERCENT`` and the 75th percentile were chosen on
    ``bench/bench_points.py``'s tables (clustered, households, ZIP jitter and
    lattice points, k = 5 to 50), as the values giving the smallest largest
    class there; they are not derived.
    A class holding a point of k records or more weighs at least that point.
    When such points hold under half of the records, ``lower_bound`` leaves
    them out and, with ``beyond_heavy``, a class is measured by its weight
    beyond such a point (:func:`repair.unforced`): one heavy point does not
    raise the target of every other class (a 4,000-record point among 200,000
    records at k = 100 took 31 s and 6 GB, classes aimed at 4,000; now 3 s).
    Instances over ``EXACT_FIRST_POINTS`` points start at the second. Coarse data
    (records on a lattice of heavy cells) may meet none: then T is raised
    halfway to the result and bisected, at most ``MAX_PASSES`` passes in all
    (two on larger instances), and the best pass is kept.
    """
    def run(target):
        tree = kd_partition(rx, ry, x, y, pw, k, target, "gaps" if gaps else "balanced",
                            y_order=y_order, exact=lower_bound, threads=threads)
        label, boxes, weights = repair(tree, rx, ry, pw, k, target)
        return int((unforced(weights, label, pw, k) if beyond_heavy else weights).max()), label, boxes

    plain = max(lower_bound, -(-k * (100 + SLACK_PERCENT) // 100))
    coarse = max(plain, k + _record_quantile(pw, 0.75) - 1)
    small = len(pw) <= EXACT_FIRST_POINTS
    schedule = sorted({lower_bound, plain, coarse} if small else {plain, coarse})
    passes = MAX_PASSES if small else 2
    results = {}
    for target in schedule:
        results[target] = run(target)
        if results[target][0] <= target:
            return results[target][1:]
    low, high = schedule[-1], None      # largest target missed by > 10%, smallest met
    target = schedule[-1]
    while len(results) < passes:
        reached = results[target][0]
        if 10 * reached <= 11 * target:
            high = target
        else:
            low = target
        if high is None:
            target = target + max(1, (reached - target) // 2)
        elif high - low > 1:
            target = (low + high) // 2
        else:
            break
        if target in results:
            break
        results[target] = run(target)
    best = min(results.values(), key=lambda r: r[0])
    return best[1:]


def _record_quantile(weights: np.ndarray, q: float) -> int:
    """The point weight below which a fraction q of the records lie."""
    if weights.max() <= 1_000_000:
        records = np.cumsum(np.bincount(weights) * np.arange(int(weights.max()) + 1))
        return int(np.searchsorted(records, q * records[-1]))
    ordered = np.sort(weights)
    return int(ordered[np.searchsorted(np.cumsum(ordered), q * weights.sum())])


@dataclass(eq=False)
class RankFrame:
    """Distinct points in the frame they are cut in, with dense ranks per axis.

    ``pxy``: the distinct points (frame order), ``pw`` their weights and
    ``row_point`` the point of every input row; ``rx``, ``ry``: each point's
    rank along x and y; ``x``: longitudes unwrapped across the antimeridian
    (for spreads); ``box``: the outer bounds tiled. :meth:`rectangles` turns
    boxes of rank boundaries into published coordinates.
    """

    pxy: np.ndarray
    pw: np.ndarray
    row_point: np.ndarray
    rx: np.ndarray
    ry: np.ndarray
    x: np.ndarray
    y_order: np.ndarray
    box: tuple
    merged: bool
    x_ends: tuple       # lowest and highest coordinate of every x rank
    y_ends: tuple
    seam_rank: int | None

    def rectangles(self, boxes: np.ndarray, threads: int = 1) -> np.ndarray:
        """(xmin, ymin, xmax, ymax) of boxes of rank boundaries (x_lo, x_hi, y_lo, y_hi);
        with ``threads`` > 1, each axis in a thread of its own."""
        (xl, xh), (yl, yh), box = self.x_ends, self.y_ends, self.box

        def x_sides():
            return (_boundary_values(xl, xh, boxes[:, 0], box[0], box[2], self.seam_rank),
                    _boundary_values(xl, xh, boxes[:, 1], box[0], box[2], self.seam_rank, upper=True))

        def y_sides():
            return (_boundary_values(yl, yh, boxes[:, 2], box[1], box[3]),
                    _boundary_values(yl, yh, boxes[:, 3], box[1], box[3]))

        if len(runs(len(boxes), threads, 2)) == 2:
            (x0, x1), (y0, y1) = in_threads([x_sides, y_sides])
        else:
            (x0, x1), (y0, y1) = x_sides(), y_sides()
        return np.column_stack([x0, y0, x1, y1])


def rank_frame(xy: np.ndarray, weights, geographic: bool, bounds=None, threads: int = 1) -> RankFrame:
    """The :class:`RankFrame` of checked coordinates: default (padded) or
    given ``bounds``, rotated across the antimeridian where the records are;
    its sorts in ``threads`` threads (the same frame)."""
    return _points_frame(xy, weights, *_distinct(xy, weights, threads), geographic, bounds, threads=threads)


def frame_without(frame: RankFrame, xy: np.ndarray, gone: np.ndarray, geographic: bool, bounds=None,
                  threads: int = 1) -> RankFrame:
    """:func:`rank_frame` of the unit-weight rows of ``xy`` (whose frame is
    ``frame``) but those ``gone``, from ``frame``'s distinct points, already
    sorted (no sort again, unless the frame crosses the antimeridian)."""
    if frame.seam_rank is not None or wraps(frame.box):
        return rank_frame(xy[~gone], None, geographic, bounds, threads)
    pw = frame.pw - np.bincount(frame.row_point[gone], minlength=frame.pw.size).astype(frame.pw.dtype)
    alive = pw > 0
    renumber = np.cumsum(alive) - 1
    y_order = renumber[frame.y_order[alive[frame.y_order]]]
    return _points_frame(xy[~gone], None, frame.pxy[alive], pw[alive], renumber[frame.row_point[~gone]], geographic,
                         bounds, y_order)


def _points_frame(xy, weights, pxy, pw, row_point, geographic: bool, bounds, y_order=None,
                  threads: int = 1) -> RankFrame:
    """:func:`rank_frame` of the distinct points ``pxy`` (sorted by (x, y);
    ``y_order``: their order by y, ties by x, if known) of the rows ``xy``."""
    if bounds is None:
        box = default_bounds(pxy[:, 0], float(pxy[:, 1].min()), float(pxy[:, 1].max()), geographic)
    else:
        check_contains(bounds, pxy[:, 0], pxy[:, 1])
        box = bounds
    seam = None
    if wraps(box):
        pxy, pw, row_point, seam = _rotate(xy, weights, pxy, pw, row_point, box[0])
        y_order = None
    x = pxy[:, 0] if seam is None else np.r_[pxy[:seam, 0], pxy[seam:, 0] + 360.0]
    xl, xh, rx, x_merged = _axis_ranks(pxy[:, 0], seam=seam)
    y_order = argsort(pxy[:, 1], threads, stable=True) if y_order is None else y_order
    yl, yh, ry, y_merged = _axis_ranks(pxy[:, 1], y_order)
    seam_rank = None if seam is None or rx[seam] == rx[seam - 1] else int(rx[seam])
    return RankFrame(pxy=pxy, pw=pw, row_point=row_point, rx=rx, ry=ry, x=x, y_order=y_order,
                     box=tuple(float(v) for v in box), merged=x_merged or y_merged, x_ends=(xl, xh),
                     y_ends=(yl, yh), seam_rank=seam_rank)


def _distinct(xy: np.ndarray, weights, threads: int = 1):
    """Distinct points sorted by (x, y), their weights (records) and the point
    of each row: one sort (in ``threads`` threads) of the coordinate pairs
    viewed as complex numbers, which numpy orders lexicographically."""
    pairs = xy.view(np.complex128).ravel()
    order = argsort(pairs, threads)
    sorted_pairs = pairs[order]
    new = np.empty(len(order), dtype=bool)
    new[0] = True
    np.not_equal(sorted_pairs[1:], sorted_pairs[:-1], out=new[1:])
    point_of_sorted = np.cumsum(new) - 1
    row_point = np.empty(len(xy), dtype=np.int64)
    row_point[order] = point_of_sorted
    total = len(xy) if weights is None else int(weights.sum())
    weight_t = np.int32 if total < 2**31 - 1 else np.int64
    pw = np.bincount(point_of_sorted, weights=None if weights is None else weights[order]).astype(weight_t)
    return sorted_pairs[new].view(np.float64).reshape(-1, 2), pw, row_point


def _rotate(xy, weights, pxy, pw, row_point, west: float):
    """The distinct points in the order of a frame that starts at longitude
    ``west`` and crosses the antimeridian: first those at x >= west, then
    those east of ±180 (each part sorted by (x, y)); -180 is read as 180, one
    meridian. Also returns ``seam``, the position of the first point east of
    the antimeridian (None when all points lie on one side)."""
    if (pxy[:, 0] == -180).any():
        xy = xy.copy()
        xy[xy[:, 0] == -180, 0] = 180.0
        pxy, pw, row_point = _distinct(xy, weights)
    n = len(pxy)
    first = int(np.searchsorted(pxy[:, 0], west, side="left"))
    if first in (0, n):   # all on one side: already in frame order
        return pxy, pw, row_point, None
    order = np.r_[first:n, 0:first]
    position = np.empty(n, dtype=np.int64)
    position[order] = np.arange(n)
    return pxy[order], pw[order], position[row_point], n - first


def _axis_ranks(values: np.ndarray, order: np.ndarray | None = None, seam: int | None = None):
    """Dense ranks of coordinates along one axis, given their sort order
    (``order``; None: already sorted, or for longitudes in a frame across the
    antimeridian, sorted on each side of position ``seam``). Values one float
    apart share a rank: no boundary fits between them. Returns the lowest and
    the highest value of each rank, the rank of each value, and whether two
    distinct values share a rank."""
    v = values if order is None else values[order]
    step = np.empty(len(v), dtype=bool)
    step[0] = False
    np.greater(v[1:], np.nextafter(v[:-1], np.inf), out=step[1:])
    if seam is not None:   # 180 (-180) and the next float east of it share a rank
        step[seam] = not (v[seam - 1] == 180 and v[seam] == np.nextafter(-180.0, 0.0))
    ranks = np.cumsum(step, dtype=np.int64)
    merged = int(ranks[-1]) < int(np.count_nonzero(v[1:] != v[:-1]))
    if order is not None:
        ranks[order] = ranks.copy()
    first = step.copy()
    first[0] = True
    last = np.append(first[1:], True)
    return v[first], v[last], ranks, merged


def _boundary_values(lows, highs, boundary, lo: float, hi: float, seam=None, upper=False) -> np.ndarray:
    """Coordinates of rank boundaries: ``lo`` / ``hi`` at the ends, else the
    shortest decimal in the middle half of the gap between the two ranks it
    separates (away from both records: a cut, not a record). The
    boundary before rank ``seam`` crosses the antimeridian: it lies at ±180
    (180 as an upper edge, -180 as a lower one) unless a record is there."""
    distinct, where = np.unique(boundary, return_inverse=True)
    out = np.where(distinct == 0, lo, hi).astype(np.float64)
    inner = np.flatnonzero((distinct > 0) & (distinct < len(lows)))
    b = distinct[inner]
    gap = lows[b] - highs[b - 1]
    below, above = highs[b - 1], lows[b]
    edge = shortest_decimal_between(below + gap / 4, above - gap / 4)
    inside = (edge > below) & (edge < above)     # a gap of a few floats: its decimal may round onto a record
    out[inner] = np.where(inside, edge, np.nextafter(below, np.inf))   # ranks are two floats apart at least
    at = inner[b == seam] if seam is not None else inner[:0]
    if at.size:
        out[at] = ((180.0 if upper else -180.0) if highs[seam - 1] < 180
                   else shortest_decimal_between(np.array([-180.0]), lows[seam:seam + 1])[0])
    return out[where]
