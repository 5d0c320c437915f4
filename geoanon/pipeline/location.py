"""The location of a joint release as dimensions of the search, and how its
classes are published: rectangles for points, connected groups for regions,
groups of labels for a label column."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._cells import escape_formulas
from .._geo import KM_PER_DEGREE, ground_diagonal, km_per_unit
from .._text import plural, show
from ..errors import InfeasibleError, ParameterError
from ..joint.dims import Dims, RankDim, tree_from_paths
from ..joint.km_loss import FLOOR, k_spacing, node_diameters, spacing, tree_km_costs
from .regions import code_width, km_spread, region_boxes, region_graph, region_values, rolled_values
from ..points.edges import coarsest_step, window
from ..points.frame import RELATIVE_SCALE
from .naming import graph_group_names, label_group_names

__all__ = ["NoLocation", "PointsPublisher", "default_resolution", "finest_step", "ground_spans", "group_location",
           "points_location", "robust_spans"]

TOOLTIP_CLASSES = 6      # classes listed in a location class's tooltip


class NoLocation:
    """No location column: nothing to publish, no map."""

    dropped: frozenset = frozenset()

    def columns(self, df, part, dims):
        return {}, {}

    def unit_keywords(self, part) -> dict:
        return {}

    def classes(self, table, part, published):
        return None, None


def points_location(df, loc, missing, crs, bounds, warnings, extent="box", resolution=None, k=1):
    """Longitude and latitude as two ordered location dimensions, cut in the
    frame of :func:`geoanon.partition_points` (padded bounds, antimeridian).
    ``extent="tile"`` publishes each location class's tile; ``"box"`` its
    records' box on a grid that grows with it (:mod:`geoanon.points.edges`,
    for the model's ``k``; the least step ``resolution``, default
    :func:`default_resolution` per axis, and at least k times the
    coordinates' own resolution), inside the tile."""
    from ..points.edges import coordinate_resolution
    from ..points.frame import check_bounds
    from .._geo import is_geographic
    from ..points.partition import check_coordinates, rank_frame
    from .coordinates import null_island, numeric_column, rows_without_coordinates

    lat, lon = loc["lat"], loc["lon"]
    if lat == lon:
        raise ParameterError(f"lat and lon name the same column {show(lat)}")
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


