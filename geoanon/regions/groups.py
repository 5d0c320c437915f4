"""Groups of regions or labels that meet a model: the connected groups of
a region graph holding >= k records each, and the nested groups of a joint
release's ZIP or label location, each level joining whole groups of the
level below."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._cells import escape_formulas
from .._text import plural
from ..audit import SUPPRESSED
from ..errors import InfeasibleError
from .area import data_area, edge_lengths, trimmed_groups
from .naming import graph_group_names, label_group_names
from .partition import partition_graph

__all__ = ["SUPPRESSED_GROUP", "group_labels", "merge_until_model", "nested_groups", "region_groups"]

SUPPRESSED_GROUP = "*"      # the leaf of the records published suppressed (unknown regions, small pieces)


def region_groups(graph, counts: dict, k: int, method: str, on_small: str):
    """(partition, members per group, labels (one per group, then "*"),
    region -> group) of the records per region ``counts``, partitioned
    within the records' area (:func:`~geoanon.regions.area.data_area`), each
    group without the regions it needs not to connect its records
    (:func:`~geoanon.regions.area.trimmed_groups`), and labelled after its
    members that hold records (:mod:`geoanon.regions.naming`)."""
    from dataclasses import replace

    area = data_area(graph, {v for v, c in counts.items() if c > 0})
    part = partition_graph(area, k, counts, method=method, on_small=on_small)
    linked = part.linked_graph
    centroids = np.array([area.nodes[v].get("centroid", (np.nan, np.nan)) for v in linked.ids], dtype=np.float64)
    lengths = edge_lengths(linked, centroids, bool(area.graph.get("geographic")))
    part = replace(part, labels=trimmed_groups(linked, lengths, part.labels, part.element_weights > 0))
    members = part.members()
    held = [[v for v in m if counts.get(v, 0) > 0] for m in members]
    names = graph_group_names(held, part.weights, area)
    labels = escape_formulas(pd.Series(names + [SUPPRESSED], dtype=object)).tolist()
    return part, members, labels, part.class_of()


def nested_groups(leaf_codes, names, graph, check) -> list:
    """Each leaf's path up the nested groups: level 1 meets the model, each
    level above joins whole groups of the level below into groups of twice
    the weight of the lightest one that can still join another, connected in
    ``graph`` (any groups without a graph; a leaf outside ``graph``, the
    ``*`` of suppressed records, and a piece of the map already one group
    stay groups of their own, and do not hold the others' doubling back)."""
    import networkx as nx

    n_leaves = len(names)
    counts = np.bincount(leaf_codes, minlength=n_leaves)
    m = check.n_values
    leaf_hist = np.bincount(leaf_codes * m + check.codes, minlength=n_leaves * m).reshape(n_leaves, m)
    regions = graph                        # named after their members holding records (labels: by their counts)
    if graph is None:
        graph = nx.complete_graph(n_leaves)
        node_of_leaf = list(range(n_leaves))
    else:
        node_of_leaf = names
    index = {v: i for i, v in enumerate(node_of_leaf)}
    group = np.arange(n_leaves)            # the current group of every leaf
    levels = [group.copy()]
    k = check.model.k
    while True:
        weight = np.bincount(group, weights=counts)
        g = nx.Graph()
        g.add_nodes_from((int(v), {"w": int(weight[v])}) for v in np.unique(group))
        for a, b in graph.edges:
            ga, gb = group[index[a]], group[index[b]]
            if ga != gb:
                g.add_edge(int(ga), int(gb))
        if g.number_of_edges() == 0:
            break
        joinable = [v for v in g.nodes if g.degree(v) > 0 and weight[v] > 0]
        target = k if len(levels) == 1 else 2 * int(weight[joinable].min())
        part = partition_graph(g, target, "w", on_small="suppress")
        new_of_old = dict(zip(list(g.nodes), part.labels.tolist()))
        lonely = max(new_of_old.values()) + 1
        relabel = {}
        for old, new in new_of_old.items():
            if new < 0:
                relabel[old] = lonely
                lonely += 1
            else:
                relabel[old] = new
        group = np.array([relabel[int(v)] for v in group])
        if len(levels) == 1:
            group = merge_until_model(group, g, new_of_old, relabel, leaf_hist, check)
        if np.unique(group).size == np.unique(levels[-1]).size:
            break
        levels.append(group.copy())
    if np.unique(levels[-1]).size > 1:
        levels.append(np.zeros(n_leaves, dtype=np.int64))
    labels = group_labels(levels[1:], names, counts, k, regions)
    return [[names[i], *[lab[i] for lab in labels]] for i in range(n_leaves)]


def merge_until_model(group, g, new_of_old, relabel, leaf_hist, check) -> np.ndarray:
    """Join every finest group that misses the model with its lightest
    neighbouring group (the least id on a tie), the least id missing it
    first, until all meet it (InfeasibleError when a connected piece of the
    map cannot). Each join updates only the two groups it touches."""
    import heapq

    group = group.copy()
    hist = np.zeros((int(group.max()) + 1, leaf_hist.shape[1]), dtype=leaf_hist.dtype)
    np.add.at(hist, group, leaf_hist)
    ids = np.unique(group)
    adjacency = {int(i): set() for i in ids}
    for a, b in g.edges:
        ra, rb = relabel[a], relabel[b]
        if ra != rb:
            adjacency[ra].add(rb)
            adjacency[rb].add(ra)
    failing = ids[~check.holds(hist[ids])].tolist()
    heapq.heapify(failing)
    into_of = {}                                   # a joined group -> the group it joined
    while failing:
        bad = heapq.heappop(failing)
        if bad in into_of or check.holds(hist[bad][None, :])[0]:
            continue
        if not adjacency[bad]:
            raise InfeasibleError(f"a connected piece of the location ({plural(int(hist[bad].sum()), 'record')}) "
                                  f"cannot meet {check.describe()} on its own")
        into = min(adjacency[bad], key=lambda v: (hist[v].sum(), v))
        hist[into] += hist[bad]
        into_of[bad] = into
        for v in adjacency.pop(bad):
            adjacency[v].discard(bad)
            if v != into:
                adjacency[v].add(into)
                adjacency[into].add(v)
        if not check.holds(hist[into][None, :])[0]:
            heapq.heappush(failing, into)
    for bad, into in into_of.items():               # joined in order: follow each chain to its end
        while into in into_of:
            into = into_of[into]
        group[group == bad] = into
    return group


def group_labels(levels, names, counts, k, graph) -> list:
    """Each level's label of every leaf (:mod:`geoanon.regions.naming`):
    regions (``graph`` given) after their members that hold records, named
    together over every level so that different groups never share a name,
    labels after their most frequent member when k records hold it, else
    ``group I``, I counted over the groups of every level."""
    members = [[np.flatnonzero(group == g) for g in np.unique(group)] for group in levels]
    if graph is not None:
        def held(m) -> tuple:              # a group's regions holding records ('*' of suppressed records apart)
            return tuple(names[i] for i in m if counts[i] > 0 and names[i] != SUPPRESSED_GROUP)

        weight = {held(m): int(sum(counts[i] for i in m if names[i] != SUPPRESSED_GROUP))
                  for level in members for m in level}
        weight.pop((), None)               # the '*' of suppressed records names only itself
        named = dict(zip(weight, graph_group_names([list(h) for h in weight], list(weight.values()), graph)))
        texts = [[named.get(held(m), SUPPRESSED_GROUP) for m in level] for level in members]
    else:
        texts, number = [], 0
        for level in members:
            numbers = range(number, number + len(level))
            texts.append(label_group_names([[names[i] for i in m] for m in level], [counts[m].tolist() for m in level],
                                           k, number=numbers))
            number += len(level)
    out = []
    for level, text in zip(members, texts):
        label = np.empty(len(names), dtype=object)
        for m, t in zip(level, text):
            label[m] = t
        out.append(label.tolist())
    return out
