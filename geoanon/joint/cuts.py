"""The cut operators of the top-down search, one per kind of dimension.

A cut splits a node (its rows and the state of every dimension: a tile or a
hierarchy node) into parts that each still meet the model: Du et al.'s
Theorem 2 rule (cut only while both sides hold >= k) with the model in place
of k, which is sound because k, Liang-Yuan l, distinct l and t-closeness all
survive the union of classes. Every operator returns a :class:`Cut` with the
parts and the NCP it removes (``gain``), or None.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .dims import RankDim, TreeDim


@dataclass
class Cut:
    gain: float
    dim: int
    parts: list        # [(rows, state)]


def child_state(dims, state: tuple, j: int, value, rows: np.ndarray) -> tuple:
    """The state of a part of a node cut along dimension ``j`` (new tile or
    node ``value``): other hierarchies move down to the lowest node above the
    part's rows, and tiles drop the missing rank when no part row is missing."""
    out = list(state)
    out[j] = value
    for i, d in enumerate(dims.items):
        if i == j:
            continue
        if isinstance(d, TreeDim):
            if state[i][0] > 0:
                out[i] = d.node_of(rows)
        elif d.missing and state[i][1] > d.size:
            out[i] = _tile_rows(d, state[i], rows)
    if isinstance(dims.items[j], RankDim) and dims.items[j].missing:
        out[j] = _tile_rows(dims.items[j], out[j], rows)
    return tuple(out)


def _tile_rows(d: RankDim, tile: tuple, rows: np.ndarray) -> tuple:
    """A tile reaching the missing rank, narrowed to what ``rows`` hold:
    without missing rows it ends at the values; with only missing rows it is
    the missing rank alone."""
    lo, hi = tile
    if hi <= d.size:
        return tile
    r = d.rank[rows]
    if not (r == d.size).any():
        return (lo, d.size)
    if not (r < d.size).any():
        return (d.size, hi)
    return tile


def _cost(dims, state, rows_count: int) -> float:
    return rows_count * dims.cost(state)


def rank_cut(dims, j: int, rows: np.ndarray, state: tuple, check) -> Cut | None:
    """Cut an ordered dimension between two consecutive distinct ranks, at the
    admissible position nearest the balanced target: the left part gets
    floor(q / 2) of the q = floor(size / k) classes the node could hold, so
    that classes land near k (the balanced rule of ``points``). The boundary
    gives any rank gap between the two sides to the smaller part."""
    d = dims.items[j]
    lo, hi = state[j]
    if hi - lo < 2:
        return None
    r = d.rank[rows]
    order = np.argsort(r, kind="stable")
    sr = r[order]
    s = rows.size
    k = check.model.k
    pos = np.flatnonzero(sr[1:] != sr[:-1]) + 1
    pos = pos[(pos >= k) & (s - pos >= k)]
    if pos.size == 0:
        return None
    if check.model.needs_sensitive:
        codes = check.codes[rows[order]]
        left = np.empty((pos.size, check.n_values), dtype=np.int64)
        for v in range(check.n_values):
            left[:, v] = np.cumsum(codes == v)[pos - 1]
        total = np.bincount(codes, minlength=check.n_values)
        pos = pos[check.holds(left) & check.holds(total[None, :] - left)]
        if pos.size == 0:
            return None
    q = s // k
    target = s * (q // 2) / q if q >= 2 else s / 2
    i = int(pos[np.argmin(np.abs(pos - target))])
    a, b = int(sr[i - 1]) + 1, int(sr[i])
    boundary = b if (i < s - i or b == d.size) else a
    left_rows, right_rows = rows[order[:i]], rows[order[i:]]
    parts = [(left_rows, child_state(dims, state, j, (lo, boundary), left_rows)),
             (right_rows, child_state(dims, state, j, (boundary, hi), right_rows))]
    gain = _cost(dims, state, s) - sum(_cost(dims, st, p.size) for p, st in parts)
    return Cut(gain, j, parts)


def tree_cut(dims, j: int, rows: np.ndarray, state: tuple, check) -> Cut | None:
    """Split a hierarchy node along its children. Children whose rows meet
    the model become parts of their own; the rest stay together under the
    node (a suppressed column publishes ``*`` for them), taking back the
    smallest separated children while they alone would miss the model. A
    strict dimension (a location) splits only into all of its children."""
    d = dims.items[j]
    level, _ = state[j]
    if level == 0:
        return None
    child = d.ancestors[level - 1][d.leaf[rows]]
    present = np.bincount(child)
    groups = np.flatnonzero(present)
    if groups.size < 2:
        return None
    dense = np.zeros(present.size, dtype=np.int64)
    dense[groups] = np.arange(groups.size)
    inverse = dense[child]
    m = check.n_values
    hist = np.bincount(inverse * m + check.codes[rows], minlength=groups.size * m).reshape(groups.size, m)
    ok = check.holds(hist)
    if d.strict:
        if not ok.all():
            return None
        part_of_group = np.arange(groups.size)
    else:
        sizes = hist.sum(axis=1)
        rest = hist[~ok].sum(axis=0)
        kept = sorted(np.flatnonzero(ok).tolist(), key=lambda g: (sizes[g], g))
        while rest.sum() and kept and not check.holds(rest[None, :])[0]:
            g = kept.pop(0)
            rest = rest + hist[g]
        part_of_group = np.full(groups.size, len(kept), dtype=np.int64)
        part_of_group[kept] = np.arange(len(kept))
        if rest.sum() and not check.holds(rest[None, :])[0]:
            return None
    part = part_of_group[inverse]
    n_parts = int(part.max()) + 1
    if n_parts < 2:
        return None
    order = np.argsort(part, kind="stable")
    splits = np.cumsum(np.bincount(part, minlength=n_parts))[:-1]
    parts = []
    for p_rows in np.split(rows[order], splits):
        parts.append((p_rows, child_state(dims, state, j, d.node_of(p_rows), p_rows)))
    gain = _cost(dims, state, rows.size) - sum(_cost(dims, st, p.size) for p, st in parts)
    return Cut(gain, j, parts)


def best_cut(dims, rows: np.ndarray, state: tuple, check, allowed) -> Cut | None:
    """The admissible cut, over the dimensions ``allowed``, that removes the
    most NCP (ties: the first dimension)."""
    if rows.size < 2 * check.model.k:       # no cut leaves k on both sides
        return None
    best = None
    for j in allowed:
        op = rank_cut if isinstance(dims.items[j], RankDim) else tree_cut
        cut = op(dims, j, rows, state, check)
        if cut is not None and cut.gain > 1e-12 and (best is None or cut.gain > best.gain + 1e-12):
            best = cut
    return best
