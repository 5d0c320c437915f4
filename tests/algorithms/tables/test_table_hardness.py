"""Hardness constructions as instances with a known optimum (Liang-Yuan Lemma 1,
Theorems 3, 6, 7; Blocki-Williams Section 5): the stated optimum is the true
one, by brute force on small tables and by Theorem 9's program on larger ones,
and the heuristic never beats it."""
from dataclasses import replace
from functools import cache
from itertools import combinations

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geoanon as ga
from geoanon.errors import ParameterError
from geoanon.tables.hardness import (STAR_GROUND, binary_3_anonymity_from_graph, half_anonymity_from_bisection,
                                     t_closeness_from_3dm, t_closeness_from_k_anonymity, three_dm_yes_instance,
                                     triangles_and_stars_graph)
from geoanon.tables.milp import optimal_suppression

from checkers import brute_force_suppression, emd_equal, emd_matrix, emd_ordered


def brute_force(hi):
    """The optimum over every partition (tables of <= 9 rows); EMDs cached per count vector."""
    rows = list(hi.table[hi.qi].itertuples(index=False))
    if hi.sensitive is None:
        return brute_force_suppression(rows, hi.k)
    values = hi.table[hi.sensitive].tolist()
    seen = list(dict.fromkeys(values))                 # the checker's order of the values
    at = [seen.index(v) for v in hi.order or seen]     # a matrix ground's rows are the order's values
    if isinstance(hi.ground, str):
        emd = cache(emd_equal if hi.ground == "equal" else emd_ordered)
    else:
        emd = cache(lambda p, q: emd_matrix(p, q, hi.ground.tolist()))
    return brute_force_suppression(rows, hi.k, values, t=hi.t,
                                   emd=lambda p, q: emd(tuple(p[i] for i in at), tuple(q[i] for i in at)))


def program(hi):
    result = optimal_suppression(hi.instance(), time_limit=30)
    assert result.optimal
    return result.objective


def heuristic(hi):
    return ga.suppress(hi.table, hi.qi, k=hi.k, t=hi.t, sensitive=hi.sensitive, ground=hi.ground,
                       order=hi.order, method="lattice").report["cost"]


def assert_optimum(hi, exact):
    assert hi.optimum is not None
    assert exact(hi) == hi.optimum, hi.note
    assert heuristic(hi) >= hi.optimum


@st.composite
def graphs(draw, sizes=(4, 6, 8)):
    n = draw(st.sampled_from(sizes))
    pairs = list(combinations(range(n), 2))
    edges = draw(st.lists(st.sampled_from(pairs), min_size=1, max_size=min(12, len(pairs)), unique=True))
    graph = nx.empty_graph(n)
    graph.add_edges_from(edges)
    return graph


@st.composite
def three_dm(draw, sizes=(1, 2)):
    n = draw(st.sampled_from(sizes))
    cells = [(x, y, z) for x in range(n) for y in range(n) for z in range(n)]
    return draw(st.lists(st.sampled_from(cells), min_size=1, max_size=min(6, len(cells)), unique=True)), n


# Liang-Yuan Theorem 3 ---------------------------------------------------------------------------------

@pytest.mark.slow
@settings(max_examples=30)
@given(graphs())
def test_theorem_3_against_brute_force(graph):
    hi = half_anonymity_from_bisection(graph)
    n, m = graph.number_of_nodes(), graph.number_of_edges()
    assert hi.k == n // 2 and hi.table.shape == (n, m)
    assert hi.optimum <= n * m                # the whole table as one group costs n|E|
    assert_optimum(hi, brute_force)


@pytest.mark.parametrize("n, m, seed", [(10, 10, 3), (12, 9, 4)])
def test_theorem_3_against_the_program(n, m, seed):
    assert_optimum(half_anonymity_from_bisection(nx.gnm_random_graph(n, m, seed=seed)), program)


def test_theorem_3_figure_1_style_example():
    # a 4-cycle: the best bisection cuts 2 edges, so the optimum is 4(4 + 2)/2 = 12
    hi = half_anonymity_from_bisection(nx.cycle_graph(4))
    assert hi.optimum == 12 == brute_force(hi)


# Liang-Yuan Lemma 1 -----------------------------------------------------------------------------------

