"""The frontier benchmark's releases, each measured by one function
(:class:`Measure`) from its class membership: the bench's weighted Mondrian,
the real peers (``mondrian_worker.py``, each in its own virtual
environment), geoanon's joint release along its knob, and geoanon's location
released alone (``geoanon points`` / ``geoanon zip``)."""
from __future__ import annotations

import numpy as np
import pandas as pd

from bench_anonymize import _km  # great-circle km between corners
from common import peer_release
from frontier_tables import Table, zip_edges, zip_nodes

WEIGHTS = tuple(round(2 ** (i / 2), 3) for i in range(17))      # the bench's Mondrian: location weight 1 ... 256
SETTINGS = tuple(np.round(np.linspace(0, 1, 41), 3))
REFINE_ROUNDS = 3      # then settings halfway between neighbours that differ by more than:
STEP_KM = 1.03         # this factor in median or p90 km,
STEP_NCP = 1.10        # or this factor in other NCP
VARIANTS = {    # geoanon's other releases counted among its own: (label, settings, options), one refining round
    "geoanon-tailfree": ("tail-free", tuple(np.round(np.linspace(0.25, 1, 31), 3)), {"tail_reach": None}),
    "geoanon-tiled": ("tiled", SETTINGS, {"method": "frontier"}),   # a ZIP location's other design
    "geoanon-plaingain": ("plain gain", SETTINGS, {"gain_ratio": False}),  # cuts ranked by their gain alone
    # the sparsest places' records apart, the other columns first: the fine half, where it buys the most
    "geoanon-pooled": ("pooled", tuple(np.round(np.linspace(0.4, 1, 25), 3)), {"max_pooled": 0.09}),
    # the costliest classes (5%) searched again apart, the other columns first, no price on the tail: a p90
    # and a tail as wide as a peer's whose p90 is several times its median, the other columns' price paid by few
    "geoanon-pooledclasses": ("pooled classes", tuple(np.round(np.linspace(0.25, 1, 31), 3)),
                              {"max_pooled": 0.05, "pool_by": "classes", "tail_reach": None}),
    # ... beside the default tail, over the whole knob
    "geoanon-pooleddefault": ("pooled classes, default tail", SETTINGS, {"max_pooled": 0.05, "pool_by": "classes"}),
    # ... and beside the tighter tail, over the whole knob: a peer whose p90 is near its median, at a coarse location
    "geoanon-pooledtight": ("pooled classes, tight tail", SETTINGS,
                            {"max_pooled": 0.05, "pool_by": "classes", "tail_reach": 1.0}),
    # a looser tail (16 typical k-neighbourhoods, not 4): a wide p90 where a peer's is, for the other columns
    "geoanon-loosetail": ("loose tail", tuple(np.round(np.linspace(0.25, 1, 31), 3)), {"tail_reach": 16.0}),
    # a tighter tail (1, not 4): a p90 near the median where a peer's is, the median left room; over the
    # knob's whole range, as the default's trace: at its coarse end too a peer's p90 may be near its median
    "geoanon-tighttail": ("tight tail", SETTINGS, {"tail_reach": 1.0}),
}


# ---------------------------------------------------------------- the one measure

