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
from .._geo import ground
from ..staging import StagedOutputs, check_writable, current_batch
from ..report.release import Published, published_order, side_outputs

__all__ = ["ClusterRelease", "check_dataset_output", "check_scalar_dataset", "declared_dataset",
           "in_published_order", "is_frame", "open_dataset", "read_dataset", "with_coordinates", "write_dataset", "write_staged"]


SAMPLE_CHECK = 100       # rows of an untyped column looked at for nested values


@dataclass(repr=False)
class ClusterRelease(Published):
    """A release a cluster job wrote: :class:`~geoanon.report.release.Published`'s
    report, classes (brought to the client: one row per class, or per
    location class) and figures, and:

    Attributes
    ----------
    output : Path
        The Parquet dataset written (a folder of part files).
    columns : list of str
        Its columns.
    sizes : ndarray
        The size of every class.
    boxes : DataFrame, optional
        The classes of a points location as numbers (their columns, and the
        box ``xmin, ymin, xmax, ymax``) in ``crs``: ``classes`` draws them
        when first asked.

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
    ...                    "diagnosis": ["flu", "copd", "flu", "gout", "copd", "flu", "gout", "flu"]})
    >>> release = gc.generalize_points(dd.from_pandas(df, npartitions=2), 2, Path(folder.name, "released"),
    ...                                keep=["diagnosis"], scheduler=client)
    >>> release.output.name, release.report["classes"]
    ('released', 4)
    >>> release.classes.columns.tolist()
    ['class_id', 'weight', 'geometry']
    >>> client.close(); folder.cleanup()
    """

    output: Path = None
    columns: list = field(default_factory=list)
    sizes: np.ndarray = None
    boxes: pd.DataFrame = None
    crs: object = None

    @property
    def classes(self):
        if self._classes is None and self.boxes is not None:
            import geopandas as gpd
            import shapely

            b = self.boxes
            shapes = np.where(b["xmin"].isna(), None, shapely.box(b["xmin"], b["ymin"], b["xmax"], b["ymax"]))
            self._classes = gpd.GeoDataFrame(b.drop(columns=["xmin", "ymin", "xmax", "ymax"]), geometry=shapes,
                                             crs=self.crs)
        return self._classes

    @classes.setter
    def classes(self, value):
        self._classes = value

    def column_names(self) -> list:
        return list(self.columns)

    def class_sizes(self) -> np.ndarray:
        return np.asarray(self.sizes, dtype=np.int64)

    def box_extents(self, crs) -> tuple:
        """Width, height and diameter (km) of every location class's box, and
        the records each holds (NaN for a class without a box)."""
        b = self.boxes
        extents = ground(crs).extents(*(b[c].to_numpy(dtype=np.float64) for c in ("xmin", "ymin", "xmax", "ymax")))
        return (*extents, b["weight"].to_numpy(dtype=np.int64))

    def has_map(self) -> bool:
        return self.boxes is not None or super().has_map()

    def to_file(self, path, *, report=None, map_html=None, classes=None, html_report=None, map_options=None,
                timings: bool = False, staged: StagedOutputs | None = None, **written) -> list[Path]:
        """Write the release's report, map, class file and HTML report beside
        its dataset ``path`` (which the job wrote: ``written``, the options
        of the table's writing, were applied then), all or nothing."""
        if Path(path) != Path(self.output):
            raise ParameterError(f"this release was written to {self.output}, not {path}")
        side_outputs(self, report=report, map_html=map_html, classes=classes, html_report=html_report,
                     map_options=map_options, timings=timings, staged=staged)
        return [Path(p) for p in (path, report, map_html, classes, html_report) if p is not None]


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
    files = [str(Path(f).absolute()) for f in files]      # the workers may run elsewhere
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


