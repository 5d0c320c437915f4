"""The joint release: a table's location and its other quasi-identifiers
generalized together, so that the release meets the model over all of them."""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from functools import partial

import numpy as np
import pandas as pd

from .._cells import numeric_cells, with_decimal_mark
from .._text import plural, show
from .._validation import check_scalar_columns, check_unique_columns
from ..audit import disclosure_warnings, require
from ..errors import DataError, InfeasibleError, ParameterError
from ..joint.dims import Dims, state_columns
from ..joint.km_loss import REACH, km_loss
from ..joint.location_loss import NCP, BoxKmLoss, SpacingLoss, TreeKmLoss
from ..joint.outliers import suppressed_rows, with_suppressed_class
from ..joint.pooling import POOL_PRECISION, costliest_rows, pooled, sparsest_rows
from ..joint.regroup import regrouped
from ..joint.withheld import without_locations
from ..points.isolated import budget_rows, within_budget
from ..joint.problem import SearchProblem
from ..joint.search import joint_partition, joint_partitions, location_first
from ..dates import is_date_column
from ..ncp import information_loss, plain_units
from .._forked import beside
from .._geo import ground
from ..progress import step, stepped
from ..options import ReleaseSpec, release_spec
from ..options.checks import precision_weight
from ..options.locations import LOCATIONS
from ..options.release import treatments as spec_treatments
from .locations import KINDS
from .locations.points import ground_spans, robust_spans
from ..report.job_report import joint_report
from ..report.release import Release, in_published_order
from .points import isolated_warning
from .precision_target import beyond_target, extent_target, region_target, target_note, within_extent
from .hints import column_hints, warn
from .published import fine_cuts_warning, published_table
from .quasi_identifiers import qi_dim
from .roles import check_roles, declared_table, measure_undeclared, undeclared

__all__ = ["Prepared", "anonymize", "located_first", "partitioned", "prepared", "release_joint", "released", "searched"]

