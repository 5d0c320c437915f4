"""The vectorized inner search gives the classes, states and NCP of the
node-by-node search it replaces, on mixed tables and every model."""
import importlib
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from geoanon.joint import batch, mondrian, search, sharding, tiling
from geoanon.joint.location_loss import BoxKmLoss
from geoanon.joint.problem import SearchProblem
from geoanon._cells import numeric_cells
from geoanon.models import Model
from geoanon.pipeline.locations.points import points_location
from geoanon.pipeline.quasi_identifiers import qi_dim
from geoanon.options.release import release_spec, treatments as spec_treatments

anonymize_module = importlib.import_module("geoanon.pipeline.joint_release")


def _table(n, seed):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({
        "lat": np.round(35 + rng.normal(0, 1.5, n), 3), "lon": np.round(-80 + rng.normal(0, 2, n), 3),
        "age": rng.integers(18, 90, n).astype(float), "sex": rng.choice(["F", "M"], n),
        "race": rng.choice(list("abcde"), n, p=[0.7, 0.15, 0.08, 0.05, 0.02]),
        "marital": rng.choice(["Married", "Divorced", "Never-married", "Widowed"], n),
        "dx": rng.choice(list("uvwxyz"), n),
        "edu": rng.choice([f"e{i:02d}" for i in range(12)], n, p=np.arange(12, 0, -1) / 78),   # halved
    })
    df.loc[:: 2 + seed % 40, "age"] = np.nan
    return df


MODELS = {"k": {}, "l": {"l": 2, "sensitive": "dx"}, "l_distinct": {"l_distinct": 2, "sensitive": "dx"},
          "t": {"t": 0.45, "sensitive": "dx"}}


def _problem(df, seed, model, extent, hierarchies=None):
    """The search problem of a test table: its dimensions (location, then age, sex, race, marital, edu) and model."""
    check = Model(k=2 + seed % 6, **MODELS[model]).compile(df)
    dims, _ = points_location(df, {"lat": "lat", "lon": "lon"}, "error", "EPSG:4326", None, [], extent, None)
    qi = ["age", "sex", "race", "marital", "edu"]
    hierarchies = hierarchies or {}
    spec = release_spec("anonymize", qi=qi, hierarchies=hierarchies, sets=["race"] if seed % 2 else None,
                        location={"lat": "lat", "lon": "lon"}, k=check.model.k)
    treatments = spec_treatments(df, spec, lambda col: numeric_cells(df[col]))
    for col in qi:
        dims.items.append(qi_dim(df, col, treatments[col], hierarchies.get(col), extent,
                                                   check.model.k))
    return SearchProblem(dims, check)


MARITAL = pd.DataFrame([["Married", "spouse present", "*"], ["Divorced", "spouse not present", "*"],
                        ["Never-married", "spouse not present", "*"], ["Widowed", "spouse not present", "*"]])


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(60, 500), st.integers(0, 10_000), st.sampled_from(["k", "l", "l_distinct", "t"]),
       st.sampled_from(["box", "tile"]), st.booleans())
def test_batch_search_equals_node_by_node(n, seed, model, extent, hierarchy):
    import geoanon as ga

    df = _table(n, seed)
    hierarchies = {"marital": ga.Hierarchy.from_frame(MARITAL)} if hierarchy else {}
    problem = _problem(df, seed, model, extent, hierarchies)
    rows = np.arange(n)
    tree = tiling.location_tree(problem, [(rows, problem.root(rows))], [0, 1])
    groups = [(tree.rows[i], tree.state[i]) for i in range(len(tree.parent))]
    other = [2, 3, 4, 5, 6]
    fast, total = batch.split_all(problem, groups, other)
    for g, (rows_g, state_g) in enumerate(groups):
        slow = tiling.split_down(problem, rows_g, state_g, other)
        assert sorted((tuple(sorted(r.tolist())), s) for r, s in slow) == \
            sorted((tuple(sorted(r.tolist())), s) for r, s in fast[g])
        assert total[g] == pytest.approx(sum(r.size * problem.cost(s) for r, s in slow), rel=1e-9, abs=1e-9)


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(60, 600), st.integers(0, 10_000), st.sampled_from(["k", "l"]), st.sampled_from(["box", "tile"]))
def test_batch_location_tree_equals_node_by_node(n, seed, model, extent):
    df = _table(n, seed)
    problem = _problem(df, seed, model, extent)
    rows = np.arange(n)
    root = problem.root(rows)
    slow = tiling.location_tree_by_node(problem, [(rows, root)], [0, 1])
    fast = tiling.Tree(*batch.location_forest(problem, [(rows, root)], [0, 1]))

    def nodes(tree):
        return sorted((tuple(sorted(tree.rows[i].tolist())), tree.state[i]) for i in range(len(tree.parent)))

    assert nodes(slow) == nodes(fast)
    assert all(fast.parent[c] == p for p, kids in enumerate(fast.children) for c in kids)


