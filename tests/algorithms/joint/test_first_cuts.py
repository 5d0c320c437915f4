"""First cuts (geoanon.joint.first_cuts): the joint search tried with a
category cut first, at the table and in every piece, keeps what costs least."""
import importlib

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geoanon._cells import numeric_cells
from geoanon.joint import batch, first_cuts, mondrian, search, sharding
from geoanon.joint.location_loss import BoxKmLoss
from geoanon.joint.problem import SearchProblem
from geoanon.models import Model
from geoanon.pipeline.locations.points import points_location
from geoanon.pipeline.quasi_identifiers import qi_dim
from geoanon.options.release import release_spec, treatments as spec_treatments

anonymize_module = importlib.import_module("geoanon.pipeline.joint_release")


def _problem(df, k, qi, model=None):
    """The search problem of a table: its dimensions (location, then ``qi``) under the km loss, and its model."""
    check = Model(k=k, **(model or {})).compile(df)
    dims, _ = points_location(df, {"lat": "lat", "lon": "lon"}, "error", "EPSG:4326", None, [], "box", None)
    spec = release_spec("anonymize", qi=qi, sets=[c for c in qi if c == "race"] or None,
                        location={"lat": "lat", "lon": "lon"}, k=k)
    treatments = spec_treatments(df, spec, lambda col: numeric_cells(df[col]))
    for col in qi:
        dims.items.append(qi_dim(df, col, treatments[col], None, "box", k))
    return SearchProblem(dims, check, location_loss=BoxKmLoss(anonymize_module._km_loss(dims, "EPSG:4326")))


