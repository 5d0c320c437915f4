"""The joint release on a cluster: sharded by location, each shard released
on a worker by :func:`geoanon.anonymize` inside its rectangle, the whole
release audited by a distributed group-by.

The shards are the points engine's (:func:`~geoanon.cluster.points.shard_dataset`):
rectangles cut between neighbouring records, sized to the workers' memory,
and cut only where both sides meet the whole model (k, l, l_distinct, and t
against the whole dataset's distribution), so each shard can be released on
its own. The model survives the union of classes and the shards' classes
lie in disjoint rectangles, so the shards' releases together meet the model.
What must be the same in every shard is decided once, over the whole
dataset: each quasi-identifier's treatment (numeric columns as intervals),
the grid of the boxes' edges, the sensitive values' order, and the
distribution t is measured against.
"""
from __future__ import annotations

import time
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

from types import MappingProxyType

from .._geo import is_geographic
from .._text import show
from ..audit import disclosure_warnings
from ..models import sensitive_codes
from ..columns import Columns
from ..errors import DataError, InfeasibleError
from ..models import Model, ModelCheck
from ..pipeline.locations.points import default_resolution, unit_metres
from ..pipeline.points import isolated_warning, published_bounds
from ..report.job_report import joint_report
from ..options import ReleaseSpec, release_spec
from ..options.release import treatments as spec_treatments
from ..options.locations import POINTS
from .client import cluster_client, cluster_failures
from .points import class_offsets, release_shards, released, shard_dataset
from .release import (ClusterRelease, check_dataset_output, declared_dataset, is_frame, open_dataset,
                      with_coordinates, write_staged)

__all__ = ["anonymize"]

SUMMARY = ("shard", "rows", "classes", "min_class", "max_class", "location_classes", "suppressed_records",
           "withheld_rows", "isolated_published", "beyond_max_extent", "withheld_beyond_extent")


