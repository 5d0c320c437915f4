"""Dates and timestamps as quasi-identifiers: read, cut on the calendar, and
published as ISO intervals.

A column is a date column when its dtype is a datetime, or every present cell
is ISO 8601 text (``2024-03-05``, ``2024-03-05T14:30:00``, with or without
seconds, fraction or offset), or when the user names it with a format
(``dates={"visit": "%d/%m/%Y"}``, ``--date visit:%d/%m/%Y``). Values become
whole days since 1970-01-01 when no cell carries a time of day, else whole
seconds (UTC for cells with an offset); published ends go back to ISO text
(``2024-03-01``; ``2024-03-01T00:00:00``).

Cut points between two consecutive values fall on the coarsest calendar
boundary between them (year, quarter, month, ISO week, day; then hour and
minute for timestamps), nearest the middle, so classes read as months or
quarters where the data allow. A class publishes its records' first and last
date rounded out to a calendar level (:data:`ROUNDING_LEVELS`: ISO weeks,
months, quarters, years; a timestamp never finer than a minute, so no record's
seconds show), and beyond the dates k records reach an open end.
"""
from __future__ import annotations

import re

import numpy as np
import pandas as pd

from ._text import show
from .errors import DataError, ParameterError

__all__ = ["DATE_FORMATS", "DAY", "LEVELS", "OPEN_END", "ROUNDING_LEVELS", "calendar_cuts", "date_formats", "date_hierarchy",
           "is_date_column", "iso",
           "level_end", "level_start", "outer_edges", "parse"]

ISO = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?(Z|[+-]\d{2}:?\d{2})?$")
EPOCH = np.datetime64("1970-01-01", "D")
DAY = 86_400


def is_date_column(s: pd.Series) -> bool:
    """A datetime dtype, or every present cell ISO 8601 date or timestamp text."""
    if pd.api.types.is_datetime64_any_dtype(s):
        return True
    if s.dtype != object and not pd.api.types.is_string_dtype(s):
        return False
    present = _present(pd.Series(s.unique()))          # each distinct value once
    return len(present) > 0 and bool(present.str.match(ISO).all())


DATE_FORMATS = tuple(day + time for day in ("%m/%d/%Y", "%d/%m/%Y", "%m/%d/%y", "%d/%m/%y", "%d.%m.%Y", "%d-%m-%Y",
                                             "%m-%d-%Y", "%Y/%m/%d", "%d %b %Y", "%b %d, %Y")
                     for time in ("", " %H:%M", " %H:%M:%S"))     # the non-ISO dates a table often holds
_DATE_LIKE = re.compile(r"^\w{1,9}[/.\- ]\w{1,9}[/.\-, ]+\d{1,4}( \d{1,2}:\d{2}(:\d{2})?)?$")


def date_formats(s: pd.Series, sample: int = 10_000) -> list:
    """The formats of :data:`DATE_FORMATS` in which every present cell of a
    text column (its first ``sample`` distinct values) reads as a date: the
    ``dates={col: format}`` it needs (``04/30/2023``: ``%m/%d/%Y``; several
    where days and months cannot be told apart); none for other columns."""
    if s.dtype != object and not pd.api.types.is_string_dtype(s):
        return []
    present = pd.Series(_present(pd.Series(s.unique())).unique()[:sample], dtype=object)
    if present.empty or not present.str.match(_DATE_LIKE).all():
        return []
    return [fmt for fmt in DATE_FORMATS
            if pd.to_datetime(present, format=fmt, errors="coerce").notna().all()]


def _present(s: pd.Series) -> pd.Series:
    from ._cells import present_cells

    return present_cells(s).astype(str).str.strip()


def parse(s: pd.Series, fmt: str | None = None, unit: str | None = None, open_end: float | None = None
          ) -> tuple[np.ndarray, str]:
    """The column as float64 whole units since 1970-01-01 (NaN where missing)
    and the unit: ``unit`` if given, else ``"day"`` when no cell has a time
    of day and ``"second"`` otherwise. DataError naming the first cell that
    is not a date. ``open_end`` (-inf or inf): a published interval's end,
    whose :data:`OPEN_END` cells read as it."""
    if open_end is not None:
        opened = s.astype(object).eq(OPEN_END).to_numpy()
        values, unit = parse(s.where(~opened, None), fmt, unit)
        values[opened] = open_end
        return values, unit
    if pd.api.types.is_datetime64_any_dtype(s):
        stamps = s.dt.tz_convert("UTC").dt.tz_localize(None) if getattr(s.dt, "tz", None) is not None else s
    else:
        text = s.astype(object).where(s.notna(), None).map(lambda v: None if v is None else str(v).strip())
        from ._cells import MISSING_TOKENS

        missing = text.isna() | text.fillna("").str.lower().isin(MISSING_TOKENS)
        text = text.where(~missing, None)
        try:
            stamps = pd.to_datetime(text, format=fmt if fmt else "ISO8601", utc=True, errors="coerce")
        except (ValueError, TypeError) as exc:
            raise DataError(f"column {show(s.name)}: cannot read dates: {exc}") from None
        bad = stamps.isna() & ~missing
        if bad.any():
            i = int(np.flatnonzero(bad.to_numpy())[0])
            want = f"a date in the format {fmt!r}" if fmt else "an ISO 8601 date (2024-03-05) or timestamp"
            raise DataError(f"column {show(s.name)}, row {show(s.index[i])}: {show(s.iloc[i])} is not {want}")
        stamps = stamps.dt.tz_localize(None)
    seconds = stamps.to_numpy(dtype="datetime64[s]")
    present = ~np.isnat(seconds)
    whole = seconds[present].astype(np.int64)
    unit = unit or ("day" if (whole % DAY == 0).all() else "second")
    out = np.full(len(s), np.nan)
    out[present] = np.floor_divide(whole, DAY) if unit == "day" else whole
    return out, unit


