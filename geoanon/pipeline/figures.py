"""What a reader needs to judge a release before publishing it: how each
column is published, the class sizes, the re-identification risk and the
precision of the location in km. The JSON report and the HTML report carry
these same figures.

- **Prosecutor risk** (El Emam and Dankar, *Protecting privacy using
  k-anonymity*, JAMIA 2008): an attacker who knows a record is in the table
  and knows its quasi-identifiers picks it out of its class with probability
  1 / (class size). The report gives its maximum (1 / the smallest class), its
  mean over records (classes / rows), and the share of records whose risk is
  above 5%, 10% and 20%.
- **Location precision**: what a user of the data learns about where a record
  is, in km: per record, the width (east-west), the height (north-south) and
  the diameter (the farthest two points) of the area its row publishes, a
  rectangle for points, a group's shape for regions.
"""
from __future__ import annotations

import numpy as np
import pandas as pd

EARTH_RADIUS_KM = 6371.0088
KM_PER_DEGREE = np.pi * EARTH_RADIUS_KM / 180
RISK_LEVELS = (0.05, 0.10, 0.20)
SPREAD = {"min": 0.0, "p10": 0.1, "median": 0.5, "p90": 0.9, "max": 1.0}
INTEGER_BINS = 40         # class sizes spanning at most this many values get one bin per size
LOG_BINS = 30


def release_figures(release) -> dict:
    """``published`` (the columns), ``class_sizes``, ``risk`` and ``precision_km`` of a
    :class:`~geoanon.pipeline.Release` (``precision_km`` is None without a
    geographic location)."""
    sizes = _class_sizes(release.report.audit)
    return {"published": published_columns(release), "class_sizes": size_histogram(sizes),
            "risk": prosecutor_risk(sizes), "precision_km": location_precision(release)}


def published_columns(release) -> list:
    """One entry per column of the input the release kept or generalized:
    ``column``, ``role`` (location, quasi-identifier, sensitive or other),
    ``treatment`` (interval, longitude, set, suppress, hierarchy, or kept),
    ``published`` (the columns that carry it) and ``ncp`` where measured;
    ``class_id`` last as added."""
    location = set(release.location["columns"]) if release.location else set()
    sensitive = release.report.model.get("sensitive")
    ncp = release.report.details.get("ncp", {}).get("columns", {})
    carried = {}
    for col, (kind, published) in release.treatments.items():
        published = [published] if isinstance(published, str) else list(published)
        carried[published[0]] = {"column": col, "role": "location" if col in location else "quasi-identifier",
                                 "treatment": kind, "published": published, "ncp": ncp.get(col)}
        carried.update({p: None for p in published[1:]})
    geometry = getattr(release.table, "_geometry_column_name", None)
    out = []
    for col in release.table.columns:
        if col in carried:
            if carried[col] is not None:
                out.append(carried[col])
        elif col not in ("class_id", geometry):
            out.append({"column": col, "role": "sensitive" if col == sensitive else "other", "treatment": "kept",
                        "published": [col], "ncp": None})
    out.append({"column": "class_id", "role": "added", "treatment": "class", "published": ["class_id"], "ncp": None})
    return out


def prosecutor_risk(sizes: np.ndarray) -> dict:
    """``max``, ``mean`` (over records) and ``records_above`` {level: share of
    records whose risk 1 / class size exceeds it} for the classes ``sizes``;
    ``marketer``, the expected share of records re-identified by matching
    them all, which for a release that is its own population is the mean."""
    sizes = np.asarray(sizes, dtype=np.int64)
    rows = int(sizes.sum())
    if rows == 0:
        return {"max": 0.0, "mean": 0.0, "records_above": {str(v): 0.0 for v in RISK_LEVELS}}
    above = {str(level): round(float(sizes[1.0 / sizes > level].sum()) / rows, 6) for level in RISK_LEVELS}
    mean = round(sizes.size / rows, 6)
    return {"max": round(1.0 / float(sizes.min()), 6), "mean": mean, "records_above": above, "marketer": mean}


def size_histogram(sizes: np.ndarray) -> dict:
    """Classes and records per class-size bin: ``edges`` (bin i holds sizes
    in [edges[i], edges[i + 1])), ``classes`` and ``records``; one bin per
    size when they span at most 40 values, else bins spaced evenly in log."""
    sizes = np.asarray(sizes, dtype=np.int64)
    if sizes.size == 0:
        return {"edges": [], "classes": [], "records": []}
    lo, hi = int(sizes.min()), int(sizes.max())
    if hi - lo < INTEGER_BINS:
        edges = np.arange(lo, hi + 2)
    else:
        edges = np.unique(np.round(np.geomspace(lo, hi + 1, LOG_BINS + 1)).astype(np.int64))
    which = np.searchsorted(edges, sizes, side="right") - 1
    classes = np.bincount(which, minlength=edges.size - 1)
    records = np.bincount(which, weights=sizes, minlength=edges.size - 1).astype(np.int64)
    return {"edges": edges.tolist(), "classes": classes.tolist(), "records": records.tolist()}


