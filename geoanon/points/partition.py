"""GPS coordinates generalized into disjoint axis-aligned rectangles (Du, Eppstein,
Goodrich and Lueker, Section 3, Theorem 2)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .._validation import check_choice, check_k, check_total, check_weights
from ..errors import DataError, VerificationError
from ..partition import Partition, count_lower_bound
from .kdtree import POLICIES, kd_partition
from .repair import repair

METHODS = POLICIES
SLACK_PERCENT = 5               # balanced aims at classes of at most (1 + 5%) k ...
EXACT_FIRST_POINTS = 200_000    # ... after trying the lower bound itself on instances this small
MAX_PASSES = 5                  # passes of the search for a reachable target


@dataclass(frozen=True, eq=False, repr=False)
class RectanglePartition(Partition):
    """A :class:`~geoanon.partition.Partition` of points into rectangles.

    Class ``c`` is the rectangle ``rectangles[c] = (xmin, ymin, xmax, ymax)``,
    half-open: it holds the points with ``xmin <= x < xmax`` and
    ``ymin <= y < ymax``, closed on the sides that lie on the outer boundary
    ``bounds``. The rectangles are disjoint and tile ``bounds``.
    """

    xy: np.ndarray = field(default=None)          # (n, 2) coordinates of the elements
    rectangles: np.ndarray = field(default=None)  # (n_classes, 4)
    bounds: tuple = field(default=None)           # (xmin, ymin, xmax, ymax) tiled
    crs: Any = None

    def contains(self, xy: np.ndarray, classes: np.ndarray) -> np.ndarray:
        """Whether each point lies in the rectangle of its class (half-open rule)."""
        r = self.rectangles[classes]
        inside = np.ones(len(xy), dtype=bool)
        for axis in (0, 1):
            lo, hi, v = r[:, axis], r[:, axis + 2], xy[:, axis]
            inside &= (lo <= v) & ((v < hi) | ((v == hi) & (hi == self.bounds[axis + 2])))
        return inside

    def _verify_kind(self) -> None:
        """Rectangles contain their points, are pairwise disjoint and tile the bounds."""
        import shapely

        outside = np.flatnonzero(~self.contains(self.xy, self.labels))
        if outside.size:
            i = int(outside[0])
            raise VerificationError(f"point {i} {tuple(self.xy[i])} lies outside its rectangle {int(self.labels[i])}")
        r = self.rectangles
        if (r[:, 2] < r[:, 0]).any() or (r[:, 3] < r[:, 1]).any():
            raise VerificationError("a rectangle has negative extent")
        tree = shapely.STRtree(shapely.box(r[:, 0], r[:, 1], r[:, 2], r[:, 3]))
        a, b = tree.query(shapely.box(r[:, 0], r[:, 1], r[:, 2], r[:, 3]), predicate="intersects")
        a, b = a[a < b], b[a < b]
        overlap = np.ones(a.size, dtype=bool)
        for axis in (0, 1):
            lo = np.maximum(r[a, axis], r[b, axis])
            hi = np.minimum(r[a, axis + 2], r[b, axis + 2])
            closed = (r[a, axis + 2] == self.bounds[axis + 2]) & (r[b, axis + 2] == self.bounds[axis + 2])
            overlap &= (lo < hi) | (closed & (lo <= hi))
        if overlap.any():
            i = int(np.flatnonzero(overlap)[0])
            raise VerificationError(f"rectangles {int(a[i])} and {int(b[i])} overlap")
        width = self.bounds[2] - self.bounds[0]
        height = self.bounds[3] - self.bounds[1]
        areas = (r[:, 2] - r[:, 0]) * (r[:, 3] - r[:, 1])
        if width > 0 and height > 0 and not np.isclose(areas.sum(), width * height, rtol=1e-9, atol=0):
            raise VerificationError("the rectangles do not tile the bounds")

    def to_geodataframe(self):
        """The classes as a GeoDataFrame: ``class_id``, ``weight``, rectangle geometry."""
        import geopandas as gpd
        import shapely

        r = self.rectangles
        return gpd.GeoDataFrame(
            {"class_id": np.arange(self.n_classes), "weight": self.weights},
            geometry=shapely.box(r[:, 0], r[:, 1], r[:, 2], r[:, 3]),
            crs=self.crs,
        )


def partition_points(xy, k, weights=None, *, method="balanced", crs="EPSG:4326", bounds=None) -> RectanglePartition:
    """Partition points into disjoint axis-aligned rectangles holding >= k records each.

    Parameters
    ----------
    xy : array_like, shape (n, 2)
        Coordinates, one row per record or per weighted point: longitude/latitude
        (x, y order) by default, or projected x/y.
    k : int
        Every class (rectangle) holds at least ``k`` records.
    weights : array_like of int, shape (n,), optional
        Records per row (default 1 each). Rows at identical coordinates are one
        point whose weight is their sum; they always share a class.
    method : {"balanced", "paper"}
        ``"paper"`` is the kd-tree rule of Theorem 2 (Du, Eppstein, Goodrich and
        Lueker, Section 3): alternate axes, cut at the weighted median, and keep
        cutting while some axis-parallel cut leaves weight >= k on both sides.
        ``"balanced"`` (default) keeps the same stopping rule but picks, on both
        axes, the cut whose two sides can best be divided into classes no heavier
        than a target near the lower bound (for unit weights: cuts at multiples of
        k), looking one level ahead for sides that must become two classes, then
        preferring the axis of wider spread and the cut nearest the median. Any
        class left above the target is repaired by an exact search over the
        guillotine partitions of a small region around it.
    crs : str, pyproj.CRS or None
        Coordinate reference system of ``xy`` (default ``"EPSG:4326"``, x = longitude,
        y = latitude). Geographic coordinates must lie in [-180, 180] x [-90, 90].
        ``None`` means plain planar coordinates.
    bounds : (xmin, ymin, xmax, ymax), optional
        The region the rectangles tile (default: the points' bounding box). A
        wider region keeps the extreme records' coordinates out of the output.

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

    Cuts run between consecutive distinct coordinates at the decimal with the
    fewest digits strictly between them, so boundaries are short round numbers
    and never a record's coordinate. The result is deterministic.
    """
    k = check_k(k)
    method = check_choice("method", method, METHODS)
    xy = check_coordinates(xy, crs)
    w = check_weights(weights, len(xy))
    check_total(int(w.sum()), k)

    # Distinct points, sorted by (x, y): one sort of the coordinate pairs viewed
    # as complex numbers, which numpy orders lexicographically.
    pairs = xy.view(np.complex128).ravel()
    order = np.argsort(pairs)
    sorted_pairs = pairs[order]
    new = np.empty(len(order), dtype=bool)
    new[0] = True
    np.not_equal(sorted_pairs[1:], sorted_pairs[:-1], out=new[1:])
    point_of_sorted = np.cumsum(new) - 1
    row_point = np.empty(len(xy), dtype=np.int64)
    row_point[order] = point_of_sorted
    pxy = sorted_pairs[new].view(np.float64).reshape(-1, 2)
    total = int(w.sum())
    weight_t = np.int32 if total < 2**31 - 1 else np.int64
    pw = np.bincount(point_of_sorted, weights=None if weights is None else w[order]).astype(weight_t)

    ux, rx = _dense_ranks(pxy[:, 0])
    y_order = np.argsort(pxy[:, 1])
    uy, ry = _dense_ranks(pxy[:, 1], y_order)
    box = _check_bounds(bounds, (ux[0], uy[0], ux[-1], uy[-1]))
    lower_bound = count_lower_bound(total, k, int(pw.max()))
    if method == "balanced":
        leaf_of_point, boxes = _balanced_leaves(rx, ry, pxy, pw, k, lower_bound, y_order)
    else:
        tree = kd_partition(rx, ry, pxy[:, 0], pxy[:, 1], pw, k, lower_bound, method, y_order=y_order)
        leaf_of_point, boxes = tree.label, tree.box[tree.leaves]

    edges = np.column_stack([
        _boundary_values(ux, boxes[:, 0], box[0], box[2]),
        _boundary_values(uy, boxes[:, 2], box[1], box[3]),
        _boundary_values(ux, boxes[:, 1], box[0], box[2]),
        _boundary_values(uy, boxes[:, 3], box[1], box[3]),
    ])
    # Number classes deterministically by their lower-left corner.
    rank = np.empty(len(edges), dtype=np.int64)
    rank[np.lexsort((edges[:, 0], edges[:, 1]))] = np.arange(len(edges))
    return RectanglePartition(
        labels=rank[leaf_of_point[row_point]],
        element_weights=w,
        k=k,
        lower_bound=lower_bound,
        method=method,
        params={"crs": None if crs is None else str(crs)},
        xy=xy,
        rectangles=edges[np.argsort(rank)],
        bounds=box,
        crs=crs,
    )


def check_coordinates(xy, crs, row_names=None) -> np.ndarray:
    """(n, 2) finite float64 coordinates, geographic ones within range, or DataError.

    ``row_names`` (default: positions) name the rows in error messages.
    """
    try:
        a = np.asarray(xy, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise DataError(f"coordinates must be numeric: {exc}") from None
    if a.ndim != 2 or a.shape[1] != 2:
        raise DataError(f"coordinates must have shape (n, 2), got {a.shape}")
    if a.shape[0] == 0:
        raise DataError("no points given")

    def name(i):
        return f"row {i}" if row_names is None else f"row {row_names[i]!r}"

    bad = ~np.isfinite(a).all(axis=1)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise DataError(f"{int(bad.sum())} points have NaN or infinite coordinates "
                        f"(first: {name(i)}, x={a[i, 0]!r}, y={a[i, 1]!r})")
    if crs is not None and _is_geographic(crs):
        out = (np.abs(a[:, 0]) > 180) | (np.abs(a[:, 1]) > 90)
        if out.any():
            i = int(np.flatnonzero(out)[0])
            raise DataError(
                f"{int(out.sum())} points lie outside longitude [-180, 180] / latitude [-90, 90] "
                f"(first: {name(i)}, lon={a[i, 0]!r}, lat={a[i, 1]!r})")
    return np.ascontiguousarray(a + 0.0)  # -0.0 becomes 0.0: equal coordinates are one point


def _is_geographic(crs) -> bool:
    from pyproj import CRS
    from pyproj.exceptions import CRSError

    try:
        return CRS.from_user_input(crs).is_geographic
    except CRSError as exc:
        raise DataError(f"unknown crs {crs!r}: {exc}") from None


def _check_bounds(bounds, extent) -> tuple:
    """The tiled region: ``bounds`` if it contains the data's ``extent``, else an error."""
    lo, hi = extent[:2], extent[2:]
    if bounds is None:
        return tuple(float(v) for v in extent)
    try:
        b = tuple(float(v) for v in bounds)
    except (TypeError, ValueError):
        raise DataError(f"bounds must be (xmin, ymin, xmax, ymax), got {bounds!r}") from None
    if len(b) != 4 or not (b[0] <= lo[0] and b[1] <= lo[1] and b[2] >= hi[0] and b[3] >= hi[1]):
        raise DataError(f"bounds {bounds!r} must contain every point (data spans "
                        f"{lo[0]!r}, {lo[1]!r}, {hi[0]!r}, {hi[1]!r})")
    return b


def _balanced_leaves(rx, ry, pxy, pw, k, lower_bound, y_order):
    """Leaves of the balanced rule: greedy kd cuts aimed at a target T, exact
    repair of the leaves above T, and a short search for a T the data can meet.

    Aiming exactly at the lower bound leaves no slack (with a total weight that
    is a multiple of k every class would have to weigh exactly k), and classes
    grow by whole points, so a window [k, T] narrower than a typical point is
    easily stepped over. The targets tried, lowest first, are the lower bound,
    ``(1 + 5%) k`` and ``k + s - 1`` with s the weight of a typical point (the
    records' 75th percentile); the first pass that meets its target wins.
    Instances over ``EXACT_FIRST_POINTS`` points start at the last. Coarse data
    (records on a lattice of heavy cells) may meet none: then T is raised
    halfway to the result and bisected, at most ``MAX_PASSES`` passes in all
    (two on larger instances), and the best pass is kept.
    """
    def run(target):
        tree = kd_partition(rx, ry, pxy[:, 0], pxy[:, 1], pw, k, target, "balanced",
                            y_order=y_order, exact=lower_bound)
        label, boxes, weights = repair(tree, rx, ry, pw, k, target)
        return int(weights.max()), label, boxes

    plain = max(lower_bound, -(-k * (100 + SLACK_PERCENT) // 100))
    coarse = max(plain, k + _record_quantile(pw, 0.75) - 1)
    small = len(pw) <= EXACT_FIRST_POINTS
    schedule = sorted({lower_bound, plain, coarse}) if small else [coarse]
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


def _dense_ranks(values: np.ndarray, order: np.ndarray | None = None):
    """Distinct values (sorted) and the dense rank of each value, given its sort
    order (``None``: already sorted)."""
    v = values if order is None else values[order]
    step = np.empty(len(v), dtype=bool)
    step[0] = False
    np.not_equal(v[1:], v[:-1], out=step[1:])
    ranks = np.cumsum(step, dtype=np.int64)
    if order is not None:
        ranks[order] = ranks.copy()
    step[0] = True
    return v[step], ranks


def _boundary_values(values: np.ndarray, boundary: np.ndarray, lo: float, hi: float) -> np.ndarray:
    """Coordinates of rank boundaries: ``lo`` / ``hi`` at the ends, else the
    shortest decimal strictly between the two distinct values it separates."""
    distinct, where = np.unique(boundary, return_inverse=True)
    out = np.where(distinct == 0, lo, hi).astype(np.float64)
    inner = (distinct > 0) & (distinct < len(values))
    b = distinct[inner]
    out[inner] = shortest_decimal_between(values[b - 1], values[b])
    return out[where]


def shortest_decimal_between(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """For a < b elementwise, the number with the fewest significant decimal digits
    in the open interval (a, b), nearest the midpoint among those; ``b`` itself
    when no float lies strictly between."""
    out = b.astype(np.float64).copy()
    if a.size == 0:
        return out
    # Grid steps from one decade above the largest magnitude (where only 0 can
    # fall inside an interval) down to 1e-17 (finer than float64 resolves here).
    magnitude = max(float(np.abs(a).max()), float(np.abs(b).max()), 1e-300)
    todo = np.ones(a.shape, dtype=bool)
    for d in range(-int(np.ceil(np.log10(magnitude))) - 1, 18):
        idx = np.flatnonzero(todo)
        if idx.size == 0:
            break
        aa, bb = a[idx], b[idx]
        scale = 10.0 ** abs(d)
        up, down = (lambda v: v * scale, lambda v: v / scale) if d >= 0 else (lambda v: v / scale, lambda v: v * scale)
        lo, hi = np.floor(up(aa)) + 1, np.ceil(up(bb)) - 1
        c = down(np.clip(np.round(up((aa + bb) / 2)), lo, hi))
        ok = (lo <= hi) & (aa < c) & (c < bb)
        out[idx[ok]] = c[ok]
        todo[idx[ok]] = False
    return out
