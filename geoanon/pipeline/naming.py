"""Names of published groups (ZIP groups, label classes) that name no
rare record's value.

A group named after a member that few records hold would publish that
member: ``AARON_RARE+1`` tells the world that a person called AARON_RARE
is in the data. A group is therefore named after a member only when no
record is singled out by it, with ``+N`` for its N other members, and gets
a neutral name, ``group I``, otherwise (I counted in a fixed order of the
groups):

- a **group of regions** is named after its *central* member (the region
  whose centroid lies nearest the mean of the members' centroids) among
  those that hold no record or at least k: geometry decides among them, not
  the records;
- a **group of roll-up units** (ZIP3, county, state: ``zip_level``) is
  named after all its units that hold no record or at least k, joined by
  ``|``, with ``+N`` for the N others;
- a **group of labels** is named after its most frequent label, when at
  least k records hold it;
- a group of one member is that member (it holds the group's >= k records).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["canonical_codes", "canonical_order", "graph_group_names", "label_group_names", "region_group_names",
           "unit_group_names"]

NEUTRAL = "group {}"


def region_group_names(members: list, counts: list, k: int, centroid_of, geographic: bool, number=None) -> list[str]:
    """One name per group of region ids (``members``: lists of ids, ``counts``
    their records; ``centroid_of``: id -> (x, y)); ``number`` gives each
    group's neutral number (default: its position)."""
    names = []
    for i, (group, held) in enumerate(zip(members, counts)):
        named = [m for m, c in zip(group, held) if c == 0 or c >= k]
        names.append(_joined(central_member(named, centroid_of, geographic), len(group)) if named and
                     (len(group) > 1 or held[0] >= k) else NEUTRAL.format(i if number is None else number[i]))
    return names


def unit_group_names(members: list, counts: list, k: int, number=None) -> list[str]:
    """One name per group of roll-up units (``members``: lists of unit
    names, ``counts`` their records; ``number`` as in
    :func:`region_group_names`).

    Examples
    --------
    >>> unit_group_names([["276"], ["NC/Wake County", "NC/Durham County", "NC/Orange County"], ["NC", "VA"]],
    ...                  [[12], [40, 0, 3], [4, 5]], k=10)
    ['276', 'NC/Durham County|NC/Wake County+1', 'group 2']
    """
    names = []
    for i, (group, held) in enumerate(zip(members, counts)):
        named = sorted(str(m).replace("\\", "\\\\").replace("|", "\\|") for m, c in zip(group, held)
                       if c == 0 or c >= k)
        rare = len(group) - len(named)
        names.append("|".join(named) + (f"+{rare}" if rare else "") if named and (len(group) > 1 or held[0] >= k)
                     else NEUTRAL.format(i if number is None else number[i]))
    return names


def graph_group_names(members: list, counts: list, k: int, graph, number=None) -> list[str]:
    """The names of groups of the nodes of a region ``graph``: roll-up units
    (``graph.graph["level"]`` other than ``"zip"``) by :func:`unit_group_names`,
    regions by :func:`region_group_names` (nodes' ``centroid``)."""
    if graph.graph.get("level", "zip") != "zip":
        return unit_group_names(members, counts, k, number)
    return region_group_names(members, counts, k, lambda v: graph.nodes[v]["centroid"],
                              bool(graph.graph.get("geographic")), number)


def central_member(group, centroid_of, geographic: bool):
    """The member whose centroid lies nearest the mean of the members'
    centroids (longitudes taken around the first member's and scaled by the
    cosine of the mean latitude when ``geographic``); ties: the least id."""
    group = sorted(group, key=str)
    if len(group) == 1:
        return group[0]
    xy = np.array([centroid_of(m) for m in group], dtype=np.float64)
    if geographic:
        xy[:, 0] = (xy[:, 0] - xy[0, 0] + 180.0) % 360.0 - 180.0
        xy[:, 0] *= math.cos(math.radians(float(xy[:, 1].mean())))
    d = ((xy - xy.mean(axis=0)) ** 2).sum(axis=1)
    return group[int(np.argmin(d))]


def label_group_names(members: list, counts: list, k: int, number=None) -> list[str]:
    """One name per group of labels: ``members`` lists each group's labels
    (in a canonical order, see :func:`canonical_order`) and ``counts`` their
    records; ``number`` gives each group's neutral number (default: its
    position)."""
    names = []
    for i, (group, held) in enumerate(zip(members, counts)):
        if len(group) == 1:
            names.append(group[0] if _missing(group[0]) else str(group[0]))
            continue
        blank = [_text(v).strip() == "" for v in group]
        top = min(range(len(group)), key=lambda j: (blank[j], -held[j], j))
        names.append(_joined(_text(group[top]), len(group)) if held[top] >= k and not blank[top]
                     else NEUTRAL.format(i if number is None else number[i]))
    return names


def canonical_order(values) -> np.ndarray:
    """The positions of ``values`` sorted by their text (missing values
    first, values of one text apart by kind, e.g. ``1`` and ``1.0`` and
    ``True``): an order that does not depend on where values first appear."""
    values = list(values)
    return np.array(sorted(range(len(values)), key=lambda i: _sort_key(values[i])), dtype=np.int64)


def canonical_codes(codes: np.ndarray, uniques) -> tuple[np.ndarray, list]:
    """Codes and their values renumbered in :func:`canonical_order`."""
    order = canonical_order(uniques)
    position = np.empty(order.size, dtype=np.int64)
    position[order] = np.arange(order.size)
    return position[codes], [uniques[i] for i in order.tolist()]


def _sort_key(v):
    missing = _missing(v)
    return (not missing, "" if missing else str(v), type(v).__name__)


def _missing(v) -> bool:
    return v is None or v is pd.NA or v is pd.NaT or (isinstance(v, (float, np.floating)) and math.isnan(v))


def _joined(name, size: int) -> str:
    return str(name) if size == 1 else f"{name}+{size - 1}"


def _text(v) -> str:
    return "" if _missing(v) else str(v)
