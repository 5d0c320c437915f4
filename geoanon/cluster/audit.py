"""The audit on a cluster: distributed group-bys, the same figures as
:func:`geoanon.audit` (k, classes and their sizes, l, l_distinct, t under
any ground, suppressed cells, violations per requested level)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._text import plural
from .._codes import combined_key
from ..audit import (SUPPRESSED, T_FAR, AuditReport, check_roles, default_recursive_l, disclosure_figures,
                     distribution_figures, may_read_suppressed, own_population_risk)
from ..models import sensitive_codes
from ..errors import AuditError, DataError, InfeasibleError
from ..criteria import CRITERIA, DISTRIBUTION, meets
from ..models import measure_classes, one_model
from .client import cluster_client
from .release import check_scalar_dataset, is_frame, read_dataset

__all__ = ["audit", "audit_frame", "undeclared_frame"]


def audit(source, qi, sensitive=None, *, ground="equal", order=None, k=None, l=None, l_distinct=None, t=None,
          model=None, scheduler=None, scheduler_file=None, sep=",", encoding="utf-8") -> AuditReport:
    """Measure a dataset (Parquet, CSV files, or a dask DataFrame) over the
    quasi-identifiers ``qi`` on a cluster; see :func:`geoanon.audit` (every
    ground: equal, ordered, a Hierarchy or a matrix; ``model`` for the
    levels of :mod:`geoanon.criteria`).

    Examples
    --------
    >>> import dask.dataframe as dd
    >>> import distributed
    >>> import pandas as pd
    >>> import geoanon.cluster as gc
    >>> client = distributed.Client(n_workers=1, processes=False, dashboard_address=":0")
    >>> df = pd.DataFrame({"zip": ["277**"] * 3 + ["276**"] * 3,
    ...                    "diagnosis": ["flu", "copd", "flu", "flu", "asthma", "copd"]})
    >>> report = gc.audit(dd.from_pandas(df, npartitions=2), ["zip"], "diagnosis", k=3, l=2, scheduler=client)
    >>> report["k"], report["l"], report["ok"]
    (3, 1.5, False)
    >>> client.close()
    """
    model = one_model(model, k=k, l=l, l_distinct=l_distinct, t=t, sensitive=sensitive, ground=ground, order=order)
    with cluster_client(scheduler, scheduler_file=scheduler_file) as _:
        ddf = source if is_frame(source) else read_dataset(source, sep=sep, encoding=encoding)
        return audit_frame(ddf, qi, model=model, refuse=False)


ON_DISTRIBUTION = [CRITERIA[name] for name in DISTRIBUTION]
MEASURES = {"size": "i8", "l": "f8", "distinct": "i8", "t": "f8", **{c.measure: "f8" for c in ON_DISTRIBUTION}}


def audit_frame(ddf, qi, *, model, refuse=True) -> AuditReport:
    """:func:`audit` of a dask DataFrame on the current client; with
    ``refuse``, AuditError when a requested level is violated (as
    :func:`geoanon.audit.require`). Per class: the (class, sensitive value)
    pairs counted by a group-by, moved by class so that each class's pairs
    are in one partition, and measured there by
    :func:`~geoanon.models.measure_classes` against the dataset's distribution."""
    import dask

    qi = list(qi)
    sensitive, ground, order, k = model.sensitive, model.ground, model.order, model.k
    check_roles(qi, sensitive)
    missing = [c for c in [*qi, *([sensitive] if sensitive else [])] if c not in ddf.columns]
    if missing:
        raise DataError(f"no column {missing[0]!r} in the dataset")
    check_scalar_dataset(ddf, [*qi, sensitive])
    keys = [*qi, sensitive] if sensitive else qi
    pairs = ddf[keys].groupby(keys, dropna=False, observed=True).size(split_out=max(ddf.npartitions // 4, 1))
    pairs = pairs.rename("count").reset_index()
    if sensitive:
        values = ddf[sensitive].value_counts(dropna=False, sort=False).compute()
        codes, n_values, ground, listed = sensitive_codes(pd.Series(values.index, dtype=object), ground, order)
        q = np.bincount(codes, weights=values.to_numpy(), minlength=n_values) / values.sum()
        value_code = pd.Series(codes, index=values.index)
        recursive_l = default_recursive_l(model, int((values > 0).sum()))
        per_class = pairs.shuffle(on=qi).map_partitions(_class_measures, qi, sensitive, value_code, n_values, ground,
                                                        q, recursive_l, meta=MEASURES)
    else:
        per_class = pairs.rename(columns={"count": "size"})
    sizes = per_class["size"]
    suppressed = [(ddf[c].astype(str) == SUPPRESSED).sum() for c in qi if may_read_suppressed(ddf[c].dtype)]
    figures = {"histogram": sizes.value_counts(), "suppressed": suppressed}
    requested = model.levels()
    for name, level in requested.items():
        bad = _violating(per_class, name, level)
        figures[name] = (bad.sum(), per_class["size"][bad].sum())
    if sensitive:
        figures["measures"] = (per_class["l"].min(), per_class["distinct"].min(), per_class["t"].max())
        figures["distribution"] = {c.measure: per_class[c.measure].min() if c.bound == "min" else
                                   per_class[c.measure].max() for c in ON_DISTRIBUTION}
        telling = {"homogeneous": per_class["distinct"] == 1, "far": per_class["t"] > T_FAR}
        figures["telling"] = {name: (which.sum(), per_class["size"][which].sum()) for name, which in telling.items()}
    (computed,) = dask.compute(figures)
    hist = computed["histogram"].sort_index()
    n_classes = int(hist.sum())
    rows = int((hist.index.to_numpy() * hist.to_numpy()).sum())
    report = AuditReport(rows=rows, qi=qi, sensitive=sensitive, classes=n_classes, k=int(hist.index.min()) if
                         n_classes else 0)
    if k is not None and k > rows:
        raise InfeasibleError(f"k={k} is larger than the table ({plural(rows, 'row')})")
    report["class_sizes"] = _sizes(hist) if n_classes else None
    if sensitive:
        lv, ld, tv = computed["measures"]
        extra = {name: np.array([value]) for name, value in computed["distribution"].items()}
        report.update(l=round(float(lv), 12), l_distinct=int(ld), t=round(float(tv), 12),
                      **distribution_figures(extra, recursive_l),
                      ground=ground if isinstance(ground, str) else type(ground).__name__.lower())
        report.update(disclosure_figures(rows, computed["telling"]["homogeneous"], computed["telling"]["far"]))
    report["suppressed_cells"] = int(sum(int(v) for v in computed["suppressed"]))
    if n_classes:
        report["risk"] = own_population_risk(n_classes, rows, int(hist.index.min()))
    report["violations"] = {name: {"level": list(level) if name == "recursive" else level,
                                   "classes": int(computed[name][0]), "rows": int(computed[name][1]),
                                   "examples": []} for name, level in requested.items()}
    report["ok"] = all(v["classes"] == 0 for v in report["violations"].values())
    if refuse and not report["ok"]:
        name, v = next((n, v) for n, v in report["violations"].items() if v["classes"])
        raise AuditError(f"refusing to release: {plural(v['rows'], 'row')} in "
                         f"{plural(v['classes'], 'class', 'classes')} violate {name}={v['level']} over columns "
                         f"{', '.join(qi)}")
    return report


def undeclared_frame(ddf, loose: list, k: int, warnings: list) -> dict:
    """:func:`geoanon.pipeline.roles.measure_undeclared` of a written
    dataset by a distributed group-by over ``class_id`` and the columns with
    no role: the report's ``undeclared`` entry, and its warning."""
    from .._cells import nested_as_text
    from ..pipeline.roles import undeclared_warning

    if not loose:
        return {}
    cols = ["class_id", *loose]
    # as many output partitions as parts (a column without a role may be unique per row: a group per row);
    # lists and records grouped by their text
    sizes = ddf[cols].map_partitions(nested_as_text).groupby(cols, dropna=False, observed=True).size(
        split_out=max(ddf.npartitions, 1))
    # each group lies in one output partition: histograms per partition, summed (dask's value_counts of a
    # group-by split over several partitions fails: "'0' not found in columns")
    per_part = sizes.map_partitions(lambda s: s.value_counts(), meta=pd.Series(dtype="i8", name="count"))
    hist = per_part.compute().groupby(level=0).sum()
    found = {"columns": list(loose), "unique_records": int(hist.get(1, 0)),
             "records_below_k": int(sum(int(size) * int(n) for size, n in hist.items() if size < k))}
    warnings.append(undeclared_warning(found, int((hist.index.to_numpy() * hist.to_numpy()).sum()), k))
    return {"undeclared": found}


def _class_measures(pairs: pd.DataFrame, qi, sensitive, value_code: pd.Series, n_values, ground,
                    q, recursive_l) -> pd.DataFrame:
    """Size, l, distinct l, t and the :mod:`geoanon.criteria` measures of every
    class whose (value, count) pairs are all in ``pairs``."""
    if len(pairs) == 0:
        return pd.DataFrame({name: [] for name in MEASURES}).astype(MEASURES)
    codes = np.column_stack([pd.factorize(pairs[c], use_na_sentinel=False)[0] for c in qi]).astype(np.int64)
    cls = combined_key(codes)
    value = value_code.reindex(pd.Index(pairs[sensitive], dtype=object)).to_numpy()
    if np.isnan(value.astype(np.float64)).any():
        raise DataError("the dataset changed while the audit ran")
    m = measure_classes(cls, value.astype(np.int64), n_values, ground, weights=pairs["count"].to_numpy(), q=q,
                        distribution=True, recursive_l=recursive_l)
    m["recursive_c"] = m.get("recursive_c", np.full(m["size"].size, np.nan))
    return pd.DataFrame({"size": m["size"], "l": m["l"], "distinct": m["l_distinct"], "t": m["t"],
                         **{c.measure: m[c.measure] for c in ON_DISTRIBUTION}})


COLUMNS = {"k": "size", "l_distinct": "distinct"}      # per-class columns named apart from the criteria's measures


def _violating(per_class, name, level):
    """Whether each class misses ``name`` at ``level`` (:func:`geoanon.criteria.meets`)."""
    column = COLUMNS.get(name, CRITERIA[name].measure)
    return per_class[column].map_partitions(lambda s: pd.Series(~meets(name, s.to_numpy(dtype=float), level),
                                                                index=s.index), meta=(column, bool))


def _sizes(hist: pd.Series) -> dict:
    sizes, counts = hist.index.to_numpy(dtype=np.int64), hist.to_numpy(dtype=np.int64)
    cum = np.cumsum(counts)
    total = int(cum[-1])
    lo = sizes[np.searchsorted(cum, (total + 1) // 2)]           # the middle classes' sizes, as np.median takes them
    hi = sizes[np.searchsorted(cum, total // 2 + 1)]
    median = float(lo) if total % 2 else (float(lo) + float(hi)) / 2
    return {"min": int(sizes[0]), "median": median, "mean": round(float((sizes * counts).sum() / total), 6),
            "max": int(sizes[-1])}
