"""What a table job returns, and how it is written: all outputs or none."""
from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from .._cells import escape_header, escape_table
from .._codes import COUNTED, stable_order
from .._geo import row_box_extents
from .._text import plain
from ..errors import ParameterError
from ..io import numbers_from_text, table_format, write_table
from ..staging import StagedOutputs
from ..partition import Partition
from ..progress import stepped
from .job_report import JobReport

__all__ = ["JobReport", "Published", "Release", "in_published_order", "published_order", "report_json", "side_outputs",
           "with_geometry", "write_release"]

if TYPE_CHECKING:
    from ..joint.partition import JointPartition


@dataclass(repr=False)
class Published:
    """What every release has, in memory or on a cluster: its report, its
    classes, and what the maps, the JSON and the HTML report show of it.

    Attributes
    ----------
    report : JobReport
        Figures of the job (rows, classes, sizes, model, its own details,
        audit, seconds).
    classes : GeoDataFrame or None
        One row per drawn class (for maps and class files).
    notes : list of str
        Lines for the map legend (e.g. about suppressed records).
    warnings : list of str
        What the job noticed and worked around (repaired polygons, an assumed
        CRS, records at (0, 0), ...); the same list is ``report.warnings``
        and the command line prints each on stderr.
    treatments : dict
        How each generalized input column is published, as
        :func:`geoanon.information_loss` takes it: ``{column: (kind,
        published)}``, kind "interval", "suppress", "hierarchy" or "set".
    location : dict or None
        The location: ``{"kind": "points", "columns": (lat, lon)}``,
        ``{"kind": "regions", "columns": (column,)}`` or ``{"kind": "labels",
        "columns": (column,)}``; None without one.
    """

    report: JobReport
    classes: object = None
    notes: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    treatments: dict = field(default_factory=dict)
    location: dict | None = None

    def __post_init__(self):
        self.report.warnings = self.warnings

    def summary(self, *, frontier: bool = True) -> str:
        """What the command line prints of it (:func:`geoanon.report.summary.summary`)."""
        from .summary import summary

        return summary(self, frontier=frontier)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self.report.job}: {self.summary(frontier=False)}>"

    def has_map(self) -> bool:
        """Whether the classes have shapes to draw."""
        return self.classes is not None and hasattr(self.classes, "geometry")

    def figures(self) -> dict:
        """:func:`~geoanon.report.figures.release_figures`: the columns'
        treatment, class sizes, prosecutor risk and location precision (km)."""
        from .figures import release_figures

        return release_figures(self)

    def report_dict(self, figures: dict | None = None, *, timings: bool = False) -> dict:
        """The report as written to JSON: the job's figures, then ``figures``
        (default :meth:`figures`), then the files. Every ``seconds`` is null
        unless ``timings`` (:func:`without_timings`)."""
        d = self.report.to_dict() if timings else without_timings(self.report.to_dict())
        files = {key: d.pop(key) for key in self.report.files}
        return {**d, **(self.figures() if figures is None else figures), **files}

    def to_html(self, path=None, *, map: bool = True, timings: bool = False, **map_options):
        """The HTML report (:mod:`geoanon.report.html`) as text, or
        written atomically to ``path``; ``map=False`` leaves the map out,
        ``timings`` adds the run time."""
        from .maps import render_html
        from .html import html_report

        shown = render_html(self.preview(**map_options)) if map and self.has_map() else None
        page = html_report(self, self.figures(), map_html=shown, title=map_options.get("title"), timings=timings)
        if path is None:
            return page
        with StagedOutputs() as out:
            Path(out.stage(path)).write_text(page, encoding="utf-8")
        return None

    def preview(self, *, tiles=None, title=None, attribution=None, tiles_attribution=None, color_by="precision",
                outlines=True, places=True):
        """A folium map of the classes (never the records), its legend named
        for the location kind; see :func:`geoanon.report.maps.class_map`."""
        from .maps import class_map, shapes_named

        if not self.has_map():
            raise ParameterError("this release has no map: its classes have no geometry")

        return class_map(self.classes, self.report["k"], title=title, tiles=tiles, attribution=attribution,
                         tiles_attribution=tiles_attribution, notes=self.notes, color_by=color_by,
                         outlines=outlines, places=places,
                         shapes=shapes_named(self.location, self.report.get("zip_level")),
                         release_classes=self.report.classes if self.report.job == "anonymize" else None)