@pytest.mark.slow
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(60, 500), st.integers(0, 10_000), st.sampled_from(["k", "l", "t"]), st.sampled_from(["box", "tile"]),
       st.booleans())
def test_batch_joint_search_equals_node_by_node(n, seed, model, extent, gain_ratio):
    """The joint design: every dimension cut, the location narrowed by every
    cut; cuts ranked by their gain or by their gain ratio."""
    problem = replace(_problem(_table(n, seed), seed, model, extent), shared_location=False, gain_ratio=gain_ratio)
    rows = np.arange(n)
    every = list(range(7))
    slow = tiling.split_down(problem, rows, problem.root(rows), every)
    (fast,), total = batch.split_all(problem, [(rows, problem.root(rows))], every)
    assert sorted((tuple(sorted(r.tolist())), s) for r, s in slow) == \
        sorted((tuple(sorted(r.tolist())), s) for r, s in fast)
    assert total[0] == pytest.approx(sum(r.size * problem.cost(s) for r, s in slow), rel=1e-9, abs=1e-9)


def _same_partition(a, b):
    assert np.array_equal(a.row_class, b.row_class) and a.states == b.states
    assert np.array_equal(a.cost, b.cost)


def _weightings(problem, locations):
    """One weighting per location weight: the location's two dimensions at it, the others at 1."""
    return [[w if d.location else 1.0 for d in problem.items] for w in locations]


@pytest.mark.slow
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(60, 500), st.integers(0, 10_000), st.sampled_from(["k", "l", "t"]), st.sampled_from(["box", "tile"]),
       st.lists(st.sampled_from([0.125, 0.3, 1.0, 2.5, 8.0, 32.0]), min_size=1, max_size=6), st.booleans(),
       st.sampled_from([None, 60.0, 250.0]))
def test_weighted_search_gives_each_weighting_its_own_partition(n, seed, model, extent, locations, km, target):
    """The joint design under several weightings at once (nodes shared, merged where cuts in another order
    meet) equals the design run under each weighting alone, whatever the location's loss and target."""
    problem = _problem(_table(n, seed), seed, model, extent)
    if km:
        problem = replace(problem, location_loss=BoxKmLoss(anonymize_module._km_loss(problem.dims, "EPSG:4326")))
    if target is not None:
        diagonal = anonymize_module._diagonals(problem.dims, "EPSG:4326")
        problem = replace(problem, too_wide=lambda states: diagonal(states) > target)
    weights = _weightings(problem, locations)
    together = search.joint_partitions(problem, weights)
    assert len(together) == len(weights)
    for w, part in zip(weights, together):
        _same_partition(part, search.joint_partition(problem.weighted(w), "joint"))


def test_weighted_search_in_processes_and_batches_of_weightings(monkeypatch):
    """Nodes left by the top of the search are finished in worker processes, and more weightings than a
    node's mask holds are searched in batches: each partition as the design makes it alone."""
    problem = _problem(_table(900, 7), 7, "l", "box")
    problem = replace(problem, location_loss=BoxKmLoss(anonymize_module._km_loss(problem.dims, "EPSG:4326")))
    weights = _weightings(problem, [0.125, 0.5, 1.0, 4.0, 32.0])
    monkeypatch.setattr(mondrian, "FIRST_CUT_ROWS", 0)         # the shards of large tables (pieces: test_first_cuts)
    alone = [search.joint_partition(problem.weighted(w), "joint") for w in weights]
    monkeypatch.setattr(sharding, "SHARD_ROWS", 100)
    monkeypatch.setattr(mondrian, "MAX_WEIGHTINGS", 2)
    for n_jobs in (1, 2):
        for part, single in zip(search.joint_partitions(problem, weights, n_jobs), alone):
            _same_partition(part, single)


