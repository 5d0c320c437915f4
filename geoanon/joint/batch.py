"""The inner search of :mod:`geoanon.joint.search` for many location classes
at once: every node of a round is cut with array operations, with the rules
of :mod:`geoanon.joint.cuts` (the balanced rank cut, the peel of hierarchy
nodes and value sets, the cut removing the most NCP, Theorem 2's rule with
the model in place of k) and the same classes as cutting node by node
without lookahead (:func:`geoanon.joint.search._split_down`).

Location dimensions are not cut here: they keep each class's location state.
Set dimensions of more than 62 values, which do not fit a bit mask, are left
to the node-by-node search (:func:`vectorizable`).

The search runs under several weightings at once (:func:`split_weighted`):
the candidate cuts of a node do not depend on the weights, only the choice
among them does, so every node carries the set of weightings (a bit mask)
that reach it, its cuts are computed once, and it is cut once per distinct
choice; each weighting's classes are those of a search under it alone.
"""
from __future__ import annotations

from functools import lru_cache
from itertools import groupby

import numpy as np

from .cuts import WINDOW, compact_choice, cut_clearance, first_keys, first_least, keeps_classes, stranding
from .dims import RankDim, SetDim, TreeDim, popcount

__all__ = ["MAX_WEIGHTINGS", "first_dims", "location_forest", "split_all", "split_weighted", "vectorizable"]

EPS = 1e-12       # the gain a cut must exceed, and the margin by which a later dimension must beat an earlier one
MAX_WEIGHTINGS = 62   # weightings of one search: the bits of a node's mask


def vectorizable(problem, allowed) -> bool:
    """Whether the array search takes the dimensions ``allowed`` (no set of more than 62 values)."""
    return all(not isinstance(problem.items[j], SetDim) or problem.items[j].bits is not None for j in allowed)


def split_all(problem, groups: list, allowed: list) -> tuple[list, np.ndarray]:
    """For each location class ``(rows, state)`` of ``groups``: its leaves
    ``[(rows, state)]`` after cutting the dimensions ``allowed`` while a cut
    removes NCP, and its total NCP (summed over rows and dimensions). The
    classes are those of the node-by-node search."""
    search = _Search(problem, groups, allowed)
    return search.run(), search.total[0]


def split_weighted(problem, groups: list, allowed: list, weights: np.ndarray, limit=None,
                   park=False, solved=None) -> tuple[list, list]:
    """Cut the groups ``(rows, state, mask)`` as :func:`split_all` does under
    each weighting (a row of ``weights``: every dimension's weight; at most
    ``MAX_WEIGHTINGS``) whose bit is set in the group's mask, round by round
    until no node holds more than ``limit`` rows (None: to the end): per
    weighting, the leaves ``(rows, state)`` found, and the nodes still to cut,
    ``(rows, state, mask)``. ``park``: a node is set aside as soon as it holds
    ``limit`` rows or fewer (not cut further while larger ones are). Every
    node is cut on its own, so :func:`split_weighted` of the nodes left
    (anywhere, in any runs) finds the leaves the whole search would.
    ``solved`` (a :class:`~geoanon.joint.solved.Solved`): the nodes other
    searches cut to the end are not cut again, their leaves taken instead,
    and, cut to the end, this search's nodes are added to them."""
    search = _Search(problem, [(r, st) for r, st, _ in groups], allowed, weights=weights,
                     masks=[m for _, _, m in groups], solved=solved)
    parked = []
    while search.size.size and (limit is None or int(search.size.max()) > limit):
        if park:
            small = search.size <= limit
            parked.extend(search.pending(small))
            search._keep(~small)
        search._round()
    leaves = [search.leaves(s) for s in range(len(weights))]
    if solved is not None and not parked and not search.size.size:
        solved.add(search.visited, leaves, search.solved_ids)
    return leaves, parked + search.pending()


def first_dims(problem, groups: list, allowed: list, weights: np.ndarray) -> np.ndarray:
    """The dimension :func:`split_weighted` cuts each group ``(rows, state)``
    along first under each weighting (weightings x groups; -1: none)."""
    return _Search(problem, groups, allowed, weights=weights).first_choices()


def location_forest(problem, groups, location) -> tuple:
    """The location tree below each ``(rows, state)`` of ``groups``: location
    cuts only (the rank cut; boxes at the compact position), every dimension
    narrowed to each part, down to the finest admissible classes, as
    :func:`geoanon.joint.search._location_forest` builds them node by node.
    Returns (parent, children, rows, state) lists: the roots first (parent
    -1, in order), parents before children."""
    search = _Search(problem, groups, location, carried=range(len(problem.items)), tree=True)
    search.run()
    return search.tree