def read_dataset(source, *, sep=",", encoding="utf-8"):
    """A lazy dask DataFrame of a dataset, refused (before any work) when a
    file's header names a column twice or differs from the first file's.
    CSV files are read by the in-memory engine's reader (:func:`geoanon.io.read_table`'s:
    every cell its exact string, a row with more or fewer fields than the
    header refused), in partitions of about ``CSV_BLOCK`` bytes
    (:func:`csv_blocks`)."""
    import dask.dataframe as dd

    from ..io import csv_header, nested_dtype

    kind, files = dataset_files(source)
    if kind == "parquet":
        import pyarrow.parquet as pq

        schemas = [pq.read_schema(f) for f in files]
        _same_columns(files, [[c for c in s.names if not c.startswith("__index_level_")] for s in schemas])
        nested = {"arrow_to_pandas": {"types_mapper": nested_dtype}}     # lists, structs, maps kept as they are
        if b"geo" in (schemas[0].metadata or {}):      # GeoParquet: its geometry as geometry
            import dask_geopandas

            return dask_geopandas.read_parquet(files, **nested)
        return dd.read_parquet(files, **nested)
    header = _same_columns(files, [csv_header(Path(f), sep, encoding) for f in files])
    parts = [(f, block) for f in files for block in csv_blocks(Path(f), encoding)]
    return dd.from_map(_read_csv_part, parts, sep=sep, encoding=encoding, meta=_text_frame(header),
                       enforce_metadata=False)


CSV_BLOCK = 64 * 2**20      # bytes of a CSV file per partition, as dask's read_csv


def csv_blocks(path: Path, encoding: str = "utf-8") -> list:
    """The byte ranges ``(start, end)`` of a CSV file's partitions: about
    ``CSV_BLOCK`` bytes of whole lines each, after the header. The whole file
    is one partition (``[None]``) when it is small, gzipped, in an encoding
    whose line breaks are not single bytes, or holds a quote character: a
    quoted value may hold a line break, where no block may end."""
    import codecs
    import mmap

    size = path.stat().st_size
    single_byte_breaks = codecs.lookup(encoding).name in ("utf-8", "ascii", "iso8859-1", "cp1252")
    if size <= CSV_BLOCK or path.suffix.lower() == ".gz" or not single_byte_breaks:
        return [None]
    with open(path, "rb") as f, mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as data:
        if data.find(b'"') >= 0:
            return [None]
        cuts = [data.find(b"\n") + 1]
        while cuts[-1] > 0 and cuts[-1] + CSV_BLOCK < size:
            cuts.append(data.find(b"\n", cuts[-1] + CSV_BLOCK) + 1)
    if cuts[0] == 0:            # the header is the whole file
        return [None]
    if cuts[-1] in (0, size):   # no line break after the last cut, or the file's last byte
        cuts.pop()
    return list(zip(cuts, cuts[1:] + [size]))


def _same_columns(files: list, names: list) -> list:
    """The columns every file has, in the same order; DataError naming the
    first file that differs (or names a column twice)."""
    from ..errors import DuplicateColumnError

    for f, cols in zip(files, names):
        if len(set(cols)) != len(cols):
            twice = next(c for c in cols if cols.count(c) > 1)
            raise DuplicateColumnError(f"{f}: names column {twice!r} {cols.count(twice)} times; rename them apart")
        if cols != names[0]:
            raise DataError(f"{f}: its columns ({', '.join(map(str, cols[:8]))}) differ from those of {files[0]} "
                            f"({', '.join(map(str, names[0][:8]))}); every file of a dataset has the same header")
    return names[0]


def _read_csv_part(part: tuple, sep: str, encoding: str) -> pd.DataFrame:
    """One partition of a CSV dataset, ``(file, byte range or None)``, as
    :func:`geoanon.io.read_table` reads it (an empty body is an empty partition)."""
    from ..io import read_csv_text

    path, block = part
    return read_csv_text(Path(path), sep, encoding, byte_range=block)


def _text_frame(columns: list) -> pd.DataFrame:
    """An empty frame of text columns, typed as the CSV reader types them."""
    import pyarrow as pa

    return pa.table({c: pa.array([], pa.string()) for c in columns}).to_pandas()


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
    check_scalar_dataset(ddf, [columns] if isinstance(columns, str) else columns)
    return ddf


