"""Exact guillotine search on small regions, and the repair of a kd-tree's heavy leaves.

The greedy cut rules look one level ahead, so now and then a node ends up with no
admissible cut although its weight exceeds the target (heavy duplicates, points
on a line). :func:`repair` climbs from such a leaf to its ancestors and
re-solves each ancestor's region *exactly* over all guillotine (recursive
axis-parallel) partitions with :func:`guillotine_min_max`, replacing the subtree
when that lowers the region's largest class. Every region keeps its box, so the
result still tiles the plane. A small region often has no such partition within
the target (two classes cannot share 23 records at k = 10 and at most 11 each)
where a larger one has: the climb goes on to regions of ``REPAIR_RECORDS``
records, each search stopping after ``SEARCH_BUDGET`` states, and a class a
re-solve leaves above the target climbs on from there. A re-solve cuts each box
across its longer side first: taken most balanced first, the cuts of a region of
thousands of records drew slivers (the test tables of Texas visits, 3,000 rows at
k = 5: p90 box 37 -> 222 km). On ``bench_points``' households (1-4 records per
location, 2*10^5 records, k = 10), climbing to 12 targets left classes of 14
(1.40x the lower bound); to 4,096 records, 11 (1.10x), with boxes as wide.
"""
from __future__ import annotations

import numba
import numpy as np

from .kdtree import KdTree, central_boundary_between, least_largest_class

__all__ = ["repair", "unforced"]

REPAIR_RECORDS = 4096  # climb to ancestors of at most this many records (or twice the target)
SEARCH_BUDGET = 2000   # states one exact search may expand before it gives up
TOTAL_BUDGET = 100_000 # states all searches of one repair may expand, plus one per 50 points

_jit = numba.njit(cache=True, nogil=True)
_MEMO = numba.types.UniTuple(numba.types.int64, 3)  # a box's smallest T proven feasible, its cut, largest T infeasible
_NO_MEMO = (2**62, -1, -1)
_NO_COORDS = np.zeros(0)                          # no coordinates: no side preferred
_FALSE, _TRUE, _SPENT = 0, 1, 2                     # a search's answers: infeasible, feasible, budget spent


def guillotine_min_max(lx, ly, w, k: int, upper: int, budget: int = SEARCH_BUDGET, spent=None):
    """Smallest largest class over all guillotine partitions of a small point set.

    Parameters
    ----------
    lx, ly : int arrays
        Dense local ranks of distinct points.
    w : int array
        Point weights, summing to >= k.
    k : int
    upper : int
        Only solutions whose largest class is at most ``upper`` are of interest.
    budget : int
        Search states to expand at most.
    spent : list of one int, optional
        Incremented by the number of states expanded.

    Returns
    -------
    ``(max_weight, cuts)`` or ``None`` when no guillotine partition reaches
    ``upper`` (or the budget ran out first). ``cuts`` is the cut tree in
    preorder (the lower side's subtree before the upper side's): -1 for a
    class, ``axis + 2 j`` for a cut after local rank ``j`` along ``axis``
    (0 = x, 1 = y).
    """
    best, expanded, cuts, _, _ = _exact(np.asarray(lx, dtype=np.int64), np.asarray(ly, dtype=np.int64),
                                        np.asarray(w, dtype=np.int64), k, upper, budget, _NO_COORDS, _NO_COORDS)
    if spent is not None:
        spent[0] += expanded
    return None if best < 0 else (best, cuts)


@_jit
def _exact(xs, ys, w, k, upper, budget, x_at, y_at):
    """:func:`guillotine_min_max` of points at ranks ``xs``, ``ys`` (any,
    not only dense ones): (the least largest class or -1, states expanded,
    the cut tree, and the distinct xs and ys its local ranks stand for).
    ``x_at``, ``y_at``: each rank's coordinate, to cut a box across its
    longer side first (empty: no preference)."""
    gx, gy = np.unique(xs), np.unique(ys)
    S = np.zeros((gx.size + 1, gy.size + 1), dtype=np.int64)
    heaviest = 0
    for i, (lx, ly) in enumerate(zip(np.searchsorted(gx, xs), np.searchsorted(gy, ys))):
        S[lx + 1, ly + 1] += w[i]
        heaviest = max(heaviest, w[i])
    for i in range(1, gx.size + 1):
        for j in range(1, gy.size + 1):
            S[i, j] += S[i - 1, j] + S[i, j - 1] - S[i - 1, j - 1]
    total = S[gx.size, gy.size]
    first = max(k, heaviest, least_largest_class(total, k))    # partition.count_lower_bound
    cx = x_at[gx] if x_at.size else np.zeros(gx.size)
    cy = y_at[gy] if y_at.size else np.zeros(gy.size)
    best, expanded, cuts = _min_max(S, k, first, upper, budget, cx, cy)
    return best, expanded, cuts, gx, gy


