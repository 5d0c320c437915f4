"""How a points location's classes are published: rectangles on a grid
that grows with them (:mod:`geoanon.points.edges`), or their tiles."""
from __future__ import annotations

from functools import partial

import numpy as np

from ... import _threads
from ..._forked import beside
from ..._geo import ground
from ...joint.dims import RankDim
from ...points.edges import coarsest_step, window
from .classes import location_classes
from .kind import Publisher

__all__ = ["PointsPublisher"]


class PointsPublisher(Publisher):
    """Rectangles of the location classes, as ``{lat}_min ... {lon}_max``;
    ``padded``: the frame is the records' box padded out (no bounds given),
    whose edges no box may be clipped to. ``fine_cuts``: after tiles are
    published, how many of their sides between classes are cuts finer than
    their tile's width over max(k, 3), and how many such sides there are.
    It withholds isolated records (:meth:`isolated`)."""

    boxes = withholds = True

    def __init__(self, lat, lon, frame, columns, crs, geographic, padded=True):
        self.lat, self.lon, self.frame, self.crs, self.geographic = lat, lon, frame, crs, geographic
        self.padded = padded
        first, second = sorted((lat, lon), key=columns.index)
        self.first, self.dropped = first, frozenset({second})
        self.rects = None
        self._isolated = None       # the last isolated(): (rows with a location class, k), its result

    def class_km(self, dims, part, crs) -> np.ndarray:
        """Each class's box diagonal in km, as published (NaN: no box)."""
        return self.states_km(dims, part.columns, crs, own_boxes=not part.shared_location)

    def states_km(self, dims, columns: list, crs, own_boxes: bool = True) -> np.ndarray:
        """The box diagonal in km of classes whose states are ``columns``
        (:func:`~geoanon.joint.dims.state_columns`), as published (NaN: no
        box); ``own_boxes`` as :meth:`rectangles` takes it."""
        boxes = self.rectangles(dims, _location_columns(columns), own_boxes=own_boxes)
        return ground(crs).extents(*boxes.T)[2]

    def rectangles(self, dims, states, own_boxes: bool = False, tiles=None) -> np.ndarray:
        """(xmin, ymin, xmax, ymax) per state (each class's states, or the
        (n, 2, 4) array of :func:`_location_states`); NaN where the location is
        missing. ``own_boxes``: every class publishes its own records' box
        (the joint design's, which may overlap others'). Else a box (``"grid"``) is its records' box on the grid of
        :mod:`geoanon.points.edges`, held inside its tile where the tile's
        edge (a cut between two classes, or given bounds) lies on a grid of at
        least the box's width over max(k, 3) (a finer cut, in a narrow gap,
        would tell its neighbouring records to within the gap, and a dask
        shard's bounds are such cuts: the box crosses it instead); a padded frame's
        outer edges, drawn from the table's extreme records, never bound a
        box (a box held to one would tell its extreme record is the table's,
        and by how much the padding allows). A tile (``"tile"``) ends at its
        cuts, and where it reaches a padded frame's outer edge, at its
        records' box on that grid instead. ``tiles``: the frame's rectangles
        of the states' tiles, where the caller has them (a partition's)."""
        dx, dy = dims.items[0], dims.items[1]
        out = np.full((len(states), 4), np.nan)
        axes = _location_states(states)
        boxes = axes[:, :, :2].reshape(-1, 4)
        known = (boxes[:, 1] <= dx.size) & (boxes[:, 3] <= dy.size) & (boxes[:, 0] < dx.size)
        if not known.any():
            return out
        (vx, sx), (vy, sy) = (_held_box(d, axes[known, i]) for i, d in enumerate((dx, dy)))
        east = _eastward if self.geographic else np.asarray    # longitudes go round the circle, eastings do not
        if self.geographic:
            vx, sx = _wrapped(vx), _wrapped(sx)
        if dx.extent == "grid" and own_boxes:    # classes' boxes may overlap: each its own
            out[known] = np.column_stack([sx[:, 0], sy[:, 0], sx[:, 1], sy[:, 1]])
            return out
        tiles = self.frame.rectangles(boxes[known]) if tiles is None else tiles[known]
        b = boxes[known]
        open_x = self.padded and self.frame.box[0] <= self.frame.box[2]     # a frame across ±180 ends at a cut
        outer = [(b[:, 0] == 0) & open_x, (b[:, 2] == 0) & self.padded, (b[:, 1] == dx.size) & open_x,
                 (b[:, 3] == dy.size) & self.padded]
        if dx.extent == "tile":
            for side, (d, extreme, own) in enumerate(((dx, vx[:, 0], sx[:, 0]), (dy, vy[:, 0], sy[:, 0]),
                                                      (dx, vx[:, 1], sx[:, 1]), (dy, vy[:, 1], sy[:, 1]))):
                far = tiles[:, (side + 2) % 4]
                edge = np.where(outer[(side + 2) % 4], own, _outer_edge(d, extreme, far, side < 2))
                tiles[:, side] = np.where(outer[side], edge, tiles[:, side])
            widths = (east(tiles[:, 2] - tiles[:, 0]), tiles[:, 3] - tiles[:, 1])
            cuts = [~outer[side] for side in range(4)]
            fine = [_fine(tiles[:, side], widths[side % 2], dx.k) & cuts[side] for side in range(4)]
            self.fine_cuts = (int(sum(f.sum() for f in fine)), int(sum(c.sum() for c in cuts)))
            out[known] = tiles
            return out
        # a cut (or given bounds: a shard's are cuts) nearer the records than the grid's edge, going outward
        # (eastward round the circle in longitude), on a grid of at least the box's width over max(k, 3)
        near = [east(vx[:, 0] - tiles[:, 0]) <= east(vx[:, 0] - sx[:, 0]), tiles[:, 1] > sy[:, 0],
                east(tiles[:, 2] - vx[:, 1]) <= east(sx[:, 1] - vx[:, 1]), tiles[:, 3] < sy[:, 1]]
        grid = (sx[:, 0], sy[:, 0], sx[:, 1], sy[:, 1])
        widths = (east(sx[:, 1] - sx[:, 0]), sy[:, 1] - sy[:, 0])
        for side in range(4):
            cut = near[side] & ~outer[side] & ~_fine(tiles[:, side], widths[side % 2], dx.k)
            tiles[:, side] = np.where(cut, tiles[:, side], grid[side])
        out[known] = tiles
        return out

    def isolated(self, dims, labels: np.ndarray, k: int, threads: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """Which rows with a location class (``labels``: each row's, -1 for
        none) are isolated in the table (:mod:`geoanon.points.isolated`), and
        how far the k records nearest each reach, in km (on the ground,
        :meth:`geoanon._geo.Ground.positions`), searched in ``threads``
        threads. Releases of one table whose rows with a location class are
        the same (:func:`geoanon.explore`'s) measure it once."""
        placed = labels >= 0
        if self._isolated is None or self._isolated[0][1] != k or not np.array_equal(self._isolated[0][0], placed):
            self._isolated = ((placed, k), self._measured(dims, placed, k, threads))
        return self._isolated[1]

    def isolated_beside(self, dims, k: int, n_jobs: int, work):
        """``work()``, in this process, while a forked worker (with ``n_jobs``
        > 1) measures :meth:`isolated` for every row placed, which the joint
        design's search places unless it suppresses records; a search that
        places other rows measures them again. Returns ``work()``."""
        placed = np.ones(dims.items[0].rank.size, dtype=bool)
        found, out = beside(lambda: self._measured(dims, placed, k), work, n_jobs)
        self._isolated = ((placed, k), found)
        return out

    def _measured(self, dims, placed: np.ndarray, k: int, threads: int = 1) -> tuple:
        """:meth:`isolated` of the rows ``placed``."""
        from ...points.isolated import isolated_rows

        found = _threads.in_threads([partial(_placed_positions, dims, placed, a, b, self.crs)
                                     for a, b in _threads.runs(placed.size, threads)])
        x, y, where = (parts[0] if len(parts) == 1 else np.concatenate(parts) for parts in zip(*found))
        held = ~np.isnan(x)
        y_km = float(ground(self.crs).axis_km(np.median(x[held]), np.median(y[held]))[1]) if held.any() else 0.0
        grid = max(max(d.resolution, d.min_step) for d in dims.items[:2]) * y_km
        return isolated_rows(where, k, grid, threads)

    def columns(self, df, part, dims):
        self.rects = self.rectangles(dims, _location_columns(part.columns), own_boxes=not part.shared_location)
        r = self.rects[part.row_class]
        lat, lon = self.lat, self.lon
        cols = {f"{lat}_min": r[:, 1], f"{lat}_max": r[:, 3], f"{lon}_min": r[:, 0], f"{lon}_max": r[:, 2]}
        ncp = {lat: ("interval", (f"{lat}_min", f"{lat}_max")),
               lon: ("longitude" if self.geographic else "interval", (f"{lon}_min", f"{lon}_max"))}
        return {self.first: cols}, ncp

    def unit_keywords(self, part) -> dict:
        """:func:`geoanon.ncp.plain_units`' keywords: the boxes measured in km."""
        return {"location": (self.lat, self.lon), "crs": self.crs}

    def classes(self, table, part, published):
        import geopandas as gpd

        from ...points.frame import rectangle_shapes

        loc_rects = np.full((part.location_classes, 4), np.nan)
        loc_rects[part.location_class] = self.rects
        shapes = np.full(len(loc_rects), None, dtype=object)
        known = ~np.isnan(loc_rects).any(axis=1)
        shapes[known] = rectangle_shapes(loc_rects[known])
        classes = location_classes(table, part, published)
        classes = gpd.GeoDataFrame(classes, geometry=shapes, crs=self.crs)

        def row_shapes():
            rows = np.full(len(table), None, dtype=object)
            inside = known[part.location_class[part.row_class]]
            rows[inside] = rectangle_shapes(self.rects[part.row_class][inside])
            return gpd.GeoSeries(rows, index=table.index, crs=self.crs)

        return classes[classes.geometry.notna()].reset_index(drop=True), row_shapes


def _fine(edges: np.ndarray, widths: np.ndarray, k: int) -> np.ndarray:
    """Whether each edge lies on no grid as coarse as its box's width over
    max(k, 3) (:func:`geoanon.points.edges.window`): a cut that would tell
    the records beside it to within less than that."""
    least = window(widths, k)
    return coarsest_step(edges, 2 * least, least * (1 - 1e-9)) < least * (1 - 1e-9)


def _location_states(states) -> np.ndarray:
    """The states of the location's two axes, each ``(lo, hi, first, end)``
    (:class:`RankDim`), as an (n, 2, 4) array: ``states`` itself when it is
    one, else from each class's states (the location's two first)."""
    if isinstance(states, np.ndarray):
        return states
    return np.array([st[:2] for st in states], dtype=np.int64).reshape(-1, 2, 4)


def _location_columns(columns: list) -> np.ndarray:
    """:func:`_location_states` of classes, from their state columns (:func:`~geoanon.joint.dims.state_columns`)."""
    return np.stack(columns[:2], axis=1).astype(np.int64, copy=False).reshape(-1, 2, 4)


def _held_box(d: RankDim, st: np.ndarray) -> tuple:
    """The least and greatest value the classes' records hold, and their
    box's edges on the grid (:meth:`RankDim.box_edges`), for their states
    along ``d`` (n x 4): two (n, 2) arrays."""
    return np.column_stack([d.low[st[:, 2]], d.high[st[:, 3] - 1]]), np.column_stack(d.box_edges(st))


def _outer_edge(d: RankDim, extreme: np.ndarray, far: np.ndarray, lower: bool) -> np.ndarray:
    """A tile's side on a padded frame's edge, published instead on the grid
    of :mod:`geoanon.points.edges` beyond its extreme record, the step grown
    with the tile's width from that record to its far side (its cut), so the
    edge tells no more of that record than the tile over k does."""
    from ...points.edges import snap_steps, snapped

    steps = snap_steps(np.abs(far - extreme) * max(d.k - 2, 1) / (max(d.k, 3) - 1), d.k,
                       max(d.step or d.resolution, d.min_step))
    lo, hi = snapped(extreme, extreme, steps)
    return lo if lower else hi


def _eastward(d: np.ndarray) -> np.ndarray:
    """Longitude differences as the arc eastward, in [0, 360)."""
    return d % 360


def _wrapped(x: np.ndarray) -> np.ndarray:
    """Longitudes unwrapped past 180 (across the antimeridian) back into
    [-180, 180]; an upper edge keeps 180. An edge moved by 360 keeps its
    decimals (-104.7, not -104.69999999999999)."""
    lo, hi = x[:, 0], x[:, 1]
    lo = np.where(lo >= 180, np.round(lo - 360, 12), lo)
    hi = np.where(hi > 180, np.round(hi - 360, 12), hi)
    return np.column_stack([lo, hi])


def _placed_positions(dims, placed: np.ndarray, start: int, end: int, crs) -> tuple:
    """The rows ``start:end``'s x and y (their rank's lowest value; NaN
    without a location or not ``placed``) and their positions on the ground."""
    x, y = (np.where(d.rank[start:end] < d.size, d.low[np.minimum(d.rank[start:end], d.size - 1)], np.nan)
            for d in dims.items[:2])
    x = np.where(placed[start:end], x, np.nan)
    return x, y, ground(crs).positions(x, y)