@dataclass(repr=False)
class Release(Published):
    """A generalized table ready to publish, with what made it
    (:class:`Published`'s attributes, and:)

    Attributes
    ----------
    table : DataFrame or GeoDataFrame
        The released rows: every input row and non-QI column, QI columns
        generalized, plus ``class_id``; in the published order
        (:func:`published_order`: by class, then by the other published
        cells), never the input's, with a fresh index.
    partition : Partition, JointPartition or None
        What the job partitioned: the points' plane (a RectanglePartition),
        the region graph (a GraphPartition) or the labels (a LabelPartition),
        each covering the rows not suppressed; the joint search's classes of
        rows (anonymize); None under the suppression model, whose classes are
        groups of rows, not of a domain. Its labels follow the input's rows.
    input_rows : ndarray
        For each row of ``table``, its position in the input (whose index is
        ``input_index``): the data holder's key back to the records, never
        written (:meth:`in_input_order`; ``to_file(..., keep_order=True)``).

    Examples
    --------
    >>> import pandas as pd
    >>> import geoanon as ga
    >>> df = pd.DataFrame({"lat": [35.99, 36.01, 35.98, 36.02, 35.78, 35.80, 35.77, 35.79],
    ...                    "lon": [-78.90, -78.91, -78.93, -78.89, -78.64, -78.66, -78.62, -78.63]})
    >>> release = ga.generalize_points(df, k=2)
    >>> release.column_names(), release.class_sizes()
    (['lat_min', 'lat_max', 'lon_min', 'lon_max', 'class_id'], array([2, 2, 2, 2]))
    >>> import tempfile
    >>> from pathlib import Path
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     written = release.to_file(Path(folder, "released.csv"), report=Path(folder, "report.json"))
    ...     sorted(path.name for path in written)
    ['released.csv', 'report.json']
    """

    table: pd.DataFrame = None
    partition: Partition | JointPartition | None = None
    row_shapes: object = None   # callable giving each row's class shape as a GeoSeries
    input_rows: np.ndarray | None = None
    input_index: pd.Index | None = field(default=None, repr=False)

    def __post_init__(self):
        super().__post_init__()
        if self.table is None or self.input_rows is not None:
            return
        self.table, self.input_rows, self.input_index, self.row_shapes = in_published_order(self.table,
                                                                                            self.row_shapes)

    def in_input_order(self) -> pd.DataFrame:
        """The released rows in the input's order, under the input's index:
        the data holder's view, to set each record beside its release (to
        measure it, or to check it). Never publish it: the order can tell
        who a row is."""
        back = np.argsort(self.input_rows, kind="stable")
        table = self.table.iloc[back]
        return table.set_axis(self.input_index) if self.input_index is not None else table.reset_index(drop=True)

    def column_names(self) -> list:
        """The released table's columns (its geometry left out)."""
        geometry = getattr(self.table, "_geometry_column_name", None)
        return [c for c in self.table.columns if c != geometry]

    def class_sizes(self) -> np.ndarray:
        """The size of every class, from the audit."""
        per_class = getattr(self.report.audit, "per_class", None)
        if per_class is None:
            return np.zeros(0, dtype=np.int64)
        return per_class["measures"]["size"].to_numpy(dtype=np.int64)

    def box_extents(self, crs) -> tuple:
        """Width, height and diameter (km) of every row's published box (NaN
        without one), and None: each counts once."""
        return (*row_box_extents(self.table, *self.location["columns"], crs), None)

    def geo_table(self):
        """The released table as a GeoDataFrame whose geometry is each row's
        class shape; as it is when its classes have no shape (labels,
        suppression: written with empty geometry)."""
        import geopandas as gpd

        if isinstance(self.table, gpd.GeoDataFrame) or self.row_shapes is None:
            return self.table
        shapes = self.row_shapes()
        return gpd.GeoDataFrame(self.table, geometry=shapes, crs=shapes.crs)

    def generated_columns(self) -> list:
        """The columns the job named (``{col}_min``, ``{col}_max``); the
        others keep their input's names."""
        return [c for _, published in self.treatments.values() if isinstance(published, tuple) for c in published]

    def to_file(self, path, *, keep_order: bool = False, **outputs) -> list[Path]:
        """Write the released table atomically (format from the extension; geo
        formats get each row's class shape as geometry), its rows in the
        published order (``keep_order``: the input's; see
        :meth:`table_to_write`), and with it the ``outputs`` of
        :func:`write_release` (report, map_html, classes, html_report, ...),
        all or nothing. Returns the paths written."""
        return write_release(self, path, keep_order=keep_order, **outputs)

    def table_to_write(self, path, *, escape_all: bool = False, from_text: bool = False, keep_order: bool = False):
        """The table as written to ``path``: with each row's class shape in a
        geo format; ``from_text`` (read from CSV) number columns as numbers in
        a typed format (:func:`geoanon.io.numbers_from_text`); the names of the
        generated columns, and with ``escape_all`` every cell and name, never
        starting a spreadsheet formula. The rows are in the published order
        (:func:`published_order`); ``keep_order`` writes the input's, which
        may itself tell who they are (a table sorted by name, whose names
        were dropped)."""
        from ..io import GEO_FORMATS

        fmt = table_format(path)
        table = self.geo_table() if fmt in GEO_FORMATS else self.table
        if keep_order:
            table = table.iloc[np.argsort(self.input_rows, kind="stable")].reset_index(drop=True)
        if from_text and fmt != "csv":
            table = numbers_from_text(table)
        if fmt == "csv":
            table = whole_ends(table, [cols for kind, cols in self.treatments.values()
                                       if kind == "interval" and isinstance(cols, tuple)])
        if escape_all:
            table = escape_table(table)
        return escape_header(table, None if escape_all else self.generated_columns())


