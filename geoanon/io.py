"""Reading and writing tables (CSV, Parquet, GeoJSON, GeoPackage, Shapefile);
reading region edge lists; output paths checked before any work.

CSV columns are read as exact strings, so every column geoanon does not
generalize is written back as it came (leading zeros, number formats, the
literal strings NA or NULL). Writers write to the paths they are given: the
jobs give them staging paths (:mod:`geoanon.staging`), so outputs appear
together or not at all.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pandas as pd

from ._cells import nested_as_text
from ._text import plural
from ._validation import check_unique_columns
from .errors import DataError, DuplicateColumnError, GeoanonError, ParameterError
from .progress import stepped
from .staging import check_writable

__all__ = ["DELIMITERS", "GEO_FORMATS", "check_outputs", "check_paths", "csv_header", "has_geometry", "likely_delimiter", "nested_arrow_columns",
           "nested_dtype", "numbers_from_text", "pandas_readable", "parquet_dataset", "read_csv_text",
           "read_table", "table_columns", "table_format", "write_parquet", "write_table"]

FORMATS = {".csv": "csv", ".parquet": "parquet", ".geojson": "geojson", ".gpkg": "gpkg", ".shp": "shp"}
GEO_FORMATS = {"geojson", "gpkg", "shp"}
_DRIVERS = {"geojson": "GeoJSON", "gpkg": "GPKG", "shp": "ESRI Shapefile"}
# GeoPackage stamps the write time into its tables; a fixed stamp keeps output
# byte-identical from run to run.
_FIXED_DATE = {"OGR_CURRENT_DATE": "2000-01-01T00:00:00.000Z"}


def table_format(path) -> str:
    """The format of a table file, from its extension (``.csv.gz`` is CSV);
    a folder of Parquet parts (a dataset the dask engine wrote) is Parquet."""
    if parquet_dataset(path):
        return "parquet"
    suffix = Path(path).suffix.lower()
    if suffix == ".gz" and Path(path).stem.lower().endswith(".csv"):
        suffix = ".csv"
    if suffix not in FORMATS:
        known = ", ".join(FORMATS)
        raise ParameterError(f"{path}: unknown table format {suffix or '(no extension)'!r}; use one of {known}")
    return FORMATS[suffix]


def parquet_dataset(path) -> bool:
    """Whether ``path`` is a folder holding Parquet parts."""
    path = Path(path)
    return path.is_dir() and any(path.rglob("*.parquet"))


def parquet_parts(path: Path) -> list:
    """A Parquet file, or a dataset folder's parts in natural order (part.2
    before part.10, as dask numbers them and reads them back)."""
    if not path.is_dir():
        return [path]
    return sorted(path.rglob("*.parquet"), key=lambda p: [int(t) if t.isdigit() else t
                                                          for t in re.split(r"(\d+)", str(p.relative_to(path)))])


@stepped("reading {0}")
def read_table(path, *, sep: str = ",", encoding: str = "utf-8") -> pd.DataFrame:
    """Read a table; CSV cells come back as exact strings, geo formats as a GeoDataFrame.
    ``sep`` and ``encoding`` apply to CSV.

    Refused with a DataError: a missing, empty or unreadable file, a table
    without rows, a CSV row with more or fewer fields than the header (naming
    its line), text that is not UTF-8, and two columns of one name (a
    :class:`~geoanon.errors.DuplicateColumnError`: pandas would rename the copy
    and a job could publish it raw).
    """
    fmt = table_format(path)
    path = Path(path)
    if path.is_dir() and not parquet_dataset(path):
        raise DataError(f"{path}: is a folder, not a table")
    if not path.exists():
        raise DataError(f"{path}: no such file")
    try:
        if fmt == "csv":
            df = read_csv_text(path, sep, encoding)
        elif fmt == "parquet":
            df = _read_parquet(path)
        else:
            df = _read_geo(path)
    except UnicodeDecodeError as exc:
        raise not_text(path, encoding, f"{exc.reason} at byte {exc.start}") from None
    except LookupError:
        raise ParameterError(f"unknown encoding {encoding!r}") from None
    except (DataError, KeyboardInterrupt):
        raise
    except Exception as exc:  # pyarrow / GDAL / GEOS raise their own types for unreadable files
        raise DataError(f"{path}: cannot read {fmt}: {_first_line(exc)}") from None
    if len(df) == 0:
        raise DataError(f"{path}: the table has no rows")
    check_unique_columns(df)
    return df


def _encoding_name(encoding: str) -> str:
    return "UTF-8" if encoding.lower().replace("_", "-") in ("utf-8", "utf8") else encoding


def not_text(path, encoding: str, detail: str) -> DataError:
    """The DataError of a file that is not ``encoding`` text, with the
    encoding it reads as when a sample tells (:func:`likely_encoding`), as
    ``encoding='NAME'`` (the command line's ``--encoding NAME``)."""
    other = likely_encoding(path, encoding)
    hint = f"; it reads as {other}: give encoding='{other}'" if other else ""
    return DataError(f"{path}: not {_encoding_name(encoding)} text ({detail}){hint}")


def likely_encoding(path, encoding: str, sample: int = 1 << 20) -> str | None:
    """What the first ``sample`` bytes of a file that ``encoding`` cannot
    decode read as: utf-16 after its byte order mark; else cp1252 (Windows'
    Latin-1, whose bytes 0x80-0x9F are letters and signs) when it decodes
    them and they occur, latin-1 otherwise. None when the sample also holds
    UTF-8 letters (a file of mixed encodings: no single name reads it) or
    the guess is ``encoding`` itself."""
    import codecs
    import gzip

    opener = gzip.open if Path(path).suffix.lower() == ".gz" else open
    try:
        with opener(path, "rb") as f:
            data = f.read(sample)
    except OSError:
        return None
    if data.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        guess = "utf-16"
    elif any(ord(c) > 127 and c != "\ufffd" for c in data.decode("utf-8", errors="replace")):
        return None
    else:
        try:
            data.decode("cp1252")
            guess = "cp1252" if re.search(rb"[\x80-\x9f]", data) else "latin-1"
        except UnicodeDecodeError:
            guess = "latin-1"
    return None if codecs.lookup(guess).name == codecs.lookup(encoding).name else guess


def table_columns(path, *, sep: str = ",", encoding: str = "utf-8") -> list:
    """A table's column names without reading its rows (CSV header, Parquet
    schema, a geo file's fields and ``geometry``)."""
    fmt = table_format(path)
    path = Path(path)
    if not (path.is_file() or parquet_dataset(path)):
        raise DataError(f"{path}: no such file")
    try:
        if fmt == "csv":
            return _csv_header(path, sep, encoding)
        if fmt == "parquet":
            import pyarrow.parquet as pq

            return [c for c in pq.read_schema(parquet_parts(path)[0]).names if not c.startswith("__index_level_")]
        import pyogrio

        return [*pyogrio.read_info(path)["fields"].tolist(), "geometry"]
    except UnicodeDecodeError as exc:
        raise not_text(path, encoding, f"{exc.reason} at byte {exc.start}") from None
    except LookupError:
        raise ParameterError(f"unknown encoding {encoding!r}") from None
    except DataError:
        raise
    except Exception as exc:
        raise DataError(f"{path}: cannot read {fmt}: {_first_line(exc)}") from None


def read_csv_text(path: Path, sep: str = ",", encoding: str = "utf-8", byte_range=None) -> pd.DataFrame:
    """Every cell as its exact string; the header's names exactly as written.
    ``byte_range``: only the rows in bytes ``(start, end)`` of the file, which
    begin and end on line breaks after the header (a dask partition)."""
    import pyarrow as pa
    import pyarrow.csv as pcsv

    header = csv_header(path, sep, encoding)
    invalid = []
    source, skip = path, 1
    if byte_range is not None:
        with open(path, "rb") as f:
            f.seek(byte_range[0])
            source, skip = pa.BufferReader(f.read(byte_range[1] - byte_range[0])), 0

    def refuse(row):
        invalid.append(row)
        return "error"

    try:
        table = pcsv.read_csv(
            source,
            read_options=pcsv.ReadOptions(use_threads=False, column_names=header, skip_rows=skip, encoding=encoding),
            parse_options=pcsv.ParseOptions(delimiter=sep, newlines_in_values=True, invalid_row_handler=refuse),
            convert_options=pcsv.ConvertOptions(column_types={c: pa.string() for c in header},
                                                strings_can_be_null=False, quoted_strings_can_be_null=False))
    except pa.ArrowInvalid as exc:
        if invalid:
            row = invalid[0]
            where = f"line {row.number}" if row.number is not None and byte_range is None \
                else f"the row {row.text[:40]!r}"
            raise DataError(f"{path}: malformed CSV: {where} has {plural(row.actual_columns, 'field')}, "
                            f"the header {row.expected_columns}") from None
        if "invalid UTF8" in str(exc):
            detail = _first_line(exc).split(": ", 1)[-1]
            raise not_text(path, encoding, detail) from None
        raise DataError(f"{path}: malformed CSV: {_first_line(exc)}") from None
    return table.to_pandas()


def csv_header(path: Path, sep: str = ",", encoding: str = "utf-8") -> list:
    """The names of a CSV file's header, each once (DuplicateColumnError:
    pandas would rename a copy, which a job could then publish raw)."""
    header = _csv_header(path, sep, encoding)
    if len(set(header)) != len(header):
        seen = pd.Index(header)
        name = seen[seen.duplicated()][0]
        raise DuplicateColumnError(f"{path}: the header names column {name!r} {header.count(name)} times; "
                                   "rename them apart")
    return header


def _csv_header(path: Path, sep: str = ",", encoding: str = "utf-8") -> list:
    """The names of the header row (the first record), or DataError when there is none."""
    import csv
    import gzip

    opener = gzip.open if path.suffix.lower() == ".gz" else open
    text = "utf-8-sig" if _encoding_name(encoding) == "UTF-8" else encoding
    with opener(path, "rt", encoding=text, newline="") as f:
        try:
            header = next(csv.reader(f, delimiter=sep), None)
        except csv.Error as exc:
            raise DataError(f"{path}: malformed CSV header: {exc}") from None
    if not header:
        raise DataError(f"{path}: the file is empty" if header is None else f"{path}: the first line is empty")
    return header


DELIMITERS = {",": "commas", ";": "semicolons", "\t": "tabs", "|": "pipes"}


def likely_delimiter(path, sep: str, encoding: str, names) -> tuple | None:
    """For a CSV file whose header, split on ``sep``, lacks some of
    ``names``: the delimiter of :data:`DELIMITERS` that splits it into more
    columns, among them the most of those names, and the names it finds (the
    file was read with the wrong delimiter); None when no other does."""
    path = Path(path)
    try:
        if not path.is_file() or table_format(path) != "csv":
            return None
        header = _csv_header(path, sep, encoding)
    except (GeoanonError, UnicodeError, LookupError, OSError):
        return None                       # unreadable: the job says why
    absent = [n for n in dict.fromkeys(names) if n not in header]
    if not absent:
        return None
    best = None
    for other in DELIMITERS:
        columns = _csv_header(path, other, encoding) if other != sep else []
        found = [n for n in absent if n in columns]
        if found and len(columns) > len(header) and (best is None or len(found) > len(best[1])):
            best = other, found
    return best


def _read_geo(path: Path):
    """A GeoDataFrame; GDAL's warnings about broken geometry become one DataError line."""
    import warnings

    import geopandas as gpd

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            return gpd.read_file(path, engine="pyogrio")
        except Exception as exc:
            gdal = [str(w.message).split(".")[0] for w in caught if issubclass(w.category, RuntimeWarning)]
            detail = _first_line(exc).removeprefix("IllegalArgumentException: ")
            raise DataError(f"{path}: cannot read {table_format(path)}: {detail}"
                            + (f" ({gdal[0]})" if gdal else "")) from None


def _read_parquet(path: Path) -> pd.DataFrame:
    """A Parquet file or dataset; its nested columns (lists, structs, maps)
    as Arrow types, so that a Parquet output writes them back as they were."""
    import pyarrow.parquet as pq

    parts = parquet_parts(path)
    metadata = pq.read_schema(parts[0]).metadata or {}
    if b"geo" in metadata:
        import geopandas as gpd

        frames = [gpd.read_parquet(p, to_pandas_kwargs={"types_mapper": nested_dtype}) for p in parts]
        return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]
    return pq.read_table([str(p) for p in parts] if len(parts) > 1 else parts[0]).to_pandas(types_mapper=nested_dtype)


