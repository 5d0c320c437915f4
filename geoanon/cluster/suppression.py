"""Suppression on a cluster: the row types and their counts (with the
sensitive values) by the workers, the solvers on the type table on the
client, the mapping back on the workers. The release is the in-memory
engine's for the same method, row for row.

The client never holds a row. Each partition lists its distinct
(quasi-identifiers, sensitive value) pairs in order of first appearance with
their counts; concatenated in partition order they number the types and
values as :class:`~geoanon.tables.Instance` numbers them over the whole table,
so the solvers see the same instance. Their answer is a
:class:`~geoanon.tables.Grouping` (per entry, runs of its rows in row order);
a worker reads a row's class from its entry and its rank, offset by the
entry's rows in the partitions before. Classes are numbered on the client by
:meth:`~geoanon.tables.Instance.canonical` (by what they publish, not by
where their rows are), as in memory.
"""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from .._codes import combined_key
from ..audit import SUPPRESSED, disclosure_warnings
from ..models import sensitive_codes
from ..errors import DataError
from ..report.release import JobReport
from ..pipeline.suppression import solution_details, suppressed_cells
from ..options import release_spec
from ..tables.instance import Instance, rank_within, value_texts
from ..tables.solve import choose, solve
from .client import cluster_client, cluster_failures
from .release import (ClusterRelease, check_dataset_output, declared_dataset, in_published_order, is_frame,
                      open_dataset, write_dataset, write_staged)

__all__ = ["suppress"]


def suppress(source, qi, output, *, k=None, l=None, l_distinct=None, t=None, sensitive=None, ground="equal",
             order=None, model=None, method="auto", time_limit=60.0, scheduler=None, scheduler_file=None, sep=",",
             encoding="utf-8", keep=None, identifiers=None, strict=True, keep_order=False) -> ClusterRelease:
    """:func:`geoanon.suppress` of a dataset on a cluster, written as a
    Parquet dataset at ``output`` (rows in the input's order, published
    quasi-identifiers as text, ``class_id`` last); parameters as
    :func:`geoanon.suppress` and :func:`geoanon.cluster.generalize_points`.
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
    >>> df = pd.DataFrame({"age": ["30-39"] * 3 + ["40-49"] * 3,
    ...                    "sex": ["F", "M", "F", "M", "M", "F"],
    ...                    "zip": ["27701", "27701", "27705", "27705", "27705", "27705"]})
    >>> release = gc.suppress(dd.from_pandas(df, npartitions=2), ["age", "sex", "zip"], Path(folder.name, "released"),
    ...                       k=3, scheduler=client, keep_order=True)
    >>> pd.read_parquet(release.output)
         age sex    zip  class_id
    0  30-39   *      *         0
    1  30-39   *      *         0
    2  30-39   *      *         0
    3  40-49   *  27705         1
    4  40-49   *  27705         1
    5  40-49   *  27705         1
    >>> release.report["cost"]
    9
    >>> client.close(); folder.cleanup()
    """
    import dask

    started = time.perf_counter()
    spec = release_spec("suppress", "dask", qi=qi, k=k, l=l, l_distinct=l_distinct, t=t, sensitive=sensitive,
                        ground=ground, order=order, model=model, method=method, time_limit=time_limit,
                        scheduler=scheduler, scheduler_file=scheduler_file, sep=sep, encoding=encoding, keep=keep,
                        identifiers=identifiers, strict=strict, keep_order=keep_order)
    qi, model, method = list(spec.columns.qi), spec.model, spec["method"]
    sensitive = model.sensitive
    deadline = started + spec["time_limit"]
    output = check_dataset_output(output, [] if is_frame(source) else [source])
    columns = [*qi, *([sensitive] if model.needs_sensitive else [])]
    with cluster_client(scheduler, scheduler_file=scheduler_file), cluster_failures():
        ddf, loose = declared_dataset(open_dataset(source, columns, sep=sep, encoding=encoding),
                                      [*columns, *([sensitive] if sensitive else [])], identifiers, keep, strict=strict)
        # every pass maps the same frame (a projection could be read in other partitions) and checks its rows
        found = list(ddf.map_partitions(_pairs, columns, meta=(None, "object")).compute())
        inst, entry_of_pair, starred_type = _instance(found, qi, model)
        inst.check_feasible()
        solution = solve(inst, choose(inst, method), deadline)
        grouping = inst.canonical(solution["grouping"])
        patterns = inst.cost(grouping)[1]
        plan = dask.delayed({"entries": _partition_entries(found, entry_of_pair, inst.entries[2].size),
                             "blocks": grouping, "entry_rows": inst.entries[2], "columns": columns},
                            traverse=False)                   # one copy in the graph, not one per partition
        meta = ddf._meta.assign(**{c: pd.Series(dtype="string") for c in qi}, class_id=pd.Series(dtype="i8"))
        released = ddf.map_partitions(_publish, plan, qi, patterns, meta=meta)
        if not keep_order:
            released = in_published_order(released)
        warnings = list(solution["warnings"])

        def write_and_audit(staged):
            from .audit import audit_frame, undeclared_frame

            written = write_dataset(released, staged)
            return (audit_frame(written, [*qi, "class_id"], model=model),
                    undeclared_frame(written, loose, model.k, warnings), list(written.columns))

        audit, undeclared, columns = write_staged(output, write_and_audit)
    warnings += disclosure_warnings(audit, model)
    sizes = grouping.sizes()
    report = JobReport(
        job="suppress", rows=inst.n, model=model.as_dict(), classes=int(sizes.size), min_class=int(sizes.min()),
        max_class=int(sizes.max()), audit=audit, seconds=round(time.perf_counter() - started, 3),
        details={**solution_details(qi, solution, method, inst),
                 **_ncp(inst, grouping, patterns, starred_type, qi), "engine": "dask", **undeclared},
        lead=("rows", "qi", "sensitive", "k", "l", "l_distinct", "t", "method", "requested_method", "solver"))
    return ClusterRelease(report=report, warnings=warnings, treatments={col: ("suppress", col) for col in qi},
                          output=output, columns=columns, sizes=np.asarray(sizes, dtype=np.int64))


