"""The trade-off between the location and the other quasi-identifiers, seen
before choosing: releases of one table along ``location_precision``.

:func:`explore` checks the table and builds the search's dimensions once
(:func:`~geoanon.pipeline.joint_release.prepared`), then, in ``n_jobs``
processes, each taking a run of neighbouring settings of about equal
estimated cost (:func:`_runs`; this process the chosen one's), searches it
at the run's settings at once, sharing the nodes they cut alike
(:func:`~geoanon.pipeline.joint_release.searched`), and publishes the
release of each, measuring each release as a user reads it: the median and
90th percentile of the published location's extent in km (box diagonals; a
ZIP group's centroids' box, and their mean per record; a label group has
none) and the mean NCP of the
other quasi-identifiers. The release at the chosen setting is returned
whole, audited, with the frontier in its report.
"""
from __future__ import annotations

import numbers
from functools import partial

import numpy as np

from .._forked import forked_map
from .._text import show
from ..errors import ParameterError
from ..options import release_spec
from ..progress import step
from .joint_release import located_first, partitioned, prepared, released, searched
from .locations import KINDS

__all__ = ["SETTINGS", "explore", "frontier_point"]

SETTINGS = (0.25, 0.4, 0.5, 0.6, 0.7, 0.8, 0.875, 0.95)   # location_precision: finer where the frontier turns
DEFAULT_PRECISION = 0.5
LOCATION_FIRST_COST = 2.0   # a setting cutting the location at the root costs this many of one cutting another column


def explore(df, columns=None, model=None, *, settings=SETTINGS, **keywords):
    """Releases of ``df`` along ``location_precision``, as
    :func:`geoanon.anonymize` makes them with the same keywords.

    Parameters
    ----------
    df, columns, model, **keywords
        As :func:`geoanon.anonymize` takes them; ``location_precision`` is
        the setting whose release is returned (default 0.5), ``n_jobs`` the
        processes computing the settings (the release does not depend on it).
    settings : sequence of float
        The ``location_precision`` values to compute, each from 0 to 1
        (default :data:`SETTINGS`); the chosen one is added if missing.

    Returns
    -------
    Release
        The release at the chosen setting, as :func:`geoanon.anonymize`
        returns it, whose ``report.details["frontier"]`` holds ``chosen`` (its
        setting) and ``points``: per setting, in order, ``location_precision``
        (the value that reproduces it), ``median_km``, ``p90_km`` and ``max_km`` (None
        without a points or ZIP location), for a ZIP location ``mean_km``
        (the group diameter per record, the axis its plot is drawn on:
        the median is 0 km wherever most records keep their own ZIP code),
        ``other_ncp`` (the mean NCP of the other quasi-identifiers), ``ncp``
        (overall) and ``classes``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import geoanon as ga
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"lat": rng.normal(40, 2, 600).round(4), "lon": rng.normal(-90, 4, 600).round(4),
    ...                    "age": rng.integers(18, 90, 600), "sex": rng.choice(["F", "M"], 600)})
    >>> r = ga.explore(df, location=("lat", "lon"), qi=["age", "sex"], k=10, settings=(0.2, 0.5, 0.9))
    >>> f = r.report.details["frontier"]
    >>> f["chosen"], [p["location_precision"] for p in f["points"]]
    (0.5, [0.2, 0.5, 0.9])
    >>> km = [p["median_km"] for p in f["points"]]
    >>> km[0] > km[1] > km[2]                        # the location finer as the setting rises
    True
    """
    spec = release_spec("anonymize", columns=columns, model=model, **keywords)
    chosen = spec.options["location_precision"]
    chosen = DEFAULT_PRECISION if chosen is None else chosen
    settings = sorted(set(_settings(settings)) | {chosen})
    with step(f"exploring {len(settings)} settings of location_precision"):
        return _explored(df, spec, settings, chosen)


