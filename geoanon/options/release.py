"""The release spec: what a job is asked for, checked once, whichever engine
runs it and whichever front end (Python, the command line, a job file)
asked.

:func:`release_spec` turns a job's keywords into a :class:`ReleaseSpec`: the
columns' roles (:class:`geoanon.Columns`), the model
(:class:`geoanon.Model`) and every option of :data:`~geoanon.options.table.OPTIONS`
offered by the job and the engine, each checked (its choices, its range, how
it bears on the others) and defaulted. The engines (:mod:`geoanon.pipeline`
in memory, :mod:`geoanon.cluster` on dask) take the spec; what can only be
checked against the table (a column's presence, its type) they check with
:func:`treatments`, also shared.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from types import MappingProxyType

import pandas as pd

from .._text import show
from ..choices import POOLS
from ..columns import Columns, declared, with_sensitive
from ..constraints import check
from ..criteria import KEYWORDS, level_value
from ..errors import DataError, ParameterError
from ..models import Hierarchy, Model, check_levels, requested_model, required_k
from .checks import (check_dates, check_location_loss, check_one_role, check_location_precision, check_max_extent,
                     check_max_pooled, check_max_suppressed, check_pool_by, check_regroup_km, check_weights, check_zip_level, parse_location)
from .groups import ungrouped
from .locations import LOCATIONS
from .table import OPTIONS

__all__ = ["ReleaseSpec", "options_of", "release_spec", "treatments"]

ROLES = ("location", "qi", "sensitive", "interval", "dates", "hierarchies", "suppress", "sets", "identifiers", "keep")
MODEL_KEYWORDS = (*KEYWORDS, "ground", "order")
ENGINE_NAMES = {"memory": "the in-memory engine", "dask": "the dask engine"}
FUNCTIONS = {"points": "generalize_points", "zip": "generalize_regions", "labels": "generalize_labels",
             "suppress": "suppress", "anonymize": "anonymize"}


def options_of(command: str, engine: str | None = None, *, api: bool = False) -> dict:
    """The rows of :data:`OPTIONS` of ``command`` by API name: those ``engine``
    supports (any engine: None), or, with ``api``, those its job function
    takes as keywords."""
    return {o.name: o for o in OPTIONS if command in o.commands
            and (engine is None or engine in (o.api if api else o.engines)) and (not api or o.api)}


@dataclass(frozen=True)
class ReleaseSpec:
    """A job's request, checked.

    Attributes
    ----------
    command : str
        ``"anonymize"``, ``"suppress"``, ``"points"``, ``"zip"`` or ``"labels"``.
    engine : str
        ``"memory"`` or ``"dask"``.
    columns : Columns
        Every column's role.
    model : Model
        The levels every class meets.
    location : tuple
        ``(kind, {key: column or setting})`` of the location (kind None, points,
        zip or label).
    options : mapping
        Every other option of the job and engine, by API name, checked and
        defaulted.
    reference : dict, optional
        The sensitive values' distribution (text -> weight) a table's levels
        against the table (t, beta, delta) are measured against, when the
        table is one shard of a larger release.
    """

    command: str
    engine: str
    columns: Columns
    model: Model
    location: tuple = (None, {})
    options: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    reference: dict | None = None

    def __getitem__(self, name: str):
        return self.options[name]

    def but(self, **changes) -> "ReleaseSpec":
        """The spec with some options (or fields: ``columns``, ``model``,
        ``reference``) changed, unchecked: for an engine's own parts."""
        fields = {k: changes.pop(k) for k in ("columns", "model", "reference", "location") if k in changes}
        return replace(self, options=MappingProxyType({**self.options, **changes}), **fields)

    @property
    def quasi_identifiers(self) -> list:
        return self.columns.quasi_identifiers


def release_spec(command: str, engine: str = "memory", *, columns=None, model=None, search=None, budgets=None,
                 **keywords) -> ReleaseSpec:
    """The :class:`ReleaseSpec` of ``command`` on ``engine`` from the
    keywords of its job function (the options of ``search`` and ``budgets``,
    :mod:`geoanon.options.groups`, among them): every option checked against
    its row's rule and defaulted, the roles and the model built, and the
    options that bear on each other checked together. TypeError for a
    keyword the job function does not take (as Python's); ParameterError
    for a value out of range, an option the engine does not offer, or roles
    given both as ``columns`` and as keywords."""
    values = ungrouped(keywords, search=search, budgets=budgets)
    taken, offered = options_of(command, engine, api=True), options_of(command, engine)
    rows = options_of(command, api=True)                          # the keywords of the job function on any engine
    for name, value in values.items():
        if name == "location" and command == "anonymize":
            continue
        if name not in rows:
            raise TypeError(f"{FUNCTIONS[command]}() got an unexpected keyword argument {name!r}")
        if name not in offered and value is not None and value != rows[name].default:
            raise ParameterError(f"{name} is not offered by {ENGINE_NAMES[engine]}")
    modelled = MODEL_KEYWORDS if command in ("suppress", "anonymize") else ("k",)     # a table's model, or k
    roles = {name: values.pop(name) for name in ROLES if name in values}
    levels = {name: values.pop(name) for name in modelled if name in values}
    options = {name: check(name, values.get(name, row.default), row.rule) for name, row in taken.items()
               if name not in ROLES and name not in modelled}
    cols = declared(columns, **roles)
    model = _requested_model(command, cols, model, levels, options)
    kind, loc = parse_location(cols.location)
    if command == "anonymize" and engine not in LOCATIONS[kind].engines:
        raise ParameterError("the dask engine's joint release takes a points location (lat, lon)")
    if options.get("n_jobs") == -1:
        options["n_jobs"] = _every_core()
    if command == "anonymize":
        options.update(_joint_options(options, cols, kind))
    check_one_role(_named_columns(command, cols, model, kind, loc, options))
    return ReleaseSpec(command, engine, cols, model, (kind, loc), MappingProxyType(options))


