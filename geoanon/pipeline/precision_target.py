"""The precision target of a joint release in km (``max_extent_km``, or a
ZIP location's default), and what its report says of the records published
wider."""
from __future__ import annotations

import numpy as np

from .._text import plural
from ..errors import InfeasibleError
from ..joint.withheld import without_locations
from ..points.isolated import budget_rows
from ..options.checks import precision_weight
from ..options.locations import LEVEL_GROUPS, LOCATIONS
from .locations import KINDS

__all__ = ["beyond_target", "extent_target", "region_target", "tail_reach", "target_note",
           "within_extent"]

def extent_target(job, spec) -> float | None:
    """The precision target in km of ``spec``'s release: ``max_extent_km``,
    or, for a ZIP location judged in km under the frontier design,
    ``tail_reach`` times the width of a typical record's k-neighbourhood
    (:func:`geoanon.joint.km_loss.k_spacing`) over the square of the
    location's weight (``weights["location"]`` times ``location_precision``'s
    factor), as the points' tail reach scales: the other columns no longer
    buy continent-wide groups at the default, and the knob spans the rest,
    256 neighbourhoods at setting 0 (the wide end, as if no target) to
    1/256 at 1 (as fine as the groups can be cut). None for no target.

    One rule for every location kind: ``tail_reach`` is where a box's km
    loss starts to pay for its tail, its default
    :data:`~geoanon.joint.km_loss.REACH` (4) chosen on the tuning tables by the rule written in
    :mod:`geoanon.joint.km_loss` (bench_zip_joint's patients, cost and three
    more columns, at 4, 6 and 8 neighbourhoods: only 4 keeps the median group
    within 3x ``geoanon zip`` alone at every k, 2.60x / 2.34x / 1.71x at
    k = 5 / 10 / 50; 6 gave 3.96x / 3.38x)."""
    o = spec.options
    if o["max_extent_km"] is not None:
        return o["max_extent_km"]
    scale = job.publish_location.k_spacing if region_target(spec) else float("nan")
    if not np.isfinite(scale) or scale <= 0:
        return None
    return o["tail_reach"] * scale / _location_weight(spec) ** 2


def _location_weight(spec) -> float:
    """The location's weight: ``weights["location"]`` times ``location_precision``'s factor."""
    return spec.options["weights"].get("location", 1.0) * precision_weight(spec.options["location_precision"])


def region_target(spec) -> bool:
    """Whether ``spec``'s release takes a ZIP location's default precision
    target (:func:`extent_target`): ZIP codes judged in km, the frontier
    design, no ``max_extent_km``, a ``tail_reach``. (Under the joint design
    the regions' places are cut as points are, whose km loss prices the
    tail by ``tail_reach`` itself: :mod:`geoanon.joint.km_loss`.)"""
    o = spec.options
    return LOCATIONS[spec.location[0]].default_target and o["max_extent_km"] is None and o["location_loss"] == "km" \
        and o["method"] == "frontier" and o["tail_reach"] is not None


def beyond_target(job, spec, table, warnings) -> dict:
    """The report's precision target (:func:`extent_target`) and the count
    of records published wider, and a points location's tail reach
    (:func:`tail_reach`)."""
    max_km = extent_target(job, spec)
    if max_km is None:
        return tail_reach(job, spec)
    kind, loc = spec.location
    diameter = KINDS[kind].record_km(table, loc, spec.options["crs"], job.publish_location)
    beyond = int((diameter > max_km).sum())
    given = spec.options["max_extent_km"] is not None     # a given bound holds for every box (within_extent)
    scale = {} if given else {"k_spacing_km": round(job.publish_location.k_spacing, 3)}
    return {"max_extent_km": round(max_km, 3), **scale, "beyond_max_extent": beyond, **tail_reach(job, spec)}


def tail_reach(job, spec) -> dict:
    """``tail_reach_km``: the width in km beyond which a points location's
    box pays its tail's price under ``spec``'s weights
    (:class:`~geoanon.joint.km_loss.KmLoss`: ``tail_reach`` typical
    k-neighbourhoods over the square of the location's weight); nothing
    without one."""
    km = getattr(job.problem.location_loss, "km", None)
    if spec.options["location_loss"] != "km" or km is None or not np.isfinite(km.reach):
        return {}
    return {"tail_reach_km": round(km.reach / _location_weight(spec) ** 2, 3), "tail_reach": spec.options["tail_reach"]}


def target_note(details) -> list:
    """The map's and report's line on a ZIP location's default precision
    target (:func:`extent_target`), or on a points location's tail reach
    (:func:`tail_reach`): what it costs, and what trades it back."""
    if "tail_reach_km" in details:
        boxes = LEVEL_GROUPS.get(details["zip_level"], "ZIP groups") if "zip_level" in details else "boxes"
        boxes = boxes[0].upper() + boxes[1:]
        return [f"{boxes} wider than {details['tail_reach_km']:,.1f} km ({details['tail_reach']:g} typical "
                "k-neighbourhoods at this location_precision) cost the search more for every further such width: "
                "the location stays near what it alone needs and the other columns pay for it; a lower "
                "location_precision (explore's settings, 0 the lowest) trades it back, a higher tail_reach "
                "lets a few classes reach further instead"]
    if "k_spacing_km" not in details:
        return []
    beyond = details["beyond_max_extent"]
    groups = LEVEL_GROUPS.get(details.get("zip_level"), "ZIP groups")
    return [f"{groups} kept within {details['max_extent_km']:,.0f} km, the default target from a typical record's "
            f"k-neighbourhood ({details['k_spacing_km']:,.1f} km; max_extent_km sets another): "
            f"{plural(beyond, 'record')} in wider groups, which cannot be cut further"]


def within_extent(job, spec, problem, part, withheld: int = 0):
    """``part`` with no class published wider than ``max_extent_km``, and the
    rows it withheld for that: the records of classes that cannot be cut
    within it are published without a location
    (:func:`~geoanon.joint.withheld.without_locations`) while the withholding
    budget (``max_withheld``, less the ``withheld`` rows it took already)
    allows; else InfeasibleError naming the fix. No ``max_extent_km``: ``part``."""
    max_km = spec.options["max_extent_km"]
    if max_km is None:
        return part, 0
    wide = _wide_rows(job, spec, part, max_km)
    if not wide.any():
        return part, 0
    budget = budget_rows(spec.options["max_withheld"], len(job.df), job.check.model.k) - withheld \
        if job.publish_location.withholds else 0
    if 0 < wide.sum() <= budget:
        try:
            kept, moved = without_locations(problem, part, wide)
        except InfeasibleError:
            kept, moved = None, wide
        if kept is not None and moved.size <= budget and not _wide_rows(job, spec, kept, max_km).any():
            return kept, int(moved.size)
    widest = float(np.nanmax(job.publish_location.class_km(job.dims, part, spec.options["crs"])))
    raise InfeasibleError(
        f"{plural(int(wide.sum()), 'record')} lie in location classes that cannot be cut within "
        f"max_extent_km={max_km:g} (the widest is {widest:,.0f} km) and "
        + ("the withholding budget cannot take them: raise max_extent_km or max_withheld"
           if job.publish_location.withholds else "cannot be withheld: raise max_extent_km"))


def _wide_rows(job, spec, part, max_km: float) -> np.ndarray:
    """Whether each row lies in a class published wider than ``max_km`` (rows without a class never do)."""
    km = job.publish_location.class_km(job.dims, part, spec.options["crs"])
    wide = np.r_[km > max_km, False]                                   # NaN compares False
    return wide[np.where(part.row_class >= 0, part.row_class, -1)]
