"""The suppression model for the other quasi-identifiers: one entry point."""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .._validation import check_choice, check_k
from ..audit import SUPPRESSED, _requested, require
from ..errors import DataError, ParameterError, VerificationError
from ..pipeline.release import Release
from .approx import m_approximation
from .instance import Instance, Levels
from .lattice import lattice

METHODS = ("lattice", "approx")


def suppress(df: pd.DataFrame, qi, *, k=1, l=None, l_distinct=None, t=None, sensitive=None, ground="equal",
             order=None, method="lattice") -> Release:
    """Generalize the quasi-identifiers ``qi`` of ``df`` by suppression: each
    class shows a column's value where its rows agree and ``*`` where they
    differ, every class meets the requested model, and the number of ``*``
    (the cost) is kept small.

    Parameters
    ----------
    df : DataFrame
    qi : list of str
    k : int
        Every class holds >= k rows.
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
    method : {"lattice", "approx"}
        ``"approx"``: Liang-Yuan Theorem 10, cost <= m * OPT (k-anonymity
        only; the bound is asserted against the lower bound its proof gives).
        ``"lattice"`` (default): :mod:`geoanon.tables.lattice` for any model;
        for k-anonymity alone the cheaper of it and Theorem 10, so the factor
        m holds too.

    Returns
    -------
    Release
        ``table``: every row and column, ``qi`` suppressed, ``class_id`` last;
        ``classes``: one row per class (its published values, size, stars);
        ``report``: rows, classes, cost, lower_bound, gap, optimal, method, the
        audit of the released table, seconds. Nothing is returned unless the
        audit of the released table (quasi-identifiers and class_id) passes.
    """
    started = time.perf_counter()
    k = check_k(k)
    method = check_choice("method", method, METHODS)
    _requested(l=l, l_distinct=l_distinct, t=t)
    qi = list(qi)
    if len(set(qi)) != len(qi):
        raise ParameterError("a quasi-identifier column is listed twice")
    if sensitive is not None and sensitive in qi:
        raise ParameterError(f"the sensitive column {sensitive!r} cannot also be a quasi-identifier")
    if "class_id" in df.columns:
        raise DataError("the output column 'class_id' already exists in the input")
    levels = Levels(k=k, l=l, l_distinct=l_distinct, t=t)
    if method == "approx" and levels.needs_sensitive:
        raise ParameterError("method='approx' (Theorem 10) is for k-anonymity only; use method='lattice' for l and t")
    inst = Instance(df, qi, levels, sensitive=sensitive, ground=ground, order=order)
    inst.check_feasible()
    bound = inst.lower_bound()

    tried = {}
    if method == "approx" or not levels.needs_sensitive:
        approx = m_approximation(inst.type_of_row, inst.type_size, k)
        tried["approx"] = (approx, *inst.cost(approx))
        if tried["approx"][1] > inst.m * bound:
            raise VerificationError(f"Theorem 10's bound fails: cost {tried['approx'][1]} > m * {bound}")
    if method == "lattice":
        rows = lattice(inst)
        tried["lattice"] = (rows, *inst.cost(rows))
    used = min(tried, key=lambda name: (tried[name][1], name != method))
    row_class, cost, patterns = tried[used]

    table = df.copy()
    for j, col in enumerate(qi):
        starred = patterns[row_class, j] < 0
        table[col] = df[col].astype(object).where(~starred, SUPPRESSED)
    table["class_id"] = row_class
    audit = require(table, [*qi, "class_id"], k=k, sensitive=sensitive, l=l, l_distinct=l_distinct, t=t,
                    ground=ground, order=order)
    sizes = np.bincount(row_class)
    first = np.unique(row_class, return_index=True)[1]
    classes = table.iloc[first][qi].reset_index(drop=True)
    classes.insert(0, "class_id", np.arange(sizes.size))
    classes["size"] = sizes
    classes["stars"] = (patterns < 0).sum(axis=1)
    report = {
        "rows": inst.n,
        "qi": qi,
        "sensitive": sensitive,
        **levels.as_dict(),
        "method": method if used == method else f"{method} (Theorem 10 was cheaper)",
        "classes": int(sizes.size),
        "min_class": int(sizes.min()),
        "max_class": int(sizes.max()),
        "cost": cost,
        "lower_bound": bound,
        "gap": 0.0 if cost == 0 else round((cost - bound) / cost, 6),
        "optimal": cost == bound,
        "costs_tried": {name: value[1] for name, value in tried.items()},
        "types": int(inst.type_size.size),
        "audit": audit,
        "seconds": round(time.perf_counter() - started, 3),
    }
    return Release(table=table, partition=None, report=report, classes=classes)