@stepped("generalizing the table (location and quasi-identifiers)")
def anonymize(df: pd.DataFrame, columns=None, model=None, *, location=None, search=None, budgets=None,
              **options) -> Release:
    """Generalize a table's location and other quasi-identifiers together:
    every class of the release meets the model (k, and l, l_distinct, t where
    asked) over all published quasi-identifier columns at once.

    Beside the table come the columns' roles (``columns``), the model
    (``model``), the search's settings (``search``) and its budgets
    (``budgets``), each one object or its fields as keywords, and how the
    location is read and published; a keyword that is none of these is a
    TypeError.

    Parameters
    ----------
    df : DataFrame
    columns : Columns, optional
        Every column's role as one :class:`geoanon.Columns` (what the
        command line and job files build), instead of the keywords location,
        qi, sensitive, interval, dates, hierarchies, suppress, sets,
        identifiers and keep.
    location : optional
        ``(lat, lon)`` or ``{"lat": LAT, "lon": LON}``: points, published as
        rectangles ``{lat}_min, {lat}_max, {lon}_min, {lon}_max`` (see
        ``method`` and ``extent``); ``{"zip": COL, "regions": GDF or
        path, "region_id": C}`` with optional ``"edges"``, ``"contiguity"``,
        ``"unknown"`` and ``"small"`` as :func:`geoanon.generalize_regions`
        takes them: regions, published as the label of a connected group
        within the records' area (regions without records join a group only
        to connect its regions holding records); ``{"label": COL}``: a label
        column, published as a group of labels. None: no location.
    qi : list of str
        The other quasi-identifiers (the columns named in ``interval``,
        ``hierarchies``, ``suppress`` and ``sets`` are too, listed here or not).
    interval, hierarchies, suppress, sets
        How each quasi-identifier is published: ``interval`` columns as
        ``{col}_min, {col}_max`` (see ``extent``);
        ``hierarchies`` ({col: :class:`~geoanon.models.Hierarchy`}) as the node
        above the class's values; ``suppress`` as the value the class shares
        or ``*``; ``sets`` as the values the class holds, joined by ``|``
        (Mondrian's categorical recoding: cheaper than ``*``, but shows every
        value present; a value fewer than k rows hold shows as ``*``
        among them). Default: numeric and date columns as intervals, the
        others as sets.
    dates : list or dict, optional
        Date and timestamp quasi-identifiers (:mod:`geoanon.dates`), or
        ``{col: strftime format}`` for dates not in ISO 8601 text. Datetime
        columns and ISO text columns are found without it. A date column is
        published, as an interval by default, as ``{col}_min, {col}_max`` in
        ISO text, cut on the calendar (year, quarter, month, week, day).
    keep, identifiers, strict
        Columns published as they are, and columns dropped. Any other
        column without a role is refused (UndeclaredColumnsError), or, with
        ``strict=False``, published as it is, with a warning and the records
        it singles out in the report (``undeclared``; :mod:`geoanon.pipeline.roles`).
    model : Model, optional
        The model as one :class:`geoanon.Model`, instead of those keywords: the
        way to ask for entropy or recursive (c, l)-diversity, beta-likeness or
        delta-disclosure (:mod:`geoanon.criteria`).
    sensitive, k, l, l_distinct, t, ground, order
        The model (:class:`geoanon.Model`): at least one of k, l, l_distinct
        and t (k is 1 when only the others are given).
    search : Search, optional
        The search's settings as one :class:`geoanon.Search`: ``method``,
        ``extent``, ``resolution``, ``weights``, ``location_precision``,
        ``location_loss``, ``tail_reach``, ``gain_ratio``, ``max_extent_km`` and ``n_jobs``, below; each may
        be given as a keyword instead (not both).
    method : {"joint", "frontier", "location-first", "greedy"}, optional
        Where the location cuts go (:mod:`geoanon.joint.search`).
        ``"joint"`` (the default with a points or ZIP location or none) cuts the location anywhere, as Mondrian does:
        each class publishes its own records' box (or the group of the ZIP
        codes its records hold, cut at the regions' places:
        :mod:`~geoanon.pipeline.locations.placed_groups`), which may
        overlap other classes' (they are disjoint only over all
        quasi-identifiers together), for the least loss. The other three
        keep the location cuts above every other cut, so location classes
        never overlap (a tiling, at a higher loss); ``"frontier"`` is the
        default for labels and for ZIP codes rolled up (``zip_level``), so
        that every label or unit lies in one published group.
    extent : {"box", "tile"}
        ``"box"`` (default): a location class publishes its records' bounding
        box rounded outward to multiples of ``resolution`` and never onto a
        record's coordinate (with the tiling designs, kept inside the
        class's tile where the tile's edge lies on the box's grid, elsewhere
        crossing onto it: neighbouring boxes overlap by less than a step); an interval publishes its
        class's least and greatest value (Mondrian's local recoding). ``"tile"``: both publish the class's
        tile, so that rectangles cover the padded bounds (as
        :func:`geoanon.generalize_points`) and intervals the input's range
        (closed integer intervals for whole numbers, else half-open), with
        edges between records; nothing about a class's extreme records is
        shown, at a higher NCP.
    resolution : float, optional
        The grid of ``"box"`` edges in the coordinates' units; default per
        axis the power of ten below a thousandth of the records' span (0.01
        degrees for a country).
    weights : dict, optional
        Each column's weight in the objective (ARX's attribute weights): keys
        ``"location"`` and quasi-identifier names, positive numbers, 1 for a
        column not named. ``{"location": 4}`` makes a location cell cost four
        times its NCP, so the search keeps the location finer and generalizes
        the others more. The report's NCP stays unweighted.
    location_precision : float, optional
        The trade-off between the location and the other quasi-identifiers
        in one number from 0 (the other columns first: wide boxes, precise
        values) to 1 (the location first: the finest boxes the model
        allows); it multiplies the location's weight by 1/8 at 0, 1 at 0.5 and
        32 at 1, geometrically between
        (:func:`geoanon.options.checks.precision_weight`), so the default, 0.5
        (or None), weighs every column the same. :func:`geoanon.explore` computes the releases along it.
    location_loss : {"km", "spacing", "spread", "range"}, optional
        What the location costs the search. ``"km"`` (the default of the
        joint and greedy designs for points, and of ZIP locations): a
        class's box or group of regions ``D`` km across costs
        log(1 + D / u) / log(1 + F / u) per row and location column, F the
        table's extent (its records' box, the 5% at each end of each axis
        left out), u = F / 10 for points (:mod:`geoanon.joint.km_loss`: a
        box's cost nearly linear in km below a tenth of the table's extent;
        a box wider than 4 typical k-neighbourhoods pays 1 more per row for
        each further such width, the reach scaled by 1 / the location's
        weight, so ``location_precision=0`` trades the location back);
        a group's ``D`` is the diagonal of the box of its regions' centroids,
        F the map's, u the regions' spacing, so every tenfold of width above
        two neighbours costs the same and groups stay local.
        For points, ``"spacing"`` (the default
        of the frontier and location-first designs): in distance, against
        the records' local spacing (:class:`geoanon.joint.location_loss.SpacingLoss`:
        a box as precise as the location alone allows costs nothing, one
        eight times as wide costs each location column as much as a
        suppressed one; the location tree is cut on ground distance alone,
        :func:`geoanon.pipeline.locations.points.ground_spans`), so the location stays
        about as precise as :func:`geoanon.generalize_points` would publish it
        and the other quasi-identifiers are generalized as needed. ``"spread"``: NCP over
        the coordinates' interquartile range instead of their range;
        ``"range"`` (the default of label locations): Xu et al.'s NCP over the range, which a
        few far records (an island) make so wide that state-sized boxes
        look cheap, or for regions Iyengar's loss, which makes a state of a
        national table's ZIP codes look nearly free. The choice steers the
        search only: the report's NCP
        (:func:`geoanon.information_loss`) is measured the same way for
        every choice. An interval cell (a location box's latitude and
        longitude count as two) costs its width over the column's input
        range, Xu et al.'s NCP (2006); a set or hierarchy node (a ZIP or
        label group included) covering c of the column's |A| distinct
        input values costs (c - 1) / (|A| - 1), Iyengar's loss metric
        (2002), with Xu et al.'s c / |A| reported beside as ``xu_ncp``; in
        a suppressed column a kept value costs 0 and ``*`` 1; an empty
        interval costs 0 where the input was missing, else 1. A ZIP
        location's report adds its km loss (``ncp["km_loss"]``, the
        ``"km"`` loss averaged over records, ``*`` costing 1) and its groups'
        diameters (``details["location_km"]``: median, p90 and max over records, km).
    tail_reach : float or None
        With the km loss (``location_loss="km"``, the default of ZIP
        codes): a class wider than this many typical k-neighbourhoods
        (:func:`geoanon.joint.km_loss.k_spacing`, over the square of the
        location's weight) costs the search more for each further such width
        (default 4, :data:`geoanon.joint.km_loss.REACH`), so few classes
        span a region to spare a category; for ZIP codes it is also the
        default precision target's multiple. Higher lets a longer tail of
        wide classes buy finer other columns and a finer median box; None:
        no price and no default target (``report.details["tail_reach_km"]``
        says where the price starts).
    gain_ratio : bool
        Rank the search's cuts of a node by their gain per bit of split
        information beyond the first (Quinlan's gain ratio,
        :func:`geoanon.joint.cuts.per_bit`; default True, False: by the gain
        itself): a category's cut into all its values at once ranks as the
        cuts it replaces, so a many-valued column (education, workclass) is
        not peeled first on every path. On tables with many
        categorical quasi-identifiers it keeps the other columns finer at the
        same location widths (bench/RESULTS.md, "Gain ratio").
    max_extent_km : float, optional
        A precision target for a points location (``method="joint"`` or
        ``"frontier"``): a location class wider than this (its records' box,
        diagonal in km, with room for its published grid) is cut further
        wherever its parts still meet the model (the joint design first cuts
        the location alone down to pieces no wider, then cuts inside them).
        It bounds every published box: a class that cannot be cut within it
        has its records published without a location
        (``report.details["isolated"]["withheld_beyond_extent"]``) while
        ``max_withheld`` allows, else InfeasibleError names the fix (a ZIP
        group cannot be withheld). ``report.details["beyond_max_extent"]``
        counts the records published wider than a ZIP location's default
        target, which is a target only.
    n_jobs : int
        Processes solving the location's shards (:func:`geoanon.joint.search.joint_partition`)
        and cutting ``regroup_km``'s groups again; -1 for every core. With
        more than one, a forked process also measures the isolated records
        during the search and audits the release and measures its NCP while
        this one draws the classes. The release does not depend on it.
    budgets : Budgets, optional
        The shares of the rows the release may leave out, as one
        :class:`geoanon.Budgets`: ``max_suppressed``, ``max_withheld`` and
        ``max_pooled``, below; each may be given as a keyword instead (not both).
    max_suppressed : float, optional
        A record suppression budget, the share of the rows (0 <= share < 1;
        ARX's suppression limit) that may be published fully suppressed
        (:mod:`geoanon.joint.outliers`): the whole classes with the widest
        location boxes (or, without a points location, the highest NCP per
        record) are chosen while they fit, published with every
        quasi-identifier empty or ``*`` as one class of their own that meets
        the model, and the other rows are partitioned again without them.
        ``report.details["suppressed_records"]`` counts them. With a points
        location or none.
    max_withheld : float
        With a points location: the budget of isolated records
        (:mod:`geoanon.points.isolated`) published without a location, the
        most isolated first (default 2%, at least 2k rows; 0: none), their
        other quasi-identifiers cut as any class's;
        ``report.details["isolated"]`` gives the budget, the rows withheld
        and the isolated records left in their box (each warned about).
    max_pooled : float, optional
        With a points or ZIP location and ``method="joint"``: a pooling
        budget, the share of the rows (0 <= share < 1) whose location may be
        coarse so that the rest stay fine (:mod:`geoanon.joint.pooling`): the
        records of the sparsest places (the widest k-neighbourhoods, then
        the fewest records), whole places while they fit, are partitioned apart with the
        other columns first, the rest at ``location_precision``; no class
        mixes the two. ``report.details["pooled"]`` gives the budget and the
        rows pooled. A budget just under 10% keeps the p90 box of a table
        whose fuller places hold k records at their own place.
    pool_by : {"places", "classes"}
        Which records ``max_pooled`` spends: the sparsest places' (above;
        the default), or, after the search, the whole classes whose records
        lose most in the other columns, searched again apart with the other
        columns first while every other class stays as the search found it.
    regroup_km : (float, float), optional
        With a points location and ``method="joint"``: a median and a p90
        box in km the release may spend (:mod:`geoanon.joint.regroup`). After
        the search, each class is pooled with its nearest classes and the
        pair cut again by the other columns, the changes that gain most per
        record moved beyond the bounds first, while the records' median and
        p90 box (a record without a box counted infinitely wide) stay within them (each the wider of the asked one
        and the search's own, so ``(0, 0)`` keeps the search's) and no box
        grows past ``max_extent_km``. ``report.details["regrouped"]`` gives
        the bounds kept, the changes and the other columns' loss before and
        after. Pick the bounds from :func:`geoanon.explore` or a peer's release.
    zip_level : {"zip", "zip3", "county", "state"}
        A ZIP location published rolled up, as :func:`geoanon.generalize_regions`
        takes it: groups of whole ZIP3 areas, counties or states, named after
        their units holding records (``276``, ``NC/Durham County|NC/Wake
        County``, ``NC/Wake County+4``) in a column named for the level
        (``zip3``, ``county``, ``state``); the search never splits a unit.
    missing : {"error", "suppress"}
        Rows without coordinates: DataError, or a location class of their own
        with empty rectangle columns.
    crs, bounds
        As in :func:`geoanon.generalize_points`.
    decimal : {".", ","}
        The decimal mark of numbers given as text: with ``","``, the
        location's coordinates and the quasi-identifiers whose cells are all
        numbers such as ``-118,27`` are read as numbers.

    Quasi-identifiers published the default way that are probably misread
    (non-ISO dates taken as categories, numbers with a decimal comma, a few
    whole numbers that look like category codes) are named in a
    :class:`~geoanon.errors.ColumnWarning` and in ``release.warnings``, with
    the keyword that declares them (:mod:`geoanon.pipeline.hints`).

    Returns
    -------
    Release
        ``table``: every row and non-QI column in order, the quasi-identifiers
        in their published form, ``class_id`` last; ``report``: rows,
        classes, location classes, the model, ``ncp`` (overall and per input
        column, from the published table), the audit over all published
        quasi-identifier columns and ``class_id``, seconds; ``classes``: one
        row per location class (its shape, records, and the published values
        of the classes inside it); ``partition``: the joint search's
        :class:`~geoanon.joint.search.JointPartition`. Nothing is returned
        unless the audit passes.

    Examples
    --------
    Eight patients in Durham and Raleigh: location, age and sex generalized
    together, so that every class holds at least two records and two diagnoses:

    >>> import pandas as pd
    >>> import geoanon as ga
    >>> df = pd.DataFrame({
    ...     "lat": [35.99, 36.01, 35.98, 36.02, 35.78, 35.80, 35.77, 35.79],
    ...     "lon": [-78.90, -78.91, -78.93, -78.89, -78.64, -78.66, -78.62, -78.63],
    ...     "age": [34, 38, 45, 51, 29, 33, 62, 58],
    ...     "sex": ["F", "M", "F", "M", "F", "F", "M", "M"],
    ...     "diagnosis": ["flu", "copd", "flu", "gout", "copd", "flu", "gout", "flu"]})
    >>> release = ga.anonymize(df, location=("lat", "lon"), qi=["age", "sex"], sensitive="diagnosis",
    ...                        k=2, l_distinct=2)
    >>> release.table.columns.tolist()
    ['lat_min', 'lat_max', 'lon_min', 'lon_max', 'age_min', 'age_max', 'sex', 'diagnosis', 'class_id']
    >>> release.table[["age_min", "age_max", "sex", "diagnosis", "class_id"]]
       age_min  age_max sex diagnosis  class_id
    0     40.0     54.0   *       flu         0
    1     40.0     54.0   *      gout         0
    2      0.0     39.0   *      copd         1
    3      0.0     39.0   *       flu         1
    4      0.0     39.0   F      copd         2
    5      0.0     39.0   F       flu         2
    6     55.0      inf   M       flu         3
    7     55.0      inf   M      gout         3
    >>> release.report["audit"]["k"], release.report["audit"]["l_distinct"]
    (2, 2)

    Each class publishes its own records' box: Durham's four patients
    (rows 0-3) are cut by age and publish sex as ``*`` (both values),
    Raleigh's by sex. An end in a tail (fewer than k records beyond it), or
    rounded past the values k records reach, is published open: the
    column's floor (0 for ages) or ceiling, else ``-inf`` or ``inf``
    (``55.0, inf``: "55+"). An empty interval is a class holding missing
    values.
    """
    spec = release_spec("anonymize", columns=columns, model=model, location=location, search=search, budgets=budgets,
                        **options)
    return release_joint(df, spec)


