"""Nodes cut to the end (geoanon.joint.solved) are not cut again: a later
search takes their leaves, and every release is the one searching gives."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_first_cuts import _clustered, _problem

from geoanon.joint import batch, first_cuts, mondrian, search
from geoanon.joint.solved import Solved


def _table(problem, weights):
    """The table as one group, cut under every weighting of ``weights``."""
    rows = np.arange(problem.check.codes.size)
    return [(rows, problem.root(rows), (1 << len(weights)) - 1)]


def _as_set(leaves):
    return {(tuple(sorted(r.tolist())), state) for r, state in leaves}


def _weights(problem, locations):
    return np.array([[w if d.location else 1.0 for d in problem.items] for w in locations])


def test_a_search_again_takes_every_leaf_and_cuts_nothing():
    """The same groups searched a second time under the same weighting: the
    table's node is known, its leaves are taken whole, no node is cut."""
    df = _clustered(1200, 3)
    problem = _problem(df, 5, ["age", "sex", "race"])
    allowed, weights, solved = list(range(len(problem.items))), _weights(problem, [4.0]), Solved()
    first = batch.split_weighted(problem, _table(problem, weights), allowed, weights, solved=solved)[0]
    with pytest.MonkeyPatch.context() as m:
        cut = []
        m.setattr(batch._Search, "_apply", lambda self, plans, chosen: cut.append(plans))
        again = batch.split_weighted(problem, _table(problem, weights), allowed, weights, solved=solved)[0]
    assert cut == [] and len(first[0]) > 20
    assert _as_set(again[0]) == _as_set(first[0])


def test_a_node_known_under_one_weighting_is_cut_under_the_others():
    """Known under the first weighting only: under it the leaves are taken,
    under the second the search cuts as it would alone."""
    df = _clustered(1200, 5)
    problem = _problem(df, 5, ["age", "sex", "race"])
    allowed, weights, solved = list(range(len(problem.items))), _weights(problem, [0.05, 16.0]), Solved()
    batch.split_weighted(problem, _table(problem, weights[:1]), allowed, weights[:1], solved=solved)
    both = batch.split_weighted(problem, _table(problem, weights), allowed, weights, solved=solved)[0]
    alone = batch.split_weighted(problem, _table(problem, weights), allowed, weights)[0]
    assert _as_set(both[0]) == _as_set(alone[0]) and _as_set(both[1]) == _as_set(alone[1])
    assert _as_set(alone[0]) != _as_set(alone[1])


def test_the_starts_of_a_release_meet_the_same_nodes():
    """With first cuts, the searches after each category's cut reach nodes
    the search as it is cut already (sex, then race; race, then sex): some
    are taken instead of cut again."""
    df = _clustered(3000, 7)
    problem = _problem(df, 5, ["age", "sex", "race"])
    taken, original = [], Solved.take

    def counted(self, *args):
        found = original(self, *args)
        taken.append(len(found))
        return found

    with pytest.MonkeyPatch.context() as m:
        m.setattr(Solved, "take", counted)
        search.joint_partitions(problem, _weights(problem, [1.0]))
    assert sum(taken) > 0


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(100, 1500), st.integers(2, 12), st.integers(0, 10_000), st.sampled_from([None, "l"]),
       st.lists(st.sampled_from([0.01, 0.125, 1.0, 16.0]), min_size=1, max_size=4), st.booleans())
def test_releases_are_those_of_cutting_every_node(n, k, seed, model, locations, small_pieces):
    """Every partition of the joint search with first cuts is the one it
    finds when no node is taken from another search (k and l-diversity,
    1-4 weightings, pieces of the default size or of a few classes)."""
    df = _clustered(n, seed)
    problem = _problem(df, k, ["age", "sex", "race"], {"l": 2, "sensitive": "dx"} if model else None)
    weights = _weights(problem, locations)
    with pytest.MonkeyPatch.context() as m:
        if small_pieces:
            m.setattr(first_cuts, "PIECE_ROWS", 4 * k)
            m.setattr(first_cuts, "PIECE_CLASSES", 4)
        found = search.joint_partitions(problem, weights)
        m.setattr(mondrian, "Solved", lambda: None)
        cut = search.joint_partitions(problem, weights)
    for part, every in zip(found, cut):
        assert np.array_equal(part.row_class, every.row_class) and part.states == every.states