def test_weighted_search_cuts_large_value_sets_node_by_node():
    """A value set of more than 62 values (no bit mask): each weighting searched node by node."""
    df = _table(400, 3)
    df["race"] = [f"r{i % 70}" for i in range(len(df))]
    problem = _problem(df, 1, "k", "box")             # an odd seed publishes race as value sets
    assert not batch.vectorizable(problem, range(len(problem.items)))
    weights = _weightings(problem, [0.25, 4.0])
    for w, part in zip(weights, search.joint_partitions(problem, weights)):
        _same_partition(part, search.joint_partition(problem.weighted(w), "joint"))


def test_a_search_takes_one_to_max_weightings():
    problem = _problem(_table(80, 2), 2, "k", "box")
    rows = np.arange(80)
    for bad in (np.zeros((0, 6)), np.ones((batch.MAX_WEIGHTINGS + 1, 6))):
        with pytest.raises(ValueError, match="weightings"):
            batch.split_weighted(problem, [(rows, problem.root(rows), 1)], list(range(6)), bad)


def test_cuts_keep_the_class_count_where_one_can():
    from geoanon.joint.cuts import keeps_classes

    # a node of 200 rows holds 4 classes of k = 50: cutting after 50 or 100 keeps them, after 60 or 99 strands rows
    assert keeps_classes(np.array([50, 60, 99, 100]), 200, 50).tolist() == [True, False, False, True]
    assert keeps_classes(np.array([60, 70]), 130, 50).tolist() == [True, True]     # 2 classes either way


@pytest.mark.slow
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(60, 2000), st.integers(2, 60), st.integers(0, 10_000), st.sampled_from(["box", "tile"]))
def test_joint_location_cuts_make_as_many_classes_as_the_rows_hold(n, k, seed, extent):
    """Every node has a location cut that keeps its class count (the records
    spread on a line, distinct), so the joint design's classes of the
    location alone number floor(n / k), in the array search and node by node."""
    place = np.random.default_rng(seed).permutation(n) / 1024
    df = pd.DataFrame({"lat": 35 + place, "lon": -80 + place})
    check = Model(k=k).compile(df)
    dims, _ = points_location(df, {"lat": "lat", "lon": "lon"}, "error", "EPSG:4326", None, [], extent, None)
    problem = SearchProblem(dims, check, shared_location=False, compact_cuts=True)
    rows = np.arange(n)
    for part in (search.joint_partition(problem, "joint"),
                 mondrian.joint_by_node(problem, rows, [0, 1], [])):
        sizes = np.bincount(part.row_class)
        assert sizes.size == n // k and sizes.min() >= k and sizes.max() < 2 * k


def test_the_joint_design_ranks_a_cut_by_the_classes_it_strands(monkeypatch):
    """Six records, k = 2: splitting sex (3 + 3) leaves room for two classes
    where three fit. It removes the most loss, but a location cut that keeps
    the three ranks first, node by node and in the array search."""
    from geoanon.joint import cuts

    df = pd.DataFrame({"lat": [34.58, 39.35, 39.47, 30.97, 30.01, 34.53],
                       "lon": [-80.92, -81.89, -80.96, -81.87, -88.37, -80.21],
                       "sex": ["F", "M", "F", "M", "F", "M"]})
    check = Model(k=2).compile(df)
    dims, _ = points_location(df, {"lat": "lat", "lon": "lon"}, "error", "EPSG:4326", None, [], "box", None)
    spec = release_spec("anonymize", qi=["sex"], location={"lat": "lat", "lon": "lon"}, k=2)
    dims.items.append(qi_dim(df, "sex", spec_treatments(df, spec, lambda c: numeric_cells(df[c]))["sex"],
                                               None, "box", 2))
    problem = SearchProblem(dims, check, shared_location=False, compact_cuts=True)
    rows = np.arange(6)
    chosen = {}
    for share in (0.0, cuts.STRANDED):
        monkeypatch.setattr(cuts, "STRANDED", share)
        cut = cuts.best_cut(problem, rows, problem.root(rows), [0, 1, 2])
        leaves = batch.split_all(problem, [(rows, problem.root(rows))], [0, 1, 2])[0][0]
        chosen[share] = (problem.items[cut.dim].name, len(leaves))
    assert chosen == {0.0: ("sex", 2), 0.5: ("lat", 3)}


