"""The label job: a table's unordered label column (names, diagnoses,
occupations) into classes of labels covering >= k records each."""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .._cells import escape_formulas
from .._codes import factorize_exact
from .._text import plural, show
from .._validation import check_scalar_columns, check_unique_columns
from ..audit import require
from ..errors import DataError
from ..labels import cover_labels
from ..ncp import information_loss, plain_units
from ..progress import stepped
from ..options import release_spec
from ..regions.naming import canonical_codes, canonical_order, label_group_names
from .._validation import check_job_columns
from ..report.release import JobReport, Release
from .roles import declared_table, measure_undeclared, undeclared
from ..options.locations import LABEL

__all__ = ["canonical_labels", "generalize_labels", "label_class_names", "label_classes"]


@stepped("grouping labels")
def generalize_labels(df: pd.DataFrame, k: int, *, column: str, method: str = "balanced", missing: str = "label",
                      order: str = "given", seed=None, class_counts: bool = False, keep=None, identifiers=None,
                      strict: bool = True) -> Release:
    """Generalize a label column: each label is replaced by its class's label.

    Parameters
    ----------
    df : DataFrame
        One row per record.
    k : int
    column : str
        The label column. Values are compared exactly: "NA", "NULL" or "TRUE"
        are labels (CSV cells are read as strings).
    method, order, seed
        See :func:`geoanon.cover_labels`; the labels are given in sorted order
        (:func:`~geoanon.regions.naming.canonical_order`), not in the rows'.
    missing : {"label", "error"}
        Missing values and empty strings are labels like any other
        (``"label"``), or a DataError (``"error"``).
    class_counts : bool
        Whether ``classes`` lists each label's number of records. Off by
        default: a label with one record is that record's raw value, and the
        classes table is for the data holder, not for publication.
    keep, identifiers, strict
        Columns published as they are, and columns dropped. Any other
        column without a role is refused (UndeclaredColumnsError), or, with
        ``strict=False``, published as it is, with a warning and the records
        it singles out in the report (``undeclared``; :mod:`geoanon.pipeline.roles`).

    Returns
    -------
    Release
        ``table`` with ``column`` replaced by the class label (a class of one
        label keeps it; otherwise its most frequent label and ``+N`` for the N
        others when k records hold that label, else ``group C``; see
        :mod:`geoanon.regions.naming`) and ``class_id`` last (classes numbered
        in the labels' sorted order, not the rows'); ``classes`` holds one row per label
        (label, records, class_id, class_label), in class order.

    Examples
    --------
    >>> import pandas as pd
    >>> import geoanon as ga
    >>> df = pd.DataFrame({"name": ["Ann", "Ann", "Ann", "Bob", "Cy", "Dee", "Dee", "Dee", "Eve", "Flo"]})
    >>> release = ga.generalize_labels(df, k=3, column="name")
    >>> release.table["name"].tolist()
    ['Ann+1', 'Ann+1', 'Ann+1', 'Ann+1', 'group 1', 'group 1', 'group 1', 'Dee', 'Dee', 'Dee']
    >>> release.classes
      label  class_id class_label
    0   Ann         0       Ann+1
    1   Flo         0       Ann+1
    2   Bob         1     group 1
    3    Cy         1     group 1
    4   Eve         1     group 1
    5   Dee         2         Dee
    """
    started = time.perf_counter()
    k = release_spec("labels", k=k, column=column, method=method, missing=missing, order=order, seed=seed,
                     class_counts=class_counts, keep=keep, identifiers=identifiers, strict=strict).model.k
    check_unique_columns(df)
    df, keep = declared_table(df, identifiers, keep)
    check_job_columns(df, column)
    loose = undeclared(df, [column], keep, strict=strict)
    check_scalar_columns(df, [column])
    values = df[column]
    if missing == "error":
        empty = values.isna() | (values.astype("string").str.strip() == "").fillna(True)
        if empty.any():
            n = int(empty.sum())
            raise DataError(f"{plural(n, 'record')} {'has' if n == 1 else 'have'} a missing or empty {column!r} "
                            f"(first at row {show(df.index[int(np.argmax(empty.to_numpy()))])}); "
                            "use missing='label' to treat them as a label")
    codes, uniques = canonical_codes(*factorize_exact(values))
    uniques = pd.Index(uniques, dtype=object)
    counts = np.bincount(codes, minlength=len(uniques))
    part = cover_labels(counts, k, method=method, order=order, seed=seed)
    part.verify()

    names = escape_formulas(pd.Series(label_class_names(uniques, counts, part), dtype=object)).to_numpy(dtype=object)
    class_id = part.labels[codes]
    table = df.copy()
    table[column] = names[class_id]
    table["class_id"] = class_id
    audit = require(table, [column], k=k)
    treatments = {column: ("set", column)}
    warnings: list = []
    classes = label_classes(uniques, counts, part, names, class_counts)
    report = JobReport(
        job="labels", rows=int(len(df)), model={"k": k}, classes=part.n_classes, min_class=part.min_weight,
        max_class=part.max_weight, audit=audit, seconds=round(time.perf_counter() - started, 3),
        details={
            "labels": int(len(uniques)),
            "lower_bound": part.lower_bound,
            "ratio": round(part.ratio, 6),
            "proven_optimal": part.proven_optimal,
            "method": method,
            "column": column,
            "ncp": information_loss(df, table, treatments),
            "units": plain_units(df, table, treatments),
            **measure_undeclared(table, loose, k, warnings),
        },
        lead=("rows", "k", "labels"))
    return Release(table=table, partition=part, report=report, classes=classes, treatments=treatments,
                   warnings=warnings, location=LABEL.release_location({"label": column}))


def label_classes(uniques, counts: np.ndarray, part, names: np.ndarray, class_counts: bool) -> pd.DataFrame:
    """One row per label, in class order: the label, its records when
    ``class_counts`` (a count of 1 names a record), its class and the class's
    published name."""
    by_class = np.lexsort((-counts, part.labels))
    classes = pd.DataFrame({
        "label": escape_formulas(pd.Series(pd.Index(uniques, dtype=object).take(by_class), dtype=object)),
        "class_id": part.labels[by_class],
        "class_label": names[part.labels[by_class]],
    })
    if class_counts:
        classes.insert(1, "records", counts[by_class])
    return classes


def canonical_labels(uniques, counts: np.ndarray):
    """``(uniques, counts)`` with the labels in :func:`~geoanon.regions.naming.canonical_order`:
    the grouping, the classes' numbers and names then do not depend on the rows' order."""
    order = canonical_order(uniques)
    return pd.Index([uniques[i] for i in order.tolist()], dtype=object), counts[order]


def label_class_names(uniques, counts, part) -> list:
    """The published value of each class (:func:`~geoanon.regions.naming.label_group_names`):
    its only label, its most frequent label and ``+N`` when at least k
    records hold it, else ``group C`` (C its class id)."""
    members = [[] for _ in range(part.n_classes)]
    held = [[] for _ in range(part.n_classes)]
    for i, c in enumerate(part.labels.tolist()):
        members[c].append(uniques[i])
        held[c].append(int(counts[i]))
    return label_group_names(members, held, part.k)
