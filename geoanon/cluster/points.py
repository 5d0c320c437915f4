"""GPS points on a cluster: top-level shards, each partitioned on a worker.

The plane is cut into vertical strips and each strip into rectangles
(shards), so that the shards tile the frame and none holds more rows than a
worker can partition. Cut positions start from the widest gaps of a sample
near its quantiles and are then moved between the two neighbouring records'
coordinates found by an exact distributed pass (at the decimal with the
fewest digits in the middle half of their gap, as
:func:`geoanon.partition_points` places its own cuts): no published
edge is a record's coordinate and identical points never part. Exact
distributed counts check every shard: a cut that leaves fewer than k records
on a side is dropped. This is Theorem 2's stopping rule applied at the top:
every cut keeps >= k on both sides. Each shard is then partitioned by the
in-memory engine inside its rectangle, so the classes tile the frame with
non-overlapping rectangles of >= k records; the lower bound is taken over the
whole dataset (Du, Eppstein, Goodrich and Lueker, Section 3).
"""
from __future__ import annotations

import math
import time
from functools import partial
from pathlib import Path
from dataclasses import dataclass

import numpy as np
import pandas as pd

from .._geo import is_geographic
from .._text import plural, show
from ..errors import DataError, InfeasibleError
from ..io import write_parquet
from ..ncp import parse_numbers
from ..partition import count_lower_bound
from ..pipeline.points import isolated_warning, published_bounds, withheld_note
from ..report.release import JobReport
from ..points.frame import check_bounds, padded_box, shortest_decimal_between
from ..points.isolated import WITHHELD
from ..options import release_spec
from .client import cluster_client, cluster_failures, n_workers, shard_rows
from .release import (ClusterRelease, check_dataset_output, check_scalar_dataset, declared_dataset, is_frame,
                      read_dataset, with_coordinates, write_staged)
from ..options.locations import POINTS

__all__ = ["class_offsets", "generalize_points", "release_shards", "released", "shard_dataset"]

SAMPLE_ROWS = 200_000         # coordinates brought to the client to place the cuts
SAMPLE_SEED = 0               # the sample's seed: the same shards for the same dataset
FAR = 3.0                     # the frame lies this many spans of the records beyond them (no box reaches it)
MIN_SHARD_CLASSES = 200       # a shard holds at least this many times k records (fewer shards otherwise)