@pytest.mark.slow
@settings(max_examples=40)
@given(st.lists(st.tuples(*[st.sampled_from("ab")] * 3), min_size=2, max_size=7), st.integers(1, 3))
def test_lemma_1_keeps_the_optimum(rows, k):
    k = min(k, len(rows))
    table = pd.DataFrame(rows, columns=["q0", "q1", "q2"])
    optimum = brute_force_suppression(rows, k)
    hi = t_closeness_from_k_anonymity(table, ["q0", "q1", "q2"], k, optimum=optimum)
    assert hi.table["s"].nunique() == len(rows) and hi.t == pytest.approx(1 - k / len(rows))
    assert_optimum(hi, brute_force)


@pytest.mark.slow
def test_lemma_1_on_theorem_3_gives_half_closeness():
    # Corollary 1's t = 1/2: Theorem 3's table with n distinct sensitive values
    small = half_anonymity_from_bisection(nx.gnm_random_graph(6, 7, seed=1))
    hi = t_closeness_from_k_anonymity(small.table, small.qi, small.k, optimum=small.optimum)
    assert hi.t == 0.5
    assert_optimum(hi, brute_force)
    large = half_anonymity_from_bisection(nx.gnm_random_graph(10, 10, seed=3))
    assert_optimum(t_closeness_from_k_anonymity(large.table, large.qi, large.k, optimum=large.optimum), program)


@pytest.mark.slow
def test_lemma_1_on_binary_3_anonymity():
    small = binary_3_anonymity_from_graph(triangles_and_stars_graph(3, 2, 7, seed=5))
    assert_optimum(t_closeness_from_k_anonymity(small.table, small.qi, 3, optimum=small.optimum), program)


# Liang-Yuan Theorem 6 ---------------------------------------------------------------------------------

def max_matching(triples):
    return max(r for r in range(len(triples) + 1) for chosen in combinations(triples, r)
               if all(len({e[axis] for e in chosen}) == r for axis in range(3)))


@pytest.mark.slow
@settings(max_examples=40)
@given(three_dm(), st.sampled_from([0.0, 0.2, 0.3]))
def test_theorem_6_against_brute_force(instance, t):
    triples, n = instance
    hi = t_closeness_from_3dm(triples, n, t)
    m = len(triples)
    assert hi.table.shape == (3 * n, m + 1) and hi.ground == "equal"
    assert hi.optimum == 3 * n * m - 3 * max_matching(triples)
    assert_optimum(hi, brute_force)


@pytest.mark.parametrize("seed", [0, 1])
def test_theorem_6_yes_instances_of_nine_rows(seed):
    triples = three_dm_yes_instance(3, 4, seed=seed)
    hi = t_closeness_from_3dm(triples, 3, 0.25)
    assert hi.optimum == 3 * 3 * (len(triples) - 1)                    # the paper's 3n(m - 1)
    assert_optimum(hi, brute_force)


@pytest.mark.slow
@pytest.mark.parametrize("n, extra, t", [(4, 4, 0.0), (5, 5, 0.2), (6, 6, 0.3)])
def test_theorem_6_against_the_program(n, extra, t):
    triples = three_dm_yes_instance(n, extra, seed=n)
    yes = t_closeness_from_3dm(triples, n, t)
    assert yes.optimum == 3 * n * (n + extra - 1)
    assert_optimum(yes, program)
    # without the triples of x = 0 there is no perfect matching: the optimum follows the largest one
    rest = [e for e in triples if e[0] != 0]
    no = t_closeness_from_3dm(rest, n, t)
    assert no.optimum == 3 * n * len(rest) - 3 * max_matching(rest) > 3 * n * (len(rest) - 1)
    assert_optimum(no, program)