def nested_dtype(arrow_type):
    """The pandas type of a nested Arrow type (list, struct, map) read from
    Parquet: the Arrow type itself, so it is written back as it was; None
    (the default conversion) for other types."""
    import pyarrow as pa

    return pd.ArrowDtype(arrow_type) if pa.types.is_nested(arrow_type) else None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def has_geometry(df) -> bool:
    """Whether ``df`` is a GeoDataFrame with an active geometry column."""
    return getattr(df, "active_geometry_name", None) is not None


OUTPUT_SUFFIXES = {"report": ".json", "map": ".html", "html_report": ".html"}


def check_outputs(inputs: dict, outputs: dict, *, classes_formats=None, creatable: bool = False) -> None:
    """Refuse bad output paths before any work is done: an output naming an
    input or another output (:func:`check_paths`), unknown table formats, the
    wrong extension, folders that cannot be written.

    ``inputs`` maps a name for messages to a path (or None); ``outputs`` maps
    a name for messages (a CLI flag, a job file's key) to ``(kind, path)``,
    kind "table", "classes" (a format of ``classes_formats``, default geo
    formats and Parquet) or one of :data:`OUTPUT_SUFFIXES`. ``creatable``: an
    output's folder may be missing if it can be made (:class:`StagedOutputs` makes it).
    """
    check_paths(inputs, {name: path for name, (_, path) in outputs.items()})
    allowed = GEO_FORMATS | {"parquet"} if classes_formats is None else classes_formats
    for name, (kind, path) in outputs.items():
        if path is None:
            continue
        if kind == "table":
            table_format(path)
        elif kind == "classes":
            if table_format(path) not in allowed:
                raise ParameterError(f"{name}: the classes file must be {', '.join(sorted(allowed))}, got {path}")
        elif Path(path).suffix.lower() != OUTPUT_SUFFIXES[kind]:
            raise ParameterError(f"{name}: expected a {OUTPUT_SUFFIXES[kind]} file, got {path}")
        check_writable(path, creatable=creatable)