def release_joint(df: pd.DataFrame, spec: ReleaseSpec) -> Release:
    """The joint release of ``df`` as ``spec`` asks (:func:`anonymize`; the
    dask engine's shards call it with their part of the spec)."""
    return released(prepared(df, spec), spec)


@dataclass
class Prepared:
    """What every release of one table under one spec shares (:func:`prepared`):
    the table with its roles checked, the compiled model, the dimensions
    of the search and its problem under unit weights; :func:`released` makes
    a release of it, at any ``location_precision`` (:func:`geoanon.explore`
    makes several)."""

    df: pd.DataFrame
    treatments: dict
    formats: dict
    check: object
    dims: Dims
    publish_location: object
    warnings: list
    loose: list
    started: float
    problem: SearchProblem
    pools: dict = field(default_factory=dict)    # max_pooled -> (rest, pool) rows (:func:`_pool`)


@stepped("reading the columns and building the search")
def prepared(df: pd.DataFrame, spec: ReleaseSpec) -> Prepared:
    """Check ``df`` against ``spec`` and build the search's dimensions (:class:`Prepared`)."""
    started = time.perf_counter()
    cols, o = spec.columns, spec.options
    qi, hierarchies, formats = cols.quasi_identifiers, cols.hierarchies, dict(o["dates"])
    model, (kind, loc) = spec.model, spec.location
    sensitive = model.sensitive
    method, extent, crs = o["method"], o["extent"], o["crs"]
    check_unique_columns(df)
    df, keep = declared_table(df, cols.identifiers, cols.keep)
    numbers = [loc[key] for key in LOCATIONS[kind].numbers] + [c for c in qi if c not in formats]
    df = with_decimal_mark(df, [c for c in numbers if c in df.columns], o.get("decimal", "."))
    formats.update({col: None for col in qi if col in df.columns and col not in formats
                    and is_date_column(df[col])})                        # found: ISO text or a datetime column
    treatments = spec_treatments(df, spec.but(dates=formats), lambda col: numeric_cells(df[col]))
    check_roles(df, kind, loc, qi, sensitive)
    unranged = [c for c in cols.ranges if treatments.get(c) != "interval" or c in formats]
    if unranged:
        raise ParameterError(f"ranges names {show(unranged[0])}, which is not a number quasi-identifier "
                             "published as an interval")
    roles = [*(v for key, v in loc.items() if key in LOCATIONS[kind].columns), *qi,
             *([sensitive] if sensitive is not None else [])]
    loose = undeclared(df, roles, keep, strict=o["strict"])
    check_scalar_columns(df, roles)
    if len(df) == 0:
        raise DataError("the table has no rows")
    check = model.compile(df, spec.reference)
    # hints where the table is the user's (not a dask shard's, whose engine has no decimal option)
    warnings: list = column_hints(df, cols, treatments, formats, o["decimal"]) if "decimal" in o else []
    warn(warnings)
    dims, publish_location = KINDS[kind].read(df, loc, check, o, warnings)
    for col in qi:
        dims.items.append(qi_dim(df, col, treatments[col], hierarchies.get(col), extent, model.k,
                                  formats, cols.ranges.get(col)))
    location_loss = NCP
    if o["location_loss"] == "spacing":
        location_loss = SpacingLoss(_diagonals(dims, crs))
        ground_spans(dims, crs)
    elif o["location_loss"] == "spread":
        robust_spans(dims)
    elif o["location_loss"] == "km" and publish_location.boxes:
        location_loss = BoxKmLoss(dims.ranked_beside(partial(_km_loss, dims, crs, model.k, o["tail_reach"],
                                                             publish_location.least_km),
                                                     o["n_jobs"]))
    elif o["location_loss"] == "km":            # a ZIP location: its tree's nodes cost their diameter in km
        location_loss = TreeKmLoss(publish_location.km_costs())
    if region_target(spec):
        publish_location.measure_neighbourhood(model.k)
    # the joint design's classes each publish their own box; the others share their location class's
    problem = SearchProblem(dims, check, location_loss=location_loss, shared_location=method != "joint",
                            gain_ratio=o["gain_ratio"])
    return Prepared(df, treatments, formats, check, dims, publish_location, warnings, loose, started, problem)