def test_theorem_6_needs_t_below_one_third():
    # The proof opens with "Fix 0 <= t < 1/2", but its argument needs t < 1/3, as the theorem states:
    # a pair of elements has EMD exactly 1/3, and at t = 1/3 a pair in two triples keeps two columns
    # (2(m - 2) stars, cheaper than its share of a matched triple), so 3n(m - 1) is no longer the optimum.
    # Here the pairs {x0, y0}, {x1, z0}, {y1, z1} each lie in two triples: 3 * 2(6 - 2) = 24 < 3n(m - 1) = 30.
    triples = [(0, 0, 0), (0, 0, 1), (1, 0, 0), (1, 1, 0), (0, 1, 1), (1, 1, 1)]
    hi = t_closeness_from_3dm(triples, 2, 0.3)
    assert hi.optimum == 3 * 2 * (6 - 1) == brute_force(hi)
    assert brute_force(replace(hi, t=1 / 3)) <= 24 < hi.optimum
    assert ga.emd([0, 1, 1], [1, 1, 1]) == pytest.approx(1 / 3)


# Liang-Yuan Theorem 7 ---------------------------------------------------------------------------------

def optimum_with_a_pool(hi, pool):
    """The exact optimum when the rows ``pool`` are interchangeable (one
    sensitive value, a value of their own in every column): a group is a set of
    the other rows and a number of pool rows; dynamic program over both."""
    rows = list(hi.table[hi.qi].itertuples(index=False))
    values = hi.table[hi.sensitive].tolist()
    table_counts = [values.count(v) for v in hi.order]
    others = [i for i in range(len(rows)) if i not in pool]

    @cache
    def group(mask, j):
        members = [others[b] for b in range(len(others)) if mask >> b & 1] + pool[:j]
        counts = [sum(values[i] == v for i in members) for v in hi.order]
        if emd_matrix(counts, table_counts, np.asarray(hi.ground).tolist()) > hi.t + 1e-9:
            return None
        return len(members) * sum(len({rows[i][c] for i in members}) > 1 for c in range(len(hi.qi)))

    @cache
    def best(mask, j):
        if mask == 0:
            options = [(0, c) for c in range(1, j + 1)]
        else:
            low, rest = mask & -mask, mask & (mask - 1)
            subsets = [s for s in range(rest + 1) if s & rest == s]
            options = [(s | low, c) for s in subsets for c in range(j + 1)]
        costs = [group(g, c) + best(mask ^ g, j - c) for g, c in options if group(g, c) is not None]
        return 0 if mask == j == 0 else min(costs, default=np.inf)

    return best((1 << len(others)) - 1, len(pool))


@pytest.mark.slow
def test_theorem_7_of_nine_rows_against_brute_force():
    hi = t_closeness_from_3dm([(0, 0, 0)], 1, 1 / 3)                  # n' = 3n/(1 - 2t) = 9 rows
    assert len(hi.table) == 9 and hi.table["s"].tolist() == list("123") + ["4"] * 6
    assert hi.optimum == 0
    assert_optimum(hi, brute_force)
    assert_optimum(hi, lambda hi: optimum_with_a_pool(hi, list(range(3, 9))))
    for t in (0.05, 0.2, 0.45):                               # the dynamic program against the checker
        assert optimum_with_a_pool(replace(hi, t=t), list(range(3, 9))) == brute_force(replace(hi, t=t))


@pytest.mark.slow
@pytest.mark.parametrize("triples, t, yes", [([(0, 0, 1), (1, 1, 0), (0, 1, 1)], 1 / 3, True),
                                             ([(0, 0, 1), (1, 1, 0), (0, 1, 1)], 3 / 8, True),
                                             ([(0, 0, 1), (0, 1, 0), (1, 1, 1)], 1 / 3, False)])
def test_theorem_7_against_an_exact_program(triples, t, yes):
    hi = t_closeness_from_3dm(triples, 2, t)
    assert len(hi.table) == round(6 / (1 - 2 * t)) and hi.order == ["1", "2", "3", "4"]
    assert hi.optimum == 3 * 2 * 3 - 3 * max_matching(triples)
    assert (hi.optimum == 3 * 2 * (3 - 1)) == yes                   # the paper's 3n(m - 1) iff a perfect matching
    assert_optimum(hi, lambda hi: optimum_with_a_pool(hi, list(range(6, len(hi.table)))))


@settings(max_examples=50)
@given(st.lists(st.integers(0, 20), min_size=4, max_size=4).filter(any),
       st.lists(st.integers(0, 20), min_size=4, max_size=4).filter(any))
