"""Weighted kd-tree cutting, vectorized over all nodes of a tree level.

The tree works in *rank space*: points are distinct, with dense integer ranks
``rx``, ``ry`` along each axis, so a cut is a boundary between two consecutive
ranks and never separates records at identical coordinates. Every node keeps its
points in two orders (by x, by y) as contiguous segments of two permutation
arrays, which carry the points' weights and ranks along; a level evaluates the
candidate cuts of every node at once with cumulative sums, picks one cut per
node, and stably partitions both permutations into the children. A level costs O(n) array work, so the whole tree
costs O(n log n) with numpy's constants instead of Python's.

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

Whatever the policy, a leaf admits no cut, so its weight is at most
``4(k - 1) + heaviest point`` (see :func:`geoanon.partition_points`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

ROBUST_ENOUGH = 0.5  # margins beyond this many k make a cut no safer
WINDOW_CLASSES = 4   # look for cuts this many target classes around the median first
LOOKAHEAD_WIDTH = 16  # look one level ahead when classes must land in [k, T] with T - k < this


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


def _lower_bound(w: np.ndarray, k: int) -> np.ndarray:
    """ceil(w / floor(w / k)) for weights w >= k.

    The outer division runs in floating point: both operands are exact, so the
    quotient is correctly rounded and its ceiling exact.
    """
    return np.ceil(w / (w // k)).astype(w.dtype)


def _robustness(w: np.ndarray, k: int, target: int) -> np.ndarray:
    """How far weight w sits inside a feasible range [m k, m T], for the best m.

    A node of weight w splits into m classes of weight in [k, T] only if
    m k <= w <= m T; the wider its margin on both sides, the more positions its
    own cut can choose from. Negative when no m fits.
    """
    m = np.maximum(2 * w // (k + target), 1)
    best = np.minimum(w - m * k, m * target - w)
    return np.maximum(best, np.minimum(w - (m + 1) * k, (m + 1) * target - w))


def _ranking(policy: str, k: int, target: int, exact: int):
    """The keys, smallest first, that rank the admissible cuts of a node, as
    functions of the weights (lower, upper) of its two sides, their node ``s``
    and the axis's :class:`_Lookahead` (or None). A key returns None when it
    cannot tell the given cuts apart."""
    def imbalance(lo, up, s, ahead):
        return np.abs(lo - up)

    if policy == "paper":
        return [imbalance]

    def sides_bound(lo, up):
        return np.maximum(_lower_bound(lo, k), _lower_bound(up, k))

    def score(lo, up, s, ahead):
        # Most cuts let both sides split into classes <= T (w <= T floor(w / k));
        # only the others need the exact bound.
        out = np.full(lo.size, target, dtype=np.int64)
        over = np.flatnonzero((lo > target * (lo // k)) | (up > target * (up // k)))
        out[over] = np.maximum(sides_bound(lo[over], up[over]), target)
        return out

    def risk(lo, up, s, ahead):
        return None if ahead is None else ahead.stuck_sides(lo, up, s)

    cap = int(ROBUST_ENOUGH * k)
    # From m classes on, the ranges [m k, m T] overlap by at least 2 cap, so a
    # side this heavy has a margin of at least cap: no need to compute it.
    roomy = (-(-(k + 2 * cap) // (target - k)) + 1) * target if target > k else np.iinfo(np.int64).max

    def margin(lo, up, s, ahead):
        tight = np.flatnonzero(np.minimum(lo, up) < roomy)
        if tight.size == 0:
            return None
        out = np.full(lo.size, -cap, dtype=np.int64)
        m = np.minimum(_robustness(lo[tight], k, target), _robustness(up[tight], k, target))
        out[tight] = -np.minimum(m, cap)
        return out

    def inexact(lo, up, s, ahead):
        if exact >= target:   # the score already demands it
            return None
        return (lo > exact * (lo // k)) | (up > exact * (up // k))

    return [score, risk, margin, inexact, imbalance]


class _Lookahead:
    """Which sides of a candidate cut would be left with no cut of their own.

    A side of weight in [2k, 2T] must become exactly two classes of weight in
    [k, T]. Along the parent's axis its possible cuts are the parent's positions
    whose prefix (lower side) or suffix (upper side) weight lies in [k, T] on a
    boundary between distinct coordinates. Tables of those weights per node
    (``T - k + 1`` wide, so only built when that is small) answer, for every
    candidate at once, whether each side keeps such a cut along this axis.
    """

    def __init__(self, order, cw, base, start, end, node_w, k, target):
        self.k, self.target = k, target
        width = target - k + 1
        self.tables = []
        for from_end in (False, True):
            lo = node_w - target if from_end else np.full_like(node_w, k)
            hi = node_w - k if from_end else np.full_like(node_w, target)
            first = np.searchsorted(cw, base + lo, side="left")
            stop = np.minimum(np.searchsorted(cw, base + hi, side="right"), end - 1)
            length = np.maximum(stop - first, 0)
            j = _ranges(first, length)
            sj = np.repeat(np.arange(start.size), length)
            keep = order.rank[j] != order.rank[j + 1]
            j, sj = j[keep], sj[keep]
            weight = cw[j] - base[sj]
            if from_end:
                weight = node_w[sj] - weight
            table = np.zeros((start.size, width + 1), dtype=np.int32)
            table[sj, weight - k + 1] = 1
            self.tables.append(np.cumsum(table, axis=1))

    def stuck_sides(self, lower, upper, s):
        """Per candidate, how many of its two sides would be stuck along this axis."""
        k, T = self.k, self.target
        stuck = np.zeros(lower.size, dtype=np.int8)
        for side, table in zip((lower, upper), self.tables):
            two = (side >= 2 * k) & (side <= 2 * T)
            lo = np.clip(side - T, k, T)
            hi = np.clip(side - k, k, T)
            count = table[s, hi - k + 1] - table[s, lo - k]
            stuck += two & (count == 0)
        return stuck


def _segment_lexmin(keys, lower, upper, seg: np.ndarray, n_seg: int, ahead=None):
    """Per segment, the first entry minimizing ``keys`` lexicographically.

    ``keys`` are functions of ``(lower, upper, segment, ahead)``, evaluated only
    on the entries still tied; ``seg`` is the nondecreasing segment id of each
    entry. Returns
    ``(has, pos)``: whether the segment has an entry, and the index of its
    lexicographic minimum (0 where ``has`` is False).
    """
    has = np.zeros(n_seg, dtype=bool)
    pos = np.zeros(n_seg, dtype=np.int64)
    idx = np.arange(seg.size)
    for key in keys:
        s = seg[idx]
        v = key(lower[idx], upper[idx], s, ahead)
        if v is None:
            continue
        first = np.flatnonzero(_starts(s))
        mins = np.minimum.reduceat(v, first)
        idx = idx[v == np.repeat(mins, np.diff(first, append=v.size))]
    s = seg[idx]
    first = _starts(s)
    has[s[first]] = True
    pos[s[first]] = idx[first]
    return has, pos


def _starts(s: np.ndarray) -> np.ndarray:
    """Whether each entry of a sorted array starts a run of equal values."""
    out = np.empty(s.size, dtype=bool)
    out[:1] = True
    np.not_equal(s[1:], s[:-1], out=out[1:])
    return out


def _lex_less(a, b) -> np.ndarray:
    """Elementwise lexicographic ``a < b`` over lists of equally long arrays."""
    less = np.zeros(a[0].shape, dtype=bool)
    equal = np.ones(a[0].shape, dtype=bool)
    for u, v in zip(a, b):
        less |= equal & (u < v)
        equal &= u == v
    return less


def _ranges(first: np.ndarray, length: np.ndarray) -> np.ndarray:
    """Concatenation of ``arange(first[i], first[i] + length[i])`` over i."""
    total = int(length.sum())
    dtype = np.int32 if first.size == 0 or int(first.max()) + total < 2**31 - 1 else np.int64
    out = np.repeat((first - (np.cumsum(length) - length)).astype(dtype), length)
    out += np.arange(total, dtype=dtype)
    return out


class _Order:
    """The active points in one axis order: node after node, each node's points
    sorted along the axis. Carries the points' weights and ranks in that order,
    so that a level reads them sequentially instead of gathering at random."""

    def __init__(self, perm, weight, rank, coord):
        self.perm, self.weight, self.rank, self.coord = perm, weight, rank, coord

    def take(self, positions):
        """Keep the given positions, in the given order."""
        self.perm, self.weight, self.rank = (a.take(positions) for a in (self.perm, self.weight, self.rank))

    def split(self, right, start, n_left, size):
        """Within each node, move the points flagged ``right`` after the others,
        both in their old order."""
        sd = right[self.perm]
        source = np.empty(sd.size, dtype=self.perm.dtype)
        source[_ranges(start, n_left)] = np.flatnonzero(~sd)
        source[_ranges(start + n_left, size - n_left)] = np.flatnonzero(sd)
        self.take(source)

    def best_cuts(self, start, end, node_w, lo, hi, keys, k, target):
        """Best admissible cut of every node along this axis, among cuts whose
        lower side weighs between ``lo`` and ``hi`` (per node).

        Returns per node ``(has, pos, lower, key_values, extent)``: whether such
        a cut exists, the last position of the lower side, the lower side's
        weight, the cut's ranking keys, and the spread of the node's points.
        """
        n_nodes = start.size
        extent = self.coord[self.perm[end - 1]] - self.coord[self.perm[start]]
        cw = np.cumsum(self.weight, dtype=self.weight.dtype)
        base = cw[start] - self.weight[start]
        # cw is nondecreasing, so each node's positions with lower weight in
        # [lo, hi] form one range; the node's last position is never a cut.
        first = np.searchsorted(cw, base + lo, side="left")
        stop = np.minimum(np.searchsorted(cw, base + hi, side="right"), end - 1)
        length = np.maximum(stop - first, 0)
        idx = _ranges(first, length)
        s = np.repeat(np.arange(n_nodes), length)
        between = self.rank[idx] != self.rank[idx + 1]
        idx, s = idx[between], s[between]
        lower = cw[idx] - base[s]
        upper = node_w[s] - lower
        if idx.size == 0:
            zeros = np.zeros(n_nodes, dtype=np.int64)
            return np.zeros(n_nodes, dtype=bool), zeros, zeros, [zeros for _ in keys], extent
        # A side of two classes (weight <= 2T) can only come from a node within
        # the candidate window of it: weight <= 2 (2T + WINDOW_CLASSES T).
        narrow = (len(keys) > 1 and target - k + 1 <= min(LOOKAHEAD_WIDTH, k)
                  and node_w.min() <= (4 + 2 * WINDOW_CLASSES) * target)
        ahead = _Lookahead(self, cw, base, start, end, node_w, k, target) if narrow else None
        has, at = _segment_lexmin(keys, lower, upper, s, n_nodes, ahead)
        lo_at, up_at, s_at = lower[at], upper[at], s[at]
        values = [key(lo_at, up_at, s_at, ahead) for key in keys]
        return has, idx[at], lo_at, [np.zeros(n_nodes, np.int64) if v is None else v for v in values], extent


def _choose_cuts(orders, start, end, node_w, depth, k, target, exact, policy):
    """One cut per node: ``(split, axis_y, pos, lower)``.

    Cuts are first looked for within ``WINDOW_CLASSES`` target classes of the
    weighted median, where a large node always has good ones; nodes with none
    there on either axis are searched in full.
    """
    keys = _ranking(policy, k, target, exact)
    half = node_w // 2
    reach = WINDOW_CLASSES * target
    lo, hi = np.maximum(k, half - reach), np.minimum(node_w - k, half + reach)
    found = [o.best_cuts(start, end, node_w, lo, hi, keys, k, target) for o in orders]
    retry = ~(found[0][0] | found[1][0]) & ((lo > k) | (hi < node_w - k))
    if retry.any():
        lo, hi = np.where(retry, k, 1), np.where(retry, node_w - k, 0)
        again = [o.best_cuts(start, end, node_w, lo, hi, keys, k, target) for o in orders]
        for a in (0, 1):
            has, pos, lower, values, extent = found[a]
            h2, p2, l2, v2, _ = again[a]
            found[a] = (has | h2, np.where(retry, p2, pos), np.where(retry, l2, lower),
                        [np.where(retry, u, v) for u, v in zip(v2, values)], extent)
    (hx, px, lx, kx, ex), (hy, py, ly, ky, ey) = found
    if policy == "balanced":
        prefer_y = _lex_less(ky[:4] + [-ey] + ky[4:], kx[:4] + [-ex] + kx[4:])
    else:
        prefer_y = depth % 2 == 1
    axis_y = np.where(hx & hy, prefer_y, hy)
    return hx | hy, axis_y, np.where(axis_y, py, px), np.where(axis_y, ly, lx)


def kd_partition(rx, ry, x, y, w, k: int, target: int, policy: str, y_order=None, exact=None) -> KdTree:
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
    policy : {"balanced", "paper"}
    y_order : int array, optional
        The points' order by y, if already known.
    exact : int, optional
        The instance's lower bound (default ``target``): among otherwise equal
        cuts, ``"balanced"`` prefers those whose sides can still reach it.
    """
    n = w.size
    idx_t = np.int32 if n < 2**31 - 1 else np.int64
    w = w.astype(np.int32 if int(w.sum(dtype=np.int64)) < 2**31 - 1 else np.int64, copy=False)
    rx, ry = rx.astype(idx_t, copy=False), ry.astype(idx_t, copy=False)
    if y_order is None:
        y_order = np.argsort(ry)
    y_order = y_order.astype(idx_t, copy=False)
    orders = [_Order(np.arange(n, dtype=idx_t), w.copy(), rx.copy(), x),
              _Order(y_order, w[y_order], ry[y_order], y)]
    label = np.full(n, -1, dtype=np.int64)
    right = np.zeros(n, dtype=bool)
    parents, boxes, weights, leaves = [np.array([-1])], [], [], []
    n_leaves = 0

    def close(nodes_start, nodes_size, nodes_id):
        """Make the given nodes leaves, labelling their points."""
        nonlocal n_leaves
        label[orders[0].perm[_ranges(nodes_start, nodes_size)]] = np.repeat(
            n_leaves + np.arange(nodes_id.size), nodes_size)
        leaves.append(nodes_id)
        n_leaves += nodes_id.size

    start = np.zeros(1, dtype=np.int64)
    size = np.array([n], dtype=np.int64)
    node_w = np.array([int(w.sum(dtype=np.int64))], dtype=w.dtype)
    node_id = np.zeros(1, dtype=np.int64)
    depth = np.zeros(1, dtype=np.int64)
    box = np.array([[0, int(rx.max()) + 1, 0, int(ry.max()) + 1]], dtype=np.int64)
    boxes.append(box)
    weights.append(node_w)
    if node_w[0] < 2 * k:
        close(start, size, node_id)
        start = start[:0]
    n_ids = 1

    while start.size:
        end = start + size
        split, axis_y, cut_pos, w_left = _choose_cuts(orders, start, end, node_w, depth, k, target,
                                                      target if exact is None else exact, policy)
        if not split.all():
            stuck = ~split
            close(start[stuck], size[stuck], node_id[stuck])
            if not split.any():
                break
            kept_size = np.where(split, size, 0)
            cut_pos = cut_pos - (start - (np.cumsum(kept_size) - kept_size))
            keep_pos = np.flatnonzero(np.repeat(split, size))
            for o in orders:
                o.take(keep_pos)
            size, node_w, node_id, depth, box = (v[split] for v in (size, node_w, node_id, depth, box))
            axis_y, cut_pos, w_left = axis_y[split], cut_pos[split], w_left[split]
            start = np.cumsum(size) - size
            end = start + size
        n_nodes = start.size
        n_left = cut_pos - start + 1

        # Flag each node's upper side along its own axis; the cut boundary lies
        # one past the rank of the lower side's last point.
        boundary = np.empty(n_nodes, dtype=np.int64)
        flagged = []
        for o, on in zip(orders, (np.flatnonzero(~axis_y), np.flatnonzero(axis_y))):
            boundary[on] = o.rank[cut_pos[on]] + 1
            upper = o.perm[_ranges(cut_pos[on] + 1, end[on] - cut_pos[on] - 1)]
            right[upper] = True
            flagged.append(upper)
        for o in orders:
            o.split(right, start, n_left, size)
        for upper in flagged:
            right[upper] = False

        # Children, (lower, upper) per node.
        c_start = np.stack([start, start + n_left], 1).ravel()
        c_size = np.stack([n_left, size - n_left], 1).ravel()
        c_w = np.stack([w_left, node_w - w_left], 1).ravel()
        c_id = n_ids + np.arange(2 * n_nodes)
        n_ids += 2 * n_nodes
        c_box = np.repeat(box, 2, axis=0)
        hi_col = np.where(axis_y, 3, 1)
        c_box[2 * np.arange(n_nodes), hi_col] = boundary
        c_box[2 * np.arange(n_nodes) + 1, hi_col - 1] = boundary
        parents.append(np.repeat(node_id, 2))
        boxes.append(c_box)
        weights.append(c_w)

        # Children too light to cut again are leaves; the rest form the next level.
        small = c_w < 2 * k
        live = ~small
        if small.any():
            close(c_start[small], c_size[small], c_id[small])
            keep_pos = np.flatnonzero(np.repeat(live, c_size))
            for o in orders:
                o.take(keep_pos)
        size, node_w, node_id, box = c_size[live], c_w[live], c_id[live], c_box[live]
        depth = np.repeat(depth + 1, 2)[live]
        start = np.cumsum(size) - size

    return KdTree(parent=np.concatenate(parents), box=np.concatenate(boxes), weight=np.concatenate(weights),
                  leaves=np.concatenate(leaves), label=label)