def test_the_gain_ratio_ranks_a_many_valued_peel_as_the_binary_cuts_it_replaces():
    """Forty records, k = 2, an unordered column of eight values five records
    each and ages 20-59: peeling the eight values removes the most loss (all
    of the column's), so the plain ranking cuts it first; over its split
    information beyond the first bit (two of three) it ranks below a
    balanced cut of the ages, node by
    node and in the array search alike, and the leaves still hold k each."""
    from geoanon.joint import cuts

    rng = np.random.default_rng(3)
    n = 40
    df = pd.DataFrame({"lat": np.round(35 + rng.random(n), 3), "lon": np.round(-80 + rng.random(n), 3),
                       "edu": [f"e{i % 8}" for i in range(n)], "age": rng.permutation(np.arange(20, 60))})
    check = Model(k=2).compile(df)
    dims, _ = points_location(df, {"lat": "lat", "lon": "lon"}, "error", "EPSG:4326", None, [], "box", None)
    spec = release_spec("anonymize", qi=["edu", "age"], location={"lat": "lat", "lon": "lon"}, k=2)
    treatments = spec_treatments(df, spec, lambda c: numeric_cells(df[c]))
    dims.items += [qi_dim(df, c, treatments[c], None, "box", 2) for c in ("edu", "age")]
    rows, allowed = np.arange(n), [0, 1, 2, 3]
    first = {}
    for ratio in (False, True):
        problem = SearchProblem(dims, check, shared_location=False, compact_cuts=True, gain_ratio=ratio,
                                weights=[0.01, 0.01, 1.0, 1.0])
        cut = cuts.best_cut(problem, rows, problem.root(rows), allowed)
        leaves = batch.split_all(problem, [(rows, problem.root(rows))], allowed)[0][0]
        by_node = tiling.split_down(problem, rows, problem.root(rows), allowed)
        assert sorted((tuple(sorted(r.tolist())), s) for r, s in leaves) == \
            sorted((tuple(sorted(r.tolist())), s) for r, s in by_node)
        assert min(r.size for r, _ in leaves) >= 2
        first[ratio] = (problem.items[cut.dim].name, len(cut.parts))
    assert first == {False: ("edu", 8), True: ("age", 2)}
    assert cuts.split_bits(np.full(8, 5), np.zeros(8, dtype=np.int64), np.array([40])).tolist() == [3.0]


def test_a_many_valued_set_is_halved_most_held_values_first():
    """A value set of more than ``HALVED_ABOVE`` values (the table's 12
    levels of edu, skewed) is cut in two, node by node and in the array
    search alike: the most held values on the first side, the sides as even
    as the model allows, each meeting it; sets of fewer values and the
    location are peeled as before."""
    from geoanon.joint import cuts

    df = _table(600, 4)
    problem = replace(_problem(df, 4, "l", "box"), shared_location=False)
    assert [cuts.halved(d) for d in problem.items] == [False] * 6 + [True]
    rows = np.arange(len(df))
    cut = cuts.own_cut(problem, 6, rows, problem.root(rows))
    counts = df["edu"].value_counts()
    left, right = (set(df["edu"].iloc[r]) for r, _ in cut.parts)
    assert len(cut.parts) == 2 and left | right == set(counts.index) and not left & right
    assert min(counts[list(left)]) >= max(counts[list(right)])
    assert abs(cut.parts[0][0].size - len(df) / 2) <= counts.max()
    assert problem.check.holds(np.stack([problem.check.histogram(r) for r, _ in cut.parts])).all()
    (fast,), _ = batch.split_all(problem, [(rows, problem.root(rows))], [6])
    slow = tiling.split_down(problem, rows, problem.root(rows), [6])
    assert sorted((tuple(sorted(r.tolist())), s[6]) for r, s in slow) == \
        sorted((tuple(sorted(r.tolist())), s[6]) for r, s in fast)
    assert len(fast) > 2
