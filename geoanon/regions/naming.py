"""Names of published groups (ZIP groups, label classes) that tell no
member's count and name no rare record's value.

- A **group of regions** is named after its *central* member (the region
  whose centroid lies nearest the mean of all the members' centroids), with
  ``+N`` for its N other members: geometry alone decides, so the name says
  nothing of how many records any member holds, and the map, which draws
  every member, shows the same group.
- A **group of roll-up units** (ZIP3, county, state: ``zip_level``) is
  named after all its units, joined by ``|``, up to :data:`UNITS_NAMED` of
  them; a larger group after its central unit and ``+N``. (A name that left
  out the units holding 1 to k-1 records, beside a map drawing all of them,
  would tell exactly which units those are.)
- A **group of labels** is named after its most frequent label when at
  least k records hold it, with ``+N`` for the others, and gets a neutral
  name, ``group I``, otherwise (I counted in a fixed order of the groups):
  a group named after a label few records hold would publish it
  (``AARON_RARE+1`` tells the world a person called AARON_RARE is in the
  data), and its members are never drawn.
- A group of one member is that member (it holds the group's >= k records).
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

__all__ = ["UNITS_NAMED", "canonical_codes", "canonical_order", "graph_group_names", "label_group_names",
           "region_group_names", "unit_group_names"]

NEUTRAL = "group {}"
UNITS_NAMED = 3      # a group of roll-up units up to this many is named after all of them


def region_group_names(members: list, centroid_of, geographic: bool) -> list[str]:
    """One name per group of region ids (``members``: lists of ids;
    ``centroid_of``: id -> (x, y)): its central member and ``+N``.

    Examples
    --------
    >>> xy = {"27701": (0.0, 0.0), "27703": (1.0, 0.0), "27705": (2.0, 0.0), "27713": (5.0, 5.0)}
    >>> region_group_names([["27701", "27703", "27705"], ["27713"]], xy.get, geographic=False)
    ['27703+2', '27713']
    """
    return [_joined(central_member(group, centroid_of, geographic), len(group)) for group in members]


def unit_group_names(members: list, centroid_of, geographic: bool) -> list[str]:
    """One name per group of roll-up units (``members``: lists of unit
    names; ``centroid_of``: unit -> (x, y)): all of them, sorted, joined by
    ``|`` (``|`` and ``\\`` inside a name escaped), or, beyond
    :data:`UNITS_NAMED`, the central one and ``+N``.

    Examples
    --------
    >>> xy = {"NC/Wake County": (-78.6, 35.8), "NC/Durham County": (-78.9, 36.0), "NC/Orange County": (-79.1, 36.1),
    ...       "NC": (-79.4, 35.6), "VA": (-78.6, 37.5), "SC": (-81.0, 33.9), "GA": (-83.4, 32.7)}
    >>> unit_group_names([["NC/Wake County", "NC/Durham County", "NC/Orange County"], ["NC", "VA", "SC", "GA"]],
    ...                  xy.get, geographic=True)
    ['NC/Durham County|NC/Orange County|NC/Wake County', 'SC+3']
    """
    def named(group):
        if len(group) > UNITS_NAMED:
            return _joined(central_member(group, centroid_of, geographic), len(group))
        return "|".join(sorted(str(m).replace("\\", "\\\\").replace("|", "\\|") for m in group))

    return [named(group) for group in members]


def graph_group_names(members: list, graph) -> list[str]:
    """The names of groups of the nodes of a region ``graph``: roll-up units
    (``graph.graph["level"]`` other than ``"zip"``) by :func:`unit_group_names`,
    regions by :func:`region_group_names` (nodes' ``centroid``)."""
    centroid_of, geographic = (lambda v: graph.nodes[v]["centroid"]), bool(graph.graph.get("geographic"))
    if graph.graph.get("level", "zip") != "zip":
        return unit_group_names(members, centroid_of, geographic)
    return region_group_names(members, centroid_of, geographic)


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