@dataclass
class ShardPlan:
    """Strips at ``x_cuts``; strip i cut at ``y_cuts[i]``; shard ids numbered
    strip by strip. A coordinate equal to no cut: x < cut goes west."""

    frame: tuple
    x_cuts: np.ndarray
    y_cuts: list

    def shard_of(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        strip = np.searchsorted(self.x_cuts, x)
        first = np.r_[0, np.cumsum([c.size + 1 for c in self.y_cuts])]
        shard = np.empty(x.size, dtype=np.int64)
        for i, cuts in enumerate(self.y_cuts):
            mine = strip == i
            shard[mine] = first[i] + np.searchsorted(cuts, y[mine])
        return shard

    @property
    def n_shards(self) -> int:
        return sum(c.size + 1 for c in self.y_cuts)

    def rectangles(self) -> np.ndarray:
        """(xmin, ymin, xmax, ymax) per shard."""
        west, south, east, north = self.frame
        xs = np.r_[west, self.x_cuts, east]
        out = []
        for i, cuts in enumerate(self.y_cuts):
            ys = np.r_[south, cuts, north]
            out += [(xs[i], ys[j], xs[i + 1], ys[j + 1]) for j in range(cuts.size + 1)]
        return np.array(out, dtype=np.float64).reshape(-1, 4)


def generalize_points(source, k: int, output, *, lat="lat", lon="lon", method="gaps", crs="EPSG:4326",
                      bounds=None, scheduler=None, scheduler_file=None, sep=",", encoding="utf-8",
                      max_shard_rows=None, keep=None, identifiers=None, strict=True, keep_order=False,
                      max_withheld=WITHHELD) -> ClusterRelease:
    """Generalize the points of a dataset on a cluster into rectangles of >= k
    records, written as a Parquet dataset at ``output``.

    ``source`` is a Parquet dataset, a folder or glob of CSV files, or a dask
    DataFrame; ``scheduler`` a ``distributed.Client``, an address, or None
    (a LocalCluster here). ``max_shard_rows`` caps a shard (default: from the
    workers' memory limit, :func:`geoanon.cluster.client.shard_rows`). The
    other parameters are those of :func:`geoanon.generalize_points`; rows
    must all have coordinates. A dataset with a point geometry and no ``lat``
    and ``lon`` columns (GeoParquet, or a dask-geopandas frame) is read as
    those two columns, in the geometry's CRS; the release has no geometry. The released rows keep every column, with
    ``{lat}_min, {lat}_max, {lon}_min, {lon}_max`` where ``lat`` was and
    ``class_id`` last; they are written grouped by shard (their order is not
    kept). Class ids are unique, not consecutive. The written dataset is
    audited (every class >= k over the four published columns) before it is
    renamed into place.
    ``keep``, ``identifiers`` and ``strict`` as in memory (the columns with
    no role are measured over the written dataset: ``undeclared``);
    the rows are in the published order (by class, then by their other
    cells); ``keep_order``: in the order they came in, within each shard
    (its rows already go together).

    Examples
    --------
    A dask DataFrame released on an in-process cluster (pass the Client of a
    real one, or its address):

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
    ...                    "diagnosis": ["flu", "copd", "flu", "gout", "copd", "flu", "gout", "flu"]})
    >>> release = gc.generalize_points(dd.from_pandas(df, npartitions=2), 2, Path(folder.name, "released"),
    ...                                keep=["diagnosis"], scheduler=client)
    >>> release.columns
    ['lat_min', 'lat_max', 'lon_min', 'lon_max', 'diagnosis', 'class_id']
    >>> release.sizes, len(pd.read_parquet(release.output))
    (array([2, 2, 2, 2]), 8)
    >>> client.close(); folder.cleanup()
    """
    import dask
    import dask.dataframe as dd

    started = time.perf_counter()
    spec = release_spec("points", "dask", k=k, lat=lat, lon=lon, method=method, crs=crs, bounds=bounds,
                        scheduler=scheduler, scheduler_file=scheduler_file, sep=sep, encoding=encoding,
                        max_shard_rows=max_shard_rows, keep=keep, identifiers=identifiers, strict=strict,
                        keep_order=keep_order, max_withheld=max_withheld)
    k, method, max_withheld = spec.model.k, spec["method"], spec["max_withheld"]
    inputs = [] if is_frame(source) else [source]
    output = check_dataset_output(output, inputs)
    with cluster_client(scheduler, scheduler_file=scheduler_file) as client, cluster_failures():
        ddf = source if is_frame(source) else read_dataset(source, sep=sep, encoding=encoding)
        ddf, crs = with_coordinates(ddf, lat, lon, crs)
        ddf, loose = declared_dataset(ddf, [lat, lon], identifiers, keep, strict=strict)
        out_cols = [f"{lat}_min", f"{lat}_max", f"{lon}_min", f"{lon}_max", "class_id"]
        clash = [c for c in out_cols if c in ddf.columns]
        if clash:
            raise DataError(f"the output column {clash[0]!r} already exists in the input")
        n, _, plan, counts, grouped = shard_dataset(ddf, client, lat, lon, k, crs, bounds, max_shard_rows)
        offsets = class_offsets(counts, k)
        rectangles = plan.rectangles()

        warnings: list = []

        def write_and_audit(staged):
            from ..models import Model
            from .audit import audit_frame, undeclared_frame

            Path(staged).mkdir()
            release = partial(_partition_shard, k, lat, lon, method, crs, max_withheld, rectangles)
            tasks = [dask.delayed(release_shards)(part, release, offsets, SUMMARY,
                                                  Path(staged) / f"part.{i:05d}.parquet", keep_order)
                     for i, part in enumerate(grouped.to_delayed())]
            done = released(tasks)
            written = dd.read_parquet(staged)
            return done, audit_frame(written, out_cols[:4], model=Model(k=k)), \
                undeclared_frame(written, loose, k, warnings), list(written.columns)

        (shard_stats, boxes, sizes, treatments), audit, undeclared, columns = write_staged(output, write_and_audit)
    heaviest = int(shard_stats["heaviest"].max())
    lower = count_lower_bound(n, k, heaviest)
    largest = int(shard_stats["max_class"].max())
    withheld = int(shard_stats["withheld_rows"].sum())
    isolated = int(shard_stats["isolated_published"].sum())
    warnings += isolated_warning(isolated, max_withheld)
    report = JobReport(
        job="points", rows=n, model={"k": k}, classes=int(shard_stats["classes"].sum()),
        min_class=int(shard_stats["min_class"].min()), max_class=largest, audit=audit,
        seconds=round(time.perf_counter() - started, 3),
        details={"lower_bound": lower, "ratio": round(int(shard_stats["partitioned_max"].max()) / lower, 6),
                 "method": method,
                 "withheld_rows": withheld, "isolated": {"max_withheld": max_withheld, "published": isolated},
                 "shards": plan.n_shards, "columns": {"lat": lat, "lon": lon},
                 "crs": None if crs is None else str(crs), "bounds": _covered(boxes, crs), "engine": "dask",
                 **undeclared})
    return ClusterRelease(report=report, notes=[withheld_note(withheld)] if withheld else [], warnings=warnings,
                          treatments=treatments, location=POINTS.release_location({"lat": lat, "lon": lon}), output=output,
                          columns=columns, sizes=sizes, boxes=boxes, crs=crs)


def shard_dataset(ddf, client, lat, lon, k, crs, bounds, max_shard_rows, *, sensitive=None, values=None, ok=None):
    """Check the coordinates, plan the shards and move the rows to them:
    (rows, the records' box, plan, counts per shard (x sensitive value, as
    :func:`merge_light`), the rows grouped one shard per part). ``ok``
    tells which shards meet the model (default: >= k rows)."""
    columns = list(ddf.columns)
    for col in (lat, lon):
        if col not in columns:
            raise DataError(f"no column {col!r} in the dataset (columns: {', '.join(map(str, columns[:12]))})")
    check_scalar_dataset(ddf, [lat, lon])
    geographic = is_geographic(crs)
    stats = ddf.map_partitions(_coordinate_stats, lat, lon, geographic, meta=_STATS_META).compute()
    n = _check_stats(stats, k, lat, lon)
    frame = _frame(stats, bounds, geographic)
    sample = ddf[[lon, lat]].sample(frac=min(1.0, SAMPLE_ROWS / n), random_state=SAMPLE_SEED).compute()
    cap = max_shard_rows or shard_rows(client, _row_bytes(ddf, stats["rows"].to_numpy()))
    shards = min(max(math.ceil(n / cap), n_workers(client)), max(n // (MIN_SHARD_CLASSES * k), 1))
    plan = _plan(ddf, sample, lat, lon, shards, frame, k)
    found = ddf.map_partitions(_shard_counts, lat, lon, plan, sensitive, values, meta=(None, "object")).compute()
    width = 1 if values is None else len(values)
    counts = np.sum(list(found), axis=0) if len(found) else np.zeros((plan.n_shards, width), dtype=np.int64)
    plan, counts = merge_light(plan, counts, ok or (lambda hist: hist.sum(axis=1) >= k))
    keyed = ddf.map_partitions(_with_shard, lat, lon, plan, meta=ddf._meta.assign(_shard=pd.Series(dtype="i8")))
    # one shard per part (a hash shuffle can put several shards, too many rows, in one part)
    grouped = keyed.set_index("_shard", divisions=list(range(plan.n_shards + 1)), shuffle_method="tasks")
    box = (float(stats["xmin"].min()), float(stats["ymin"].min()), float(stats["xmax"].max()),
           float(stats["ymax"].max()))
    return n, box, plan, counts, grouped


SUMMARY = ("shard", "rows", "classes", "min_class", "max_class", "heaviest", "partitioned_max", "withheld_rows",
           "isolated_published")
_STATS_META = {"rows": "i8", "missing": "i8", "bad": "i8", "first_bad": "object", "outside": "i8",
               "xmin": "f8", "xmax": "f8", "ymin": "f8", "ymax": "f8"}


def _coordinate_stats(pdf: pd.DataFrame, lat, lon, geographic) -> pd.DataFrame:
    y, bad_y = parse_numbers(pdf[lat])
    x, bad_x = parse_numbers(pdf[lon])
    bad = bad_x | bad_y
    missing = (np.isnan(x) | np.isnan(y)) & ~bad
    ok = ~(bad | missing)
    outside = ok & (~np.isfinite(x) | ~np.isfinite(y))
    if geographic:
        outside |= ok & ((np.abs(x) > 180) | (np.abs(y) > 90))
    good = ok & ~outside
    first_bad = None
    if bad.any():
        first_bad = show(pdf[lon if bad_x.any() else lat][bad_x if bad_x.any() else bad_y].iloc[0])
    return pd.DataFrame({"rows": [len(pdf)], "missing": [int(missing.sum())], "bad": [int(bad.sum())],
                         "first_bad": [first_bad], "outside": [int(outside.sum())],
                         "xmin": [x[good].min() if good.any() else np.nan],
                         "xmax": [x[good].max() if good.any() else np.nan],
                         "ymin": [y[good].min() if good.any() else np.nan],
                         "ymax": [y[good].max() if good.any() else np.nan]})


def _row_bytes(ddf, rows: np.ndarray, sample: int = 1000) -> float:
    """The memory a row takes, from the first ``sample`` rows: read from as
    many leading partitions (of ``rows`` rows each) as hold them, since a head
    asking fewer partitions for more rows than they have makes dask warn on
    the worker, onto the command's stderr."""
    n = min(int(rows.sum()), sample)
    parts = int(np.searchsorted(np.cumsum(rows), n)) + 1
    head = ddf.head(n, npartitions=-1 if parts >= ddf.npartitions else parts)
    return float(head.memory_usage(deep=True, index=False).sum()) / max(len(head), 1)


def _check_stats(stats: pd.DataFrame, k: int, lat, lon) -> int:
    n = int(stats["rows"].sum())
    if n == 0:
        raise DataError("the dataset has no rows")
    if stats["bad"].sum():
        first = stats["first_bad"].dropna().iloc[0]
        raise DataError(f"{plural(int(stats['bad'].sum()), 'row')} with a coordinate that is not a number "
                        f"(e.g. {first}) in {lat!r} / {lon!r}")
    if stats["missing"].sum():
        raise DataError(f"{plural(int(stats['missing'].sum()), 'row')} without coordinates: the dask engine "
                        "needs every row located")
    if stats["outside"].sum():
        raise DataError(f"{plural(int(stats['outside'].sum()), 'row')} with coordinates that are infinite or "
                        "outside longitude [-180, 180] / latitude [-90, 90]")
    if k > n:
        raise InfeasibleError(f"k={k} is larger than the dataset ({plural(n, 'row')})")
    return n


def _frame(stats: pd.DataFrame, bounds, geographic) -> tuple:
    """The region the shards tile: ``bounds``, or the records' box padded out
    by :data:`FAR` times its span a side (within the world), so far that no
    class's box reaches it: the shards hold their boxes at their own edges,
    and an edge drawn from the table's extreme records must bound none."""
    xmin, xmax = float(stats["xmin"].min()), float(stats["xmax"].max())
    ymin, ymax = float(stats["ymin"].min()), float(stats["ymax"].max())
    if bounds is None:
        dx, dy = FAR * (xmax - xmin), FAR * (ymax - ymin)
        return padded_box(xmin - dx, ymin - dy, xmax + dx, ymax + dy, geographic)
    frame = check_bounds(bounds, geographic)
    if frame[0] > frame[2]:
        raise DataError("bounds across the antimeridian are not supported by the dask engine")
    if xmin < frame[0] or xmax > frame[2] or ymin < frame[1] or ymax > frame[3]:
        raise DataError(f"some points lie outside the bounds {list(frame)}")
    if xmin == frame[0] or xmax == frame[2] or ymin == frame[1] or ymax == frame[3]:
        raise DataError(f"the bounds {list(frame)} touch the records: an edge on a record would publish its "
                        "coordinate; give bounds beyond the records, or none (the records' box, padded)")
    return frame


def _plan(ddf, sample: pd.DataFrame, lat, lon, shards: int, frame, k: int) -> ShardPlan:
    """Strips and their pieces: quantiles of the sample, moved between
    neighbouring records (an exact pass per axis)."""
    x = pd.to_numeric(sample[lon]).to_numpy(dtype=np.float64)
    y = pd.to_numeric(sample[lat]).to_numpy(dtype=np.float64)
    n_strips = max(1, math.isqrt(shards))
    x_cuts = _between(ddf, lon, [_gap_targets(x, n_strips)])[0]
    strip = np.searchsorted(x_cuts, x)
    per_strip = [-(-shards // (x_cuts.size + 1))] * (x_cuts.size + 1)
    y_cuts = _between(ddf, lat, [_gap_targets(y[strip == i], pieces) for i, pieces in enumerate(per_strip)])
    return ShardPlan(frame=tuple(float(v) for v in frame), x_cuts=x_cuts, y_cuts=y_cuts)


GAP_WINDOW = 0.1     # a shard cut moves within this share of a shard's sample rows to the widest gap there


def _gap_targets(values: np.ndarray, pieces: int) -> np.ndarray:
    """Where to cut ``values`` (a sample) into ``pieces`` of about equal
    rows: near each quantile, the middle of the widest gap between
    consecutive sample values within ``GAP_WINDOW`` of a piece's rows, so
    that the shards' edges, which the boxes beside them are held to, fall
    between clusters."""
    v = np.sort(values)
    if pieces < 2 or v.size < 2:
        return np.zeros(0)
    reach = max(1, int(GAP_WINDOW * v.size / pieces))
    gaps = np.diff(v)
    out = []
    for q in np.arange(1, pieces) / pieces:
        at = int(q * (v.size - 1))
        lo, hi = max(at - reach, 0), min(at + reach, gaps.size)
        i = lo + int(np.argmax(gaps[lo:hi]))
        out.append((v[i] + v[i + 1]) / 2)
    return np.unique(out)


def _between(ddf, col, groups: list) -> list:
    """Per group of targets, cuts strictly between the records nearest each
    target over the whole dataset (the largest value below it and the
    smallest at or above it): no record anywhere has a cut's coordinate."""
    flat = np.concatenate([np.asarray(t, dtype=np.float64) for t in groups])
    if flat.size == 0:
        return [np.zeros(0) for _ in groups]
    found = ddf.map_partitions(_neighbours, col, flat, meta=(None, "object")).compute()
    below = np.full(flat.size, -np.inf)
    above = np.full(flat.size, np.inf)
    for lo, hi in found:
        below, above = np.maximum(below, lo), np.minimum(above, hi)
    cuts = np.full(flat.size, np.nan)
    ok = np.isfinite(below) & np.isfinite(above)
    if ok.any():                       # the roundest number in the middle half of the gap: away from both
        gap = above[ok] - below[ok]
        cuts[ok] = shortest_decimal_between(below[ok] + gap / 4, above[ok] - gap / 4)
    owner = np.repeat(np.arange(len(groups)), [len(t) for t in groups])
    return [np.unique(cuts[(owner == g) & ~np.isnan(cuts)]) for g in range(len(groups))]


def _neighbours(pdf, col, targets):
    v = np.sort(pd.to_numeric(pdf[col]).to_numpy(dtype=np.float64))
    if v.size == 0:
        return pd.Series([(np.full(targets.size, -np.inf), np.full(targets.size, np.inf))])
    at = np.searchsorted(v, targets)                      # v[at - 1] < target <= v[at]
    lo = np.where(at > 0, v[np.maximum(at - 1, 0)], -np.inf)
    hi = np.where(at < v.size, v[np.minimum(at, v.size - 1)], np.inf)
    return pd.Series([(lo, hi)])


def _shard_ids(pdf, lat, lon, plan: ShardPlan) -> np.ndarray:
    """The shard of each row of a partition."""
    return plan.shard_of(pd.to_numeric(pdf[lon]).to_numpy(dtype=np.float64),
                         pd.to_numeric(pdf[lat]).to_numpy(dtype=np.float64))


def _shard_counts(pdf, lat, lon, plan: ShardPlan, sensitive=None, values=None):
    """Rows per shard of a partition (shards x 1), or per shard and sensitive
    value (shards x values; ``values`` the values as text)."""
    shard = _shard_ids(pdf, lat, lon, plan)
    if sensitive is None:
        return pd.Series([np.bincount(shard, minlength=plan.n_shards)[:, None]])
    code = pd.Index(values).get_indexer(pdf[sensitive].astype(object).map(str))
    if (code < 0).any():
        raise DataError("the dataset changed while the job ran")
    hist = np.bincount(shard * len(values) + code, minlength=plan.n_shards * len(values))
    return pd.Series([hist.reshape(plan.n_shards, len(values))])


def merge_light(plan: ShardPlan, counts: np.ndarray, ok):
    """Drop the cuts that leave a shard missing the model: ``counts`` is
    shards x sensitive values (one column for k alone), ``ok`` tells which
    rows of such a matrix meet the model. A piece that misses it joins its
    strip's next piece; a strip that misses it joins the next strip, whole
    (one piece). The model survives unions, so this ends with every shard
    meeting it when the whole table does."""
    first = np.r_[0, np.cumsum([c.size + 1 for c in plan.y_cuts])]
    pieces = [counts[first[i]:first[i + 1]].copy() for i in range(len(plan.y_cuts))]
    y_cuts = [c.copy() for c in plan.y_cuts]
    for i in range(len(pieces)):
        while len(pieces[i]) > 1 and not ok(pieces[i]).all():
            j = int(np.flatnonzero(~ok(pieces[i]))[0])
            j = min(j, len(pieces[i]) - 2)            # merge piece j with j + 1 (drop cut j)
            pieces[i][j + 1] += pieces[i][j]
            pieces[i] = np.delete(pieces[i], j, axis=0)
            y_cuts[i] = np.delete(y_cuts[i], j)
    x_cuts = plan.x_cuts.copy()
    totals = [p.sum(axis=0) for p in pieces]
    while len(totals) > 1 and not ok(np.array(totals)).all():
        bad = np.flatnonzero(~ok(np.array(totals)))
        i = int(bad[np.argmin([totals[b].sum() for b in bad])])      # the lightest strip that misses it
        j = i if i + 1 < len(totals) else i - 1        # strips j and j + 1 become one piece
        totals[j:j + 2] = [totals[j] + totals[j + 1]]
        pieces[j:j + 2] = [totals[j][None, :]]
        y_cuts[j:j + 2] = [np.zeros(0)]
        x_cuts = np.delete(x_cuts, j)
    merged = ShardPlan(frame=plan.frame, x_cuts=x_cuts, y_cuts=y_cuts)
    return merged, np.concatenate(pieces).astype(np.int64)


def _with_shard(pdf, lat, lon, plan: ShardPlan):
    return pdf.assign(_shard=_shard_ids(pdf, lat, lon, plan))


def class_offsets(counts: np.ndarray, k: int) -> np.ndarray:
    """The first class id of each shard: a shard of r rows has at most r // k classes."""
    return np.r_[0, np.cumsum(counts.sum(axis=1) // k)[:-1]]


def release_shards(pdf: pd.DataFrame, release, offsets, summary, path, keep_order=False) -> tuple:
    """Release every shard of a shuffled part (indexed by shard) by
    ``release(shard, rows) -> (table, figures, Release)`` (the shard's
    in-memory release), its class ids offset, and write the rows to ``path``
    (Parquet; nothing for an empty part) shard by shard, each in the
    published order (by class: the class ids grow with the shards) or, with
    ``keep_order``, in the order its rows came in. Returns one ``summary`` row
    per shard, the shards' classes as numbers (:func:`class_boxes`), every
    class's size and the columns' treatments: only these go back to the
    client, so no released rows wait in a worker's memory for a writer."""
    tables, stats, boxes, sizes, treatments = [], [], [], [], None
    for shard, rows in pdf.groupby(level=0, sort=True):
        table, figures, rel = release(int(shard), rows.reset_index(drop=True))
        treatments = rel.treatments
        offset = int(offsets[shard])
        sizes.append(np.bincount(table["class_id"].to_numpy(dtype=np.int64)))
        table["class_id"] = table["class_id"].to_numpy(dtype=np.int64) + offset
        if keep_order:
            table = table.iloc[np.argsort(rel.input_rows, kind="stable")]
        tables.append(table)
        stats.append({"shard": int(shard), "rows": len(rows), **figures})
        boxes.append(class_boxes(rel.classes, offset))
    if tables:
        write_parquet(pd.concat(tables, ignore_index=True), path)
    return (pd.DataFrame(stats, columns=list(summary)).astype("i8"),
            pd.concat(boxes, ignore_index=True) if boxes else None,
            np.concatenate(sizes) if sizes else np.zeros(0, dtype=np.int64), treatments)


def class_boxes(classes, offset: int) -> pd.DataFrame:
    """A shard's classes (a GeoDataFrame of boxes) as numbers: their columns,
    ``class_id`` offset, and each box's ``xmin, ymin, xmax, ymax`` (NaN
    without one)."""
    bounds = classes.geometry.bounds
    out = pd.DataFrame(classes.drop(columns=classes.geometry.name))
    out["class_id"] = out["class_id"].to_numpy(dtype=np.int64) + offset
    return out.assign(xmin=bounds["minx"].to_numpy(), ymin=bounds["miny"].to_numpy(),
                      xmax=bounds["maxx"].to_numpy(), ymax=bounds["maxy"].to_numpy())


def released(tasks) -> tuple:
    """The shards' summary, classes as numbers, class sizes and treatments, gathered."""
    import dask

    done = dask.compute(*tasks)
    boxes = [d[1] for d in done if d[1] is not None]
    return (pd.concat([d[0] for d in done], ignore_index=True), pd.concat(boxes, ignore_index=True) if boxes else None,
            np.concatenate([d[2] for d in done]), next((d[3] for d in done if d[3] is not None), {}))


def _partition_shard(k, lat, lon, method, crs, max_withheld, rectangles, shard: int, rows: pd.DataFrame):
    """A shard partitioned by the in-memory engine inside its rectangle, its figures and classes."""
    from ..pipeline.points import generalize_points as generalize_in_memory

    rel = generalize_in_memory(rows, k, lat=lat, lon=lon, method=method, crs=crs, bounds=tuple(rectangles[shard]),
                               keep=[c for c in rows.columns if c not in (lat, lon)],   # measured over the whole
                               max_withheld=max_withheld)
    r = rel.report
    return rel.table, {"classes": r.classes, "min_class": r.min_class, "max_class": r.max_class,
                       "heaviest": _heaviest_point(rel.partition.xy),
                       "partitioned_max": int(rel.partition.max_weight),
                       "withheld_rows": r["withheld_rows"], "isolated_published": r["isolated"]["published"]}, rel


def _heaviest_point(xy: np.ndarray) -> int:
    """The most rows at one point of checked coordinates (no NaN, no -0.0): each (x, y) hashed as one complex
    number, twice as fast as grouping by both columns."""
    return int(np.bincount(pd.factorize(np.ascontiguousarray(xy, dtype=np.float64).view(np.complex128).ravel())[0])
               .max())


def _covered(boxes, crs) -> list:
    """The region the published classes (:func:`class_boxes` rows) cover."""
    if boxes is None:
        return []
    return published_bounds(boxes[["xmin", "ymin", "xmax", "ymax"]].dropna().to_numpy(), is_geographic(crs))
