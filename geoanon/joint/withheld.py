"""Records published without a location: the isolated ones
(:mod:`geoanon.points.isolated`), which a box would place far from the rest of
their class.

Those records, and the rest of any class that no longer meets the model
without them, are published with an empty location: they form one location
class of their own, cut along the other quasi-identifiers like any other.
The boxes they leave are held to the records that stay, so no box still
shows where a withheld record lies.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..errors import InfeasibleError
from .cuts import narrowed
from .dims import RankDim, state_columns
from .outliers import _blank
from .plan_loops import grouped
from .tiling import cut_down

__all__ = ["without_locations"]


def without_locations(problem, part, chosen: np.ndarray):
    """``part`` with the ``chosen`` rows (a bool per row) moved to a location
    class without a location, cut along the other quasi-identifiers as the
    frontier's classes are (:func:`geoanon.joint.tiling.cut_down`); and the
    rows moved.

    A class that misses the model without its chosen rows gives up, besides,
    rows of its most frequent sensitive value until it meets it again
    (:func:`_mending`), or goes whole; while the moved rows together miss it,
    whole classes join them one at a time (:func:`_diluting`; a union of
    classes meets k, l and t). InfeasibleError when even all of them miss it
    (a union can miss delta-disclosure)."""
    check, n_classes = problem.check, len(part.states)
    members = _Members(part.row_class, n_classes)
    chosen = np.asarray(chosen, dtype=bool)
    hit = np.unique(part.row_class[chosen])
    if hit.size == 0:
        return part, np.zeros(0, dtype=np.int64)
    moved = chosen.copy()
    for c in hit.tolist():
        moved[_mending(check, members[c][~chosen[members[c]]])] = True
    located = part.row_class >= 0
    per_class = np.zeros((n_classes, check.n_values), dtype=np.int64)
    np.add.at(per_class, (part.row_class[located], check.codes[located]), 1)
    whole = np.bincount(part.row_class[located & moved], minlength=n_classes) == per_class.sum(axis=1)
    hist = check.histogram(np.flatnonzero(moved))
    while not check.holds(hist[None, :])[0]:          # too few or too alike: whole classes join
        c = _diluting(per_class, hist, whole, hit)
        if c is None:
            break
        hist = hist + per_class[c] - check.histogram(members[c][moved[members[c]]])
        moved[members[c]] = whole[c] = True
    rows = np.flatnonzero(moved)
    if not check.holds(check.histogram(rows)[None, :])[0]:
        raise InfeasibleError(f"the {rows.size} records published without a location cannot meet "
                              f"{check.describe()} together")
    return _moved(problem, part, rows), rows


def _diluting(per_class, hist, whole, hit):
    """The class to move whole next, while the moved rows (sensitive counts
    ``hist``) miss the model: a class holding chosen rows before any other,
    then the one whose rows (``per_class`` counts) hold the smallest share of
    the moved rows' most frequent sensitive value (mending moved that value's
    rows: they need other values beside them); None when every class has moved."""
    left = np.flatnonzero(~whole)
    if left.size == 0:
        return None
    sizes = per_class[left].sum(axis=1)
    share = per_class[left, int(np.argmax(hist))] / np.maximum(sizes, 1)
    return int(left[np.lexsort((left, share, ~np.isin(left, hit)))[0]])


def _mending(check, rest: np.ndarray) -> np.ndarray:
    """The rows of ``rest`` (what a class keeps) that must leave with its
    chosen ones so the rest meets the model: none where it does, one row at a
    time of its most frequent sensitive value (the last in row order) while it
    misses it, every row where it cannot (fewer than k)."""
    keep = np.ones(rest.size, dtype=bool)
    while keep.any():
        hist = check.histogram(rest[keep])
        if check.holds(hist[None, :])[0]:
            break
        if keep.sum() <= check.model.k:
            keep[:] = False
            break
        keep[np.flatnonzero(keep & (check.codes[rest] == int(np.argmax(hist))))[-1]] = False
    return rest[~keep]


class _Members:
    """The rows of every class of ``row_class`` (-1: none), in row order:
    ``members[c]`` (a view), and ``sizes``."""

    def __init__(self, row_class: np.ndarray, n: int):
        row_class = np.asarray(row_class, dtype=np.int64)
        self.rows = grouped(row_class, np.ones(n, dtype=bool))
        self.sizes = np.bincount(row_class[row_class >= 0], minlength=n)
        self.end = np.cumsum(self.sizes)

    def __getitem__(self, c: int) -> np.ndarray:
        return self.rows[self.end[c] - self.sizes[c]:self.end[c]]


def _shrunk(problem, states, columns, location_class, row_class) -> list:
    """``states`` with every location class's box held to the rows it keeps
    (the same for all its classes): a box that stayed as it was would still
    show where a moved record lies. Classes that publish no location (the
    suppressed class) stay as they are; ``columns``: the states'
    :func:`~geoanon.joint.dims.state_columns`. A class that changes gets a
    new tuple; the others keep theirs."""
    located = [j for j, d in enumerate(problem.items) if d.location and isinstance(d, RankDim)]
    rows = np.flatnonzero(row_class >= 0)
    place = location_class[row_class[rows]]
    out = list(map(tuple, states))
    for j in located:
        d = problem.items[j]
        rank = d.rank[rows]
        first = np.full(place.max() + 1, np.iinfo(np.int64).max)
        end = np.full(place.max() + 1, -1)
        np.minimum.at(first, place, rank)
        np.maximum.at(end, place, rank + 1)
        first, end = first[location_class], end[location_class]
        held = columns[j][:, 2:]
        changed = (held[:, 0] < d.size) & ((held[:, 0] != first) | (held[:, 1] != end))
        for c in np.flatnonzero(changed).tolist():      # the others' boxes hold their rows already
            lo, hi, _, _ = out[c][j]
            out[c] = (*out[c][:j], (lo, hi, int(first[c]), int(end[c])), *out[c][j + 1:])
    return out


def _narrowed_others(problem, states, members, sizes) -> list:
    """``states`` with the other quasi-identifiers of every class that gave
    up rows (``members``: the rows each keeps, :class:`_Members`; ``sizes``:
    its rows before) narrowed to the rows it keeps
    (:func:`~geoanon.joint.cuts.narrowed`): a class publishes what its own
    records hold, a value where they share one. A class that changes gets
    a new tuple; the others keep theirs."""
    out = list(states)
    for c in np.flatnonzero(members.sizes != sizes).tolist():
        out[c] = tuple(s if d.location else narrowed(d, s, members[c]) for d, s in zip(problem.items, states[c]))
    return out


def _moved(problem, part, rows):
    """``part`` with ``rows`` in one new location class publishing no location,
    cut along the other dimensions; classes and location classes left empty
    dropped, the others' other quasi-identifiers narrowed to the rows they
    keep, and their boxes held to them."""
    root = [_blank(d) if d.location else s for d, s in zip(problem.items, problem.root(rows))]
    leaves = cut_down(problem, [(rows, tuple(root))], [j for j, d in enumerate(problem.items) if not d.location])[0]
    row_class = part.row_class.copy()
    row_class[rows] = -1
    kept = np.flatnonzero(np.bincount(row_class[row_class >= 0], minlength=len(part.states)) > 0)
    renumber = np.full(len(part.states), -1, dtype=np.int64)
    renumber[kept] = np.arange(kept.size)
    row_class = np.where(row_class >= 0, renumber[np.maximum(row_class, 0)], -1)
    places, location_class = np.unique(part.location_class[kept], return_inverse=True)
    before, columns = [part.states[c] for c in kept.tolist()], [column[kept] for column in part.columns]
    states = _shrunk(problem, before, columns, location_class, row_class)
    states = _narrowed_others(problem, states, _Members(row_class, kept.size),
                              np.bincount(part.row_class[part.row_class >= 0])[kept])
    for c, (new, old) in enumerate(zip(states, before)):
        if new is not old:                 # a changed class: its arrays too
            for column, s in zip(columns, new):
                column[c] = s
    for leaf_rows, state in leaves:        # no location, also where every cut narrows it (the joint design)
        row_class[leaf_rows] = len(states)
        states.append(tuple(b if problem.items[j].location else v for j, (b, v) in enumerate(zip(root, state))))
    if leaves:
        columns = [np.concatenate([column, added]) for column, added in zip(columns, state_columns(states[kept.size:]))]
    location_class = np.r_[location_class, np.full(len(leaves), places.size, dtype=np.int64)]
    cost = problem.summed_costs(states, np.bincount(row_class[row_class >= 0], minlength=len(states)), None, columns)
    suppressed = int(renumber[part.suppressed]) if part.suppressed >= 0 else -1
    first_of = np.unique(location_class[:kept.size], return_index=True)[1]
    return replace(part, row_class=row_class, states=states, location_class=location_class, cost=cost,
                   location_states=[*(states[c] for c in first_of.tolist()), tuple(root)],
                   location_classes=places.size + 1, suppressed=suppressed).with_columns(columns)
