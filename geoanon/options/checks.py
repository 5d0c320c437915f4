"""How the options bear on each other and on the roles (a precision target
needs a points location), and the rules no row's constraint states (the
location's shape, weights, date formats): the checks every engine and front
end share, each raising ParameterError in one line that names the option
and the value. What one value must be is its row's rule
(:mod:`geoanon.options.table`). Light to import (numpy is loaded where a
check needs it): the command line reads job files before its heavy imports."""
from __future__ import annotations

from collections.abc import Hashable

from .._text import show
from ..choices import POOLS
from ..errors import ParameterError
from .locations import LEVEL_GROUPS, LOCATIONS, POINTS, listed

__all__ = ["DECIMAL_MARKS", "PRECISION_RANGE", "check_dates", "check_decimal", "check_one_role", "check_location_loss", "check_location_precision",
           "check_max_extent", "check_max_pooled", "check_pool_by", "check_regroup_km", "check_max_suppressed", "check_weights", "check_zip_level", "parse_location",
           "precision_weight"]

MIN_WEIGHT = 1e-6     # weights are relative: a million times apart, a column already counts as nothing


def parse_location(location) -> tuple:
    """(kind, {key: value}) of the ``location`` argument: kind None (no
    location) or a kind of :data:`~geoanon.options.locations.LOCATIONS`
    (``"points"``, ``"zip"``, ``"label"``)."""
    from .._validation import check_choice

    if location is None:
        return None, {}
    kinds = [shape for shape in LOCATIONS.values() if shape.name is not None]
    if isinstance(location, (tuple, list)):
        if len(location) != 2:
            raise ParameterError(f"location as a pair must be (lat, lon), got {show(location)}")
        return POINTS.name, dict(zip(POINTS.columns, location))
    if not isinstance(location, dict):
        raise ParameterError(f"location must be (lat, lon) or a dict with "
                             f"{listed([' and '.join(s.columns) for s in kinds], ', or ')}")
    keys = set(location)
    for shape in kinds:
        if set(shape.needed) <= keys:
            extra = keys - set(shape.keys)
            if extra:
                raise ParameterError(f"location: unknown key {show(sorted(extra)[0])} for a {shape.name} location")
            location = dict(location)
            for key, choices in shape.choices.items():
                if location.get(key) is not None:
                    location[key] = check_choice(f"location {key}", location[key], choices)
            return shape.name, location
    raise ParameterError(f"location needs {', or '.join(listed(s.needed, ' and ') for s in kinds)}; "
                         f"got keys {', '.join(sorted(map(str, keys)))}")


def check_one_role(named) -> None:
    """ParameterError for a column given two roles among ``named``, (column,
    role) pairs (one role per column, as ARX's data definition: a column kept
    or dropped and also generalized would be published raw, or refused as
    missing), a column listed twice, or a name that cannot be one."""
    roles: dict = {}
    for col, role in named:
        if not isinstance(col, Hashable):
            raise ParameterError(f"a column name must be a name, got {show(col)} as {role}")
        if col in roles:
            raise ParameterError(f"column {show(col)} is listed twice as {role}" if roles[col] == role else
                                 f"column {show(col)} is given two roles: {roles[col]} and {role} (one role per "
                                 "column)")
        roles[col] = role


DECIMAL_MARKS = (".", ",")


def check_decimal(decimal, sep, names=("decimal", "sep")) -> None:
    """ParameterError unless ``decimal`` is a decimal mark (:data:`DECIMAL_MARKS`)
    other than the CSV delimiter ``sep``; ``names`` name the two as the
    front end does (``("--decimal", "--sep")``)."""
    from ..constraints import StrOptions, check

    if decimal == sep:
        raise ParameterError(f"{names[0]} and {names[1]} are both {sep!r}: a number's decimal mark must differ from "
                             "the delimiter")
    check(names[0], decimal, StrOptions(DECIMAL_MARKS))


PRECISION_RANGE = (8.0, 32.0)   # location_precision 0 and 1 weigh the location 1/8 and 32 times the other columns


def check_location_precision(value, kind) -> float | None:
    """``location_precision`` (None, or a number from 0 to 1: its row's
    rule) with a location; the factor it puts on the location's weight is
    :func:`precision_weight`."""
    if value is not None and kind is None:
        raise ParameterError("location_precision needs a location")
    return value


def precision_weight(precision: float | None) -> float:
    """The factor ``location_precision`` P puts on the location's weight:
    1 at 0.5 (or None), geometric from 1/8 at 0 to 1 and from 1 to 32 at 1
    (:data:`PRECISION_RANGE`). Below 1/8 the location is no longer cut on
    national tables (one box for all); near 32 it is cut as finely as the
    model allows, whatever the other columns lose."""
    if precision is None:
        return 1.0
    low, high = PRECISION_RANGE
    return (low if precision < 0.5 else high) ** (2 * precision - 1)