class _Search:
    """``cut``: the dimensions cut; ``carried``: the dimensions whose state
    follows each part (default ``cut``; the others keep each group's).
    ``tree``: record every node (parent, children, rows, state).
    ``weights``: one row of every dimension's weight per weighting (default
    the dimensions' own); ``masks``: the weightings each group is cut under
    (bits; default all). ``solved``: the :class:`~geoanon.joint.solved.Solved`
    nodes whose leaves are taken instead of cut (the dimensions cut must be
    all of them)."""

    def __init__(self, problem, groups, cut, carried=None, tree=False, weights=None, masks=None,
                 solved=None):
        self.problem, self.check, self.cut = problem, problem.check, list(cut)
        self.allowed = list(self.cut if carried is None else carried)
        self.weights = np.array([problem.weights] if weights is None else weights, dtype=np.float64)
        n_weightings = len(self.weights)
        if not 1 <= n_weightings <= MAX_WEIGHTINGS:
            raise ValueError(f"the search takes 1 to {MAX_WEIGHTINGS} weightings, got {n_weightings}")
        self.bits = (1 << np.arange(n_weightings, dtype=np.int64))[:, None]
        self.k = self.check.model.k
        self.groups = groups
        sizes = np.array([r.size for r, _ in groups], dtype=np.int64)
        self.perm = np.concatenate([r for r, _ in groups]) if groups else np.zeros(0, dtype=np.int64)
        self.start = np.r_[0, np.cumsum(sizes)[:-1]].astype(np.int64)
        self.size = sizes
        self.origin = np.arange(len(groups), dtype=np.int64)
        self.mask = np.full(len(groups), (1 << n_weightings) - 1, dtype=np.int64) if masks is None \
            else np.array(masks, dtype=np.int64).reshape(-1)
        self.state = {j: self._initial(j) for j in self.allowed}
        self.fixed = np.array([[_fixed_cost(problem, st, self.allowed, w) for _, st in groups] for w in self.weights])
        self.total = np.zeros((n_weightings, len(groups)))
        self.done = []          # (origin, rows, state arrays, masks) of finished nodes, a batch per round
        self.owned = None       # per group, the (batch, index) of its leaves in done (leaves_of)
        self.tree = ([-1] * len(groups), [[] for _ in groups], [r for r, _ in groups], [st for _, st in groups]) \
            if tree else None
        self.node_id = np.arange(len(groups), dtype=np.int64)
        self.solved = solved
        self.solved_ids = None if solved is None else solved.ids(self.weights)
        self.visited = []       # (key, mask) of the nodes cut here, for solved
        self.taken = [[] for _ in range(n_weightings)]     # per weighting, the leaves taken from solved
    def _initial(self, j):
        d = self.problem.items[j]
        states = [st[j] for _, st in self.groups]
        if isinstance(d, RankDim):
            return np.array(states, dtype=np.int64).reshape(-1, 4)
        if isinstance(d, TreeDim):
            return np.array(states, dtype=np.int64).reshape(-1, 2)
        return np.array(states, dtype=np.int64)

    # ---- costs -------------------------------------------------------------------------------------------------

    def costs(self, states: dict, origin: np.ndarray) -> np.ndarray:
        """NCP of one row of each class under each weighting (weightings x
        classes), summed over the dimensions in their order (as :meth:`~geoanon.joint.problem.SearchProblem.cost`)."""
        total = self.fixed[:, origin].copy()
        problem, w = self.problem, self.weights
        pair = problem.location_loss.pair
        for j in self.allowed:
            if j not in pair:
                total += w[:, j, None] * problem.dim_costs(j, states[j])
        if pair and pair[0] in self.allowed:
            x, y = pair
            total += (w[:, x] + w[:, y])[:, None] * problem.location_loss.pair_loss(problem.dims, states[x], states[y])
        return total

    # ---- the rounds --------------------------------------------------------------------------------------------

    def run(self) -> list:
        while self.size.size:
            self._round()
        return [_Leaves(self, g) for g in range(len(self.groups))]

    def _round(self):
        best_dim, plans = self._choices()
        if best_dim is None:
            return
        held = (self.mask & self.bits) != 0                       # weightings x nodes
        self._finish(self._choosing(held, best_dim, -1))
        self._apply(plans, {j: self._choosing(held, best_dim, j) for j in plans})

    def first_choices(self) -> np.ndarray:
        """The dimension each group is cut along first under each weighting
        (weightings x groups; -1: none), as :meth:`_round` chooses."""
        out = np.full((len(self.weights), len(self.groups)), -1, dtype=np.int64)
        best_dim, _ = self._choices()
        if best_dim is not None:
            out[:, self.origin] = best_dim
        return out

    def _choices(self) -> tuple:
        """Record the nodes too small to cut as leaves and keep the others;
        their best cut's dimension under each weighting (weightings x nodes,
        -1: none; None: no node left) and every dimension's plan."""
        k = self.k
        active = self.size >= 2 * k
        self._finish(np.where(active, 0, self.mask))
        self._keep(active)
        if self.solved is not None:
            self._take()
        if not self.size.size:
            return None, {}
        parent = self.costs(self.state, self.origin) * self.size
        best_gain = np.full(parent.shape, -np.inf)
        best_dim = np.full(parent.shape, -1, dtype=np.int64)
        plans = {}
        for j in self.cut:
            d = self.problem.items[j]
            plan = self._rank_plan(j) if isinstance(d, RankDim) else self._group_plan(j)
            if plan is None:
                continue
            nodes = plan["nodes"]
            gain, top, dim = parent[:, nodes] - plan["part_cost"], best_gain[:, nodes], best_dim[:, nodes]
            score = gain
            if not self.problem.shared_location:       # the classes each node's parts can hold
                kept = np.bincount(plan["p_node"], weights=plan["p_size"] // k, minlength=self.size.size)
                score = gain - stranding(self.size[nodes] // k - kept[nodes], k, parent[:, nodes] / self.size[nodes])
            better = (gain > EPS) & ((dim < 0) | (score > top + EPS))
            top[better], dim[better] = score[better], j
            best_gain[:, nodes], best_dim[:, nodes] = top, dim
            plans[j] = plan
        return best_dim, plans

    def _take(self):
        """Take the leaves of the nodes ``solved`` knows under a weighting
        of their mask instead of cutting them under it; remember the others."""
        keys = self.solved.keys(self)
        for (n, w), leaves in self.solved.take(self, keys, self.solved_ids).items():
            self.mask[n] &= ~(1 << w)
            self.taken[w].extend(leaves)
        keep = self.mask != 0
        self.visited.extend((key, m) for key, m, kept in zip(keys, self.mask.tolist(), keep.tolist()) if kept)
        self._keep(keep)

    def _choosing(self, held, best_dim, j) -> np.ndarray:
        """Per node, the mask of the weightings it is cut under whose best cut is along ``j`` (-1: none)."""
        return np.bitwise_or.reduce(np.where(held & (best_dim == j), self.bits, 0), axis=0)

    def _finish(self, mask: np.ndarray):
        """Record the nodes as leaves under the weightings of ``mask`` (one per node, 0: not a leaf)."""
        done = mask != 0
        if not done.any() or self.tree is not None:
            return
        states = {j: s[done] for j, s in self.state.items()}
        origin, mask = self.origin[done], mask[done]
        cost = self.costs(states, origin) * self.size[done]
        for w in range(len(self.weights)):
            under = (mask & self.bits[w, 0]) != 0
            np.add.at(self.total[w], origin[under], cost[w, under])
        idx = np.flatnonzero(done)
        # copied out: views would keep every round's permutation alive
        kept = np.concatenate([self.perm[self.start[n]:self.start[n] + self.size[n]] for n in idx.tolist()])
        rows = np.split(kept, np.cumsum(self.size[idx])[:-1])
        self.done.append((origin, rows, states, mask))

    def _keep(self, keep: np.ndarray):
        """Drop every node but ``keep`` (the others are leaves already)."""
        if keep.all():
            return
        idx = np.flatnonzero(keep)
        segments = [self.perm[self.start[n]:self.start[n] + self.size[n]] for n in idx.tolist()]
        self.perm = np.concatenate(segments) if segments else np.zeros(0, dtype=np.int64)
        self.size = self.size[idx]
        self.start = np.r_[0, np.cumsum(self.size)[:-1]].astype(np.int64)
        self.origin = self.origin[idx]
        self.mask = self.mask[idx]
        if self.tree is not None:
            self.node_id = self.node_id[idx]
        self.state = {j: s[idx] for j, s in self.state.items()}

    def pending(self, which=None) -> list:
        """The nodes still to cut (those of the boolean mask ``which``; default all), as ``(rows, state, mask)``."""
        idx = np.arange(self.size.size) if which is None else np.flatnonzero(which)
        return [(self.perm[self.start[n]:self.start[n] + self.size[n]].copy(), state, int(self.mask[n]))
                for n, state in zip(idx.tolist(), self._states(self.origin, self.state, idx))]

    def leaves_of(self, g: int) -> list:
        """The leaves (rows, state) of group ``g`` under the first weighting, in the order they were found."""
        if self.owned is None:          # every group's (batch, index) pairs, found in one pass
            self.owned = [[] for _ in self.groups]
            for b, (origin, _, _, mask) in enumerate(self.done):
                for i in np.flatnonzero(mask & 1).tolist():
                    self.owned[origin[i]].append((b, i))
        out = []
        for b, run in groupby(self.owned[g], key=lambda pair: pair[0]):
            origin, rows, states, _ = self.done[b]
            idx = [i for _, i in run]
            out.extend(zip([rows[i] for i in idx], self._states(origin, states, idx)))
        return out

    def leaves(self, w: int) -> list:
        """The leaves (rows, state) of every group under weighting ``w``, in
        the order they were found (those taken from ``solved`` last)."""
        out = []
        for origin, rows, states, mask in self.done:
            idx = np.flatnonzero(mask & self.bits[w, 0])
            out.extend(zip([rows[i] for i in idx.tolist()], self._states(origin, states, idx)))
        return out + self.taken[w]

    def row_sums(self) -> np.ndarray:
        """Every node's rows as one number, the sum of their random keys
        (:func:`_row_keys`): nodes of the same rows have the same sum."""
        return np.add.reduceat(_row_keys(self.check.codes.size)[self.perm], self.start)

    def state_matrix(self) -> np.ndarray:
        """Every node's state in the dimensions cut, a row of integers per node."""
        n = self.size.size
        return np.column_stack([self.state[e].reshape(n, -1).astype(np.int64, copy=False) for e in self.allowed])

    def _states(self, origin: np.ndarray, states: dict, idx) -> list:
        """The state tuples of the nodes ``idx`` of ``states`` (arrays of the dimensions cut), nodes of the
        groups ``origin``."""
        out = [list(self.groups[g][1]) for g in origin[idx].tolist()]
        for j in self.allowed:
            column = states[j][idx].tolist()
            if column and isinstance(column[0], list):
                column = [tuple(v) for v in column]
            for state, v in zip(out, column):
                state[j] = v
        return [tuple(state) for state in out]

    # ---- candidate cuts ----------------------------------------------------------------------------------------

    def _node_of_row(self) -> np.ndarray:
        return np.repeat(np.arange(self.size.size), self.size)

    def _rank_plan(self, j):
        """The balanced rank cut of every node along ``j`` (:func:`geoanon.joint.cuts.rank_cut`)."""
        d, k, check = self.problem.items[j], self.k, self.check
        st = self.state[j]
        node = self._node_of_row()
        r = d.rank[self.perm]
        order = np.argsort(node * (d.size + 2) + r, kind="stable")     # by node, then rank (as lexsort, faster)
        sr, rows = r[order], self.perm[order]
        n_rows = sr.size
        local = np.arange(n_rows) - self.start[node]
        s = self.size[node]
        change = np.zeros(n_rows, dtype=bool)
        change[1:] = (sr[1:] != sr[:-1]) & (node[1:] == node[:-1])
        ok = change & (local >= k) & (s - local >= k) & ((st[node, 1] - st[node, 0]) >= 2)
        if check.model.needs_sensitive:
            cand = np.flatnonzero(ok)
            if cand.size:
                onehot = np.zeros((n_rows + 1, check.n_values), dtype=np.int64)
                np.add.at(onehot, (np.arange(1, n_rows + 1), check.codes[rows]), 1)
                prefix = np.cumsum(onehot, axis=0)
                left = prefix[cand] - prefix[self.start[node[cand]]]
                total = prefix[self.start[node[cand]] + self.size[node[cand]]] - prefix[self.start[node[cand]]]
                ok[cand] = check.holds(left) & check.holds(total - left)
        cand = np.flatnonzero(ok)
        if cand.size == 0:
            return None
        at = _nearest(cand, node, local, self.size, k)   # the cut's first row (sorted order) per node
        if d.location:
            at = self._location(j, at, cand, node, local, sr, rows)
        elif self.problem.compact_cuts:
            at = self._compact(d, at, cand, node, sr)
        nodes = node[at]
        i = local[at]
        a, b = sr[at - 1] + 1, sr[at]
        boundary = d.central_boundary(a, b) if d.location else np.where((i < self.size[nodes] - i) | (b == d.size),
                                                                         b, a)
        # parts: left [start, at), right [at, end) in the sorted order; 0 = left, 1 = right
        part_of_row = np.full(n_rows, -1, dtype=np.int64)
        has = np.zeros(self.size.size, dtype=bool)
        has[nodes] = True
        cut_at = np.zeros(self.size.size, dtype=np.int64)
        cut_at[nodes] = at
        in_cut = has[node]
        part_of_row[in_cut] = (np.arange(n_rows)[in_cut] >= cut_at[node[in_cut]]).astype(np.int64)
        tiles = np.stack([np.column_stack([st[nodes, 0], boundary]), np.column_stack([boundary, st[nodes, 1]])],
                         axis=1)                                           # (nodes, 2 parts, lo/hi)
        return self._plan(j, nodes, rows[in_cut], node[in_cut], part_of_row[in_cut],
                          {"tiles": tiles, "ranks": sr[in_cut]})

    def _location(self, j, at, cand, node, local, sr, rows):
        """Where a node has admissible positions keeping ``WINDOW`` of its rows on each side, the location cut of
        :func:`geoanon.joint.cuts._location_position` among them, else the balanced one (``at``)."""
        d = self.problem.items[j]
        s = self.size[node[cand]]
        inside = (local[cand] >= WINDOW * s) & (local[cand] <= (1 - WINDOW) * s)
        win = cand[inside]
        if win.size == 0:
            return at
        wn, i = node[win], local[win]
        size = self.size[wn]
        start = self.start[wn]
        last = start + size - 1
        clearance = cut_clearance(d, sr[win - 1], sr[win], sr[start], sr[last])
        keeps = keeps_classes(i, size, self.k)
        if not (d.extent == "grid" and not d.missing):
            balanced = np.zeros(self.size.size, dtype=np.int64)
            balanced[node[at]] = local[at]
            return self._pick(at, node, win, wn, clearance, keeps, np.abs(i - balanced[wn]).astype(float))
        cost = np.zeros(win.size)           # the boxes' widths, needed only where the gap is wide enough
        clean = np.flatnonzero(clearance >= 1)
        if clean.size == 0:
            return self._pick(at, node, win, wn, clearance, keeps, cost)
        cut, i_c, size_c, start_c, last_c = win[clean], i[clean], size[clean], start[clean], last[clean]
        width = np.zeros(clean.size)
        width += i_c * (d.high[sr[cut - 1]] - d.low[sr[start_c]]) / d.span
        width += (size_c - i_c) * (d.high[sr[last_c]] - d.low[sr[cut]]) / d.span
        n_nodes = self.size.size
        row_node = node
        for e in self.problem.items:
            if e is d or not e.location or e.span <= 0:
                continue
            r = e.rank[rows]
            span = e.size + 1
            up = np.maximum.accumulate(row_node * span + r) - row_node * span                 # prefix max rank
            down = span - 1 - (np.maximum.accumulate(row_node * span + (span - 1 - r)) - row_node * span)
            back = (n_nodes - 1 - row_node)[::-1]
            up_r = (np.maximum.accumulate(back * span + r[::-1]) - back * span)[::-1]        # suffix max rank
            down_r = span - 1 - (np.maximum.accumulate(back * span + (span - 1 - r[::-1])) - back * span)[::-1]
            width += i_c * (e.high[up[cut - 1]] - e.low[down[cut - 1]]) / e.span
            width += (size_c - i_c) * (e.high[up_r[cut]] - e.low[down_r[cut]]) / e.span
        cost[clean] = width
        return self._pick(at, node, win, wn, clearance, keeps, cost)

    def _compact(self, d, at, cand, node, sr):
        """Per node, the cut of :func:`geoanon.joint.cuts.compact_choice` among the candidates ``cand``."""
        cn = node[cand]
        size = self.size[cn]
        q = size // self.k
        target = np.where(q >= 2, size * (q // 2) / np.maximum(q, 1), size / 2)
        chosen = cand[compact_choice(d, sr, cand, cn, self.start[cn], size, target, self.k)]
        out = at.copy()
        out[np.searchsorted(node[at], node[chosen])] = chosen
        return out

    def _pick(self, at, node, win, wn, clearance, keeps, cost):
        """Per node, the candidate of ``win`` first by :func:`geoanon.joint.cuts.first_keys` (the class count it
        ``keeps``, a gap wide enough), then in the widest gap or of least ``cost``, then first (as
        :func:`geoanon.joint.cuts._location_position`)."""
        clean = clearance >= 1
        chosen = win[first_least(wn, *first_keys(self.problem, clean, keeps), np.where(clean, cost, -clearance))]
        out = at.copy()
        out[np.searchsorted(node[at], node[chosen])] = chosen
        return out

    def _group_plan(self, j):
        """The peel of every node along a hierarchy or a value set (:func:`geoanon.joint.cuts._group_cut`)."""
        d, check = self.problem.items[j], self.check
        st = self.state[j]
        if isinstance(d, TreeDim):
            level = st[:, 0]
            eligible = level > 0
            up = np.stack(d.ancestors)                                     # (levels, leaves)
            node = self._node_of_row()
            child = up[np.maximum(level[node] - 1, 0), d.leaf[self.perm]]
        else:
            eligible = popcount(st) >= 2
            node = self._node_of_row()
            child = d.leaf[self.perm]
        keep_rows = eligible[node]
        if not keep_rows.any():
            return None
        rows, node, child = self.perm[keep_rows], node[keep_rows], child[keep_rows]
        n_child = int(child.max()) + 1
        n_nodes = self.size.size
        key = node * n_child + child
        groups, inverse = _dense_unique(key, n_nodes * n_child)
        g_node, g_child = groups // n_child, groups % n_child
        m = check.n_values
        hist = np.bincount(inverse * m + check.codes[rows], minlength=groups.size * m).reshape(groups.size, m)
        g_size = hist.sum(axis=1)
        ok = check.holds(hist)
        rest = np.zeros((n_nodes, m), dtype=np.int64)
        np.add.at(rest, g_node[~ok], hist[~ok])
        # kept groups of each node, smallest first; the rest takes back the first p of them while it misses the model
        kept = np.flatnonzero(ok)
        kept = kept[np.lexsort((g_child[kept], g_size[kept], g_node[kept]))]
        kn = g_node[kept]
        kstart = np.searchsorted(kn, np.arange(n_nodes))
        kcount = np.bincount(kn, minlength=n_nodes)
        cum = np.cumsum(hist[kept], axis=0)
        before = np.zeros_like(cum)
        before[1:] = cum[:-1]
        base = np.zeros((n_nodes, m), dtype=np.int64)
        has_kept = kcount > 0
        base[has_kept] = before[kstart[has_kept]]
        # candidate p = 0..kcount[n]: rest + (hist of the first p kept groups)
        cand_node = np.repeat(np.arange(n_nodes), kcount + 1)
        cand_p = np.arange(cand_node.size) - np.repeat(np.r_[0, np.cumsum(kcount + 1)[:-1]], kcount + 1)
        taken = np.zeros((cand_node.size, m), dtype=np.int64)
        with_p = cand_p > 0
        taken[with_p] = cum[kstart[cand_node[with_p]] + cand_p[with_p] - 1] - base[cand_node[with_p]]
        total_rest = rest[cand_node] + taken
        stops = (total_rest.sum(axis=1) == 0) | check.holds(total_rest) | (cand_p == kcount[cand_node])
        stops &= eligible[cand_node]
        first_stop = np.full(n_nodes, -1, dtype=np.int64)
        at = np.flatnonzero(stops)
        first = np.r_[True, cand_node[at][1:] != cand_node[at][:-1]]
        first_stop[cand_node[at[first]]] = cand_p[at[first]]
        p = first_stop
        final_rest = np.zeros((n_nodes, m), dtype=np.int64)
        valid = p >= 0
        final_rest[valid] = rest[valid]
        took = valid & (p > 0)
        final_rest[took] += cum[kstart[took] + p[took] - 1] - base[took]
        rest_rows = final_rest.sum(axis=1)
        feasible = valid & ((rest_rows == 0) | check.holds(final_rest))
        n_parts = np.where(feasible, kcount - np.maximum(p, 0) + (rest_rows > 0), 0)
        cut_nodes = feasible & (n_parts >= 2)
        if not cut_nodes.any():
            return None
        # the part of every group: kept groups after the first p in order, then the rest
        part_of_group = np.full(groups.size, -1, dtype=np.int64)
        rank_in_node = np.arange(kept.size) - kstart[kn]
        separated = rank_in_node >= np.maximum(p[kn], 0)
        part_of_group[kept[separated]] = rank_in_node[separated] - p[kn[separated]]
        rest_part = kcount - np.maximum(p, 0)
        unset = part_of_group < 0
        part_of_group[unset] = rest_part[g_node[unset]]
        row_part = part_of_group[inverse]
        in_cut = cut_nodes[node]
        nodes = np.flatnonzero(cut_nodes)
        return self._plan(j, nodes, rows[in_cut], node[in_cut], row_part[in_cut], {})

    def _plan(self, j, nodes, rows, node, part, extra) -> dict:
        """Group the rows of the cut nodes by (node, part); every part's state in every dimension and the
        summed cost of the parts of each node."""
        key = node * (int(part.max()) + 1) + part
        ranks = extra.get("ranks")                      # a rank cut's: the cut dimension's rank of each row
        if (key[1:] < key[:-1]).any():                 # a rank cut's rows come by node and part already
            order = np.argsort(key, kind="stable")      # by node, then part
            rows, node, part = rows[order], node[order], part[order]
            ranks = None if ranks is None else ranks[order]
        edge = np.r_[True, (node[1:] != node[:-1]) | (part[1:] != part[:-1])]
        starts = np.flatnonzero(edge)
        p_node, p_part = node[starts], part[starts]
        p_size = np.diff(np.r_[starts, rows.size])
        states = {}
        for e in self.allowed:
            de = self.problem.items[e]
            parent = self.state[e][p_node]
            if isinstance(de, RankDim):
                r = ranks if e == j and ranks is not None else de.rank[rows]
                lo_hi = parent[:, :2].copy()
                if e == j:
                    where = np.searchsorted(nodes, p_node)
                    lo_hi = extra["tiles"][where, p_part]
                first = np.minimum.reduceat(r, starts)
                end = np.maximum.reduceat(r, starts) + 1
                lo_hi[:, 1] = np.where((lo_hi[:, 1] > de.size) & (end <= de.size), de.size, lo_hi[:, 1])
                lo_hi[:, 0] = np.where(first >= de.size, de.size, lo_hi[:, 0])
                states[e] = np.column_stack([lo_hi, first, end])
            elif isinstance(de, TreeDim):
                states[e] = _lowest_common(de, rows, starts, parent)
            else:
                held = np.bitwise_or.reduceat(de.bits[rows], starts)
                states[e] = np.where((popcount(parent) > 1) | (e == j), held, parent)
        origin = self.origin[p_node]
        cost = self.costs(states, origin) * p_size
        part_cost = np.zeros((len(self.weights), self.size.size))
        first_part = np.r_[0, np.flatnonzero(p_node[1:] != p_node[:-1]) + 1]
        rank = np.arange(p_node.size) - np.repeat(first_part, np.diff(np.r_[first_part, p_node.size]))
        for r in range(int(rank.max()) + 1):   # first parts first, as the node-by-node search sums them
            here = rank == r
            part_cost[:, p_node[here]] += cost[:, here]
        return {"nodes": nodes, "part_cost": part_cost[:, nodes], "rows": rows, "p_node": p_node, "starts": starts,
                "p_size": p_size, "states": states}

    def _apply(self, plans: dict, chosen: dict):
        """Replace every node by the parts of each cut chosen (``chosen``: per
        dimension cut, the mask of the weightings choosing it at every node)."""
        perm, size, origin, mask, state, ids = [], [], [], [], {e: [] for e in self.allowed}, []
        for j, plan in plans.items():
            under = chosen[j][plan["p_node"]]
            if not under.any():
                continue
            idx = np.flatnonzero(under)
            for s, z in zip(plan["starts"][idx].tolist(), plan["p_size"][idx].tolist()):
                perm.append(plan["rows"][s:s + z])
            size.append(plan["p_size"][idx])
            origin.append(self.origin[plan["p_node"][idx]])
            mask.append(under[idx])
            for e in self.allowed:
                state[e].append(plan["states"][e][idx])
            if self.tree is not None:
                ids.append(self._record(plan, idx, perm[-idx.size:]))
        if not size:
            self.size = np.zeros(0, dtype=np.int64)
            return
        self.perm = np.concatenate(perm)
        self.size = np.concatenate(size)
        self.start = np.r_[0, np.cumsum(self.size)[:-1]].astype(np.int64)
        self.origin = np.concatenate(origin)
        self.mask = np.concatenate(mask)
        self.state = {e: np.concatenate(v) for e, v in state.items()}
        if self.tree is not None:
            self.node_id = np.concatenate(ids)
        if len(self.weights) > 1:
            self._merge()

    def _merge(self):
        """Merge the nodes several weightings reached by different cuts: the
        same rows (a sum of random 64-bit keys of its rows, with its size) and
        state are one node, cut under all their weightings."""
        key = np.column_stack([self.origin, self.size, self.row_sums(), self.state_matrix()])
        _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
        if first.size == self.size.size:
            return
        joined = np.zeros(first.size, dtype=np.int64)
        np.bitwise_or.at(joined, inverse, self.mask)
        self.mask = joined[inverse]
        keep = np.zeros(self.size.size, dtype=bool)
        keep[first] = True
        self._keep(keep)

    def _record(self, plan, idx, rows) -> np.ndarray:
        """Add the parts ``idx`` of ``plan`` to the tree; their node ids."""
        parent, children, tree_rows, tree_state = self.tree
        ids = np.arange(len(parent), len(parent) + idx.size, dtype=np.int64)
        for n, p, r in zip(ids.tolist(), self.node_id[plan["p_node"][idx]].tolist(), rows):
            parent.append(p)
            children.append([])
            children[p].append(n)
            tree_rows.append(r.copy())
        for i in idx.tolist():
            st = list(self.groups[self.origin[plan["p_node"][i]]][1])
            for e in self.allowed:
                v = plan["states"][e][i]
                st[e] = int(v) if v.ndim == 0 else tuple(int(x) for x in v)
            tree_state.append(tuple(st))
        return ids


class _Leaves:
    """The leaves of one group, made into (rows, state) tuples when first read
    (the search keeps few of the groups it evaluates)."""

    def __init__(self, search, g):
        self.search, self.g, self.items = search, g, None

    def _made(self) -> list:
        if self.items is None:
            self.items = self.search.leaves_of(self.g)
            self.search = None
        return self.items

    def __iter__(self):
        return iter(self._made())

    def __len__(self):
        return len(self._made())

    def __getitem__(self, i):
        return self._made()[i]


@lru_cache(maxsize=2)
def _row_keys(n_rows: int) -> np.ndarray:
    """A random 62-bit key per row of a table of ``n_rows``, the same for
    every search of it (read only)."""
    keys = np.random.default_rng(0).integers(0, 1 << 62, n_rows, dtype=np.int64)
    keys.flags.writeable = False
    return keys


def _dense_unique(key: np.ndarray, bound: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(key, return_inverse=True)`` of keys from 0 to ``bound``,
    by counting where the range is small."""
    if bound > 4 * key.size + 1024:
        return np.unique(key, return_inverse=True)
    present = np.bincount(key, minlength=bound) > 0
    index = np.cumsum(present) - 1
    return np.flatnonzero(present), index[key]


def _nearest(cand, node, local, sizes, k) -> np.ndarray:
    """Per node with candidates: the candidate nearest the balanced target
    (floor(q/2) of the q = floor(s/k) classes to the left), the first on a tie."""
    cn = node[cand]
    sz = sizes[cn]
    q = sz // k
    target = np.where(q >= 2, sz * (q // 2) / np.maximum(q, 1), sz / 2)
    return cand[first_least(cn, np.abs(local[cand] - target))]


def _fixed_cost(problem, state, allowed, weights) -> float:
    """The summed cost of the dimensions not cut here (the location), in order, before the others,
    under ``weights`` (every dimension's; a priced pair's as
    :meth:`~geoanon.joint.problem.SearchProblem.location_cost`)."""
    total, pair = 0.0, problem.location_loss.pair
    for j in range(len(problem.items)):
        if j not in allowed and j not in pair:
            total += weights[j] * problem.cell_cost(j, state[j])
    if pair and pair[0] not in allowed:
        total += problem.location_cost(state, weights)
    return total


def _lowest_common(d: TreeDim, rows, starts, parent) -> np.ndarray:
    """(level, node) of the lowest node above each part's leaves; parts whose
    parent is already a leaf keep it."""
    leaves = d.leaf[rows]
    out = parent.copy()
    todo = parent[:, 0] > 0
    for level, up in enumerate(d.ancestors):
        if not todo.any():
            break
        a = up[leaves]
        lo, hi = np.minimum.reduceat(a, starts), np.maximum.reduceat(a, starts)
        hit = todo & (lo == hi)
        out[hit, 0] = level
        out[hit, 1] = lo[hit]
        todo &= ~hit
    return out
