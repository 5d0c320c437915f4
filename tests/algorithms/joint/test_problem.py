"""The search problem (geoanon.joint.problem): weights carried, not set on
the dimensions; costs remembered per problem; the location priced by one
strategy (geoanon.joint.location_loss); nodes known again by their key."""
import importlib
from dataclasses import replace

import numpy as np
import pytest
from test_joint_batch import _problem, _table

from hypothesis import given, strategies as hs

from geoanon.joint.dims import Dims, state_columns, tree_from_paths
from geoanon.joint.location_loss import NCP, BoxKmLoss, TreeKmLoss
from geoanon.joint.nodes import Nodes
from geoanon.joint.problem import SearchProblem

_km = importlib.import_module("geoanon.pipeline.joint_release")._km_loss


def test_a_weighting_is_a_new_problem_with_its_own_costs():
    problem = _problem(_table(200, 2), 2, "k", "box")
    state = problem.root(np.arange(200))
    before = problem.cost(state)
    heavy = problem.weighted([4.0 if d.location else 1.0 for d in problem.items])
    assert heavy.weights[:2] == (4.0, 4.0) and problem.weights == (1.0,) * len(problem.items)
    assert heavy.cost(state) > before and problem.cost(state) == before       # neither memo sees the other's
    # only the location's cost changes
    assert heavy.cost(state) == pytest.approx(heavy.location_cost(state) + before - problem.location_cost(state))


@pytest.mark.parametrize("km", [False, True])
def test_a_class_costs_the_same_summed_by_state_or_by_dimension(km):
    problem = _problem(_table(300, 3), 3, "k", "box")
    if km:
        problem = replace(problem, location_loss=BoxKmLoss(_km(problem.dims, "EPSG:4326")))
    problem = problem.weighted([2.0, 2.0, 1.0, 3.0, 1.0, 0.5, 1.5])
    rows = np.arange(300)
    states = [problem.root(rows), problem.root(rows[:40]), problem.root(rows[100:250])]
    per_dim = problem.cost_rows(states)
    assert per_dim.sum(axis=1) == pytest.approx([problem.cost(st) for st in states], rel=1e-12)
    assert problem.summed_costs(states, [1, 2, 3]) == pytest.approx(per_dim.T @ [1, 2, 3], rel=1e-12)
    if km:                                   # the box's km loss, shared by its two axes
        assert per_dim[0, 0] == per_dim[0, 1] and problem.location_loss.pair == (0, 1)


@given(hs.integers(0, 30).flatmap(lambda n: hs.tuples(
    hs.lists(hs.tuples(hs.integers(-2**63, 2**63 - 1), hs.integers(0, 9)), min_size=n, max_size=n),
    hs.lists(hs.integers(0, 2**70), min_size=n, max_size=n))))
def test_state_columns_are_what_numpy_makes_of_each_dimension(drawn):
    """Read in one pass where the states are int64s, as numpy where not (a
    set's mask of more than 63 values)."""
    pairs, masks = drawn
    states = [(pair, mask, 7) for pair, mask in zip(pairs, masks)]
    columns = state_columns(states)
    assert len(columns) == (3 if states else 0)
    for j, column in enumerate(columns):
        expected = np.array([st[j] for st in states])
        assert column.dtype == expected.dtype and column.shape == expected.shape and (column == expected).all()


def test_a_zip_tree_is_priced_by_its_nodes_km():
    paths = [["a", "ab", "*"], ["b", "ab", "*"], ["c", "c", "*"]]
    tree = tree_from_paths("zip", np.array([0, 1, 2, 2]), paths, np.ones(3, dtype=bool), location=True, strict=True)
    km = [np.array([0.0, 0.0, 0.0]), np.array([0.3, 0.0]), np.array([1.0])]
    ncp, priced = SearchProblem(Dims([tree]), None), SearchProblem(Dims([tree]), None, location_loss=TreeKmLoss(km))
    assert ncp.location_loss is NCP
    states = [((1, 0),), ((2, 0),), ((0, 2),)]
    assert [priced.cost(st) for st in states] == [0.3, 1.0, 0.0]
    assert [ncp.cost(st) for st in states] == [0.5, 1.0, 0.0]                 # Iyengar's: (covered - 1) / (3 - 1)
    assert priced.cost_rows(states)[:, 0].tolist() == [0.3, 1.0, 0.0]


def test_nodes_of_the_same_rows_and_state_have_one_key():
    state, values = {0: np.array([[0, 4, 1, 3], [0, 4, 0, 2]])}, np.arange(12).reshape(6, 2)
    a = Nodes.of_parts([np.array([3, 1, 2]), np.array([0, 5])], np.array([3, 2]), np.zeros(2, dtype=np.int64),
                       np.ones(2, dtype=np.int64), state, values)
    b = Nodes.of_parts([np.array([5, 0]), np.array([2, 3, 1])], np.array([2, 3]), np.zeros(2, dtype=np.int64),
                       np.ones(2, dtype=np.int64), {0: state[0][::-1]}, values)
    assert a.keys(6) == b.keys(6)[::-1]
    assert len(set(a.keys(6))) == 2
    a.keep(np.array([False, True]))
    assert a.count == 1 and a.rows(0).tolist() == [0, 5] and a.keys(6) == b.keys(6)[:1]
    assert (a.values == values[[0, 5]]).all() and a.position_node().tolist() == [0, 0]
