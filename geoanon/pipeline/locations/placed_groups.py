"""A ZIP location cut by the joint design: the places of its regions (a
region's centroid, a roll-up unit's middle) as two ordered dimensions of the
search, cut anywhere as points are
(:func:`~geoanon.pipeline.locations.points.framed_location`; a class's
location priced by its records' box in km,
:class:`~geoanon.joint.location_loss.BoxKmLoss`), and each class published
as the group of the regions its own records hold
(:class:`PlacedGroupPublisher`), named as any group of regions is
(:func:`~geoanon.regions.naming.graph_group_names`).

A hierarchy of nested groups (the tiling designs' location,
:func:`~geoanon.pipeline.locations.groups.group_dims`) lets a class below
another column's cut hold only whole groups, balanced for the whole table;
here the cuts follow each class's own records, as a Mondrian's cut
coordinates. The joint design's classes overlap in the location (each is
apart from the others over all quasi-identifiers together), so their groups
are no partition of the map, and a group is its records' regions, adjacent
or not. Measured against the nested groups on the frontier benchmark's ZIP
tables (``bench/bench_frontier.py``): bench/RESULTS.md.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..._cells import escape_formulas
from ...joint.km_loss import log_km, node_diameters
from ...ncp import km_spread
from ...points.partition import rank_frame
from ...regions.area import edge_matrix, steiner_forest
from ...regions.groups import SUPPRESSED_GROUP
from ...regions.naming import graph_group_names
from .groups import GroupPublisher
from .points import framed_location

__all__ = ["SPACING_FLOOR", "PlacedGroupPublisher", "placed_group_dims"]

SPACING_FLOOR = 0.625   # the tail's scale: at least this many times the regions' spacing (bench/bench_zip_floor.py)


def placed_group_dims(column, leaf_codes, leaf_names, graph, publisher, k: int) -> tuple:
    """The location as two ordered dimensions: each row's region's place
    (``leaf_codes``: each row's region among ``leaf_names``, in ``graph``;
    the ``*`` of suppressed records has none), its class's location the box
    of its records' places; and the ``publisher``, which learns the regions."""
    counts = np.bincount(leaf_codes, minlength=len(leaf_names))
    boxes, placed, on = publisher.scale(graph, leaf_names, counts)
    publisher.place(leaf_codes, leaf_names, boxes, graph, on)
    xy = ((boxes[:, :2] + boxes[:, 2:]) / 2)[leaf_codes]
    present = np.flatnonzero(placed[leaf_codes])
    names = (f"{column} latitude", f"{column} longitude")
    frame = rank_frame(xy[present], None, on.geographic)
    dims, _ = framed_location(xy[present], present, leaf_codes.size, frame, names, list(names),
                              publisher.shapes.crs, True, k=k)
    for d in dims.items:
        d.extent = "members"                       # its records' own box: what the group's diameter measures
    return dims, publisher


