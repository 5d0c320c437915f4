"""The release report as one self-contained HTML page: no script but the
map's, nothing fetched, figures inlined as SVG (matplotlib), the map (itself
offline) in an iframe's ``srcdoc``. Every string from the user's data or paths
is escaped."""
from __future__ import annotations

import html

import numpy as np

from ..criteria import CRITERIA
from .figures import RISK_LEVELS, SPREAD
from .frontier import frontier_section
from .svg import SVG_STYLE, svg_text
from .job_report import file_names

__all__ = ["html_report", "unit_phrases"]

TREATMENTS = {"interval": "range: {published}", "longitude": "range: {published} (may cross the antimeridian)",
              "date": "date range: {published}",
              "set": "group of values", "suppress": "value or *", "hierarchy": "hierarchy node",
              "kept": "kept as is", "class": "the record's class"}
STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2328;
       max-width: 60rem; margin: 2rem auto; padding: 0 1rem; }
h1 { font-size: 1.5rem; margin-bottom: .2rem; } h2 { font-size: 1.15rem; margin-top: 2rem;
     border-bottom: 1px solid #d0d7de; padding-bottom: .2rem; }
.sub { color: #59636e; margin-top: 0; }
.cards { display: flex; flex-wrap: wrap; gap: .6rem; margin: 1rem 0; }
.card { border: 1px solid #d0d7de; border-radius: 6px; padding: .5rem .8rem; min-width: 7rem; }
.card b { display: block; font-size: 1.25rem; }
table { border-collapse: collapse; margin: .5rem 0; } th, td { padding: .25rem .7rem; text-align: left;
        border-bottom: 1px solid #eaeef2; } td.n { text-align: right; font-variant-numeric: tabular-nums; }
.ok { color: #1a7f37; font-weight: 600; } .bad { color: #cf222e; font-weight: 600; }
figure { margin: .5rem 0; } figure svg { max-width: 100%; height: auto; }
iframe { width: 100%; height: 34rem; border: 1px solid #d0d7de; border-radius: 6px; }
code { font-size: .9em; }
"""


def html_report(release, figures: dict, *, map_html: str | None = None, title: str | None = None,
                timings: bool = False) -> str:
    """The page for ``release`` and its :func:`~geoanon.report.figures.release_figures`;
    ``map_html`` (a rendered class map) is embedded when given; ``timings``
    adds the run time (off: the same release gives the same page)."""
    r = release.report
    e = html.escape
    names = file_names(r.files)
    name = title or names.get("input") or r.job
    took = f", {r.seconds:.1f} s" if timings else ""
    parts = [f"<h1>Release report: {e(str(name))}</h1>",
             f'<p class="sub">geoanon {e(_version())}, {e(r.job)} job{took}. '
             "This page holds no record: only counts, measures and the classes' generalized areas.</p>",
             _cards(r, figures), _model_section(r), _columns_section(figures["published"], r.details.get("units")),
             _sizes_section(figures["class_sizes"], r.model.get("k")), _risk_section(figures["risk"])]
    if figures.get("precision_km") is not None:
        parts.append(_precision_section(figures["precision_km"]))
    if r.details.get("frontier"):
        parts.append(frontier_section(r.details["frontier"]))
    if map_html is not None:
        parts.append('<h2 id="map">Map of the classes</h2>'
                     f"<iframe title=\"map of the classes\" srcdoc='{_single_quoted(map_html)}'></iframe>")
    notes = [*release.notes, *release.warnings]
    if notes:
        parts.append("<h2>Notes</h2><ul>" + "".join(f"<li>{e(' '.join(str(n).split()))}</li>" for n in notes)
                     + "</ul>")
    files = {key: v for key, v in names.items() if v}
    if files:
        parts.append("<h2>Files</h2><table>" + "".join(f"<tr><th>{e(key)}</th><td><code>{e(str(v))}</code></td></tr>"
                                                        for key, v in files.items()) + "</table>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{e(str(name))}: geoanon release report</title><style>{STYLE}</style></head>\n<body>\n"
            + "\n".join(parts) + "\n</body></html>\n")


def _cards(r, figures) -> str:
    ncp = r.details.get("ncp", {}).get("overall")
    items = [("rows", f"{r.rows:,}"), ("classes", f"{r.classes:,}"), ("smallest class", f"{r.min_class:,}"),
             ("largest class", f"{r.max_class:,}"), ("highest risk", f"{figures['risk']['max']:.1%}")]
    if ncp is not None:
        items.append(("information loss (NCP)", f"{ncp:.3f}"))
    return '<div class="cards">' + "".join(f'<div class="card"><b>{v}</b>{k}</div>' for k, v in items) + "</div>"


def _model_section(r) -> str:
    a = r.audit
    rows = []
    for name, criterion in CRITERIA.items():
        better, asked = criterion.wording, r.model.get(name)
        if asked is None and not (name != "k" and a.get("sensitive")):
            continue
        measured = a.get(name)
        if name == "recursive":
            if measured is None and asked is None:
                continue
            better, asked = f"c {better}", None if asked is None else f"{_number(asked[0])} at l = {asked[1]}"
            measured = None if measured is None else measured["c"]
        v = a.get("violations", {}).get(name)
        if asked is None:
            status = '<span class="sub">not requested</span>'
        elif v and v["classes"]:
            status = f'<span class="bad">violated by {v["classes"]:,} classes ({v["rows"]:,} rows)</span>'
        else:
            status = '<span class="ok">met</span>'
        shown = asked if isinstance(asked, str) else _number(asked)
        rows.append(f"<tr><th>{name}</th><td>{'' if asked is None else f'{better} {shown}'}</td>"
                    f"<td class=\"n\">{_number(measured)}</td><td>{status}</td></tr>")
    for key, what, tells in (("homogeneous", "records in classes of one sensitive value (l = 1)", "their value"),
                             ("far_from_table", "records in classes far from the table's values (t &gt; {t})",
                              "much about their value")):
        told = a.get(key)
        if told is not None:
            flag = f'<span class="bad">their class tells {tells}</span>' if told["records"] else ""
            rows.append(f"<tr><th>{what.format(t=told.get('t'))}</th><td></td>"
                        f"<td class=\"n\">{told['records']:,} ({told['share']:.1%})</td><td>{flag}</td></tr>")
    sensitive = a.get("sensitive")
    head = ("<p>Audited over every published quasi-identifier column together"
            + (f", sensitive column <code>{html.escape(str(sensitive))}</code>" if sensitive else "") + ".</p>")
    return ('<h2 id="model">Privacy model</h2>' + head + "<table><tr><th>measure</th><th>requested</th>"
            "<th>measured</th><th></th></tr>" + "".join(rows) + "</table>")


def _columns_section(columns: list, units: dict | None) -> str:
    e = html.escape
    phrases, location = unit_phrases(units or {})
    rows = []
    for c in columns:
        published = ", ".join(f"<code>{e(str(p))}</code>" for p in c["published"])
        how = TREATMENTS[c["treatment"]].format(published=published)
        ncp = ("" if c["ncp"] is None else f"{c['ncp']:.4f}") + (f"; km {c['km_loss']:.4f}" if "km_loss" in c else "")
        plain = phrases.get(c["column"], "")
        if c["role"] == "location" and location is not None:
            plain, location = location, None            # the location's extent, once, on its first column
        rows.append(f"<tr><td><code>{e(str(c['column']))}</code></td><td>{e(c['role'])}</td><td>{how}</td>"
                    f"<td class=\"n\">{ncp}</td><td>{e(plain)}</td></tr>")
    return ('<h2 id="columns">Columns</h2><p>Information loss: 0 when a cell is '
            "published as it is, 1 when it says nothing (<code>*</code>, or the whole range); an interval "
            "costs its width, within the column's range, over that range (Xu et al.'s NCP, 2006), a set or "
            "hierarchy node covering c of the column's |A| values (c - 1) / (|A| - 1) (Iyengar's loss metric, "
            "2002; the JSON report gives Xu et al.'s c / |A| beside it as <code>xu_ncp</code>). In plain units "
            "(<code>units</code>): the published width of an interval (max - min, in the column's unit; median "
            "and p90 over the rows that publish both ends, open intervals such as 90+ counted apart), the share "
            "of a category's cells published as the record's own value, and the location's box diagonal or "
            "group diameter (the diagonal of the box of the centroids of its regions that hold records) in km. "
            "A group of ZIP codes also shows its km loss, log(1 + D / u) / log(1 + F / u) of its diameter D km "
            "(F the records' area's, u the spacing of neighbouring regions): 1 for the whole area, the same step "
            "for every tenfold of width.</p>"
            "<table><tr><th>column</th><th>role</th><th>published as</th><th>NCP</th><th>in plain units</th></tr>"
            + "".join(rows) + "</table>")


def unit_phrases(units: dict) -> tuple[dict, str | None]:
    """A release's loss in plain units (:func:`geoanon.ncp.plain_units`) in
    words: {column: phrase}, and the location's phrase (None without one).

    Examples
    --------
    >>> unit_phrases({"columns": {"age": {"median_width": 9.0, "p90_width": 19.0, "unit": None, "open": 0.05,
    ...                                   "suppressed": 0.0}, "sex": {"exact": 0.75}},
    ...               "location": {"measure": "box diagonal", "median_km": 1.234, "p90_km": 12.5, "without": 0.0}})
    ({'age': 'median width 9, p90 19, 5.0% open', 'sex': '75.0% exact'}, 'box diagonal median 1.23 km, p90 12.5 km')
    """
    phrases = {}
    for col, u in units.get("columns", {}).items():
        if "exact" in u:
            phrases[col] = f"{u['exact']:.1%} exact"
            continue
        unit = f" {u['unit']}" if u["unit"] else ""
        text = ("no closed interval" if u["median_width"] is None else
                f"median width {_width(u['median_width'])}{unit}, p90 {_width(u['p90_width'])}{unit}")
        phrases[col] = text + "".join(f", {u[share]:.1%} {share}" for share in ("open", "suppressed") if u[share])
    loc = units.get("location")
    if loc is None:
        return phrases, None
    text = (f"{loc['measure']} median {_km(loc['median_km'])} km, p90 {_km(loc['p90_km'])} km"
            + (f", max {_km(loc['max_km'])} km" if loc.get("max_km") is not None else "")
            if loc["median_km"] is not None else "no location published")
    text += f", {loc['without']:.1%} without" if loc["without"] else ""
    return phrases, text + (f", {loc['exact']:.1%} exact" if "exact" in loc else "")


def _sizes_section(hist: dict, k) -> str:
    edges, classes = np.asarray(hist["edges"], dtype=float), np.asarray(hist["classes"])
    if edges.size == 0:
        return '<h2 id="sizes">Class sizes</h2><p>No classes.</p>'
    unit = bool(np.all(np.diff(edges) == 1))
    svg = _histogram_svg(edges - 0.5 if unit else edges, classes, "records in the class", "classes",
                         log_x=not unit, mark=k)
    return ('<h2 id="sizes">Class sizes</h2><p>How many classes hold each number of records'
            + ("" if k is None else f"; the dashed line is the requested k = {k}") + ".</p>"
            f"<figure>{svg}</figure>")


def _risk_section(risk: dict) -> str:
    rows = [f"<tr><th>highest (1 / smallest class)</th><td class=\"n\">{risk['max']:.2%}</td></tr>",
            f"<tr><th>average over records (classes / rows), also the marketer risk</th>"
            f"<td class=\"n\">{risk['mean']:.2%}</td></tr>"]
    rows += [f"<tr><th>records above {level:.0%}</th><td class=\"n\">{risk['records_above'][str(level)]:.1%}</td></tr>"
             for level in RISK_LEVELS]
    return ('<h2 id="risk">Re-identification risk</h2><p>Prosecutor risk: an attacker who knows that a person is in '
            "the table and knows their quasi-identifiers picks their record out of its class with probability "
            "1 / (class size). Marketer risk: the share of records an attacker matching every record is expected "
            "to re-identify. Journalist risk needs the population the table was drawn from: "
            "<code>geoanon.audit(..., population=)</code>.</p><table>" + "".join(rows) + "</table>")


def _precision_section(p: dict) -> str:
    hist = p["histogram"]
    svg = _histogram_svg(np.asarray(hist["edges"]), np.asarray(hist["records"]), "diameter of the published area (km)",
                         "records", log_x=True) if hist["edges"] else ""
    what = "rectangle" if p["measure"] == "rectangle" else "group of regions"
    rows = "".join(f"<tr><th>{name}</th>" + "".join(f'<td class="n">{_km(p[name][q])}</td>' for q in (*SPREAD, "mean"))
                   + "</tr>" for name in ("width", "height", "diameter"))
    without = f" {p['without']:,} records have no location (suppressed or unknown)." if p["without"] else ""
    return ('<h2 id="precision">Location precision</h2>'
            f"<p>Each record's location is published as the {what} of its class: this is how precisely a user of "
            f"the data knows where a record is, over {p['records']:,} records.{without}</p>"
            f"<figure>{svg}</figure><table><tr><th>km</th>"
            + "".join(f"<th>{q}</th>" for q in (*SPREAD, "mean")) + "</tr>" + rows + "</table>")


def _histogram_svg(edges: np.ndarray, counts: np.ndarray, xlabel: str, ylabel: str, *, log_x: bool,
                   mark=None) -> str:
    """A step histogram as inline SVG, the same bytes for the same input."""
    import matplotlib
    from matplotlib.figure import Figure
    from matplotlib.ticker import MaxNLocator

    with matplotlib.rc_context(SVG_STYLE):
        fig = Figure(figsize=(7.0, 2.6))
        ax = fig.subplots()
        ax.stairs(counts, edges, fill=True, color="#4c78a8", alpha=0.85)
        if log_x:
            ax.set_xscale("log")
        else:
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if mark is not None:
            ax.axvline(mark, color="#cf222e", linestyle="--", linewidth=1)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        return svg_text(fig)




def _single_quoted(text: str) -> str:
    """``text`` as the value of a single-quoted attribute: ``&`` and ``'``
    escaped, the rest as it is (a map's JSON is full of double quotes, which
    ``&quot;`` would make 6 bytes each)."""
    return text.replace("&", "&amp;").replace("'", "&#39;")


def _number(v) -> str:
    if v is None:
        return ""
    if isinstance(v, (int, np.integer)):
        return f"{int(v):,}"
    return f"{float(v):.4g}"


def _width(v: float) -> str:
    return f"{int(v):,}" if float(v).is_integer() and abs(v) < 1e15 else f"{v:,.4g}"


def _km(v) -> str:
    return "" if v is None else f"{v:,.1f}" if v >= 10 else f"{v:.2f}"


def _version() -> str:
    from .._version import __version__

    return __version__
