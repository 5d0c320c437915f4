"""Regions on a cluster: records per region counted by the workers, the
graph partitioned on the client (the graph is small), the relabelling on the
workers. The release is the in-memory engine's, row for row."""
from __future__ import annotations

import time

import numpy as np
import pandas as pd

from ..errors import DataError, InfeasibleError
from ..pipeline.region_map import EXAMPLES, code_width, leading_zeros, name_groups_by, refuse_unknown, region_graph, \
    region_values
from ..pipeline.regions import RegionGroups, check_suppressed
from ..regions.groups import region_groups
from ..report.release import JobReport
from ..options import release_spec
from .client import cluster_client, cluster_failures
from .release import (ClusterRelease, check_dataset_output, declared_dataset, in_published_order, is_frame,
                      open_dataset, write_dataset, write_staged)
from ..options.locations import ZIP

__all__ = ["generalize_regions"]


def generalize_regions(source, k: int, output, *, column: str, regions, region_id: str, edges=None,
                       contiguity="rook", method="balanced", unknown="error", on_small="error", scheduler=None,
                       scheduler_file=None, sep=",", encoding="utf-8", keep=None, identifiers=None, strict=True,
                       keep_order=False) -> ClusterRelease:
    """Generalize a dataset's region column on a cluster into connected groups
    of >= k records, written as a Parquet dataset at ``output`` (rows in the
    input's order); parameters as :func:`geoanon.generalize_regions` (``regions``
    a table or GeoDataFrame) and :func:`geoanon.cluster.generalize_points`.
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
    >>> regions = pd.DataFrame({"zip": ["27701", "27703", "27705", "27707", "27713"],
    ...                         "lat": [35.99, 35.97, 36.02, 35.95, 35.90],
    ...                         "lon": [-78.90, -78.84, -78.95, -78.95, -78.92]})
    >>> df = pd.DataFrame({"zip": ["27701"] * 3 + ["27703"] + ["27705"] * 2 + ["27707"] + ["27713"] * 3})
    >>> release = gc.generalize_regions(dd.from_pandas(df, npartitions=2), 3, Path(folder.name, "released"),
    ...                                 column="zip", regions=regions, region_id="zip", scheduler=client)
    >>> pd.read_parquet(release.output)["zip"].value_counts().sort_index()
    zip
    27701|27703    4
    27705|27707    3
    27713          3
    Name: count, dtype: int64
    >>> client.close(); folder.cleanup()
    """
    started = time.perf_counter()
    k = release_spec("zip", "dask", k=k, column=column, regions=regions, region_id=region_id, edges=edges,
                     contiguity=contiguity, method=method, unknown=unknown, on_small=on_small, scheduler=scheduler,
                     scheduler_file=scheduler_file, sep=sep, encoding=encoding, keep=keep, identifiers=identifiers,
                     strict=strict, keep_order=keep_order).model.k
    output = check_dataset_output(output, [] if is_frame(source) else [source])
    found = region_graph(regions, region_id, edges=edges, contiguity=contiguity)
    graph = name_groups_by(found.graph, regions, region_id, "zip")
    with cluster_client(scheduler, scheduler_file=scheduler_file), cluster_failures():
        ddf, loose = declared_dataset(open_dataset(source, column, sep=sep, encoding=encoding), [column], identifiers,
                                      keep, strict=strict)
        found_counts = ddf[column].map_partitions(_region_counts, meta=(None, "object")).compute()
        counts = pd.concat(list(found_counts)).groupby(level=0, dropna=False, sort=False).sum() if len(
            found_counts) else pd.Series(dtype="i8")
        rows = int(counts.sum())
        if rows == 0:
            raise DataError("the dataset has no rows")
        if k > rows:
            raise InfeasibleError(f"k={k} is larger than the dataset ({rows} rows)")
        warnings: list = []
        numbers = pd.api.types.is_numeric_dtype(ddf._meta[column]) and not pd.api.types.is_bool_dtype(ddf._meta[column])
        width = code_width(graph.nodes) if numbers else None
        if width:
            padded = leading_zeros(pd.Series(counts.index, dtype=object), width, column, warnings, counts.to_numpy())
            counts = counts.groupby(padded.to_numpy(), dropna=False, sort=False).sum()
        nodes = pd.Index(list(graph.nodes))
        known = counts.index.isin(nodes) & counts.index.notna()
        if unknown == "error":
            outside = counts[~known]
            refuse_unknown(int(outside.sum()), outside.index.to_series().fillna("(missing)")[:EXAMPLES].tolist())
        part, members, labels, class_of = region_groups(graph, counts[known].to_dict(), k, method, on_small)
        n_suppressed = rows - int(sum(v for r, v in counts[known].items() if r in class_of))
        check_suppressed(n_suppressed, k)
        lookup = pd.Series(class_of, dtype="i8")
        meta = ddf._meta.assign(**{column: pd.Series(dtype="str"), "class_id": pd.Series(dtype="i8")})
        released = ddf.map_partitions(_relabel, column, lookup, np.asarray(labels, dtype=object), part.n_classes,
                                      width, meta=meta)
        if not keep_order:
            released = in_published_order(released)

        def write_and_audit(staged):
            from ..models import Model
            from .audit import audit_frame, undeclared_frame

            written = write_dataset(released, staged)
            return audit_frame(written, [column], model=Model(k=k)), undeclared_frame(written, loose, k, warnings), \
                list(written.columns)

        audit, undeclared, columns = write_staged(output, write_and_audit)
    groups = RegionGroups(found, part, members, labels, n_suppressed, int(counts[~known].sum()), column, method)
    sizes = groups.sizes()
    report = JobReport(
        job="regions", rows=rows, model={"k": k}, classes=int(sizes.size), min_class=int(sizes.min()),
        max_class=int(sizes.max()), audit=audit, seconds=round(time.perf_counter() - started, 3),
        details={**groups.details(), "engine": "dask", **undeclared})
    return ClusterRelease(report=report, classes=groups.classes(), notes=groups.notes(),
                          warnings=[*found.warnings, *warnings], treatments={column: ("set", column)},
                          location=ZIP.release_location({"zip": column}), output=output, columns=columns,
                          sizes=sizes)


def _region_counts(values: pd.Series) -> pd.Series:
    """Records per region value (stripped text, missing as NaN) of a partition."""
    return pd.Series([region_values(values).value_counts(dropna=False)])


def _relabel(pdf: pd.DataFrame, column, class_of: pd.Series, labels: np.ndarray, suppressed: int,
             width: int | None) -> pd.DataFrame:
    values = region_values(pdf[column], width)
    cls = values.map(class_of).fillna(-1).astype(np.int64).to_numpy()
    cls = np.where(cls < 0, suppressed, cls)
    out = pdf.copy()
    out[column] = pd.Series(labels[cls], index=out.index, dtype="str")
    out["class_id"] = cls
    return out
