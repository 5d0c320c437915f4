"""Labels on a cluster: counts by the workers, the cover on the client (the
label list is small), the relabelling on the workers. The release is the
in-memory engine's, row for row: labels are numbered in order of first
appearance over the dataset's partitions in order, as
:func:`geoanon.generalize_labels` numbers them over the rows."""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .._cells import escape_formulas
from .._codes import factorize_exact
from .._text import plural
from ..errors import DataError, InfeasibleError
from ..labels import cover_labels
from ..report.release import JobReport
from ..pipeline.labels import label_classes, canonical_labels, label_class_names
from ..options import release_spec
from .client import cluster_client, cluster_failures
from .release import (ClusterRelease, check_dataset_output, declared_dataset, in_published_order, is_frame,
                      open_dataset, write_dataset, write_staged)
from ..options.locations import LABEL

__all__ = ["generalize_labels"]


def generalize_labels(source, k: int, output, *, column: str, method="balanced", missing="label", order="given",
                      seed=None, class_counts=False, scheduler=None, scheduler_file=None, sep=",", encoding="utf-8",
                      keep=None, identifiers=None, strict=True, keep_order=False) -> ClusterRelease:
    """Generalize a dataset's label column on a cluster, written as a Parquet
    dataset at ``output`` (rows in the input's order); parameters as
    :func:`geoanon.generalize_labels` and
    :func:`geoanon.cluster.generalize_points`.
    ``keep``, ``identifiers`` and ``strict`` as in memory (the columns with
    no role are measured over the written dataset: ``undeclared``);
    ``keep_order``: write the rows in the input's order, not the published
    one (:func:`~geoanon.cluster.release.in_published_order`).

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> import dask.dataframe as dd
    >>> import distributed
    >>> import pandas as pd
    >>> import geoanon.cluster as gc
    >>> client = distributed.Client(n_workers=1, processes=False, dashboard_address=":0")
    >>> folder = tempfile.TemporaryDirectory()
    >>> df = pd.DataFrame({"name": ["Ann", "Ann", "Ann", "Bob", "Cy", "Dee", "Dee", "Dee", "Eve", "Flo"]})
    >>> release = gc.generalize_labels(dd.from_pandas(df, npartitions=2), 3, Path(folder.name, "released"),
    ...                                column="name", scheduler=client)
    >>> pd.read_parquet(release.output)["name"].value_counts().sort_index()
    name
    Ann+1      4
    Dee        3
    group 1    3
    Name: count, dtype: int64
    >>> client.close(); folder.cleanup()
    """
    started = time.perf_counter()
    k = release_spec("labels", "dask", k=k, column=column, method=method, missing=missing, order=order, seed=seed,
                     class_counts=class_counts, scheduler=scheduler, scheduler_file=scheduler_file, sep=sep,
                     encoding=encoding, keep=keep, identifiers=identifiers, strict=strict,
                     keep_order=keep_order).model.k
    output = check_dataset_output(output, [] if is_frame(source) else [source])
    with cluster_client(scheduler, scheduler_file=scheduler_file), cluster_failures():
        ddf, loose = declared_dataset(open_dataset(source, column, sep=sep, encoding=encoding), [column], identifiers,
                                      keep, strict=strict)
        found = ddf[column].map_partitions(_label_counts, meta=(None, "object")).compute()
        uniques, counts, empty = _merge_counts(list(found))
        uniques, counts = canonical_labels(uniques, counts)
        rows = int(counts.sum())
        if rows == 0:
            raise DataError("the dataset has no rows")
        if missing == "error" and empty:
            raise DataError(f"{plural(empty, 'record')} {'has' if empty == 1 else 'have'} a missing or empty "
                            f"{column!r}; use missing='label' to treat them as a label")
        if k > rows:
            raise InfeasibleError(f"k={k} is larger than the dataset ({plural(rows, 'row')})")
        part = cover_labels(counts, k, method=method, order=order, seed=seed)
        part.verify()
        names = escape_formulas(pd.Series(label_class_names(uniques, counts, part), dtype=object)).to_numpy(
            dtype=object)
        lookup = pd.Index(pd.Series(uniques, dtype=object))
        meta = ddf._meta.assign(**{column: pd.Series(dtype="str"), "class_id": pd.Series(dtype="i8")})
        released = ddf.map_partitions(_relabel, column, lookup, names, part.labels, meta=meta)
        if not keep_order:
            released = in_published_order(released)
        warnings: list = []

        def write_and_audit(staged):
            from ..models import Model
            from .audit import audit_frame, undeclared_frame

            written = write_dataset(released, staged)
            return audit_frame(written, [column], model=Model(k=k)), undeclared_frame(written, loose, k, warnings), \
                list(written.columns)

        audit, undeclared, columns = write_staged(output, write_and_audit)
    report = JobReport(
        job="labels", rows=rows, model={"k": k}, classes=part.n_classes, min_class=part.min_weight,
        max_class=part.max_weight, audit=audit, seconds=round(time.perf_counter() - started, 3),
        details={"labels": int(len(uniques)), "lower_bound": part.lower_bound, "ratio": round(part.ratio, 6),
                 "proven_optimal": part.proven_optimal, "method": method, "column": column, "engine": "dask",
                 **undeclared},
        lead=("rows", "k", "labels"))
    return ClusterRelease(report=report, classes=label_classes(uniques, counts, part, names, class_counts),
                          warnings=warnings, treatments={column: ("set", column)},
                          location=LABEL.release_location({"label": column}), output=output, columns=columns,
                          sizes=np.asarray(part.weights, dtype=np.int64))


def _label_counts(values: pd.Series) -> pd.Series:
    """(labels in order of first appearance, their counts, missing or empty cells) of a partition."""
    codes, uniques = factorize_exact(values.reset_index(drop=True))
    empty = values.isna() | (values.astype("string").str.strip() == "").fillna(True)
    return pd.Series([(np.asarray(uniques, dtype=object), np.bincount(codes, minlength=len(uniques)),
                       int(empty.sum()))])


def _merge_counts(found: list):
    """The dataset's labels in order of first appearance and their counts."""
    if not found:
        return np.zeros(0, dtype=object), np.zeros(0, dtype=np.int64), 0
    labels = np.concatenate([u for u, _, _ in found])
    codes, uniques = factorize_exact(pd.Series(labels, dtype=object))
    counts = np.bincount(codes, weights=np.concatenate([c for _, c, _ in found]), minlength=len(uniques))
    return np.asarray(uniques, dtype=object), counts.astype(np.int64), sum(e for _, _, e in found)


def _relabel(pdf: pd.DataFrame, column, lookup: pd.Index, names: np.ndarray, class_of: np.ndarray) -> pd.DataFrame:
    at = lookup.get_indexer(pdf[column])
    if (at < 0).any():
        raise DataError(f"a value of {column!r} changed while the job ran")
    out = pdf.copy()
    cls = class_of[at]
    out[column] = pd.Series(names[cls], index=out.index, dtype="str")
    out["class_id"] = cls.astype(np.int64)
    return out
