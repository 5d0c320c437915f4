"""The location classes' table that both publishers draw: one row per
location class, with the published values of the classes inside it."""
from __future__ import annotations

import numpy as np
import pandas as pd

from ..._text import plural

__all__ = ["TOOLTIP_CLASSES", "location_classes"]

TOOLTIP_CLASSES = 6      # classes listed in a location class's tooltip


def location_classes(table, part, published) -> pd.DataFrame:
    """One row per location class: records, classes inside and their
    published values (the tooltip; never a record's own values)."""
    loc_of_row = part.location_class[part.row_class]
    weight = np.bincount(loc_of_row, minlength=part.location_classes)
    inner = np.bincount(part.location_class, minlength=part.location_classes)
    first = np.unique(part.row_class, return_index=True)[1]
    shown = [col for col in published if not col.endswith(("lat_min", "lat_max", "lon_min", "lon_max"))]
    cells = [[f"{col} {_cell(v)}" for v in table[col].iloc[first].tolist()] for col in shown]
    sizes = np.bincount(part.row_class)
    lines = [[] for _ in range(part.location_classes)]
    for c, owner in enumerate(part.location_class.tolist()):
        if len(lines[owner]) < TOOLTIP_CLASSES:
            lines[owner].append(", ".join(column[c] for column in cells) + f" ({plural(int(sizes[c]), 'record')})")
    label = ["; ".join(x) + (f"; and {n - len(x)} more" if n > len(x) else "") for x, n in zip(lines, inner)]
    return pd.DataFrame({"class_id": np.arange(part.location_classes), "weight": weight, "classes": inner,
                         "label": label})


def _cell(v) -> str:
    if isinstance(v, float):
        return "empty" if np.isnan(v) else f"{v:g}"
    return str(v)
