"""The trade-off a user chooses along (:func:`geoanon.explore`), drawn in the
HTML report: the km of the published location on a log axis (the median box
diagonal of points; the mean group diameter per record of ZIP codes, whose
median is 0 km wherever most records keep their own code) against the other
quasi-identifiers' mean NCP, one point per ``location_precision`` labelled
with it, the chosen release ringed; and the same as a table."""
from __future__ import annotations

import html

__all__ = ["frontier_section", "km_axis"]


def frontier_section(frontier: dict) -> str:
    """The report's section for ``report.details["frontier"]``."""
    points, chosen = frontier["points"], frontier["chosen"]
    axis = km_axis(points)
    located = [p for p in points if p[axis] is not None and p["other_ncp"] is not None]
    figure = f"<figure>{_plot(located, chosen, axis)}</figure>" if located else ""
    groups = axis == "mean_km"
    rows = "".join(_row(p, p["location_precision"] == chosen, groups) for p in points)
    return ('<h2 id="frontier">Trade-off: location against the other columns</h2>'
            f"<p>Releases of the same table at {len(points)} settings of <code>location_precision</code> (0: the other "
            "columns first, 1: the location first). Each is reproduced by giving its setting; the release written "
            f"is the one at {html.escape(f'{chosen:g}')} (ringed).</p>" + figure
            + "<table><tr><th>location_precision</th><th>median km</th><th>p90 km</th><th>max km</th>"
            + ("<th>mean km</th>" if groups else "") + "<th>other columns' NCP</th><th>NCP</th><th>classes</th></tr>"
            + rows + "</table>")


def km_axis(points: list) -> str:
    """The frontier's km axis: ``"mean_km"`` for groups of regions (their
    points carry it), else ``"median_km"``."""
    return "mean_km" if points and all("mean_km" in p for p in points) else "median_km"


def _row(p: dict, chosen: bool, groups: bool) -> str:
    cells = [f"{p['location_precision']:g}", _km(p["median_km"]), _km(p["p90_km"]), _km(p.get("max_km")),
             *([_km(p["mean_km"])] if groups else []), _ncp(p["other_ncp"]), _ncp(p["ncp"]), f"{p['classes']:,}"]
    mark = ' class="chosen"' if chosen else ""
    return f"<tr{mark}>" + "".join(f'<td class="n">{c}</td>' for c in cells) + "</tr>"


def _plot(points: list, chosen: float, axis: str) -> str:
    import matplotlib
    from matplotlib.figure import Figure

    from .svg import SVG_STYLE, svg_text

    with matplotlib.rc_context(SVG_STYLE):
        fig = Figure(figsize=(7.0, 3.2))
        ax = fig.subplots()
        x = [max(p[axis], 1e-3) for p in points]
        y = [p["other_ncp"] for p in points]
        ax.plot(x, y, color="#4c78a8", marker="o", markersize=4, linewidth=1)
        for p, xi, yi in zip(points, x, y):
            ax.annotate(f"{p['location_precision']:g}", (xi, yi), textcoords="offset points", xytext=(4, 4), fontsize=8)
            if p["location_precision"] == chosen:
                ax.plot([xi], [yi], marker="o", markersize=11, markerfacecolor="none", color="#cf222e")
        ax.set_xscale("log")
        ax.set_xlabel("mean group diameter per record (km)" if axis == "mean_km"
                      else "median diameter of the published box (km)")
        ax.set_ylabel("other columns' mean NCP")
        return svg_text(fig)


def _km(v) -> str:
    return "" if v is None else ("∞" if v == float("inf") else f"{v:,.1f}")


def _ncp(v) -> str:
    return "" if v is None else f"{v:.4f}"
