"""The dimensions of a joint release and what a class publishes in each.

Every quasi-identifier becomes one dimension the top-down search can cut:

- :class:`RankDim`: an ordered column (a coordinate axis, an interval
  quasi-identifier). Rows carry dense ranks of their values; a class holds a
  *tile*, the ranks ``lo <= r < hi`` (edges between values, never a record's
  value), and publishes its ``extent``: the tile, its rows' own range, or
  that range rounded outward on a grid inside the tile. Missing values take
  one extra rank after all values.
- :class:`TreeDim`: a categorical column with a hierarchy of its values (a
  suppressed column is the two-level hierarchy value -> ``*``; a ZIP code's
  nested connected groups are one too). A class publishes the lowest node
  above all its rows' values.
- :class:`SetDim`: a categorical column published as the set of values a
  class holds.

The cost of a published cell is :func:`geoanon.information_loss`'s: the
published width over the column's range (Xu et al.'s NCP, 2006; for a number,
the range the values that k records reach span, so one far value does not
make every interval look cheap), and for a hierarchy node or a set Iyengar's
loss metric, (values it covers in the data - 1) / (distinct values - 1). The
search measures an ordered cell on its rows' own range (or tile); what a class
publishes (:meth:`RankDim.published`) moves its ends out onto a grid, so the
release's NCP, measured on the published table, is a little higher.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from itertools import chain

import numpy as np

__all__ = ["MISSING_IN_SET", "Dims", "RankDim", "SetDim", "TreeDim", "calendar_level", "date_dim", "dim_costs", "grid_places",
           "k_reached", "popcount", "ranked", "rounding_step", "state_columns", "tail_span",
           "tree_from_paths", "tree_node_costs"]


@dataclass(eq=False)
class RankDim:
    """An ordered dimension.

    ``rank`` is each row's rank (0..D-1 for values, D for a missing value when
    ``missing`` rows exist); ``edges`` (length D + 1) the position of every
    boundary, ``edges[0]`` and ``edges[D]`` the outer ones; ``low`` and
    ``high`` (length D) the least and greatest value of every rank; ``unit``
    is 1 for a column of integers published as closed intervals, else 0;
    ``span`` the column's range in the input (NCP's denominator).

    A class's state is ``(lo, hi, first, end)``: its tile (ranks ``lo <= r <
    hi``) and the ranks its rows hold (``first <= r < end``). ``extent``
    says what is published: ``"tile"`` the tile, ``"members"`` the rows' own
    range, ``"grid"`` the rows' range rounded outward to multiples of
    ``resolution`` (never onto a row's value) and kept inside the tile.

    What a class publishes (:meth:`published`) tells no more of its extreme
    records than of the others: a location's box lies on a grid whose step
    grows with its records' range (:mod:`geoanon.points.edges`: ``k``, and
    ``min_step`` the least step), a number's ends on a round grid, moved past
    every value fewer than k rows hold (``rare``, per rank), a date's on the
    calendar, and ends beyond the values k rows reach (``tails``) are open.
    A ``"tile"`` end is a cut between two values or the padded outer edge.
    """

    name: str
    rank: np.ndarray
    edges: np.ndarray
    low: np.ndarray
    high: np.ndarray
    span: float
    unit: int = 0
    location: bool = False
    missing: bool = False
    extent: str = "tile"
    resolution: float = 0.0
    rare: np.ndarray | None = None        # per rank: its value is held by 1..k-1 rows ("members")
    step: float = 0.0                     # the grid of moved ends (default: resolution)
    calendar: str = ""                    # "day" or "second": a date column (geoanon.dates), published as ISO text
    floor: float = -np.inf                # the column's possible range: published ends never leave it
    ceiling: float = np.inf
    tails: tuple = (-np.inf, np.inf)      # values below / above these are held by fewer than k rows together
    k: int = 1                            # a location's box: its grid step grows with its range over k
    min_step: float = 0.0                 # a location's box: the least grid step (the width floor)
    _avoid: np.ndarray | None = field(default=None, init=False, repr=False)
    _by_rank: tuple | None = field(default=None, init=False, repr=False)

    @cached_property
    def grid_low(self) -> np.ndarray:
        """Per rank, its least value moved out onto the grid (``"grid"``; computed on first use)."""
        return self._off_values(grid_below(self.low, self.resolution), grid_below)

    @cached_property
    def grid_high(self) -> np.ndarray:
        """Per rank, its greatest value moved out onto the grid."""
        return self._off_values(grid_above(self.high, self.resolution), grid_above)

    def _off_values(self, grid: np.ndarray, step) -> np.ndarray:
        """Grid edges moved one more step outward while they equal any row's
        value (each distinct edge once: evenly spaced values put one on every
        grid point, and thousands of edges on each)."""
        values = self._avoided()
        edges, at = np.unique(grid, return_inverse=True)
        hit = _held(values, edges)
        while hit.any():
            edges[hit] = step(edges[hit], self.resolution)
            hit[hit] = _held(values, edges[hit])
        return edges[at.ravel()]

    def _avoided(self) -> np.ndarray:
        """The values no moved end may land on, sorted: the rare ones, or
        every value (a coordinate, or without ``rare``); computed once."""
        if self._avoid is None:
            self._avoid = np.union1d(self.low, self.high) if self.rare is None else np.unique(self.low[self.rare])
        return self._avoid

    def by_rank(self) -> tuple:
        """Every row in rank order (rows of one rank in row order), and their
        ranks; computed once."""
        if self._by_rank is None:
            order = np.argsort(self.rank, kind="stable")
            self._by_rank = (order, self.rank[order])
        return self._by_rank

    @property
    def size(self) -> int:
        """Ranks of values (the missing rank, if any, is ``size``)."""
        return self.edges.size - 1

    def root(self, rows: np.ndarray) -> tuple:
        """The state of ``rows`` alone: the whole tile of the values, with the
        missing rank where they hold it (the missing rank alone where they hold
        nothing else)."""
        first, end = self.held(rows)
        return (self.size if first >= self.size else 0, self.size + 1 if end > self.size else self.size, first, end)

    def central_boundary(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """For cuts between rank ``a - 1`` (the left side's last) and rank
        ``b`` (the right side's first): the boundary in ``[a, b]`` whose edge
        lies nearest the middle of the gap between the two sides' records, so
        the cut keeps away from both (``b`` itself where the right side is the
        missing rank)."""
        a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
        located = b < self.size
        bb = np.minimum(b, self.size - 1)
        middle = (self.high[a - 1] + self.low[bb]) / 2
        upper = np.clip(np.searchsorted(self.edges, middle), a, bb)
        lower = np.clip(upper - 1, a, bb)
        nearer = np.where(middle - self.edges[lower] <= self.edges[upper] - middle, lower, upper)
        return np.where(located, nearer, b)

    def held(self, rows: np.ndarray) -> tuple:
        """The ranks ``rows`` hold: (first, end)."""
        r = self.rank[rows]
        return (int(r.min()), int(r.max()) + 1)

    def interval(self, state: tuple) -> tuple:
        """The published (low, high) of a class; NaN for missing values (alone
        or mixed with values)."""
        lo, hi, first, end = state
        d = self.size
        if first >= d or end > d:
            return (np.nan, np.nan)
        if self.extent == "tile":
            return (float(self.edges[lo]), float(self.edges[hi] - self.unit))
        if self.extent == "grid":
            return (max(float(self.edges[lo]), float(self.grid_low[first])),
                    min(float(self.edges[hi]), float(self.grid_high[end - 1])))
        return (float(self.low[first]), float(self.high[end - 1]))

    def intervals(self, st: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`interval`'s (low, high) for an array of states (n x 4),
        without the NaN: the caller tells missing values by their ranks."""
        lo, hi, first, end = st[:, 0], st[:, 1], st[:, 2], st[:, 3]
        f, e = np.minimum(first, self.size - 1), np.clip(end - 1, 0, self.size - 1)
        if self.extent == "tile":
            return self.edges[lo], self.edges[np.minimum(hi, self.size)] - self.unit
        if self.extent == "grid":
            return (np.maximum(self.edges[lo], self.grid_low[f]),
                    np.minimum(self.edges[np.minimum(hi, self.size)], self.grid_high[e]))
        return self.low[f], self.high[e]

    def published(self, states: np.ndarray, step=None) -> tuple[np.ndarray, np.ndarray]:
        """What classes of ``states`` (n x 4) publish: (low, high), NaN where
        a class holds missing values; a location's box is not kept inside the
        tile here (the location's publisher does that, across the antimeridian).

        A location's ends (``"grid"``) lie on the grid of
        :func:`geoanon.points.edges.snap_steps` (at least ``step``, default
        ``self.step`` or ``resolution``, and ``min_step``), strictly outside
        its records. A number's ends (``"members"``) lie on the grid of
        ``step`` (:func:`rounding_step` picks a round one), an end on a value
        fewer than k rows hold moved out past every such value; a date's on
        the calendar ``step`` (:func:`calendar_level`: the first and the last
        day or second of its weeks, months, ...). Neither leaves ``[floor,
        ceiling]``, and an end in a tail (a value fewer than k rows reach),
        or moved out past the values k rows reach, is published open: the
        floor or ceiling where the column has one, else -inf or inf
        (``90+``: 90 to inf); NaN is a class holding missing values."""
        lo, hi, first, end = (states[:, i] for i in range(4))
        d = self.size
        known = (first < d) & (end <= d)
        f, e = np.minimum(first, d - 1), np.clip(end - 1, 0, d - 1)
        if self.extent == "tile":
            a, b = self.edges[lo].astype(float), self.edges[np.minimum(hi, d)] - self.unit
        elif self.location:
            a, b = self.box_edges(states, step)
        else:
            a, b = self.low[f].astype(float), self.high[e].astype(float)
            low_open, high_open = self.low[f] < self.tails[0], self.high[e] > self.tails[1]
            if self.calendar:
                from ..dates import level_end, level_start

                level = step or self.calendar
                a, b = level_start(a, level, self.calendar), level_end(b, level, self.calendar)
            else:
                step = step or self.step or self.resolution
                a = np.where(self.rare[f], self._outward(a, -1, step), grid_at_or_below(a, step))
                b = np.where(self.rare[e], self._outward(b, 1, step), -grid_at_or_below(-b - self.unit, step) - self.unit)
                low_open |= a < self.tails[0]       # rounded or moved out past the values k rows reach
                high_open |= b > self.tails[1]
            a = np.where(low_open, self.floor, np.maximum(a, self.floor))
            b = np.where(high_open, self.ceiling, np.minimum(b, self.ceiling))
        return np.where(known, a, np.nan), np.where(known, b, np.nan)

    def box_edges(self, states: np.ndarray, step=None) -> tuple[np.ndarray, np.ndarray]:
        """A location's box for classes of ``states`` (n x 4): its records'
        range on the grid of :func:`geoanon.points.edges.snap_steps` (at
        least ``step``, default ``self.step`` or ``resolution``, and
        ``min_step``), strictly outside its records
        (:func:`~geoanon.points.edges.snapped`; missing ranks give garbage,
        which the caller masks)."""
        from ..points.edges import snap_steps, snapped

        f, e = np.minimum(states[:, 2], self.size - 1), np.clip(states[:, 3] - 1, 0, self.size - 1)
        a, b = self.low[f].astype(float), self.high[e].astype(float)
        return snapped(a, b, snap_steps(b - a, self.k, max(step or self.step or self.resolution, self.min_step)))

    def _outward(self, v: np.ndarray, direction: int, step: float) -> np.ndarray:
        """The grid point strictly beyond ``v`` (below for -1), past every
        rare value (every value, for a coordinate: boxes of the joint design
        overlap other classes' records); an upper end of whole numbers
        published as a closed interval ends one unit below its grid point."""
        beyond = grid_below if direction < 0 else grid_above
        shift = self.unit if direction > 0 and step > self.unit else 0
        out = beyond(v + shift, step) - shift
        avoid = self._avoided()
        hit = _held(avoid, out)
        while hit.any():
            out[hit] = beyond(out[hit] + shift, step) - shift
            hit[hit] = _held(avoid, out[hit])
        return out

    def cost(self, state: tuple) -> float:
        """NCP of one cell as the search measures it: 0 for only missing
        values, 1 for values mixed with missing ones, else the width over
        the span (the rows' own range, their grid box, or the tile)."""
        first, end = state[2], state[3]
        d = self.size
        if first >= d:
            return 0.0
        if end > d:
            return 1.0
        if self.span <= 0:
            return 0.0
        a, b = self.interval(state)
        return (b - a) / self.span


ROUND_STEPS = (1, 2, 5)   # round grid steps: these times a power of ten
ROUNDING_COST = 0.25      # a rounder grid is taken while the column's NCP stays within this share above the finest's


def rounding_step(d: RankDim, states: np.ndarray, sizes: np.ndarray) -> float:
    """The roundest step (1, 2 or 5 times a power of ten, at least ``d.step``)
    on which the classes of ``states`` (``sizes`` rows each) publish their
    ends (:meth:`RankDim.published`) for at most ``ROUNDING_COST`` more NCP
    than on ``d.step``: 5- or 10-year age bands and round sums of money where
    classes are wide enough to take them at little cost. A class open in a tail is left out
    (its width would be the extreme value's, which makes every step look
    cheap beside it); an end a step opens (rounded past the values k rows
    reach) is measured to that value, so that opening ends is no saving."""
    base = d.step or d.resolution
    if d.span <= 0 or base <= 0:
        return base
    return _roundest(d, states, sizes, [m * 10.0 ** p for p in range(int(np.floor(np.log10(base))),
                                                                        int(np.ceil(np.log10(d.span))) + 1)
                                        for m in ROUND_STEPS if base < m * 10.0 ** p <= d.span], base)


def calendar_level(d: RankDim, states: np.ndarray, sizes: np.ndarray) -> str:
    """The coarsest calendar level (:data:`geoanon.dates.ROUNDING_LEVELS`: a
    minute at the finest for timestamps, a day for dates, then week, month,
    quarter, year) on which a date column's classes publish their ends for
    at most ``ROUNDING_COST`` more NCP than on the finest, measured as
    :func:`rounding_step` does."""
    from ..dates import ROUNDING_LEVELS

    levels = ROUNDING_LEVELS[d.calendar]
    return _roundest(d, states, sizes, list(levels[1:]), levels[0])


def _roundest(d: RankDim, states: np.ndarray, sizes: np.ndarray, steps: list, base):
    """The last of ``steps`` (coarser and coarser) whose published ends cost
    at most ``ROUNDING_COST`` more than ``base``'s, measured as
    :func:`rounding_step` says; ``base`` if none."""
    f, e = np.minimum(states[:, 2], d.size - 1), np.clip(states[:, 3] - 1, 0, d.size - 1)
    below, above = d.low[f] < d.tails[0], d.high[e] > d.tails[1]          # classes holding a tail's values
    tail_open = (below & ~np.isfinite(d.floor)) | (above & ~np.isfinite(d.ceiling))

    def loss(step) -> float:
        lo, hi = d.published(states, step)
        counted = ~np.isnan(lo) & ~np.isnan(hi) & ~tail_open
        lo = np.where(~below & (lo < d.tails[0]), d.tails[0], lo)      # opened by the step: to the values k rows reach
        hi = np.where(~above & (hi > d.tails[1]), d.tails[1], hi)
        return float(np.sum(sizes[counted] * (hi - lo)[counted]))

    limit = loss(base) * (1 + ROUNDING_COST)
    best = base
    for step in steps:
        if loss(step) <= limit:
            best = step
    return best


def ranked(values: np.ndarray, name: str) -> tuple:
    """A column's distinct values (NaN: missing), how many rows hold each, and
    every row's rank (the number of values for a missing one); DataError when
    it has no value."""
    from .._text import show
    from ..errors import DataError

    present = ~np.isnan(values)
    uniq, held = np.unique(values[present], return_counts=True)
    if uniq.size == 0:
        raise DataError(f"column {show(name)} has no values")
    rank = np.full(values.size, uniq.size, dtype=np.int64)
    rank[present] = np.searchsorted(uniq, values[present])
    return uniq, held, rank, bool((~present).any())


def grid_places(step: float) -> int:
    """The decimals a multiple of ``step`` is written with (2 for 0.01)."""
    return max(0, -int(np.floor(np.log10(step))))


def _held(values: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Whether each of ``x`` is one of the sorted ``values`` (``np.isin``
    without sorting ``values`` again on every call)."""
    at = np.minimum(np.searchsorted(values, x), max(values.size - 1, 0))
    return values[at] == x if values.size else np.zeros(np.shape(x), dtype=bool)


def grid_at_or_below(v: np.ndarray, step: float) -> np.ndarray:
    """The greatest multiple of ``step`` at or below each ``v`` (a quotient
    within 1e-9 of a whole number counts as one: 0.3 is a multiple of 0.1)."""
    q = np.asarray(v, dtype=np.float64) / step
    whole = np.round(q)
    q = np.where(np.abs(q - whole) < 1e-9, whole, q)
    return np.round(np.floor(q) * step, grid_places(step))


def grid_below(v: np.ndarray, step: float) -> np.ndarray:
    """The greatest multiple of ``step`` strictly below each ``v`` (rounded
    to the step's decimals)."""
    places = grid_places(step)
    g = np.round(np.floor(v / step) * step, places)
    return np.where(g < v, g, np.round(g - step, places))


def grid_above(v: np.ndarray, step: float) -> np.ndarray:
    """The least multiple of ``step`` strictly above each ``v``."""
    return -grid_below(-np.asarray(v), step)


@dataclass(eq=False)
class TreeDim:
    """A categorical dimension with a hierarchy over its values.

    ``leaf`` is each row's leaf id; ``ancestors[j]`` maps a leaf to its
    ancestor at level j (level 0: the leaf itself; the last level: the root);
    ``node_cost[j]`` the NCP of every node of level j; ``strict`` (locations)
    lets a node split only into all of its children, since a location group
    must not contain another.
    """

    name: str
    leaf: np.ndarray
    ancestors: list
    node_cost: list
    labels: list                      # labels[j][node]: the published text of a node
    location: bool = False
    strict: bool = False

    @property
    def height(self) -> int:
        return len(self.ancestors) - 1

    def node_of(self, rows: np.ndarray) -> tuple:
        """The lowest node above the leaves of ``rows``: (level, node id)."""
        leaves = self.leaf[rows]
        for j, up in enumerate(self.ancestors):
            a = up[leaves]
            if (a == a[0]).all():
                return (j, int(a[0]))
        raise AssertionError("a hierarchy without one root")   # the constructor guarantees one root

    def cost(self, node: tuple) -> float:
        return float(self.node_cost[node[0]][node[1]])


@dataclass(eq=False)
class SetDim:
    """A categorical dimension published as the set of values a class holds
    (Mondrian's categorical recoding). ``leaf`` is each row's value id among
    ``names``; a state is the bit mask of the values present. A value that
    fewer than k rows hold (``rare``) is not named: a class holding such
    values shows ``*`` among its values."""

    name: str
    leaf: np.ndarray
    names: list
    location: bool = False
    rare: np.ndarray | None = None
    bits: np.ndarray | None = field(init=False, repr=False)

    def __post_init__(self):      # each row's value as one bit, while the values fit in an int64
        self.bits = np.left_shift(1, self.leaf).astype(np.int64) if len(self.names) <= 62 else None

    def root(self, rows: np.ndarray) -> int:
        return self.held(rows)

    def held(self, rows: np.ndarray) -> int:
        if self.bits is not None:
            return int(np.bitwise_or.reduce(self.bits[rows]))
        present = np.flatnonzero(np.bincount(self.leaf[rows], minlength=len(self.names)))
        return sum(1 << int(v) for v in present)

    def cost(self, mask: int) -> float:
        return (mask.bit_count() - 1) / max(len(self.names) - 1, 1)

    def label(self, mask: int) -> str:
        """The published text: the value itself, ``*`` for every value, else
        the values joined by ``|`` (in the values' sorted order; ``|`` and
        ``\\`` inside values escaped), then :data:`MISSING_IN_SET` once for
        the records without a value (``AIAN|NA``, never an empty member:
        ``|AIAN``), then ``*`` for the rare ones."""
        members = [i for i in range(len(self.names)) if mask >> i & 1]
        if len(members) == 1:
            return self.names[members[0]]
        shown = [i for i in members if self.rare is None or not self.rare[i]]
        if len(members) == len(self.names) or not shown:
            return "*"
        values = [self.names[i] for i in shown if not _missing(self.names[i])]
        text = [str(v).replace("\\", "\\\\").replace("|", "\\|") for v in values]
        text += [MISSING_IN_SET] if len(values) < len(shown) else []
        return "|".join(text + (["*"] if len(shown) < len(members) else []))


MISSING_IN_SET = "NA"      # a set's member for its records without a value (geoanon reads "NA" as missing)


def _missing(v) -> bool:
    """Whether a value is missing: None, NaN or a missing marker (``""``, ``NA``, ...)."""
    from .._cells import MISSING_TOKENS

    if v is None or (isinstance(v, float) and v != v):
        return True
    return isinstance(v, str) and v.strip().lower() in MISSING_TOKENS


def tree_from_paths(name: str, leaf: np.ndarray, paths: list, present: np.ndarray, *, location=False,
                    strict=False) -> TreeDim:
    """A :class:`TreeDim` from each leaf's path to the root (lists of equal
    length of node labels, leaf first) and which leaves the data holds.

    Nodes are told apart by their whole path, so one label under two parents
    is two nodes; a node's cost counts the present leaves under it."""
    height = len(paths[0]) - 1
    ancestors, node_cost, labels = [], [], []
    n_present = max(int(present.sum()), 1)
    for j in range(height + 1):
        keys = ["\x1f".join(map(str, p[j:])) for p in paths]
        ids, first = _factorize(keys)
        ancestors.append(ids)
        under = np.bincount(ids, weights=present.astype(float), minlength=len(first))
        node_cost.append(np.maximum(under - 1, 0) / max(n_present - 1, 1))
        labels.append([paths[i][j] for i in first])
    return TreeDim(name=name, leaf=leaf, ancestors=ancestors, node_cost=node_cost, labels=labels,
                   location=location, strict=strict)


def _factorize(keys: list) -> tuple[np.ndarray, list]:
    seen: dict = {}
    ids = np.empty(len(keys), dtype=np.int64)
    first = []
    for i, key in enumerate(keys):
        if key not in seen:
            seen[key] = len(seen)
            first.append(i)
        ids[i] = seen[key]
    return ids, first


@dataclass(eq=False)
class Dims:
    """All dimensions of a release, location ones first (how the search
    weighs and prices them is its problem's:
    :class:`~geoanon.joint.problem.SearchProblem`)."""

    items: list = field(default_factory=list)
    _values: tuple = field(default=(), init=False, repr=False)

    def root(self, rows: np.ndarray) -> tuple:
        """The state of ``rows`` alone in every dimension."""
        return tuple(d.node_of(rows) if isinstance(d, TreeDim) else d.root(rows) for d in self.items)

    def ranked_beside(self, work, n_jobs: int):
        """``work()``, while a forked worker (with ``n_jobs`` > 1) sorts the
        rows of every :class:`RankDim` by rank (:meth:`RankDim.by_rank`),
        which the search's first round reads, and moves a grid extent's
        values out onto its grid (:attr:`RankDim.grid_low`,
        :attr:`RankDim.grid_high`), which its first costs read. Returns ``work()``."""
        from .._forked import beside

        if n_jobs == 1:
            return work()
        ranked = [d for d in self.items if isinstance(d, RankDim)]
        found, out = beside(lambda: [(d.by_rank(), *((d.grid_low, d.grid_high) if d.extent == "grid" else ()))
                                     for d in ranked], work, n_jobs)
        for d, (known, *grid) in zip(ranked, found):
            d._by_rank = known
            if grid:
                vars(d).update(grid_low=grid[0], grid_high=grid[1])
        return out

    def row_values(self) -> np.ndarray:
        """Every row's rank in each :class:`RankDim` and value bit in each
        :class:`SetDim` of at most 62 values (0 in the others), a row of the
        table per row, so that one read fetches a row's all; computed once
        for these dimensions."""
        key = tuple(map(id, self.items))
        if not self._values or self._values[0] != key:
            n = next((d.rank.size if isinstance(d, RankDim) else d.leaf.size for d in self.items), 0)
            values = np.zeros((n, len(self.items)), dtype=np.int64)
            for j, d in enumerate(self.items):
                if isinstance(d, RankDim):
                    values[:, j] = d.rank
                elif isinstance(d, SetDim) and d.bits is not None:
                    values[:, j] = d.bits
            self._values = (key, values)
        return self._values[1]


def state_columns(states: list) -> list:
    """Every dimension's states of classes' ``states`` (tuples of a state per
    dimension, each an integer or a tuple of integers, as the search makes
    them) as one array per dimension: n integers, or n x width where each
    is a tuple (a rank dimension's ``(lo, hi, first, end)``, a hierarchy's
    ``(level, node)``); ``np.array``'s where they do not fit an int64 (a set
    of more than 63 values) or are not integers."""
    return [_column(cells) for cells in zip(*states)]


def _column(cells: tuple) -> np.ndarray:
    """One dimension's states (:func:`state_columns`), read in one pass."""
    n, first = len(cells), cells[0]
    width = len(first) if type(first) is tuple and first and type(first[0]) is int else 0
    if (width and set(map(len, cells)) == {width}) or type(first) is int:
        try:
            out = np.fromiter(chain.from_iterable(cells) if width else cells, dtype=np.int64, count=n * max(width, 1))
            return out.reshape(n, width) if width else out
        except (TypeError, OverflowError):      # not integers, or wider than an int64
            return np.array(cells)
    return np.array(cells)


def date_dim(name: str, values: np.ndarray, unit: str, extent: str, k: int = 1):
    """A :class:`RankDim` of a date column (whole days or
    seconds, NaN: missing): cut on the calendar (:func:`~geoanon.dates.calendar_cuts`), outer
    edges on year starts beyond the values, closed intervals published as ISO
    text (``calendar``), open beyond the dates k rows reach."""
    from ..dates import calendar_cuts, outer_edges

    uniq, held, rank, missing = ranked(values, name)
    d = uniq.size
    edges = np.empty(d + 1)
    edges[1:d] = calendar_cuts(uniq[:-1], uniq[1:], unit)
    edges[0], edges[d] = outer_edges(float(uniq[0]), float(uniq[-1]), unit)
    tails = k_reached(uniq, held, k)
    return RankDim(name=name, rank=rank, edges=edges, low=uniq, high=uniq, span=tail_span(uniq, tails), unit=1,
                   missing=missing, extent=extent, rare=held < k, step=1.0, calendar=unit, tails=tails)


def k_reached(uniq: np.ndarray, held: np.ndarray, k: int) -> tuple:
    """The least and greatest of the sorted values ``uniq`` (held by ``held``
    rows each) that k rows reach from either end: below and above them lie
    fewer than k rows, the tails published open."""
    reach = np.cumsum(held)
    if reach[-1] < k:
        return (-np.inf, np.inf)
    return (float(uniq[np.searchsorted(reach, k)]), float(uniq[::-1][np.searchsorted(np.cumsum(held[::-1]), k)]))


def tail_span(uniq: np.ndarray, tails: tuple) -> float:
    """The range a column's NCP is measured on: between the values k rows
    reach, where they differ, else the values' range."""
    low, high = max(tails[0], float(uniq[0])), min(tails[1], float(uniq[-1]))
    return high - low if high > low else float(uniq[-1] - uniq[0])


def dim_costs(d, st: np.ndarray) -> np.ndarray:
    """The ``cost`` of one dimension ``d`` for an array of its states (rows of
    rank or hierarchy states; bit masks of a set of at most 62 values)."""
    if isinstance(d, RankDim):
        first, end, size = st[:, 2], st[:, 3], d.size
        known = (first < size) & (end <= size)
        a, b = d.intervals(st)
        width = (b - a) / d.span if d.span > 0 else np.zeros(st.shape[0])
        return np.where(first >= size, 0.0, np.where(end > size, 1.0, np.where(known, width, 0.0)))
    if isinstance(d, TreeDim):
        return tree_node_costs(d.node_cost, st)
    return (popcount(st) - 1) / max(len(d.names) - 1, 1)


def tree_node_costs(node_cost: list, st: np.ndarray) -> np.ndarray:
    """The costs of hierarchy states ``st`` (level, node) under ``node_cost[level][node]``."""
    out = np.empty(st.shape[0])
    for level in np.unique(st[:, 0]).tolist():
        here = st[:, 0] == level
        out[here] = node_cost[level][st[here, 1]]
    return out


_BYTE_BITS = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)


def popcount(x: np.ndarray) -> np.ndarray:
    """Set bits of each int64 (by byte lookup)."""
    x = np.ascontiguousarray(x, dtype=np.int64)
    return _BYTE_BITS[x.view(np.uint8)].reshape(*x.shape, 8).sum(axis=-1)