def check_paths(inputs: dict, outputs: dict) -> None:
    """ParameterError when an output names an input or another output.

    ``inputs`` and ``outputs`` map a name for messages (a CLI flag) to a path
    or None. Paths are compared after resolving symbolic links and relative
    parts, and as files (a hard link to an input is the input).
    """
    def same(a: Path, b: Path) -> bool:
        if a.resolve() == b.resolve():
            return True
        try:
            return os.path.samefile(a, b)
        except OSError:
            return False

    given_in = [(n, Path(p)) for n, p in inputs.items() if p is not None]
    given_out = [(n, Path(p)) for n, p in outputs.items() if p is not None]
    for i, (name, out) in enumerate(given_out):
        for source, path in given_in:
            hit = next((a for a in file_set(out) for b in file_set(path) if same(a, b)), None)
            if hit is not None:
                what = "the input file" if source == "IN" else f"the {source} file"
                side = "" if hit == out else f" (its {hit.suffix} file is {hit.name})"
                raise ParameterError(f"{name} {out} names {what}{side}: an output never replaces an input")
        for other, path in given_out[:i]:
            if any(same(a, b) for a in file_set(out) for b in file_set(path)):
                raise ParameterError(f"{other} and {name} name the same file {out}")


SHAPEFILE_PARTS = (".shp", ".shx", ".dbf", ".prj", ".cpg")   # what GDAL writes for a Shapefile