def location_precision(release) -> dict | None:
    """The published location's extent per record in km: ``width``,
    ``height`` and ``diameter``, each as min, p10, median, p90, max and mean
    over the records that have one; ``histogram`` of the diameters (log
    bins); ``records`` measured and ``without`` (suppressed or unknown).
    None when the release has no location on the map or its CRS is unknown."""
    loc = release.location
    if loc is None or loc["kind"] == "labels":
        return None
    crs = getattr(release.classes, "crs", None)
    if crs is None:
        return None
    if loc["kind"] == "points":
        width, height, diameter = _box_extents(release.table, *loc["columns"], crs)
    else:
        width, height, diameter = _shape_extents(release.classes)
    known = ~np.isnan(diameter)
    width, height, diameter = width[known], height[known], diameter[known]
    out = {"records": int(known.sum()), "without": int(release.report.rows - known.sum()),
           "measure": "rectangle" if loc["kind"] == "points" else "group"}
    for name, values in (("width", width), ("height", height), ("diameter", diameter)):
        out[name] = _spread(values)
    out["histogram"] = _log_histogram(diameter)
    return out


def _class_sizes(audit) -> np.ndarray:
    per_class = getattr(audit, "per_class", None)
    if per_class is None:
        return np.zeros(0, dtype=np.int64)
    return per_class["measures"]["size"].to_numpy(dtype=np.int64)


def _spread(values: np.ndarray) -> dict:
    if values.size == 0:
        return {**{name: None for name in SPREAD}, "mean": None}
    q = np.quantile(values, list(SPREAD.values()))
    return {**{name: round(float(v), 4) for name, v in zip(SPREAD, q)}, "mean": round(float(values.mean()), 4)}


def _log_histogram(values: np.ndarray) -> dict:
    """Records per bin, bins evenly spaced in log10 over the positive values
    (zero-width areas in the first bin)."""
    if values.size == 0:
        return {"edges": [], "records": []}
    positive = values[values > 0]
    lo = float(positive.min()) if positive.size else 1.0
    hi = max(float(values.max()), lo * 1.001)
    edges = np.geomspace(lo, hi, LOG_BINS + 1)
    records = np.histogram(np.clip(values, lo, hi), bins=edges)[0]
    return {"edges": [round(float(e), 6) for e in edges], "records": records.tolist()}


def _box_extents(table: pd.DataFrame, lat: str, lon: str, crs):
    """Width, height and diameter in km of each row's published rectangle
    (NaN where a row has none)."""
    def column(name):
        return pd.to_numeric(table[name], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)

    return box_extents(column(f"{lon}_min"), column(f"{lat}_min"), column(f"{lon}_max"), column(f"{lat}_max"), crs)


def box_extents(x0, y0, x1, y1, crs):
    """Width, height and diameter in km of boxes given by their corners in
    ``crs`` (a longitude interval with x0 > x1 crosses the antimeridian)."""
    from pyproj import CRS

    crs = CRS.from_user_input(crs)
    if not crs.is_geographic:
        metres = crs.axis_info[0].unit_conversion_factor
        width, height = (x1 - x0) * metres / 1000, (y1 - y0) * metres / 1000
        return width, height, np.hypot(width, height)
    dlon = np.where(x0 > x1, x1 + 360.0 - x0, x1 - x0)
    equatorward = np.where((y0 < 0) & (y1 > 0), 0.0, np.minimum(np.abs(y0), np.abs(y1)))
    width = np.radians(dlon) * EARTH_RADIUS_KM * np.cos(np.radians(equatorward))
    height = (y1 - y0) * KM_PER_DEGREE
    diagonal = _haversine(y0, x0, y1, x0 + dlon)
    return width, height, np.maximum(diagonal, width)


def _shape_extents(classes):
    """Width, height and diameter in km of each class shape, one value per
    record (each class repeated by its ``weight``)."""
    import shapely

    from ..maps import lonlat_shapes

    shapes = lonlat_shapes(classes)[0].to_numpy()
    weights = classes["weight"].to_numpy(dtype=np.int64)
    extents = np.full((len(shapes), 3), np.nan)
    for i, hull in enumerate(shapely.convex_hull(shapes)):
        if hull is None or hull.is_empty:
            continue
        xy = shapely.get_coordinates(hull)
        x, y = xy[:, 0], xy[:, 1]
        y_eq = 0.0 if y.min() < 0 < y.max() else float(np.abs(y).min())
        extents[i, 0] = np.radians(np.ptp(x)) * EARTH_RADIUS_KM * np.cos(np.radians(y_eq))
        extents[i, 1] = np.ptp(y) * KM_PER_DEGREE
        extents[i, 2] = _haversine(y[:, None], x[:, None], y[None, :], x[None, :]).max()
    per_record = np.repeat(extents, weights, axis=0)
    return per_record[:, 0], per_record[:, 1], per_record[:, 2]


def _haversine(lat1, lon1, lat2, lon2):
    lat1, lon1, lat2, lon2 = map(np.radians, (lat1, lon1, lat2, lon2))
    a = np.sin((lat2 - lat1) / 2) ** 2 + np.cos(lat1) * np.cos(lat2) * np.sin((lon2 - lon1) / 2) ** 2
    return 2 * EARTH_RADIUS_KM * np.arcsin(np.sqrt(np.clip(a, 0.0, 1.0)))