def whole_ends(table: pd.DataFrame, pairs) -> pd.DataFrame:
    """``table`` with the intervals among ``pairs`` (``(min column, max
    column)``) whose ends are whole numbers, held as floats only because an
    end is open (``inf``), written as whole numbers in text (``85,inf``,
    not ``85.0,inf``)."""
    out = table
    for pair in pairs:
        ends = table[list(pair)]
        if not all(ends[c].dtype == np.float64 for c in pair) or not np.isinf(ends.to_numpy()).any():
            continue
        values = ends.to_numpy()
        finite = values[np.isfinite(values)]
        if (finite == np.round(finite)).all():
            out = table.copy() if out is table else out
            for c in pair:
                out[c] = pd.Series([None if np.isnan(v) else v if np.isinf(v) else int(v) for v in table[c]],
                                   index=table.index, dtype=object)
    return out


@stepped("writing {1}")
def write_release(release: Release, output, *, report=None, map_html=None, classes=None, html_report=None,
                  map_options=None, escape_all: bool = False, from_text: bool = False,
                  timings: bool = False, keep_order: bool = False, staged: StagedOutputs | None = None) -> list[Path]:
    """Write a release's table and, if asked, its JSON report (the job's
    figures and :func:`~geoanon.report.figures.release_figures`), map, class
    file (one row per class, geo format by extension) and HTML report (the
    same figures, and the map when the release has one), all or nothing.
    ``from_text``: the table was read from CSV (every cell text); in a typed
    output format (Parquet, geo formats) its number columns become numbers
    again (:func:`geoanon.io.numbers_from_text`), in CSV every cell stays as read.

    Everything is rendered in memory first and staged; files appear only once
    all of them are complete. The columns a job generated never start a
    spreadsheet formula; ``escape_all`` escapes the untouched text columns too
    (:func:`geoanon._cells.escape_formulas`). The reports carry the run time
    only with ``timings``: by default the same job writes the same bytes.
    ``keep_order`` writes the rows in the input's order instead of the
    published one (:meth:`Release.table_to_write`). ``staged``: an open
    :class:`~geoanon.staging.StagedOutputs` to write into (a batch renames its
    jobs' outputs together), instead of one of its own.
    """
    table = release.table_to_write(output, escape_all=escape_all, from_text=from_text, keep_order=keep_order)
    with (StagedOutputs() if staged is None else contextlib.nullcontext(staged)) as out:
        write_table(table, out.stage(output))
        side_outputs(release, report=report, map_html=map_html, classes=classes, html_report=html_report,
                     map_options=map_options, timings=timings, staged=out)
    return [Path(p) for p in (output, report, map_html, classes, html_report) if p is not None]


def side_outputs(release: Published, *, report=None, map_html=None, classes=None, html_report=None,
                 map_options=None, timings: bool = False, staged: StagedOutputs | None = None) -> None:
    """Write what accompanies a release's table, if asked: its JSON report
    (the job's figures and :func:`~geoanon.report.figures.release_figures`),
    map, class file and HTML report, each rendered before any is staged."""
    figures = release.figures() if report is not None or html_report is not None else None
    report_text = None if report is None else report_json(release.report_dict(figures, timings=timings))
    html = None
    if map_html is not None or (html_report is not None and release.has_map()):
        from .maps import render_html

        html = render_html(release.preview(**(map_options or {})))
    page = None
    if html_report is not None:
        from .html import html_report as render_report

        page = render_report(release, figures, map_html=html, title=(map_options or {}).get("title"),
                             timings=timings)
    with (StagedOutputs() if staged is None else contextlib.nullcontext(staged)) as out:
        if report is not None:
            Path(out.stage(report)).write_text(report_text, encoding="utf-8")
        if map_html is not None:
            Path(out.stage(map_html)).write_text(html, encoding="utf-8")
        if classes is not None:
            write_table(release.classes, out.stage(classes))
        if html_report is not None:
            Path(out.stage(html_report)).write_text(page, encoding="utf-8")