@_jit
def _min_max(S, k, first, upper, budget, cx, cy):
    """:func:`guillotine_min_max` on the prefix sums ``S`` of its weights:
    (the least largest class, or -1; states expanded; the cut tree). The
    search runs targets T = ``first``, ``first`` + 1, ... up to ``upper``,
    each a memoized depth-first search over boxes (a, b, c, d) of local
    ranks (columns a..b-1, rows c..d-1) that tries a box's admissible cuts
    most balanced first; what one T proved is kept for the next."""
    nx, ny = S.shape[0] - 1, S.shape[1] - 1
    root = _tight(S, 0, nx, 0, ny)
    memo = numba.typed.Dict.empty(key_type=numba.types.int64, value_type=_MEMO)
    frames = np.empty((nx + ny + 2, 12), dtype=np.int64)
    options = np.empty(4 * (nx + ny) + 16, dtype=np.int64)
    expanded = 0
    for T in range(first, upper + 1):
        answer, expanded, options = _solve(S, k, T, root, budget, expanded, memo, frames, options, cx, cy)
        if answer == _SPENT:
            break
        if answer == _TRUE:
            return T, expanded, _preorder(S, T, root, memo)
    return -1, expanded, np.empty(0, dtype=np.int64)


@_jit
def _weight(S, a, b, c, d):
    return S[b, d] - S[a, d] - S[b, c] + S[a, c]


@_jit
def _tight(S, a, b, c, d):
    """The smallest box holding the points of box (a, b, c, d) (not empty)."""
    while _weight(S, a, a + 1, c, d) == 0:
        a += 1
    while _weight(S, b - 1, b, c, d) == 0:
        b -= 1
    while _weight(S, a, b, c, c + 1) == 0:
        c += 1
    while _weight(S, a, b, d - 1, d) == 0:
        d -= 1
    return a, b, c, d


@_jit
def _key(S, a, b, c, d):
    """A box's key in the memo."""
    return ((a * S.shape[0] + b) * S.shape[1] + c) * S.shape[1] + d


@_jit
def _known(memo, key):
    """What the memo knows of a box: (smallest T proven feasible, its cut, largest T proven infeasible)."""
    return memo[key] if key in memo else _NO_MEMO


@_jit
def _write_options(S, a, b, c, d, k, T, options, at, cx, cy):
    """The admissible cuts of box (a, b, c, d) under ``T`` written from
    ``options[at]`` on, sorted across the box's longer side first (its
    extent in the coordinates ``cx``, ``cy`` of the local ranks: squarer
    boxes), then most balanced first (then x before y, then by position), as
    ``(((shorter (W + 1) + |2 lower - W|) 2 + axis) M + j)`` for a cut after
    local rank j (M = S.shape[0] + S.shape[1]); returns their count."""
    W, M, n = _weight(S, a, b, c, d), S.shape[0] + S.shape[1], 0
    ex, ey = cx[b - 1] - cx[a], cy[d - 1] - cy[c]
    for axis in range(2):
        lo, hi = (a, b) if axis == 0 else (c, d)
        shorter = 1 if (ex < ey if axis == 0 else ey < ex) else 0
        prefix = 0
        for j in range(lo, hi - 1):
            v = _weight(S, j, j + 1, c, d) if axis == 0 else _weight(S, a, b, j, j + 1)
            prefix += v
            if v and k <= prefix <= W - k and least_largest_class(prefix, k) <= T \
                    and least_largest_class(W - prefix, k) <= T:
                options[at + n] = ((shorter * (W + 1) + abs(2 * prefix - W)) * 2 + axis) * M + j
                n += 1
    options[at:at + n].sort()
    return n


