"""Which suppression solver runs on an instance, and the answer kept: the
dispatch behind :func:`geoanon.suppress` (no tables, no I/O: an
:class:`~geoanon.tables.Instance` in, row classes and their proof out)."""
from __future__ import annotations

import time

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

__all__ = ["choose", "solve"]
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
    bound, optimal, extra = own_bound, False, {}
    candidates = {}
    if method == "approx" or not inst.model.needs_sensitive:
        candidates["approx"] = m_approximation(inst.type_size, inst.model.k)
    if method == "exact":
        candidates["exact"], optimal = exact_small(inst), True
    elif method == "matching":
        result = matching_program(inst, time_limit=deadline - time.perf_counter())
        candidates["matching"], optimal = result.grouping, result.optimal
        if np.isfinite(result.bound):
            bound = max(bound, int(np.ceil(result.bound - 1e-6)))
    elif method in ("milp", "lattice"):
        candidates["lattice"] = lattice(inst)
    costing = time.perf_counter()
    costs = {name: inst.cost(grouping) for name, grouping in candidates.items()}
    if method == "milp":
        # stop the program early enough to place and cost its answer (about twice a heuristic's costing)
        reserve = 2 * (time.perf_counter() - costing) / len(candidates)
        result = optimal_suppression(inst, time_limit=deadline - time.perf_counter() - reserve)
        if result.grouping is not None:
            candidates["milp"] = result.grouping
            costs["milp"] = inst.cost(result.grouping)
        optimal = result.optimal
        if np.isfinite(result.bound):          # HiGHS reports no finite bound when stopped before its first LP
            bound = max(bound, int(np.ceil(result.bound - 1e-6)))
        extra["program"] = ({"skipped": result.skipped} if result.skipped else
                            {"variables": result.variables, "integer_variables": result.integer_variables,
                             "constraints": result.constraints, "nonzeros": result.nonzeros,
                             "rows_after_kernel": result.kernel_rows, "status": result.status,
                             "seconds": round(result.seconds, 3)})
    if "approx" in costs and costs["approx"][0] > inst.m * own_bound:
        raise VerificationError(f"Theorem 10's bound fails: cost {costs['approx'][0]} > m * {own_bound}")
    used = min(costs, key=lambda name: (costs[name][0], name != method))
    cost, patterns = costs[used]
    if optimal and cost < costs[method][0]:
        raise VerificationError("a heuristic beat a proven optimum")
    optimal = optimal or cost == bound
    bound = cost if optimal else bound
    warnings = []
    if method in ("milp", "matching") and not optimal:
        why = (f"was skipped: {result.skipped}" if getattr(result, "skipped", None) else
               "stopped at the time limit" if result.status == TIME_LIMIT_STATUS else f"ended: {result.status}")
        program = "Theorem 9's program" if method == "milp" else "the matching program"
        warnings.append(f"{program} {why}; released the {used} answer, not proven optimal "
                        f"(gap {(cost - bound) / cost:.1%} to the lower bound)")
    candidates[used].check(inst.entries[2])
    return {"grouping": candidates[used], "cost": cost, "patterns": patterns, "method": used, "solver": method,
            "optimal": optimal, "bound": bound, "tried": {name: value[0] for name, value in costs.items()},
            "warnings": warnings, **extra}
