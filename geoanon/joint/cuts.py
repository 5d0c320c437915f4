"""The cut operators of the top-down search, one per kind of dimension.

A cut splits a node (its rows and the state of every dimension: a tile or a
hierarchy node) into parts that each still meet the model: Du et al.'s
Theorem 2 rule (cut only while both sides hold >= k) with the model in place
of k, which is sound because k, Liang-Yuan l, distinct l and t-closeness all
survive the union of classes. Every operator returns a :class:`Cut` with the
parts and the NCP it removes (``gain``), or None.

These are the rules node by node: the array search
(:mod:`geoanon.joint.batch`) reproduces them exactly, and the tests compare
the two. The searches that need a node at a time cut with them
(:func:`descend`): lookahead, the greedy design, ZIP and label location
trees, value sets of more than 62 values, first cuts, shards and pieces.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .dims import RankDim, SetDim, TreeDim

__all__ = ["HALVED_ABOVE", "STRANDED", "TILING_GAP", "WINDOW", "admissible_positions", "best_cut", "best_parts",
           "child_state", "compact_choice", "cut_clearance", "descend", "first_keys", "first_least", "halve_cut",
           "halved", "keeps_classes", "narrowed", "narrowed_ranks", "own_cut", "per_bit", "rank_cut", "split_bits",
           "stranding"]


@dataclass
class Cut:
    gain: float
    dim: int
    parts: list        # [(rows, state)]


def child_state(problem, state: tuple, j: int, value, rows: np.ndarray) -> tuple:
    """The state of a part of a node cut along dimension ``j`` (new tile or
    node ``value``): every dimension narrows to what the part's rows hold
    (hierarchies to the lowest node above them, tiles to the ranks they
    hold), except that, where ``problem.shared_location``, only a location cut
    narrows the location, which the classes inside one location class share."""
    out = list(state)
    out[j] = value
    narrow_location = problem.items[j].location or not problem.shared_location
    for i, d in enumerate(problem.items):
        if (d.location and not narrow_location) or (i == j and not isinstance(d, RankDim)):
            continue
        out[i] = narrowed(d, out[i], rows)
    return tuple(out)


def narrowed(d, state, rows: np.ndarray):
    """A dimension's ``state`` narrowed to what ``rows`` hold: a rank state
    to their ranks (:func:`_narrowed`), a hierarchy node to the lowest node
    above them, a value set to the values they hold."""
    if isinstance(d, RankDim):
        return _narrowed(d, state, rows)
    if isinstance(d, TreeDim) and state[0] > 0:
        return d.node_of(rows)
    if isinstance(d, SetDim) and state.bit_count() > 1:
        return d.held(rows)
    return state


def _narrowed(d: RankDim, state: tuple, rows: np.ndarray) -> tuple:
    """A rank state with the ranks ``rows`` hold (:func:`narrowed_ranks`)."""
    return narrowed_ranks(d, state, *d.held(rows))


def narrowed_ranks(d: RankDim, state: tuple, first: int, end: int) -> tuple:
    """A rank state narrowed to rows holding the ranks ``first`` to ``end`` -
    1; a tile reaching the missing rank ends at the values when no row is
    missing, and is the missing rank alone when only missing rows remain."""
    lo, hi = state[0], state[1]
    if hi > d.size and end <= d.size:
        hi = d.size
    if first >= d.size:
        lo = d.size
    return (lo, hi, first, end)


def _rows_cost(problem, state, n_rows: int) -> float:
    """The cost of a class of ``n_rows`` rows in ``state``."""
    return n_rows * problem.cost(state)


def rank_cut(problem, j: int, rows: np.ndarray, state: tuple) -> Cut | None:
    """Cut an ordered dimension between two consecutive distinct ranks, at the
    admissible position nearest the balanced target: the left part gets
    floor(q / 2) of the q = floor(size / k) classes the node could hold, so
    that classes land near k (the balanced rule of ``points``). The boundary
    gives any rank gap between the two sides to the smaller part; a location
    cut is placed where it keeps away from the records instead
    (:func:`_location_position`, :meth:`RankDim.central_boundary`), and a
    compact cut in the widest gap (:func:`compact_choice`)."""
    d, check = problem.items[j], problem.check
    lo, hi = state[j][:2]
    if hi - lo < 2:
        return None
    r = d.rank[rows]
    order = np.argsort(r, kind="stable")
    sr = r[order]
    s = rows.size
    k = check.model.k
    pos = admissible_positions(check, rows[order], sr)
    if pos.size == 0:
        return None
    q = s // k
    target = s * (q // 2) / q if q >= 2 else s / 2
    i = int(pos[np.argmin(np.abs(pos - target))])
    if d.location:
        i = _location_position(problem, j, rows[order], sr, pos, i, k)
    elif problem.compact_cuts:
        i = int(pos[compact_choice(d, sr, pos, np.zeros(pos.size, dtype=np.int64), np.zeros(pos.size, dtype=np.int64),
                                   np.full(pos.size, s), target, k)[0]])
    a, b = int(sr[i - 1]) + 1, int(sr[i])
    if d.location:        # the edge in the middle of the gap between the two sides
        boundary = int(d.central_boundary(np.array([a]), np.array([b]))[0])
    else:                 # any rank gap to the smaller part
        boundary = b if (i < s - i or b == d.size) else a
    left_rows, right_rows = rows[order[:i]], rows[order[i:]]
    parts = [(left_rows, child_state(problem, state, j, (lo, boundary), left_rows)),
             (right_rows, child_state(problem, state, j, (boundary, hi), right_rows))]
    gain = _rows_cost(problem, state, s) - sum(_rows_cost(problem, st, p.size) for p, st in parts)
    return Cut(gain, j, parts)


def admissible_positions(check, ordered: np.ndarray, ranks: np.ndarray) -> np.ndarray:
    """The positions at which rows ``ordered`` by ``ranks`` (sorted) may be
    cut: between two distinct ranks, both sides meeting the model (Theorem
    2's rule, the model in place of k)."""
    s, k = ordered.size, check.model.k
    pos = np.flatnonzero(ranks[1:] != ranks[:-1]) + 1
    pos = pos[(pos >= k) & (s - pos >= k)]
    if pos.size and check.model.needs_sensitive:
        codes = check.codes[ordered]
        left = np.empty((pos.size, check.n_values), dtype=np.int64)
        for v in range(check.n_values):
            left[:, v] = np.cumsum(codes == v)[pos - 1]
        total = np.bincount(codes, minlength=check.n_values)
        pos = pos[check.holds(left) & check.holds(total[None, :] - left)]
    return pos


def keeps_classes(i, size, k: int) -> np.ndarray:
    """Whether a cut after the first ``i`` of a node's ``size`` rows keeps
    the number of classes the node can hold, floor(size / k). A part of k to
    2k - 1 rows ends as one class, so a cut that strands rows (a part of
    2k - 1 beside one of 2k + 1 where k beside 3k was possible) widens every
    class below it; the rank cuts prefer cuts that keep (Adult at real
    places, k = 50: the location alone 7% narrower, the frontier benchmark's
    worst ratios 2-18% lower)."""
    return i // k + (size - i) // k >= size // k


def compact_choice(d: RankDim, sr, at, node, start, size, target, k: int) -> np.ndarray:
    """Among the cuts ``at`` (positions in the sorted ranks ``sr``; ``node``,
    its ``start`` and ``size`` per cut), the one per node (in node order)
    that keeps the node's class count (:func:`keeps_classes`) where one does,
    then whose two parts' summed width over the dimension (rows times range)
    is least, then nearest the balanced ``target``, then first: a cut in the
    widest gap, which sets a tail of outliers apart where the balanced cut
    would stretch a class over it (the joint design's rank cut)."""
    top = d.size - 1
    i = at - start
    low, high = d.low[np.minimum(sr, top)], d.high[np.minimum(sr, top)]
    cost = i * (high[at - 1] - low[start]) + (size - i) * (high[start + size - 1] - low[at])
    return first_least(node, ~keeps_classes(i, size, k), cost, np.abs(i - target))


def first_least(node: np.ndarray, *keys) -> np.ndarray:
    """Per run of equal ``node`` values (runs consecutive), the position of
    the first element whose ``keys`` are least, compared in order: what
    ``np.lexsort((position, *reversed(keys), node))`` picks first per node, in
    linear time."""
    change = np.r_[True, node[1:] != node[:-1]]
    starts, run = np.flatnonzero(change), np.cumsum(change) - 1
    ok = np.ones(node.size, dtype=bool)
    for key in keys:
        value = np.where(ok, np.asarray(key, dtype=np.float64), np.inf)
        ok &= value == np.minimum.reduceat(value, starts)[run]
    held = np.flatnonzero(ok)
    return held[np.r_[True, run[held][1:] != run[held][:-1]]]


WINDOW = 0.1      # cuts keep at least this share of the rows on each side
TILING_GAP = 0.02  # the tiling designs' location cuts look for a gap of this share of the node's extent


def _location_position(problem, j, rows, sr, pos, balanced, k) -> int:
    """Among admissible positions keeping at least ``WINDOW`` of the rows on
    each side, where each class publishes its own box (the joint design,
    ``problem.shared_location`` False) one that keeps the node's class count
    (:func:`keeps_classes`) where one does; then a cut in a gap wide enough
    for the edges' margin (:func:`cut_clearance` at least 1) where there is
    one, else in the widest gap; among those, on a box location
    (``"grid"``, every row located), the one whose two records' boxes are
    smallest (summed widths over both location axes, weighted by rows: cuts
    fall in gaps between clusters), else the one nearest ``balanced``."""
    s = rows.size
    window = pos[(pos >= WINDOW * s) & (pos <= (1 - WINDOW) * s)]
    if window.size == 0:
        return balanced
    d = problem.items[j]
    clearance = cut_clearance(d, sr[window - 1], sr[window], sr[0], sr[-1])
    if d.extent == "grid" and not d.missing:
        cost = np.zeros(window.size)
        left, right = window - 1, window
        cost += window * (d.high[sr[left]] - d.low[sr[0]]) / d.span
        cost += (s - window) * (d.high[sr[-1]] - d.low[sr[right]]) / d.span
        for e in problem.items:
            if e is d or not e.location or e.span <= 0:
                continue
            r = e.rank[rows]
            lo, hi = e.low[r], e.high[r]
            cost += window * (np.maximum.accumulate(hi)[left] - np.minimum.accumulate(lo)[left]) / e.span
            cost += (s - window) * (np.maximum.accumulate(hi[::-1])[::-1][right]
                                    - np.minimum.accumulate(lo[::-1])[::-1][right]) / e.span
    else:
        cost = np.abs(window - balanced).astype(float)
    clean = clearance >= 1
    key = np.where(clean, cost, -clearance)
    return int(window[np.lexsort((window, key, *reversed(first_keys(problem, clean, keeps_classes(window, s, k)))))[0]])


def first_keys(problem, clean, keeps) -> list:
    """The first keys of a location cut (:func:`_location_position`), the
    first first, less is better: where each class publishes its own box,
    the class count kept, then a gap wide enough; where classes share their
    location class's box, the gap alone (keeping the count there costs the
    frontier design 9-15% more NCP on Adult at ZIP centroids, k = 5 and 10)."""
    return [~clean] if problem.shared_location else [~keeps, ~clean]


def cut_clearance(d: RankDim, left_last, right_first, first, last) -> np.ndarray:
    """For cuts of a location dimension between ranks ``left_last`` and
    ``right_first`` of nodes holding ranks ``first`` to ``last``: the gap
    between the two sides over the gap a cut looks for
    (:func:`geoanon.points.kdtree.needed_gap`, :data:`TILING_GAP` of the node's extent; infinite
    where the right side holds only missing values, which publish no box)."""
    from ..points.kdtree import needed_gap

    located = right_first < d.size
    top = np.minimum(last, d.size - 1)
    gap = d.low[np.minimum(right_first, d.size - 1)] - d.high[left_last]
    need = needed_gap(d.high[top] - d.low[first], TILING_GAP)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(located, np.where(need > 0, gap / need, np.inf), np.inf)


def tree_cut(problem, j: int, rows: np.ndarray, state: tuple) -> Cut | None:
    """Split a hierarchy node along its children (see :func:`_group_cut`). A
    strict dimension (a location) splits only into all of its children."""
    d = problem.items[j]
    level, _ = state[j]
    if level == 0:
        return None
    return _group_cut(problem, j, rows, state, d.ancestors[level - 1][d.leaf[rows]], d.strict, d.node_of)


def set_cut(problem, j: int, rows: np.ndarray, state: tuple) -> Cut | None:
    """Split a set of values into values of their own and the rest (see
    :func:`_group_cut`)."""
    d = problem.items[j]
    if state[j].bit_count() < 2:
        return None
    return _group_cut(problem, j, rows, state, d.leaf[rows], False, d.held)


def halve_cut(problem, j: int, rows: np.ndarray, state: tuple) -> Cut | None:
    """Split a set of values in two, as a Mondrian with value sets splits a
    category (LeFevre et al., 2006, the median cut; the bench's Mondrian,
    ``bench/frontier_releases.py``): the values in order of their rows (the
    most held first, ties by value), the first ones against the rest at the
    position that leaves the two sides' rows most even among those where
    both meet the model (ties: the fewest values first); None where there
    is none."""
    d = problem.items[j]
    if state[j].bit_count() < 2:
        return None
    check = problem.check
    child = d.leaf[rows]
    hist = np.zeros((len(d.names), check.n_values), dtype=np.int64)
    np.add.at(hist, (child, check.codes[rows]), 1)
    present = hist.sum(axis=1)
    values = np.flatnonzero(present)
    order = values[np.lexsort((values, -present[values]))]
    left = np.cumsum(hist[order], axis=0)[:-1]
    ok = check.holds(left) & check.holds(hist.sum(axis=0) - left)
    if not ok.any():
        return None
    n_left = left.sum(axis=1)
    at = np.flatnonzero(ok)
    p = int(at[np.argmin(np.abs(2 * n_left[at] - rows.size))]) + 1
    on_left = np.zeros(len(d.names), dtype=bool)
    on_left[order[:p]] = True
    mask = on_left[child]
    parts = [(r, child_state(problem, state, j, d.held(r), r)) for r in (rows[mask], rows[~mask])]
    gain = _rows_cost(problem, state, rows.size) - sum(_rows_cost(problem, st, r.size) for r, st in parts)
    return Cut(gain, j, parts)


def _group_cut(problem, j, rows, state, child, strict, state_of) -> Cut | None:
    """Split rows by ``child`` (their child node or value): children whose
    rows meet the model become parts of their own; the rest stay together
    (published as their parent, ``*`` or their set), taking back the
    smallest separated children while they alone would miss the model.
    ``strict``: all children meet the model, or no cut."""
    check = problem.check
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
    if strict:
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
        parts.append((p_rows, child_state(problem, state, j, state_of(p_rows), p_rows)))
    gain = _rows_cost(problem, state, rows.size) - sum(_rows_cost(problem, st, p.size) for p, st in parts)
    return Cut(gain, j, parts)


STRANDED = 0.5    # the joint design ranks a cut as if each class it strands cost k rows this share of the node's loss


def stranding(lost, k: int, loss_per_row):
    """What a cut that leaves its node ``lost`` classes fewer than the
    floor(rows / k) it could hold weighs against its gain when the joint
    design ranks the cuts of a node of ``loss_per_row``: ``STRANDED`` times
    k rows at that loss per class (a stranded class's rows widen the classes
    they join). Only the ranking: a cut that removes loss is still made when
    it is the only one. On the frontier benchmark's nine cases (three
    tables, k = 5, 10, 50; settings 0.0125 apart) the worst ratios to the
    peer's loss with the share 0 / 0.25 / 0.5 / 0.75 / 1 sum to 6.37 / 6.07 /
    6.02 / 6.00 / 6.11, their largest 0.94 / 0.95 / 0.92 / 0.92 / 0.93; only
    0.5 is no worse than 0 in every case."""
    return STRANDED * lost * k * loss_per_row


def split_bits(sizes: np.ndarray, owner: np.ndarray, totals: np.ndarray) -> np.ndarray:
    """The split information in bits of each node's cut (Quinlan's gain
    ratio, 1986): the entropy of the shares of its rows its parts take
    (``sizes``: every part's rows, ``owner``: its node's position among
    ``totals``, each node's rows); 1 for two equal parts, log2(m) for m.

    >>> split_bits(np.array([5, 5, 2, 2, 2, 2]), np.array([0, 0, 1, 1, 1, 1]), np.array([10, 8])).tolist()
    [1.0, 2.0]
    """
    share = sizes / totals[owner]
    return np.bincount(owner, weights=-share * np.log2(share), minlength=totals.size)


def per_bit(score, bits):
    """``score`` of a cut ranked by its gain ratio (Quinlan's, 1986): over
    its bits of split information (:func:`split_bits`) beyond the first, so a
    cut into up to four even parts keeps its score and a category's sixteen
    values peeled at once (4 bits) count a third: a many-valued column is not
    split into all its values first on every path.

    Dividing by every bit (``max(1, bits)``) ranks down a 3-part peel of a
    marital status as well; over the bench's tuning cases (bench/RESULTS.md,
    "Gain ratio") it was worse than the plain gain at airports, k = 10
    (1.65x the peer's loss against 1.38x), where this rule is worse nowhere."""
    return score / np.maximum(1.0, bits - 1.0)


def best_cut(problem, rows: np.ndarray, state: tuple, allowed, lookahead=0) -> Cut | None:
    """The admissible cut, over the dimensions ``allowed``, that removes the
    most NCP together with the best cuts of its parts ``lookahead`` levels
    further down (ties: the first dimension); in the joint design (each class
    its own box, ``problem.shared_location`` False) less what the classes it
    strands weigh (:func:`stranding`). One level of lookahead lets a rare
    value be separated before other cuts scatter its rows."""
    k = problem.check.model.k
    if rows.size < 2 * k:       # no cut leaves k on both sides
        return None
    best, best_score = None, 0.0
    for j in allowed:
        cut = own_cut(problem, j, rows, state)
        if cut is None or cut.gain <= 1e-12:
            continue
        score = cut.gain
        if not problem.shared_location:
            score -= stranding(rows.size // k - sum(p.size // k for p, _ in cut.parts), k, problem.cost(state))
        if problem.gain_ratio:
            sizes = np.array([p.size for p, _ in cut.parts])
            score = float(per_bit(score, split_bits(sizes, np.zeros(sizes.size, dtype=np.int64),
                                                    np.array([rows.size]))[0]))
        if lookahead:
            for p, st in cut.parts:
                nxt = best_cut(problem, p, st, allowed, lookahead - 1)
                score += nxt.gain if nxt is not None else 0.0
        if best is None or score > best_score + 1e-12:
            best, best_score = cut, score
    return best


def best_parts(problem, node: tuple, allowed, lookahead=0) -> list | None:
    """The parts of :func:`best_cut` of ``node`` ``(rows, state)``; None where it has none."""
    cut = best_cut(problem, *node, allowed, lookahead)
    return None if cut is None else cut.parts


def descend(node, parts_of) -> list:
    """The leaves below ``node``, depth first, parts in order: ``parts_of(node)``
    gives a node's parts, or None where it is a leaf. The loop of every
    node-by-node search (shards, location trees, the greedy design, the
    finish with lookahead)."""
    leaves, stack = [], [node]
    while stack:
        here = stack.pop()
        parts = parts_of(here)
        if parts is None:
            leaves.append(here)
        else:
            stack.extend(reversed(parts))
    return leaves


def own_cut(problem, j: int, rows: np.ndarray, state: tuple) -> Cut | None:
    """Dimension ``j``'s cut of a node: :func:`rank_cut`, :func:`tree_cut`,
    :func:`set_cut`, or :func:`halve_cut` for a value set that is
    :func:`halved`."""
    d = problem.items[j]
    return (halve_cut if halved(d) else _OPERATORS[type(d)])(problem, j, rows, state)


HALVED_ABOVE = 8    # a value set of more values than this is halved, not peeled


def halved(d) -> bool:
    """Whether the search cuts dimension ``d`` by :func:`halve_cut`: a
    quasi-identifier's value set of more than ``HALVED_ABOVE`` values (not
    the location's). Peeling cuts such a node into a part per value that
    holds k rows, and every later cut, the location's too, is made inside
    one value's part; halving leaves two parts of mixed values. Chosen by
    bench/bench_halving.py's rule on its tuning tables among 0, 6, 8 and 16
    values and peeling alone (bench/RESULTS.md, "Halving the many-valued
    value sets")."""
    return isinstance(d, SetDim) and not d.location and len(d.names) > HALVED_ABOVE


_OPERATORS = {RankDim: rank_cut, TreeDim: tree_cut, SetDim: set_cut}