def partitioned(job: Prepared, spec: ReleaseSpec, part=None):
    """The search's partition of ``job`` under ``spec``'s weights and
    ``location_precision`` (``part``: that partition, found already by
    :func:`searched`), with its suppressed and withheld records, then
    regrouped within ``regroup_km`` (:func:`_regrouped`); and the release's
    table, its published columns and their NCP treatments."""
    o, dims = spec.options, job.dims
    problem = _problem(job, spec)
    if part is None:
        with step("searching the partition"):
            search = partial(_pooled_search, job, spec, problem)
            # the isolated records measured meanwhile, on another core
            part = job.publish_location.isolated_beside(dims, job.check.model.k, o["n_jobs"], search) \
                if job.publish_location.withholds and o["n_jobs"] > 1 else search()
    if o["max_suppressed"]:
        part = _without_outliers(problem, part, int(o["max_suppressed"] * len(job.df)), o["method"], o["n_jobs"],
                                 _diagonals(dims, o["crs"]) if job.publish_location.boxes else None)
    isolated = {}
    if job.publish_location.withholds:
        part, isolated = _without_isolated(job, problem, part, o["max_withheld"])
    part, wide = within_extent(job, spec, problem, part, isolated.get("withheld_rows", 0))
    if wide:
        isolated["withheld_beyond_extent"] = wide
    if o.get("regroup_km") is not None:
        part = _regrouped(job, spec, problem, part)
    with step("publishing the classes' cells"):
        table, published, ncp_columns = published_table(job.df, dims, part, spec.columns.quasi_identifiers,
                                                        job.treatments, job.publish_location)
    return part, table, published, ncp_columns, isolated


