"""Which suppression solver runs on an instance, and the answer kept: the
dispatch behind :func:`geoanon.suppress` (no tables, no I/O: an
:class:`~geoanon.tables.Instance` in, row classes and their proof out)."""
from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from .._milp import TIME_LIMIT_STATUS
from ..errors import VerificationError
from ..progress import stepped
from .approx import m_approximation
from .exact import EXACT_ROWS, exact_small
from .instance import Instance
from .lattice import lattice
from .matching import MAX_GROUPS, matching_program
from .milp import MAX_COLUMNS, optimal_suppression

__all__ = ["METHODS", "SOLVERS", "choose", "solve"]
MILP_MAX_VARIABLES = 300_000      # auto uses Theorem 9's program up to this many x variables


def choose(inst: Instance, method: str) -> str:
    """The solver ``"auto"`` stands for on this instance (see :func:`suppress`)."""
    if method != "auto":
        return method
    lv = inst.model
    if inst.n <= EXACT_ROWS:
        return "exact"
    entries = inst.entries[0].size
    two_anonymity = lv.k == 2 and not lv.needs_sensitive
    two_diversity = lv.l == 2 and lv.k <= 2 and lv.l_distinct is None and lv.t is None and not lv.on_distribution
    if (two_anonymity or two_diversity) and entries * (entries + 1) * (entries + 2) // 6 <= MAX_GROUPS:
        return "matching"
    program_ok = (lv.t is None or isinstance(inst.ground, str)) and not lv.on_distribution
    if inst.m <= MAX_COLUMNS and entries * 2 ** inst.m <= MILP_MAX_VARIABLES and program_ok:
        return "milp"
    return "lattice"


@stepped("solving: {1}")
def solve(inst: Instance, method: str, deadline: float) -> dict:
    """Run ``method``; for k alone also Theorem 10 and keep the cheaper; a
    program gets the time left before ``deadline``. Returns the grouping,
    cost, patterns, method used, optimality, lower bound and warnings. A
    program's answer is optimal only with a certificate, HiGHS' dual bound b
    meeting its cost (ceil(b - 1e-6) >= cost), never by HiGHS' status alone;
    b raises the lower bound, and a time limit that stopped the program is
    named in the warnings."""
    own_bound = inst.lower_bound()
    candidates = {} if inst.model.needs_sensitive else {"approx": m_approximation(inst.type_size, inst.model.k)}
    costs = {}
    run = SOLVERS[method](inst, deadline, candidates, costs)
    _cost_new_candidates(inst, candidates, costs)
    bound, optimal, result = own_bound, run.optimal, run.result
    if result is not None and np.isfinite(result.bound):   # none when HiGHS stopped before its first LP
        bound = max(bound, int(np.ceil(result.bound - 1e-6)))
    if "approx" in costs and costs["approx"][0] > inst.m * own_bound:
        raise VerificationError(f"Theorem 10's bound fails: cost {costs['approx'][0]} > m * {own_bound}")
    used = min(costs, key=lambda name: (costs[name][0], name != method))
    cost, patterns = costs[used]
    if optimal and cost < costs[method][0]:
        raise VerificationError("a heuristic beat a proven optimum")
    optimal = optimal or cost == bound
    bound = cost if optimal else bound
    warnings = []
    if run.program and not optimal:
        why = (f"was skipped: {result.skipped}" if getattr(result, "skipped", None) else
               "stopped at the time limit" if result.status == TIME_LIMIT_STATUS else f"ended: {result.status}")
        warnings.append(f"{run.program} {why}; released the {used} answer, not proven optimal "
                        f"(gap {(cost - bound) / cost:.1%} to the lower bound)")
    candidates[used].verify(inst.entries[2], inst.model.k)
    return {"grouping": candidates[used], "cost": cost, "patterns": patterns, "method": used, "solver": method,
            "optimal": optimal, "bound": bound, "tried": {name: value[0] for name, value in costs.items()},
            "warnings": warnings, **run.extra}


def _cost_new_candidates(inst: Instance, candidates: dict, costs: dict) -> None:
    """Cost (stars, patterns) of every candidate not costed yet, in order."""
    for name, grouping in candidates.items():
        if name not in costs:
            costs[name] = inst.cost(grouping)


@dataclass
class _Run:
    """What a solver proved besides the groupings it added: ``optimal``
    (certified), and for a program its ``result`` (its dual bound raises the
    lower bound) and the ``program``'s name for the warnings when it is not
    proven optimal; ``extra``: more figures for the report."""

    optimal: bool = False
    result: object = None
    program: str = ""
    extra: dict = field(default_factory=dict)


# -- the solvers: one function each, (instance, deadline, candidates, their costs) -> _Run -------------
# Each adds its grouping(s) to ``candidates`` (which holds Theorem 10's answer already for k alone);
# :func:`solve` costs the ones a solver left uncosted.

def _exact(inst, deadline, candidates, costs) -> _Run:
    """Exhaustive search on at most ``EXACT_ROWS`` rows: optimal."""
    candidates["exact"] = exact_small(inst)
    return _Run(optimal=True)


def _milp(inst, deadline, candidates, costs) -> _Run:
    """Theorem 9's program (HiGHS), started from the lattice answer: optimal
    only with its certificate. It stops early enough to place and cost its
    answer (about twice a heuristic's costing)."""
    candidates["lattice"] = lattice(inst)
    costing = time.perf_counter()
    _cost_new_candidates(inst, candidates, costs)
    reserve = 2 * (time.perf_counter() - costing) / len(candidates)
    result = optimal_suppression(inst, time_limit=deadline - time.perf_counter() - reserve)
    if result.grouping is not None:
        candidates["milp"] = result.grouping
        costs["milp"] = inst.cost(result.grouping)
    return _Run(optimal=result.optimal, result=result, program="Theorem 9's program", extra={"program": (
        {"skipped": result.skipped} if result.skipped else
        {"variables": result.variables, "integer_variables": result.integer_variables,
         "constraints": result.constraints, "nonzeros": result.nonzeros, "rows_after_kernel": result.kernel_rows,
         "status": result.status, "seconds": round(result.seconds, 3)})})


def _matching(inst, deadline, candidates, costs) -> _Run:
    """The matching program over classes of 2 or 3 rows (2-anonymity,
    2-diversity): optimal only with its certificate."""
    result = matching_program(inst, time_limit=deadline - time.perf_counter())
    candidates["matching"] = result.grouping
    return _Run(optimal=result.optimal, result=result, program="the matching program")


def _lattice(inst, deadline, candidates, costs) -> _Run:
    """The lattice heuristic (:mod:`.lattice`): no proof of optimality."""
    candidates["lattice"] = lattice(inst)
    return _Run()


def _approx(inst, deadline, candidates, costs) -> _Run:
    """Theorem 10 alone: at most m times the lower bound (k-anonymity only)."""
    if "approx" not in candidates:
        candidates["approx"] = m_approximation(inst.type_size, inst.model.k)
    return _Run()


SOLVERS = {"exact": _exact, "milp": _milp, "matching": _matching, "lattice": _lattice, "approx": _approx}
METHODS = ("auto", *SOLVERS)           # what ``method`` is checked against ("auto": :func:`choose`), in the
                                       # order of choices.SUPPRESS_METHODS
