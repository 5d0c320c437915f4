"""The inner search of :mod:`geoanon.joint.search` for many location classes
at once: every node of a round is cut with array operations, with the rules
of :mod:`geoanon.joint.cuts` (the balanced rank cut, the peel of hierarchy
nodes and value sets, the cut removing the most NCP, Theorem 2's rule with
the model in place of k) and the same classes as cutting node by node
without lookahead (:func:`geoanon.joint.tiling.split_down`).

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

from itertools import groupby

import numpy as np

from .cuts import halved, per_bit, split_bits, stranding
from .dims import RankDim, SetDim, TreeDim
from .nodes import Nodes
from .plans import Plan, group_plan, halve_plan, rank_plan

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
    return search.run(), search.found.total[0]


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
    while search.nodes.count and (limit is None or int(search.nodes.size.max()) > limit):
        if park:
            small = search.nodes.size <= limit
            parked.extend(search.pending(small))
            search.nodes.keep(~small)
        search.round()
    leaves = [search.found.leaves(s) for s in range(len(weights))]
    if solved is not None and not parked and not search.nodes.count:
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
    :func:`geoanon.joint.tiling.location_tree_by_node` builds them node by node.
    Returns (parent, children, rows, state) lists: the roots first (parent
    -1, in order), parents before children."""
    search = _TreeSearch(problem, groups, location, carried=range(len(problem.items)))
    search.run()
    return search.tree