def _regrouped(job: Prepared, spec: ReleaseSpec, problem: SearchProblem, part):
    """``part`` with neighbouring classes pooled and cut again within
    ``regroup_km`` (:func:`~geoanon.joint.regroup.regrouped`), what it
    changed in its ``regrouped``."""
    o, dims = spec.options, job.dims
    on = ground(o["crs"])
    x, y = (d for d in dims.items if d.location)
    positions = on.positions(*(d.low[np.minimum(d.rank, d.size - 1)] for d in (x, y)))

    def km_of(states) -> np.ndarray:
        return job.publish_location.states_km(dims, state_columns(states), o["crs"])

    with step("regrouping neighbouring classes"):
        done = regrouped(problem, part, km_of, positions, o["regroup_km"], o["max_extent_km"], n_jobs=o["n_jobs"])
    done.part.regrouped = {"regroup_km": list(o["regroup_km"]), "median_km": round(done.median_km, 3),
                           "p90_km": round(done.p90_km, 3), "changes": done.changes, "rounds": done.rounds,
                           "other_loss_before": round(done.loss_before, 6), "other_loss_after": round(done.loss_after, 6)}
    return done.part


def regroup_note(details) -> list:
    """The report's line on ``regroup_km``: what it spent and what it bought."""
    if "regrouped" not in details:
        return []
    done = details["regrouped"]
    if not done["changes"]:
        return [f"regroup_km: no pair of neighbouring classes cut again lowers the other columns' loss within a "
                f"median of {done['median_km']:,.1f} km and a p90 of {done['p90_km']:,.1f} km"]
    saved = 1 - done["other_loss_after"] / done["other_loss_before"] if done["other_loss_before"] else 0.0
    return [f"regroup_km: {plural(done['changes'], 'pair')} of neighbouring classes cut again by the other columns "
            f"in {plural(done['rounds'], 'round')}, within a median box of {done['median_km']:,.1f} km and a p90 of "
            f"{done['p90_km']:,.1f} km: the other columns lose {saved:.1%} less"]