class Measure:
    """The one measure of every release of ``df`` (a ``table``) at ``k``
    (:meth:`__call__`), its columns read once."""

    def __init__(self, df: pd.DataFrame, table: Table, k: int):
        self.columns = []
        for c in table.others:
            if c in table.text:
                codes = pd.factorize(df[c])[0]
                self.columns.append((codes, codes.max() + 1, None))
            else:
                v = df[c].to_numpy(float)
                ends = np.sort(v)
                self.columns.append((v, ends[k - 1], ends[-k]))    # the range k records reach from either end

    def __call__(self, classes: np.ndarray, km: np.ndarray) -> dict:
        """One release. ``classes``: each record's class (-1: suppressed);
        ``km``: each record's box diagonal (inf: published without a box, or
        suppressed). The other columns' NCP per record from its class's
        members: a number's range over the range between the values k
        records reach from either end (as geoanon's report measures it), a
        category's (values - 1) / (distinct in the table - 1); a suppressed
        record's 1 in each column. Returns :func:`widths` of ``km``, the mean
        other NCP, and the counts of classes, suppressed and withheld."""
        kept = classes >= 0
        ids, g = np.unique(classes[kept], return_inverse=True)
        loss = np.ones((len(classes), len(self.columns)))
        for j, (v, a, b) in enumerate(self.columns):
            v = v[kept]
            if b is None:                                   # a category: a, its distinct values
                counts = np.bincount(np.unique(g * a + v) // a, minlength=ids.size)
                loss[kept, j] = (counts[g] - 1) / max(a - 1, 1)
            else:
                low, high = np.full(ids.size, np.inf), np.full(ids.size, -np.inf)
                np.minimum.at(low, g, v)
                np.maximum.at(high, g, v)
                loss[kept, j] = np.clip(np.minimum(high, b) - np.maximum(low, a), 0, None)[g] / max(b - a, 1e-12)
        return {**widths(km), "other_ncp": float(loss.mean()), "classes": int(ids.size),
                "suppressed": int((~kept).sum()), "withheld": int((~np.isfinite(km)).sum() - (~kept).sum())}


def widths(km: np.ndarray) -> dict:
    """The median, p90 and max of ``km`` over every record; the mean and max over those with a box."""
    boxed = km[np.isfinite(km)]
    return {"median_km": float(np.median(km)), "p90_km": float(np.quantile(km, 0.9)), "max_km": float(km.max()),
            "mean_km": float(boxed.mean()) if boxed.size else None,
            "max_boxed_km": float(boxed.max()) if boxed.size else None}


def members_km(df: pd.DataFrame, groups: np.ndarray) -> np.ndarray:
    """Each record's box diagonal: the box of its group's members' lat and lon (-1: no box, inf)."""
    km = np.full(len(df), np.inf)
    at = groups >= 0
    by = df[["lat", "lon"]][at].groupby(groups[at])
    low, high = by.transform("min").to_numpy(float), by.transform("max").to_numpy(float)
    km[at] = _km(low[:, 0], low[:, 1], high[:, 0], high[:, 1])
    return km


def published_groups(values: pd.Series, withheld=("*",)) -> np.ndarray:
    """Records grouped by a published cell (NaN or ``withheld``: -1)."""
    codes = pd.factorize(values.astype(object))[0]
    return np.where(values.isna() | values.astype(str).isin(withheld), -1, codes)


# ---------------------------------------------------------------- the peers

def peer(df: pd.DataFrame, table: Table, k: int, name: str) -> dict:
    """``name``'s release (``mondrian_worker.py``); classes are the records publishing the same cells."""
    qi = ["lat", "lon", *table.others]
    out = peer_release(name, df[["row", *qi]], qi, table.text, k)
    classes = np.full(len(df), -1)
    classes[out["row"].to_numpy()] = out.drop(columns="row").astype(str).groupby(
        list(out.columns.drop("row")), sort=False).ngroup().to_numpy()
    return {"setting": name, **Measure(df, table, k)(classes, members_km(df, classes))}


def mondrian(df: pd.DataFrame, table: Table, k: int, w: float) -> list:
    """A strict multidimensional Mondrian with the location's span weighted by ``w``: at each node the
    widest dimension (lat and lon each over its range times ``w``, a number over its range, a category by
    its (values - 1) / (distinct - 1)); median cuts for numbers, the frequency-ordered half of the values
    for categories; every part at least k. The classes' rows."""
    numbers = ["lat", "lon", *[c for c in table.others if c not in table.text]]
    num = [df[c].to_numpy(float) for c in numbers]
    cats = [pd.factorize(df[c])[0] for c in table.text]
    spans = [np.ptp(x) or 1.0 for x in num]
    distinct = [c.max() + 1 for c in cats]
    weight = [w, w] + [1.0] * (len(num) - 2)
    parts, stack = [], [np.arange(len(df))]
    while stack:
        rows = stack.pop()
        widths = [weight[j] * np.ptp(num[j][rows]) / spans[j] for j in range(len(num))]
        widths += [(np.unique(c[rows]).size - 1) / max(d - 1, 1) for c, d in zip(cats, distinct)]
        chosen = None
        for j in np.argsort(widths, kind="stable")[::-1]:
            if widths[j] <= 0:
                break
            left = _half(num[j][rows]) if j < len(num) else _values_half(cats[j - len(num)][rows])
            if k <= left.sum() <= rows.size - k:
                chosen = left
                break
        if chosen is None:
            parts.append(rows)
        else:
            stack += [rows[~chosen], rows[chosen]]
    return parts


def _half(v: np.ndarray) -> np.ndarray:
    left = v <= np.median(v)
    return v < np.median(v) if left.all() else left


def _values_half(c: np.ndarray) -> np.ndarray:
    values, counts = np.unique(c, return_counts=True)
    by_count = np.argsort(-counts, kind="stable")
    cut = int(np.argmin(np.abs(np.cumsum(counts[by_count])[:-1] - c.size / 2))) + 1
    return np.isin(c, values[by_count[:cut]])


def weighted_mondrian(df: pd.DataFrame, table: Table, k: int, w: float) -> dict:
    """The bench's Mondrian at weight ``w``, its boxes on geoanon's grid for points
    (:class:`GridBoxes`), its members' box for ZIP centroids."""
    parts = mondrian(df, table, k, w)
    classes = np.empty(len(df), dtype=np.int64)
    for i, p in enumerate(parts):
        classes[p] = i
    if table.zip:
        return {"setting": w, **Measure(df, table, k)(classes, members_km(df, classes))}
    km = np.empty(len(df))
    boxes = GridBoxes(df, k)
    for p in parts:
        km[p] = boxes.km(p)
    return {"setting": w, **Measure(df, table, k)(classes, km)}


class GridBoxes:
    """Classes' boxes on geoanon's grid (:mod:`geoanon.points.edges`: each
    axis snapped to the step of its span over k - 2, at least k times the
    coordinates' resolution), as the bench measures its Mondrian's."""

    def __init__(self, df: pd.DataFrame, k: int):
        from geoanon.points.edges import coordinate_resolution

        self.k = k
        self.axes = [(v, max(k * coordinate_resolution(v), 1e-9))
                     for v in (df["lat"].to_numpy(float), df["lon"].to_numpy(float))]

    def km(self, rows: np.ndarray) -> float:
        """The diagonal of the box of ``rows``."""
        from geoanon.points.edges import snap_steps, snapped

        (a, b), (c, e) = (snapped(v[rows].min(), v[rows].max(), snap_steps(np.ptp(v[rows]), self.k, floor))
                          for v, floor in self.axes)
        return float(_km(a, c, b, e))


# ---------------------------------------------------------------- geoanon

def columns(table: Table):
    import geoanon as ga

    if table.zip:
        location = {"zip": "zip", "regions": zip_nodes(), "region_id": "zip", "edges": zip_edges(),
                    "unknown": "suppress"}
        return ga.Columns(location=location, qi=table.others, keep=["row"], identifiers=["lat", "lon"])
    return ga.Columns(location=("lat", "lon"), qi=table.others, keep=["row"])


def geoanon_km(df: pd.DataFrame, table: Table, published: pd.DataFrame) -> np.ndarray:
    """Each record's published box diagonal (points), or its ZIP group's members' box (inf: none)."""
    rows = published["row"].to_numpy()
    if table.zip:
        groups = np.full(len(df), -1)
        groups[rows] = published_groups(published["zip"])
        return members_km(df, groups)
    km = np.full(len(df), np.inf)
    d = _km(*published[["lat_min", "lon_min", "lat_max", "lon_max"]].to_numpy(float).T)
    km[rows] = np.where(np.isnan(d), np.inf, d)
    return km


def geoanon_classes(df: pd.DataFrame, published: pd.DataFrame) -> np.ndarray:
    classes = np.full(len(df), -1)
    classes[published["row"].to_numpy()] = published["class_id"].to_numpy()
    return classes


def traced(df: pd.DataFrame, table: Table, k: int, settings=SETTINGS, rounds=REFINE_ROUNDS, variant=None,
           **options) -> tuple:
    """geoanon's releases at ``settings``, then, for ``rounds`` rounds, at the middle of every two
    neighbouring settings whose releases differ by more than ``STEP_KM`` in median or p90 km or ``STEP_NCP``
    in other NCP (the knob is continuous; a sampled frontier must not leave gaps where it moves fast), each
    measured by :class:`Measure` as :func:`geoanon.explore` publishes it with ``options``, marked with its
    ``variant`` (:data:`VARIANTS`' label; None: the default's trace); and the default's setting."""
    import geoanon as ga
    import geoanon.pipeline.frontier as frontier

    plain, measured = frontier.frontier_point, Measure(df, table, k)

    def point(setting, published, ncp, spec, location_km=None):       # forked workers inherit it
        own = plain(setting, published, ncp, spec, location_km)
        return {**own, "setting": setting, "own_ncp": own["other_ncp"], "variant": variant,
                **measured(geoanon_classes(df, published), geoanon_km(df, table, published))}

    frontier.frontier_point = point
    points, todo, default = {}, list(settings), None
    for _ in range(rounds + 1):
        if not todo:
            break
        r = ga.explore(df, columns(table), k=k, settings=todo, n_jobs=2, **options)
        default = r.report.details["frontier"]["chosen"]
        points.update({p["setting"]: p for p in r.report.details["frontier"]["points"]})
        ordered = [points[s] for s in sorted(points)]
        todo = [round((a["setting"] + b["setting"]) / 2, 6) for a, b in zip(ordered, ordered[1:])
                if a["median_km"] > b["median_km"] * STEP_KM or a["p90_km"] > b["p90_km"] * STEP_KM
                or b["other_ncp"] > a["other_ncp"] * STEP_NCP]
    frontier.frontier_point = plain
    return [points[s] for s in sorted(points)], default


def alone(df: pd.DataFrame, table: Table, k: int) -> dict:
    """The location released by itself: ``geoanon zip`` (ZIP codes) or ``geoanon points``."""
    import geoanon as ga

    if table.zip:
        published = ga.generalize_regions(df[["row", "zip"]], k, column="zip", regions=zip_nodes(), region_id="zip",
                                          edges=zip_edges(), unknown="suppress", keep=["row"]).table
    else:
        published = ga.generalize_points(df[["row", "lat", "lon"]], k, lat="lat", lon="lon", keep=["row"]).table
    km = geoanon_km(df, table, published)
    return {**widths(km), "withheld": int((~np.isfinite(km)).sum())}
