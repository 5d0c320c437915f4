"""A release in a few lines: what the command line prints after a job, and
what ``print(release)`` shows."""
from __future__ import annotations

from .._text import plural
from .frontier import km_axis

__all__ = ["in_units", "summary"]


def summary(release, *, frontier: bool = True) -> str:
    """The summary of ``release``: its rows, classes and audited model in one
    line; a joint release's loss in plain units on a second; with
    ``frontier``, the trade-off ``explore`` measured as a table."""
    job = release.report.job
    if job == "anonymize":
        return _joint(release, frontier)
    if job == "suppress":
        return _suppressed(release)
    return _located(release)


def in_units(units: dict) -> str:
    """A release's loss in plain units (:func:`geoanon.report.html.unit_phrases`) as one line."""
    from .html import unit_phrases

    phrases, location = unit_phrases(units)
    parts = ([] if location is None else [f"location {location}"]) + [f"{c} {p}" for c, p in phrases.items()]
    return "in plain units: " + "; ".join(parts)


def _located(release) -> str:
    """A points, zip or labels job: the largest class against the lower bound on it."""
    r, d = release.report, release.report.details
    return (f"{plural(r.rows, 'row')}, {plural(r.classes, 'class', 'classes')}{_shards(d)}, "
            f"{_largest(r.max_class, d['lower_bound'], d['ratio'], d.get('suppressed_rows', 0))}, "
            f"audited k = {r.audit.k}")


def _largest(max_class: int, lower_bound: int, ratio: float, suppressed: int) -> str:
    """The largest class against the proven lower bound on it. The ratio is
    the partition's largest group over that bound; suppressed records form a
    class outside the partition, counted apart."""
    bound = f"{ratio:.3f} x the lower bound {lower_bound}"
    if not suppressed:
        return f"largest {max_class} ({bound})"
    return f"largest group {bound}, {plural(suppressed, 'record')} suppressed"


def _suppressed(release) -> str:
    """A suppression job: the cells suppressed and how far from the optimum."""
    r, d = release.report, release.report.details
    quality = "proven optimal" if d["optimal"] else f"lower bound {d['lower_bound']}, gap {d['gap']:.1%}"
    method = d["method"] if d["solver"] == d["method"] else f"{d['method']} ({d['solver']} asked)"
    return (f"{plural(r.rows, 'row')}, {plural(r.classes, 'class', 'classes')}, "
            f"{plural(d['cost'], 'suppressed cell')} by {method} ({quality}), {audited(r.audit)}")


def audited(a) -> str:
    """An audit's figures for a summary line: k, and l, l_distinct, t with a sensitive column."""
    return f"audited k = {a.k}" + (f", l = {a.l:.3f}, l_distinct = {a.l_distinct}, t = {a.t:.4f}"
                                   if a.sensitive else "")


def _joint(release, frontier: bool) -> str:
    """A joint release (anonymize, a job file)."""
    r, d = release.report, release.report.details
    return (f"{plural(r.rows, 'row')}, {plural(r.classes, 'class', 'classes')} in "
            f"{plural(d['location_classes'], 'location class', 'location classes')}{_shards(d)}, "
            f"smallest {r.min_class}, " + (f"NCP {d['ncp']['overall']:.4f}, " if "ncp" in d else "")
            + audited(r.audit)
            + (f", {plural(d['suppressed_records'], 'record')} suppressed" if d.get("suppressed_records") else "")
            + ("\n  " + in_units(d["units"]) if "units" in d else "")
            + (_frontier_lines(d["frontier"]) if frontier and "frontier" in d else ""))


def _frontier_lines(frontier: dict) -> str:
    """The trade-off of ``explore`` as a table, the returned release marked."""
    def km(v):
        return "-" if v is None else f"{v:,.0f}"

    groups = km_axis(frontier["points"]) == "mean_km"        # ZIP groups: their mean km per record beside
    lines = [f"{'':2}{'precision':>9} {'median km':>10} {'p90 km':>9} {'max km':>9}{' mean km' if groups else ''} "
             f"{'other NCP':>9} "
             f"{'classes':>8}"]
    for p in frontier["points"]:
        mark = "*" if p["location_precision"] == frontier["chosen"] else " "
        other = "-" if p["other_ncp"] is None else f"{p['other_ncp']:.4f}"
        mean = f" {km(p['mean_km']):>8}" if groups else ""
        lines.append(f"{mark:2}{p['location_precision']:>9g} {km(p['median_km']):>10} {km(p['p90_km']):>9} "
                     f"{km(p.get('max_km')):>9}{mean} "
                     f"{other:>9} {p['classes']:>8,}")
    return "\ntrade-off (* written; --location-precision reproduces each):\n" + "\n".join(lines)


def _shards(details: dict) -> str:
    """`` in N shards`` for a dask job."""
    return f" in {plural(details['shards'], 'shard')}" if "shards" in details else ""
