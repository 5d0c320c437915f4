"""Weighted kd-tree cutting, vectorized over all nodes of a tree level.

The tree works in *rank space*: points are distinct, with dense integer ranks
``rx``, ``ry`` along each axis, so a cut is a boundary between two consecutive
ranks and never separates records at identical coordinates. Every node keeps its
points in two orders (by x then y, by y then x) as contiguous segments of two
permutation arrays; a level evaluates every possible cut of every node at once
with cumulative sums, picks one cut per node, and stably partitions both
permutations into the children. A level costs O(n) array work, so the whole tree
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
    sides that split into classes of at most ``T`` (multiples of k for unit
    weights) come first; (2) the sides' margin inside a feasible weight range
    ``[m k, m T]``, so that the next cut has positions to choose from; (3) the
    wider spread of the node's points along the axis (squarer rectangles);
    (4) nearness to the weighted median (shallow trees).

Whatever the policy, a leaf admits no cut, so its weight is at most
``4(k - 1) + heaviest point`` (see :func:`geoanon.partition_points`).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

POLICIES = ("balanced", "paper")
ROBUST_ENOUGH = 0.5  # margins beyond this many k make a cut no safer


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
    """ceil(w / floor(w / k)) for weights w >= k."""
    return -(-w // (w // k))


def _robustness(w: np.ndarray, k: int, target: int) -> np.ndarray:
    """How far weight w sits inside a feasible range [m k, m T], for the best m.

    A node of weight w splits into m classes of weight in [k, T] only if
    m k <= w <= m T; the wider its margin on both sides, the more positions its
    own cut can choose from. Negative when no m fits.
    """
    m = np.maximum(2 * w // (k + target), 1)
    best = np.minimum(w - m * k, m * target - w)
    return np.maximum(best, np.minimum(w - (m + 1) * k, (m + 1) * target - w))


def _segment_lexmin(keys, seg: np.ndarray, n_seg: int):
    """Per segment, the first entry minimizing ``keys`` lexicographically.

    ``keys`` are equally long arrays, ``seg`` the nondecreasing segment id of each
    entry. Returns ``(has, pos)``: whether the segment has an entry, and the index
    of its lexicographic minimum (0 where ``has`` is False).
    """
    has = np.zeros(n_seg, dtype=bool)
    pos = np.zeros(n_seg, dtype=np.int64)
    idx = np.arange(seg.size)
    for key in keys:
        v, s = key[idx], seg[idx]
        first = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
        mins = np.minimum.reduceat(v, first)
        idx = idx[v == np.repeat(mins, np.diff(np.r_[first, v.size]))]
    s = seg[idx]
    first = np.r_[True, s[1:] != s[:-1]]
    has[s[first]] = True
    pos[s[first]] = idx[first]
    return has, pos


def _lex_less(a, b) -> np.ndarray:
    """Elementwise lexicographic ``a < b`` over lists of equally long arrays."""
    less = np.zeros(a[0].shape, dtype=bool)
    equal = np.ones(a[0].shape, dtype=bool)
    for u, v in zip(a, b):
        less |= equal & (u < v)
        equal &= u == v
    return less


def _best_cuts(perm, rank, coord, w, start, end, node_w, seg, k, target, policy):
    """Best admissible cut of every node along one axis.

    Returns per node ``(has, pos, lower, keys, extent)``: whether an admissible
    cut exists, the last position (in ``perm``) of the lower side, the lower
    side's weight, the cut's ranking keys, and the spread of the node's points.
    """
    n_nodes = start.size
    extent = coord[perm[end - 1]] - coord[perm[start]]
    r = rank[perm]
    cw = np.cumsum(w[perm])
    prefix = cw - (cw[start] - w[perm[start]])[seg]
    cand = np.empty(perm.size, dtype=bool)
    cand[:-1] = r[:-1] != r[1:]
    cand[end - 1] = False
    cand &= prefix >= k
    cand &= node_w[seg] - prefix >= k
    idx = np.flatnonzero(cand)
    s = seg[idx]
    lower = prefix[idx]
    upper = node_w[s] - lower
    imbalance = np.abs(lower - upper)
    if policy == "balanced":
        score = np.maximum(np.maximum(_lower_bound(lower, k), _lower_bound(upper, k)), target)
        margin = np.minimum(_robustness(lower, k, target), _robustness(upper, k, target))
        keys = [score, -np.minimum(margin, int(ROBUST_ENOUGH * k)), imbalance]
    else:
        keys = [imbalance]
    if idx.size == 0:
        zeros = np.zeros(n_nodes, dtype=np.int64)
        return np.zeros(n_nodes, dtype=bool), zeros, zeros, [zeros for _ in keys], extent
    has, at = _segment_lexmin(keys, s, n_nodes)
    return has, idx[at], lower[at], [key[at] for key in keys], extent


def _stable_split(perm, seg, right, keep, new_start_left, n_left):
    """Reorder ``perm`` so that each kept node's left points precede its right
    points (both in their old order); drop positions of nodes not kept."""
    kept = np.flatnonzero(keep[seg])
    p, s = perm[kept], seg[kept]
    sd = right[p]
    c_right = np.cumsum(sd) - sd
    first = np.r_[0, np.flatnonzero(s[1:] != s[:-1]) + 1]
    seg_first = np.repeat(first, np.diff(np.r_[first, s.size]))
    offset = np.arange(p.size) - seg_first
    right_before = c_right - c_right[seg_first]
    left_before = offset - right_before
    newpos = new_start_left[s] + np.where(sd, n_left[s] + right_before, left_before)
    out = np.empty_like(p)
    out[newpos] = p
    return out


def kd_partition(rx, ry, x, y, w, k: int, target: int, policy: str) -> KdTree:
    """Cut distinct weighted points into kd-tree leaves of weight >= k.

    Parameters
    ----------
    rx, ry : int arrays
        Dense ranks of each point along x and y; the points are distinct and
        sorted by (x, y).
    x, y : float arrays
        Coordinates, used only to measure a node's spread.
    w : int64 array
        Point weights; their sum must be >= k.
    k : int
    target : int
        The instance's lower bound on the largest class (used by ``"balanced"``).
    policy : {"balanced", "paper"}
    """
    n = w.size
    idx_t = np.int32 if n < 2**31 - 1 else np.int64
    perms = [np.arange(n, dtype=idx_t), np.argsort(ry, kind="stable").astype(idx_t)]
    ranks, coords = (rx, ry), (x, y)
    label = np.full(n, -1, dtype=np.int64)
    right = np.zeros(n, dtype=bool)
    parents, boxes, weights, leaves = [np.array([-1])], [], [], []
    n_leaves = 0

    def close(nodes_start, nodes_size, nodes_id):
        """Make the given nodes leaves, labelling their points through ``perms[0]``."""
        nonlocal n_leaves
        offs = np.repeat(nodes_start - (np.cumsum(nodes_size) - nodes_size), nodes_size)
        label[perms[0][offs + np.arange(offs.size)]] = np.repeat(n_leaves + np.arange(nodes_id.size), nodes_size)
        leaves.append(nodes_id)
        n_leaves += nodes_id.size

    start = np.zeros(1, dtype=np.int64)
    size = np.array([n], dtype=np.int64)
    node_w = np.array([int(w.sum())], dtype=np.int64)
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
        n_nodes = start.size
        end = start + size
        seg = np.repeat(np.arange(n_nodes), size)
        (hx, px, lx, kx, ex), (hy, py, ly, ky, ey) = (
            _best_cuts(perms[a], ranks[a], coords[a], w, start, end, node_w, seg, k, target, policy)
            for a in (0, 1))
        if policy == "balanced":
            prefer_y = _lex_less(ky[:2] + [-ey] + ky[2:], kx[:2] + [-ex] + kx[2:])
        else:
            prefer_y = depth % 2 == 1
        axis_y = np.where(hx & hy, prefer_y, hy)
        split = hx | hy
        cut_pos = np.where(axis_y, py, px)
        w_left = np.where(axis_y, ly, lx)

        stuck = ~split
        if stuck.any():
            close(start[stuck], size[stuck], node_id[stuck])
        sp = np.flatnonzero(split)
        if sp.size == 0:
            break

        # Mark the upper side of every split node along its own axis; note the
        # cut boundary (one past the rank of the lower side's last point).
        right[:] = False
        boundary = np.zeros(n_nodes, dtype=np.int64)
        for a, on_axis in ((0, split & ~axis_y), (1, split & axis_y)):
            pos = np.flatnonzero(on_axis[seg])
            right[perms[a][pos[pos > cut_pos[seg[pos]]]]] = True
            on = np.flatnonzero(on_axis)
            boundary[on] = ranks[a][perms[a][cut_pos[on]]] + 1

        # Children, (left, right) per split node, in a compact layout.
        n_left = cut_pos - start + 1
        new_start = np.zeros(n_nodes, dtype=np.int64)
        new_start[sp] = np.cumsum(size[sp]) - size[sp]
        perms = [_stable_split(p, seg, right, split, new_start, n_left) for p in perms]
        c_start = np.stack([new_start[sp], new_start[sp] + n_left[sp]], 1).ravel()
        c_size = np.stack([n_left[sp], size[sp] - n_left[sp]], 1).ravel()
        c_w = np.stack([w_left[sp], node_w[sp] - w_left[sp]], 1).ravel()
        c_id = n_ids + np.arange(2 * sp.size)
        n_ids += 2 * sp.size
        c_depth = np.repeat(depth[sp] + 1, 2)
        c_box = np.repeat(box[sp], 2, axis=0)
        hi_col = np.where(axis_y[sp], 3, 1)
        c_box[2 * np.arange(sp.size), hi_col] = boundary[sp]
        c_box[2 * np.arange(sp.size) + 1, hi_col - 1] = boundary[sp]
        parents.append(np.repeat(node_id[sp], 2))
        boxes.append(c_box)
        weights.append(c_w)

        # Children too light to cut again are leaves; the rest form the next level.
        small = c_w < 2 * k
        if small.any():
            close(c_start[small], c_size[small], c_id[small])
            keep_pos = np.repeat(~small, c_size)
            perms = [p[keep_pos] for p in perms]
        live = ~small
        size, node_w, node_id, depth, box = c_size[live], c_w[live], c_id[live], c_depth[live], c_box[live]
        start = np.cumsum(size) - size

    return KdTree(parent=np.concatenate(parents), box=np.concatenate(boxes), weight=np.concatenate(weights),
                  leaves=np.concatenate(leaves), label=label)
