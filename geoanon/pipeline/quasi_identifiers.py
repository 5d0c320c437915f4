"""The quasi-identifiers beside the location as dimensions of the joint
search: intervals of numbers and dates, hierarchy nodes, sets of values, and
suppressed values."""
from __future__ import annotations

import numpy as np

from .._codes import factorize_exact
from .._text import plural, show
from ..dates import parse as parse_dates
from ..errors import DataError
from ..joint.dims import RankDim, SetDim, date_dim, k_reached, ranked, tail_span, tree_from_paths
from ..ncp import SUPPRESSED
from ..regions.naming import canonical_codes
from .coordinates import numeric_column

__all__ = ["integer_cuts", "interval_dim", "qi_dim"]


def qi_dim(df, col, treatment, hierarchy, extent, k, formats=None, domain=None):
    """The quasi-identifier ``col`` of ``df`` as one dimension of the search,
    as its ``treatment`` publishes it: an interval of dates (``formats``) or
    numbers (within ``domain``, (low, high), when given), a node of its
    ``hierarchy``, a set of values, or the value or ``*``."""
    if treatment == "interval" and col in (formats or {}):
        values, unit = parse_dates(df[col], formats[col])
        return date_dim(col, values, unit, "tile" if extent == "tile" else "members", k)
    if treatment == "interval":
        values = numeric_column(df, col)
        if domain is not None:
            outside = np.flatnonzero((values < domain[0]) | (values > domain[1]))
            if outside.size:
                i = int(outside[0])
                raise DataError(f"column {show(col)}, row {show(df.index[i])}: {show(df[col].iloc[i])} is outside its "
                                f"range [{domain[0]:g}, {domain[1]:g}] ({plural(outside.size, 'row')})")
        return interval_dim(col, values, "tile" if extent == "tile" else "members", k, domain)
    values = df[col]
    if treatment == "hierarchy":
        paths = hierarchy.paths
        index = {str(v): i for i, v in enumerate(paths[:, 0])}
        text = values.astype(object).where(values.notna(), None)
        leaf = np.array([index.get(str(v), -1) if v is not None else -1 for v in text.tolist()], dtype=np.int64)
        if (leaf < 0).any():
            i = int(np.flatnonzero(leaf < 0)[0])
            raise DataError(f"column {show(col)}, row {show(df.index[i])}: {show(values.iloc[i])} is not a "
                            f"leaf of its hierarchy ({plural(int((leaf < 0).sum()), 'row')})")
        present = np.zeros(paths.shape[0], dtype=bool)
        present[leaf] = True
        return tree_from_paths(col, leaf, [list(p) for p in paths], present)
    codes, uniques = canonical_codes(*factorize_exact(values))     # numbered by value, not by row
    if treatment == "set":
        return SetDim(col, codes, list(uniques), rare=np.bincount(codes, minlength=len(uniques)) < k)
    paths = [[v, SUPPRESSED] for v in uniques]
    return tree_from_paths(col, codes, paths, np.ones(len(paths), dtype=bool))


def interval_dim(name: str, values: np.ndarray, extent: str, k: int = 1, domain=None) -> RankDim:
    """A :class:`RankDim` of a numeric column (NaN: missing). Its outer
    edges are the values' range padded outward to round numbers
    (:func:`geoanon.points.frame.padded_box`'s rule), so a tile never ends on
    the least or greatest value; a published end on a value fewer than ``k``
    rows hold moves outward on the grid of 1 (whole numbers) or of
    :func:`geoanon.pipeline.locations.points.default_resolution` (see :class:`RankDim`),
    never out of ``domain`` (low, high; default: from 0 up when no value is
    negative), and ends beyond the values that ``k`` rows reach are open."""
    from ..points.frame import padded_box, shortest_decimal_between
    from .locations.points import default_resolution, finest_step

    uniq, held, rank, missing = ranked(values, name)
    d = uniq.size
    whole = bool(np.all(uniq == np.round(uniq)) and np.abs(uniq).max() < 2.0 ** 52)
    edges = np.empty(d + 1)
    low, _, high, _ = padded_box(float(uniq[0]), 0.0, float(uniq[-1]), 0.0, geographic=False)
    if whole:
        edges[1:d] = integer_cuts(uniq[:-1], uniq[1:])
        edges[0], edges[d] = min(np.floor(low), uniq[0] - 1), max(np.ceil(high), uniq[-1] + 2)
    else:
        edges[1:d] = shortest_decimal_between(uniq[:-1], uniq[1:])
        edges[0], edges[d] = low, high
    floor, ceiling = domain if domain is not None else (0.0 if uniq[0] >= 0 else -np.inf, np.inf)
    tails = k_reached(uniq, held, k)
    span = tail_span(uniq, tails)
    return RankDim(name=name, rank=rank, edges=edges, low=uniq, high=uniq, span=span,
                   unit=int(whole), missing=missing, extent=extent, rare=held < k,
                   step=1.0 if whole else default_resolution(float(uniq[-1] - uniq[0]),
                                                             finest_step(float(np.abs(uniq).max()))),
                   floor=float(floor), ceiling=float(ceiling), tails=tails)


def integer_cuts(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """For integers a < b: the integer c with a < c <= b ending in the most
    zeros, nearest the midpoint (the lower one on a tie)."""
    out = np.full(a.size, np.nan)
    mid = (a + b) / 2
    for e in range(15, -1, -1):
        step = 10.0 ** e
        first = (np.floor(a / step) + 1) * step
        last = np.floor(b / step) * step
        todo = np.isnan(out) & (first <= b)
        if todo.any():
            near = np.floor((mid[todo] - first[todo]) / step + 0.5) * step + first[todo]
            out[todo] = np.clip(near, first[todo], last[todo])
    return out
