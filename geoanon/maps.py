"""Map previews of equivalence classes (folium), self-contained and offline.

A preview draws the generalized classes, never the records: one shape per
class, filled by how full the class is relative to k, with its size in a
tooltip. Leaflet's JavaScript and CSS come from the ``django-js-lib-leaflet``
distribution and are inlined, so the HTML file opens on a machine with no
network; base tiles are off unless asked for. Every string placed in the page
is HTML-escaped, and element ids are numbered deterministically, so the same
classes give the same file.
"""
from __future__ import annotations

import base64
import html
import importlib.resources
import re
from functools import lru_cache

import numpy as np
from branca.element import MacroElement
from jinja2 import Template

from .errors import ParameterError

MAX_MAP_CLASSES = 100_000
# Fill colors by class size / k: at k, up to 10% over, 50% over, 2x, more.
SIZE_BINS = (1.0, 1.1, 1.5, 2.0)
SIZE_COLORS = ("#1a9850", "#91cf60", "#fee08b", "#fc8d59", "#d73027")


class _Attribution(MacroElement):
    """Adds an (escaped) line to Leaflet's attribution control."""

    _template = Template(
        "{% macro script(this, kwargs) %}"
        "{{ this._parent.get_name() }}.attributionControl.addAttribution({{ this.text|tojson }});"
        "{% endmacro %}")

    def __init__(self, text: str):
        super().__init__()
        self._name = "Attribution"
        self.text = html.escape(text)


@lru_cache(maxsize=1)
def leaflet_assets() -> tuple[str, str]:
    """Leaflet's (JavaScript, CSS) from the installed distribution, with the
    stylesheet's images inlined as data URIs."""
    base = importlib.resources.files("js_lib_leaflet") / "static" / "js_lib_leaflet"
    js = (base / "leaflet.js").read_text(encoding="utf-8")
    css = (base / "leaflet.css").read_text(encoding="utf-8")

    def inline(match):
        data = base64.b64encode((base / match.group(1)).read_bytes()).decode("ascii")
        return f"url(data:image/png;base64,{data})"

    css = re.sub(r"url\((images/[\w.-]+\.png)\)", inline, css)
    return js.replace("</script", "<\\/script"), css.replace("</style", "<\\/style")


def offline_map(bounds, *, tiles=None, attribution=None):
    """An empty folium map fitted to ``bounds`` = (xmin, ymin, xmax, ymax), with
    Leaflet inlined and, by default, no base tiles."""
    import folium

    m = folium.Map(tiles=None, control_scale=True, prefer_canvas=False)
    m.default_js = []
    m.default_css = []
    js, css = leaflet_assets()
    header = m.get_root().header
    header.add_child(folium.Element(f"<style>{css}</style>"), name="leaflet_css")
    header.add_child(folium.Element(f"<script>{js}</script>"), name="leaflet_js")
    if tiles:
        folium.TileLayer(tiles).add_to(m)
    if attribution:
        _Attribution(attribution).add_to(m)
    xmin, ymin, xmax, ymax = (float(v) for v in bounds)
    m.fit_bounds([[ymin, xmin], [ymax, xmax]])
    return m


def class_map(classes, k: int, *, title=None, tiles=None, attribution=None, notes=()):
    """A folium map of equivalence classes.

    Parameters
    ----------
    classes : GeoDataFrame
        One row per class with ``class_id`` and ``weight`` (records), optionally
        ``label`` and ``regions`` (shown in the tooltip), geometry in EPSG:4326
        or a CRS that converts to it.
    k : int
        The anonymity level, for coloring and the legend.
    title : str, optional
        Shown above the legend (escaped).
    tiles : str, optional
        A folium tile layer name or URL (needs network when viewed).
    attribution : str, optional
        Data attribution shown on the map (escaped).
    notes : sequence of str
        Extra legend lines (escaped), e.g. about suppressed records.
    """
    import folium

    if len(classes) > MAX_MAP_CLASSES:
        raise ParameterError(f"a map preview draws at most {MAX_MAP_CLASSES} classes, got {len(classes)}; "
                             "raise k or preview a subset")
    extra = [c for c in ("label", "regions") if c in classes.columns]
    gdf = classes[["class_id", "weight", *extra, classes.geometry.name]].copy()
    if gdf.crs is not None and not gdf.crs.equals("EPSG:4326"):
        gdf = gdf.to_crs("EPSG:4326")
    ratio = gdf["weight"].to_numpy() / k
    gdf["class_id"] = gdf["class_id"].astype(int)
    gdf["records"] = gdf["weight"].astype(int)
    if "label" in extra:   # the tooltip shows values as HTML
        gdf["label"] = [html.escape(str(v)) for v in gdf["label"]]
    gdf["fill"] = np.array(SIZE_COLORS)[np.searchsorted(SIZE_BINS, ratio, side="left")]
    fields = ["class_id", *extra, "records"]
    gdf = gdf[[*fields, "fill", gdf.geometry.name]]

    m = offline_map(gdf.total_bounds, tiles=tiles, attribution=attribution)
    folium.GeoJson(
        gdf,
        name="classes",
        style_function=lambda f: {"fillColor": f["properties"]["fill"], "color": "#333333",
                                  "weight": 1, "fillOpacity": 0.55},
        highlight_function=lambda f: {"weight": 3, "fillOpacity": 0.8},
        tooltip=folium.GeoJsonTooltip(fields=fields, aliases=[f.replace("_id", "") for f in fields]),
    ).add_to(m)
    m.get_root().html.add_child(folium.Element(_legend(k, len(gdf), title, notes)))
    return m


def _legend(k: int, n_classes: int, title, notes) -> str:
    edges = [f"{lo:g}&ndash;{hi:g}&times;k" for lo, hi in zip(SIZE_BINS[:-1], SIZE_BINS[1:])]
    labels = ["exactly k"] + edges + [f"over {SIZE_BINS[-1]:g}&times;k"]
    rows = "".join(f'<div><span style="display:inline-block;width:12px;height:12px;background:{c};'
                   f'border:1px solid #333;margin-right:4px"></span>{lab}</div>'
                   for c, lab in zip(SIZE_COLORS, labels))
    head = f"<b>{html.escape(title)}</b><br>" if title else ""
    extra = "".join(f"<div>{html.escape(n)}</div>" for n in notes)
    return (f'<div class="geoanon-legend" style="position:fixed;top:10px;right:10px;z-index:1000;'
            f'background:white;padding:6px 8px;font:12px sans-serif;border:1px solid #999">'
            f"{head}{n_classes} classes, k = {int(k)}<br>{rows}{extra}</div>")


def render_html(m) -> str:
    """The map as one HTML document, with element ids numbered deterministically."""
    _number_elements(m.get_root())
    return m.get_root().render()


def _number_elements(root) -> None:
    counter = 0
    stack = [root]
    while stack:
        element = stack.pop(0)
        element._id = f"{counter:04d}"
        counter += 1
        stack.extend(getattr(element, "_children", {}).values())