@_jit
def _cut(S, option):
    """The axis and the local rank after which an entry of :func:`_write_options` cuts."""
    M = S.shape[0] + S.shape[1]
    return (option // M) % 2, option % M


@_jit
def _sides(S, a, b, c, d, axis, j):
    """The tight boxes on either side of a cut of box (a, b, c, d) after local rank ``j`` along ``axis``."""
    if axis == 0:
        return _tight(S, a, j + 1, c, d), _tight(S, j + 1, b, c, d)
    return _tight(S, a, b, c, j + 1), _tight(S, a, b, j + 1, d)


@_jit
def _solve(S, k, T, root, budget, expanded, memo, frames, options, cx, cy):
    """Whether ``root`` has a cut tree with every class <= T: the recursion
    "a box of weight <= T is a class; else try its cuts, most balanced first,
    until both sides have a tree" on an explicit stack (``frames``: a box,
    its options' slice and the next one, the side being solved, the upper
    side's box). Returns (answer, states expanded so far, the options'
    buffer, grown if it had to)."""
    sp, used, answer, call = 0, 0, _FALSE, True
    a, b, c, d = root
    while True:
        if call:                                        # solve box (a, b, c, d)
            call = False
            known = _known(memo, _key(S, a, b, c, d))
            if _weight(S, a, b, c, d) <= T or known[0] <= T:
                answer = _TRUE
            elif known[2] >= T:
                answer = _FALSE
            else:
                expanded += 1
                if expanded > budget:
                    return _SPENT, expanded, options
                if used + (b - a) + (d - c) > options.size:
                    options = np.concatenate((options, np.empty(options.size + b - a + d - c, dtype=np.int64)))
                n = _write_options(S, a, b, c, d, k, T, options, used, cx, cy)
                f = frames[sp]
                f[0], f[1], f[2], f[3], f[4], f[5], f[6], f[7] = a, b, c, d, used, used + n, used, 0
                sp, used, answer = sp + 1, used + n, _FALSE
        if sp == 0:
            return answer, expanded, options
        f = frames[sp - 1]
        if answer == _TRUE and f[7] == 1:               # the lower side has a tree: solve the upper side
            f[7] = 2
            a, b, c, d, call = f[8], f[9], f[10], f[11], True
        elif answer == _TRUE or f[6] == f[5]:           # both sides have one, or no cut is left: done with the box
            key = _key(S, f[0], f[1], f[2], f[3])
            known = _known(memo, key)
            if answer == _TRUE:
                axis, j = _cut(S, options[f[6] - 1])
                memo[key] = (T, axis + 2 * j, known[2])
            else:
                memo[key] = (known[0], known[1], max(T, known[2]))
            sp, used = sp - 1, f[4]
        else:                                           # the next cut: solve its lower side
            axis, j = _cut(S, options[f[6]])
            low, high = _sides(S, f[0], f[1], f[2], f[3], axis, j)
            f[6] += 1
            f[7] = 1
            f[8], f[9], f[10], f[11] = high
            a, b, c, d = low
            call = True


@_jit
def _preorder(S, T, root, memo):
    """The cut tree of ``root`` under ``T`` in preorder, from the memo: a box
    weighing at most the T its parent's tree was found under is a class,
    else its memoized cut, found under a T no larger."""
    out = []
    stack = [(root[0], root[1], root[2], root[3], T)]
    while stack:
        a, b, c, d, under = stack.pop()
        if _weight(S, a, b, c, d) <= under:
            out.append(-1)
            continue
        found, cut, _ = memo[_key(S, a, b, c, d)]
        low, high = _sides(S, a, b, c, d, cut % 2, cut // 2)
        stack.append((high[0], high[1], high[2], high[3], found))
        stack.append((low[0], low[1], low[2], low[3], found))
        out.append(cut)
    return np.array(out, dtype=np.int64)


@_jit
def _leaf_boxes(cuts, box, gx, gy, x_ends, y_ends):
    """Leaf boxes (global rank boundaries) of a local cut tree (preorder, as
    :func:`guillotine_min_max` returns it) inside ``box``, each cut in the
    middle of its gap (:func:`~geoanon.points.kdtree.central_boundary_between`;
    ``gx``, ``gy``: the global ranks of the local ones; ``x_ends``, ``y_ends``:
    the tree's :class:`~geoanon.points.kdtree.AxisEnds` arrays)."""
    leaves, stack = [], [(box[0], box[1], box[2], box[3])]
    for cut in cuts:
        low = stack.pop()
        if cut < 0:
            leaves.append(low)
            continue
        j = cut // 2
        if cut % 2 == 0:
            b = central_boundary_between(x_ends[0], x_ends[1], x_ends[2], gx[j], gx[j + 1])
            stack.append((b, low[1], low[2], low[3]))
            stack.append((low[0], b, low[2], low[3]))
        else:
            b = central_boundary_between(y_ends[0], y_ends[1], y_ends[2], gy[j], gy[j + 1])
            stack.append((low[0], low[1], b, low[3]))
            stack.append((low[0], low[1], low[2], b))
    return leaves


def forced(weights: np.ndarray, label: np.ndarray, w: np.ndarray, k: int) -> np.ndarray:
    """Each leaf's heaviest point when that point weighs k or more, else 0:
    such a point could be a class by itself, and whichever class holds it
    weighs at least as much."""
    top = np.zeros(len(weights), dtype=np.int64)
    np.maximum.at(top, label, w)
    return np.where(top >= k, top, 0)


def unforced(weights: np.ndarray, label: np.ndarray, w: np.ndarray, k: int) -> np.ndarray:
    """Each leaf's weight beyond its :func:`forced` point."""
    return weights - forced(weights, label, w, k)


def repair(tree: KdTree, rx, ry, w, k: int, target: int):
    """Lower the leaves of ``tree`` heavier than ``target`` and than their
    :func:`forced` point by exact re-solves, the heaviest first, within
    ``TOTAL_BUDGET`` states.

    ``rx``, ``ry`` are the points' ranks, the points sorted by (x, y). Returns
    ``(label, boxes, weights)``: the leaf of each point, and each leaf's box
    (rank boundaries) and weight.
    """
    boxes = tree.box[tree.leaves]
    weights = tree.weight[tree.leaves]
    label = tree.label
    bad = np.flatnonzero(weights > np.maximum(target, forced(weights, label, w, k)))
    if bad.size == 0:
        return label, boxes, weights
    label = label.copy()
    ends = [(e.lows, e.highs, e.mids) for e in tree.ends]
    boxes, weights, alive = _repair_leaves(
        bad[np.argsort(-weights[bad], kind="stable")], rx, ry, w.astype(np.int64), k, target, tree.parent, tree.box,
        tree.weight, tree.leaves, label, boxes, weights.astype(np.int64), *ends, TOTAL_BUDGET + len(w) // 50)
    keep = np.flatnonzero(alive)
    remap = np.full(len(alive), -1, dtype=np.int64)
    remap[keep] = np.arange(keep.size)
    return remap[label], boxes[keep], weights[keep]


@_jit
def _repair_leaves(order, rx, ry, w, k, target, parent, node_box, node_weight, leaf_node, label, boxes, weights,
                   x_ends, y_ends, allowance):
    """The loop of :func:`repair` over its heavy leaves (``order``): climb
    from each, while it is alive and the budget lasts, to its ancestors of up
    to ``REPAIR_RECORDS`` records (twice the target if more), and replace an
    ancestor's leaves by its exact re-solve when that lowers their largest
    class into no fewer classes (fewer would widen boxes: the demo's at k = 5,
    median 46.8 -> 51.1 km), until a leaf is within the target; a leaf of a re-solve above the
    target is queued, to climb on from the region it fills. Relabels
    ``label`` in place; returns every leaf's box, weight and whether it is
    still one (the replaced ones are not)."""
    box_of = [(b[0], b[1], b[2], b[3]) for b in boxes]
    weight_of = [v for v in weights]
    alive = [True for _ in weights]
    node_of = [v for v in leaf_node]         # the tree node a leaf fills: its ancestors are climbed
    queue = [v for v in order]
    spent, head = 0, 0
    while head < len(queue):
        leaf = queue[head]
        head += 1
        if spent >= allowance:
            break
        if not alive[leaf] or weight_of[leaf] <= target:
            continue
        node = node_of[leaf]
        while parent[node] >= 0 and node_weight[parent[node]] <= max(REPAIR_RECORDS, 2 * target):
            node = parent[node]
            nb = node_box[node]
            lo, hi = np.searchsorted(rx, nb[0]), np.searchsorted(rx, nb[1])
            pts = lo + np.flatnonzero((ry[lo:hi] >= nb[2]) & (ry[lo:hi] < nb[3]))
            current = 0
            for p in pts:      # leaves lie inside the node's box or outside it
                current = max(current, weight_of[label[p]])
            best, expanded, cuts, gx, gy = _exact(rx[pts], ry[pts], w[pts], k, current - 1, SEARCH_BUDGET, x_ends[0],
                                                  y_ends[0])
            spent += expanded
            if best < 0 or (cuts < 0).sum() < np.unique(label[pts]).size:    # none, or fewer classes: wider boxes
                continue
            for p in pts:
                alive[label[p]] = False
            for b in _leaf_boxes(cuts, nb, gx, gy, x_ends, y_ends):
                mine = pts[(rx[pts] >= b[0]) & (rx[pts] < b[1]) & (ry[pts] >= b[2]) & (ry[pts] < b[3])]
                label[mine] = len(box_of)
                box_of.append(b)
                weight_of.append(w[mine].sum())
                alive.append(True)
                node_of.append(node)
                if weight_of[-1] > target:
                    queue.append(len(box_of) - 1)
            if best <= target:
                break
    out_boxes = np.empty((len(box_of), 4), dtype=np.int64)
    for i, b in enumerate(box_of):
        out_boxes[i] = b
    return out_boxes, np.array(weight_of), np.array(alive)