class PlacedGroupPublisher(GroupPublisher):
    """Each class's group of the regions its records hold, in place of the
    ZIP column; a group holding the ``*`` of suppressed records is ``*``.
    Its diameter in km is the box of its regions' places (centroids; a
    roll-up unit's box), as :class:`GroupPublisher` measures a group, and
    its km loss :func:`~geoanon.joint.km_loss.log_km` of it on that
    publisher's scale. Drawn as the union of its regions and those that
    join them (:meth:`_members`)."""

    boxes = True

    def place(self, leaf_codes, leaf_names, boxes, graph, on) -> None:
        """Learn each row's region (``leaf_codes`` of ``leaf_names``), the regions' ``boxes`` and ``graph``;
        the tail's scale is at least ``SPACING_FLOOR`` times the regions' spacing (``least_km``)."""
        self.leaf, self.leaf_names, self.leaf_boxes, self.graph, self.on = leaf_codes, leaf_names, boxes, graph, on
        self.least_km = SPACING_FLOOR * self.unit

    def _held(self, classes: np.ndarray) -> tuple:
        """(class, region) of every region each class of ``classes`` (per row) holds, by class then region."""
        n = len(self.leaf_names)
        pairs = np.unique(classes.astype(np.int64) * n + self.leaf)
        return pairs // n, pairs % n

    @staticmethod
    def _by_class(owner: np.ndarray, region: np.ndarray) -> zip:
        """(class, its regions) for each class of the (``owner``, ``region``) pairs of :meth:`_held`."""
        cuts = np.flatnonzero(np.diff(owner)) + 1
        return zip(owner[np.r_[0, cuts]].tolist() if owner.size else [], np.split(region, cuts) if owner.size else [])

    def _diameters(self, owner: np.ndarray, region: np.ndarray, groups: int) -> np.ndarray:
        """Each group's diameter in km (NaN: it holds ``*``) from its (``owner``, ``region``) pairs."""
        km = node_diameters([owner], self.leaf_boxes[region], self.on)[0]
        km = np.r_[km, np.full(groups - km.size, np.nan)]
        starred = np.zeros(groups, dtype=bool)
        starred[owner[np.isnan(self.leaf_boxes[region, 0])]] = True
        return np.where(starred, np.nan, km)

    def class_km(self, dims, part, crs) -> np.ndarray:
        owner, region = self._held(part.row_class)
        return self._diameters(owner, region, len(part.states))

    def columns(self, df, part, dims):
        groups = len(part.states)
        owner, region = self._held(part.row_class)
        km = self._diameters(owner, region, groups)
        labels = self._labels(owner, region, np.bincount(part.row_class, minlength=groups), np.isnan(km))
        self.row_km = km[part.row_class]
        self.details["location_km"] = km_spread(self.row_km)
        loss = np.where(np.isnan(km), 1.0, log_km(km, self.full, self.unit))
        self.ncp = {"km_loss": {self.column: round(float(loss[part.row_class].mean()), 12)}}
        out = escape_formulas(pd.Series(labels[part.row_class], index=df.index, dtype=object))
        return {self.column: {self.published: out}}, {self.column: ("set", self.published)}

    def _labels(self, owner, region, sizes, starred) -> np.ndarray:
        """Each class's group name (:func:`~geoanon.regions.naming.graph_group_names`
        of its regions, a group held by several classes named once, for the
        fewest records any of them holds); ``*`` where ``starred``."""
        held = {c: tuple(self.leaf_names[i] for i in r) for c, r in self._by_class(owner, region) if not starred[c]}
        weight: dict = {}
        for c, h in held.items():
            weight[h] = min(weight.get(h, sizes[c]), sizes[c])
        named = dict(zip(weight, graph_group_names([list(h) for h in weight], list(weight.values()), self.graph)))
        labels = np.full(sizes.size, SUPPRESSED_GROUP, dtype=object)
        for c, h in held.items():
            labels[c] = named[h]
        return labels

    def _members(self, part) -> list:
        """The regions each location class of ``part`` draws: those its
        records hold, joined by the regions between them
        (:func:`~geoanon.regions.area.steiner_forest` over routes no longer
        than its diameter and the regions' spacing), so that it is drawn as
        one piece wherever the map joins them."""
        owner, region = self._held(part.location_class[part.row_class])
        km = self._diameters(owner, region, part.location_classes)
        leaves, lengths, _ = self.leaf_graph
        weights = edge_matrix(leaves, lengths)
        per_km = float(np.median(lengths)) / self.unit if lengths.size and self.unit > 0 else None  # their unit
        members = [[] for _ in range(part.location_classes)]
        for o, r in self._by_class(owner, region):
            held = np.zeros(leaves.n, dtype=bool)
            held[r] = True
            if r.size > 1 and np.isfinite(km[o]):
                reach = np.inf if per_km is None else (km[o] + self.unit) * per_km
                held = steiner_forest(leaves, lengths, held, limit=reach, weights=weights)
            members[o] = self._regions([self.leaf_names[i] for i in np.flatnonzero(held)])
        return members

