"""The suppression job: a table's quasi-identifiers published as their value
or ``*`` (Liang and Yuan's model), every class within the requested model,
the number of ``*`` provably minimal where the instance allows."""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .._cells import escape_formulas
from .._validation import check_scalar_columns, check_unique_columns
from ..audit import SUPPRESSED, disclosure_warnings, require
from ..errors import DataError
from ..ncp import information_loss, plain_units
from ..progress import stepped
from ..options import release_spec
from ..tables.instance import Instance
from ..tables.solve import choose, solve
from .roles import declared_table, measure_undeclared, undeclared
from ..report.release import JobReport, Release

__all__ = ["solution_details", "suppress", "suppressed_cells"]


@stepped("suppressing cells")
def suppress(df: pd.DataFrame, qi, *, k=None, l=None, l_distinct=None, t=None, sensitive=None, ground="equal",
             order=None, model=None, method="auto", time_limit=60.0, keep=None, identifiers=None,
             strict=True) -> Release:
    """Generalize the quasi-identifiers ``qi`` of ``df`` by suppression: each
    class shows a column's value where its rows agree and ``*`` where they
    differ, every class meets the requested model, and the number of ``*``
    (the cost) is kept small, provably minimal where the instance allows.

    Parameters
    ----------
    df : DataFrame
    qi : list of str
    k : int, optional
        Every class holds >= k rows (1 when only l, l_distinct or t is
        given; at least one of the four is required).
    l : float, optional
        l-diversity as Liang and Yuan define it: no sensitive value fills more
        than 1/l of a class.
    l_distinct : int, optional
        Distinct l-diversity: every class holds >= l_distinct sensitive values.
    t : float, optional
        t-closeness: every class's sensitive distribution is within EMD t of
        the table's, under ``ground`` (see :func:`geoanon.audit`).
    sensitive : str, optional
        The sensitive column (needed for l, l_distinct and t).
    ground, order
        The EMD's ground distance and the value order; see :func:`geoanon.audit`.
    method : {"auto", "exact", "milp", "matching", "lattice", "approx"}
        ``"exact"``: the recursion of Liang-Yuan Theorem 8 over all subsets
        (tables of at most 16 rows; optimal).
        ``"milp"``: Liang-Yuan Theorem 9's program over row types and
        suppression patterns after Blocki-Williams kernelization, within
        ``time_limit``, next to the lattice heuristic (optimal when the
        solver proves it, else the better of the two and the gap to the bound).
        ``"matching"``: 2-anonymity or 2-diversity alone as a simplex matching
        (Blocki-Williams Theorem 1, Liang-Yuan Theorem 11; optimal).
        ``"lattice"``: :mod:`geoanon.tables.lattice`, any model, any size.
        ``"approx"``: Liang-Yuan Theorem 10, cost <= m * OPT (k only; the bound
        is asserted against the lower bound its proof gives).
        ``"auto"`` (default): exact for small tables, else matching for 2-anonymity
        and 2-diversity, else the program when it is small enough (at most
        300,000 pattern variables, grounds equal or ordered), else lattice.
        For k-anonymity alone the cheaper of the result and Theorem 10 is kept,
        so the factor m always holds.
    time_limit : float
        Seconds for the whole call when it runs a program (``"milp"``,
        ``"matching"``, and ``"auto"`` when it picks one of them): counted
        from the start, so the heuristic run next to the program and building
        the program count too. HiGHS gets the time left and is stopped at the
        deadline, keeping its best answer so far. A program whose estimated
        memory exceeds 2 GiB, or that would take more than half the time left
        to build, is skipped, and one the deadline cuts while it is built is
        dropped; the heuristic's answer is then released, with a line in
        ``warnings`` and ``report["program"]["skipped"]`` saying why. A proven
        optimum, and every method without a program, is the same on every
        run; an answer the time limit cut short (or a program skipped for
        time) depends on the machine's speed.
    keep, identifiers, strict
        Columns published as they are, and columns dropped. Any other
        column without a role is refused (UndeclaredColumnsError), or, with
        ``strict=False``, published as it is, with a warning and the records
        it singles out in the report (``undeclared``; :mod:`geoanon.pipeline.roles`).

    Returns
    -------
    Release
        ``table``: every row and column, ``qi`` suppressed, ``class_id`` last;
        ``classes``: one row per class (its published values, size, stars);
        ``report``: rows, classes, cost, lower_bound, gap, optimal, method
        (the one used), the audit of the released table, seconds, warnings.
        Published text cells that could start a spreadsheet formula get a
        leading ``'`` (quasi-identifier columns of ``table`` and ``classes``;
        the others are untouched). Nothing is returned unless the audit of
        the released table (quasi-identifiers and class_id) passes.

    Examples
    --------
    >>> import pandas as pd
    >>> import geoanon as ga
    >>> df = pd.DataFrame({"age": ["30-39"] * 3 + ["40-49"] * 3,
    ...                    "sex": ["F", "M", "F", "M", "M", "F"],
    ...                    "zip": ["27701", "27701", "27705", "27705", "27705", "27705"]})
    >>> release = ga.suppress(df, ["age", "sex", "zip"], k=3)
    >>> release.classes
       class_id    age sex    zip  size  stars
    0         0  30-39   *      *     3      2
    1         1  40-49   *  27705     3      1
    >>> release.report["cost"], release.report["optimal"]     # nine stars, the fewest possible
    (9, True)
    """
    started = time.perf_counter()
    spec = release_spec("suppress", qi=qi, k=k, l=l, l_distinct=l_distinct, t=t, sensitive=sensitive, ground=ground,
                        order=order, model=model, method=method, time_limit=time_limit, keep=keep,
                        identifiers=identifiers, strict=strict)
    qi, model, method = list(spec.columns.qi), spec.model, spec["method"]
    check_unique_columns(df)
    df, keep = declared_table(df, spec.columns.identifiers, spec.columns.keep)
    sensitive = model.sensitive
    loose = undeclared(df, [*qi, *([sensitive] if sensitive is not None else [])], keep, strict=strict)
    check_scalar_columns(df, [*qi, sensitive])
    deadline = started + spec["time_limit"]
    if "class_id" in df.columns:
        raise DataError("the output column 'class_id' already exists in the input")
    inst = Instance(df, qi, model)
    inst.check_feasible()
    solution = solve(inst, choose(inst, method), deadline)
    row_class, patterns = inst.row_classes(inst.canonical(solution["grouping"]))
    table = df.copy()
    for j, col in enumerate(qi):
        starred = patterns[row_class, j] < 0
        table[col] = suppressed_cells(df[col], starred)
    table["class_id"] = row_class
    audit = require(table, [*qi, "class_id"], model=model)
    solution["warnings"] += disclosure_warnings(audit, model)
    treatments = {col: ("suppress", col) for col in qi}
    sizes = np.bincount(row_class)
    first = np.unique(row_class, return_index=True)[1]
    classes = table.iloc[first][qi].reset_index(drop=True)
    classes.insert(0, "class_id", np.arange(sizes.size))
    classes["size"] = sizes
    classes["stars"] = (patterns < 0).sum(axis=1)
    report = JobReport(
        job="suppress", rows=inst.n, model=model.as_dict(), classes=int(sizes.size), min_class=int(sizes.min()),
        max_class=int(sizes.max()), audit=audit, seconds=round(time.perf_counter() - started, 3),
        details={**solution_details(qi, solution, method, inst), "ncp": information_loss(df, table, treatments),
                 "units": plain_units(df, table, treatments),
                 **measure_undeclared(table, loose, model.k, solution["warnings"])},
        lead=("rows", "qi", "sensitive", "k", "l", "l_distinct", "t", "method", "requested_method", "solver"))
    return Release(table=table, partition=None, report=report, classes=classes, warnings=solution["warnings"],
                   treatments=treatments)


def suppressed_cells(values: pd.Series, starred) -> pd.Series:
    """A quasi-identifier as published: each cell its value, or ``*`` where
    ``starred``, as text (numbers and ``*`` share no other type) that cannot
    start a spreadsheet formula."""
    return escape_formulas(values.astype(object).where(~starred, SUPPRESSED)).astype("string")


def solution_details(qi, solution: dict, method: str, inst: Instance) -> dict:
    """The report's figures of a solver's answer."""
    cost = solution["cost"]
    return {
        "qi": qi,
        "method": solution["method"],
        "requested_method": method,
        "solver": solution["solver"],
        "cost": cost,
        "lower_bound": solution["bound"],
        "gap": 0.0 if cost == 0 else round((cost - solution["bound"]) / cost, 6),
        "optimal": solution["optimal"],
        "costs_tried": solution["tried"],
        **({"program": solution["program"]} if "program" in solution else {}),
        "types": int(inst.type_size.size),
    }