OPEN_END = ".."     # an open end of a published date interval, as ISO 8601-2 writes one (2024-03-01/..)


def iso(values: np.ndarray, unit: str) -> np.ndarray:
    """Whole days or seconds since 1970-01-01 as ISO text (None where NaN,
    :data:`OPEN_END` where infinite: an open end)."""
    values = np.asarray(values, dtype=float)
    out = np.full(values.size, None, dtype=object)
    out[np.isinf(values)] = OPEN_END
    ok = np.isfinite(values)
    if unit == "day":
        days = EPOCH + values[ok].astype(np.int64).astype("timedelta64[D]")
        out[ok] = np.datetime_as_string(days, unit="D")
    else:
        stamps = np.datetime64("1970-01-01T00:00:00", "s") + values[ok].astype(np.int64).astype("timedelta64[s]")
        out[ok] = np.datetime_as_string(stamps, unit="s")
    return out


def _month_of(v: np.ndarray, scale: int) -> np.ndarray:
    """Months since 1970-01 of values in the unit (``scale`` units per day)."""
    days = np.floor(np.asarray(v, dtype=float) / scale).astype(np.int64)
    return (EPOCH + days.astype("timedelta64[D]")).astype("datetime64[M]").astype(np.int64)


def _month_start(months: np.ndarray, scale: int) -> np.ndarray:
    """The first day of months since 1970-01, in the unit."""
    days = np.asarray(months, dtype=np.int64).astype("datetime64[M]").astype("datetime64[D]") - EPOCH
    return days.astype(np.int64).astype(float) * scale