def file_set(path: Path) -> list:
    """The files a path stands for: a Shapefile's side files with it (as
    GDAL writes them, beside each other), else the path alone."""
    if path.suffix.lower() != ".shp":
        return [path]
    return [path] + [path.with_suffix(ext) for ext in SHAPEFILE_PARTS[1:]]


_INTEGER = r"[+-]?(?:0|[1-9][0-9]*)"             # no leading zero: "02134" is a code, kept as text
_DECIMAL = rf"{_INTEGER}(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"


def numbers_from_text(df: pd.DataFrame) -> pd.DataFrame:
    """Text columns whose every present cell is a number, as numbers: integers
    (``Int64`` when some cells are empty) or floats; for a table read from CSV
    (every cell text) written to a typed format. Integers written with a
    leading zero, and any other text, keep the column text."""
    out = df.copy()
    for col in df.columns:
        values = df[col]
        if not (pd.api.types.is_object_dtype(values) or pd.api.types.is_string_dtype(values)):
            continue
        if not values.map(lambda v: isinstance(v, str)).all():
            continue
        present = values[values != ""]
        if present.empty:
            continue
        if present.str.fullmatch(_INTEGER).all():
            number = pd.to_numeric(values.where(values != ""), errors="coerce")
            out[col] = number.astype("Int64" if (values == "").any() else "int64")
        elif present.str.fullmatch(_DECIMAL).all():
            out[col] = pd.to_numeric(values.where(values != ""), errors="coerce").astype("float64")
    return out


