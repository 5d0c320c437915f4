"""Published text cells that cannot start a spreadsheet formula.

OWASP's advice on CSV injection: a cell starting with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return may be run as a formula when the file is
opened in a spreadsheet; prefixing a single quote makes the spreadsheet show
it as text. Plain numbers (``-74.5``, ``+3``) are left alone: a spreadsheet
reads them as numbers, and they cannot carry a formula.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"


def escape_formulas(values: pd.Series) -> pd.Series:
    """``values`` with every text cell that could start a formula prefixed by
    ``'``; other cells (numbers, missing values, safe text) unchanged."""
    if not (pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values)):
        return values
    is_text = values.map(lambda v: isinstance(v, str)).to_numpy(dtype=bool)
    if not is_text.any():
        return values
    text = values[is_text].astype(str)
    risky = text.str.startswith(FORMULA_START) & ~text.str.fullmatch(_NUMBER)
    if not risky.any():
        return values
    out = values.astype(object).copy()
    where = np.flatnonzero(is_text)[risky.to_numpy()]
    out.iloc[where] = "'" + text[risky].to_numpy(dtype=object)
    return out


def escape_table(df: pd.DataFrame, columns=None) -> pd.DataFrame:
    """``df`` with :func:`escape_formulas` applied to ``columns`` (default: all)."""
    out = df.copy()
    for col in (df.columns if columns is None else columns):
        out[col] = escape_formulas(df[col])
    return out
