"""Measure a released table as it is: the equivalence classes its quasi-identifier
columns form, their k, l (both definitions) and t, and which classes violate
a requested level.

The audit looks only at the released columns, never at how they were made, so
it independently checks every generalizing job before anything is written.
Missing values are values like any other: rows with a missing quasi-identifier
form classes of their own and are never dropped. Everything is vectorized
(factorizations and bincounts over the rows, sorted (class, value) pairs).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np
import pandas as pd

from ._codes import combined_key, factorize_exact
from ._text import plural, show
from ._validation import check_scalar_columns, check_unique_columns
from .errors import AuditError, DataError, InfeasibleError, ParameterError
from .criteria import CRITERIA, DISTRIBUTION, meets
from .models import measure_classes, one_model, sensitive_codes
from .progress import stepped

__all__ = ["AuditReport", "SUPPRESSED", "T_FAR", "audit", "check_roles", "class_codes", "default_recursive_l",
           "disclosure_figures", "disclosure_warnings", "distribution_figures", "may_read_suppressed",
           "own_population_risk", "require"]

SUPPRESSED = "*"
EXAMPLES = 5          # violating classes described in a report, per model
T_FAR = 0.5           # a class whose sensitive values' distribution lies farther than this from the table's (EMD)


class AuditReport(dict):
    """The audit's figures (a dict, so it serializes to JSON as is, with
    attribute access like SciPy's ``OptimizeResult``); ``per_class`` holds one
    row per class: its quasi-identifier values under ``"qi"`` and its size, l,
    l_distinct and t under ``"measures"``.

    Examples
    --------
    >>> import pandas as pd
    >>> import geoanon as ga
    >>> df = pd.DataFrame({"zip": ["277**"] * 3 + ["276**"] * 2, "age": ["30-39"] * 3 + ["40-49"] * 2})
    >>> report = ga.audit(df, ["zip", "age"])
    >>> report.k, report["classes"]
    (2, 2)
    >>> report.per_class
              qi        measures
             zip    age     size
    class
    0      277**  30-39        3
    1      276**  40-49        2
    """

    per_class: pd.DataFrame = None

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def class_codes(df: pd.DataFrame, qi: Sequence[str]) -> np.ndarray:
    """Dense equivalence-class id of every row, in order of first appearance:
    rows agreeing on all of ``qi`` share an id. One factorization per column."""
    missing = [c for c in qi if c not in df.columns]
    if missing:
        raise DataError(f"no column {missing[0]!r} in the table")
    columns = [factorize_exact(df[col])[0] for col in qi]
    return combined_key(columns) if columns else np.zeros(len(df), dtype=np.int64)


def _suppressed_cells(column: pd.Series) -> int:
    """The cells of ``column`` that read ``*``."""
    return int((column.astype(object) == SUPPRESSED).sum()) if may_read_suppressed(column.dtype) else 0


def may_read_suppressed(dtype) -> bool:
    """Whether a column of ``dtype`` can hold a cell that reads ``*``: not
    one of numbers, booleans or datetimes."""
    return not (pd.api.types.is_numeric_dtype(dtype) or pd.api.types.is_datetime64_any_dtype(dtype))


@stepped("auditing")
def audit(df: pd.DataFrame, qi: Sequence[str], sensitive: str | None = None, *, ground="equal", order=None,
          k=None, l=None, l_distinct=None, t=None, original=None, hierarchies=None, model=None,
          population=None) -> AuditReport:
    """Measure ``df`` over the quasi-identifiers ``qi`` (and ``sensitive``).

    Parameters
    ----------
    df : DataFrame
    qi : list of str
        The quasi-identifier columns; rows agreeing on all of them form a class.
    sensitive : str, optional
        The sensitive column, for l and t.
    ground : "equal", "ordered", Hierarchy or matrix
        The EMD's ground distance (:mod:`geoanon.models`).
    order : sequence, optional
        The order of the sensitive values for "ordered" or a matrix.
    k, l, l_distinct, t : optional
        Requested levels: the report lists the classes that violate them.
    original : DataFrame, optional
        The input the release was made from (same rows, same order): adds
        ``ncp``, the information loss of every input column published among
        ``qi`` (as itself, or as ``{col}_min`` and ``{col}_max``), with
        :func:`geoanon.information_loss` and the treatments it infers (an
        interval's range between the values k records reach, as a release
        reports it, with ``k`` given), and ``units``, the same loss in the columns' own units
        (:func:`geoanon.ncp.plain_units`: interval widths, the share of
        cells published exactly; a location's coordinates as intervals, in
        degrees).
    hierarchies : dict, optional
        {column: Hierarchy} of columns published as hierarchy nodes, for ``ncp``.
    model : Model, optional
        ``sensitive``, ``ground``, ``order`` and the requested levels as one
        :class:`~geoanon.models.Model`, instead of those keywords.
    population : DataFrame, optional
        The population the released rows are a sample of, published the same
        way (its ``qi`` columns; ARX's research subset): adds ``risk`` with
        the journalist risk, 1 / the rows of the population in a class (its
        largest and its mean over the sample's records) and the marketer risk
        (El Emam's expected share of records re-identified, the mean of
        f / F over the records). Without it ``risk`` holds the prosecutor
        risk and the marketer risk of the release as its own population
        (classes / rows).

    Returns
    -------
    AuditReport
        ``rows``, ``classes``, ``class_sizes`` (min, median, mean, max),
        ``k`` (smallest class), with ``sensitive``: ``l`` (smallest
        |M| / most frequent count: no value fills more than 1/l of any class),
        ``l_distinct`` (fewest distinct values in a class), ``t`` (largest EMD
        to the table's distribution); ``suppressed_cells`` ("*" in ``qi``);
        ``violations`` per requested level (classes, rows, examples) and ``ok``;
        ``ncp`` and ``units`` with ``original``.

    Examples
    --------
    Two classes of three records; one holds "flu" twice, so no value fills
    at most half of it:

    >>> import pandas as pd
    >>> import geoanon as ga
    >>> df = pd.DataFrame({"zip": ["277**"] * 3 + ["276**"] * 3,
    ...                    "age": ["30-39"] * 3 + ["40-49"] * 3,
    ...                    "diagnosis": ["flu", "copd", "flu", "flu", "asthma", "copd"]})
    >>> report = ga.audit(df, ["zip", "age"], "diagnosis", k=3, l=2)
    >>> report["k"], report["l"], report["l_distinct"]
    (3, 1.5, 2)
    >>> report["ok"], report["violations"]["l"]["examples"]
    (False, [{'zip': '277**', 'age': '30-39', 'size': 3, 'l': 1.5}])
    """
    qi = list(qi)
    check_unique_columns(df)
    model = one_model(model, k=k, l=l, l_distinct=l_distinct, t=t, sensitive=sensitive, ground=ground, order=order)
    requested, sensitive = model.levels(), model.sensitive
    check_roles(qi, sensitive)
    if sensitive is not None and sensitive not in df.columns:
        raise DataError(f"no column {sensitive!r} in the table")
    check_scalar_columns(df, [*qi, sensitive])
    if requested.get("k", 0) > len(df):
        raise InfeasibleError(f"k={requested['k']} is larger than the table ({plural(len(df), 'row')})")
    codes = class_codes(df, qi)
    report = AuditReport(rows=int(len(df)), qi=qi, sensitive=sensitive, classes=0, k=0)
    if codes.size == 0:
        report.update(class_sizes=None, suppressed_cells=0, violations={}, ok=not requested)
        return report
    if sensitive is None:
        measures = measure_classes(codes, None)
    else:
        s, n_values, ground, _ = sensitive_codes(df[sensitive], model.ground, model.order)
        recursive_l = default_recursive_l(model, len(np.unique(s)))
        measures = measure_classes(codes, s, n_values, ground, distribution=True, recursive_l=recursive_l)
        report["ground"] = ground if isinstance(ground, str) else type(ground).__name__.lower()
    sizes = measures["size"]
    report.update(classes=int(sizes.size), k=int(sizes.min()))
    report["class_sizes"] = {"min": int(sizes.min()), "median": float(np.median(sizes)),
                             "mean": round(float(sizes.mean()), 6), "max": int(sizes.max())}
    if sensitive is not None:
        report.update(l=round(float(measures["l"].min()), 12), l_distinct=int(measures["l_distinct"].min()),
                      t=round(float(measures["t"].max()), 12), **distribution_figures(measures, recursive_l),
                      **disclosure_figures(len(df), *((int(w.sum()), int(sizes[w].sum())) for w in
                                                      (measures["l_distinct"] == 1, measures["t"] > T_FAR))))
    report["suppressed_cells"] = sum(_suppressed_cells(df[c]) for c in qi)
    first_rows = np.flatnonzero(np.diff(np.maximum.accumulate(codes), prepend=-1))   # codes number by first row
    values = df[qi].iloc[first_rows].reset_index(drop=True)
    per_class = pd.concat({"qi": values, "measures": pd.DataFrame(measures)}, axis=1)
    per_class.index.name = "class"
    report.per_class = per_class
    report["violations"] = {name: _violations(per_class, name, level, qi) for name, level in requested.items()}
    report["ok"] = not any(v["classes"] for v in report["violations"].values())
    report["risk"] = risk_figures(df, qi, codes, sizes, population)
    if original is not None:
        report.update(release_loss(original, df, qi, hierarchies, reach=requested.get("k", 1)))
    return report


def disclosure_figures(rows: int, homogeneous: tuple, far: tuple) -> dict:
    """What the sensitive column's values tell beyond k, whatever was asked:
    ``homogeneous``, the classes whose records all share one value (l = 1:
    whoever places a record in its class learns its value), and
    ``far_from_table``, those whose distribution of values lies farther than
    :data:`T_FAR` from the table's (EMD); each given as (classes, records) of
    ``rows``, reported with the records' share."""
    def counted(classes, records) -> dict:
        return {"classes": int(classes), "records": int(records), "share": round(int(records) / max(rows, 1), 6)}

    return {"homogeneous": counted(*homogeneous), "far_from_table": {"t": T_FAR, **counted(*far)}}


def disclosure_warnings(report, model) -> list:
    """The warnings of an audited release whose sensitive column tells more
    than its model asked to prevent (:func:`disclosure_figures`): classes of
    one value (l = 1) always, classes far from the table when no t was asked."""
    out = []
    sensitive = model.sensitive
    same = report.get("homogeneous")
    if same and same["records"]:
        out.append(f"{plural(same['records'], 'record')} ({same['share']:.1%}) are in "
                   f"{plural(same['classes'], 'class', 'classes')} whose records all share one {show(sensitive)} "
                   f"value (l = 1): whoever places a record in its class learns it; ask l='2' or more to prevent it")
    far = report.get("far_from_table")
    if far and far["records"] and "t" not in model.levels():
        out.append(f"{plural(far['records'], 'record')} ({far['share']:.1%}) are in "
                   f"{plural(far['classes'], 'class', 'classes')} whose {show(sensitive)} values differ from the "
                   f"table's by more than t = {far['t']} (EMD): their class tells much about them; ask t='{far['t']}'"
                   " or less to prevent it")
    return out


def default_recursive_l(model, distinct: int) -> int | None:
    """The l at which an audit measures recursive c: the requested one, else
    the table's number of sensitive values (none for a single value)."""
    return model.recursive_l or (distinct if distinct > 1 else None)


def own_population_risk(classes: int, rows: int, smallest: int) -> dict:
    """Prosecutor risk (1 / class size: its largest, its mean over the
    records) and the marketer risk of a release that is its own population."""
    mean = round(classes / rows, 12)
    return {"prosecutor": {"max": round(1.0 / smallest, 12), "mean": mean}, "marketer": mean}


def risk_figures(df: pd.DataFrame, qi, codes: np.ndarray, sizes: np.ndarray, population=None) -> dict:
    """Prosecutor risk (1 / class size: its largest, its mean over records),
    marketer risk (mean of f / F over records: classes / rows when the
    release is its own population) and, with ``population``, journalist risk
    (1 / F, F the population rows of a record's class)."""
    n = int(sizes.sum())
    out = own_population_risk(int(sizes.size), n, int(sizes.min()))
    if population is None:
        return out
    missing = [c for c in qi if c not in population.columns]
    if missing:
        raise DataError(f"the population has no column {missing[0]!r}")
    first = np.unique(codes, return_index=True)[1]
    keys = pd.MultiIndex.from_frame(df[qi].iloc[first].astype(object).where(df[qi].iloc[first].notna(), None))
    held = population[qi].astype(object).where(population[qi].notna(), None).value_counts(dropna=False)
    F = held.reindex(keys).to_numpy(dtype=float)
    if np.isnan(F).any() or (F < sizes).any():
        short = int(np.isnan(F).sum() + (F < sizes).sum())
        raise DataError("the population must hold every released row, published the same way: "
                        f"{short} classes are missing from it or larger than in it")
    per_record = 1.0 / F[codes]
    out["journalist"] = {"max": round(float(per_record.max()), 12), "mean": round(float(per_record.mean()), 12)}
    out["marketer"] = round(float((sizes / F).sum() / n), 12)
    return out


def release_loss(original: pd.DataFrame, released: pd.DataFrame, qi, hierarchies=None, reach: int = 1) -> dict:
    """``ncp`` and ``units`` (:func:`geoanon.ncp.plain_units`) of the input
    columns published among ``qi``; an interval column's range between the
    values ``reach`` records reach (the requested k, as a release reports it)."""
    from .ncp import infer_treatments, information_loss, plain_units

    if len(original) != len(released):
        raise DataError(f"the original has {plural(len(original), 'row')}, the release {len(released)}")
    published = set(qi)
    columns = [c for c in original.columns if c in published or {f"{c}_min", f"{c}_max"} <= published]
    if not columns:
        raise DataError("no input column of the original is published among the quasi-identifiers")
    treatments = infer_treatments(original, released, columns, hierarchies)
    return {"ncp": information_loss(original, released, treatments, hierarchies=hierarchies, reach=reach),
            "units": plain_units(original, released, treatments)}


def check_roles(qi: Sequence[str], sensitive=None) -> None:
    """ParameterError when a column is listed twice among the quasi-identifiers
    or is both a quasi-identifier and the sensitive column."""
    seen = pd.Index(qi)
    if seen.has_duplicates:
        raise ParameterError(f"the quasi-identifier {seen[seen.duplicated()][0]!r} is listed twice")
    if sensitive is not None and sensitive in qi:
        raise ParameterError(f"the sensitive column {sensitive!r} cannot also be a quasi-identifier")


def distribution_figures(measures: dict, recursive_l) -> dict:
    """The table's figures for the models of :mod:`geoanon.criteria`: the
    smallest entropy l, and the largest recursive c (at ``recursive_l``: the
    requested l, else the table's number of distinct values), beta, enhanced
    beta and delta over the classes; None where no level can hold (a class
    with fewer than l values, a share above -ln q for enhanced beta)."""
    worst = {name: (measures[CRITERIA[name].measure].min() if CRITERIA[name].bound == "min"
                    else measures[CRITERIA[name].measure].max()) for name in DISTRIBUTION if name != "recursive"}
    out = {name: _plain(value) if np.isfinite(value) else None for name, value in worst.items()}
    c = measures["recursive_c"].max() if recursive_l is not None else np.nan
    out["recursive"] = None if recursive_l is None else {"l": int(recursive_l),
                                                         "c": _plain(c) if np.isfinite(c) else None}
    return out


def _violations(per_class: pd.DataFrame, name: str, level, qi) -> dict:
    measures = per_class["measures"]
    measure = measures[CRITERIA[name].measure].to_numpy()
    bad = ~meets(name, measure, level)
    sizes = measures["size"].to_numpy()
    shown = [{**{c: _plain(v) for c, v in zip(qi, per_class["qi"].iloc[i])}, "size": int(sizes[i]),
              name: _plain(measure[i])} for i in np.flatnonzero(bad)[:EXAMPLES]]
    return {"level": list(level) if name == "recursive" else level, "classes": int(bad.sum()),
            "rows": int(sizes[bad].sum()), "examples": shown}


def _plain(v):
    """A JSON-friendly scalar (None for NaN and infinities, which JSON lacks)."""
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating, float)):
        return None if not np.isfinite(v) else round(float(v), 12)
    return None if pd.isna(v) else v if isinstance(v, (int, str)) else str(v)


def require(df: pd.DataFrame, qi: Sequence[str], *, k=None, sensitive=None, l=None, l_distinct=None, t=None,
            ground="equal", order=None, model=None) -> AuditReport:
    """Audit ``df`` and refuse (AuditError) if any class violates a requested
    level: the keywords as in :func:`audit`, or ``model``."""
    model = one_model(model, k=k, l=l, l_distinct=l_distinct, t=t, sensitive=sensitive, ground=ground, order=order)
    report = audit(df, qi, model=model)
    if report["rows"] and not report["ok"]:
        name, v = next((n, v) for n, v in report["violations"].items() if v["classes"])
        level = tuple(v["level"]) if name == "recursive" else v["level"]
        raise AuditError(f"refusing to release: {plural(v['rows'], 'row')} in {plural(v['classes'], 'class', 'classes')} "
                         f"violate{'s' if v['rows'] == 1 else ''} {name}="
                         f"{level} over columns {', '.join(qi)}")
    return report