class _Search:
    """The array search of ``problem`` from ``groups`` ``(rows, state)``.

    ``cut``: the dimensions cut; ``carried``: the dimensions whose state
    follows each part (default ``cut``; the others keep each group's).
    ``weights``: one row of every dimension's weight per weighting (default
    the problem's); ``masks``: the weightings each group is cut under
    (bits; default all). ``solved``: the :class:`~geoanon.joint.solved.Solved`
    nodes whose leaves are taken instead of cut (the dimensions cut must be
    all of them)."""

    def __init__(self, problem, groups, cut, carried=None, weights=None, masks=None, solved=None):
        self.problem, self.check, self.cut = problem, problem.check, list(cut)
        self.allowed = list(self.cut if carried is None else carried)
        self.weights = np.array([problem.weights] if weights is None else weights, dtype=np.float64)
        n_weightings = len(self.weights)
        if not 1 <= n_weightings <= MAX_WEIGHTINGS:
            raise ValueError(f"the search takes 1 to {MAX_WEIGHTINGS} weightings, got {n_weightings}")
        self.bits = (1 << np.arange(n_weightings, dtype=np.int64))[:, None]
        self.k = self.check.model.k
        self.groups = groups
        mask = np.full(len(groups), (1 << n_weightings) - 1, dtype=np.int64) if masks is None \
            else np.array(masks, dtype=np.int64).reshape(-1)
        self.nodes = Nodes.of_parts([r for r, _ in groups], np.array([r.size for r, _ in groups], dtype=np.int64),
                                    np.arange(len(groups), dtype=np.int64), mask,
                                    {j: _initial(problem.items[j], [st[j] for _, st in groups]) for j in self.allowed},
                                    problem.dims.row_values())
        self.fixed = np.array([[_fixed_cost(problem, st, self.allowed, w) for _, st in groups] for w in self.weights])
        self.found = _Found(groups, self.allowed, n_weightings)
        self.solved = solved
        self.solved_ids = None if solved is None else solved.ids(self.weights)
        self.visited = []       # (key, mask) of the nodes cut here, for solved

    def costs(self, states: dict, origin: np.ndarray) -> np.ndarray:
        """The cost of one row of each class under each weighting (weightings x
        classes), summed over the dimensions in their order (as
        :meth:`~geoanon.joint.problem.SearchProblem.cost`)."""
        total = self.fixed[:, origin].copy()
        problem, w = self.problem, self.weights
        pair = problem.location_loss.pair
        for j in self.allowed:
            if j not in pair:
                total += w[:, j, None] * problem.dim_costs(j, states[j])
        if pair and pair[0] in self.allowed:
            x, y = pair
            total += problem.location_loss.pair_cost(problem.dims, states[x], states[y], w[:, x] + w[:, y])
        return total

    def run(self) -> list:
        """Cut to the end: the leaves of every group (under the first weighting)."""
        while self.nodes.count:
            self.round()
        return [_Leaves(self.found, g) for g in range(len(self.groups))]

    def round(self):
        """Cut every node once: along its best cut's dimension under each weighting of its mask."""
        best_dim, plans = self._choices()
        if best_dim is None:
            return
        held = (self.nodes.mask & self.bits) != 0                       # weightings x nodes
        self._finish(self._choosing(held, best_dim, -1))
        self._apply(plans, {j: self._choosing(held, best_dim, j) for j in plans})

    def first_choices(self) -> np.ndarray:
        """The dimension each group is cut along first under each weighting
        (weightings x groups; -1: none), as :meth:`round` chooses."""
        out = np.full((len(self.weights), len(self.groups)), -1, dtype=np.int64)
        best_dim, _ = self._choices()
        if best_dim is not None:
            out[:, self.nodes.origin] = best_dim
        return out

    def _choices(self) -> tuple:
        """Record the nodes too small to cut as leaves and keep the others;
        their best cut's dimension under each weighting (weightings x nodes,
        -1: none; None: no node left) and every dimension's :class:`Plan`."""
        k, nodes = self.k, self.nodes
        active = nodes.size >= 2 * k
        self._finish(np.where(active, 0, nodes.mask))
        nodes.keep(active)
        if self.solved is not None:
            self._take()
        if not nodes.count:
            return None, {}
        parent = self.costs(nodes.state, nodes.origin) * nodes.size
        best_gain = np.full(parent.shape, -np.inf)
        best_dim = np.full(parent.shape, -1, dtype=np.int64)
        plans = {}
        for j in self.cut:
            plan = _plan_of(self, j)
            if plan is None:
                continue
            cut = plan.nodes
            gain, top, dim = parent[:, cut] - plan.part_cost, best_gain[:, cut], best_dim[:, cut]
            score = gain
            if not self.problem.shared_location:       # the classes each node's parts can hold
                kept = np.bincount(plan.p_node, weights=plan.p_size // k, minlength=nodes.count)
                score = gain - stranding(nodes.size[cut] // k - kept[cut], k, parent[:, cut] / nodes.size[cut])
            if self.problem.gain_ratio:
                score = per_bit(score, split_bits(plan.p_size, plan.p_node, nodes.size)[cut])
            better = (gain > EPS) & ((dim < 0) | (score > top + EPS))
            top[better], dim[better] = score[better], j
            best_gain[:, cut], best_dim[:, cut] = top, dim
            plans[j] = plan
        return best_dim, plans

    def _take(self):
        """Take the leaves of the nodes ``solved`` knows under a weighting
        of their mask instead of cutting them under it; remember the others."""
        nodes = self.nodes
        keys = nodes.keys(self.check.codes.size)
        for (n, w), leaves in self.solved.take(nodes, keys, self.solved_ids).items():
            nodes.mask[n] &= ~(1 << w)
            self.found.taken[w].extend(leaves)
        keep = nodes.mask != 0
        self.visited.extend((key, m) for key, m, kept in zip(keys, nodes.mask.tolist(), keep.tolist()) if kept)
        nodes.keep(keep)

    def _choosing(self, held, best_dim, j) -> np.ndarray:
        """Per node, the mask of the weightings it is cut under whose best cut is along ``j`` (-1: none)."""
        return np.bitwise_or.reduce(np.where(held & (best_dim == j), self.bits, 0), axis=0)

    def _finish(self, mask: np.ndarray):
        """Record the nodes as leaves under the weightings of ``mask`` (one per node, 0: not a leaf)."""
        done = mask != 0
        if not done.any():
            return
        nodes = self.nodes
        states = {j: s[done] for j, s in nodes.state.items()}
        origin, mask = nodes.origin[done], mask[done]
        idx = np.flatnonzero(done)
        # copied out: views would keep every round's permutation alive
        rows = np.split(np.concatenate([nodes.rows(n) for n in idx.tolist()]), np.cumsum(nodes.size[idx])[:-1])
        self.found.add(origin, rows, states, mask, self.costs(states, origin) * nodes.size[done], self.bits[:, 0])

    def pending(self, which=None) -> list:
        """The nodes still to cut (those of the boolean mask ``which``; default all), as ``(rows, state, mask)``."""
        nodes = self.nodes
        idx = np.arange(nodes.count) if which is None else np.flatnonzero(which)
        return [(nodes.rows(n).copy(), state, int(nodes.mask[n]))
                for n, state in zip(idx.tolist(), _state_tuples(self.groups, self.allowed, nodes.origin, nodes.state,
                                                                idx))]

    def _apply(self, plans: dict, chosen: dict):
        """Replace every node by the parts of each cut chosen (``chosen``: per
        dimension cut, the mask of the weightings choosing it at every node)."""
        self._replace(_chosen_parts(plans, chosen))

    def _replace(self, parts: list):
        """Replace every node by ``parts`` (:func:`_chosen_parts`)."""
        if not parts:
            self.nodes.keep(np.zeros(self.nodes.count, dtype=bool))
            return
        nodes = self.nodes
        self.nodes = Nodes.of_positions(
            nodes, np.concatenate([positions for *_, positions in parts]),
            np.concatenate([plan.p_size[idx] for plan, idx, _, _ in parts]),
            np.concatenate([nodes.origin[plan.p_node[idx]] for plan, idx, _, _ in parts]),
            np.concatenate([under for _, _, under, _ in parts]),
            {e: np.concatenate([plan.states[e][idx] for plan, idx, _, _ in parts]) for e in self.allowed})
        if len(self.weights) > 1:
            self._merge()

    def _merge(self):
        """Merge the nodes several weightings reached by different cuts: the
        same rows (a sum of random 64-bit keys of its rows, with its size) and
        state are one node, cut under all their weightings."""
        nodes = self.nodes
        key = np.column_stack([nodes.origin, nodes.size, nodes.row_sums(self.check.codes.size), nodes.state_matrix()])
        _, first, inverse = np.unique(key, axis=0, return_index=True, return_inverse=True)
        if first.size == nodes.count:
            return
        joined = np.zeros(first.size, dtype=np.int64)
        np.bitwise_or.at(joined, inverse, nodes.mask)
        nodes.mask = joined[inverse]
        keep = np.zeros(nodes.count, dtype=bool)
        keep[first] = True
        nodes.keep(keep)


class _TreeSearch(_Search):
    """A search (of one weighting, no memo) that records every node it makes
    in ``tree``: (parent, children, rows, state) lists, the groups first."""

    def __init__(self, problem, groups, cut, carried=None):
        super().__init__(problem, groups, cut, carried)
        self.tree = ([-1] * len(groups), [[] for _ in groups], [r for r, _ in groups], [st for _, st in groups])
        self.nodes.node_id = np.arange(len(groups), dtype=np.int64)

    def _finish(self, mask: np.ndarray):
        """Nothing: the tree holds every node."""

    def _apply(self, plans: dict, chosen: dict):
        """As :meth:`_Search._apply`, each part added to the tree."""
        parts = _chosen_parts(plans, chosen)
        perm = self.nodes.perm
        ids = [self._record(plan, idx, np.split(perm[positions], np.cumsum(plan.p_size[idx])[:-1]))
               for plan, idx, _, positions in parts]
        self._replace(parts)
        if ids:
            self.nodes.node_id = np.concatenate(ids)

    def _record(self, plan: Plan, idx, rows) -> np.ndarray:
        """Add the parts ``idx`` of ``plan`` to the tree; their node ids."""
        parent, children, tree_rows, tree_state = self.tree
        ids = np.arange(len(parent), len(parent) + idx.size, dtype=np.int64)
        for n, p, r in zip(ids.tolist(), self.nodes.node_id[plan.p_node[idx]].tolist(), rows):
            parent.append(p)
            children.append([])
            children[p].append(n)
            tree_rows.append(r.copy())
        for i in idx.tolist():
            st = list(self.groups[self.nodes.origin[plan.p_node[i]]][1])
            for e in self.allowed:
                v = plan.states[e][i]
                st[e] = int(v) if v.ndim == 0 else tuple(int(x) for x in v)
            tree_state.append(tuple(st))
        return ids


class _Found:
    """The leaves a search found, a batch per round, with their summed cost
    per group (``total``, weightings x groups) and, per weighting, the
    leaves taken from other searches (``taken``)."""

    def __init__(self, groups, allowed, n_weightings):
        self.groups, self.allowed = groups, allowed
        self.batches = []       # (origin, rows, state arrays, masks) of finished nodes, a batch per round
        self.total = np.zeros((n_weightings, len(groups)))
        self.taken = [[] for _ in range(n_weightings)]
        self.owned = None       # per group, the (batch, index) of its leaves (of_group)

    def add(self, origin, rows, states, mask, cost, bits):
        """A batch of leaves of the groups ``origin``, each a leaf under the
        weightings of its ``mask`` (``bits``: every weighting's), of ``cost``
        (weightings x leaves)."""
        for w, bit in enumerate(bits.tolist()):
            under = (mask & bit) != 0
            np.add.at(self.total[w], origin[under], cost[w, under])
        self.batches.append((origin, rows, states, mask))

    def of_group(self, g: int) -> list:
        """The leaves (rows, state) of group ``g`` under the first weighting, in the order they were found."""
        if self.owned is None:          # every group's (batch, index) pairs, found in one pass
            self.owned = [[] for _ in self.groups]
            for b, (origin, _, _, mask) in enumerate(self.batches):
                for i in np.flatnonzero(mask & 1).tolist():
                    self.owned[origin[i]].append((b, i))
        out = []
        for b, run in groupby(self.owned[g], key=lambda pair: pair[0]):
            origin, rows, states, _ = self.batches[b]
            idx = [i for _, i in run]
            out.extend(zip([rows[i] for i in idx], _state_tuples(self.groups, self.allowed, origin, states, idx)))
        return out

    def leaves(self, w: int) -> list:
        """The leaves (rows, state) of every group under weighting ``w``, in
        the order they were found (those taken from other searches last)."""
        out = []
        for origin, rows, states, mask in self.batches:
            idx = np.flatnonzero(mask & (1 << w))
            out.extend(zip([rows[i] for i in idx.tolist()], _state_tuples(self.groups, self.allowed, origin, states,
                                                                          idx)))
        return out + self.taken[w]


class _Leaves:
    """The leaves of one group, made into (rows, state) tuples when first read
    (the search keeps few of the groups it evaluates)."""

    def __init__(self, found, g):
        self.found, self.g, self.items = found, g, None

    def _made(self) -> list:
        if self.items is None:
            self.items = self.found.of_group(self.g)
            self.found = None
        return self.items

    def __iter__(self):
        return iter(self._made())

    def __len__(self):
        return len(self._made())

    def __getitem__(self, i):
        return self._made()[i]


def _plan_of(search, j: int) -> Plan | None:
    """Dimension ``j``'s cut of every node, as :func:`geoanon.joint.cuts.own_cut` makes it node by node."""
    d = search.problem.items[j]
    if isinstance(d, RankDim):
        return rank_plan(search, j)
    return halve_plan(search, j) if halved(d) else group_plan(search, j)


def _chosen_parts(plans: dict, chosen: dict) -> list:
    """Per dimension cut at some node (``chosen``: per dimension, the mask
    of the weightings choosing it at every node), in order: its
    :class:`Plan`, the parts chosen, their masks and their positions, part
    after part."""
    out = []
    for j, plan in plans.items():
        under = chosen[j][plan.p_node]
        if under.any():
            idx = np.flatnonzero(under)
            out.append((plan, idx, under[idx], plan.positions(under != 0)))
    return out


def _initial(d, states: list) -> np.ndarray:
    """One dimension's states of the groups as an array."""
    if isinstance(d, RankDim):
        return np.array(states, dtype=np.int64).reshape(-1, 4)
    if isinstance(d, TreeDim):
        return np.array(states, dtype=np.int64).reshape(-1, 2)
    return np.array(states, dtype=np.int64)


def _state_tuples(groups, allowed, origin: np.ndarray, states: dict, idx) -> list:
    """The state tuples of the nodes ``idx`` of ``states`` (arrays of the
    dimensions ``allowed``), nodes of the groups ``origin``: built column by
    column, the other dimensions' states the groups'."""
    base = [groups[g][1] for g in origin[idx].tolist()]
    if not base:
        return []
    columns = []
    for j in range(len(base[0])):
        if j in allowed:
            column = states[j][idx].tolist()
            columns.append(list(map(tuple, column)) if column and isinstance(column[0], list) else column)
        else:
            columns.append([state[j] for state in base])
    return list(zip(*columns))


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
