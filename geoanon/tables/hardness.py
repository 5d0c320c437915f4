"""Test instances with a known optimum, from the hardness proofs of the
suppression model: Liang and Yuan's Lemma 1 and Theorems 3, 6 and 7, and the
reduction of Aggarwal et al. that Blocki and Williams repeat for binary
3-anonymity (their Section 5 and Appendix C, Lemma 6).

Each reduction maps a graph or a 3-dimensional matching instance to a table
whose optimal cost follows from the source problem's answer; the generators
compute that answer by brute force (small inputs only: the source problems
are NP-hard) or know it by construction for the yes-instances they build.
Rows and columns follow ``list(graph.nodes)``, ``list(graph.edges)`` and the
order of the triples; quasi-identifier values are strings.
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import networkx as nx
import numpy as np
import pandas as pd

from .._text import plural
from .._validation import check_k
from ..errors import ParameterError
from ..models import Model
from .instance import Instance

__all__ = ["HardInstance", "binary_3_anonymity_from_graph", "half_anonymity_from_bisection",
           "t_closeness_from_3dm", "t_closeness_from_k_anonymity", "three_dm_yes_instance",
           "triangles_and_stars_graph"]

STAR_GROUND = np.array([[0.0, 1.0, 1.0, 0.5],     # Theorem 7: values 1, 2, 3 at distance 1,
                        [1.0, 0.0, 1.0, 0.5],     # the new rows' value 4 at 1/2 from each
                        [1.0, 1.0, 0.0, 0.5],
                        [0.5, 0.5, 0.5, 0.0]])


@dataclass(frozen=True, eq=False)
class HardInstance:
    """A table, the model it is to meet, and its optimal cost in stars (None
    when the construction does not determine it)."""

    table: pd.DataFrame
    qi: list
    sensitive: str | None
    k: int = 1
    l: float | None = None
    t: float | None = None
    ground: object = "equal"
    order: list | None = None
    optimum: int | None = None
    note: str = ""

    def instance(self) -> Instance:
        """The table as the solvers take it."""
        return Instance(self.table, self.qi, Model(k=self.k, l=self.l, t=self.t, sensitive=self.sensitive,
                                                   ground=self.ground, order=self.order))


def t_closeness_from_k_anonymity(table: pd.DataFrame, qi, k, *, optimum=None, sensitive="s") -> HardInstance:
    """Liang-Yuan Lemma 1: the table's quasi-identifiers with a sensitive
    column of n distinct values, t = 1 - k/n on the equal-distance ground.

    A group of r rows is then at EMD 1 - r/n from the table, so it is
    t-close exactly when r >= k: the t-closeness partitions are the
    k-anonymous ones, and the optimum is the k-anonymity instance's
    (``optimum``, when known)."""
    qi, k, n = list(qi), check_k(k), len(table)
    if sensitive in qi:
        raise ParameterError(f"the sensitive column {sensitive!r} is a quasi-identifier")
    if k > n:
        raise ParameterError(f"k={k} is larger than the table ({plural(n, 'row')})")
    out = table[qi].reset_index(drop=True)
    out[sensitive] = [str(i) for i in range(n)]
    return HardInstance(out, qi, sensitive, t=1 - k / n, optimum=optimum,
                        note=f"Liang-Yuan Lemma 1: {k}-anonymity as t = 1 - {k}/{n}, same optimum")


def half_anonymity_from_bisection(graph) -> HardInstance:
    """Liang-Yuan Theorem 3: (n/2)-anonymity from minimum bisection.

    A row per vertex, a column per edge: row i holds i (1-based) in the
    columns of its edges and 0 elsewhere. An (n/2)-anonymous partition is
    the whole table (cost n|E|) or two halves; a half pays a star per row for
    every edge with an endpoint in it, so halves V1, V2 cost n(|E| + |E12|)/2
    (Equation 2) and the optimum is n(|E| + OPT_bisection)/2, with
    OPT_bisection found here by trying every bisection."""
    nodes, edges = list(graph.nodes), list(graph.edges)
    n, m = len(nodes), len(edges)
    if n < 4 or n % 2:
        raise ParameterError(f"Theorem 3 needs an even number of vertices >= 4, got {n}")
    if m == 0:
        raise ParameterError("the graph has no edges: the table would have no columns")
    index = {v: i for i, v in enumerate(nodes)}
    ends = np.array([[index[u], index[v]] for u, v in edges])
    codes = np.zeros((n, m), dtype=np.int64)
    for j in range(2):
        codes[ends[:, j], np.arange(m)] = ends[:, j] + 1
    cut = _min_bisection(n, ends)
    return HardInstance(_table(codes, "e"), [f"e{j}" for j in range(m)], None, k=n // 2,
                        optimum=n * (m + cut) // 2,
                        note=f"Liang-Yuan Theorem 3: n(|E| + OPT_bisection)/2 = {n}({m} + {cut})/2")


def three_dm_yes_instance(n: int, extra: int = 0, seed=None) -> list:
    """A 3-dimensional matching instance over X = Y = Z = range(n) with a
    perfect matching: n triples matching x to random y and z, plus ``extra``
    other distinct random triples, in random order."""
    if n < 1 or extra < 0 or n + extra > n ** 3:
        raise ParameterError(f"need n >= 1 and 0 <= extra <= n^3 - n, got n={n}, extra={extra}")
    rng = np.random.default_rng(seed)
    triples = set(zip(range(n), rng.permutation(n).tolist(), rng.permutation(n).tolist()))
    chosen = list(triples)
    for code in rng.permutation(n ** 3).tolist():
        if len(chosen) == n + extra:
            break
        e = (code // (n * n), code // n % n, code % n)
        if e not in triples:
            chosen.append(e)
    return [chosen[i] for i in rng.permutation(len(chosen))]


def t_closeness_from_3dm(triples, n: int, t: float = 0.0) -> HardInstance:
    """Liang-Yuan Theorems 6 (0 <= t < 1/3) and 7 (1/3 <= t < 1/2):
    t-closeness from 3-dimensional matching on X, Y, Z = range(n), triples
    (x, y, z), m of them.

    A row per element (X, then Y, then Z), a column per triple: row i holds
    0 in the columns of its triples and i (1-based) elsewhere; the sensitive
    value is 1, 2 or 3 for X, Y or Z. Theorem 6: equal-distance ground,
    |Sigma_s| = 3. Theorem 7 adds 3n/(1-2t) - 3n rows (which must be a whole
    number) of value 4, holding their own row number everywhere, on the
    ground where 4 is at 1/2 from 1, 2 and 3 (``STAR_GROUND``).

    Groups of fewer than 3 elements are not t-close; a group pays a star in
    every column (m per row) unless it is exactly a triple's elements (m - 1)
    or a single new row (0); the n triples of a perfect matching are t-close,
    and so are the elements left by any matching, together. So the optimum
    is 3nm - 3 nu, nu the largest matching (found here by search): the
    papers' 3n(m - 1) for yes-instances, more otherwise. Triples must be
    distinct (two equal triples would keep two columns)."""
    triples = [tuple(int(v) for v in e) for e in triples]
    m = len(triples)
    if n < 1 or m == 0:
        raise ParameterError(f"need n >= 1 and at least one triple, got n={n}, {m} triples")
    if any(len(e) != 3 or not all(0 <= v < n for v in e) for e in triples) or len(set(triples)) < m:
        raise ParameterError(f"triples must be distinct (x, y, z) with entries in range({n})")
    if not 0 <= t < 0.5:
        raise ParameterError(f"Theorems 6 and 7 take 0 <= t < 1/2, got t={t}")
    codes = np.repeat(np.arange(1, 3 * n + 1)[:, None], m, axis=1)
    for j, (x, y, z) in enumerate(triples):
        codes[[x, n + y, 2 * n + z], j] = 0
    values = np.repeat(["1", "2", "3"], n).tolist()
    ground, order, theorem = "equal", None, 6
    if t >= 1 / 3:
        rows = 3 * n / (1 - 2 * t)
        if abs(rows - round(rows)) > 1e-9:
            raise ParameterError(f"Theorem 7 needs 3n/(1-2t) rows, a whole number; got {rows:g}")
        new = np.arange(3 * n + 1, round(rows) + 1)
        codes = np.vstack([codes, np.repeat(new[:, None], m, axis=1)])
        values += ["4"] * new.size
        ground, order, theorem = STAR_GROUND, ["1", "2", "3", "4"], 7
    table = _table(codes, "e")
    table["s"] = values
    nu = _max_3d_matching(triples, n)
    return HardInstance(table, [f"e{j}" for j in range(m)], "s", t=t, ground=ground, order=order,
                        optimum=3 * n * m - 3 * nu,
                        note=f"Liang-Yuan Theorem {theorem}: 3nm - 3 nu = 3*{n}*{m} - 3*{nu}")


def triangles_and_stars_graph(triangles: int, stars: int, vertices: int, seed=None) -> nx.Graph:
    """A graph on range(vertices) whose edges split into ``triangles``
    triangles and ``stars`` 4-stars (three edges at a common vertex), placed
    at random on unused edges."""
    if vertices < 4 or min(triangles, stars) < 0 or triangles + stars == 0:
        raise ParameterError("need >= 4 vertices and at least one triangle or star")
    rng = np.random.default_rng(seed)
    graph = nx.empty_graph(vertices)
    for kind in rng.permutation(["triangle"] * triangles + ["star"] * stars).tolist():
        for _ in range(1000):
            a, b, c, d = rng.choice(vertices, 4, replace=False).tolist()
            block = [(a, b), (b, c), (a, c)] if kind == "triangle" else [(a, b), (a, c), (a, d)]
            if not any(graph.has_edge(*e) for e in block):
                graph.add_edges_from(block)
                break
        else:
            raise ParameterError(f"no room for {triangles} triangles and {stars} stars on {vertices} vertices")
    return graph


def binary_3_anonymity_from_graph(graph) -> HardInstance:
    """Blocki-Williams Section 5 (Aggarwal et al.'s reduction, their Appendix C):
    binary 3-anonymity from edge partition into triangles and 4-stars.

    A row per edge, a column per vertex: 1 at the edge's two ends, 0
    elsewhere. Three distinct edges leave >= 3 vertices touched by some but
    not all of them, exactly 3 for a triangle or a 4-star; bigger groups
    leave more; so every row pays >= 3 stars, and the optimum is 3|E|
    exactly when the edges split into triangles and 4-stars (Lemma 6). That
    is decided here by search; otherwise the optimum exceeds 3|E| and is
    left None. The graph must be simple."""
    if graph.is_directed() or graph.is_multigraph() or nx.number_of_selfloops(graph):
        raise ParameterError("the reduction takes a simple undirected graph")
    nodes, edges = list(graph.nodes), list(graph.edges)
    if len(edges) < 3:
        raise ParameterError("3-anonymity needs at least 3 edges (rows)")
    index = {v: i for i, v in enumerate(nodes)}
    codes = np.zeros((len(edges), len(nodes)), dtype=np.int64)
    for i, (u, v) in enumerate(edges):
        codes[i, [index[u], index[v]]] = 1
    splits = _splits_into_triangles_and_stars(graph)
    return HardInstance(_table(codes, "v"), [f"v{j}" for j in range(len(nodes))], None, k=3,
                        optimum=3 * len(edges) if splits else None,
                        note="Blocki-Williams Lemma 6: " + (f"3|E| = 3*{len(edges)}" if splits else
                                                            "no split into triangles and 4-stars: > 3|E|"))


def _table(codes: np.ndarray, prefix: str) -> pd.DataFrame:
    return pd.DataFrame(codes.astype(str), columns=[f"{prefix}{j}" for j in range(codes.shape[1])])


def _min_bisection(n: int, ends: np.ndarray) -> int:
    """The fewest edges (rows of ``ends``) between two halves of range(n), over
    every bisection (vertex 0 on the first side)."""
    rest = np.array(list(combinations(range(1, n), n // 2 - 1)))
    side = np.zeros((len(rest), n), dtype=bool)
    side[:, 0] = True
    side[np.arange(len(rest))[:, None], rest] = True
    return int((side[:, ends[:, 0]] != side[:, ends[:, 1]]).sum(axis=1).min())


def _max_3d_matching(triples: list, n: int) -> int:
    """The most pairwise disjoint triples, by trying every matching."""
    best = 0

    def extend(start, used, size):
        nonlocal best
        best = max(best, size)
        for j in range(start, len(triples)):
            if best == n:
                return
            cells = {(axis, v) for axis, v in enumerate(triples[j])}
            if not cells & used:
                extend(j + 1, used | cells, size + 1)

    extend(0, frozenset(), 0)
    return best


def _splits_into_triangles_and_stars(graph) -> bool:
    """Whether the edges split into triangles and 4-stars: cover the first
    edge left in every way, backtracking."""
    left = {frozenset(e) for e in graph.edges}
    order = {v: i for i, v in enumerate(graph.nodes)}

    def blocks(u, v):
        near = {x: {w for w in graph[x] if frozenset((x, w)) in left} for x in (u, v)}
        for w in near[u] & near[v]:
            yield [(u, v), (u, w), (v, w)]
        for center, leaf in ((u, v), (v, u)):
            for a, b in combinations(sorted(near[center] - {leaf}, key=order.get), 2):
                yield [(center, leaf), (center, a), (center, b)]

    def solve():
        if not left:
            return True
        u, v = min(left, key=lambda e: sorted(order[x] for x in e))
        for block in blocks(u, v):
            block = {frozenset(e) for e in block}
            left.difference_update(block)
            if solve():
                return True
            left.update(block)
        return False

    return solve()
