"""ZIP codes rolled up to ZIP3, county or state units (geoanon.regions.rollup):
a unit is the union of its regions, adjacent to another where one of its
regions is."""
import networkx as nx
import numpy as np
import pytest

from geoanon.errors import ParameterError
from geoanon.regions import partition_graph
from geoanon.regions.rollup import rolled_up, unit_names

from checkers import check_connected_partition


def _grid(n=6):
    """An n x n grid of regions '27r0c' (rook adjacency), centroids a tenth of a degree apart."""
    G = nx.grid_2d_graph(n, n)
    G = nx.relabel_nodes(G, {(r, c): f"2{r}{c}{r}{c}" for r, c in G.nodes})
    for v in G.nodes:
        G.nodes[v]["centroid"] = (-80 + 0.1 * int(v[2]), 35 + 0.1 * int(v[1]))
    G.graph["geographic"] = True
    return G


def test_unit_names_per_level():
    ids = ["27601", "27701", "33198"]
    state, county = ["NC", "NC", "FL"], ["Wake County", "Durham County", " "]
    assert unit_names(ids, "zip") == ids
    assert unit_names(ids, "zip3") == ["276", "277", "331"]
    assert unit_names(ids, "state", state=state) == ["NC", "NC", "FL"]
    assert unit_names(ids, "county", state=state, county=county) == ["NC/Wake County", "NC/Durham County", None]
    assert unit_names(ids, "state", state=["NC", None, float("nan")]) == ["NC", None, None]
    with pytest.raises(ParameterError, match="county"):
        unit_names(ids, "county", state=state)


def test_units_are_unions_of_their_regions_adjacent_where_a_region_is():
    G = _grid()
    unit_of = {v: ("west" if int(v[2]) < 3 else "east") + ("-south" if int(v[1]) < 3 else "-north") for v in G}
    unit_of["25555"] = None                               # a region without a unit is left out
    H, members = rolled_up(G, unit_of)
    assert sorted(H.nodes) == ["east-north", "east-south", "west-north", "west-south"]
    assert sorted(map(sorted, H.edges)) == [["east-north", "east-south"], ["east-north", "west-north"],
                                            ["east-south", "west-south"], ["west-north", "west-south"]]
    assert sorted(v for m in members.values() for v in m) == sorted(v for v in G if unit_of[v])
    assert "25555" not in members["east-north"] and len(members["east-north"]) == 8
    x0, y0, x1, y1 = H.nodes["west-south"]["box"]
    assert (x0, y0) == pytest.approx((-80.0, 35.0)) and (x1, y1) == pytest.approx((-79.8, 35.2))
    assert H.nodes["west-south"]["centroid"] == pytest.approx((-79.9, 35.1))
    assert H.graph["geographic"]


def test_groups_of_units_are_connected_unions_of_whole_units():
    G = _grid()
    H, members = rolled_up(G, {v: v[:3] for v in G})     # ZIP3: one unit per row of the grid
    rng = np.random.default_rng(0)
    records = {v: int(rng.integers(0, 6)) for v in G}
    weights = {u: sum(records[v] for v in m) for u, m in members.items()}
    part = partition_graph(H, 30, weights)
    check_connected_partition(H, weights, 30, part.class_of())
    for group in part.members():
        regions = [v for u in group for v in members[u]]
        assert nx.is_connected(G.subgraph(regions))           # the grid's rows: whole units, connected
        assert {v[:3] for v in regions} == set(group)
