"""Published text cells that cannot start a spreadsheet formula.

OWASP's advice on CSV injection: a cell starting with ``=``, ``+``, ``-``,
``@``, a tab or a carriage return may be run as a formula when the file is
opened in a spreadsheet; prefixing a single quote makes the spreadsheet show
it as text. Plain numbers (``-74.5``, ``+3``) are left alone: a spreadsheet
reads them as numbers, and they cannot carry a formula.

A nested cell (a Parquet list, struct or map) has no text of its own: a text
format publishes it as JSON (:func:`nested_text`), Parquet as it is.
"""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd

MISSING_TOKENS = frozenset({"", "na", "nan", "null", "none", "n/a", "#n/a"})     # cells that mean "no value"
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?"


def escape_formulas(values: pd.Series) -> pd.Series:
    """``values`` with every text cell that could start a formula prefixed by
    ``'``; other cells (numbers, missing values, safe text) unchanged. Each
    distinct value is looked at once. A nested column is left alone (its
    JSON text starts with ``[`` or ``{``)."""
    if not (pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values)) or is_nested(values):
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


def is_nested(values: pd.Series) -> bool:
    """Whether a column holds lists, records or maps (a Parquet list, struct
    or map column, read as an Arrow type or as Python objects), not one
    value per cell."""
    arrow = getattr(values.dtype, "pyarrow_dtype", None)
    if arrow is not None:
        import pyarrow as pa

        return pa.types.is_nested(arrow)
    if values.dtype != object or pd.api.types.infer_dtype(values, skipna=True) not in ("mixed", "mixed-integer"):
        return False                      # one pass in C: text, numbers, dates are never nested
    kinds = values.dropna().map(type).drop_duplicates()
    return any(issubclass(k, (list, tuple, dict, set, frozenset, np.ndarray)) for k in kinds)


def nested_text(values: pd.Series) -> pd.Series:
    """A nested column's cells as JSON text (a list; an object for a record,
    and for a map unless a key repeats, then a list of [key, value] pairs);
    a missing cell stays missing."""
    if getattr(values.dtype, "pyarrow_dtype", None) is not None:
        arrow = values.array.__arrow_array__()
        try:
            cells = arrow.to_pylist(maps_as_pydicts="strict")
        except KeyError:
            cells = arrow.to_pylist()
    else:
        cells = values.tolist()
    return pd.Series([None if _missing(v) else json.dumps(v, ensure_ascii=False, default=_plain) for v in cells],
                     index=values.index, dtype=object, name=values.name)


def nested_as_text(df: pd.DataFrame) -> pd.DataFrame:
    """``df`` with every nested column as JSON text (:func:`nested_text`), for a text format."""
    nested = [col for col in df.columns if is_nested(df[col])]
    if not nested:
        return df
    out = df.copy()
    for col in nested:
        out[col] = nested_text(df[col])
    return out


def _missing(v) -> bool:
    return v is None or (isinstance(v, float) and np.isnan(v))


def _plain(v):
    """What JSON cannot hold as it is: arrays and sets as lists, numpy
    numbers as numbers, anything else (dates, decimals, bytes) as its text."""
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, (set, frozenset)):
        return sorted(v, key=str)
    if isinstance(v, np.generic):
        return v.item()
    return str(v)


def present_cells(s: pd.Series) -> pd.Series:
    """The cells of ``s`` that hold a value: not missing, not a missing marker."""
    return s[is_present(s)]


def is_present(s: pd.Series) -> np.ndarray:
    """Whether each cell of ``s`` holds a value (:func:`present_cells`),
    each distinct value read once."""
    try:
        codes, distinct = pd.factorize(s)             # a missing cell's code: -1
    except TypeError:                                 # unhashable cells (a nested column): each read
        return (s.notna() & ~_missing_text(s)).to_numpy(dtype=bool)
    return np.r_[~_missing_text(pd.Series(distinct, dtype=object)).to_numpy(dtype=bool), False][codes]


def _missing_text(s: pd.Series) -> pd.Series:
    """Whether each cell's text is a missing marker (:data:`MISSING_TOKENS`)."""
    return s.astype(str).str.strip().str.lower().isin(MISSING_TOKENS)


def numeric_cells(s: pd.Series) -> bool:
    """Whether every present cell is a number (text such as "42" counts)."""
    if pd.api.types.is_bool_dtype(s):
        return False
    if pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_complex_dtype(s):
        return True
    if is_nested(s):                                       # refused with its own message by the role checks
        return False
    present = present_cells(pd.Series(s.unique()))        # each distinct value once
    return len(present) > 0 and bool(pd.to_numeric(present, errors="coerce").notna().all())


def _with_mark(mark: str) -> str:
    """A number written with ``mark`` as its decimal mark (no thousands separator)."""
    m = re.escape(mark)
    return rf"[+-]?(?:\d+(?:{m}\d*)?|{m}\d+)(?:[eE][+-]?\d+)?"


def numbers_with_mark(s: pd.Series, mark: str) -> bool:
    """Whether every present cell of a text column is a number written with
    ``mark`` as its decimal mark, some with a mark, and not every mark
    followed by three digits (``1,250`` is more likely a thousand)."""
    if s.dtype != object and not pd.api.types.is_string_dtype(s):
        return False
    text = pd.Series(present_cells(pd.Series(s.unique())).astype(str).str.strip(), dtype=object)
    if text.empty or not text.str.fullmatch(_with_mark(mark)).all():
        return False
    marked = text[text.str.contains(mark, regex=False)]
    return bool(len(marked)) and not marked.str.fullmatch(rf"[^{re.escape(mark)}]*{re.escape(mark)}\d{{3}}").all()


def with_decimal_mark(df: pd.DataFrame, columns, mark: str) -> pd.DataFrame:
    """``df`` with the numbers of ``columns`` written with ``mark`` as their
    decimal mark rewritten with a point (``-118,27`` -> ``-118.27``), in the
    columns whose present cells are all such numbers (a column of other text,
    a category, stays as it is); ``df`` itself for the mark ``"."``."""
    if mark == ".":
        return df
    out = None
    for col in dict.fromkeys(columns):
        s = df[col]
        if s.dtype != object and not pd.api.types.is_string_dtype(s):
            continue
        text = pd.Series(present_cells(pd.Series(s.unique())).astype(str).str.strip(), dtype=object)
        if text.empty or not text.str.fullmatch(_with_mark(mark)).all():
            continue
        out = df.copy() if out is None else out
        out[col] = s.where(~is_present(s), s.astype(str).str.strip().str.replace(mark, ".", regex=False))
    return df if out is None else out