def in_published_order(table: pd.DataFrame, row_shapes=None) -> tuple:
    """``table`` in its published order (:func:`published_order`) under a
    fresh index, that order (each published row's position in ``table``),
    ``table``'s index, and ``row_shapes`` (a callable giving each row's class
    shape, or None) in the same order: a :class:`Release`'s ``table``,
    ``input_rows``, ``input_index`` and ``row_shapes``."""
    order = published_order(table)
    if row_shapes is not None:
        shapes_in_input_order = row_shapes
        row_shapes = lambda: shapes_in_input_order().iloc[order].reset_index(drop=True)  # noqa: E731
    return table.iloc[order].reset_index(drop=True), order, table.index, row_shapes


def published_order(table: pd.DataFrame) -> np.ndarray:
    """The order in which ``table``'s rows are published: by ``class_id``,
    then by each other column in turn (a geometry, the class's shape, left
    out). It is a function of the published cells alone, so it tells nothing
    the cells do not: not the input's order (a table sorted by name), and not
    which row of another release of the same table is the same record. Rows
    that tie are identical in every cell; they come in an order drawn from
    the operating system's entropy, so not even their order follows the
    input, and the bytes written are the same every time.

    >>> published_order(pd.DataFrame({"a": ["y", "x", "z"], "class_id": [1, 0, 0]})).tolist()
    [1, 2, 0]
    """
    geometry = getattr(table, "_geometry_column_name", None)
    columns = [c for c in table.columns if c != geometry]
    columns = (["class_id"] if "class_id" in columns else []) + [c for c in columns if c != "class_id"]
    ties = np.random.default_rng().permutation(len(table))
    keys = [_sort_codes(table[c]) for c in columns]
    if columns and columns[0] == "class_id":    # a column its class gives (a box) orders nothing within it
        group = _numbered(keys[0])
        keys = keys[:1] + [key for key in keys[1:] if not _given_by(group, key)]
        if len(keys) == 1:                      # the order by class alone
            return ties[stable_order(keys[0][ties])]
    return ties[np.lexsort([key[ties] for key in keys[::-1]])] if keys else ties


def _numbered(codes: np.ndarray) -> np.ndarray:
    """Each row's group (rows of one code), numbered from 0 up to at most the
    rows: a class id's own number where they are whole numbers in that range."""
    whole = codes.astype(np.int64)
    if codes.size and codes.min() >= 0 and codes.max() <= codes.size and (whole == codes).all():
        return whole
    return pd.factorize(codes)[0]


def _given_by(group: np.ndarray, key: np.ndarray) -> bool:
    """Whether ``key`` holds one value within each group (``group``: each row's, numbered from 0)."""
    groups = int(group.max()) + 1 if group.size else 0
    if group.size >= COUNTED:
        from .._counting import constant_within

        return bool(constant_within(group, key, groups))
    first = np.empty(groups, dtype=key.dtype)
    first[group[::-1]] = key[::-1]
    return bool((first[group] == key).all())


def _sort_codes(column: pd.Series) -> np.ndarray:
    """Integer codes of a column's cells in their sorted order (numbers by
    value, anything else by its text; missing cells last)."""
    if pd.api.types.is_numeric_dtype(column) and not pd.api.types.is_bool_dtype(column):
        values = column.to_numpy(dtype=np.float64, na_value=np.nan)
        return np.where(np.isnan(values), np.inf, values)
    try:
        codes, uniques = pd.factorize(column, sort=True)
    except (TypeError, NotImplementedError):      # values of several types, or nested ones: by their text
        codes, uniques = pd.factorize(column.map(str).where(column.notna()), sort=True)
    return np.where(codes < 0, len(uniques), codes)


def without_timings(report):
    """``report`` with every ``seconds`` (the run's, a solver's) null, so that
    the same job writes the same bytes every time."""
    if isinstance(report, Mapping):
        return {key: None if key == "seconds" else without_timings(v) for key, v in report.items()}
    if isinstance(report, (list, tuple)):
        return [without_timings(v) for v in report]
    return report


def report_json(report: Mapping) -> str:
    """A report as strict JSON text: numpy scalars as numbers, NaN and
    infinities (which JSON cannot hold) as null."""
    def clean(v):
        if isinstance(v, Mapping):
            return {str(key): clean(x) for key, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [clean(x) for x in v]
        v = plain(v)
        if isinstance(v, float) and not math.isfinite(v):
            return None
        return v

    return json.dumps(clean(report), indent=2, allow_nan=False, default=str) + "\n"


def with_geometry(table, shapes):
    """``table`` (a GeoDataFrame) with its geometry column replaced by ``shapes``."""
    import geopandas as gpd

    name = table.geometry.name
    table = pd.DataFrame(table).copy()
    table[name] = shapes
    return gpd.GeoDataFrame(table, geometry=name, crs=shapes.crs)
