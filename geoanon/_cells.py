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
    ``'``; other cells (numbers, missing values, safe text) unchanged. Each
    distinct value is looked at once."""
    if not (pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values)):
        return values
    codes, uniques = pd.factorize(values)
    text = pd.Series(uniques, dtype=object)
    is_text = text.map(lambda v: isinstance(v, str)).to_numpy(dtype=bool)
    risky = np.zeros(len(text), dtype=bool)
    if is_text.any():
        words = text[is_text].astype(str)
        risky[is_text] = (words.str.startswith(FORMULA_START) & ~words.str.fullmatch(_NUMBER)).to_numpy()
    if not risky.any():
        return values
    hit = np.isin(codes, np.flatnonzero(risky))
    out = values.astype(object).copy()
    out.iloc[np.flatnonzero(hit)] = ("'" + text[risky]).to_numpy(dtype=object)[
        np.searchsorted(np.flatnonzero(risky), codes[hit])]
    return out


def escape_table(df: pd.DataFrame, columns=None) -> pd.DataFrame:
    """``df`` with :func:`escape_formulas` applied to ``columns`` (default: all)."""
    out = df.copy()
    for col in (df.columns if columns is None else columns):
        out[col] = escape_formulas(df[col])
    return out


def escape_header(df: pd.DataFrame, columns=None) -> pd.DataFrame:
    """``df`` with the names of ``columns`` (default: all) that could start a
    formula prefixed by ``'``, as :func:`escape_formulas` does to cells."""
    names = pd.Series(list(df.columns), dtype=object)
    chosen = names.isin(list(df.columns if columns is None else columns)).to_numpy()
    escaped = names.where(~chosen, escape_formulas(names))
    if escaped.duplicated().any():
        from .errors import DataError

        name = escaped[escaped.duplicated()].iloc[0]
        raise DataError(f"escaping the column names that could start a formula makes two columns {name!r}")
    return df.set_axis(escaped.tolist(), axis=1)
