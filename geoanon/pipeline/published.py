"""The released table of a joint release: each quasi-identifier's published
columns in place of its input column (the location's from its publisher),
``class_id`` last."""
from __future__ import annotations

import numpy as np
import pandas as pd

from .._cells import escape_formulas
from ..dates import iso as iso_dates
from ..joint.dims import calendar_level, rounding_step

__all__ = ["fine_cuts_warning", "published_table"]


def published_table(df, dims, part, qi, treatments, publish_location):
    """The released table, its published quasi-identifier columns, and the
    NCP treatments of the input columns."""
    states = part.states
    cls = part.row_class
    n_loc = len(dims.items) - len(qi)
    new_columns, ncp_columns = {}, {}
    for offset, col in enumerate(qi):
        j = n_loc + offset
        d = dims.items[j]
        if treatments[col] == "interval":
            st = part.columns[j].astype(np.int64, copy=False).reshape(-1, 4)
            sizes = np.bincount(cls, minlength=len(states))
            lo, hi = d.published(st, calendar_level(d, st, sizes) if d.calendar else rounding_step(d, st, sizes))
            if d.calendar:
                new_columns[col] = {f"{col}_min": pd.Series(iso_dates(lo, d.calendar)[cls], index=df.index),
                                    f"{col}_max": pd.Series(iso_dates(hi, d.calendar)[cls], index=df.index)}
                ncp_columns[col] = ("date", (f"{col}_min", f"{col}_max"))
                continue
            kind = "Int64" if d.unit and not np.isinf(lo).any() and not np.isinf(hi).any() else "float64"
            new_columns[col] = {f"{col}_min": pd.array(lo[cls], dtype=kind), f"{col}_max": pd.array(hi[cls], dtype=kind)}
            ncp_columns[col] = ("interval", (f"{col}_min", f"{col}_max"))
        else:
            held, of_class = np.unique(part.columns[j], axis=0 if part.columns[j].ndim > 1 else None,
                                       return_inverse=True)
            text = [d.label(v) if treatments[col] == "set" else d.labels[v[0]][v[1]] for v in held.tolist()]
            labels = escape_formulas(pd.Series(text, dtype=object)).to_numpy(dtype=object)
            new_columns[col] = {col: pd.Series(labels[of_class.reshape(-1)[cls]], index=df.index, dtype=object)}
            ncp_columns[col] = (treatments[col], col)
    loc_columns, loc_ncp = publish_location.columns(df, part, dims)
    ncp_columns = {**loc_ncp, **ncp_columns}
    table = df.copy()
    order = list(df.columns)
    replaced = {**loc_columns, **new_columns}
    out = {}
    for name in order:
        if name in replaced:
            for new, values in replaced[name].items():
                out[new] = values
        elif name not in publish_location.dropped:
            out[name] = table[name]
    table = pd.DataFrame(out, index=df.index)
    table["class_id"] = cls
    published = [c for group in replaced.values() for c in group]
    return table, published, ncp_columns


def fine_cuts_warning(fine: int, cuts: int) -> list:
    """The warning on published tiles whose sides between classes are cuts
    finer than the tile over k (:class:`~geoanon.pipeline.locations.rectangles.PointsPublisher`)."""
    if not fine:
        return []
    return [f"{fine:,} of the {cuts:,} tile sides between classes are cuts finer than their tile's width over k: each "
            "tells the records beside it to within their gap along one axis; publish boxes (extent='box') to prevent it"]