def anonymize(source, output, columns=None, model=None, *, location=None, search=None, budgets=None,
              **options) -> ClusterRelease:
    """:func:`geoanon.anonymize` of a dataset on a cluster, written as a
    Parquet dataset at ``output``: a points location, boxes
    (``extent="box"``), every row located. Rows are written grouped by
    shard; class ids are unique, not consecutive; generated columns are
    float64 (numbers) or text.

    Parameters
    ----------
    source : dask DataFrame or path
        Parquet, CSV files (read with ``sep`` and ``encoding``) or a dask DataFrame.
    output : path
        Where the Parquet dataset is written.
    columns, location, qi, interval, hierarchies, suppress, sets, dates, keep, identifiers, strict
        The columns' roles, as :func:`geoanon.anonymize` takes them; the
        location ``(lat, lon)``, or a point geometry standing for ``lat`` and
        ``lon`` as in :func:`geoanon.cluster.generalize_points`. The columns
        with no role are measured over the written dataset (``undeclared``).
    model, sensitive, k, l, l_distinct, t, ground, order
        The model, as :func:`geoanon.anonymize` takes it.
    search : Search, optional
        ``method``, ``resolution``, ``weights``, ``location_precision``,
        ``location_loss``, ``tail_reach``, ``gain_ratio`` and ``max_extent_km`` as in memory (or as
        keywords), applied in every shard (the spacing loss against each
        shard's own location tree, the tail's reach against its own typical
        k-neighbourhood); ``resolution`` defaults to the finer of
        the two axes' defaults over the whole dataset.
    budgets : Budgets, optional
        ``max_suppressed`` and ``max_withheld`` as in memory (or as
        keywords): a share of each shard's rows, whose suppressed records are
        a class of that shard.
    crs, bounds
        As in :func:`geoanon.anonymize`.
    scheduler, scheduler_file, sep, encoding, max_shard_rows
        The cluster, the input's text format and the shards' size, as
        :func:`geoanon.cluster.generalize_points` takes them.
    keep_order : bool
        Write the rows in the order they came in, within each shard (its rows
        already go together); default: the published order (by class, then
        by their other cells).

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
    >>> df = pd.DataFrame({"lat": [35.99, 36.01, 35.98, 36.02, 35.78, 35.80, 35.77, 35.79],
    ...                    "lon": [-78.90, -78.91, -78.93, -78.89, -78.64, -78.66, -78.62, -78.63],
    ...                    "age": [34, 38, 45, 51, 29, 33, 62, 58],
    ...                    "sex": ["F", "M", "F", "M", "F", "F", "M", "M"],
    ...                    "diagnosis": ["flu", "copd", "flu", "gout", "copd", "flu", "gout", "flu"]})
    >>> release = gc.anonymize(dd.from_pandas(df, npartitions=2), Path(folder.name, "released"),
    ...                        location=("lat", "lon"), qi=["age", "sex"], sensitive="diagnosis", k=2, l_distinct=2,
    ...                        scheduler=client)
    >>> release.columns
    ['lat_min', 'lat_max', 'lon_min', 'lon_max', 'age_min', 'age_max', 'sex', 'diagnosis', 'class_id']
    >>> release.report["audit"]["k"], release.report["audit"]["l_distinct"]
    (2, 2)
    >>> client.close(); folder.cleanup()
    """
    import dask
    import dask.dataframe as dd

    started = time.perf_counter()
    spec = release_spec("anonymize", "dask", columns=columns, model=model, location=location, search=search,
                        budgets=budgets, **options)
    cols, model, o = spec.columns, spec.model, spec.options
    qi, k, sensitive, loc = cols.quasi_identifiers, model.k, model.sensitive, spec.location[1]
    lat, lon = loc["lat"], loc["lon"]
    output = check_dataset_output(output, [] if is_frame(source) else [source])
    with cluster_client(o["scheduler"], scheduler_file=o["scheduler_file"]) as client, cluster_failures():
        roles = [*qi, *([sensitive] if model.needs_sensitive else [])]
        ddf, crs = with_coordinates(open_dataset(source, roles, sep=o["sep"], encoding=o["encoding"]), lat, lon,
                                    o["crs"])
        ddf, loose = declared_dataset(ddf, [*roles, lat, lon, *([sensitive] if sensitive else [])],
                                      list(cols.identifiers), list(cols.keep),
                                      strict=o["strict"])          # a sensitive column has its role, asked of or not
        treatments, found = _dataset_treatments(ddf, spec)
        formats = {**{c: None for c in found}, **o["dates"]}
        check, listed = _model_check(ddf, model) if model.needs_sensitive else (None, None)
        n, box, plan, counts, grouped = shard_dataset(
            ddf, client, lat, lon, k, crs, o["bounds"], o["max_shard_rows"],
            sensitive=sensitive if check else None, values=None if check is None else [str(v) for v in listed],
            ok=None if check is None else check.holds)
        if check is not None and not check.holds(counts.sum(axis=0)[None, :])[0]:
            raise InfeasibleError(f"no grouping meets {check.describe()}: the whole dataset misses it")
        resolution = o["resolution"]
        if resolution is None:
            unit_m = unit_metres(crs, (box[0] + box[2]) / 2, (box[1] + box[3]) / 2)
            resolution = min(default_resolution(box[2] - box[0], unit_m=unit_m[0]),
                             default_resolution(box[3] - box[1], unit_m=unit_m[1]))
        kept = [c for c in ddf.columns if c not in (*qi, lat, lon)]
        shard_spec = _shard_spec(spec, treatments, formats, [c for c in kept if c != sensitive], crs, resolution,
                                 check, listed)
        published = [f"{lat}_min", f"{lat}_max", f"{lon}_min", f"{lon}_max",
                     *[name for c in qi for name in ((f"{c}_min", f"{c}_max") if treatments[c] == "interval"
                                                     else (c,))]]
        offsets = class_offsets(counts, k)
        rectangles = plan.rectangles()

        warnings: list = []

        def write_and_audit(staged):
            from .audit import audit_frame, undeclared_frame

            Path(staged).mkdir()
            release = partial(_release_shard, shard_spec, kept, rectangles)
            tasks = [dask.delayed(release_shards)(part, release, offsets, SUMMARY,
                                                  Path(staged) / f"part.{i:05d}.parquet", o["keep_order"])
                     for i, part in enumerate(grouped.to_delayed())]
            done = released(tasks)
            written = dd.read_parquet(staged)
            audited = replace(model, order=listed) if model.needs_sensitive else model
            return done, audit_frame(written, [*published, "class_id"], model=audited), \
                undeclared_frame(written, loose, k, warnings), list(written.columns)

        (shard_stats, boxes, sizes, published_as), audit, undeclared, columns = write_staged(output, write_and_audit)
    warnings += disclosure_warnings(audit, model)
    isolated = {"max_withheld": o["max_withheld"], "withheld_rows": int(shard_stats["withheld_rows"].sum()),
                "published": int(shard_stats["isolated_published"].sum())}
    if shard_stats["withheld_beyond_extent"].sum():
        isolated["withheld_beyond_extent"] = int(shard_stats["withheld_beyond_extent"].sum())
    warnings += isolated_warning(isolated["published"], o["max_withheld"])
    report = joint_report(
        spec, rows=n, sizes=(shard_stats["classes"].sum(), shard_stats["min_class"].min(),
                             shard_stats["max_class"].max()), audit=audit,
        seconds=round(time.perf_counter() - started, 3), treatments=treatments,
        location_classes=shard_stats["location_classes"].sum(),
        beyond={} if o["max_extent_km"] is None else {"max_extent_km": o["max_extent_km"],
                                                       "beyond_max_extent": int(shard_stats["beyond_max_extent"].sum())},
        suppressed_records=shard_stats["suppressed_records"].sum(), formats=formats, isolated=isolated,
        engine={"shards": plan.n_shards, "resolution": resolution,
                "bounds": published_bounds(boxes[["xmin", "ymin", "xmax", "ymax"]].dropna().to_numpy(),
                                           is_geographic(crs)), "engine": "dask"},
        undeclared=undeclared)
    return ClusterRelease(report=report, warnings=warnings, treatments=published_as,
                          location=POINTS.release_location(loc), output=output, columns=columns,
                          sizes=sizes, boxes=boxes, crs=crs)


