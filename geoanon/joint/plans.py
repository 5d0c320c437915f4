"""The cuts the array search (:mod:`geoanon.joint.batch`) considers in a
round: for one dimension, the cut of every node it can cut, as
:mod:`geoanon.joint.cuts` makes it node by node (the balanced rank cut, a
location's cut in a gap, the compact cut, the peel of hierarchy nodes and
value sets, Theorem 2's rule with the model in place of k), planned row by
row with array operations (:class:`Plan`)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._codes import dense_unique
from .cuts import TILING_GAP, WINDOW, compact_choice
from .dims import RankDim, SetDim, TreeDim, popcount
from .plan_loops import (by_node_and_rank, grouped, location_choice, nearest, part_states, peeled_parts, rank_cuts,
                         rank_parts)

__all__ = ["Plan", "WALKED_SHARE", "group_plan", "halve_plan", "rank_plan"]

WALKED_SHARE = 8    # a round whose nodes hold at least 1 / this of the table's rows orders them by one pass


@dataclass(frozen=True)
class Plan:
    """The cut of every node in ``nodes`` along one dimension, part by part
    (numbered node after node).

    ``part_cost``: the summed weighted cost of each node's parts (weightings
    x nodes); ``part_at``: the part of every position of the node table (-1
    where its node is not cut); ``p_node``: the node of every part;
    ``p_size``: its rows; ``states``: per dimension carried, every part's state."""

    nodes: np.ndarray
    part_cost: np.ndarray
    part_at: np.ndarray
    p_node: np.ndarray
    p_size: np.ndarray
    states: dict

    def positions(self, chosen: np.ndarray) -> np.ndarray:
        """The positions of the parts ``chosen`` (a flag per part), part after part."""
        return grouped(self.part_at, chosen)


def rank_plan(search, j: int) -> Plan | None:
    """The balanced rank cut of every node along ``j`` (:func:`geoanon.joint.cuts.rank_cut`)."""
    table = search.nodes
    d, k, check = search.problem.items[j], search.k, search.check
    st = table.state[j]
    node = table.position_node()
    order, sr = _by_rank(table, d, j, node)
    n_rows = sr.size
    ok, local = rank_cuts(sr, node, table.start, table.size, st, k)
    if check.model.needs_sensitive:
        cand = np.flatnonzero(ok)
        if cand.size:
            onehot = np.zeros((n_rows + 1, check.n_values), dtype=np.int64)
            np.add.at(onehot, (np.arange(1, n_rows + 1), check.codes[table.perm[order]]), 1)
            prefix = np.cumsum(onehot, axis=0)
            left = prefix[cand] - prefix[table.start[node[cand]]]
            total = prefix[table.start[node[cand]] + table.size[node[cand]]] - prefix[table.start[node[cand]]]
            ok[cand] = check.holds(left) & check.holds(total - left)
    cand = np.flatnonzero(ok)
    if cand.size == 0:
        return None
    at = nearest(cand, node, local, table.size, k)   # the cut's first row (sorted order) per node
    if d.location:
        at = _location_at(search, d, at, cand, node, local, sr, order)
    elif search.problem.compact_cuts:
        at = _compact_at(search, d, at, cand, node, sr)
    nodes = node[at]
    i = local[at]
    a, b = sr[at - 1] + 1, sr[at]
    boundary = d.central_boundary(a, b) if d.location else np.where((i < table.size[nodes] - i) | (b == d.size), b, a)
    # parts: left [start, at), right [at, end) in the sorted order (the ranks from sr[at] on); node after
    # node, left first
    which = np.full(table.count, -1, dtype=np.int64)
    which[nodes] = np.arange(nodes.size)
    part_at = rank_parts(node, which, table.values, j, sr[at])
    tiles = np.stack([np.column_stack([st[nodes, 0], boundary]), np.column_stack([boundary, st[nodes, 1]])],
                     axis=1)                                           # (nodes, 2 parts, lo/hi)
    return _plan(search, j, nodes, part_at, np.repeat(nodes, 2), np.tile([0, 1], nodes.size), tiles=tiles)


def _by_rank(table, d: RankDim, j: int, node) -> tuple:
    """The positions of ``table`` (``node``: each one's node), node after
    node, each node's by the rank of its row along ``d`` (dimension ``j``), and their ranks.
    Where the nodes hold at least ``1 / WALKED_SHARE`` of the table's rows,
    each row once, one pass over the table's rows in rank order
    (:func:`~geoanon.joint.plan_loops.by_node_and_rank`), else a sort; rows
    of one rank may come in either order (a cut falls between ranks, so no
    cut depends on it). Kept in ``table`` (:attr:`~geoanon.joint.nodes.Nodes.by_rank`)."""
    known = table.by_rank.get(j)
    if known is None:
        known = table.by_rank[j] = _ordered(table, d, j, node)
    return known


