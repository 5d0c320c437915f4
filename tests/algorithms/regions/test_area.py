"""The records' area on a region map (geoanon.regions.area) and the names of
its groups (geoanon.regions.naming), against definitions checked here."""
import itertools

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from geoanon.regions.area import data_area, steiner_forest, trimmed_groups
from geoanon.regions.graphs import CompactGraph
from geoanon.regions.naming import NameLadder, region_group_names, zip_ladder


def _compact(G, length):
    graph = CompactGraph.from_networkx(G)
    a = np.repeat(np.arange(graph.n), np.diff(graph.indptr))
    return graph, np.array([length[frozenset((graph.ids[i], graph.ids[j]))] for i, j in zip(a, graph.indices)])


def _tree_weight(G, nodes) -> float:
    """The weight of a minimum spanning tree of ``G`` on ``nodes`` (inf when they are not connected)."""
    sub = G.subgraph(nodes)
    if not nx.is_connected(sub):
        return float("inf")
    return sum(d["w"] for _, _, d in nx.minimum_spanning_edges(sub, data=True, weight="w"))


@st.composite
def graphs(draw, most=9):
    n = draw(st.integers(2, most))
    pairs = list(itertools.combinations(range(n), 2))
    edges = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs)))
    G = nx.Graph()
    G.add_nodes_from(range(n))
    length = {}
    for a, b in edges:
        w = draw(st.integers(1, 9))
        G.add_edge(a, b, w=w)
        length[frozenset((a, b))] = w
    terminals = draw(st.lists(st.booleans(), min_size=n, max_size=n))
    return G, length, np.array(terminals)


@pytest.mark.slow
@settings(max_examples=100)
@given(graphs(most=8))
def test_the_steiner_forest_joins_each_components_terminals_within_twice_the_optimum(case):
    G, length, terminals = case
    graph, lengths = _compact(G, length)
    kept = steiner_forest(graph, lengths, terminals)
    assert kept[terminals].all()
    mine = {v for v, k in zip(graph.ids, kept.tolist()) if k}
    for component in nx.connected_components(G):
        ends = {v for v in component if terminals[v]}
        inside = mine & component
        if len(ends) < 2:
            assert inside == ends                   # nothing joins a lone terminal, or none
            continue
        assert nx.is_connected(G.subgraph(inside))
        for v in inside - ends:                      # no dead end without records
            assert sum(u in inside for u in G[v]) >= 2
        others = sorted(component - ends)
        best = min(_tree_weight(G, ends | set(extra)) for r in range(len(others) + 1)
                   for extra in itertools.combinations(others, r))
        assert _tree_weight(G, inside) <= 2 * best        # Mehlhorn (1988): within 2 (1 - 1/l)


def test_the_area_leaves_out_the_map_beyond_the_records():
    """A path a - b - c - d - e with a branch c - x - y: records at a and d keep b and c only."""
    G = nx.Graph([("a", "b"), ("b", "c"), ("c", "d"), ("d", "e"), ("c", "x"), ("x", "y")], geographic=True)
    nx.set_node_attributes(G, {v: (float(i), 0.0) for i, v in enumerate("abcde")} | {"x": (2.0, 1.0),
                                                                                     "y": (2.0, 2.0)}, "centroid")
    assert sorted(data_area(G, {"a", "d"}).nodes) == ["a", "b", "c", "d"]
    assert sorted(data_area(G, {"a"}).nodes) == ["a"]


def test_a_group_keeps_only_the_empty_regions_that_connect_its_records():
    """One group over a - b - c - d and the branch b - x: records at a and c; d and x join nothing."""
    G = nx.Graph([("a", "b"), ("b", "c"), ("c", "d"), ("b", "x")])
    graph = CompactGraph.from_networkx(G)
    held = np.array([v in ("a", "c") for v in graph.ids])
    labels = trimmed_groups(graph, np.ones(graph.indices.size), np.zeros(graph.n, dtype=np.int64), held)
    assert {v for v, c in zip(graph.ids, labels.tolist()) if c == 0} == {"a", "b", "c"}


XY = {"27701": (-78.90, 35.99), "27703": (-78.84, 35.97), "27705": (-78.95, 36.02), "27707": (-78.95, 35.95),
      "27601": (-78.64, 35.77), "27603": (-78.68, 35.71)}
LADDER = zip_ladder("zip", list(XY), state=["NC"] * 6, county=["Durham County"] * 4 + ["Wake County"] * 2,
                    zip_codes=True)


def _names(groups, weights, ladder=LADDER):
    return region_group_names(groups, weights, ladder, XY.get, geographic=True)


def test_a_group_lists_its_record_holding_members_at_the_finest_level_that_lists_three():
    assert _names([["27701"], ["27701", "27703"], ["27701", "27703", "27705", "27707"],
                   ["27701", "27703", "27705", "27601"]], [10, 10, 10, 10]) == \
        ["27701", "27701|27703", "277xx", "276xx|277xx"]


def test_no_list_is_as_long_as_the_groups_records():
    """Three ZIP codes holding three records would each hold one: the group is named by its ZIP3 area."""
    assert _names([["27701", "27703", "27705"]], [3]) == ["277xx"]
    assert _names([["27701", "27703"]], [2], NameLadder(("zip",))) == ["group 1"]
    assert _names([["27701", "27703"]], [2], zip_ladder("zip", list(XY), state=["NC"] * 6)) == ["NC"]


def test_groups_that_would_share_a_name_are_told_apart():
    ids = [f"2770{i}" for i in range(1, 9)] + ["27709|x"]
    ladder = NameLadder(("zip", "zip3"), ({v: (v[:3] + "xx",) for v in ids},))
    centroid = {v: (-78.9 + 0.01 * i, 36.0) for i, v in enumerate(ids)}.get
    names = region_group_names([ids[4:8], ids[:4]], [20, 20], ladder, centroid, geographic=True)
    assert names == ["277xx #2", "277xx #1"]         # numbered in the order of their members
    assert region_group_names([ids[7:]], [10], ladder, centroid, True) == ["27708|27709\\|x"]


def test_beyond_three_at_every_level_the_central_name_and_the_others_counted():
    area = {"27701": "A", "27703": "A", "27705": "B", "27707": "C", "27601": "D", "27603": "D"}
    ladder = NameLadder(("zip", "area"), ({v: (a,) for v, a in area.items()},))    # six ZIP codes in four areas
    assert region_group_names([list(XY)], [60], ladder, XY.get, geographic=True) == ["A+3"]


@pytest.mark.parametrize("level, units, expected", [
    ("county", {"NC/Durham County": ["27701"], "NC/Wake County": ["27601"]}, ("county", "state")),
    ("state", {"NC": ["27701", "27601"]}, ("state",))])
def test_roll_ups_are_named_by_their_units_then_their_states(level, units, expected):
    ladder = zip_ladder(level, ["27701", "27601"], state=["NC", "NC"], county=["Durham County", "Wake County"],
                        zip_codes=True, units=units)
    assert ladder.levels == expected and ladder.last_resort == (level == "county")