def _without_isolated(job: Prepared, problem: SearchProblem, part, share: float):
    """``part`` with its isolated records (:mod:`geoanon.points.isolated`),
    most isolated first within a budget of ``share`` of the rows, published
    without a location (:func:`geoanon.joint.withheld.without_locations`),
    and the report's figures: the budget, the records withheld and the
    isolated records left in their box. Nothing moves where the rows that
    must go with them (a class left short of the model, or too few to be a
    class without a location) would overrun the budget."""
    dims, check, n = job.dims, job.check, len(job.df)
    labels = np.where(part.row_class >= 0, part.location_class[np.maximum(part.row_class, 0)], -1)
    labels = np.where(part.row_class == part.suppressed, -1, labels)
    flagged, gap = job.publish_location.isolated(dims, labels, check.model.k)
    budget = budget_rows(share, n, check.model.k)
    chosen = within_budget(flagged, gap, labels, np.bincount(labels[labels >= 0]), check.model.k, budget)
    moved = np.zeros(0, dtype=np.int64)
    if chosen.any():
        try:
            withheld, moved = without_locations(problem, part, chosen)
        except InfeasibleError:
            withheld = None
        if withheld is None or moved.size > budget:
            chosen[:], moved = False, np.zeros(0, dtype=np.int64)
        else:
            part = withheld
    figures = {"max_withheld": share, "budget_rows": budget, "withheld_rows": int(moved.size),
               "published": int((flagged & ~chosen).sum())}
    return part, figures


def searched(job: Prepared, spec: ReleaseSpec, settings: list) -> dict:
    """The search's partitions of ``job`` at several ``location_precision``
    settings of ``spec``, in one search sharing what they cut alike
    (:func:`~geoanon.joint.search.joint_partitions`): {setting: partition},
    each the one :func:`partitioned` finds at its setting alone. Empty unless
    the design is ``"joint"`` and the settings share one precision target
    (else each setting is its own search)."""
    specs = [spec.but(location_precision=p) for p in settings]
    if spec.options["method"] != "joint" or len({extent_target(job, s) for s in specs}) != 1:
        return {}
    problem = _problem(job, specs[0])              # the settings' one precision target
    weights = [_weights(job.dims, s) for s in specs]
    rest, pool = _pool(job, spec)
    return dict(zip(settings, _joined(job, spec, problem, joint_partitions(problem, weights, spec.options["n_jobs"], rest),
                                      pool)))


def _pool(job: Prepared, spec: ReleaseSpec) -> tuple:
    """The rows searched at the asked setting and those pooled apart before
    the search (``pool_by="places"``, :func:`~geoanon.joint.pooling.sparsest_rows`;
    None: no such pool), each meeting the model as a whole, else no pool."""
    share = spec.options.get("max_pooled")
    if not share or spec.options["pool_by"] != "places":
        return None, None
    if share not in job.pools:                   # the search's and the report's, found once
        check = job.check
        pool = sparsest_rows(job.dims, ground(spec.options["crs"]), check.model.k, share)
        rest = np.setdiff1d(np.arange(len(job.df), dtype=np.int64), pool)
        whole = pool.size and check.holds(np.stack([check.histogram(pool), check.histogram(rest)])).all()
        job.pools[share] = (rest, pool) if whole else (None, None)
    return job.pools[share]