def _ordered(table, d: RankDim, j: int, node) -> tuple:
    """:func:`_by_rank`'s order, found anew."""
    n_rows = d.rank.size
    if table.perm.size * WALKED_SHARE >= n_rows:
        row_at = np.full(n_rows, -1, dtype=np.int64)               # one read at random per row
        row_at[table.perm] = node << 32 | np.arange(table.perm.size)
        order, sr, complete = by_node_and_rank(*d.by_rank(), row_at, table.start, table.size)
        if complete:
            return order, sr
    r = table.values[:, j]
    order = np.argsort(node * (d.size + 2) + r, kind="stable")     # by node, then rank (as lexsort, faster)
    return order, r[order]


def _location_at(search, d, at, cand, node, local, sr, positions):
    """Where a node has admissible positions keeping ``WINDOW`` of its rows on each side, the location cut of
    :func:`geoanon.joint.cuts._location_position` among them, else the balanced one (``at``). A box's width
    counts the other axis of the location's two (a points location's)."""
    boxes = d.extent == "grid" and not d.missing
    items = search.problem.items
    axes = [j for j, e in enumerate(items) if e is not d and e.location and e.span > 0] if boxes else []
    if len(axes) > 1:
        raise ValueError("a location's boxes have two axes")
    other = items[axes[0]] if axes else d
    across = np.ascontiguousarray(search.nodes.values[:, axes[0]])[positions] if axes else np.zeros(0, np.int64)
    return location_choice(at, cand, node, local, search.nodes.size, search.nodes.start, sr, d.low, d.high, d.span,
                           boxes, across, other.low, other.high, float(other.span), search.k, WINDOW, TILING_GAP,
                           search.problem.shared_location)


