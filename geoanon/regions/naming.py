"""Names of published groups (ZIP groups, label classes) that tell no
member's count and name no rare record's value.

- A **group of regions** (or of roll-up units, ``zip_level``) is named after
  its members that hold records, at the finest level of its
  :class:`NameLadder` (the regions themselves, then, for ZIP codes, their
  ZIP3 areas and counties; the states only where nothing finer can) that
  lists at most :data:`NAMED` of them, joined by ``|`` (``27701|27705``,
  ``277xx``, ``NC/Durham County|NC/Wake County``); when every level lists
  more, after the central one of the level listing fewest (nearest the mean
  of the members' centroids) and ``+N`` for the N others (``781xx+4``). A
  list of u names is used only when u = 1 or u is below the group's records:
  as many names as records would say that each holds exactly one; a group
  no level names so gets a neutral name, ``group I``. Every member holding
  records is named, or none is: none is singled out, whatever it holds.
  The members without records, which join a group only to connect it
  (:mod:`geoanon.regions.area`), are drawn on the map but never named.
  Groups that would share a name are told apart by ``#1``, ``#2`` (in the
  order of their members).
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
from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["NAMED", "NameLadder", "canonical_codes", "canonical_order", "graph_group_names", "label_group_names",
           "region_group_names", "zip_ladder"]

NEUTRAL = "group {}"
NAMED = 3      # a group is named after its members' units at the finest level that has at most this many


@dataclass(frozen=True)
class NameLadder:
    """The levels a group of a map's leaves (regions, or roll-up units) may
    be named at, finest first: ``levels`` their names (``"zip"``, ``"zip3"``,
    ``"county"``, ``"state"``) and ``units`` per level after the first (the
    leaves themselves) a mapping leaf -> the tuple of its names there (empty
    where unknown: no group holding that leaf is named at that level); with
    ``last_resort`` the last level names only the groups no other can."""

    levels: tuple = ("region",)
    units: tuple = ()
    last_resort: bool = False

    def names(self, leaves, level: int) -> list | None:
        """The sorted names of ``leaves`` at ``level`` (None: one has none)."""
        if level == 0:
            return sorted({str(v) for v in leaves})
        found = set()
        for v in leaves:
            mine = self.units[level - 1].get(v, ())
            if not mine:
                return None
            found.update(mine)
        return sorted(found)

    def tiers(self) -> list:
        """The levels tried together, then the last resort's."""
        n = len(self.levels)
        return [range(n - 1), [n - 1]] if self.last_resort else [range(n)]


def zip_ladder(level: str, ids, state=None, county=None, zip_codes: bool = False, units=None) -> NameLadder:
    """The :class:`NameLadder` of regions ``ids`` (``state`` and ``county``:
    one each, or None) published at ``level`` (``units``: each roll-up
    unit's regions): at ``"zip"``, after the leaves, their ZIP3 areas
    (``277xx``; only when the ids are ``zip_codes``) and counties
    (``NC/Durham County``) where known; a roll-up's groups after their
    units. The states name a group as a last resort (where nothing between
    them and the leaves is known, as any level), so that the groups of a
    one-state table are not all named after their state.

    Examples
    --------
    >>> ladder = zip_ladder("zip", ["27701", "27601"], state=["NC", "NC"], county=["Durham County", "Wake County"],
    ...                     zip_codes=True)
    >>> ladder.levels, ladder.names(["27701", "27601"], 1), ladder.names(["27701", "27601"], 2), ladder.last_resort
    (('zip', 'zip3', 'county', 'state'), ['276xx', '277xx'], ['NC/Durham County', 'NC/Wake County'], True)
    >>> zip_ladder("zip", ["37001"], state=["NC"]).last_resort
    False
    """
    from .rollup import unit_names

    ids = [str(v) for v in ids]
    known = {"zip3": [f"{v[:3]}xx" for v in ids] if zip_codes and level == "zip" else None,
             "county": unit_names(ids, "county", state, county) if county is not None and level == "zip" else None,
             "state": unit_names(ids, "state", state) if state is not None and level != "state" else None}
    levels = (level, *(name for name, names in known.items() if names is not None))
    groups = {v: [v] for v in ids} if units is None else units
    maps = []
    for above in levels[1:]:
        of_region = dict(zip(ids, known[above]))
        maps.append({u: tuple(sorted({of_region[v] for v in regions if of_region.get(v)}))
                     for u, regions in groups.items()})
    resort = "state" in levels[1:] and (level != "zip" or len(levels) > 2)      # something between
    return NameLadder(levels, tuple(maps), last_resort=resort)


