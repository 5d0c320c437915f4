"""Datasets in and out of a cluster job: read lazily, written by the workers
into a staging folder, audited there, and renamed into place only then."""
from __future__ import annotations

import glob
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from .._text import show
from ..errors import DataError, ParameterError
from ..io import StagedOutputs, check_writable


@dataclass
class ClusterRelease:
    """What a cluster job wrote and measured.

    Attributes
    ----------
    output : Path
        The Parquet dataset written (a folder of part files).
    report : dict
        The job's figures, as the in-memory engine's report: rows, k,
        classes, smallest and largest class, lower bound and ratio where the
        job has them, the audit of the written dataset, shards, seconds.
    """

    output: Path
    report: dict = field(default_factory=dict)


def is_frame(source) -> bool:
    """Whether ``source`` is a dask DataFrame (rather than a path)."""
    return hasattr(source, "to_delayed") and hasattr(source, "npartitions")


def dataset_files(source) -> tuple[str, list[str]]:
    """("parquet" or "csv", the files) of a dataset: a folder of Parquet or
    CSV files, a glob, or one file."""
    text = str(source)
    if any(c in text for c in "*?["):
        files = sorted(glob.glob(text))
    elif Path(text).is_dir():
        files = sorted(str(p) for p in Path(text).rglob("*") if p.is_file() and not p.name.startswith((".", "_")))
    elif Path(text).is_file():
        files = [text]
    else:
        raise DataError(f"{source}: no such file, folder or glob")
    kinds = {_kind(f) for f in files}
    if not files:
        raise DataError(f"{source}: no files")
    if len(kinds) != 1 or None in kinds:
        odd = next(f for f in files if _kind(f) is None) if None in kinds else files[0]
        raise DataError(f"{source}: a dataset is Parquet or CSV files, one kind only (found {odd})")
    return kinds.pop(), files


def _kind(path: str):
    name = path.lower()
    if name.endswith(".parquet") or name.endswith(".pq"):
        return "parquet"
    if name.endswith((".csv", ".csv.gz")):
        return "csv"
    return None


def read_dataset(source, *, sep=",", encoding="utf-8", blocksize="64MB"):
    """A lazy dask DataFrame of a dataset (CSV cells as text, as the
    in-memory engine reads them)."""
    import dask.dataframe as dd

    kind, files = dataset_files(source)
    if kind == "parquet":
        import pyarrow.parquet as pq

        if b"geo" in (pq.read_schema(files[0]).metadata or {}):      # GeoParquet: its geometry as geometry
            import dask_geopandas

            return dask_geopandas.read_parquet(files)
        return dd.read_parquet(files)
    return dd.read_csv(files, sep=sep, encoding=encoding, dtype=str, keep_default_na=False, na_values=[],
                       blocksize=None if any(f.lower().endswith(".gz") for f in files) else blocksize)


def with_coordinates(ddf, lat: str, lon: str, crs):
    """A dataset without ``lat`` and ``lon`` columns but with a point geometry
    (a dask-geopandas frame, or GeoParquet read as one) as plain columns
    ``lat`` and ``lon`` (its y and x) in place of the geometry, and its CRS;
    other datasets and ``crs`` as given. Geometries that are not points, or
    a geometry without a CRS, are refused when the rows are read."""
    if lat in ddf.columns or lon in ddf.columns or not hasattr(ddf._meta, "geometry"):
        return ddf, crs
    if ddf.crs is None:
        raise DataError("the dataset's geometry has no CRS: set one, or give the coordinates as columns")
    name = ddf._meta.geometry.name
    meta = pd.DataFrame(ddf._meta.drop(columns=[name])).assign(**{lat: pd.Series(dtype="f8"),
                                                                  lon: pd.Series(dtype="f8")})
    return ddf.map_partitions(_point_columns, name, lat, lon, meta=meta), ddf.crs.to_string()


def _point_columns(gdf, name, lat, lon) -> pd.DataFrame:
    geom = gdf.geometry
    empty = geom.isna() | geom.is_empty
    bad = ~empty & (geom.geom_type != "Point")
    if bad.any():
        raise DataError(f"row {show(gdf.index[bad.to_numpy()][0])}: geometry is a "
                        f"{geom[bad].iloc[0].geom_type}, not a point")
    return pd.DataFrame(gdf.drop(columns=[name])).assign(**{lat: geom.y.to_numpy(dtype=np.float64),
                                                           lon: geom.x.to_numpy(dtype=np.float64)})


def open_dataset(source, columns, *, sep=",", encoding="utf-8"):
    """The dask DataFrame of ``source`` (a dataset path or a dask DataFrame),
    refused unless it has ``columns`` (one name or several) and no ``class_id`` yet."""
    ddf = source if is_frame(source) else read_dataset(source, sep=sep, encoding=encoding)
    absent = [c for c in ([columns] if isinstance(columns, str) else columns) if c not in ddf.columns]
    if absent:
        raise DataError(f"no column {absent[0]!r} in the dataset (columns: {', '.join(map(str, ddf.columns[:12]))})")
    if "class_id" in ddf.columns:
        raise DataError("the output column 'class_id' already exists in the input")
    return ddf


def check_dataset_output(output, inputs) -> Path:
    """The output dataset's path, refused when it exists, names an input, or
    its folder cannot be written."""
    from ..io import check_paths

    output = Path(output)
    if output.exists():
        raise ParameterError(f"{output} exists: a dataset is written whole into a new folder")
    check_paths({f"input {i}": p for i, p in enumerate(inputs)}, {"-o": output})
    check_writable(output)
    return output


def write_staged(output, write):
    """Run ``write(staged_path)``, which writes the dataset there (by the
    workers) and audits it, raising to refuse; then rename the staging folder
    into place. On any error nothing is left. Returns what ``write`` returned."""
    with StagedOutputs() as out:
        return write(out.stage(output))