def calendar_cuts(a: np.ndarray, b: np.ndarray, unit: str) -> np.ndarray:
    """For whole units a < b: a cut c with a < c <= b on the coarsest calendar
    boundary between them (year, quarter, month, ISO week, day; then hour,
    minute, second), the one nearest the middle (the earlier on a tie)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    scale = 1 if unit == "day" else DAY
    out = np.full(a.size, np.nan)
    mid = (a + b) / 2
    for months in (12, 3, 1):                               # year, quarter, month starts
        first = (_month_of(a, scale) // months + 1) * months
        last = _month_of(b, scale) // months * months
        todo = np.flatnonzero(np.isnan(out) & (first <= last))
        for i in todo.tolist():
            starts = _month_start(np.arange(first[i], last[i] + 1, months), scale)
            out[i] = starts[np.argmin(np.abs(starts - mid[i]))]
    monday = 4                                              # 1970-01-01 was a Thursday
    for step, offset in ((7 * scale, monday * scale), *((s, 0) for s in ((1,) if unit == "day" else
                                                                        (DAY, 3600, 60, 1)))):
        first = np.floor((a - offset) / step) * step + step + offset
        last = np.floor((b - offset) / step) * step + offset
        todo = np.isnan(out) & (first <= last)
        if todo.any():
            near = np.floor((mid[todo] - first[todo]) / step + 0.5) * step + first[todo]
            out[todo] = np.clip(near, first[todo], last[todo])
    return out


def outer_edges(low: float, high: float, unit: str) -> tuple[float, float]:
    """Year starts strictly below ``low`` and beyond ``high`` + 1, so no tile ends on the extreme values."""
    scale = 1 if unit == "day" else DAY
    y_low = (EPOCH + np.int64(np.floor(low / scale)).astype("timedelta64[D]")).astype("datetime64[Y]")
    start = (y_low.astype("datetime64[D]") - EPOCH).astype(np.int64) * scale
    if start >= low:
        start = ((y_low - 1).astype("datetime64[D]") - EPOCH).astype(np.int64) * scale
    y_high = (EPOCH + np.int64(np.floor((high + 1) / scale)).astype("timedelta64[D]")).astype("datetime64[Y]")
    end = ((y_high + 1).astype("datetime64[D]") - EPOCH).astype(np.int64) * scale
    return float(start), float(max(end, high + 2))


# the levels a class's published ends are rounded out to, finest first, for a column of days and of seconds
ROUNDING_LEVELS = {"day": ("day", "week", "month", "quarter", "year"),
                   "second": ("minute", "hour", "day", "week", "month", "quarter", "year")}
_MONTHS = {"month": 1, "quarter": 3, "year": 12}
_SECONDS = {"minute": 60, "hour": 3600, "day": DAY, "week": 7 * DAY}


def level_start(values, level: str, unit: str) -> np.ndarray:
    """The first day (``unit`` "day") or second of the ``level`` period
    (minute, hour, day, ISO week, month, quarter, year) holding each value,
    in whole units since 1970-01-01 (NaN stays NaN).

    >>> iso(level_start(np.array([19787.0]), "quarter", "day"), "day").tolist()     # 2024-03-05
    ['2024-01-01']
    """
    v = np.asarray(values, dtype=np.float64)
    scale = 1 if unit == "day" else DAY
    if level in _MONTHS:
        months = _month_of(np.nan_to_num(v), scale) // _MONTHS[level] * _MONTHS[level]
        out = _month_start(months, scale)
    else:
        step = _SECONDS[level] // (DAY // scale) if level != "week" else 7 * scale
        offset = 4 * scale if level == "week" else 0          # ISO weeks start on Monday; 1970-01-01 was a Thursday
        out = np.floor((v - offset) / step) * step + offset
    return np.where(np.isnan(v), np.nan, out)


def level_end(values, level: str, unit: str) -> np.ndarray:
    """The last day or second of the ``level`` period holding each value.

    >>> iso(level_end(np.array([19787.0]), "month", "day"), "day").tolist()
    ['2024-03-31']
    """
    v = np.asarray(values, dtype=np.float64)
    scale = 1 if unit == "day" else DAY
    if level in _MONTHS:
        months = _month_of(np.nan_to_num(v), scale) // _MONTHS[level] * _MONTHS[level] + _MONTHS[level]
        out = _month_start(months, scale) - 1
    else:
        out = level_start(v, level, unit) + (7 * scale if level == "week" else _SECONDS[level] // (DAY // scale)) - 1
    return np.where(np.isnan(v), np.nan, out)


LEVELS = ("day", "month", "quarter", "year")      # they nest (ISO weeks straddle months and years: not a level)


def date_hierarchy(values, levels=("month", "year"), fmt: str | None = None):
    """A :class:`~geoanon.models.Hierarchy` of a date column's values for the
    ``hierarchies=`` treatment: each value (as the text the column holds)
    under its ``levels``, some of ``"day"``, ``"month"``, ``"quarter"``,
    ``"year"``, each given once, finest first (no week: ISO weeks straddle
    months and years), then ``*``; published labels read ``2024-03-05``,
    ``2024-03``, ``2024-Q1``, ``2024``. ``"day"`` suits a column with times:
    in a column of days it repeats the value, which a hierarchy refuses.

    Examples
    --------
    >>> import geoanon as ga
    >>> tree = ga.date_hierarchy(["2024-01-15", "2024-02-03", "2025-07-04"], levels=("month", "quarter", "year"))
    >>> for path in tree.paths.tolist():
    ...     print(path)
    ['2024-01-15', '2024-01', '2024-Q1', '2024', '*']
    ['2024-02-03', '2024-02', '2024-Q1', '2024', '*']
    ['2025-07-04', '2025-07', '2025-Q3', '2025', '*']
    """
    from .models import Hierarchy

    s = pd.Series(values)
    if not levels or list(levels) != sorted(levels, key=lambda v: LEVELS.index(v) if v in LEVELS else -1) \
            or any(lv not in LEVELS for lv in levels) or len(set(levels)) < len(levels):
        raise ParameterError(f"date hierarchy levels must be some of {', '.join(LEVELS)}, finest first, got "
                             f"{show(list(levels))}")
    distinct = s[s.notna()].drop_duplicates()
    if len(distinct) == 0:
        raise DataError(f"column {show(s.name)} has no dates")
    numbers, unit = parse(distinct, fmt)
    days = np.floor(numbers / (1 if unit == "day" else DAY)).astype(np.int64)
    stamp = EPOCH + days.astype("timedelta64[D]")
    rows = [distinct.astype(str).tolist()]
    for level in levels:
        rows.append([_label(d, level) for d in stamp])
    rows.append(["*"] * len(distinct))
    return Hierarchy.from_frame(pd.DataFrame(np.array(rows, dtype=object).T))


def _label(day: np.datetime64, level: str) -> str:
    if level == "day":
        return str(day.astype("datetime64[D]"))
    if level == "month":
        return str(day.astype("datetime64[M]"))
    if level == "quarter":
        month = int(str(day.astype("datetime64[M]"))[5:7])
        return f"{str(day.astype('datetime64[Y]'))}-Q{(month - 1) // 3 + 1}"
    return str(day.astype("datetime64[Y]"))