class PointsPublisher:
    """Rectangles of the location classes, as ``{lat}_min ... {lon}_max``;
    ``padded``: the frame is the records' box padded out (no bounds given),
    whose edges no box may be clipped to. ``fine_cuts``: after tiles are
    published, how many of their sides between classes are cuts finer than
    their tile's width over max(k, 3), and how many such sides there are."""

    fine_cuts = (0, 0)

    def __init__(self, lat, lon, frame, columns, crs, geographic, xy, padded=True):
        self.lat, self.lon, self.frame, self.crs, self.geographic = lat, lon, frame, crs, geographic
        self.padded = padded
        first, second = sorted((lat, lon), key=columns.index)
        self.first, self.dropped = first, frozenset({second})
        self.xy = xy
        self.rects = None

    def rectangles(self, dims, states, own_boxes: bool = False) -> np.ndarray:
        """(xmin, ymin, xmax, ymax) per state; NaN where the location is
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
        records' box on that grid instead."""
        dx, dy = dims.items[0], dims.items[1]
        out = np.full((len(states), 4), np.nan)
        boxes = np.array([[*st[0][:2], *st[1][:2]] for st in states], dtype=np.int64).reshape(-1, 4)
        known = (boxes[:, 1] <= dx.size) & (boxes[:, 3] <= dy.size) & (boxes[:, 0] < dx.size)
        if not known.any():
            return out
        tiles = self.frame.rectangles(boxes[known])
        held = [st for st, ok in zip(states, known) if ok]
        (vx, sx), (vy, sy) = (_held_box(d, [st[i] for st in held]) for i, d in enumerate((dx, dy)))
        vx, sx = _wrapped(vx), _wrapped(sx)
        if dx.extent == "grid" and own_boxes:    # classes' boxes may overlap: each its own
            out[known] = np.column_stack([sx[:, 0], sy[:, 0], sx[:, 1], sy[:, 1]])
            return out
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
            widths = ((tiles[:, 2] - tiles[:, 0]) % 360, tiles[:, 3] - tiles[:, 1])
            cuts = [~outer[side] for side in range(4)]
            fine = [_fine(tiles[:, side], widths[side % 2], dx.k) & cuts[side] for side in range(4)]
            self.fine_cuts = (int(sum(f.sum() for f in fine)), int(sum(c.sum() for c in cuts)))
            out[known] = tiles
            return out
        # a cut (or given bounds: a shard's are cuts) nearer the records than the grid's edge, going outward
        # (mod 360), on a grid of at least the box's width over max(k, 3)
        near = [(vx[:, 0] - tiles[:, 0]) % 360 <= (vx[:, 0] - sx[:, 0]) % 360, tiles[:, 1] > sy[:, 0],
                (tiles[:, 2] - vx[:, 1]) % 360 <= (sx[:, 1] - vx[:, 1]) % 360, tiles[:, 3] < sy[:, 1]]
        grid = (sx[:, 0], sy[:, 0], sx[:, 1], sy[:, 1])
        widths = ((sx[:, 1] - sx[:, 0]) % 360, sy[:, 1] - sy[:, 0])
        for side in range(4):
            cut = near[side] & ~outer[side] & ~_fine(tiles[:, side], widths[side % 2], dx.k)
            tiles[:, side] = np.where(cut, tiles[:, side], grid[side])
        out[known] = tiles
        return out

    def isolated(self, dims, labels: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Which rows with a location class (``labels``: each row's, -1 for
        none) are isolated in the table (:mod:`geoanon.points.isolated`), and
        how far the k records nearest each reach, in km."""
        from ..points.isolated import ground_positions, isolated_rows

        x, y = (np.where(d.rank < d.size, d.low[np.minimum(d.rank, d.size - 1)], np.nan) for d in dims.items[:2])
        x = np.where(labels >= 0, x, np.nan)
        if self.geographic:
            x_km, y_km = KM_PER_DEGREE * np.cos(np.radians(np.nan_to_num(y))), KM_PER_DEGREE
        else:
            x_km = y_km = km_per_unit(self.crs)
        grid = max(max(d.resolution, d.min_step) for d in dims.items[:2]) * y_km
        return isolated_rows(ground_positions(x, y, x_km, y_km, self.geographic), k, grid)

    def columns(self, df, part, dims):
        self.rects = self.rectangles(dims, part.states, own_boxes=not part.shared_location)
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

        from ..points.frame import rectangle_shapes

        loc_rects = np.full((part.location_classes, 4), np.nan)
        loc_rects[part.location_class] = self.rects
        shapes = np.full(len(loc_rects), None, dtype=object)
        known = ~np.isnan(loc_rects).any(axis=1)
        shapes[known] = rectangle_shapes(loc_rects[known])
        classes = _location_classes(table, part, published)
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
    return coarsest_step(edges, 2 * least) < least * (1 - 1e-9)


def _held_box(d: RankDim, states: list) -> tuple:
    """The least and greatest value the classes' records hold, and their
    box's edges on the grid (:meth:`RankDim.box_edges`): two (n, 2) arrays."""
    st = np.array(states, dtype=np.int64).reshape(-1, 4)
    return np.column_stack([d.low[st[:, 2]], d.high[st[:, 3] - 1]]), np.column_stack(d.box_edges(st))


def _outer_edge(d: RankDim, extreme: np.ndarray, far: np.ndarray, lower: bool) -> np.ndarray:
    """A tile's side on a padded frame's edge, published instead on the grid
    of :mod:`geoanon.points.edges` beyond its extreme record, the step grown
    with the tile's width from that record to its far side (its cut), so the
    edge tells no more of that record than the tile over k does."""
    from ..points.edges import snap_steps, snapped

    steps = snap_steps(np.abs(far - extreme) * max(d.k - 2, 1) / (max(d.k, 3) - 1), d.k,
                       max(d.step or d.resolution, d.min_step))
    lo, hi = snapped(extreme, extreme, steps)
    return lo if lower else hi


def _wrapped(x: np.ndarray) -> np.ndarray:
    """Longitudes unwrapped past 180 (across the antimeridian) back into
    [-180, 180]; an upper edge keeps 180. An edge moved by 360 keeps its
    decimals (-104.7, not -104.69999999999999)."""
    lo, hi = x[:, 0], x[:, 1]
    lo = np.where(lo >= 180, np.round(lo - 360, 12), lo)
    hi = np.where(hi > 180, np.round(hi - 360, 12), hi)
    return np.column_stack([lo, hi])


def _location_classes(table, part, published) -> pd.DataFrame:
    """One row per location class: records, classes inside and their
    published values (the tooltip; never a record's own values)."""
    loc_of_row = part.location_class[part.row_class]
    weight = np.bincount(loc_of_row, minlength=part.location_classes)
    inner = np.bincount(part.location_class, minlength=part.location_classes)
    first = np.unique(part.row_class, return_index=True)[1]
    shown = [col for col in published if not col.endswith(("lat_min", "lat_max", "lon_min", "lon_max"))]
    cells = [[f"{col} {_cell(v)}" for v in table[col].iloc[first].tolist()] for col in shown]
    sizes = np.bincount(part.row_class)
    lines = [[] for _ in range(part.location_classes)]
    for c, owner in enumerate(part.location_class.tolist()):
        if len(lines[owner]) < TOOLTIP_CLASSES:
            lines[owner].append(", ".join(column[c] for column in cells) + f" ({plural(int(sizes[c]), 'record')})")
    label = ["; ".join(x) + (f"; and {n - len(x)} more" if n > len(x) else "") for x, n in zip(lines, inner)]
    return pd.DataFrame({"class_id": np.arange(part.location_classes), "weight": weight, "classes": inner,
                         "label": label})


def _cell(v) -> str:
    if isinstance(v, float):
        return "empty" if np.isnan(v) else f"{v:g}"
    return str(v)


def group_location(df, kind, loc, check, warnings, level="zip"):
    """A ZIP or label column as one location dimension: a hierarchy of
    nested groups (connected groups of regions for ZIP codes, bins of labels
    otherwise) whose finest groups meet the model; a group splits only into
    all of its parts, so location groups never overlap.

    ZIP codes rolled up (``level`` ``"zip3"``, ``"county"`` or ``"state"``,
    :mod:`geoanon.regions.rollup`) are grouped as whole units: the
    hierarchy's leaves are the units, adjacent where their regions are. The
    publisher knows each node's diameter in km (:class:`GroupPublisher`).

    ZIP codes as the ``zip`` job takes them (``loc``'s ``contiguity``,
    ``unknown`` and ``small``): regions without records stay in the graph and
    connect the groups; records of unknown regions (``unknown="suppress"``)
    and of connected pieces that cannot meet the model on their own
    (``small="suppress"``) are published as ``*``, one group that must meet
    the model; ``small="nearest"`` links a piece lighter than k to the
    nearest region of another piece (by centroid) instead."""
    column = loc["zip"] if kind == "zip" else loc["label"]
    values = df[column]
    units = None
    if kind == "zip":
        found = region_graph(loc["regions"], loc["region_id"], edges=loc.get("edges"),
                             contiguity=loc.get("contiguity", "rook"))
        warnings += found.warnings
        graph, shapes = found.graph, found.shapes
        centroids = dict(graph.nodes(data="centroid"))             # of the regions, before any roll-up
        values = region_values(values, code_width(graph.nodes), warnings)
        graph, units, values = rolled_values(graph, values, loc["regions"], loc["region_id"], level,
                                             loc.get("unknown", "error"))
        leaf_codes, leaf_names, graph, details = _region_leaves(values, graph, check, loc.get("unknown", "error"),
                                                                loc.get("small", "error"))
        present = np.bincount(leaf_codes, minlength=len(leaf_names)) > 0
    else:
        graph, shapes, details, centroids = None, None, {}, None
        values = values.astype(object).where(values.notna(), None).map(lambda v: "(missing)" if v is None else str(v))
        leaf_codes, leaf_names = pd.factorize(values, sort=True)
        leaf_names = list(leaf_names)
        present = np.ones(len(leaf_names), dtype=bool)
    paths = _nested_groups(leaf_codes, leaf_names, graph, check)
    dim = tree_from_paths(column, leaf_codes.astype(np.int64), paths, present, location=True, strict=True)
    publisher = GroupPublisher(column, kind, shapes, details, centroids, units)
    if graph is not None:
        publisher.measure(dim, graph, leaf_names)
    return Dims([dim]), publisher


def _region_leaves(values, graph, check, unknown, small):
    """The leaves of a ZIP location: every region of the connected pieces
    that hold records (empty ones too, which join groups), and ``*`` for the
    records published suppressed; each row's leaf, the leaf names, the graph
    the groups are connected in, and the report's figures."""
    import networkx as nx

    from ..regions.partition import nearest_bridges, node_points
    from ..regions.graphs import CompactGraph
    from .regions import refuse_unknown

    outside = ~values.isin(pd.Index(list(graph.nodes))).to_numpy()
    if outside.any() and unknown == "error":
        refuse_unknown(int(outside.sum()), pd.unique(values[outside].fillna("(missing)"))[:5])
    known = values.where(~outside)
    held = known.value_counts()
    pieces = [sorted(c, key=str) for c in nx.connected_components(graph) if any(v in held.index for v in c)]
    graph = graph.subgraph([v for c in pieces for v in c]).copy()
    bridges = 0
    failing = _failing_pieces(pieces, known, check)
    if failing and small == "nearest":
        compact = CompactGraph.from_networkx(graph)
        comp = compact.components()
        weight = np.bincount(comp, weights=held.reindex(compact.ids).fillna(0).to_numpy()).astype(np.int64)
        links = nearest_bridges(node_points(graph, compact), comp, weight, check.model.k)
        graph.add_edges_from((compact.ids[a], compact.ids[b]) for a, b in links.tolist())
        bridges = len(links)
        pieces = [sorted(c, key=str) for c in nx.connected_components(graph)]
        failing = _failing_pieces(pieces, known, check)
    if failing and small != "suppress":
        rows = int(sum(known.isin(pieces[i]).sum() for i in failing))
        names = ", ".join(map(show, [v for i in failing[:3] for v in pieces[i][:2]]))
        hint = " even joined to the nearest regions" if small == "nearest" else (
            "; connect them, or use small='suppress' or small='nearest'")
        raise InfeasibleError(f"{plural(len(failing), 'connected piece')} of the regions ({plural(rows, 'record')}, "
                              f"in {names}) cannot meet {check.describe()} on their own{hint}")
    dropped = {v for i in failing for v in pieces[i]}
    suppressed = outside | known.isin(dropped).to_numpy()
    graph.remove_nodes_from(dropped)
    names = sorted(graph.nodes, key=str)
    if suppressed.any():
        if not check.holds(np.bincount(check.codes[suppressed], minlength=check.n_values)[None, :])[0]:
            raise InfeasibleError(f"{plural(int(suppressed.sum()), 'record')} published as '*' (unknown regions or "
                                  f"pieces that cannot meet the model alone) cannot meet {check.describe()} together")
        names.append(SUPPRESSED_GROUP)
    index = pd.Index(names)
    codes = index.get_indexer(known.where(~suppressed, SUPPRESSED_GROUP).astype(object))
    details = {"unknown_rows": int(outside.sum()), "suppressed_rows": int(suppressed.sum()), "bridges": bridges}
    return codes.astype(np.int64), names, graph, details


def _failing_pieces(pieces, known, check) -> list:
    """Indices of the connected pieces whose records miss the model together."""
    piece_of = {v: i for i, c in enumerate(pieces) for v in c}
    rows = known.map(piece_of).to_numpy(dtype=float)
    has = ~np.isnan(rows)
    hist = np.zeros((len(pieces), check.n_values), dtype=np.int64)
    np.add.at(hist, (rows[has].astype(np.int64), check.codes[has]), 1)
    return np.flatnonzero(~check.holds(hist)).tolist()


SUPPRESSED_GROUP = "*"


def _nested_groups(leaf_codes, names, graph, check) -> list:
    """Each leaf's path up the nested groups: level 1 meets the model, each
    level above joins whole groups of the level below into groups of twice
    the weight, connected in ``graph`` (any groups without a graph; a leaf
    outside ``graph``, the ``*`` of suppressed records, stays a group of its
    own)."""
    import networkx as nx

    from ..regions import partition_graph

    n_leaves = len(names)
    counts = np.bincount(leaf_codes, minlength=n_leaves)
    m = check.n_values
    leaf_hist = np.bincount(leaf_codes * m + check.codes, minlength=n_leaves * m).reshape(n_leaves, m)
    regions = graph                        # named after their central member (labels: by their counts)
    if graph is None:
        graph = nx.complete_graph(n_leaves)
        node_of_leaf = list(range(n_leaves))
    else:
        node_of_leaf = names
    index = {v: i for i, v in enumerate(node_of_leaf)}
    group = np.arange(n_leaves)            # the current group of every leaf
    levels = [group.copy()]
    k = check.model.k
    while True:
        weight = np.bincount(group, weights=counts)
        g = nx.Graph()
        g.add_nodes_from((int(v), {"w": int(weight[v])}) for v in np.unique(group))
        for a, b in graph.edges:
            ga, gb = group[index[a]], group[index[b]]
            if ga != gb:
                g.add_edge(int(ga), int(gb))
        if g.number_of_edges() == 0:
            break
        held = np.unique(group)[weight[np.unique(group)] > 0]
        target = k if len(levels) == 1 else 2 * int(weight[held].min())
        part = partition_graph(g, target, "w", on_small="suppress")
        new_of_old = dict(zip(list(g.nodes), part.labels.tolist()))
        lonely = max(new_of_old.values()) + 1
        relabel = {}
        for old, new in new_of_old.items():
            if new < 0:
                relabel[old] = lonely
                lonely += 1
            else:
                relabel[old] = new
        group = np.array([relabel[int(v)] for v in group])
        if len(levels) == 1:
            group = _merge_until_model(group, g, new_of_old, relabel, leaf_hist, check)
        if np.unique(group).size == np.unique(levels[-1]).size:
            break
        levels.append(group.copy())
    if np.unique(levels[-1]).size > 1:
        levels.append(np.zeros(n_leaves, dtype=np.int64))
    labels = _group_labels(levels[1:], names, counts, k, regions)
    return [[names[i], *[lab[i] for lab in labels]] for i in range(n_leaves)]


def _merge_until_model(group, g, new_of_old, relabel, leaf_hist, check) -> np.ndarray:
    """Join every finest group that misses the model with its lightest
    neighbouring group (the least id on a tie), the least id missing it
    first, until all meet it (InfeasibleError when a connected piece of the
    map cannot). Each join updates only the two groups it touches."""
    import heapq

    group = group.copy()
    hist = np.zeros((int(group.max()) + 1, leaf_hist.shape[1]), dtype=leaf_hist.dtype)
    np.add.at(hist, group, leaf_hist)
    ids = np.unique(group)
    adjacency = {int(i): set() for i in ids}
    for a, b in g.edges:
        ra, rb = relabel[a], relabel[b]
        if ra != rb:
            adjacency[ra].add(rb)
            adjacency[rb].add(ra)
    failing = ids[~check.holds(hist[ids])].tolist()
    heapq.heapify(failing)
    into_of = {}                                   # a joined group -> the group it joined
    while failing:
        bad = heapq.heappop(failing)
        if bad in into_of or check.holds(hist[bad][None, :])[0]:
            continue
        if not adjacency[bad]:
            raise InfeasibleError(f"a connected piece of the location ({plural(int(hist[bad].sum()), 'record')}) "
                                  f"cannot meet {check.describe()} on its own")
        into = min(adjacency[bad], key=lambda v: (hist[v].sum(), v))
        hist[into] += hist[bad]
        into_of[bad] = into
        for v in adjacency.pop(bad):
            adjacency[v].discard(bad)
            if v != into:
                adjacency[v].add(into)
                adjacency[into].add(v)
        if not check.holds(hist[into][None, :])[0]:
            heapq.heappush(failing, into)
    for bad, into in into_of.items():               # joined in order: follow each chain to its end
        while into in into_of:
            into = into_of[into]
        group[group == bad] = into
    return group


def _group_labels(levels, names, counts, k, graph) -> list:
    """Each level's label of every leaf (:mod:`geoanon.pipeline.naming`):
    regions (``graph`` given) after their central member or their roll-up
    units, labels after their most frequent member when k records hold it,
    else ``group I``, I counted over the groups of every level."""
    out, number = [], 0
    for group in levels:
        ids = np.unique(group)
        members = [np.flatnonzero(group == g) for g in ids]
        numbers = range(number, number + len(members))
        held = [counts[m].tolist() for m in members]
        if graph is not None:               # the '*' of suppressed records names only itself
            regions = [[i for i in m if names[i] != SUPPRESSED_GROUP] for m in members]
            named = iter(graph_group_names([[names[i] for i in r] for r in regions if r], graph))
            text = [next(named) if r else SUPPRESSED_GROUP for r in regions]
        else:
            text = label_group_names([[names[i] for i in m] for m in members], held, k, number=numbers)
        number += len(members)
        label = np.empty(len(names), dtype=object)
        for m, t in zip(members, text):
            label[m] = t
        out.append(label.tolist())
    return out


class GroupPublisher:
    """The group label in place of the ZIP or label column; ``centroids``
    {region: (x, y)} for ZIP codes, ``units`` {roll-up unit: its regions}
    when the leaves are roll-up units (None: the leaves are regions). For
    regions it knows each node's ``diameters`` in km (:meth:`measure`) and,
    once the columns are published, reports the groups' diameters per record
    (``details["location_km"]``: median and p90 over the records published
    in a group of regions) and their km loss (``ncp["km_loss"]``): the
    ``"km"`` loss of :meth:`km_costs` averaged over records, a record
    published as ``*`` costing 1 (as the NCP charges ``*``), beside the
    report's Iyengar NCP of the column, which counts regions, not km."""

    def __init__(self, column, kind, shapes, details=None, centroids=None, units=None):
        self.column, self.kind, self.shapes = column, kind, shapes
        self.details = details or {}
        self.centroids = centroids
        self.units = units
        self.dropped = frozenset()
        self.labels = None
        self.diameters, self.costs, self.ncp = None, None, {}
        self.k_spacing = float("nan")
        self.places = None
        self.row_km = None

    def measure(self, dim, graph, leaf_names) -> None:
        """Each node's diameter in km (:func:`geoanon.joint.km_loss.node_diameters`
        of the leaves' boxes of centroids; NaN for the ``*`` of suppressed
        records) and the ``"km"`` node costs (F the diameter of all the
        regions held, u the leaves' spacing, :func:`geoanon.joint.km_loss.spacing`,
        at least ``FLOOR`` * F); the leaves' places and records are kept for
        :meth:`measure_neighbourhood`."""
        boxes = region_boxes(graph, leaf_names)
        geographic = bool(graph.graph.get("geographic"))
        per_unit = km_per_unit(self.shapes.crs)
        self.diameters = node_diameters(dim.ancestors, boxes, geographic, per_unit)
        placed = ~np.isnan(boxes).any(axis=1)
        held = boxes[placed]
        full = float(ground_diagonal(*held[:, :2].min(axis=0), *held[:, 2:].max(axis=0), geographic,
                                     per_unit)) if held.size else 1.0
        position = {v: i for i, v in enumerate(leaf_names)}
        pairs = np.array([(position[a], position[b]) for a, b in graph.edges if a in position and b in position],
                         dtype=np.int64).reshape(-1, 2)
        unit = np.nanmax([spacing(boxes, pairs, geographic, per_unit), FLOOR * full])
        self.costs = tree_km_costs(dim.ancestors, self.diameters, placed, full, unit)
        self.places = ((boxes[:, :2] + boxes[:, 2:]) / 2, np.bincount(dim.leaf, minlength=len(leaf_names)),
                       geographic, per_unit, unit)

    def measure_neighbourhood(self, k: int) -> None:
        """``k_spacing``: the records' k-neighbourhood width in km
        (:func:`geoanon.joint.km_loss.k_spacing`, at least the regions'
        spacing u), the scale of the default precision target."""
        middles, counts, geographic, per_unit, unit = self.places
        self.k_spacing = float(np.nanmax([k_spacing(middles, counts, k, geographic, per_unit), unit]))

    def too_wide(self, max_km: float):
        """Whether a state's group is wider than ``max_km`` (its regions' centroids' box, diagonal)."""
        diameters = self.diameters
        return lambda state: bool(diameters[state[0][0]][state[0][1]] > max_km)      # NaN compares False

    def km_costs(self) -> list:
        """The node costs of ``location_loss="km"`` (:func:`~geoanon.joint.km_loss.tree_km_costs`)."""
        return self.costs

    def columns(self, df, part, dims):
        d = dims.items[0]
        labels = np.array([d.labels[st[0][0]][st[0][1]] for st in part.states], dtype=object)
        self.dim = d
        out = escape_formulas(pd.Series(labels[part.row_class], index=df.index, dtype=object))
        if self.diameters is not None:
            nodes = [st[0] for st in part.states]
            km = np.array([self.diameters[level][node] for level, node in nodes])
            loss = np.where(np.isnan(km), 1.0, [self.costs[level][node] for level, node in nodes])
            self.row_km = km[part.row_class]
            self.details["location_km"] = km_spread(self.row_km)
            self.ncp = {"km_loss": {self.column: round(float(loss[part.row_class].mean()), 12)}}
        return {self.column: {self.column: out}}, {self.column: ("set", self.column)}

    def unit_keywords(self, part) -> dict:
        """:func:`geoanon.ncp.plain_units`' keywords: each published group's
        region centroids (ZIP codes; nothing for labels, which have no place)."""
        if self.centroids is None:
            return {}
        nodes = sorted({(st[0][0], st[0][1]) for st in part.states})         # the groups the rows publish
        labels = escape_formulas(pd.Series([self.dim.labels[level][node] for level, node in nodes], dtype=object))
        groups = {label: [self.centroids[v] for v in self._regions(*node)] for label, node in zip(labels, nodes)}
        return {"location": (self.column,), "crs": self.shapes.crs, "groups": groups}

    def _regions(self, level, node) -> list:
        """The regions of a group (a roll-up unit's own; the ``*`` of suppressed records left out)."""
        d = self.dim
        leaves = np.flatnonzero(d.ancestors[level] == node)
        named = [d.labels[0][i] for i in leaves if d.labels[0][i] != SUPPRESSED_GROUP]
        return named if self.units is None else [v for u in named for v in self.units[u]]

    def classes(self, table, part, published):
        classes = _location_classes(table, part, published)
        if self.shapes is None:
            return classes, None
        import geopandas as gpd

        from .regions import group_shapes

        shapes = group_shapes(self.shapes, [self._regions(*st[0][:2]) for st in part.location_states])
        classes = gpd.GeoDataFrame(classes, geometry=shapes, crs=self.shapes.crs)

        def row_shapes():
            loc = part.location_class[part.row_class]
            return gpd.GeoSeries(shapes[loc], index=table.index, crs=self.shapes.crs)

        return classes, row_shapes

