"""Information loss of a release, one measure for every tool, computed from
what is published.

Per cell:

- an interval ``[lo, hi]`` (a location rectangle counts its latitude and its
  longitude as two cells): ``(hi - lo) / range`` of the column in the input,
  the Normalized Certainty Penalty of Xu, Wang, Pei, Wang, Shi and Fu
  (*Utility-based anonymization using local recoding*, KDD 2006), the
  interval first clipped to the input's range (an interval rounded outward
  past the least or greatest value, or a box's margin, costs no more than
  the whole range: 1); a longitude interval with ``lo > hi`` wraps the
  antimeridian (width ``hi - lo + 360``, clipped the same way);
- a kept value costs 0, and ``*`` costs 1 (both measures below agree);
- a hierarchy node or a set of values (a published label standing for several
  input values, such as a ZIP group or a Mondrian value set) covering ``c``
  of the column's ``|A|`` distinct input values (for a set, the input values
  of the rows that publish it): ``(c - 1) / (|A| - 1)``, Iyengar's loss
  metric (*Transforming data to satisfy privacy constraints*, KDD 2002),
  which the overall figure uses. Xu et al.'s NCP charges ``c / |A|`` instead
  (0 for one value); :func:`information_loss` reports it beside, as
  ``xu_ncp``, for the columns where the two differ.

A cell published empty costs 0 when the input was missing and 1 otherwise;
an interval with one end empty is open (``90+``) and reaches the column's
least or greatest input value. A release's own report measures an interval
column's range between the values k of its records reach from either end
(``reach``): a figure published beside the release then tells nothing of the
column's most extreme records, which the range would.
The overall figure averages all quasi-identifier cells.

:func:`plain_units` says the same loss in the columns' own units: the
published widths of intervals (years, days, ...), the share of categorical
cells published as the record's own value, and the location's extent in km.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from ._cells import is_present
from ._codes import dense_unique, factorize_exact
from ._geo import ground
from ._text import show
from .errors import DataError

__all__ = ["SUPPRESSED", "infer_treatments", "information_loss", "km_spread", "parse_numbers", "plain_units"]

SUPPRESSED = "*"
LONGITUDE_NAMES = frozenset({"lon", "lng", "long", "longitude", "x"})


def information_loss(original: pd.DataFrame, released: pd.DataFrame, treatments: dict, *,
                     hierarchies=None, formats=None, reach: int = 1) -> dict:
    """NCP of ``released`` against ``original`` (rows in the same order).

    ``treatments`` maps an input column to how it is published:
    ``("interval", (min_col, max_col))``, ``("longitude", (min_col,
    max_col))`` (an interval that may wrap the antimeridian), ``("date", (min_col,
    max_col))`` (ISO text ends; the input read with ``formats[col]`` when
    given, see :mod:`geoanon.dates`), ``("suppress", col)``,
    ``("hierarchy", col)`` (its :class:`~geoanon.models.Hierarchy` in
    ``hierarchies``) or ``("set", col)``. Returns ``{"overall": float,
    "columns": {input column: float}}``, and with a hierarchy or set column
    ``xu_ncp``, the same with Xu et al.'s categorical charge (see the module).
    ``reach``: an interval column's range lies between the values that many
    records reach from either end (1: its least and greatest values).

    Examples
    --------
    Ages 30 to 60 published as two intervals, sex suppressed in half the rows:

    >>> import pandas as pd
    >>> import geoanon as ga
    >>> original = pd.DataFrame({"age": [30, 35, 40, 60], "sex": ["F", "M", "F", "F"]})
    >>> released = pd.DataFrame({"age_min": [30, 30, 40, 40], "age_max": [35, 35, 60, 60],
    ...                          "sex": ["*", "*", "F", "F"]})
    >>> ga.information_loss(original, released, {"age": ("interval", ("age_min", "age_max")),
    ...                                          "sex": ("suppress", "sex")})
    {'overall': 0.458333333334, 'columns': {'age': 0.416666666667, 'sex': 0.5}}
    """
    if len(original) != len(released):
        raise DataError(f"the release has {len(released)} rows, the input {len(original)}")
    columns, xu = {}, {}
    for col, (kind, published) in treatments.items():
        if kind in ("interval", "longitude"):
            cells = _interval_cells(original[col], released[published[0]], released[published[1]],
                                    wraps=kind == "longitude", reach=reach)
        elif kind == "date":
            cells = _date_cells(original[col], released[published[0]], released[published[1]],
                                (formats or {}).get(col), reach)
        elif kind == "hierarchy":
            cells, xu[col] = _hierarchy_cells(original[col], released[published], (hierarchies or {})[col])
        elif kind == "suppress":
            cells = _suppressed_cells(released[published])
        elif kind == "set":
            cells, xu[col] = _set_cells(original[col], released[published])
        else:
            raise DataError(f"unknown treatment {show(kind)} for column {show(col)}")
        columns[col] = _mean(cells)
    out = {"overall": _mean(list(columns.values())), "columns": columns}
    if xu:
        xu_columns = {col: _mean(xu[col]) if col in xu else value for col, value in columns.items()}
        out["xu_ncp"] = {"overall": _mean(list(xu_columns.values())), "columns": xu_columns}
    return out


def plain_units(original: pd.DataFrame, released: pd.DataFrame, treatments: dict, *, location=(), crs=None,
                km=None) -> dict:
    """The loss of ``released`` (rows as in ``original``) in the columns' own
    units, beside :func:`information_loss` (``treatments`` as it takes them).

    - ``"columns"``: for an interval column, ``median_width`` and
      ``p90_width`` of the published intervals ``max - min`` (not clipped,
      as published) over the rows publishing both ends, in the column's unit
      (``unit`` None; ``"days"`` for dates and timestamps), ``open``, the
      share of rows whose interval has one end only (``90+``; no width is
      made up for them), and ``suppressed``, the share with neither end
      where the record had a value; for a category column (suppressed,
      set, hierarchy node), ``exact``, the share of rows publishing the
      record's own value;
    - ``"location"`` (with ``location`` and ``crs``): ``median_km`` and
      ``p90_km`` of the location's extent over the rows that publish one,
      and ``without``, the share of rows published without one. For a
      points location, ``location`` is its input columns ``(lat, lon)`` and
      the extent the diagonal of each row's box (``measure`` "box
      diagonal"; ``km``, each row's, where the caller has them); for
      regions, ``location`` is the region column, published as group
      labels, and the extent each row's group diameter, ``km`` (NaN: none;
      ``measure`` "group diameter", the figure the joint search and the ZIP
      jobs' ``location_km`` measure, 0 for a group of one region), with
      ``exact``, the share of rows publishing their own region. Without
      ``crs`` the location columns count as interval or category columns.

    Shares are rounded to 6 decimals, widths to 6 significant digits, km to
    metres; a median and p90 over no rows are None. JSON-ready.

    Examples
    --------
    Ages published as intervals (two open, ``40+``), visit dates as months,
    sex suppressed in half the rows:

    >>> import numpy as np
    >>> import pandas as pd
    >>> from geoanon.ncp import plain_units
    >>> original = pd.DataFrame({"age": [30, 35, 40, 60], "sex": ["F", "M", "F", "F"],
    ...                          "visit": ["2024-01-05", "2024-01-20", "2024-02-03", "2024-03-30"]})
    >>> released = pd.DataFrame({"age_min": [30, 30, 40, 40], "age_max": [39, 39, np.nan, np.nan],
    ...                          "sex": ["*", "*", "F", "F"],
    ...                          "visit_min": ["2024-01-01", "2024-01-01", "2024-02-01", "2024-02-01"],
    ...                          "visit_max": ["2024-01-31", "2024-01-31", "2024-03-31", "2024-03-31"]})
    >>> units = plain_units(original, released, {"age": ("interval", ("age_min", "age_max")),
    ...                                          "sex": ("suppress", "sex"),
    ...                                          "visit": ("date", ("visit_min", "visit_max"))})
    >>> units["columns"]["age"]
    {'median_width': 9.0, 'p90_width': 9.0, 'unit': None, 'open': 0.5, 'suppressed': 0.0}
    >>> units["columns"]["visit"]["median_width"], units["columns"]["visit"]["p90_width"]     # days
    (44.5, 59.0)
    >>> units["columns"]["sex"]
    {'exact': 0.5}
    """
    if len(original) != len(released):
        raise DataError(f"the release has {len(released)} rows, the input {len(original)}")
    location = tuple(location) if crs is not None else ()
    columns = {}
    for col, (kind, published) in treatments.items():
        if col in location:
            continue
        if kind in ("interval", "longitude", "date"):
            columns[col] = _widths(original[col], released[published[0]], released[published[1]], kind)
        elif kind in ("suppress", "set", "hierarchy"):
            columns[col] = {"exact": _share(_exact_cells(original[col], released[published]))}
        else:
            raise DataError(f"unknown treatment {show(kind)} for column {show(col)}")
    out = {"columns": columns}
    if len(location) == 2:
        if km is None:
            (_, (y0, y1)), (_, (x0, x1)) = treatments[location[0]], treatments[location[1]]
            corners = [_numbers(released[c], f"column {show(c)}") for c in (x0, y0, x1, y1)]
            km = ground(crs).extents(*corners)[2]
        out["location"] = {"measure": "box diagonal", **_km_spread(np.asarray(km, dtype=np.float64))}
    elif location:
        published = released[treatments[location[0]][1]]
        out["location"] = {"measure": "group diameter", **_km_spread(np.asarray(km, dtype=np.float64)),
                           "exact": _share(_exact_cells(original[location[0]], published))}
    return out


def _widths(original, lo, hi, kind) -> dict:
    """:func:`plain_units` of one interval column."""
    if kind == "date":
        from .dates import DAY, parse

        a, b = parse(lo, unit="second", open_end=-np.inf)[0] / DAY, parse(hi, unit="second", open_end=np.inf)[0] / DAY
    else:
        a, b = _numbers(lo, f"column {show(lo.name)}"), _numbers(hi, f"column {show(hi.name)}")
    closed = np.isfinite(a) & np.isfinite(b)
    width = (b - a)[closed]
    if kind == "longitude":
        width = np.where(width < 0, width + 360.0, width)
    median, p90 = np.quantile(width, [0.5, 0.9]) if width.size else (None, None)
    empty = np.isnan(a) & np.isnan(b)
    return {"median_width": _significant(median), "p90_width": _significant(p90),
            "unit": "days" if kind == "date" else None, "open": _share(~closed & ~empty),
            "suppressed": _share(empty & is_present(original))}


def _km_spread(km: np.ndarray) -> dict:
    """Median, p90 and max (km, to metres) of the rows' location extents, and the share of rows without one."""
    spread = km_spread(km) or {"median": None, "p90": None, "max": None}
    return {"median_km": spread["median"], "p90_km": spread["p90"], "max_km": spread["max"],
            "without": _share(np.isnan(km))}