def _compact_at(search, d, at, cand, node, sr):
    """Per node, the cut of :func:`geoanon.joint.cuts.compact_choice` among the candidates ``cand``."""
    table = search.nodes
    cn = node[cand]
    size = table.size[cn]
    q = size // search.k
    target = np.where(q >= 2, size * (q // 2) / np.maximum(q, 1), size / 2)
    chosen = cand[compact_choice(d, sr, cand, cn, table.start[cn], size, target, search.k)]
    out = at.copy()
    out[np.searchsorted(node[at], node[chosen])] = chosen
    return out


def group_plan(search, j: int) -> Plan | None:
    """The peel of every node along a hierarchy or a value set (:func:`geoanon.joint.cuts._group_cut`)."""
    table = search.nodes
    d, check = search.problem.items[j], search.check
    st = table.state[j]
    node = table.position_node()
    if isinstance(d, TreeDim):
        level = st[:, 0]
        eligible = level > 0
        up = np.stack(d.ancestors)                                     # (levels, leaves)
        child = up[np.maximum(level[node] - 1, 0), d.leaf[table.perm]]
    else:
        eligible = popcount(st) >= 2
        child = d.leaf[table.perm]
    found = _value_groups(search, node, eligible, child)
    if found is None:
        return None
    node, positions, inverse, g_node, g_child, hist = found
    n_nodes, m = table.size.size, check.n_values
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
    part_of_group = np.full(g_node.size, -1, dtype=np.int64)
    rank_in_node = np.arange(kept.size) - kstart[kn]
    separated = rank_in_node >= np.maximum(p[kn], 0)
    part_of_group[kept[separated]] = rank_in_node[separated] - p[kn[separated]]
    rest_part = kcount - np.maximum(p, 0)
    unset = part_of_group < 0
    part_of_group[unset] = rest_part[g_node[unset]]
    return _numbered(search, j, np.where(cut_nodes, n_parts, 0), node, inverse, part_of_group, positions)


def halve_plan(search, j: int) -> Plan | None:
    """The halving of every node's value set along ``j`` (:func:`geoanon.joint.cuts.halve_cut`)."""
    table = search.nodes
    d, check = search.problem.items[j], search.check
    found = _value_groups(search, table.position_node(), popcount(table.state[j]) >= 2, d.leaf[table.perm])
    if found is None:
        return None
    node, positions, inverse, g_node, g_child, hist = found
    n_nodes, m = table.size.size, check.n_values
    order = np.lexsort((g_child, -hist.sum(axis=1), g_node))      # each node's values, the most held first
    o_node = g_node[order]
    start = np.searchsorted(o_node, np.arange(n_nodes + 1))
    cum = np.cumsum(hist[order], axis=0)
    before = np.vstack([np.zeros((1, m), dtype=np.int64), cum])[start[:-1]]
    total = cum[start[1:] - 1] - before
    left = cum - before[o_node]
    right = total[o_node] - left
    last = np.arange(order.size) == start[1:][o_node] - 1       # every value on the left: no cut
    ok = ~last & check.holds(left) & check.holds(right)
    if not ok.any():
        return None
    n_left, n_all = left.sum(axis=1), total.sum(axis=1)[o_node]
    at = np.flatnonzero(ok)
    at = at[np.lexsort((at, np.abs(2 * n_left[at] - n_all[at]), o_node[at]))]
    first = np.r_[True, o_node[at][1:] != o_node[at][:-1]]
    cut_at = np.full(n_nodes, -1, dtype=np.int64)
    cut_at[o_node[at[first]]] = at[first]
    part_of_group = np.empty(order.size, dtype=np.int64)
    part_of_group[order] = (np.arange(order.size) > cut_at[o_node]).astype(np.int64)
    return _numbered(search, j, np.where(cut_at >= 0, 2, 0), node, inverse, part_of_group, positions)


def _value_groups(search, node, eligible, child):
    """The rows of the ``eligible`` nodes grouped by node and ``child`` (each
    position's child node or value; ``node`` each position's node): each
    kept position's node, the kept positions (None: all), each one's group,
    every group's node and child, and its sensitive histogram (groups x
    values). None where no node is eligible."""
    table, check = search.nodes, search.check
    keep_rows = eligible[node]
    if not keep_rows.any():
        return None
    positions = None if keep_rows.all() else np.flatnonzero(keep_rows)
    rows = table.perm if positions is None else table.perm[positions]
    if positions is not None:
        node, child = node[positions], child[positions]
    n_child = int(child.max()) + 1
    groups, inverse = dense_unique(node * n_child + child, table.size.size * n_child)
    m = check.n_values
    hist = np.bincount(inverse * m + check.codes[rows] if m > 1 else inverse,
                       minlength=groups.size * m).reshape(groups.size, m)
    return node, positions, inverse, groups // n_child, groups % n_child, hist


def _numbered(search, j, n_parts, node, group, part_of_group, positions) -> Plan:
    """The :class:`Plan` of a peel whose nodes are cut into ``n_parts``
    each (0: not cut), numbered node after node: ``node`` is each row's
    node, ``group`` its group, whose part in its node ``part_of_group``
    gives, at ``positions`` of the node table (None: all)."""
    nodes = np.flatnonzero(n_parts)
    first_part = np.cumsum(n_parts) - n_parts
    part_at = peeled_parts(node, group, part_of_group, n_parts, first_part,
                           np.zeros(0, dtype=np.int64) if positions is None else positions, search.nodes.perm.size)
    p_node = np.repeat(nodes, n_parts[nodes])
    return _plan(search, j, nodes, part_at, p_node, np.arange(p_node.size) - first_part[p_node])


def _plan(search, j, nodes, part_at, p_node, p_part, tiles=None) -> Plan:
    """The :class:`Plan` of cutting ``nodes`` along ``j`` into the parts
    ``part_at`` (the part of every position; the parts' nodes ``p_node``
    and their parts there ``p_part``, node after node): every part's state
    in every dimension carried and the summed cost of each node's parts. A
    rank cut gives its parts' ``tiles`` (nodes x 2 parts x lo/hi)."""
    table = search.nodes
    items = search.problem.items
    ranked = [e for e in search.allowed if isinstance(items[e], RankDim)]
    masked = [e for e in search.allowed if isinstance(items[e], SetDim)]
    lows, highs, helds, p_size = part_states(table.values, part_at, p_node.size, np.array(ranked, dtype=np.int64),
                                             np.array(masked, dtype=np.int64))
    states = {}
    for e in search.allowed:
        de = items[e]
        parent = table.state[e][p_node]
        if isinstance(de, RankDim):
            lo_hi = parent[:, :2].copy()
            if e == j:
                lo_hi = tiles[np.searchsorted(nodes, p_node), p_part]
            first, end = lows[:, ranked.index(e)], highs[:, ranked.index(e)] + 1
            lo_hi[:, 1] = np.where((lo_hi[:, 1] > de.size) & (end <= de.size), de.size, lo_hi[:, 1])
            lo_hi[:, 0] = np.where(first >= de.size, de.size, lo_hi[:, 0])
            states[e] = np.column_stack([lo_hi, first, end])
        elif isinstance(de, TreeDim):
            states[e] = _lowest_common(de, table.perm, part_at, parent)
        else:
            states[e] = np.where((popcount(parent) > 1) | (e == j), helds[:, masked.index(e)], parent)
    origin = table.origin[p_node]
    cost = search.costs(states, origin) * p_size
    part_cost = np.zeros((len(search.weights), table.size.size))
    for r in range(int(p_part.max()) + 1):   # first parts first, as the node-by-node search sums them
        here = p_part == r
        part_cost[:, p_node[here]] += cost[:, here]
    return Plan(nodes, part_cost[:, nodes], part_at, p_node, p_size, states)


def _lowest_common(d: TreeDim, perm, part_at, parent) -> np.ndarray:
    """(level, node) of the lowest node above each part's leaves (``perm``:
    every position's row, ``part_at`` its part); parts whose parent is
    already a leaf keep it."""
    leaves = d.leaf[perm]
    out = parent.copy()
    todo = parent[:, 0] > 0
    for level, up in enumerate(d.ancestors):
        if not todo.any():
            break
        lo, hi, _, _ = part_states(up[leaves][:, None], part_at, parent.shape[0], np.zeros(1, dtype=np.int64),
                                   np.zeros(0, dtype=np.int64))
        hit = todo & (lo[:, 0] == hi[:, 0])
        out[hit, 0] = level
        out[hit, 1] = lo[hit, 0]
        todo &= ~hit
    return out