def _pooled_details(part, spec: ReleaseSpec) -> dict:
    """``report.details["pooled"]``: the budget, what it spends and the rows pooled (none: {})."""
    share = spec.options.get("max_pooled")
    if not share:
        return {}
    rows = part.pooled_rows
    return {"pooled": {"max_pooled": share, "pool_by": spec.options["pool_by"], "rows": rows,
                       "share": round(rows / part.row_class.size, 6)}}


def pooled_note(details) -> list:
    """The report's line on ``max_pooled``: what was pooled, and what it bought."""
    if "pooled" not in details:
        return []
    budget = details["pooled"]
    rows = budget["rows"]
    chosen = "the sparsest places'" if budget["pool_by"] == "places" else "the costliest classes'"
    if not rows:
        return [f"max_pooled {budget['max_pooled']:.1%}: no rows pooled ({chosen} whole records within it hold "
                "fewer than k, or a part would miss the model)"]
    if budget["pool_by"] == "places":
        return [f"{plural(rows, 'record')} ({budget['share']:.1%}) of the sparsest places partitioned apart "
                "with the other columns first (max_pooled): their locations are coarse so that the rest keep fine "
                "ones without classes mixing whatever few records a sparse place holds"]
    return [f"{plural(rows, 'record')} ({budget['share']:.1%}) of the classes that lost most in the other columns "
            "partitioned again apart with the other columns first (max_pooled, pool_by='classes'): their locations "
            "are coarse so that the other classes keep theirs"]


def _joined(job: Prepared, spec: ReleaseSpec, problem: SearchProblem, parts: list, pool) -> list:
    """``parts`` (the rest's partitions) each joined with its pooled rows'
    partition, searched with the other columns first (``POOL_PRECISION``):
    the ``pool`` rows found before the search (``pool_by="places"``), else
    each part's costliest classes' (``"classes"``,
    :func:`~geoanon.joint.pooling.costliest_rows`); ``parts`` as they are
    without a pool."""
    share = spec.options.get("max_pooled")
    if not share or (pool is None and spec.options["pool_by"] == "places"):
        return parts
    again = partial(joint_partition, _problem(job, spec.but(location_precision=POOL_PRECISION)), "joint",
                    spec.options["n_jobs"])
    if pool is not None:
        found = again(pool)
        return [pooled(problem, part, found) for part in parts]
    return [pooled(problem, part, again(rows)) if (rows := costliest_rows(problem, part, share)).size else part
            for part in parts]


def _pooled_search(job: Prepared, spec: ReleaseSpec, problem: SearchProblem):
    """:func:`partitioned`'s search, with ``max_pooled``'s rows apart
    (:func:`_joined`): the rest at the asked setting, as one partition."""
    rest, pool = _pool(job, spec)
    return _joined(job, spec, problem, [joint_partition(problem, spec.options["method"], spec.options["n_jobs"], rest)],
                   pool)[0]


def located_first(job: Prepared, spec: ReleaseSpec, settings: list) -> list:
    """Per ``location_precision`` setting of ``spec``, whether the joint
    design's search cuts the location first at the table's root
    (:func:`~geoanon.joint.search.location_first`); all False for another design."""
    if spec.options["method"] != "joint":
        return [False] * len(settings)
    weights = [_weights(job.dims, spec.but(location_precision=p)) for p in settings]
    return location_first(job.problem, weights).tolist()


def _problem(job: Prepared, spec: ReleaseSpec) -> SearchProblem:
    """``job``'s search problem as ``spec`` asks: its weights (``weights``
    and ``location_precision``) and its precision target."""
    o, dims = spec.options, job.dims
    too_wide = None if (target := extent_target(job, spec)) is None else \
        _too_wide(job, o["crs"], target) if job.publish_location.boxes else \
        job.publish_location.too_wide(target)
    return replace(job.problem, weights=_weights(dims, spec), too_wide=too_wide)


def _weights(dims: Dims, spec: ReleaseSpec) -> list:
    """Every dimension's weight under ``spec``: ``weights`` (1 unless given),
    the location's times ``location_precision``'s factor."""
    o = spec.options
    given, factor = o["weights"], precision_weight(o["location_precision"])
    return [given.get("location", 1.0) * factor if d.location else given.get(d.name, 1.0) for d in dims.items]


