"""A table's coordinate columns as numbers, for the points job and the
joint release's location: parsed, missing cells found, placeholders warned of."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._cells import MISSING_TOKENS, numbers_with_mark
from .._text import plural, show
from .._validation import require_column
from ..errors import DataError

__all__ = ["null_island", "numeric_column", "rows_without_coordinates"]


def numeric_column(df: pd.DataFrame, col: str) -> np.ndarray:
    """Column ``col`` as float64, NaN where missing; DataError naming the first
    value that is neither a number nor a missing marker."""
    require_column(df, col)
    s = df[col]
    if pd.api.types.is_bool_dtype(s):
        raise DataError(f"column {col!r} holds booleans, not coordinates")
    if pd.api.types.is_complex_dtype(s):
        raise DataError(f"column {col!r} holds complex numbers, not coordinates")
    if pd.api.types.is_numeric_dtype(s):
        return s.to_numpy(dtype=np.float64, na_value=np.nan)
    odd = np.flatnonzero([isinstance(v, (bool, np.bool_, complex, np.complexfloating)) for v in s]) \
        if s.dtype == object else np.zeros(0, dtype=np.int64)     # text columns hold no booleans
    if odd.size:
        i = int(odd[0])
        raise DataError(f"column {col!r}, row {show(df.index[i])}: {show(s.iloc[i])} is not a coordinate")
    values = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = [i for i in np.flatnonzero(np.isnan(values))      # only the cells that did not parse
           if not (pd.isna(s.iloc[i]) or (isinstance(s.iloc[i], str) and s.iloc[i].strip().lower() in MISSING_TOKENS))]
    if bad:
        i = bad[0]
        hint = "; it reads as a number with a decimal comma: give decimal=','" if numbers_with_mark(
            s.iloc[bad], ",") else ""
        raise DataError(f"column {col!r}, row {show(df.index[i])}: {show(s.iloc[i])} is not a number{hint}")
    return values


def rows_without_coordinates(df, x, y, missing: str, remedy: str) -> np.ndarray:
    """Which rows lack a coordinate; DataError when some do and ``missing`` is
    "error" (the message ends with what missing='suppress' would do, ``remedy``),
    or when no row has coordinates."""
    absent = np.isnan(x) | np.isnan(y)
    n_absent = int(absent.sum())
    if n_absent and missing == "error":
        i = int(np.flatnonzero(absent)[0])
        raise DataError(f"{plural(n_absent, 'row')} {'has' if n_absent == 1 else 'have'} no coordinates "
                        f"(first: row {show(df.index[i])}); use missing='suppress' to {remedy}")
    if n_absent == len(df):
        raise DataError("no row has coordinates")
    return absent


def null_island(xy: np.ndarray) -> list:
    """A warning about records at exactly (0, 0), a common placeholder for a
    missing location. It counts them and names no row: the report holding it
    is published, and a row named there would be a row whose coordinate it
    states."""
    n = int(np.count_nonzero((xy[:, 0] == 0) & (xy[:, 1] == 0)))
    if n == 0:
        return []
    return [f"{plural(n, 'record')} at exactly (0, 0) (\"Null Island\", a common placeholder for a missing "
            "location); if their location is unknown, blank it and use missing='suppress'"]
