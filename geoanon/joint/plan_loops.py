"""The per-row loops of the array search's cuts (:mod:`geoanon.joint.plans`),
compiled with numba: each makes one pass over a round's rows where the
array operations it replaces made a dozen (a sort, gathers, running maxima,
reductions per node). They choose exactly what those operations chose."""
from __future__ import annotations

import numba
import numpy as np

__all__ = ["by_node_and_rank", "destinations", "grouped", "location_choice", "nearest", "part_states", "peeled_parts",
           "rank_cuts", "rank_parts"]

_jit = numba.njit(cache=True, nogil=True)


@_jit
def by_node_and_rank(order, ranked, row_at, start, size):
    """The positions of every node (``row_at``: each table row's node times
    2^32 plus its position in the node table, -1 for none; ``start``,
    ``size``: the nodes' segments), node after node, each node's by rank,
    and their ranks: a pass over ``order`` (every row of the table by rank)
    instead of a sort. Rows of one rank come in table order. The third value
    says whether every node was filled: not where nodes share rows (several
    weightings' nodes), which one pass cannot order."""
    fill = start.copy()
    out = np.empty(order.size if size.size == 0 else start[-1] + size[-1], np.int64)
    sr = np.empty(out.size, np.int64)
    for i in range(order.size):
        at = row_at[order[i]]
        if at >= 0:
            n = at >> 32
            f = fill[n]
            out[f] = at & 0xFFFFFFFF
            sr[f] = ranked[i]
            fill[n] = f + 1
    for n in range(size.size):
        if fill[n] != start[n] + size[n]:
            return out, sr, False
    return out, sr, True


@_jit
def destinations(positions, size, n_old):
    """Where every position of a node table goes in the table of the
    ``positions`` (of the old table, node after node, ``size`` each): the
    new node times 2^32 plus the new position, -1 for none, as
    :func:`by_node_and_rank` reads it; and whether no position went twice
    (several weightings' nodes may share rows)."""
    dest = np.full(n_old, -1, np.int64)
    q = 0
    for n in range(size.size):
        for _ in range(size[n]):
            p = positions[q]
            if dest[p] >= 0:
                return dest, False
            dest[p] = n << 32 | q
            q += 1
    return dest, True


@_jit
def rank_cuts(sr, node, start, size, tile, k):
    """Per position of a round's rows (node after node, each by rank
    ``sr``), whether a cut before it is admissible: the first of its rank in
    its node, with ``k`` rows of the node on each side, in a node whose tile
    (``tile``: its states, lo and hi first) spans two ranks or more. Also
    each position's place in its node."""
    n = sr.size
    ok = np.zeros(n, np.bool_)
    local = np.empty(n, np.int64)
    if n:
        local[0] = 0
    for i in range(1, n):
        nd = node[i]
        local[i] = i - start[nd]
        if nd == node[i - 1] and sr[i] != sr[i - 1] and local[i] >= k and size[nd] - local[i] >= k \
                and tile[nd, 1] - tile[nd, 0] >= 2:
            ok[i] = True
    return ok, local


@_jit
def rank_parts(node, which, values, j, cut):
    """The part of every position (``node``: its node; ``which``: each
    node's cut, -1 for none; ``values[:, j]``: its rank; ``cut``: each cut's
    first rank on the right): its cut's left part ``2 c`` or right ``2 c +
    1``, -1 in a node not cut."""
    out = np.empty(node.size, np.int64)
    for i in range(node.size):
        c = which[node[i]]
        out[i] = -1 if c < 0 else 2 * c + (1 if values[i, j] >= cut[c] else 0)
    return out


@_jit
def peeled_parts(node, group, part_of_group, n_parts, first_part, positions, size):
    """The part of each of the node table's ``size`` positions in a peel:
    a row (``node``: its node, ``group``: its group, at ``positions``, empty
    for all in order) takes its group's part in its node after the parts of
    the nodes before (``first_part``) where its node is cut (``n_parts`` > 0);
    -1 elsewhere."""
    out = np.full(size, -1, np.int64)
    every = positions.size == 0
    for i in range(node.size):
        nd = node[i]
        if n_parts[nd] > 0:
            out[i if every else positions[i]] = first_part[nd] + part_of_group[group[i]]
    return out


