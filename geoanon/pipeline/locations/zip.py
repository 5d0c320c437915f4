"""A ZIP location: a region column as one dimension of nested connected
groups of regions, rolled up when asked (``zip_level``:
:mod:`geoanon.regions.rollup`), published as the groups' labels
(:class:`~geoanon.pipeline.locations.groups.GroupPublisher`) that know each
node's diameter in km; under the joint design, the regions' places cut as
points are, each class publishing the group of its own records' regions
(:mod:`~geoanon.pipeline.locations.placed_groups`)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..._text import plural, show
from ...errors import InfeasibleError
from ...regions.groups import SUPPRESSED_GROUP
from ...options.locations import ZIP
from ..region_map import code_width, level_column, region_graph, region_values, rolled_values
from .groups import GroupPublisher, group_dims
from .kind import LocationKind
from .placed_groups import PlacedGroupPublisher, placed_group_dims

__all__ = ["ZipKind"]


class ZipKind(LocationKind):
    """ZIP codes as the ``zip`` job takes them (``loc``'s ``contiguity``,
    ``unknown`` and ``small``): the groups lie within the records' area,
    regions without records joining them only on the routes between regions
    that hold records (:mod:`geoanon.regions.area`); records of unknown
    regions (``unknown="suppress"``) and of connected pieces that cannot
    meet the model on their own (``small="suppress"``) are published as
    ``*``, one group that must meet the model; ``small="nearest"`` links a piece lighter than k to the
    nearest region of another piece (by centroid) instead. Rolled up
    (``zip_level`` ``"zip3"``, ``"county"`` or ``"state"``), the leaves are
    the units, adjacent where their regions are, published in a column named
    for the level. A record's width in km is its group's diameter."""

    shape = ZIP

    def read(self, df, loc, check, options, warnings):
        published = level_column(df, loc["zip"], options["zip_level"])
        found = region_graph(loc["regions"], loc["region_id"], edges=loc.get("edges"),
                             contiguity=loc.get("contiguity", "rook"))
        warnings += found.warnings
        graph = found.graph
        values = region_values(df[loc["zip"]], code_width(graph.nodes), warnings)
        graph, units, values = rolled_values(graph, values, loc["regions"], loc["region_id"], options["zip_level"],
                                             loc.get("unknown", "error"))
        leaf_codes, leaf_names, graph, details = _region_leaves(values, graph, check, loc.get("unknown", "error"),
                                                                loc.get("small", "error"))
        if options["method"] == "joint" and leaf_names != [SUPPRESSED_GROUP]:    # its own group, cut at places
            publisher = PlacedGroupPublisher(loc["zip"], found.shapes, details, units, published)
            return placed_group_dims(loc["zip"], leaf_codes, leaf_names, graph, publisher, check.model.k)
        present = np.bincount(leaf_codes, minlength=len(leaf_names)) > 0
        publisher = GroupPublisher(loc["zip"], found.shapes, details, units, published)
        return group_dims(loc["zip"], leaf_codes, leaf_names, present, check, publisher, graph)

    def record_km(self, table, loc, crs, publisher):
        return publisher.row_km


def _region_leaves(values, graph, check, unknown, small):
    """The leaves of a ZIP location: the regions of the records' area
    (:func:`~geoanon.regions.area.data_area`: those holding records and the
    empty ones on the routes between them, which join groups only to
    connect them), and ``*`` for the records published suppressed; each
    row's leaf, the leaf names, the graph the groups are connected in, and
    the report's figures."""
    import networkx as nx

    from ...regions.area import data_area
    from ...regions.graphs import CompactGraph
    from ...regions.partition import nearest_bridges, node_points
    from ..region_map import refuse_unknown

    outside = ~values.isin(pd.Index(list(graph.nodes))).to_numpy()
    if outside.any() and unknown == "error":
        refuse_unknown(int(outside.sum()), pd.unique(values[outside].fillna("(missing)"))[:5])
    known = values.where(~outside)
    held = known.value_counts()
    graph = data_area(graph, set(held.index))
    pieces = [sorted(c, key=str) for c in nx.connected_components(graph)]
    bridges = 0
    failing = _failing_pieces(pieces, known, check)
    if failing and small == "nearest":
        compact = CompactGraph.from_networkx(graph)
        comp = compact.components()
        weight = np.bincount(comp, weights=held.reindex(compact.ids).fillna(0).to_numpy()).astype(np.int64)
        links = nearest_bridges(node_points(graph, compact), comp, weight, check.model.k)
        graph.add_edges_from((compact.ids[a], compact.ids[b]) for a, b in links.tolist())
        bridges = len(links)
        pieces = [sorted(c, key=str) for c in nx.connected_components(graph)]
        failing = _failing_pieces(pieces, known, check)
    if failing and small != "suppress":
        rows = int(sum(known.isin(pieces[i]).sum() for i in failing))
        names = ", ".join(map(show, [v for i in failing[:3] for v in pieces[i][:2]]))
        hint = " even joined to the nearest regions" if small == "nearest" else (
            "; connect them, or use small='suppress' or small='nearest'")
        raise InfeasibleError(f"{plural(len(failing), 'connected piece')} of the regions ({plural(rows, 'record')}, "
                              f"in {names}) cannot meet {check.describe()} on their own{hint}")
    dropped = {v for i in failing for v in pieces[i]}
    suppressed = outside | known.isin(dropped).to_numpy()
    graph.remove_nodes_from(dropped)
    names = sorted(graph.nodes, key=str)
    if suppressed.any():
        if not check.holds(np.bincount(check.codes[suppressed], minlength=check.n_values)[None, :])[0]:
            raise InfeasibleError(f"{plural(int(suppressed.sum()), 'record')} published as '*' (unknown regions or "
                                  f"pieces that cannot meet the model alone) cannot meet {check.describe()} together")
        names.append(SUPPRESSED_GROUP)
    index = pd.Index(names)
    codes = index.get_indexer(known.where(~suppressed, SUPPRESSED_GROUP).astype(object))
    details = {"unknown_rows": int(outside.sum()), "suppressed_rows": int(suppressed.sum()), "bridges": bridges}
    return codes.astype(np.int64), names, graph, details


def _failing_pieces(pieces, known, check) -> list:
    """Indices of the connected pieces whose records miss the model together."""
    piece_of = {v: i for i, c in enumerate(pieces) for v in c}
    rows = known.map(piece_of).to_numpy(dtype=float)
    has = ~np.isnan(rows)
    hist = np.zeros((len(pieces), check.n_values), dtype=np.int64)
    np.add.at(hist, (rows[has].astype(np.int64), check.codes[has]), 1)
    return np.flatnonzero(~check.holds(hist)).tolist()
