"""Exact guillotine search on small regions, and the repair of a kd-tree's heavy leaves.

The greedy cut rules look one level ahead, so now and then a node ends up with no
admissible cut although its weight exceeds the target (heavy duplicates, points
on a line). :func:`repair` climbs from such a leaf to small ancestors and
re-solves each ancestor's region *exactly* over all guillotine (recursive
axis-parallel) partitions with :func:`guillotine_min_max`, replacing the subtree
when that lowers the region's largest class. Every region keeps its box, so the
result still tiles the plane.
"""
from __future__ import annotations

import numpy as np

from ..partition import count_lower_bound
from .kdtree import KdTree

__all__ = ["repair", "unforced"]

REPAIR_WEIGHT = 12     # climb to ancestors weighing at most this many times the target
SEARCH_BUDGET = 2000   # states one exact search may expand before it gives up
TOTAL_BUDGET = 20_000  # states all searches of one repair may expand, plus one per 50 points


class _BudgetExhausted(Exception):
    """An exact search expanded its budget of states without an answer."""


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
    ``upper`` (or the budget ran out first). ``cuts`` is the cut tree as nested
    tuples: ``None`` for a class, or ``(axis, j, lower, upper)`` for a cut after
    local rank ``j`` along ``axis`` (0 = x, 1 = y).
    """
    search = _Guillotine(lx, ly, w, k, budget)
    root = search.tighten(0, search.nx, 0, search.ny)
    T = count_lower_bound(search.weight(root), k, int(np.max(w)))
    try:
        while T <= upper:
            cuts = search.solve(root, T)
            if cuts is not False:
                return T, cuts
            T += 1
    except _BudgetExhausted:
        return None
    finally:
        if spent is not None:
            spent[0] += search.expanded
    return None


class _Guillotine:
    """The memoized search of :func:`guillotine_min_max` over boxes ``(a, b, c, d)``
    of local ranks (columns a..b-1, rows c..d-1)."""

    def __init__(self, lx, ly, w, k: int, budget: int):
        self.nx, self.ny = int(lx.max()) + 1, int(ly.max()) + 1
        grid = np.zeros((self.nx, self.ny), dtype=np.int64)
        np.add.at(grid, (lx, ly), w)
        prefix = np.zeros((self.nx + 1, self.ny + 1), dtype=np.int64)
        prefix[1:, 1:] = grid.cumsum(0).cumsum(1)
        self.S = prefix.tolist()   # the search touches few cells per state: plain lists beat numpy calls
        self.k, self.budget, self.expanded = k, budget, 0
        self.feasible_at: dict = {}    # state -> (smallest T proven feasible, its cut)
        self.infeasible_at: dict = {}  # state -> largest T proven infeasible

    def weight(self, state) -> int:
        a, b, c, d = state
        S = self.S
        return S[b][d] - S[a][d] - S[b][c] + S[a][c]

    def lines(self, a, b, c, d):
        """Weights of the columns a..b-1 and of the rows c..d-1 of box (a, b, c, d)."""
        S = self.S
        Sc = [S[i][c] for i in range(a, b + 1)]
        Sd = [S[i][d] for i in range(a, b + 1)]
        cols = [Sd[i + 1] - Sd[i] - Sc[i + 1] + Sc[i] for i in range(b - a)]
        Sa, Sb = S[a], S[b]
        rows = [Sb[j + 1] - Sa[j + 1] - Sb[j] + Sa[j] for j in range(c, d)]
        return cols, rows

    def tighten(self, a, b, c, d):
        """The smallest box holding the points of box (a, b, c, d)."""
        cols, rows = self.lines(a, b, c, d)
        x0 = next(i for i, v in enumerate(cols) if v)
        x1 = len(cols) - next(i for i, v in enumerate(reversed(cols)) if v)
        y0 = next(j for j, v in enumerate(rows) if v)
        y1 = len(rows) - next(j for j, v in enumerate(reversed(rows)) if v)
        return a + x0, a + x1, c + y0, c + y1

    def _least_max(self, v):
        """The least largest class of any split of weight ``v`` into classes >= k."""
        return -(-v // (v // self.k))

    def _options(self, state, W, T) -> list:
        """The admissible cuts of ``state`` under ``T``, most balanced first."""
        a, b, c, d = state
        k, options = self.k, []
        for axis, (lo, line) in enumerate(zip((a, c), self.lines(a, b, c, d))):
            prefix = 0
            for j, v in enumerate(line[:-1]):
                prefix += v
                if v and k <= prefix <= W - k and self._least_max(prefix) <= T and self._least_max(W - prefix) <= T:
                    options.append((abs(2 * prefix - W), axis, lo + j))
        options.sort()
        return options

    def solve(self, state, T):
        """A cut tree for ``state`` with every class <= T, or False."""
        W = self.weight(state)
        if W <= T:
            return None
        known = self.feasible_at.get(state)
        if known is not None and known[0] <= T:
            return known[1]
        if self.infeasible_at.get(state, -1) >= T:
            return False
        self.expanded += 1
        if self.expanded > self.budget:
            raise _BudgetExhausted
        a, b, c, d = state
        for _, axis, j in self._options(state, W, T):
            if axis == 0:
                low, high = self.tighten(a, j + 1, c, d), self.tighten(j + 1, b, c, d)
            else:
                low, high = self.tighten(a, b, c, j + 1), self.tighten(a, b, j + 1, d)
            left = self.solve(low, T)
            if left is False:
                continue
            rest = self.solve(high, T)
            if rest is False:
                continue
            cut = (axis, j, left, rest)
            self.feasible_at[state] = (T, cut)
            return cut
        self.infeasible_at[state] = max(T, self.infeasible_at.get(state, -1))
        return False


def _apply_cuts(cuts, box, gx, gy, ends):
    """Leaf boxes (global rank boundaries) of a local cut tree inside ``box``,
    each cut in the middle of its gap (:meth:`~geoanon.points.kdtree.AxisEnds.central_boundary`;
    ``ends``: the tree's ends of x and y)."""
    if cuts is None:
        return [tuple(box)]
    axis, j, low, high = cuts
    g = gx if axis == 0 else gy
    b = int(ends[axis].central_boundary(g[j], g[j + 1])[()])
    lo_box, hi_box = list(box), list(box)
    lo_box[2 * axis + 1] = b
    hi_box[2 * axis] = b
    return _apply_cuts(low, lo_box, gx, gy, ends) + _apply_cuts(high, hi_box, gx, gy, ends)


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
    :func:`forced` point by exact re-solves.

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
    alive = np.ones(len(boxes), dtype=bool)
    spent, allowance = [0], TOTAL_BUDGET + len(w) // 50
    for leaf in bad[np.argsort(-weights[bad], kind="stable")]:
        if spent[0] >= allowance:
            break
        if not alive[leaf]:
            continue
        node = tree.leaves[leaf]
        while tree.parent[node] >= 0:
            node = tree.parent[node]
            if tree.weight[node] > REPAIR_WEIGHT * target:
                break
            nb = tree.box[node]
            lo, hi = np.searchsorted(rx, nb[0]), np.searchsorted(rx, nb[1])
            pts = lo + np.flatnonzero((ry[lo:hi] >= nb[2]) & (ry[lo:hi] < nb[3]))
            inside = np.unique(label[pts])   # leaves lie inside the node's box or outside it
            current = int(weights[inside].max())
            gx, lx = np.unique(rx[pts], return_inverse=True)
            gy, ly = np.unique(ry[pts], return_inverse=True)
            found = guillotine_min_max(lx, ly, w[pts], k, current - 1, spent=spent)
            if found is None:
                continue
            best, cuts = found
            new_boxes = np.array(_apply_cuts(cuts, nb, gx, gy, tree.ends), dtype=np.int64)
            new_weights = np.empty(len(new_boxes), dtype=np.int64)
            for i, b in enumerate(new_boxes):
                mine = pts[(rx[pts] >= b[0]) & (rx[pts] < b[1]) & (ry[pts] >= b[2]) & (ry[pts] < b[3])]
                label[mine] = len(boxes) + i
                new_weights[i] = w[mine].sum()
            alive[inside] = False
            alive = np.r_[alive, np.ones(len(new_boxes), dtype=bool)]
            boxes = np.concatenate([boxes, new_boxes])
            weights = np.concatenate([weights, new_weights])
            if best <= target:
                break
    keep = np.flatnonzero(alive)
    remap = np.full(len(alive), -1, dtype=np.int64)
    remap[keep] = np.arange(keep.size)
    return remap[label], boxes[keep], weights[keep]
