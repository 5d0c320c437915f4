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

from .._geo import EARTH_RADIUS_KM, KM_PER_DEGREE, haversine_km
from ..options.locations import by_report

__all__ = ["RISK_LEVELS", "SPREAD", "release_figures"]

RISK_LEVELS = (0.05, 0.10, 0.20)
SPREAD = {"min": 0.0, "p10": 0.1, "median": 0.5, "p90": 0.9, "max": 1.0}
INTEGER_BINS = 40         # class sizes spanning at most this many values get one bin per size
LOG_BINS = 30


def release_figures(release) -> dict:
    """``published`` (the columns), ``class_sizes``, ``risk`` and ``precision_km`` of a
    :class:`~geoanon.pipeline.Release` (``precision_km`` is None without a
    geographic location)."""
    sizes = release.class_sizes()
    return {"published": published_columns(release), "class_sizes": size_histogram(sizes),
            "risk": prosecutor_risk(sizes), "precision_km": location_precision(release)}


def published_columns(release) -> list:
    """One entry per column of the input the release kept or generalized:
    ``column``, ``role`` (location, quasi-identifier, sensitive or other),
    ``treatment`` (interval, longitude, set, suppress, hierarchy, or kept),
    ``published`` (the columns that carry it) and ``ncp`` where measured
    (a ZIP location's ``km_loss`` beside it); ``class_id`` last as added."""
    location = set(release.location["columns"]) if release.location else set()
    sensitive = release.report.model.get("sensitive")
    ncp = release.report.details.get("ncp", {}).get("columns", {})
    km = release.report.details.get("ncp", {}).get("km_loss", {})
    carried = {}
    for col, (kind, published) in release.treatments.items():
        published = [published] if isinstance(published, str) else list(published)
        carried[published[0]] = {"column": col, "role": "location" if col in location else "quasi-identifier",
                                 "treatment": kind, "published": published, "ncp": ncp.get(col),
                                 **({"km_loss": km[col]} if col in km else {})}
        carried.update({p: None for p in published[1:]})
    out = []
    for col in release.column_names():
        if col in carried:
            if carried[col] is not None:
                out.append(carried[col])
        elif col != "class_id":
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
    measure = None if loc is None else by_report(loc["kind"]).measure
    if measure is None:
        return None
    crs = release.crs if hasattr(release, "crs") else getattr(release.classes, "crs", None)
    if crs is None:
        return None
    if measure == "rectangle":
        width, height, diameter, weights = release.box_extents(crs)
    else:
        (width, height, diameter), weights = _shape_extents(release.classes), None
    known = ~np.isnan(diameter)
    width, height, diameter = width[known], height[known], diameter[known]
    weights = None if weights is None else weights[known]
    measured = int(known.sum() if weights is None else weights.sum())
    out = {"records": measured, "without": int(release.report.rows - measured),
           "measure": measure}
    for name, values in (("width", width), ("height", height), ("diameter", diameter)):
        out[name] = _spread(values, weights)
    out["histogram"] = _log_histogram(diameter, weights)
    return out


def _spread(values: np.ndarray, weights=None) -> dict:
    """min, p10, median, p90, max and mean of ``values``, each counted
    ``weights`` times (the quantiles those repeated values have)."""
    if values.size == 0:
        return {**{name: None for name in SPREAD}, "mean": None}
    if weights is None:
        q, mean = np.quantile(values, list(SPREAD.values())), values.mean()
    else:
        q, mean = _repeated_quantiles(values, weights, list(SPREAD.values())), np.average(values, weights=weights)
    return {**{name: round(float(v), 4) for name, v in zip(SPREAD, q)}, "mean": round(float(mean), 4)}


def _repeated_quantiles(values: np.ndarray, weights: np.ndarray, qs: list) -> np.ndarray:
    """``np.quantile(np.repeat(values, weights), qs)`` without the repeat."""
    order = np.argsort(values, kind="stable")
    v, ends = values[order], np.cumsum(weights[order])
    position = np.asarray(qs) * (ends[-1] - 1)
    below = np.floor(position)
    lo = v[np.searchsorted(ends, below, side="right")]
    hi = v[np.searchsorted(ends, np.minimum(below + 1, ends[-1] - 1), side="right")]
    return lo + (position - below) * (hi - lo)


def _log_histogram(values: np.ndarray, weights=None) -> dict:
    """Records per bin, bins evenly spaced in log10 over the positive values
    (zero-width areas in the first bin); each value counted ``weights`` times."""
    if values.size == 0:
        return {"edges": [], "records": []}
    positive = values[values > 0]
    lo = float(positive.min()) if positive.size else 1.0
    hi = max(float(values.max()), lo * 1.001)
    edges = np.geomspace(lo, hi, LOG_BINS + 1)
    records = np.histogram(np.clip(values, lo, hi), bins=edges, weights=weights)[0]
    return {"edges": [round(float(e), 6) for e in edges], "records": records.astype(np.int64).tolist()}


def _shape_extents(classes):
    """Width, height and diameter in km of each class shape, one value per
    record (each class repeated by its ``weight``)."""
    import shapely

    from .maps import lonlat_shapes

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
        extents[i, 2] = haversine_km(y[:, None], x[:, None], y[None, :], x[None, :]).max()
    per_record = np.repeat(extents, weights, axis=0)
    return per_record[:, 0], per_record[:, 1], per_record[:, 2]
