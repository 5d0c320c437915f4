"""Reading and writing tables (CSV, Parquet, GeoJSON, GeoPackage, Shapefile), atomically.

CSV columns are read as exact strings, so every column geoanon does not
generalize is written back as it came (leading zeros, number formats, the
literal strings NA or NULL). Outputs are staged in temporary files beside their
destination and renamed into place only when every output of a job is ready:
a failed job leaves nothing behind.
"""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pandas as pd

from .errors import DataError, ParameterError

FORMATS = {".csv": "csv", ".parquet": "parquet", ".geojson": "geojson", ".gpkg": "gpkg", ".shp": "shp"}
GEO_FORMATS = {"geojson", "gpkg", "shp"}
_DRIVERS = {"geojson": "GeoJSON", "gpkg": "GPKG", "shp": "ESRI Shapefile"}
# GeoPackage stamps the write time into its tables; a fixed stamp keeps output
# byte-identical from run to run.
_FIXED_DATE = {"OGR_CURRENT_DATE": "2000-01-01T00:00:00.000Z"}


def table_format(path) -> str:
    """The format of a table file, from its extension (``.csv.gz`` is CSV)."""
    suffix = Path(path).suffix.lower()
    if suffix == ".gz" and Path(path).stem.lower().endswith(".csv"):
        suffix = ".csv"
    if suffix not in FORMATS:
        known = ", ".join(FORMATS)
        raise ParameterError(f"{path}: unknown table format {suffix or '(no extension)'!r}; use one of {known}")
    return FORMATS[suffix]


def read_table(path) -> pd.DataFrame:
    """Read a table; CSV cells come back as exact strings, geo formats as a GeoDataFrame."""
    fmt = table_format(path)
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: no such file")
    try:
        if fmt == "csv":
            df = pd.read_csv(path, dtype=str, keep_default_na=False, na_filter=False, encoding="utf-8")
        elif fmt == "parquet":
            df = _read_parquet(path)
        else:
            import geopandas as gpd

            df = gpd.read_file(path, engine="pyogrio")
    except pd.errors.EmptyDataError:
        raise DataError(f"{path}: the file is empty") from None
    except pd.errors.ParserError as exc:
        raise DataError(f"{path}: malformed CSV: {_first_line(exc)}") from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    except DataError:
        raise
    except Exception as exc:  # pyarrow / GDAL raise their own types for unreadable files
        raise DataError(f"{path}: cannot read {fmt}: {_first_line(exc)}") from None
    if len(df) == 0:
        raise DataError(f"{path}: the table has no rows")
    return df


def _read_parquet(path: Path) -> pd.DataFrame:
    import pyarrow.parquet as pq

    metadata = pq.read_schema(path).metadata or {}
    if b"geo" in metadata:
        import geopandas as gpd

        return gpd.read_parquet(path)
    return pd.read_parquet(path)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def has_geometry(df) -> bool:
    """Whether ``df`` is a GeoDataFrame with an active geometry column."""
    return getattr(df, "active_geometry_name", None) is not None


def check_writable(path) -> Path:
    """Validate an output path before any work: known format, existing folder."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise DataError(f"{path}: the folder {folder} does not exist")
    if path.is_dir():
        raise DataError(f"{path}: is a folder")
    return path


def write_table(df: pd.DataFrame, path) -> None:
    """Write ``df`` to ``path`` in the format its extension names.

    Geo formats need a GeoDataFrame (a plain table is written with empty
    geometry); Parquet keeps a GeoDataFrame's geometry (GeoParquet), CSV drops it.
    """
    fmt = table_format(path)
    geo = has_geometry(df)
    if fmt == "csv":
        gzip = str(path).lower().endswith(".gz")
        (df.drop(columns=df.geometry.name) if geo else df).to_csv(
            path, index=False, compression={"method": "gzip", "mtime": 0} if gzip else None)
    elif fmt == "parquet":
        df.to_parquet(path, index=False)
    else:
        import geopandas as gpd
        import pyogrio

        if not geo:
            df = gpd.GeoDataFrame(df, geometry=[None] * len(df), crs="EPSG:4326")
        previous = pyogrio.get_gdal_config_option("OGR_CURRENT_DATE")
        pyogrio.set_gdal_config_options(_FIXED_DATE)
        try:
            df.to_file(path, driver=_DRIVERS[fmt], engine="pyogrio", index=False)
        finally:
            pyogrio.set_gdal_config_options({"OGR_CURRENT_DATE": previous})


class StagedOutputs:
    """Outputs written to temporary files and moved into place together.

    >>> with StagedOutputs() as out:          # doctest: +SKIP
    ...     write_table(df, out.stage("result.csv"))
    ...     Path(out.stage("report.json")).write_text(text)

    On leaving the block without an error every staged file is renamed to its
    destination; on an error every staged file is removed and no destination
    is touched.
    """

    def __init__(self):
        self._staged: list[tuple[Path, Path]] = []   # (staging folder, destination)

    def stage(self, destination) -> str:
        """A temporary path to write ``destination``'s content to."""
        destination = check_writable(destination)
        folder = Path(tempfile.mkdtemp(prefix=f".{destination.name}.", dir=destination.parent))
        self._staged.append((folder, destination))
        return str(folder / destination.name)

    def commit(self) -> None:
        for folder, destination in self._staged:
            for part in sorted(folder.iterdir()):
                os.replace(part, destination.parent / part.name)
            folder.rmdir()
        self._staged.clear()

    def discard(self) -> None:
        for folder, _ in self._staged:
            shutil.rmtree(folder, ignore_errors=True)
        self._staged.clear()

    def __enter__(self) -> "StagedOutputs":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            self.commit()
        else:
            self.discard()

