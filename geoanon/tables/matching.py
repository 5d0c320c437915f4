"""The polynomial special cases: 2-anonymity (Blocki and Williams, Theorem 1)
and 2-diversity (Liang and Yuan, Lemma 2 and Theorem 11).

Some optimal solution uses classes of 2 or 3 rows only (larger classes split
without adding stars; for 2-diversity, into rows of distinct sensitive
values), and the costs satisfy the simplex condition c(u, v) + c(v, w) +
c(u, w) <= 2 c(u, v, w), so the problem is a minimum-cost perfect simplex
matching. We solve it as a set partitioning program over the pairs and triples
of distinct *entries* (rows identical on the quasi-identifiers, and on the
sensitive value for 2-diversity), an integer count per group, with HiGHS:
exact, and small when rows repeat. For 2-anonymity, rows of one type pair
among themselves at no cost, so only the entries' multiplicities matter.
Costs are whole stars, so an answer is proven optimal only when HiGHS' dual
bound b meets its cost: ceil(b - 1e-6) >= cost (:func:`geoanon._milp.certified`).
"""
from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, combinations_with_replacement

import numpy as np

from .._milp import certified, no_solution, solve_highs
from ..errors import ParameterError
from .grouping import Grouping
from .instance import Instance

__all__ = ["MAX_GROUPS", "matching_program", "simplex_matching"]

MAX_GROUPS = 400_000


@dataclass
class MatchingResult:
    grouping: Grouping
    objective: int                 # stars of the grouping's classes
    bound: float                   # HiGHS' dual (lower) bound on the optimum; -inf when it has none
    optimal: bool                  # certified: ceil(bound - 1e-6) >= objective
    status: str                    # HiGHS' status ("Time limit reached" when stopped by the time limit)


def simplex_matching(inst: Instance, *, time_limit: float = 60.0):
    """Optimal 2-anonymity (k = 2 alone) or 2-diversity (l = 2 alone, Liang-Yuan's
    definition); returns (the :class:`Grouping`, proven optimal: certified by
    HiGHS' dual bound, see :func:`matching_program`)."""
    result = matching_program(inst, time_limit=time_limit)
    return result.grouping, result.optimal


def matching_program(inst: Instance, *, time_limit: float = 60.0) -> MatchingResult:
    """The matching program of :func:`simplex_matching` solved for at most
    ``time_limit`` seconds: its grouping, cost, dual bound, whether the bound
    certifies the cost, and HiGHS' status. A time limit that stops HiGHS with
    a solution returns it, not proven optimal; with none, ParameterError says
    the time limit was reached."""
    lv = inst.model
    diversity = lv.l is not None
    if not (lv.k == 2 and not lv.needs_sensitive) and not (diversity and lv.l == 2 and lv.k <= 2
                                                           and lv.l_distinct is None and lv.t is None
                                                           and not lv.on_distribution):
        raise ParameterError("the matching solver is for 2-anonymity or 2-diversity alone")
    types, values, rows = inst.entries
    n = types.size
    if n * (n + 1) * (n + 2) // 6 > MAX_GROUPS:            # triples with repetition, before listing any
        raise ParameterError(f"{n} distinct rows give too many candidate pairs and triples for the matching "
                             f"solver (at most {MAX_GROUPS:,}); use method='milp' or method='lattice'")
    codes = inst.type_codes[types]
    groups = _groups(n, values if diversity else None, rows)
    cost = np.array([group_cost(codes, g) for g in groups], dtype=float)
    from scipy.sparse import coo_matrix

    r = np.concatenate([np.asarray(g) for g in groups])
    c = np.repeat(np.arange(len(groups)), [len(g) for g in groups])
    matrix = coo_matrix((np.ones(r.size), (r, c)), shape=(types.size, len(groups)))   # duplicates add up
    x, _, bound, _, status = solve_highs(cost, matrix, rows.astype(float), rows.astype(float),
                                         np.full(len(groups), float(rows.max())), np.ones(len(groups)),
                                         time_limit=time_limit)
    if x is None:
        raise ParameterError(no_solution("the matching solver", status, time_limit))
    counts = np.rint(x).astype(np.int64)
    objective = int(np.dot(cost, counts))
    return MatchingResult(grouping=_assign(inst, types.size, groups, counts), objective=objective, bound=bound,
                          optimal=certified(objective, bound), status=status)


def group_cost(codes: np.ndarray, group) -> int:
    """Stars of a class made of one row of each entry in ``group``."""
    rows = codes[list(group)]
    return len(group) * int((rows != rows[0]).any(axis=0).sum())


def _groups(n_entries, values, rows):
    """The candidate classes as tuples of entries: pairs and triples (an entry
    repeated as often as it has rows); for 2-diversity, of distinct values."""
    out = []
    for size in (2, 3):
        for g in combinations_with_replacement(range(n_entries), size):
            if values is not None and len({int(values[e]) for e in g}) < size:
                continue
            if any(g.count(e) > rows[e] for e in set(g)):
                continue
            out.append(g)
    return out


def _assign(inst, n_entries, groups, counts) -> Grouping:
    """Entry by entry, rows (in row order) go to the chosen groups in order."""
    slots = [[] for _ in range(n_entries)]                   # per entry: the class of each of its rows
    next_class = 0
    for g, count in zip(groups, counts.tolist()):
        for _ in range(count):
            for e in g:
                slots[e].append(next_class)
            next_class += 1
    return Grouping.from_slots(np.concatenate([np.asarray(c, dtype=np.int64) for c in slots]), inst.entries[2])


def simplex_condition_holds(codes: np.ndarray) -> bool:
    """c(u, v) + c(v, w) + c(u, w) <= 2 c(u, v, w) for every triple of rows."""
    for u, v, w in combinations(range(len(codes)), 3):
        pairs = group_cost(codes, (u, v)) + group_cost(codes, (v, w)) + group_cost(codes, (u, w))
        if pairs > 2 * group_cost(codes, (u, v, w)):
            return False
    return True