def test_theorem_7_equation_5(a, b):
    # EMD on the star ground: 1/2 (a4 - b4) + sum of (a_i - b_i)^+ over i <= 3, when a4 >= b4
    a, b = np.array(a) / sum(a), np.array(b) / sum(b)
    if a[3] < b[3]:
        a, b = b, a
    formula = 0.5 * (a[3] - b[3]) + np.maximum(a[:3] - b[:3], 0).sum()
    assert ga.emd(a, b, ground=STAR_GROUND) == pytest.approx(formula, abs=1e-9)


def test_theorem_7_groups():
    t = 1 / 3
    table = [1, 1, 1, 6]                                       # (1-2t)/3 thrice and 2t, as counts
    assert ga.emd([1, 1, 1, 0], table, ground=STAR_GROUND) == pytest.approx(t)          # a matched triple
    assert ga.emd([0, 0, 0, 1], table, ground=STAR_GROUND) == pytest.approx((1 - 2 * t) / 2)
    for old in ([1, 0, 0, 0], [1, 1, 0, 0]):                   # fewer than three elements: not t-close
        assert ga.emd(old, table, ground=STAR_GROUND) > t


# Blocki-Williams Section 5 ----------------------------------------------------------------------------

@settings(max_examples=40)
@given(graphs(sizes=(4, 5, 6)).filter(lambda g: 3 <= g.number_of_edges() <= 8))
def test_blocki_williams_lemma_6_on_any_graph(graph):
    # every row pays >= 3 stars, exactly 3 each iff the edges split into triangles and 4-stars
    hi = binary_3_anonymity_from_graph(graph)
    optimum = brute_force(hi)
    assert optimum >= 3 * graph.number_of_edges()
    assert (optimum == 3 * graph.number_of_edges()) == (hi.optimum is not None)
    if hi.optimum is not None:
        assert_optimum(hi, brute_force)


@pytest.mark.parametrize("triangles, stars, seed", [(3, 0, 0), (0, 3, 1), (2, 1, 2), (1, 2, 3)])
def test_blocki_williams_against_brute_force(triangles, stars, seed):
    graph = triangles_and_stars_graph(triangles, stars, 6, seed=seed)
    assert graph.number_of_edges() == 3 * (triangles + stars)
    hi = binary_3_anonymity_from_graph(graph)
    assert set(hi.table.stack()) <= {"0", "1"} and hi.optimum == 3 * graph.number_of_edges()
    assert_optimum(hi, brute_force)


@pytest.mark.slow
@pytest.mark.parametrize("triangles, stars, vertices, seed", [(4, 4, 10, 0), (2, 6, 9, 1), (6, 2, 9, 2)])
def test_blocki_williams_against_the_program(triangles, stars, vertices, seed):
    graph = triangles_and_stars_graph(triangles, stars, vertices, seed=seed)
    assert_optimum(binary_3_anonymity_from_graph(graph), program)


def test_blocki_williams_no_instance():
    hi = binary_3_anonymity_from_graph(nx.path_graph(7))      # degree <= 2 and no triangle
    assert hi.optimum is None and brute_force(hi) > 3 * 6


# Parameters --------------------------------------------------------------------------------------------

def test_errors():
    with pytest.raises(ParameterError):
        half_anonymity_from_bisection(nx.path_graph(5))
    with pytest.raises(ParameterError):
        half_anonymity_from_bisection(nx.empty_graph(4))
    with pytest.raises(ParameterError):
        t_closeness_from_3dm([(0, 0, 2)], 2)
    with pytest.raises(ParameterError):
        t_closeness_from_3dm([(0, 0, 0), (0, 0, 0)], 1)
    with pytest.raises(ParameterError):
        t_closeness_from_3dm([(0, 0, 0)], 1, 0.5)
    with pytest.raises(ParameterError, match="whole number"):
        t_closeness_from_3dm([(0, 0, 0)], 1, 0.36)
    with pytest.raises(ParameterError):
        binary_3_anonymity_from_graph(nx.MultiGraph(nx.cycle_graph(3)))
    with pytest.raises(ParameterError):
        t_closeness_from_k_anonymity(pd.DataFrame({"q": ["a", "b"]}), ["q"], 3)
    with pytest.raises(ParameterError):
        three_dm_yes_instance(2, 7)
    with pytest.raises(ParameterError):
        triangles_and_stars_graph(30, 0, 5)