def _clustered(n, seed):
    """``n`` people in 20 towns far apart, sex, race and diagnosis at random."""
    rng = np.random.default_rng(seed)
    town = rng.integers(0, 20, n)
    return pd.DataFrame({"lat": np.round(30 + town % 5 * 4 + rng.random(n) * 0.2, 4),
                         "lon": np.round(-100 + town // 5 * 5 + rng.random(n) * 0.2, 4),
                         "age": rng.integers(18, 90, n).astype(float), "sex": rng.choice(["F", "M"], n),
                         "race": rng.choice(list("abcd"), n, p=[0.7, 0.15, 0.1, 0.05]),
                         "dx": rng.choice(list("uvwxyz"), n)})


def _plain(problem, weights):
    """The joint search without first cuts."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(mondrian, "FIRST_CUT_ROWS", 0)
        return search.joint_partitions(problem, weights)


def _valid(part, check):
    """Every row in one class, every class within the model."""
    assert part.row_class.min() >= 0
    classes = part.row_class.max() + 1
    hist = np.zeros((classes, check.n_values), dtype=np.int64)
    np.add.at(hist, (part.row_class, check.codes), 1)
    assert check.holds(hist).all()


def test_sex_cut_first_where_the_location_alone_mixes_the_sexes():
    """4,000 people in 20 towns, k = 5, the location weighted 16: cut down by
    place, most classes hold both sexes; with sex cut first, each sex gets its
    own classes, a little wider, and the weighted loss is lower."""
    df = _clustered(4000, 2)
    problem = _problem(df, 5, ["sex"])
    weights = [[16.0, 16.0, 1.0]]
    first, plain = search.joint_partitions(problem, weights)[0], _plain(problem, weights)[0]
    sex = df["sex"].to_numpy()

    def mixed(part):
        return sum(len(set(sex[part.row_class == c])) > 1 for c in range(part.row_class.max() + 1))

    assert mixed(plain) > 50 and mixed(first) == 0
    assert first.cost.sum() < plain.cost.sum()
    _valid(first, problem.check)


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(100, 1500), st.integers(2, 12), st.integers(0, 10_000), st.sampled_from([None, "l"]),
       st.lists(st.sampled_from([0.125, 1.0, 4.0, 16.0, 64.0]), min_size=1, max_size=4), st.booleans())
def test_first_cuts_never_cost_more_than_the_search_alone(n, k, seed, model, locations, small_pieces):
    """Under every weighting the release with first cuts is valid and its
    weighted loss is at most the plain search's (which is one of the
    candidates), with pieces of the default size or of a few classes."""
    df = _clustered(n, seed)
    problem = _problem(df, k, ["age", "sex", "race"], {"l": 2, "sensitive": "dx"} if model else None)
    weights = [[w if d.location else 1.0 for d in problem.items] for w in locations]
    with pytest.MonkeyPatch.context() as m:
        if small_pieces:
            m.setattr(first_cuts, "PIECE_ROWS", 4 * k)
            m.setattr(first_cuts, "PIECE_CLASSES", 4)
        found = search.joint_partitions(problem, weights)
    for part, alone in zip(found, _plain(problem, weights)):
        _valid(part, problem.check)
        assert part.cost.sum() <= alone.cost.sum() * (1 + 1e-9) + 1e-9


def test_pieces_and_processes_give_the_same_release():
    """Pieces finished in worker processes, in batches of weightings: each
    partition as the search makes it alone in this process."""
    df = _clustered(1200, 4)
    problem = _problem(df, 4, ["age", "sex", "race"])
    weights = [[w if d.location else 1.0 for d in problem.items] for w in (0.5, 4.0, 32.0)]
    with pytest.MonkeyPatch.context() as m:
        m.setattr(first_cuts, "PIECE_ROWS", 100)
        m.setattr(first_cuts, "PIECE_CLASSES", 1)
        alone = [search.joint_partitions(problem, [w])[0] for w in weights]
        m.setattr(mondrian, "MAX_WEIGHTINGS", 2)
        for n_jobs in (1, 2):
            for part, single in zip(search.joint_partitions(problem, weights, n_jobs), alone):
                assert np.array_equal(part.row_class, single.row_class) and part.states == single.states


def test_the_lossiest_category_is_tried_first():
    """Per piece, the category of the greatest loss (the first on ties); none where no category loses."""
    per_dim = np.array([[9.0, 1.0, 3.0, 3.0], [9.0, 0.0, 0.0, 0.0], [0.0, 2.0, 5.0, 1.0]])
    assert first_cuts.lossiest(per_dim, [1, 2, 3]).tolist() == [2, -1, 2]
    assert first_cuts.lossiest(per_dim, []).tolist() == [-1, -1, -1]


def _searched(problem, weights, patches, every_start=False):
    """The joint search with ``patches`` ({(module, name): value}); with
    ``every_start``, every category's start searched under every weighting,
    even those whose own search makes that cut first anyway."""
    with pytest.MonkeyPatch.context() as m:
        for (module, name), value in patches.items():
            m.setattr(module, name, value)
        if every_start:
            m.setattr(mondrian, "_cut_anyway", lambda chosen, j, cuts: np.zeros(len(chosen), dtype=bool))
        return search.joint_partitions(problem, weights)


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(100, 1500), st.integers(2, 12), st.integers(0, 10_000), st.sampled_from([None, "l"]),
       st.lists(st.sampled_from([0.01, 0.125, 1.0, 16.0]), min_size=1, max_size=4), st.booleans())
def test_a_start_the_search_takes_anyway_is_not_searched_again(n, k, seed, model, locations, small_pieces):
    """Skipping a category's start where the search alone cuts that category
    first at every group leaves every release as searching it gives."""
    df = _clustered(n, seed)
    problem = _problem(df, k, ["age", "sex", "race"], {"l": 2, "sensitive": "dx"} if model else None)
    weights = [[w if d.location else 1.0 for d in problem.items] for w in locations]
    patches = {(first_cuts, "PIECE_ROWS"): 4 * k, (first_cuts, "PIECE_CLASSES"): 4} if small_pieces else {}
    found = _searched(problem, weights, patches)
    for part, every in zip(found, _searched(problem, weights, patches, every_start=True)):
        assert np.array_equal(part.row_class, every.row_class) and part.states == every.states


def test_the_search_cutting_a_category_first_skips_its_start():
    """With the location nearly free, the search cuts a category at the root
    under that weighting: that category's start is searched only under the
    other weighting, and both releases are those of searching every start."""
    df = _clustered(1500, 1)
    problem = _problem(df, 5, ["age", "sex", "race"])
    weights = [[w if d.location else 1.0 for d in problem.items] for w in (0.01, 64.0)]
    table = sharding.located_apart(problem, np.arange(len(df)), [0, 1])
    chosen = batch.first_dims(problem, table, list(range(len(problem.items))), np.array(weights))
    first = int(chosen[0, 0])
    assert first in (3, 4) and chosen[1, 0] in (0, 1)           # a category (sex, race), then a location cut
    searched, original = [], mondrian._joint_batch

    def counted(problem, groups, w, *rest):
        searched.append(len(w))
        return original(problem, groups, w, *rest)

    found = _searched(problem, weights, {(mondrian, "_joint_batch"): counted})
    assert searched == [2] + [1 if j == first else 2 for j in (3, 4)]
    for part, every in zip(found, _searched(problem, weights, {}, every_start=True)):
        assert np.array_equal(part.row_class, every.row_class) and part.states == every.states
