"""ZIP codes rolled up to larger units (``zip_level``): ZIP3 (the first three
digits), county or state. The units become the nodes of the region graph,
so a group of units is connected, and the search never splits a unit."""
from __future__ import annotations

import networkx as nx
import numpy as np

from ..errors import ParameterError

__all__ = ["rolled_up", "unit_names"]


def unit_names(ids, level: str, state=None, county=None) -> list:
    """Each region id's unit at ``level``: the id itself (``"zip"``), its
    first three characters (``"zip3"``), ``STATE/County`` (``"county"``) or
    the state (``"state"``), from ``state`` and ``county`` (one per id); None
    where a unit's name is missing or empty.

    Examples
    --------
    >>> unit_names(["27601", "27701"], "zip3")
    ['276', '277']
    >>> unit_names(["27601", "33198"], "county", state=["NC", "FL"], county=["Wake County", ""])
    ['NC/Wake County', None]
    """
    ids = [str(v) for v in ids]
    if level == "zip":
        return ids
    if level == "zip3":
        return [v[:3] for v in ids]
    if state is None or (level == "county" and county is None):
        raise ParameterError(f"zip_level={level!r} needs each region's state{' and county' * (level == 'county')}")
    named = [_name(s) for s in state]
    if level == "state":
        return named
    return [f"{s}/{c}" if s and c else None for s, c in zip(named, map(_name, county))]


def _name(v) -> str | None:
    """A unit's name as stripped text, None where missing or empty."""
    if v is None or (isinstance(v, float) and np.isnan(v)):
        return None
    text = str(v).strip()
    return text or None


def rolled_up(graph: nx.Graph, unit_of: dict) -> tuple[nx.Graph, dict]:
    """The graph of the units (``unit_of``: region id -> unit, None or absent:
    no unit, left out) and each unit's member regions. A unit is a node with
    its members' mean ``centroid`` and their centroids' bounding ``box``
    (x0, y0, x1, y1); two units are adjacent where a member of one is adjacent
    to a member of the other.

    Examples
    --------
    >>> G = nx.path_graph(["27601", "27602", "27701"])
    >>> nx.set_node_attributes(G, {"27601": (0.0, 0.0), "27602": (1.0, 0.0), "27701": (3.0, 1.0)}, "centroid")
    >>> H, members = rolled_up(G, {v: v[:3] for v in G})
    >>> sorted(H.edges), members["276"], H.nodes["276"]["box"]
    ([('276', '277')], ['27601', '27602'], (0.0, 0.0, 1.0, 0.0))
    """
    members: dict = {}
    for v in sorted(graph.nodes, key=str):
        unit = unit_of.get(v)
        if unit is not None:
            members.setdefault(unit, []).append(v)
    rolled = nx.Graph(**graph.graph)
    for unit, regions in members.items():
        xy = np.array([graph.nodes[v].get("centroid", (np.nan, np.nan)) for v in regions], dtype=np.float64)
        rolled.add_node(unit, centroid=tuple(float(c) for c in xy.mean(axis=0)),
                        box=(*map(float, xy.min(axis=0)), *map(float, xy.max(axis=0))))
    for a, b in graph.edges:
        ua, ub = unit_of.get(a), unit_of.get(b)
        if ua is not None and ub is not None and ua != ub:
            rolled.add_edge(ua, ub)
    return rolled, members
