"""The location classes' table that both publishers draw: one row per
location class, with the published values of the classes inside it."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..._codes import factorize_exact

__all__ = ["TOOLTIP_CLASSES", "location_classes"]

TOOLTIP_CLASSES = 6      # classes listed in a location class's tooltip


def location_classes(table, part, published) -> pd.DataFrame:
    """One row per location class: records, classes inside and their
    published values (the tooltip; never a record's own values)."""
    owner = part.location_class
    weight = np.bincount(owner[part.row_class], minlength=part.location_classes)
    inner = np.bincount(owner, minlength=part.location_classes)
    first = np.unique(part.row_class, return_index=True)[1]
    shown = [col for col in published if not col.endswith(("lat_min", "lat_max", "lon_min", "lon_max"))]
    order = np.argsort(owner, kind="stable")                # each location class's classes, in order
    ranked = np.arange(order.size) - np.searchsorted(owner[order], owner[order])
    listed = order[ranked < TOOLTIP_CLASSES]                # the first ones of each, grouped by location class
    lines = np.full(listed.size, "", dtype=object)
    for i, col in enumerate(shown):
        lines = lines + (", " if i else "") + _cells(table[col].iloc[first[listed]], col)
    sizes = np.bincount(part.row_class)[listed]
    lines = lines + np.where(sizes == 1, " (1 record)", np.char.add(np.char.add(" (", sizes.astype(str)), " records)")
                             ).astype(object)
    holder = owner[listed]
    last = np.r_[holder[1:] != holder[:-1], True]           # the last line of its location class's label
    starts = np.flatnonzero(np.r_[True, last[:-1]])         # the first
    label = np.full(part.location_classes, "", dtype=object)
    if listed.size:
        label[holder[starts]] = np.add.reduceat(lines + np.where(last, "", "; ").astype(object), starts)
    more = inner - np.bincount(holder, minlength=part.location_classes)
    label[more > 0] = label[more > 0] + np.array([f"; and {n} more" for n in more[more > 0].tolist()], dtype=object)
    return pd.DataFrame({"class_id": np.arange(part.location_classes), "weight": weight, "classes": inner,
                         "label": label})


def _cells(values: pd.Series, col: str) -> np.ndarray:
    """``"{col} {value}"`` of each value, each distinct value written once
    (:func:`~geoanon._codes.factorize_exact`; a missing cell on its own)."""
    codes, uniques = factorize_exact(values)
    out = np.array([f"{col} {_cell(v)}" for v in uniques], dtype=object)[codes]
    missing = values.isna().to_numpy()
    if missing.any():
        out[missing] = [f"{col} {_cell(v)}" for v in values[missing].tolist()]
    return out


def _cell(v) -> str:
    if isinstance(v, float):
        return "empty" if np.isnan(v) else f"{v:g}"
    return str(v)
