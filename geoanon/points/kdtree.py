"""Weighted kd-tree cutting, level by level, with compiled per-node kernels.

The tree works in *rank space*: points are distinct, with dense integer ranks
``rx``, ``ry`` along each axis, so a cut is a boundary between two consecutive
ranks and never separates records at identical coordinates. Every node keeps its
points in two orders (by x, by y) as contiguous segments of two permutation
arrays, which carry the points' weights and ranks along. A level scans each
node's segments once to pick its cut (:func:`_choose_level`) and stably
partitions both orders into the children (:func:`_split_level`); both are
compiled with numba, so a level costs O(n) machine work and the tree
O(n log n). Nodes are numbered breadth first.

A node stops when no axis-parallel cut leaves weight >= k on both sides: the rule
of Theorem 2 of Du, Eppstein, Goodrich and Lueker. Which of the admissible cuts is
taken is the *policy*:

``"paper"``
    alternate axes with depth, cut at the weighted median among admissible cuts,
    use the other axis only when the preferred one has no admissible cut.
``"balanced"``
    on both axes, rank admissible cuts lexicographically by
    (1) the lower bound the two sides impose, ``max(T, lb(P), lb(W - P))`` with
    ``lb(w) = ceil(w / floor(w / k))`` and ``T`` the target largest class, so that
    sides that split into classes of at most ``T`` come first; (2) one level of
    lookahead: how many sides that must become exactly two classes would have
    no cut of their own along the axis; (3) the sides' margin inside a feasible
    weight range ``[m k, m T]``, so that the next cut has positions to choose
    from; (4) whether the sides can still reach the instance's exact lower bound
    (multiples of k for unit weights); (5) the wider spread of the node's points
    along the axis (squarer rectangles); (6) nearness to the weighted median
    (shallow trees).
``"gaps"``
    as ``"balanced"``, with one more key for the cut's position on an axis,
    after (1) and (2): how wide the gap between the two sides is, up to
    ``GAP_SHARE`` of the node's extent (in ``GAP_STEPS`` steps), so that cuts
    fall in the empty ground between clusters rather than through a town
    (the boxes on either side then end where no record is) wherever the
    classes' sizes leave a choice, as most positions of a large node do. The
    axis is chosen as ``"balanced"`` chooses it (a wider gap on a narrow axis
    would cut slivers). Ranked first, with classes of up to 2k - 1 to leave
    it room, the gap made the largest class 1.9 times the lower bound and the
    median published box larger (bench/RESULTS.md, "The points path").

Every policy places a cut's boundary in the middle of the gap between its two
sides (:meth:`AxisEnds.central_boundary`).

Cuts are looked for within ``WINDOW_CLASSES`` target classes of the weighted
median first, where a large node always has good ones; a node with none there on
either axis is searched in full. Whatever the policy, a leaf admits no cut, so
its weight is at most ``4(k - 1) + heaviest point`` (see
:func:`geoanon.partition_points`).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, partial

import numba
import numpy as np

from .. import _threads

__all__ = ["AxisEnds", "GAP_SHARE", "KdTree", "central_boundary_between", "kd_partition", "least_largest_class",
           "needed_gap"]

ROBUST_ENOUGH = 0.5  # margins beyond this many k make a cut no safer
GAP_SHARE = 0.1      # the gap a cut looks for, as a share of its node's extent
GAP_STEPS = 1000     # "gaps" ranks gaps narrower than GAP_SHARE in this many steps
WINDOW_CLASSES = 4   # look for cuts this many target classes around the median first
LOOKAHEAD_WIDTH = 16  # look one level ahead when classes must land in [k, T] with T - k < this

_jit = numba.njit(cache=True, nogil=True)


def needed_gap(extent, share: float = GAP_SHARE) -> np.ndarray:
    """The gap a cut of a node whose records span ``extent`` on the cut's
    axis looks for between its two sides' nearest records (elementwise):
    ``share`` of it, so cuts fall between clusters."""
    return share * np.asarray(extent, dtype=np.float64)


@dataclass
class KdTree:
    """The cut tree. Node 0 is the root; ``parent`` is -1 there.

    Boxes are in rank boundaries: boundary ``b`` along an axis lies between rank
    ``b - 1`` and rank ``b``, and a box ``(x_lo, x_hi, y_lo, y_hi)`` covers ranks
    ``x_lo <= rx < x_hi`` and ``y_lo <= ry < y_hi``.
    """

    parent: np.ndarray   # parent node of each node
    box: np.ndarray      # (n_nodes, 4) box of each node
    weight: np.ndarray   # weight of each node
    leaves: np.ndarray   # node id of each leaf
    label: np.ndarray    # leaf index of each point
    ends: tuple = ()     # the AxisEnds of x and of y


@dataclass(frozen=True)
class _Rule:
    """The constants of the ranking (see :func:`_cut_keys`)."""

    balanced: bool
    k: int
    target: int
    exact: int
    gaps: bool = False

    @property
    def cap(self) -> int:
        return int(ROBUST_ENOUGH * self.k)

    @property
    def roomy(self) -> int:
        """From m classes on, the ranges [m k, m T] overlap by at least 2 cap,
        so a side this heavy has a margin of at least cap."""
        k, target = self.k, self.target
        return (-(-(k + 2 * self.cap) // (target - k)) + 1) * target if target > k else np.iinfo(np.int64).max

    @property
    def lookahead(self) -> bool:
        return self.balanced and self.target - self.k + 1 <= min(LOOKAHEAD_WIDTH, self.k)

    def args(self):
        return (self.balanced, self.gaps, self.k, self.target, self.exact, self.cap, self.roomy, self.lookahead)


@_jit
def least_largest_class(w, k):
    """ceil(w / floor(w / k)) for a weight w >= k: the least largest class of any split of w into classes >= k."""
    return -(-w // (w // k))


@_jit
def _robustness(w, k, target):
    """How far weight w sits inside a feasible range [m k, m T], for the best m.

    A node of weight w splits into m classes of weight in [k, T] only if
    m k <= w <= m T; the wider its margin on both sides, the more positions its
    own cut can choose from. Negative when no m fits.
    """
    m = max(2 * w // (k + target), 1)
    best = min(w - m * k, m * target - w)
    return max(best, min(w - (m + 1) * k, (m + 1) * target - w))


@_jit
def _stuck(side, table, k, target):
    """1 when a side that must become exactly two classes (weight in [2k, 2T])
    has no cut whose near part weighs in [k, T]; ``table[v - k + 1]`` counts the
    usable cuts with near part of weight at most v."""
    if side < 2 * k or side > 2 * target:
        return 0
    lo, hi = max(side - target, k), min(side - k, target)
    return 1 if table[hi - k + 1] - table[lo - k] == 0 else 0


@_jit
def _head_keys(lo, up, k, target, pre, suf, ahead):
    """The first two of "balanced"'s :func:`_cut_keys`: (score, stuck sides)."""
    score = target
    if lo > target * (lo // k) or up > target * (up // k):
        score = max(max(least_largest_class(lo, k), least_largest_class(up, k)), target)
    return score, _stuck(lo, pre, k, target) + _stuck(up, suf, k, target) if ahead else 0


@_jit
def _cut_keys(lo, up, balanced, gaps, k, target, exact, cap, roomy, head, room):
    """The ranking keys of a cut with sides of weight ``lo`` and ``up``, its
    :func:`_head_keys` ``head`` and a gap ``room`` times the one its edge
    needs, smallest best: (score, stuck sides, narrower gap, -margin,
    inexact, imbalance), the gap only for ``gaps``. "paper" ranks by
    imbalance alone."""
    imbalance = abs(lo - up)
    if not balanced:
        return 0, 0, 0, 0, 0, imbalance
    narrow = -int(GAP_STEPS * min(room, 1.0)) if gaps else 0
    score, risk = head
    margin = -cap
    if min(lo, up) < roomy:
        margin = -min(min(_robustness(lo, k, target), _robustness(up, k, target)), cap)
    inexact = 0
    if exact < target and (lo > exact * (lo // k) or up > exact * (up // k)):
        inexact = 1
    return score, risk, narrow, margin, inexact, imbalance


@_jit
def _tables(weight, rank, a, b, total, k, target, pre, suf):
    """Cumulative counts of the cuts of segment [a, b) whose lower part
    (``pre``) or upper part (``suf``) weighs v in [k, T], at index v - k + 1."""
    pre[:] = 0
    suf[:] = 0
    c = 0
    for p in range(a, b - 1):
        c += weight[p]
        if c > target:
            break
        if c >= k and rank[p] != rank[p + 1]:
            pre[c - k + 1] = 1
    c = 0
    for p in range(b - 2, a - 1, -1):
        c += weight[p + 1]
        if c > target:
            break
        if c >= k and rank[p] != rank[p + 1]:
            suf[c - k + 1] = 1
    for v in range(1, pre.size):
        pre[v] += pre[v - 1]
        suf[v] += suf[v - 1]


@_jit
def _best_cut(weight, rank, point, coord, a, b, total, lo, hi, balanced, gaps, k, target, exact, cap, roomy, ahead,
              pre, suf):
    """The best cut of segment [a, b) along one axis among those whose lower
    side weighs in [lo, hi]: ``(position, lower weight, keys)``, position -1 when
    there is none. The position is the lower side's last; ties go to the first.
    A cut's gap is measured between its sides' coordinates (``coord`` of the
    ``point`` at each position) against ``GAP_SHARE`` of the segment's extent
    (:func:`needed_gap`)."""
    look = ahead and (lo <= 2 * target or total - hi <= 2 * target)
    if look:
        _tables(weight, rank, a, b, total, k, target, pre, suf)
    need = GAP_SHARE * (coord[point[b - 1]] - coord[point[a]]) if gaps else 0.0
    best_pos, best_lower = -1, 0
    best = (0, 0, 0, 0, 0, 0)
    c = 0
    for p in range(a, b - 1):
        c += weight[p]
        if c > hi:
            break
        if c < lo or rank[p] == rank[p + 1]:
            continue
        head = _head_keys(c, total - c, k, target, pre, suf, look) if balanced else (0, 0)
        if balanced and best_pos >= 0 and head > best[:2]:
            continue        # ranked after the best so far by its first keys: no need to read the gap
        room = (coord[point[p + 1]] - coord[point[p]]) / need if gaps and need > 0 else 1.0
        keys = _cut_keys(c, total - c, balanced, gaps, k, target, exact, cap, roomy, head, room)
        if best_pos < 0 or keys < best:
            best_pos, best_lower, best = p, c, keys
    return best_pos, best_lower, best


@_jit
def _choose_level(xw, xr, xc, xp, yw, yr, yc, yp, start, size, node_w, depth,
                  balanced, gaps, k, target, exact, cap, roomy, ahead):
    """One cut per node: ``(has, axis_y, pos, lower)``: whether the node has an
    admissible cut, along which axis, the lower side's last position in that
    axis's order, and the lower side's weight. Each axis's order: its
    weights, ranks, and the coordinate at each position ``p``, ``xc[xp[p]]``
    (:meth:`AxisEnds.reading`)."""
    n_nodes = start.size
    has = np.zeros(n_nodes, dtype=np.bool_)
    axis_y = np.zeros(n_nodes, dtype=np.bool_)
    pos = np.zeros(n_nodes, dtype=np.int64)
    lower = np.zeros(n_nodes, dtype=np.int64)
    pre = np.zeros(target - k + 2, dtype=np.int64)
    suf = np.zeros(target - k + 2, dtype=np.int64)
    reach = WINDOW_CLASSES * target
    for j in range(n_nodes):
        a, b, total = start[j], start[j] + size[j], node_w[j]
        lo, hi = max(k, total // 2 - reach), min(total - k, total // 2 + reach)
        px, lx, kx = _best_cut(xw, xr, xp, xc, a, b, total, lo, hi, balanced, gaps, k, target, exact, cap, roomy, ahead,
                               pre, suf)
        py, ly, ky = _best_cut(yw, yr, yp, yc, a, b, total, lo, hi, balanced, gaps, k, target, exact, cap, roomy, ahead,
                               pre, suf)
        if px < 0 and py < 0 and (lo > k or hi < total - k):
            lo, hi = k, total - k
            px, lx, kx = _best_cut(xw, xr, xp, xc, a, b, total, lo, hi, balanced, gaps, k, target, exact, cap, roomy,
                                   ahead, pre, suf)
            py, ly, ky = _best_cut(yw, yr, yp, yc, a, b, total, lo, hi, balanced, gaps, k, target, exact, cap, roomy,
                                   ahead, pre, suf)
        if px < 0 and py < 0:
            continue
        has[j] = True
        if px >= 0 and py >= 0:
            if balanced:
                ex = xc[xp[b - 1]] - xc[xp[a]]
                ey = yc[yp[b - 1]] - yc[yp[a]]
                head_x, head_y = (kx[0], kx[1], kx[3], kx[4]), (ky[0], ky[1], ky[3], ky[4])   # not by the gap
                use_y = head_y < head_x or (head_y == head_x and (ey > ex or (ey == ex and ky[5] < kx[5])))
            else:
                use_y = depth[j] % 2 == 1
        else:
            use_y = py >= 0
        axis_y[j] = use_y
        pos[j] = py if use_y else px
        lower[j] = ly if use_y else lx
    return has, axis_y, pos, lower


@_jit
def _split_node(a, c, b, own_p, own_w, own_r, oth_p, oth_w, oth_r, out_own_p, out_own_w, out_own_r,
                out_oth_p, out_oth_w, out_oth_r, leaf_lo, leaf_up, at_lo, at_up, mark, label):
    """Split segment [a, b) after position c of its own axis's order: each child
    either becomes a leaf (its points labelled) or is written, in both orders,
    at its output position; the other order is partitioned stably."""
    for i in range(c + 1, b):
        mark[own_p[i]] = True
    for first, stop, leaf, at in ((a, c + 1, leaf_lo, at_lo), (c + 1, b, leaf_up, at_up)):
        if leaf >= 0:
            for i in range(first, stop):
                label[own_p[i]] = leaf
        else:
            for i in range(first, stop):
                d = at + i - first
                out_own_p[d], out_own_w[d], out_own_r[d] = own_p[i], own_w[i], own_r[i]
    d_lo, d_up = at_lo, at_up
    for i in range(a, b):
        p = oth_p[i]
        if mark[p]:
            if leaf_up < 0:
                out_oth_p[d_up], out_oth_w[d_up], out_oth_r[d_up] = p, oth_w[i], oth_r[i]
                d_up += 1
        elif leaf_lo < 0:
            out_oth_p[d_lo], out_oth_w[d_lo], out_oth_r[d_lo] = p, oth_w[i], oth_r[i]
            d_lo += 1
    for i in range(c + 1, b):
        mark[own_p[i]] = False


@_jit
def _split_level(xp, xw, xr, yp, yw, yr, start, size, has, axis_y, pos, node_leaf, child_leaf, child_at,
                 oxp, oxw, oxr, oyp, oyw, oyr, mark, label):
    """Split every node with a cut into its children and label the points of
    new leaves: nodes without a cut (``node_leaf``) and children that become
    leaves (``child_leaf >= 0``). Writes both orders of the points left into
    ``oxp ... oyr``, the live children laid out at ``child_at``. Nodes hold
    disjoint points: threads may split disjoint runs of nodes at once."""
    for j in range(start.size):
        a, b = start[j], start[j] + size[j]
        if not has[j]:
            for i in range(a, b):
                label[xp[i]] = node_leaf[j]
            continue
        leaf_lo, leaf_up = child_leaf[2 * j], child_leaf[2 * j + 1]
        at_lo, at_up = child_at[2 * j], child_at[2 * j + 1]
        if axis_y[j]:
            _split_node(a, pos[j], b, yp, yw, yr, xp, xw, xr, oyp, oyw, oyr, oxp, oxw, oxr,
                        leaf_lo, leaf_up, at_lo, at_up, mark, label)
        else:
            _split_node(a, pos[j], b, xp, xw, xr, yp, yw, yr, oxp, oxw, oxr, oyp, oyw, oyr,
                        leaf_lo, leaf_up, at_lo, at_up, mark, label)


def _node_runs(size: np.ndarray, threads: int) -> list:
    """The level's nodes in runs ``(i, j)`` of about equal points, one per
    thread (one run below :data:`geoanon._threads.THREADED` points or with one thread)."""
    total = int(size.sum())
    if threads < 2 or size.size < 2 or total < _threads.THREADED:
        return [(0, size.size)]
    ends = np.clip(np.searchsorted(np.cumsum(size), np.arange(1, threads) * total / threads), 1, size.size - 1)
    bounds = np.unique(np.r_[0, ends, size.size])
    return list(zip(bounds[:-1].tolist(), bounds[1:].tolist()))


def _choose_in_runs(runs: list, points: tuple, nodes: tuple, rule: tuple) -> list:
    """:func:`_choose_level` of each run of nodes, in threads, joined: the
    level's ``points`` (each order's weights, ranks and coordinate reading)
    and per-node arrays ``nodes``."""
    chosen = _threads.in_threads([partial(_choose_level, *points, *(a[i:j] for a in nodes), *rule) for i, j in runs])
    return [np.concatenate(parts) for parts in zip(*chosen)]


def _split_in_runs(runs: list, orders: tuple, nodes: tuple, children: tuple, n_out: int, mark, label) -> list:
    """:func:`_split_level` of each run of nodes, in threads: the level's
    points in both ``orders`` (x's and y's position, weight and rank) split
    into ``n_out`` positions; ``nodes``: the per-node arrays, ``children``:
    the per-child ones (two per node)."""
    out = [np.empty(n_out, a.dtype) for a in orders]
    _threads.in_threads([partial(_split_level, *orders, *(a[i:j] for a in nodes),
                                 *(a[2 * i:2 * j] for a in children), *out, mark, label) for i, j in runs])
    return out


def kd_partition(rx, ry, x, y, w, k: int, target: int, policy: str, y_order=None, exact=None,
                 threads: int = 1) -> KdTree:
    """Cut distinct weighted points into kd-tree leaves of weight >= k.

    Parameters
    ----------
    rx, ry : int arrays
        Dense ranks of each point along x and y; the points are distinct and
        sorted by x.
    x, y : float arrays
        Coordinates, used only to measure a node's spread.
    w : int array
        Point weights; their sum must be >= k and fit ``w.dtype`` (int32 keeps
        the per-level passes over the points half as heavy as int64).
    k : int
    target : int
        The largest class aimed at (used by ``"balanced"``).
    policy : {"balanced", "gaps", "paper"}
    y_order : int array, optional
        The points' order by y, if already known.
    exact : int, optional
        The instance's lower bound (default ``target``): among otherwise equal
        cuts, ``"balanced"`` prefers those whose sides can still reach it.
    threads : int
        Threads cutting each level, a run of its nodes each (the same tree).
    """
    n = w.size
    idx_t = np.int32 if n < 2**31 - 1 else np.int64
    w = w.astype(np.int32 if int(w.sum(dtype=np.int64)) < 2**31 - 1 else np.int64, copy=False)
    rx, ry = rx.astype(idx_t, copy=False), ry.astype(idx_t, copy=False)
    y_order = (np.argsort(ry) if y_order is None else y_order).astype(idx_t, copy=False)
    rule = _Rule(policy != "paper", int(k), int(target), int(target if exact is None else exact),
                 policy == "gaps").args()
    x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    ends = (AxisEnds.of(x, rx), AxisEnds.of(y[y_order], ry[y_order]))
    xp, xw, xr = np.arange(n, dtype=idx_t), w, rx
    yp, yw, yr = y_order, w[y_order], ry[y_order]
    label = np.full(n, -1, dtype=np.int64)
    mark = np.zeros(n, dtype=np.bool_)
    parents, boxes, weights, leaves = [np.array([-1])], [], [], []
    n_leaves = 0

    start = np.zeros(1, dtype=np.int64)
    size = np.array([n], dtype=np.int64)
    node_w = np.array([int(w.sum(dtype=np.int64))], dtype=np.int64)
    node_id = np.zeros(1, dtype=np.int64)
    depth = np.zeros(1, dtype=np.int64)
    box = np.array([[0, int(rx.max()) + 1, 0, int(ry.max()) + 1]], dtype=np.int64)
    boxes.append(box)
    weights.append(node_w)
    if node_w[0] < 2 * k:
        label[:] = 0
        leaves.append(node_id)
        start = start[:0]
    n_ids = 1

    while start.size:
        runs = _node_runs(size, threads)
        has, axis_y, cut_pos, w_left = _choose_in_runs(
            runs, (xw, xr, *ends[0].reading(x, xr, xp), yw, yr, *ends[1].reading(y, yr, yp)),
            (start, size, node_w, depth), rule)
        stuck = np.flatnonzero(~has)
        node_leaf = np.full(start.size, -1, dtype=np.int64)
        node_leaf[stuck] = n_leaves + np.arange(stuck.size)
        leaves.append(node_id[stuck])
        n_leaves += stuck.size

        cut = np.flatnonzero(has)
        boundary = np.empty(cut.size, dtype=np.int64)
        for along_y, r, axis_ends in ((False, xr, ends[0]), (True, yr, ends[1])):
            on = axis_y[cut] == along_y
            at = cut_pos[cut[on]]
            boundary[on] = axis_ends.central_boundary(r[at], r[at + 1])
        n_left = cut_pos[cut] - start[cut] + 1
        c_size = np.stack([n_left, size[cut] - n_left], 1).ravel()
        c_w = np.stack([w_left[cut], node_w[cut] - w_left[cut]], 1).ravel()
        c_id = n_ids + np.arange(c_w.size)
        n_ids += c_w.size
        c_box = np.repeat(box[cut], 2, axis=0)
        hi_col = np.where(axis_y[cut], 3, 1)
        c_box[2 * np.arange(cut.size), hi_col] = boundary
        c_box[2 * np.arange(cut.size) + 1, hi_col - 1] = boundary
        parents.append(np.repeat(node_id[cut], 2))
        boxes.append(c_box)
        weights.append(c_w)

        # Children too light to cut again are leaves; the rest form the next level.
        live = c_w >= 2 * k
        small = np.flatnonzero(~live)
        slots = (2 * cut[:, None] + np.array([0, 1])).ravel()
        child_leaf = np.full(2 * start.size, -1, dtype=np.int64)
        child_leaf[slots[small]] = n_leaves + np.arange(small.size)
        leaves.append(c_id[small])
        n_leaves += small.size
        kept = np.where(live, c_size, 0)
        child_at = np.zeros(2 * start.size, dtype=np.int64)
        child_at[slots] = np.cumsum(kept) - kept
        xp, xw, xr, yp, yw, yr = _split_in_runs(runs, (xp, xw, xr, yp, yw, yr), (start, size, has, axis_y, cut_pos,
                                                node_leaf), (child_leaf, child_at), int(kept.sum()), mark, label)
        size, node_w, node_id, box = c_size[live], c_w[live], c_id[live], c_box[live]
        depth = np.repeat(depth[cut] + 1, 2)[live]
        start = np.cumsum(size) - size

    return KdTree(parent=np.concatenate(parents), box=np.concatenate(boxes), weight=np.concatenate(weights),
                  leaves=np.concatenate(leaves), label=label, ends=ends)


@dataclass(frozen=True)
class AxisEnds:
    """The least and the greatest coordinate holding each rank of an axis,
    and the middles between consecutive ranks (``mids[b - 1]`` lies between
    ranks ``b - 1`` and ``b``)."""

    lows: np.ndarray
    highs: np.ndarray
    mids: np.ndarray

    @classmethod
    def of(cls, values: np.ndarray, ranks: np.ndarray) -> "AxisEnds":
        """From ``values`` in rank order (``ranks`` nondecreasing, dense from 0)."""
        first = np.r_[True, ranks[1:] != ranks[:-1]]
        last = np.r_[first[1:], True]
        lows, highs = values[first], values[last]
        return cls(lows, highs, (highs[:-1] + lows[1:]) / 2)

    @cached_property
    def one_value_each(self) -> bool:
        """Whether each rank holds one coordinate (none merges two a float apart)."""
        return bool(np.array_equal(self.lows, self.highs))

    def reading(self, values: np.ndarray, ranks: np.ndarray, points: np.ndarray) -> tuple:
        """``(coordinates, index)``, the coordinate at each position ``p`` of an
        order being ``coordinates[index[p]]``: by rank (:attr:`lows` by
        ``ranks``) where each rank holds one value, read in a node's order,
        nearly in turn; else by point (``values`` by ``points``), scattered.
        The same values either way."""
        return (self.lows, ranks) if self.one_value_each else (values, points)

    def central_boundary(self, left, right) -> np.ndarray:
        """For cuts between rank ``left`` (the lower side's last) and rank
        ``right`` (the upper side's first): the boundary ``b`` in ``(left,
        right]`` (between ranks ``b - 1`` and ``b``) nearest the middle of the
        gap between the two sides, so the edge keeps away from both (the
        first such on a tie)."""
        left, right = np.asarray(left, dtype=np.int64), np.asarray(right, dtype=np.int64)
        out = np.empty(left.shape, dtype=np.int64)
        _central(self.lows, self.highs, self.mids, left.ravel(), right.ravel(), out.ravel())
        return out


@numba.njit(cache=True)
def _central(lows, highs, mids, left, right, out):
    """:meth:`AxisEnds.central_boundary`, each searching only its own gap."""
    for j in range(left.size):
        out[j] = central_boundary_between(lows, highs, mids, left[j], right[j])


@_jit
def central_boundary_between(lows, highs, mids, a, b):
    """:meth:`AxisEnds.central_boundary` of one cut between ranks ``a`` and ``b``
    (``lows``, ``highs``, ``mids``: the :class:`AxisEnds`' arrays), compiled."""
    middle = (highs[a] + lows[b]) / 2
    lo, hi = a, b                       # the first i in [a, b) with mids[i] >= middle, else b
    while lo < hi:
        m = (lo + hi) // 2
        if mids[m] < middle:
            lo = m + 1
        else:
            hi = m
    upper = min(lo + 1, b)
    lower = max(upper - 1, a + 1)
    return lower if middle - mids[lower - 1] <= mids[upper - 1] - middle else upper
