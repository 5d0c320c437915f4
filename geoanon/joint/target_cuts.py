"""The location cut down to a precision target: at each cut, the part within
the target holds as many rows as it can.

A node of points wider than the target (``problem.too_wide``) is cut along
latitude or longitude where one side is the largest that fits within the
target: the longest run of rows in rank order from either end whose box is
no wider (a box only grows as rows join it, so the run is found by
bisection), over both axes, the longest first. On a line this greedy cover
is the least number of pieces (the interval-cover argument), but for the
model: a side left too wide with fewer than 2k rows cannot be cut again, so
a cut whose other side fits or holds 2k rows or more comes first (the
longest fitting side that leaves 2k rows, where the longest leaves fewer).
It leaves the location in fewer, fuller pieces than cuts placed for the
boxes' summed width (:func:`~geoanon.joint.cuts.best_parts`), so fewer rows
end in pieces that cannot be cut within the target and every piece holds
more rows for the other columns' cuts inside it (``bench/RESULTS.md``, the
fine-location end). Where no side fits, or the location is not of points,
the node takes :func:`best_parts`' cut.
"""
from __future__ import annotations

import numpy as np

from .cuts import admissible_positions, best_parts, child_state, narrowed_ranks
from .dims import RankDim

__all__ = ["SECTIONS", "target_parts"]

SECTIONS = 16       # positions a cut's search judges at a time (:func:`_longest_fit`)


def target_parts(problem, node: tuple, location: list) -> list | None:
    """The parts ``[(rows, state)]`` of the cut of ``node`` ``(rows, state)``
    along ``location`` (positions of the location's dimensions) whose side
    within the target is the longest, those whose other side fits or can be
    cut again first (ties: the first axis, the low side); :func:`best_parts`
    where no side fits; None where no cut is admissible."""
    rows, state = node
    if not all(isinstance(problem.items[j], RankDim) for j in location):
        return best_parts(problem, node, location)
    best = None
    for j in location:
        order = np.argsort(problem.items[j].rank[rows], kind="stable")
        ranks = problem.items[j].rank[rows[order]]
        positions = admissible_positions(problem.check, rows[order], ranks)
        sides = {low_side: _side_ranks(problem, rows[order], low_side, location) for low_side in (True, False)}
        for low_side in (True, False):
            found = _side_cut(problem, state, sides, positions, low_side, rows.size)
            if found is not None and (best is None or found[:2] > best[0][:2]):
                best = (found, j, order, ranks)
    if best is None:
        return best_parts(problem, node, location)
    (_, _, at), j, order, ranks = best
    d = problem.items[j]
    boundary = int(d.central_boundary(np.array([int(ranks[at - 1]) + 1]), np.array([int(ranks[at])]))[0])
    lo, hi = state[j][:2]
    left, right = rows[order[:at]], rows[order[at:]]
    return [(left, child_state(problem, state, j, (lo, boundary), left)),
            (right, child_state(problem, state, j, (boundary, hi), right))]


def _side_cut(problem, state, sides: dict, positions, low_side: bool, size: int) -> tuple | None:
    """The cut of ``size`` rows ordered by one axis (``sides``: per side,
    low or not, its location ranks, :func:`_side_ranks`) whose low side (else
    high side) fits within the target, as ``(whether the other side fits or holds
    2k rows or more, the fitting side's rows, the position)``: the longest
    fitting side, or, where that leaves the other side too wide with fewer
    than 2k rows, the longest that leaves 2k; None where no side fits."""
    at = _longest_fit(problem, state, sides[low_side], positions, low_side)
    if at is None:
        return None
    two_k = 2 * problem.check.model.k
    rest = size - at if low_side else at
    if rest < two_k and _longest_fit(problem, state, sides[not low_side], np.array([at]), not low_side) is None:
        room = positions[positions <= size - two_k] if low_side else positions[positions >= two_k]
        shorter = _longest_fit(problem, state, sides[low_side], room, low_side)
        if shorter is None:
            return (False, at if low_side else size - at, at)
        at = shorter
    return (True, at if low_side else size - at, at)


def _longest_fit(problem, state, held: dict, positions: np.ndarray, low_side: bool) -> int | None:
    """The cut position (among ``positions``, ascending, of rows ordered by
    one axis; ``held``: that side's location ranks, :func:`_side_ranks`)
    whose low side (else high side) is the longest within the target; None
    where even the shortest is too wide. A side's rows grow as the position
    moves away from it, so the position is found by multisection:
    ``SECTIONS`` positions judged at a time, in one call of the target's
    test, their sides' states read off the running ranks."""
    if not positions.size:
        return None

    def fits(ats: np.ndarray) -> np.ndarray:
        ends = ats - 1 if low_side else ats             # the last row of each low side, the first of a high one
        states = []
        for i in ends.tolist():
            located = list(state)
            for j, (first, last) in held.items():
                located[j] = narrowed_ranks(problem.items[j], state[j], int(first[i]), int(last[i]) + 1)
            states.append(tuple(located))
        return ~np.asarray(problem.too_wide(states), dtype=bool)

    lo, hi = 0, positions.size - 1
    while True:                         # the shortest side fits from the first round on
        probe = np.unique(np.linspace(lo, hi, SECTIONS + 1).round().astype(np.int64))
        ok = fits(positions[probe])
        if not ok[0 if low_side else -1]:
            return None
        if low_side:                    # the last probe that fits; the next does not
            at = int(np.flatnonzero(ok)[-1])
            lo, hi = int(probe[at]), (int(probe[at + 1]) - 1 if at + 1 < probe.size else hi)
        else:                           # the first probe that fits; the one before does not
            at = int(np.flatnonzero(ok)[0])
            lo, hi = (int(probe[at - 1]) + 1 if at > 0 else lo), int(probe[at])
        if lo >= hi:
            return int(positions[lo])


def _side_ranks(problem, ordered: np.ndarray, low_side: bool, location) -> dict:
    """Per dimension of the location, the least and greatest rank of the low
    side up to each row of ``ordered`` (else of the high side from it)."""
    out = {}
    for j in location:
        r = problem.items[j].rank[ordered]
        if low_side:
            out[j] = (np.minimum.accumulate(r), np.maximum.accumulate(r))
        else:
            out[j] = (np.minimum.accumulate(r[::-1])[::-1], np.maximum.accumulate(r[::-1])[::-1])
    return out