def region_group_names(held: list, weights, ladder: NameLadder, centroid_of, geographic: bool) -> list[str]:
    """One name per group (``held``: each group's members that hold records;
    ``weights``: its records) by ``ladder`` (see the module's docstring);
    ``centroid_of``: member -> (x, y).

    Examples
    --------
    >>> xy = {"27701": (-78.90, 35.99), "27703": (-78.84, 35.97), "27705": (-78.95, 36.02), "27707": (-78.95, 35.95)}
    >>> ladder = NameLadder(("zip", "zip3"), ({v: (v[:3] + "xx",) for v in xy},))
    >>> region_group_names([["27701", "27703"], ["27705"], list(xy)], [10, 12, 30], ladder, xy.get, geographic=True)
    ['27701|27703', '27705', '277xx']
    >>> region_group_names([["27701", "27703"], list(xy)], [3, 4], NameLadder(), xy.get, geographic=True)
    ['27701|27703', 'group 1']
    """
    names = [_named(sorted(map(str, group)), int(weight), ladder, centroid_of, geographic)
             for group, weight in zip(held, weights)]
    neutral = sorted((tuple(sorted(map(str, g))) for g, n in zip(held, names) if n is None))
    names = [NEUTRAL.format(neutral.index(tuple(sorted(map(str, g)))) + 1) if n is None else n
             for g, n in zip(held, names)]
    return _told_apart(names, held)


def _named(group: list, weight: int, ladder: NameLadder, centroid_of, geographic: bool) -> str | None:
    """A group's name: its members' names at the finest level of the first
    tier (:meth:`NameLadder.tiers`) that lists at most ``NAMED`` and may be
    listed (one name, or fewer than the group's ``weight`` records: a
    list as long as its records would say each holds one), else the central
    name and ``+N`` of the tier's level listing fewest (the finest of those);
    None where no level may be listed."""
    for tier in ladder.tiers():
        fewest = None
        for level in tier:
            names = ladder.names(group, level)
            if names is None or not (len(names) == 1 or len(names) < weight):
                continue
            if len(names) <= NAMED:
                return "|".join(_escaped(v) for v in names)
            if fewest is None or len(names) < len(fewest[1]):
                fewest = level, names
        if fewest is not None:
            return _central(group, *fewest, ladder, centroid_of, geographic)
    return None


def _central(group: list, level: int, names: list, ladder: NameLadder, centroid_of, geographic: bool) -> str:
    """``names`` (of ``group`` at ``level``) as their central one and ``+N``."""
    places = {}
    for v in group:
        for name in ladder.names([v], level):
            places.setdefault(name, []).append(centroid_of(v))
    middle = {name: tuple(np.mean(np.asarray(xy, dtype=np.float64), axis=0)) for name, xy in places.items()}
    return f"{_escaped(central_member(names, middle.get, geographic))}+{len(names) - 1}"


def _told_apart(names: list, held: list) -> list:
    """``names`` with ``#1``, ``#2``, ... after those shared by groups of
    different members, numbered in the order of their members."""
    by_name = {}
    for name, group in zip(names, held):
        by_name.setdefault(name, set()).add(tuple(sorted(map(str, group))))
    out = []
    for name, group in zip(names, held):
        shared = sorted(by_name[name])
        out.append(name if len(shared) == 1 else f"{name} #{shared.index(tuple(sorted(map(str, group)))) + 1}")
    return out


def _escaped(name) -> str:
    """A unit's name with ``|`` and ``\\`` escaped, as ``|`` joins names."""
    return str(name).replace("\\", "\\\\").replace("|", "\\|")


def graph_group_names(held: list, weights, graph) -> list[str]:
    """The names of groups of the nodes of a region ``graph`` (``held``:
    each group's nodes that hold records; ``weights``: its records) by its
    ``graph.graph["ladder"]`` (:class:`NameLadder`; default: the nodes
    themselves) and nodes' ``centroid``."""
    centroid_of, geographic = (lambda v: graph.nodes[v]["centroid"]), bool(graph.graph.get("geographic"))
    return region_group_names(held, weights, graph.graph.get("ladder", NameLadder()), centroid_of, geographic)


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
