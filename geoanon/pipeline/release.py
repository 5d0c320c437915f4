"""What a table job returns, and how it is written: all outputs or none."""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from .._cells import escape_table
from .._text import plain
from ..errors import DataError, ParameterError
from ..io import StagedOutputs, write_table
from ..partition import Partition

MISSING_TOKENS = frozenset({"", "na", "nan", "null", "none", "n/a", "#n/a"})


@dataclass
class Release:
    """A generalized table ready to publish, with what made it.

    Attributes
    ----------
    table : DataFrame or GeoDataFrame
        The released rows: every input row and non-QI column, QI columns
        generalized, plus ``class_id``.
    partition : Partition or None
        The partition of the non-suppressed rows' domain (None under the
        suppression model, whose classes are groups of rows, not of a domain).
    report : dict
        Figures of the job (rows, classes, sizes, lower bound, audit, seconds).
    classes : GeoDataFrame or None
        One row per drawn class (for maps and class files).
    notes : list of str
        Lines for the map legend (e.g. about suppressed records).
    warnings : list of str
        What the job noticed and worked around (repaired polygons, an assumed
        CRS, records at (0, 0), ...); the same list is ``report["warnings"]``
        and the command line prints each on stderr.
    """

    table: pd.DataFrame
    partition: Partition
    report: dict
    classes: object = None
    notes: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    row_shapes: object = None   # callable giving each row's class shape as a GeoSeries

    def __post_init__(self):
        self.report.setdefault("warnings", self.warnings)

    def geo_table(self):
        """The released table as a GeoDataFrame whose geometry is each row's class shape."""
        import geopandas as gpd

        if isinstance(self.table, gpd.GeoDataFrame):
            return self.table
        shapes = self.row_shapes()
        return gpd.GeoDataFrame(self.table, geometry=shapes, crs=shapes.crs)

    def preview(self, *, tiles=None, title=None, attribution=None, tiles_attribution=None):
        """A folium map of the classes (never the records); see :func:`geoanon.maps.class_map`."""
        from ..maps import class_map

        if self.classes is None or not hasattr(self.classes, "geometry"):
            raise ParameterError("this release has no map: its classes have no geometry")

        return class_map(self.classes, self.report["k"], title=title, tiles=tiles, attribution=attribution,
                         tiles_attribution=tiles_attribution, notes=self.notes)

    def to_file(self, path) -> None:
        """Write the released table atomically (format from the extension; geo
        formats get each row's class shape as geometry)."""
        with StagedOutputs() as out:
            write_table(self._table_for(path), out.stage(path))

    def _table_for(self, path):
        from ..io import GEO_FORMATS, table_format

        return self.geo_table() if table_format(path) in GEO_FORMATS else self.table


def write_release(release: Release, output, *, report=None, map_html=None, classes=None,
                  map_options=None, escape_all: bool = False) -> list[Path]:
    """Write a release's table and, if asked, its JSON report, map and class
    file (one row per class, geo format by extension), all or nothing.

    Everything is rendered in memory first and staged; files appear only once
    all of them are complete. The columns a job generated never start a
    spreadsheet formula; ``escape_all`` escapes the untouched text columns too
    (:func:`geoanon._cells.escape_formulas`).
    """
    from ..maps import render_html

    report_text = None if report is None else report_json(release.report)
    html = None if map_html is None else render_html(release.preview(**(map_options or {})))
    table = release._table_for(output)
    if escape_all:
        table = escape_table(table)
    with StagedOutputs() as out:
        write_table(table, out.stage(output))
        if report is not None:
            Path(out.stage(report)).write_text(report_text, encoding="utf-8")
        if map_html is not None:
            Path(out.stage(map_html)).write_text(html, encoding="utf-8")
        if classes is not None:
            write_table(release.classes, out.stage(classes))
    return [Path(p) for p in (output, report, map_html, classes) if p is not None]


def report_json(report: dict) -> str:
    """A report as strict JSON text: numpy scalars as numbers, NaN and
    infinities (which JSON cannot hold) as null."""
    def clean(v):
        if isinstance(v, dict):
            return {str(key): clean(x) for key, x in v.items()}
        if isinstance(v, (list, tuple)):
            return [clean(x) for x in v]
        v = plain(v)
        if isinstance(v, float) and not math.isfinite(v):
            return None
        return v

    return json.dumps(clean(report), indent=2, allow_nan=False, default=str) + "\n"


def require_column(df: pd.DataFrame, column: str) -> None:
    """DataError unless ``df`` has ``column``."""
    if column not in df.columns:
        raise DataError(f"no column {column!r} in the table (columns: {', '.join(map(str, df.columns[:12]))})")


def check_job_columns(df: pd.DataFrame, column: str) -> None:
    """DataError unless ``df`` has the column to generalize and no ``class_id`` yet."""
    require_column(df, column)
    if "class_id" in df.columns:
        raise DataError("the output column 'class_id' already exists in the input")


def with_geometry(table, shapes):
    """``table`` (a GeoDataFrame) with its geometry column replaced by ``shapes``."""
    import geopandas as gpd

    name = table.geometry.name
    table = pd.DataFrame(table).copy()
    table[name] = shapes
    return gpd.GeoDataFrame(table, geometry=name, crs=shapes.crs)
