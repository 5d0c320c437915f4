"""A layer's chosen fields (and its point geometry's coordinates) written as
the CSV table geoanon reads: every cell as text, as a CSV file holds it."""
from __future__ import annotations

import csv
import math

from qgis.core import QgsFeatureRequest, QgsProcessingException, QgsWkbTypes
from qgis.PyQt.QtCore import QDate, QDateTime, Qt, QTime, QVariant

PROGRESS_ROWS = 1000       # rows between two looks at the feedback (progress, cancel)


def is_point_layer(source) -> bool:
    return QgsWkbTypes.geometryType(source.wkbType()) == QgsWkbTypes.PointGeometry


def coordinate_names(source) -> tuple[str, str]:
    """The columns a point geometry's coordinates are written to: lat, lon
    in a geographic CRS, y, x in a projected one."""
    return ("lat", "lon") if source.sourceCrs().isGeographic() else ("y", "x")


def crs_text(crs) -> str:
    """A CRS as geoanon's --crs reads it (pyproj): its authority id, or its WKT."""
    authid = crs.authid()
    return authid if authid and not authid.upper().startswith("USER:") else crs.toWkt(crs.WKT_PREFERRED)


def cell(value) -> str:
    """A field value as CSV text: empty for NULL, dates and times in ISO 8601,
    numbers as Python writes them (the shortest text that reads back the same)."""
    if isinstance(value, str):
        return value
    if value is None or (isinstance(value, QVariant) and value.isNull()):
        return ""
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(value)
    if isinstance(value, (QDate, QDateTime, QTime)):
        return value.toString(Qt.ISODate)
    return str(value)


def point_cells(geometry) -> tuple[str, str]:
    """(y, x) of a point geometry as text; empty cells for no geometry."""
    if geometry.isNull() or geometry.isEmpty():
        return "", ""
    points = geometry.asMultiPoint() if geometry.isMultipart() else [geometry.asPoint()]
    if len(points) != 1:
        raise QgsProcessingException(f"a feature holds {len(points)} points; geoanon takes one point a row "
                                     "(run 'Multipart to singleparts' first)")
    return repr(points[0].y()), repr(points[0].x())


def write_csv(source, fields: list[str], coordinates: tuple[str, str] | None, path, feedback) -> int:
    """Write ``fields`` of every feature of ``source`` (in the layer's order)
    to ``path``, and with ``coordinates`` (two column names: y then x) its
    point geometry; returns the rows written."""
    names = source.fields().names()
    chosen = [name for name in names if name in fields]
    columns = [*chosen, *(coordinates or ())]
    clash = set(chosen) & set(coordinates or ())
    if clash:
        raise QgsProcessingException(f"the layer has a field {sorted(clash)[0]!r}, the name given to its point "
                                     "geometry's coordinates: choose the LAT and LON fields instead")
    request = QgsFeatureRequest().setSubsetOfAttributes(chosen, source.fields())
    if coordinates is None:
        request.setFlags(QgsFeatureRequest.NoGeometry)
    indices = [names.index(name) for name in chosen]
    total = max(source.featureCount(), 1)
    rows = 0
    with open(path, "w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, lineterminator="\n")
        writer.writerow(columns)
        for feature in source.getFeatures(request):
            attributes = feature.attributes()
            values = [cell(attributes[i]) for i in indices]
            writer.writerow([*values, *point_cells(feature.geometry())] if coordinates else values)
            rows += 1
            if rows % PROGRESS_ROWS == 0:
                if feedback.isCanceled():
                    break
                feedback.setProgress(10 * rows / total)
    return rows