def _local_pairs(pdf: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Each row's pair (its distinct values, numbered in order of first
    appearance in the partition) and each pair's first row."""
    if len(pdf) == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    codes = np.column_stack([pd.factorize(pdf[c], use_na_sentinel=False)[0] for c in pdf.columns])
    pair = combined_key(codes.astype(np.int64))
    return pair, np.unique(pair, return_index=True)[1]


def _pairs(pdf: pd.DataFrame, columns: list) -> pd.Series:
    """A partition's distinct pairs in order of first appearance, and their rows."""
    pair, first = _local_pairs(pdf[columns])
    return pd.Series([(pdf[columns].iloc[first].reset_index(drop=True), np.bincount(pair, minlength=first.size))])


def _instance(found: list, qi: list, model) -> tuple[Instance, np.ndarray, np.ndarray]:
    """The instance of the whole dataset from the partitions' pairs, the
    entry of each partition's pair (all partitions' pairs in order), and
    which types hold a ``*`` already (types x columns)."""
    if not found or sum(len(f) for f, _ in found) == 0:
        raise DataError("the dataset has no rows")
    keys = pd.concat([f for f, _ in found], ignore_index=True)
    counts = np.concatenate([c for _, c in found]).astype(np.int64)
    factorized = [pd.factorize(keys[c], use_na_sentinel=False) for c in keys.columns]
    codes = np.column_stack([f[0] for f in factorized]).astype(np.int64)
    pair = combined_key(codes)                            # a pair's id over the dataset, in order of first appearance
    first = np.unique(pair, return_index=True)[1]
    pair_rows = np.bincount(pair, weights=counts).astype(np.int64)
    qi_codes = codes[first][:, :len(qi)]
    type_of_pair = combined_key(qi_codes)
    type_first = np.unique(type_of_pair, return_index=True)[1]
    type_codes = qi_codes[type_first]
    starred = np.column_stack([keys[c].iloc[first].astype(str).eq(SUPPRESSED).to_numpy() for c in qi])[type_first]
    if model.needs_sensitive:
        value, n_values, ground, labels = sensitive_codes(keys[model.sensitive].iloc[first].reset_index(drop=True),
                                                          model.ground, model.order)
        entry_key = type_of_pair * n_values + value
    else:
        n_values, ground, labels, entry_key = 0, model.ground, None, type_of_pair
    entries, entry_of_pair = np.unique(entry_key, return_inverse=True)
    rows = np.bincount(entry_of_pair, weights=pair_rows).astype(np.int64)
    types, values = (entries // n_values, entries % n_values) if model.needs_sensitive else (entries, None)
    inst = Instance.from_counts(qi, model, type_codes, types, values, rows, n_values, ground, labels,
                                [value_texts(u) for _, u in factorized[:len(qi)]])
    return inst, entry_of_pair.ravel()[pair], starred


def _ncp(inst: Instance, grouping, patterns, starred_type, qi) -> dict:
    """The report's ``ncp`` and ``units`` as :func:`geoanon.ncp.information_loss`
    and :func:`geoanon.ncp.plain_units` measure suppressed columns: per
    column, the share of cells published as ``*``, and the share published
    as the record's own value (not starred, or ``*`` in the input)."""
    types = inst.entries[0][grouping.entry]
    starred = patterns[grouping.cls] < 0
    rows = grouping.rows[:, None]
    cells = (starred | starred_type[types]) * rows
    exact = (~starred | starred_type[types]) * rows
    columns = {c: round(float(cells[:, j].sum() / inst.n), 12) for j, c in enumerate(qi)}
    shares = {c: {"exact": round(float(exact[:, j].sum() / inst.n), 6)} for j, c in enumerate(qi)}
    return {"ncp": {"overall": round(float(np.mean(list(columns.values()))), 12), "columns": columns},
            "units": {"columns": shares}}


def _partition_entries(found: list, entry_of_pair: np.ndarray, n_entries: int) -> list:
    """Per partition: the entry of each of its pairs, and per entry it holds
    (sorted) the rows of that entry in the partitions before."""
    before = np.zeros(n_entries, dtype=np.int64)
    out, at = [], 0
    for _, counts in found:
        entry = entry_of_pair[at:at + counts.size]
        at += counts.size
        held = np.unique(entry)
        out.append((entry, held, before[held].copy(), int(counts.sum())))
        np.add.at(before, entry, counts)
    return out


def _raw_classes(pdf: pd.DataFrame, plan: dict, number: int) -> np.ndarray:
    """The grouping's class of every row of partition ``number``."""
    entry_of_pair, held, offset, rows = plan["entries"][number]
    pair, _ = _local_pairs(pdf[plan["columns"]])
    if len(pdf) != rows or (pair.size and pair.max() >= entry_of_pair.size):
        raise DataError("the dataset changed while the job ran")
    entry = entry_of_pair[pair]
    rank = rank_within(entry) + offset[np.searchsorted(held, entry)]
    return plan["blocks"].classes_of(entry, rank, plan["entry_rows"])


def _publish(pdf: pd.DataFrame, plan: dict, qi: list, patterns: np.ndarray, partition_info=None) -> pd.DataFrame:
    """A partition as released: each quasi-identifier its value or ``*``, then ``class_id``."""
    raw = _raw_classes(pdf, plan, partition_info["number"])
    out = pdf.copy()
    for j, col in enumerate(qi):
        starred = patterns[raw, j] < 0
        out[col] = suppressed_cells(pdf[col], starred)
    out["class_id"] = raw
    return out