def write_table(df: pd.DataFrame, path) -> None:
    """Write ``df`` to ``path`` in the format its extension names.

    Geo formats need a GeoDataFrame (a plain table is written with empty
    geometry); Parquet keeps a GeoDataFrame's geometry (GeoParquet), CSV drops it.
    Parquet keeps nested columns (lists, structs, maps) as they are; CSV and
    the geo formats write them as JSON text (:func:`geoanon._cells.nested_text`).
    """
    fmt = table_format(path)
    geo = has_geometry(df)
    if fmt != "parquet":
        df = nested_as_text(df)
    if fmt == "csv":
        gzip = str(path).lower().endswith(".gz")
        (df.drop(columns=df.geometry.name) if geo else df).to_csv(
            path, index=False, compression={"method": "gzip", "mtime": 0} if gzip else None)
    elif fmt == "parquet":
        write_parquet(df, path)
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


def write_parquet(df: pd.DataFrame, path) -> None:
    """``df`` as a Parquet file (GeoParquet for a GeoDataFrame) that pandas
    reads back (:func:`pandas_readable`); DataError for a column Arrow cannot
    hold (Python objects of mixed types)."""
    import pyarrow as pa

    try:
        df.to_parquet(path, index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError) as exc:
        raise DataError(f"{Path(path).name}: cannot write parquet: {'. '.join(map(str, exc.args))}") from None
    pandas_readable(path, nested_arrow_columns(df))


def nested_arrow_columns(df: pd.DataFrame) -> list:
    """The columns of ``df`` held as nested Arrow types (lists, structs, maps: :func:`nested_dtype`)."""
    import pyarrow as pa

    return [c for c in df.columns if pa.types.is_nested(getattr(df[c].dtype, "pyarrow_dtype", pa.null()))]


def pandas_readable(path, columns) -> None:
    """Rewrite the Parquet file ``path`` with its nested Arrow ``columns``
    recorded in the pandas metadata as Python objects: pandas records the
    name of their Arrow type, which it cannot read back (pandas-dev/pandas#53011),
    so the file would open nowhere but here. Nothing to do without them."""
    if not columns:
        return
    import json

    import pyarrow.parquet as pq

    table = pq.read_table(path)
    metadata = json.loads(table.schema.metadata[b"pandas"])
    for column in metadata["columns"]:
        if column["name"] in columns:
            column["numpy_type"] = "object"
    pq.write_table(table.replace_schema_metadata({**table.schema.metadata, b"pandas": json.dumps(metadata)}), path)
