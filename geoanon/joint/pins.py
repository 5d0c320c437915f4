"""Records a box edge would pin, published without a location.

A cut of the location tree lies in the widest gap it can find, and the
frontier prefers location classes whose box keeps every edge away from their
records (:mod:`geoanon.points.margins`); where the data leave no such gap (a
dense cluster cut through), a few records still lie within the margin of an
edge of their box. Those records, and the rest of any class that no longer
meets the model without them, are published with an empty location: they
form one location class of their own, cut along the other
quasi-identifiers like any other. The boxes stay as they were: every record
left in one keeps its margin.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..errors import InfeasibleError
from .outliers import _blank


def without_pins(dims, check, part, pins):
    """``part`` with its pinned records (``pins``: states, rows per state ->
    whether each row lies too near its box's edge) moved to a location class
    without a location, cut along the other quasi-identifiers as the frontier's
    classes are (:func:`geoanon.joint.search.cut_down`); and the rows moved.

    A class that misses the model without its pinned rows goes whole; when
    the moved rows together miss it, every class holding a pinned row goes
    whole instead (a union of classes meets k, l and t). InfeasibleError when
    even those miss it (a union can miss delta-disclosure)."""
    n_classes = len(part.states)
    members = _members(part.row_class, n_classes)
    flags = pins(part.states, members)
    pinned = np.zeros(part.row_class.size, dtype=bool)
    pinned[np.concatenate(members)] = flags
    hit = np.unique(part.row_class[pinned])
    if hit.size == 0:
        return part, np.zeros(0, dtype=np.int64)
    moved = pinned.copy()
    for c in hit.tolist():
        rest = members[c][~pinned[members[c]]]
        if rest.size and not check.holds(check.histogram(rest)[None, :])[0]:
            moved[members[c]] = True
    rows = np.flatnonzero(moved)
    if not check.holds(check.histogram(rows)[None, :])[0]:
        rows = np.flatnonzero(np.isin(part.row_class, hit))
        if not check.holds(check.histogram(rows)[None, :])[0]:
            raise InfeasibleError(f"the {rows.size} records whose box edges would pin them cannot meet "
                                  f"{check.describe()} together without a location")
    return _moved(dims, check, part, rows), rows


def _members(row_class: np.ndarray, n: int) -> list:
    """The rows of every class, in row order."""
    located = np.flatnonzero(row_class >= 0)
    order = located[np.argsort(row_class[located], kind="stable")]
    return np.split(order, np.cumsum(np.bincount(row_class[located], minlength=n))[:-1])


def _moved(dims, check, part, rows):
    """``part`` with ``rows`` in one new location class publishing no location,
    cut along the other dimensions; classes and location classes left empty
    dropped."""
    from .search import cut_down

    root = [_blank(d) if d.location else s for d, s in zip(dims.items, dims.root(rows))]
    leaves = cut_down(dims, check, [(rows, tuple(root))], [j for j, d in enumerate(dims.items) if not d.location])[0]
    row_class = part.row_class.copy()
    row_class[rows] = -1
    kept = np.flatnonzero(np.bincount(row_class[row_class >= 0], minlength=len(part.states)) > 0)
    renumber = np.full(len(part.states), -1, dtype=np.int64)
    renumber[kept] = np.arange(kept.size)
    row_class = np.where(row_class >= 0, renumber[np.maximum(row_class, 0)], -1)
    states = [part.states[c] for c in kept.tolist()]
    places, location_class = np.unique(part.location_class[kept], return_inverse=True)
    for leaf_rows, state in leaves:        # no location, also where every cut narrows it (the joint design)
        row_class[leaf_rows] = len(states)
        states.append(tuple(b if dims.items[j].location else v for j, (b, v) in enumerate(zip(root, state))))
    location_class = np.r_[location_class, np.full(len(leaves), places.size, dtype=np.int64)]
    cost = np.zeros(len(dims.items))
    sizes = np.bincount(row_class[row_class >= 0], minlength=len(states))
    for c, state in enumerate(states):
        cost += sizes[c] * dims.cell_costs(state)
    suppressed = int(renumber[part.suppressed]) if part.suppressed >= 0 else -1
    return replace(part, row_class=row_class, states=states, location_class=location_class, cost=cost,
                   location_states=[*(part.location_states[p] for p in places.tolist()), tuple(root)],
                   location_classes=places.size + 1, suppressed=suppressed)