STANDALONE_LOCATION = ("lat", "lon", "column")      # the location's columns of points, zip and labels


def _named_columns(command: str, cols: Columns, model: Model, kind, loc: dict, options: dict) -> list:
    """(column, role) for every column a job names: its location's
    columns, quasi-identifiers, sensitive column, identifiers and kept columns."""
    if command == "anonymize":
        location = [(loc[key], f"location {key}") for key in LOCATIONS[kind].columns]
    else:
        location = [(options[key], "location" if key == "column" else f"location {key}")
                    for key in STANDALONE_LOCATION if options.get(key) is not None]
    sensitive = model.sensitive if model.sensitive is not None else cols.sensitive
    return [*location, *((c, "quasi-identifier") for c in cols.quasi_identifiers),
            *([(sensitive, "sensitive")] if sensitive is not None else []),
            *((c, "identifiers") for c in cols.identifiers), *((c, "keep") for c in cols.keep)]


def _requested_model(command: str, cols: Columns, model, levels: dict, options: dict) -> Model:
    """The model of a job: the levels of ``model`` or ``levels`` (with the
    roles' sensitive column) for a table's job, ``k`` alone for a location's."""
    if command == "suppress":
        return _suppression_model(cols, model, levels, options["method"])
    if command == "anonymize":
        model = with_sensitive(model, cols.sensitive)
        return requested_model(model, **levels, sensitive=None if model is not None else cols.sensitive)
    return Model(k=level_value("k", levels.get("k")))


def _suppression_model(cols: Columns, model, levels: dict, method: str) -> Model:
    """The model of a suppression job, checked with its quasi-identifiers
    and method: Theorem 10's approximation is for k alone; levels on a
    sensitive value need a sensitive column (DataError)."""
    sensitive_levels = {name: levels.get(name) for name in KEYWORDS if name != "k"}
    if model is None:
        level_value("k", required_k(levels.get("k"), *sensitive_levels.values()))
    check_levels(**sensitive_levels)
    twice = [c for j, c in enumerate(cols.qi) if c in cols.qi[:j]]
    if twice:
        raise ParameterError(f"the quasi-identifier {show(twice[0])} is listed twice")
    sensitive = cols.sensitive if model is None else model.sensitive
    if sensitive is not None and sensitive in cols.qi:
        raise ParameterError(f"the sensitive column {show(sensitive)} cannot also be a quasi-identifier")
    needs_sensitive = any(v is not None for v in sensitive_levels.values()) or (model is not None
                                                                               and model.needs_sensitive)
    if method == "approx" and needs_sensitive:
        raise ParameterError("method='approx' (Theorem 10) is for k-anonymity only; use method='lattice' for l and t")
    if needs_sensitive and sensitive is None:
        raise DataError("l-diversity and t-closeness need a sensitive column")
    return requested_model(model, **levels, sensitive=cols.sensitive)


def _every_core() -> int:
    """The cores this process may use (``n_jobs=-1``)."""
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def _joint_options(options: dict, cols: Columns, kind) -> dict:
    """The joint release's options that bear on each other and on the roles."""
    zip_level = check_zip_level(options.get("zip_level", "zip"), kind)
    method = options["method"] or LOCATIONS[kind].design(zip_level)
    return {"method": method,
            "location_loss": check_location_loss(options.get("location_loss"), kind, method),
            "max_suppressed": check_max_suppressed(options.get("max_suppressed"), kind),
            "max_pooled": check_max_pooled(options.get("max_pooled"), kind, method, options.get("max_suppressed")),
            "pool_by": check_pool_by(options.get("pool_by", POOLS[0]), options.get("max_pooled")),
            "zip_level": zip_level,
            "regroup_km": check_regroup_km(options.get("regroup_km"), kind, method),
            "max_extent_km": check_max_extent(options.get("max_extent_km"), kind, method, zip_level),
            "location_precision": check_location_precision(options.get("location_precision"), kind),
            "weights": check_weights(options.get("weights"), cols.quasi_identifiers, kind is not None),
            "dates": check_dates(cols.dates or None)}


def treatments(frame: pd.DataFrame, spec: ReleaseSpec, numeric) -> dict:
    """Each quasi-identifier's treatment (interval, hierarchy, suppress,
    set): as the roles give it, else ``"interval"`` for a number or date
    column (``numeric(col)``; dates: ``spec.options["dates"]``) and
    ``"set"`` for the others (the values a class holds, rare ones hidden). ``frame`` (a table, or a dask dataset's
    empty meta) must hold every quasi-identifier."""
    from .._validation import require_column

    c = spec.columns
    for col, h in c.hierarchies.items():
        if not isinstance(h, Hierarchy):
            raise ParameterError(f"hierarchies[{show(col)}] must be a Hierarchy, got {type(h).__name__}")
    formats = spec.options.get("dates", {})
    out = {}
    for col in c.quasi_identifiers:
        require_column(frame, col)
        given = [name for name, cols in (("interval", c.interval), ("suppress", c.suppress), ("set", c.sets),
                                         ("hierarchy", list(c.hierarchies))) if col in cols]
        if len(given) > 1:
            raise ParameterError(f"column {show(col)} is given two treatments: {' and '.join(given)}")
        out[col] = given[0] if given else ("interval" if col in formats or numeric(col) else "set")
    return out