def _explored(df, spec, settings: list, chosen: float):
    """:func:`explore`'s work: the release at ``chosen`` with the frontier of ``settings`` in its report."""
    job = prepared(df, spec)
    n_jobs = spec.options["n_jobs"]
    costs = np.where(located_first(job, spec, settings), LOCATION_FIRST_COST, 1.0) if 1 < n_jobs < len(settings) \
        else np.ones(len(settings))
    runs = _runs(settings, n_jobs, costs)
    mine = next(run for run in runs if chosen in run)
    alone = spec.but(n_jobs=1)                     # each run searched in its own process
    others = [run for run in runs if run is not mine]
    points, (found, release) = forked_map(partial(_measure, job, alone), others, len(others),
                                          lambda: _measure(job, alone, mine, chosen))
    release.report.details["frontier"] = {"chosen": chosen, "points": sorted(
        [p for run in (*points, found) for p in run], key=lambda p: p["location_precision"])}
    return release


def frontier_point(setting: float, table, ncp: dict, spec, location_km=None) -> dict:
    """One point of the frontier: the release at ``setting`` (its ``table``
    and report ``ncp``; ``location_km``, a ZIP location's report entry) as a
    user reads it (see :func:`explore`)."""
    kind, loc = spec.location
    others = [c for c in spec.columns.quasi_identifiers if c in ncp["columns"]]
    return {"location_precision": setting, **KINDS[kind].km_figures(table, loc, spec.options["crs"], location_km),
            "other_ncp": round(float(np.mean([ncp["columns"][c] for c in others])), 6) if others else None,
            "ncp": ncp["overall"], "classes": int(table["class_id"].nunique())}


def _settings(settings) -> list:
    values = list(settings)
    if not values or any(isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0 <= p <= 1 for p in values):
        raise ParameterError(f"settings must be numbers from 0 to 1, got {show(settings)}")
    return [float(p) for p in values]


def _runs(settings: list, n_jobs: int, costs) -> list:
    """``settings`` (sorted) in ``n_jobs`` runs of neighbouring ones
    (neighbours share the most of their searches), as even in estimated
    cost (``costs``, per setting) as can be. A setting whose search cuts the
    location at the root costs about ``LOCATION_FIRST_COST`` times one that
    cuts another column there: each of its category starts is a search of
    its own, where the others' meet the same nodes
    (:mod:`geoanon.joint.solved`). On the frontier benchmark's three tables
    (k = 10, the 8 default settings, 3 of them location-first on the two
    ZIP-placed tables and 5 on the airports), this splits them 5 / 3, whose
    slower run took 12-18% less than the even 4 / 4 split's."""
    count = min(n_jobs, len(settings))
    ends = np.cumsum(np.asarray(costs, dtype=np.float64))
    bounds = [0]
    for i in range(1, count):
        cuts = np.arange(bounds[-1] + 1, len(settings) - (count - i) + 1)      # every later run keeps a setting
        bounds.append(int(cuts[np.argmin(np.abs(ends[cuts - 1] - ends[-1] * i / count))]))
    bounds.append(len(settings))
    return [settings[a:b] for a, b in zip(bounds[:-1], bounds[1:])]


def _measure(job, spec, run: list, chosen=None):
    """The frontier points of the settings ``run`` of ``job`` under ``spec``,
    searched at once; with ``chosen`` (one of them), also the release at that
    setting."""
    with step(f"searching location_precision {_listed(run)}"):
        parts = searched(job, spec, run)
    points, release = [], None
    for setting in run:
        with step(f"publishing location_precision {setting:g}"):
            point, published = _published_point(job, spec.but(location_precision=setting), parts.get(setting),
                                                setting == chosen)
        points.append(point)
        release = published or release
    return points if chosen is None else (points, release)


def _published_point(job, at, part, whole: bool):
    """The frontier point of the setting ``at`` (its search's ``part``), and
    its release if ``whole`` (else None)."""
    from ..ncp import information_loss

    setting = at.options["location_precision"]
    if whole:
        release = released(job, at, part)
        table, ncp = release.table, release.report.details["ncp"]
    else:
        release, (_, table, _, treatments, _) = None, partitioned(job, at, part)
        ncp = information_loss(job.df, table, treatments, hierarchies=at.columns.hierarchies or None,
                               formats=job.formats, reach=at.model.k)
    return frontier_point(setting, table, ncp, at, job.publish_location.details.get("location_km")), release


def _listed(run: list) -> str:
    return ", ".join(f"{setting:g}" for setting in run)
