"""Hints on quasi-identifiers that are probably read other than they were
meant, each saying how to declare the column (as keywords, which the
command line and job files turn into their own words):

- text that reads as dates in a format other than ISO 8601 (``04/30/2023``)
  is a category unless ``dates`` names it: each date its own value, nothing
  generalized in time (:func:`geoanon.dates.date_formats` finds the format);
- numbers with a decimal comma (``-118,27``) are text, so a category, unless
  ``decimal=','`` is given;
- a few distinct whole numbers, each held by many rows, are most often the
  codes of a category (race 1-6, a 0/1 flag), which intervals would treat
  as quantities (``race_code`` 3-5).

A hint is a warning, never a refusal: the column may be what it seems. It is
given only where the column's treatment was the default; naming it
(``interval``, ``sets``, ``dates``, ...) says what it is. A hint names no
value of the column: the report that carries it is published.
"""
from __future__ import annotations

import warnings

import numpy as np

from .._cells import numbers_with_mark, present_cells
from .._text import show
from ..dates import date_formats
from ..errors import ColumnWarning

__all__ = ["CODE_ROWS", "CODE_VALUES", "column_hints", "warn"]

CODE_VALUES = 10    # at most this many distinct whole numbers ...
CODE_ROWS = 10      # ... held by at least this many rows each on average: codes of a category


def column_hints(df, columns, treatments: dict, formats: dict, decimal: str = ".") -> list:
    """The hints (text) on the quasi-identifiers of ``df`` whose default
    ``treatments`` probably misread them: ``columns`` (a
    :class:`geoanon.Columns`) tells the defaulted ones, ``formats`` the date
    columns, ``decimal`` the decimal mark the numbers were read with."""
    chosen = {*columns.interval, *columns.suppress, *columns.sets, *columns.hierarchies, *formats}
    out = []
    for col, treatment in treatments.items():
        if col in chosen:
            continue
        if treatment == "set":
            out += _text_hint(df[col], col, decimal)
        elif treatment == "interval":
            out += _codes_hint(df[col], col)
    return out


def warn(hints: list) -> None:
    """Each hint as a :class:`~geoanon.errors.ColumnWarning` (the API's way
    to say it; the release's ``warnings`` hold them too)."""
    for hint in hints:
        warnings.warn(hint, ColumnWarning, stacklevel=_caller_level())


def _caller_level() -> int:
    """The ``stacklevel`` of the first caller outside geoanon (where the job was asked for)."""
    import sys
    from pathlib import Path

    package = str(Path(__file__).resolve().parents[1])
    level, frame = 2, sys._getframe(2)         # 1: warn, 2: its caller
    while frame is not None and str(Path(frame.f_code.co_filename).resolve()).startswith(package):
        level, frame = level + 1, frame.f_back
    return level


def _text_hint(values, col: str, decimal: str) -> list:
    found = date_formats(values)
    if found:
        other = f" (or {found[1]!r}: its days and months cannot be told apart)" if len(found) > 1 else ""
        return [f"column {show(col)} reads as dates in the format {found[0]} but is published as categories (each "
                f"date a value); to publish it as date intervals, give dates={{{col!r}: {found[0]!r}}}{other}"]
    if decimal != "," and numbers_with_mark(values, ","):
        return [f"column {show(col)} reads as numbers with a decimal comma but is published as categories; to "
                "publish it as intervals, give decimal=','"]
    return []


def _codes_hint(values, col: str) -> list:
    import pandas as pd

    numbers = pd.to_numeric(present_cells(values), errors="coerce").to_numpy(dtype=float)
    distinct = np.unique(numbers[~np.isnan(numbers)])
    whole = distinct.size and bool(np.all(distinct == np.round(distinct)))
    if not whole or distinct.size > CODE_VALUES or numbers.size < CODE_ROWS * distinct.size:
        return []
    return [f"column {show(col)} holds {distinct.size} distinct whole numbers, published as intervals ({col}_min, "
            f"{col}_max) as quantities; if they are the codes of a category, give sets=[{col!r}] (the values each "
            f"class holds) or suppress=[{col!r}]; interval=[{col!r}] says they are quantities"]