def released(job: Prepared, spec: ReleaseSpec, part=None) -> Release:
    """The audited release of ``job`` under ``spec`` (:func:`partitioned`;
    ``part``: its search's partition, found already), with its report."""
    cols = spec.columns
    qi, hierarchies, formats = cols.quasi_identifiers, cols.hierarchies, job.formats
    model, (kind, loc) = spec.model, spec.location
    df, warnings = job.df, list(job.warnings)
    part, table, published, ncp_columns, isolated = partitioned(job, spec, part)

    def audited() -> tuple:
        # levels against a reference distribution (t, beta, delta) are the caller's to audit, over the whole table
        audit = require(table, [*published, "class_id"],
                        model=model if spec.reference is None else model.without_table_levels())
        return audit, information_loss(df, table, ncp_columns, hierarchies=hierarchies or None, formats=formats,
                                       reach=model.k)

    def drawn() -> tuple:
        units = plain_units(df, table, ncp_columns, **job.publish_location.unit_keywords(part))
        with step("drawing the classes"):
            classes, row_shapes = job.publish_location.classes(table, part, published)
        return units, classes, in_published_order(table, row_shapes)

    # the audit and the NCP beside the classes' drawing and the published order, each half of the work after
    # the search
    (audit, ncp), (units, classes, (ordered, input_rows, input_index, row_shapes)) = \
        beside(audited, drawn, spec.options["n_jobs"])
    warnings += disclosure_warnings(audit, model)
    if isolated:
        warnings += isolated_warning(isolated["published"], isolated["max_withheld"])
    warnings += fine_cuts_warning(*job.publish_location.fine_cuts)
    ncp.update(job.publish_location.ncp)        # a ZIP location's km loss, beside its NCP
    sizes = np.bincount(part.row_class)
    report = joint_report(
        spec, rows=len(df), sizes=(sizes.size, sizes.min(), sizes.max()), audit=audit,
        seconds=round(time.perf_counter() - job.started, 3), treatments={col: job.treatments[col] for col in qi},
        location_classes=part.location_classes, beyond=beyond_target(job, spec, table, warnings),
        suppressed_records=(part.row_class == part.suppressed).sum(), formats=formats, isolated=isolated,
        engine={**job.publish_location.details, "ncp": ncp, "units": units, **_pooled_details(part, spec),
                **({"regrouped": part.regrouped} if part.regrouped else {})},
        undeclared=measure_undeclared(table, job.loose, model.k, warnings))
    return Release(table=ordered, partition=part, report=report, classes=classes, warnings=warnings,
                   notes=target_note(report.details) + pooled_note(report.details) + regroup_note(report.details),
                   row_shapes=row_shapes,
                   treatments=ncp_columns,
                   location=LOCATIONS[kind].release_location(loc), input_rows=input_rows, input_index=input_index)


def _without_outliers(problem, part, budget, method, n_jobs, widths):
    """``part``, or, where classes of at most ``budget`` rows can be published
    suppressed and the rest still meets the model, the rest partitioned again
    with those rows as a last class (:mod:`geoanon.joint.outliers`). The
    classes come from a tiling of the location with lookahead (the frontier
    design's, when ``part`` is the joint design's), where far records (an
    island, a tail of ages) form classes of their own rather than widen others."""
    check = problem.check
    tiled = part if problem.shared_location else \
        joint_partition(replace(problem, shared_location=True), "frontier", n_jobs)
    hidden = suppressed_rows(problem, tiled, budget, widths)
    if not hidden.size:
        return part
    kept = np.setdiff1d(np.arange(part.row_class.size), hidden)
    if not check.holds(check.histogram(kept)[None, :])[0]:
        return part
    return with_suppressed_class(problem, joint_partition(problem, method, n_jobs, rows=kept), hidden)


def _km_loss(dims, crs, k=None, reach=REACH, least=0.0):
    """The location's loss in km (:mod:`geoanon.joint.km_loss`) in ``crs``, its tail priced for ``k``
    beyond ``reach`` typical k-neighbourhoods (None: no price), each at least ``least`` km."""
    return km_loss(dims, ground(crs), k, reach, least)


def _diagonals(dims, crs):
    """Location states -> the diagonal (km) of each one's box as the search
    measures it (its records' box on the grid, or its tile)."""
    on = ground(crs)
    x, y = (j for j, d in enumerate(dims.items) if d.location)

    def diagonal(states) -> np.ndarray:
        xs = np.array([dims.items[x].interval(st[x]) for st in states], dtype=np.float64).reshape(-1, 2)
        ys = np.array([dims.items[y].interval(st[y]) for st in states], dtype=np.float64).reshape(-1, 2)
        return on.extents(xs[:, 0], ys[:, 0], xs[:, 1], ys[:, 1])[2]
    return diagonal


def _too_wide(job: Prepared, crs, max_km):
    """States -> whether each one's location is published wider than
    ``max_km`` (diagonal; a missing location never is): its records' box on
    its grid (:mod:`geoanon.points.edges`), as the publisher rounds it, or its tile."""
    dims, on = job.dims, ground(crs)
    diagonal = _diagonals(dims, crs)

    def wide(states) -> np.ndarray:
        if dims.items[0].extent != "grid":
            return diagonal(states) > max_km                 # NaN compares False
        boxes = job.publish_location.rectangles(dims, states, own_boxes=True)
        return on.extents(*boxes.T)[2] > max_km
    return wide