def km_spread(km) -> dict | None:
    """``median``, ``p90``, ``max`` and ``mean`` (km, to metres) of
    per-record extents in km (NaN: records without a place, left out); None
    when no record has one."""
    km = np.asarray(km, dtype=np.float64)
    known = km[~np.isnan(km)]
    if not known.size:
        return None
    median, p90 = np.quantile(known, [0.5, 0.9])
    return {"median": round(float(median), 3), "p90": round(float(p90), 3), "max": round(float(known.max()), 3),
            "mean": round(float(known.mean()), 3)}


def _exact_cells(original, published) -> np.ndarray:
    """Whether each published cell is the record's own value (as text;
    missing as missing), each pair of distinct values compared once."""
    (a, text_a), (b, text_b) = _coded_text(original), _coded_text(published)
    pairs, of_cell = dense_unique(a * len(text_b) + b, len(text_a) * len(text_b))
    same = [x == y for x, y in zip(text_a[pairs // len(text_b)].tolist(), text_b[pairs % len(text_b)].tolist())]
    return np.array(same, dtype=bool)[of_cell.reshape(-1)]


def _share(mask) -> float:
    return round(float(np.mean(mask)), 6) if len(mask) else 0.0


def _significant(v) -> float | None:
    return None if v is None else float(f"{float(v):.6g}")


def _mean(values) -> float:
    return round(float(np.mean(values)), 12) if len(values) else 0.0


def infer_treatments(original: pd.DataFrame, released: pd.DataFrame, columns, hierarchies=None) -> dict:
    """How each input column in ``columns`` is published in ``released``:
    an interval when ``{col}_min`` and ``{col}_max`` exist (a longitude, which
    may wrap, when the column is named lon, lng, long or longitude), a hierarchy when
    one is given, else suppression when every published value is the input's
    or ``*``, else a set."""
    out = {}
    for col in columns:
        if f"{col}_min" in released.columns and f"{col}_max" in released.columns:
            from .dates import is_date_column

            kind = "longitude" if str(col).lower() in LONGITUDE_NAMES else "date" if is_date_column(
                original[col]) else "interval"
            out[col] = (kind, (f"{col}_min", f"{col}_max"))
        elif col not in released.columns:
            raise DataError(f"the release has no column {show(col)} nor {show(col + '_min')} / {show(col + '_max')}")
        elif hierarchies and col in hierarchies:
            out[col] = ("hierarchy", col)
        else:
            kept = _text(released[col]).eq(_text(original[col])) | _text(released[col]).eq(SUPPRESSED)
            out[col] = ("suppress" if kept.all() else "set", col)
    return out


def _text(s: pd.Series) -> pd.Series:
    """Each cell as text without the ``'`` a formula escape put in front, None
    where missing (each distinct value converted once)."""
    codes, text = _coded_text(s)
    return pd.Series(text[codes], dtype=object)


def _coded_text(s: pd.Series) -> tuple:
    """Each cell's code (:func:`~geoanon._codes.factorize_exact`) and each
    code's text, as :func:`_text` gives it (None: missing)."""
    codes, uniques = factorize_exact(s.reset_index(drop=True))
    uniques = np.asarray(uniques, dtype=object)
    text = pd.Series(uniques, dtype=object).astype(str).str.lstrip("'").to_numpy(dtype=object)
    text[pd.isna(uniques)] = None
    return codes, text


def parse_numbers(s: pd.Series):
    """A column as float64 (text parsed, NaN where missing or blank) and which
    cells are neither numbers nor blank."""
    values = pd.to_numeric(s, errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    bad = np.isnan(values) & s.notna().to_numpy()
    if bad.any():                   # blank text is missing, not bad
        bad[bad] = (s[bad].astype(str).str.strip() != "").to_numpy()
    return values, bad


def _numbers(s: pd.Series, what: str) -> np.ndarray:
    values, bad = parse_numbers(s)
    if bad.any():
        raise DataError(f"{what}: {show(s.iloc[int(np.flatnonzero(bad)[0])])} is not a number")
    return values


def _interval_cells(original, lo, hi, wraps=False, reach: int = 1) -> np.ndarray:
    x = _numbers(original, f"column {show(original.name)}")
    a, b = _numbers(lo, f"column {show(lo.name)}"), _numbers(hi, f"column {show(hi.name)}")
    present = ~np.isnan(x)
    low, high = _reached(x[present], reach)
    span = high - low
    if present.any():             # an open end (90+) reaches the column's least or greatest value
        a = np.where(np.isnan(a) & ~np.isnan(b), low, a)
        b = np.where(np.isnan(b) & ~np.isnan(a), high, b)
    width = np.maximum(np.minimum(b, high) - np.maximum(a, low), 0.0)     # [a, b] clipped to [low, high]
    if wraps:                                   # [a, 180] and [-180, b], each clipped to [low, high]
        around = np.maximum(high - np.maximum(a, low), 0.0) + np.maximum(np.minimum(b, high) - low, 0.0)
        width = np.where(a > b, around, width)
    cells = width / span if span > 0 else np.zeros_like(width)
    empty = np.isnan(a) | np.isnan(b)
    return np.where(empty, present.astype(float), cells)


def _reached(x: np.ndarray, reach: int) -> tuple[float, float]:
    """The least and greatest of ``x`` that ``reach`` of them reach from
    either end (its range where fewer than twice as many); (0, 0) for none."""
    if x.size == 0:
        return 0.0, 0.0
    if x.size < 2 * reach:
        return float(x.min()), float(x.max())
    ends = np.partition(x, [reach - 1, x.size - reach])
    return float(ends[reach - 1]), float(ends[x.size - reach])


def _date_cells(original, lo, hi, fmt, reach: int = 1) -> np.ndarray:
    """:func:`_interval_cells` of a date column, in its whole days or seconds."""
    from .dates import parse

    x, unit = parse(original, fmt)
    a, b = parse(lo, unit=unit, open_end=-np.inf)[0], parse(hi, unit=unit, open_end=np.inf)[0]
    name = original.name
    return _interval_cells(pd.Series(x, name=name), pd.Series(a, name=lo.name), pd.Series(b, name=hi.name),
                           reach=reach)


def _suppressed_cells(published) -> np.ndarray:
    return _text(published).eq(SUPPRESSED).to_numpy(dtype=float)


def _categorical_charges(covered: np.ndarray, distinct: int) -> tuple[np.ndarray, np.ndarray]:
    """Iyengar's (c - 1) / (|A| - 1) and Xu et al.'s c / |A| (0 for c = 1) of cells covering c values."""
    return (covered - 1) / max(distinct - 1, 1), np.where(covered > 1, covered / max(distinct, 1), 0.0)


def _set_cells(original, published) -> tuple[np.ndarray, np.ndarray]:
    codes, uniques = factorize_exact(original.reset_index(drop=True))
    distinct = len(uniques)
    published_codes, text = _coded_text(published)
    group = pd.factorize(text, use_na_sentinel=False)[0].astype(np.int64)[published_codes]     # one per text
    pairs = dense_unique(group * max(distinct, 1) + codes, (group.max() + 1) * max(distinct, 1))[0]
    size = np.bincount(pairs // max(distinct, 1), minlength=group.max() + 1)
    return _categorical_charges(size[group], distinct)


def _hierarchy_cells(original, published, hierarchy) -> np.ndarray:
    paths = hierarchy.paths
    leaf_index = {str(v): i for i, v in enumerate(paths[:, 0])}
    leaves = np.array([leaf_index.get(str(v), -1) for v in original.tolist()])
    if (leaves < 0).any():
        bad = original.iloc[int(np.flatnonzero(leaves < 0)[0])]
        raise DataError(f"value {show(bad)} of column {show(original.name)} is not in its hierarchy")
    present = np.zeros(paths.shape[0], dtype=bool)
    present[leaves] = True
    distinct = int(present.sum())
    pub = _text(published).to_numpy(dtype=object)
    covered = np.zeros(len(leaves))
    cache = {}
    for i, (leaf, label) in enumerate(zip(leaves.tolist(), pub.tolist())):
        key = (leaf, label)
        if key not in cache:
            path = paths[leaf]
            level = next((j for j in range(path.size) if path[j] == label), None)
            if level is None:
                raise DataError(f"published {show(label)} is not above {show(path[0])} in the hierarchy "
                                f"of column {show(original.name)}")
            cache[key] = int((np.all(paths[:, level:] == path[level:], axis=1) & present).sum())
        covered[i] = cache[key]
    return _categorical_charges(covered, distinct)
