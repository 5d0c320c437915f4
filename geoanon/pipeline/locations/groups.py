"""How a ZIP or label location's classes are published: the label of a
group of regions or labels in place of the column, from a hierarchy of
nested groups (:func:`geoanon.regions.groups.nested_groups`) whose finest
groups meet the model; a group splits only into all of its parts, so
location groups never overlap."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..._cells import escape_formulas
from ..._geo import ground
from ...joint.dims import Dims, tree_from_paths
from ...joint.km_loss import FLOOR, k_spacing, node_diameters, spacing, tree_km_costs
from ...regions.area import edge_lengths, trimmed_groups
from ...regions.graphs import CompactGraph
from ...ncp import km_spread
from ...regions.groups import SUPPRESSED_GROUP, nested_groups
from ..region_map import region_boxes
from .classes import location_classes
from .kind import Publisher

__all__ = ["GroupPublisher", "group_dims"]


def _held_diameters(ancestors, boxes, held, placed, on) -> list:
    """Each level's node diameters over the leaves that hold records
    (:func:`~geoanon.joint.km_loss.node_diameters`): 0 for a node of placed
    leaves without records, NaN for one of unplaced leaves only."""
    diameters = node_diameters(ancestors, np.where(held[:, None], boxes, np.nan), on)
    return [np.where(np.isnan(d) & (np.bincount(up, weights=placed, minlength=d.size) > 0), 0.0, d)
            for up, d in zip(ancestors, diameters)]


def group_dims(column, leaf_codes, leaf_names, present, check, publisher, graph=None) -> tuple:
    """The location as one dimension of the search: the tree of nested groups
    of its leaves (``leaf_codes``: each row's; ``present``: the leaves that
    hold records), connected in ``graph`` when given (whose nodes the
    ``publisher`` then measures in km); and the ``publisher``."""
    paths = nested_groups(leaf_codes, leaf_names, graph, check)
    dim = tree_from_paths(column, leaf_codes.astype(np.int64), paths, present, location=True, strict=True)
    if graph is not None:
        publisher.measure(dim, graph, leaf_names)
    return Dims([dim]), publisher


class GroupPublisher(Publisher):
    """The group label in place of the ZIP or label column, in a column
    named ``published`` (default the column's own; a roll-up's level);
    ``units`` {roll-up unit: its regions} when the leaves are roll-up units
    (None: the leaves are regions). For regions it knows each node's ``diameters`` in km
    (:meth:`measure`) and, once the columns are published, each row's
    (``row_km``), the one figure of the report's ``details["location_km"]``
    (median and p90 over the records published in a group of regions) and
    of its ``units``; and their km loss (``ncp["km_loss"]``): the ``"km"``
    loss of :meth:`km_costs` averaged over records, a record published as
    ``*`` costing 1 (as the NCP charges ``*``), beside the report's Iyengar
    NCP of the column, which counts regions, not km."""

    def __init__(self, column, shapes, details=None, units=None, published=None):
        self.column, self.shapes = column, shapes
        self.published = column if published is None else published
        self.details = details or {}
        self.units = units
        self.diameters, self.costs, self.ncp = None, None, {}
        self.places, self.full, self.unit = None, 1.0, 1.0
        self.row_km = None
        self.leaf_graph, self.drawn = None, {}

    def measure(self, dim, graph, leaf_names) -> None:
        """Each node's diameter in km (:func:`geoanon.joint.km_loss.node_diameters`
        of the boxes of the centroids of its leaves that hold records; 0 for
        a leaf without records, NaN for the ``*`` of suppressed records) and
        the ``"km"`` node costs (:meth:`scale`); the leaves' places and
        records are kept for :meth:`measure_neighbourhood`, their graph for
        the groups drawn (:meth:`_members`)."""
        counts = np.bincount(dim.leaf, minlength=len(leaf_names))
        boxes, placed, on = self.scale(graph, leaf_names, counts)
        self.diameters = _held_diameters(dim.ancestors, boxes, counts > 0, placed, on)
        self.costs = tree_km_costs(dim.ancestors, self.diameters, placed, self.full, self.unit)

    def scale(self, graph, leaf_names, counts) -> tuple:
        """The leaves' boxes (:func:`~geoanon.pipeline.region_map.region_boxes`),
        whether each has a place, and the ground; sets ``full`` (F: the
        diameter of all the regions holding records), ``unit`` (u: the
        leaves' spacing, :func:`geoanon.joint.km_loss.spacing`, at least
        ``FLOOR`` * F), ``places`` and ``leaf_graph``."""
        boxes = region_boxes(graph, leaf_names)
        on = ground(self.shapes.crs)
        placed = ~np.isnan(boxes).any(axis=1)
        held = boxes[placed & (counts > 0)]
        self.full = float(on.diagonal(*held[:, :2].min(axis=0), *held[:, 2:].max(axis=0))) if held.size else 1.0
        position = {v: i for i, v in enumerate(leaf_names)}
        pairs = np.array([(position[a], position[b]) for a, b in graph.edges if a in position and b in position],
                         dtype=np.int64).reshape(-1, 2)
        self.unit = float(np.nanmax([spacing(boxes, pairs, on), FLOOR * self.full]))
        middles = (boxes[:, :2] + boxes[:, 2:]) / 2
        self.places = (middles, counts, on, self.unit)
        leaves = CompactGraph.from_edges(list(leaf_names), pairs[:, 0], pairs[:, 1])
        self.leaf_graph = (leaves, edge_lengths(leaves, middles, on.geographic), counts > 0)
        return boxes, placed, on

    def measure_neighbourhood(self, k: int) -> None:
        """``k_spacing``: the records' k-neighbourhood width in km
        (:func:`geoanon.joint.km_loss.k_spacing`, at least the regions'
        spacing u), the scale of the default precision target."""
        middles, counts, on, unit = self.places
        self.k_spacing = float(np.nanmax([k_spacing(middles, counts, k, on), unit]))

    def too_wide(self, max_km: float):
        """States -> whether each one's group is wider than ``max_km`` (its regions' centroids' box, diagonal)."""
        diameters = self.diameters
        return lambda states: np.array([diameters[st[0][0]][st[0][1]] > max_km for st in states],  # NaN: False
                                       dtype=bool).reshape(-1)

    def km_costs(self) -> list:
        """The node costs of ``location_loss="km"`` (:func:`~geoanon.joint.km_loss.tree_km_costs`)."""
        return self.costs

    def columns(self, df, part, dims):
        d = dims.items[0]
        labels = np.array([d.labels[st[0][0]][st[0][1]] for st in part.states], dtype=object)
        self.dim = d
        out = escape_formulas(pd.Series(labels[part.row_class], index=df.index, dtype=object))
        if self.diameters is not None:
            nodes = [st[0] for st in part.states]
            km = np.array([self.diameters[level][node] for level, node in nodes])
            loss = np.where(np.isnan(km), 1.0, [self.costs[level][node] for level, node in nodes])
            self.row_km = km[part.row_class]
            self.details["location_km"] = km_spread(self.row_km)
            self.ncp = {"km_loss": {self.column: round(float(loss[part.row_class].mean()), 12)}}
        return {self.column: {self.published: out}}, {self.column: ("set", self.published)}

    def unit_keywords(self, part) -> dict:
        """:func:`geoanon.ncp.plain_units`' keywords: each row's group
        diameter (ZIP codes; nothing for labels, which have no place)."""
        if self.row_km is None:
            return {}
        return {"location": (self.column,), "crs": self.shapes.crs, "km": self.row_km}

    def _members(self, part) -> list:
        """The regions each location class of ``part`` draws: its group's
        leaves that hold records and those that connect them
        (:func:`~geoanon.regions.area.trimmed_groups`; the ``*`` of
        suppressed records left out)."""
        d, out = self.dim, []
        for level, node in (st[0][:2] for st in part.location_states):
            if level not in self.drawn:
                leaves, lengths, held = self.leaf_graph
                self.drawn[level] = trimmed_groups(leaves, lengths, np.asarray(d.ancestors[level]), held)
            out.append(self._regions([d.labels[0][i] for i in np.flatnonzero(self.drawn[level] == node)]))
        return out

    def _regions(self, leaves) -> list:
        """The regions of ``leaves`` (names): a roll-up unit's regions; the ``*`` of suppressed records left out."""
        named = [v for v in leaves if v != SUPPRESSED_GROUP]
        return named if self.units is None else [v for u in named for v in self.units[u]]

    def class_km(self, dims, part, crs) -> np.ndarray:
        """Each class's published width in km: its group's diameter (NaN: ``*``)."""
        return np.array([self.diameters[level][node] for level, node, *_ in (st[0] for st in part.states)],
                        dtype=np.float64)

    def classes(self, table, part, published):
        classes = location_classes(table, part, published)
        if self.shapes is None:
            return classes, None
        import geopandas as gpd

        from ..region_shapes import group_shapes

        shapes = group_shapes(self.shapes, self._members(part))
        classes = gpd.GeoDataFrame(classes, geometry=shapes, crs=self.shapes.crs)

        def row_shapes():
            loc = part.location_class[part.row_class]
            return gpd.GeoSeries(shapes[loc], index=table.index, crs=self.shapes.crs)

        return classes, row_shapes