def check_scalar_dataset(ddf, columns) -> None:
    """:func:`geoanon._validation.check_scalar_columns` of a dataset: its
    schema's types, and the first rows of untyped (object) columns."""
    from .._validation import check_scalar_columns

    columns = [c for c in columns if c is not None and c in ddf.columns]
    check_scalar_columns(ddf._meta, columns)
    untyped = [c for c in columns if ddf._meta[c].dtype == object]
    if untyped:
        # the first partition alone (a head over several that finds too few rows warns on the worker)
        check_scalar_columns(ddf.partitions[0][untyped].head(SAMPLE_CHECK), untyped)


def declared_dataset(ddf, roles, identifiers=None, keep=None, *, strict=True) -> tuple:
    """The dataset without its ``identifiers`` columns, and its columns with
    no role (:mod:`geoanon.pipeline.roles`: ``roles`` are the job's own
    columns, ``keep`` the ones published deliberately); ParameterError when
    ``strict`` and some have none."""
    from ..pipeline.roles import declared_table, undeclared

    meta, keep = declared_table(ddf._meta, identifiers, keep)
    if len(meta.columns) < len(ddf.columns):
        ddf = ddf.drop(columns=[c for c in ddf.columns if c not in meta.columns])
    return ddf, undeclared(meta, roles, keep, strict=strict)


def in_published_order(ddf):
    """The rows of ``ddf`` in the published order
    (:func:`geoanon.report.release.published_order`): moved by ``class_id``
    into parts holding whole ranges of classes, then sorted in each part."""
    from ..io import nested_arrow_columns

    # dask's P2P shuffle moves Arrow tables whose nested columns pandas cannot read back: move pandas frames then
    method = {"shuffle_method": "tasks"} if nested_arrow_columns(ddf._meta) else {}
    return ddf.sort_values("class_id", **method).map_partitions(_in_published_order, meta=ddf._meta)


def _in_published_order(pdf: pd.DataFrame) -> pd.DataFrame:
    return pdf.iloc[published_order(pdf)]


def check_dataset_output(output, inputs) -> Path:
    """The output dataset's path, refused when it exists, names an input,
    lies inside an input dataset's folder (a later read of that folder would
    take the release for input), or its folder cannot be written."""
    from ..io import check_paths

    output = Path(output)
    if output.exists():
        raise ParameterError(f"{output} exists: a dataset is written whole into a new folder")
    check_paths({f"input {i}": p for i, p in enumerate(inputs)}, {"-o": output})
    for source in inputs:
        folder = Path(str(source))
        if folder.is_dir() and output.resolve().is_relative_to(folder.resolve()):
            raise ParameterError(f"-o {output} lies inside the input dataset {source}: write the release elsewhere")
    check_writable(output)
    return output


def write_dataset(released, staged):
    """Write ``released`` as a Parquet dataset into the folder ``staged`` (by
    the workers, its nested columns readable by pandas: :func:`geoanon.io.pandas_readable`)
    and read it back lazily, for the audit."""
    import dask
    import dask.dataframe as dd

    from ..io import nested_arrow_columns, pandas_readable

    released.to_parquet(staged, write_index=False)
    nested = nested_arrow_columns(released._meta)
    if nested:
        dask.compute(*[dask.delayed(pandas_readable)(part, nested) for part in Path(staged).glob("*.parquet")])
    return dd.read_parquet(staged)


def write_staged(output, write):
    """Run ``write(staged_path)``, which writes the dataset there (by the
    workers) and audits it, raising to refuse; then rename the staging folder
    into place (with the outputs of the batch open, :func:`geoanon.staging.batch`).
    On any error nothing is left. Returns what ``write`` returned."""
    output = Path(output).absolute()  # the workers may run in another folder
    batch = current_batch()
    if batch is not None:            # renamed with the batch's other outputs (a command's report and map)
        return write(batch.stage(output))
    with StagedOutputs() as out:
        return write(out.stage(output))
