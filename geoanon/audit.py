"""Measure a released table as it is: the equivalence classes its quasi-identifier
columns form, and whether they reach a requested k.

The audit looks only at the released columns, never at how they were made, so
it independently checks every generalizing job before anything is written.
Missing values are values like any other: rows with a missing quasi-identifier
form classes of their own and are never dropped.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from .errors import AuditError, DataError

SUPPRESSED = "*"


def class_codes(df: pd.DataFrame, qi: Sequence[str]) -> np.ndarray:
    """Dense equivalence-class id of every row: rows agreeing on all of ``qi``
    share an id. Vectorized: one factorization per column."""
    missing = [c for c in qi if c not in df.columns]
    if missing:
        raise DataError(f"no column {missing[0]!r} in the table")
    codes = np.zeros(len(df), dtype=np.int64)
    for col in qi:
        c, uniques = pd.factorize(df[col], use_na_sentinel=False)
        codes = pd.factorize(codes * (len(uniques) + 1) + c)[0]
    return codes


def audit(df: pd.DataFrame, qi: Sequence[str]) -> dict:
    """Measure the k-anonymity of ``df`` over the quasi-identifiers ``qi``.

    Returns a dict: ``rows``, ``k`` (smallest class), ``classes``,
    ``class_sizes`` (min, median, max over classes) and ``suppressed_cells``
    (cells equal to ``"*"`` in ``qi``).
    """
    qi = list(qi)
    codes = class_codes(df, qi)
    if codes.size == 0:
        return {"rows": 0, "k": 0, "classes": 0, "class_sizes": None, "suppressed_cells": 0}
    counts = np.bincount(codes)
    suppressed = int(sum((df[c].astype(object) == SUPPRESSED).sum() for c in qi))
    return {
        "rows": int(len(df)),
        "k": int(counts.min()),
        "classes": int(counts.size),
        "class_sizes": {"min": int(counts.min()), "median": float(np.median(counts)), "max": int(counts.max())},
        "suppressed_cells": suppressed,
    }


def require_k(df: pd.DataFrame, qi: Sequence[str], k: int) -> dict:
    """Audit ``df`` and refuse (AuditError) if any class is smaller than k."""
    report = audit(df, qi)
    if report["rows"] and report["k"] < k:
        codes = class_codes(df, list(qi))
        bad = int(np.count_nonzero(np.bincount(codes)[codes] < k))
        raise AuditError(f"refusing to release: {bad} rows are in classes smaller than k={k} "
                         f"(smallest class {report['k']}) over columns {', '.join(qi)}")
    return report