@_jit
def nearest(cand, node, local, sizes, k):
    """Per node with candidates (``cand``: positions, by node), the one
    nearest the balanced target (floor(q/2) of the q = floor(s/k) classes
    to the left), the first on a tie."""
    out = np.empty(cand.size, np.int64)
    a, r = 0, 0
    while a < cand.size:
        n = node[cand[a]]
        s = sizes[n]
        q = s // k
        target = s * (q // 2) / max(q, 1) if q >= 2 else s / 2
        best, best_key = cand[a], abs(local[cand[a]] - target)
        b = a + 1
        while b < cand.size and node[cand[b]] == n:
            key = abs(local[cand[b]] - target)
            if key < best_key:
                best, best_key = cand[b], key
            b += 1
        out[r] = best
        a, r = b, r + 1
    return out[:r]


@_jit
def location_choice(at, cand, node, local, sizes, starts, sr, low, high, span, boxes, across, other_low, other_high,
                    other_span, k, window, gap_share, shared):
    """Per node (``at``: its balanced cut; ``cand``: the candidate positions,
    by node), the location cut of :func:`geoanon.joint.cuts._location_position`
    among the candidates keeping ``window`` of its rows on each side, where it
    has any: least first by the class count kept (where classes publish their
    own box, ``shared`` False), a gap of ``gap_share`` of the node's extent,
    then where the gap is wide enough the records' boxes' widths (``boxes``;
    the other axis: its ranks ``across`` in the sorted order, empty for
    none) or the distance to ``at``, else the widest gap; the first on ties."""
    out = at.copy()
    top = low.size - 1
    measured = boxes and across.size > 0
    suffix_hi, suffix_lo = np.empty_like(across), np.empty_like(across)
    a, r = 0, 0
    while a < cand.size:
        n = node[cand[a]]
        b = a
        while b < cand.size and node[cand[b]] == n:
            b += 1
        s, start = sizes[n], starts[n]
        last = start + s - 1
        need = gap_share * (high[min(sr[last], top)] - low[sr[start]])
        prefix_hi = prefix_lo = 0
        if measured:
            hi = lo = across[last]
            for p in range(last, start - 1, -1):
                v = across[p]
                hi, lo = max(hi, v), min(lo, v)
                suffix_hi[p], suffix_lo[p] = hi, lo
            prefix_hi = prefix_lo = across[start]
        scanned = start + 1
        chosen, best0, best1, best2 = -1, 0.0, 0.0, 0.0
        for c in range(a, b):
            pos = cand[c]
            i = local[pos]
            if not (i >= window * s and i <= (1 - window) * s):
                continue
            clearance = np.inf
            if sr[pos] <= top and need > 0:
                clearance = (low[sr[pos]] - high[sr[pos - 1]]) / need
            clean = clearance >= 1
            if not clean:
                value = -clearance
            elif boxes:
                value = 0.0
                value += i * (high[sr[pos - 1]] - low[sr[start]]) / span
                value += (s - i) * (high[sr[last]] - low[sr[pos]]) / span
                if measured:
                    while scanned < pos:            # the left side's extremes on the other axis
                        prefix_hi, prefix_lo = max(prefix_hi, across[scanned]), min(prefix_lo, across[scanned])
                        scanned += 1
                    value += i * (other_high[prefix_hi] - other_low[prefix_lo]) / other_span
                    value += (s - i) * (other_high[suffix_hi[pos]] - other_low[suffix_lo[pos]]) / other_span
            else:
                value = float(abs(i - local[at[r]]))
            kept = 0.0 if shared or i // k + (s - i) // k >= s // k else 1.0
            gapped = 0.0 if clean else 1.0
            if chosen < 0 or kept < best0 or (kept == best0 and (gapped < best1 or (gapped == best1
                                                                                     and value < best2))):
                chosen, best0, best1, best2 = pos, kept, gapped, value
        if chosen >= 0:
            out[r] = chosen
        a, r = b, r + 1
    return out


@_jit
def part_states(values, part_at, n_parts, ranked, masked):
    """Over each part's rows (``part_at``: the part of every row of
    ``values``, -1 for none; ``values``: a row of the table per row,
    :meth:`~geoanon.joint.dims.Dims.row_values`, in the node table's order):
    the least and greatest of each column of ``ranked``, the bitwise or of
    each column of ``masked``, and the rows; one read of each row, in order."""
    lo = np.full((n_parts, ranked.size), np.iinfo(np.int64).max, np.int64)
    hi = np.full((n_parts, ranked.size), np.iinfo(np.int64).min, np.int64)
    held = np.zeros((n_parts, masked.size), np.int64)
    size = np.zeros(n_parts, np.int64)
    for i in range(part_at.size):
        p = part_at[i]
        if p < 0:
            continue
        size[p] += 1
        for c in range(ranked.size):
            v = values[i, ranked[c]]
            lo[p, c], hi[p, c] = min(lo[p, c], v), max(hi[p, c], v)
        for c in range(masked.size):
            held[p, c] |= values[i, masked[c]]
    return lo, hi, held, size


@_jit
def grouped(part_at, chosen):
    """The positions of the parts ``chosen`` (a flag per part; ``part_at``:
    every position's part, -1 for none), part after part, each part's in
    order: a counting sort."""
    end = np.zeros(chosen.size + 1, np.int64)
    for p in part_at:
        if p >= 0 and chosen[p]:
            end[p + 1] += 1
    for p in range(chosen.size):
        end[p + 1] += end[p]
    out = np.empty(end[-1], np.int64)
    for i in range(part_at.size):
        p = part_at[i]
        if p >= 0 and chosen[p]:
            out[end[p]] = i
            end[p] += 1
    return out