def check_max_extent(value, kind, method, zip_level=None) -> float | None:
    """``max_extent_km`` (None, or a finite number > 0: its row's rule) for a
    points or ZIP location and the joint or frontier design; ZIP codes
    rolled up (``zip_level``) under the frontier design only, since the
    joint design cuts the units at their middles, not across their extent."""
    if value is None:
        return None
    if not LOCATIONS[kind].in_km:
        raise ParameterError("max_extent_km needs a points location (lat and lon) or ZIP codes")
    if method not in ("joint", "frontier"):
        raise ParameterError(f"max_extent_km works with method='joint' or 'frontier', not {method!r}")
    if method == "joint" and zip_level in LEVEL_GROUPS:
        raise ParameterError(f"max_extent_km with zip_level={zip_level!r} works with method='frontier', not 'joint', "
                             "which cuts the units at their middles, not across their extent")
    return value


def check_max_suppressed(value, kind) -> float | None:
    """``max_suppressed`` (None, or a share 0 <= share < 1: its row's rule)
    with a points location or none."""
    if value is not None and not LOCATIONS[kind].record_budget:
        raise ParameterError("max_suppressed works with a points location or none; a ZIP or label location "
                             "publishes its unknown and small pieces as '*' instead (unknown=, small=)")
    return value


def check_max_pooled(value, kind, method, max_suppressed=None) -> float | None:
    """``max_pooled`` (None, or a share 0 <= share < 1: its row's rule) with a
    points or ZIP location cut by the joint design, whose classes each
    publish their own location, and without ``max_suppressed`` (whose rows
    would be partitioned again without the pool)."""
    if value and (kind not in ("points", "zip") or method != "joint"):
        raise ParameterError(f"max_pooled works with a points or ZIP location and method='joint', not "
                             f"{LOCATIONS[kind].described if kind else 'no location'} with method={method!r}")
    if value and max_suppressed:
        raise ParameterError("max_pooled and max_suppressed both spend the records that cost most: give one")
    return value or None


def check_regroup_km(value, kind, method):
    """``regroup_km`` (None, or a pair of km >= 0: its row's rule) with a
    points location cut by the joint design, whose classes each publish
    their own box (:mod:`geoanon.joint.regroup`)."""
    if value is not None and (kind != "points" or method != "joint"):
        raise ParameterError(f"regroup_km works with a points location and method='joint', not "
                             f"{LOCATIONS[kind].described if kind else 'no location'} with method={method!r}")
    return None if value is None else (float(value[0]), float(value[1]))


def check_pool_by(value: str, max_pooled) -> str:
    """``pool_by`` (its row's choices), given other than its default only with ``max_pooled``, whose records it chooses."""
    if value != POOLS[0] and not max_pooled:
        raise ParameterError(f"pool_by={value!r} chooses the records of max_pooled: give max_pooled too")
    return value


def check_location_loss(value, kind, method) -> str:
    """``location_loss``, or the kind's default (:attr:`LocationShape.default_loss`):
    for a points location ``"spacing"`` when a location tree cuts it
    (frontier, location-first), else ``"km"``; ``"km"`` for a ZIP location;
    ``"range"`` for labels."""
    tree = method in ("frontier", "location-first")
    if value is None:
        return LOCATIONS[kind].default_loss[tree]
    if value not in LOCATIONS[kind].losses:
        taking = [shape.described for shape in LOCATIONS.values() if shape.name is not None and value in shape.losses]
        raise ParameterError(f"location_loss={value!r} needs {' or '.join(taking)}")
    if value == "spacing" and not tree:
        raise ParameterError(f"location_loss='spacing' needs the location tree of method='frontier' or "
                             f"'location-first', not {method!r}")
    return value


def check_zip_level(value, kind) -> str:
    """``zip_level``: ``"zip"``, or a roll-up (ZIP3, county, state) of a ZIP location."""
    if value != "zip" and not LOCATIONS[kind].rolls_up:
        raise ParameterError(f"zip_level={value!r} needs a ZIP location (zip, regions, region_id)")
    return value


def check_weights(weights, qi, located: bool) -> dict:
    """``weights``: a mapping from ``"location"`` (with a location) or a
    quasi-identifier to a number in [MIN_WEIGHT, 1 / MIN_WEIGHT]."""
    from .._validation import check_positive

    if weights is None:
        return {}
    if not isinstance(weights, dict):
        raise ParameterError(f"weights must be a dict of column -> number, got {type(weights).__name__}")
    out = {}
    for name, w in weights.items():
        if name == "location" and not located:
            raise ParameterError("weights names the location, and the release has none")
        if name != "location" and name not in qi:
            raise ParameterError(f"weights names {show(name)}, which is neither 'location' nor a quasi-identifier")
        check_positive(f"the weight of {show(name)}", w)
        if not MIN_WEIGHT <= w <= 1 / MIN_WEIGHT:
            raise ParameterError(f"the weight of {show(name)} must be between {MIN_WEIGHT:g} and {1 / MIN_WEIGHT:g} "
                                 f"(weights are relative), got {show(w)}")
        out[str(name)] = float(w)
    return out


def check_dates(dates) -> dict:
    """``dates`` as {column: strftime format or None (ISO)}."""
    if dates is None:
        return {}
    if isinstance(dates, str):
        dates = [dates]
    formats = dict(dates) if isinstance(dates, dict) else {col: None for col in dates}
    for col, fmt in formats.items():
        if fmt is not None and not (isinstance(fmt, str) and "%" in fmt):
            raise ParameterError(f"the date format of {show(col)} must be strftime text such as '%d/%m/%Y', "
                                 f"got {show(fmt)}")
    return formats