# The options every shard applies as the whole release was asked them.
SHARED = ("method", "strict", "weights", "max_extent_km", "location_loss", "max_suppressed", "max_withheld",
          "bounds", "location_precision", "tail_reach", "gain_ratio", "zip_level")


def _shard_spec(spec, treatments: dict, formats: dict, kept: list, crs, resolution, check, listed) -> ReleaseSpec:
    """The in-memory spec every shard is released under: the treatments, date
    formats, grid and sensitive values' order decided over the whole dataset
    (``kept``: the columns published as they are, measured once over the
    written dataset); the levels against the table measured against the
    whole dataset's distribution."""
    cols, model, o = spec.columns, spec.model, spec.options
    qi, (lat, lon) = cols.quasi_identifiers, (spec.location[1]["lat"], spec.location[1]["lon"])
    columns = Columns(location=(lat, lon), qi=qi, interval=[c for c in qi if treatments[c] == "interval"],
                      suppress=[c for c in qi if treatments[c] == "suppress"],
                      sets=[c for c in qi if treatments[c] == "set"], hierarchies=cols.hierarchies,
                      dates=formats or None, keep=kept, ranges=cols.ranges)
    return ReleaseSpec(
        "anonymize", "memory", columns, replace(model, order=listed if model.against_table else model.order),
        spec.location, MappingProxyType({**{name: o[name] for name in SHARED}, "dates": formats, "crs": crs,
                                         "resolution": resolution, "extent": "box", "missing": "error", "n_jobs": 1}),
        reference={str(v): float(w) for v, w in zip(listed, check.q)} if model.against_table else None)


def _dataset_treatments(ddf, spec) -> tuple[dict, list]:
    """Each quasi-identifier's treatment as the in-memory release decides it
    (:func:`geoanon.options.release.treatments`), numeric and date columns
    judged over the whole dataset; and the date columns found (ISO text or
    datetimes), which the shards publish as ISO intervals."""
    c = spec.columns
    chosen = {*c.interval, *spec.options["dates"], *c.suppress, *c.sets, *c.hierarchies}
    open_columns = [col for col in c.quasi_identifiers if col not in chosen]
    spec_treatments(ddf._meta, spec, lambda col: False)          # the names and treatments given, checked
    if not open_columns:
        return spec_treatments(ddf._meta, spec, lambda col: col in spec.options["dates"]), []
    found = ddf[open_columns].map_partitions(_kind_parts, meta=(None, "object")).compute()

    def everywhere(col, kind):      # every partition with a present cell finds it of this kind
        return all(part[col] in (None, kind) for part in found) and any(part[col] == kind for part in found)

    kinds = {col: "number" if everywhere(col, "number") else "date" if everywhere(col, "date") else "text"
             for col in open_columns}
    dates = [col for col in open_columns if kinds[col] == "date"]
    out = spec_treatments(ddf._meta, spec.but(dates={**spec.options["dates"], **dict.fromkeys(dates)}),
                          lambda col: kinds.get(col) == "number")
    return out, dates


def _kind_parts(pdf: pd.DataFrame) -> pd.Series:
    """Per column: None (no present cell), "number" (every present cell a
    number), "date" (a datetime column or ISO dates) or "text"."""
    from .._cells import numeric_cells, present_cells
    from ..dates import is_date_column

    out = {}
    for col in pdf.columns:
        present = present_cells(pdf[col])
        out[col] = None if len(present) == 0 else "number" if numeric_cells(present) else \
            "date" if is_date_column(present) else "text"
    return pd.Series([out])


def _model_check(ddf, model: Model) -> tuple[ModelCheck, list]:
    """The model bound to the whole dataset's sensitive values (their order, as
    :func:`~geoanon.models.sensitive_codes` gives it, and their distribution)."""
    counts = ddf[model.sensitive].value_counts(dropna=False, sort=False).compute()
    if counts.index.isna().any():
        raise DataError(f"{show(model.sensitive)} has missing values: the dask engine needs every sensitive "
                        "value present")
    text = pd.Series([str(v) for v in counts.index])
    if text.duplicated().any():
        raise DataError(f"two sensitive values of {show(model.sensitive)} read as the same text "
                        f"({show(text[text.duplicated()].iloc[0])})")
    _, n_values, ground, listed = sensitive_codes(pd.Series(counts.index, dtype=object), model.ground, model.order)
    weights = pd.Series(counts.to_numpy(), index=text).reindex([str(v) for v in listed], fill_value=0)
    q = weights.to_numpy(dtype=np.float64) / weights.sum()
    return ModelCheck(model, np.zeros(0, dtype=np.int64), n_values, ground, q, list(listed)), list(listed)


def _release_shard(spec, kept: list, rectangles, shard: int, rows: pd.DataFrame):
    """A shard released by the in-memory joint release inside its rectangle, and its figures."""
    from ..pipeline.joint_release import release_joint

    rel = release_joint(rows, spec.but(bounds=tuple(rectangles[shard])))
    return _shared_dtypes(rel.table, kept), {"classes": rel.report.classes, "min_class": rel.report.min_class,
                                       "max_class": rel.report.max_class,
                                       "location_classes": rel.report["location_classes"],
                                       "suppressed_records": rel.report.details.get("suppressed_records", 0),
                                       "withheld_rows": rel.report.details["isolated"]["withheld_rows"],
                                       "isolated_published": rel.report.details["isolated"]["published"],
                                       "beyond_max_extent": rel.report.details.get("beyond_max_extent", 0),
                                       "withheld_beyond_extent":
                                           rel.report.details["isolated"].get("withheld_beyond_extent", 0)}, rel


def _shared_dtypes(table: pd.DataFrame, kept: list) -> pd.DataFrame:
    """The same column types in every part: the input's columns kept as they
    are, generated numbers as float64, generated text as text."""
    out = {}
    for col in table.columns:
        s = table[col]
        if col == "class_id" or col in kept:
            out[col] = s
        elif pd.api.types.is_numeric_dtype(s) and not pd.api.types.is_bool_dtype(s):
            out[col] = s.astype("float64")
        else:
            out[col] = s.astype("string")
    return pd.DataFrame(out)
