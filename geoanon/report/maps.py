"""Map previews of equivalence classes (folium), self-contained and offline.

A preview draws the generalized classes, never the records: one shape per
class on a canvas, filled by a colour scale the viewer switches in the legend
(width in km, records / k, or neighbours apart), with the class's published
values and size in a popup; classes without a shape (suppressed or unknown
locations) are counted in the legend, which names the shapes for the
location kind (:func:`shapes_named`). The largest shapes are drawn first
(:mod:`.stacking`), and place names label the view (:mod:`.places`). Leaflet's JavaScript and CSS come from
the ``django-js-lib-leaflet`` distribution and are inlined, so the HTML file
opens on a machine with no network; base tiles are off unless asked for
(:func:`check_tiles` vets them before any work). Every string placed in the
page is HTML-escaped, and element ids are numbered deterministically, so the
same classes give the same file.
Classes across the antimeridian are drawn whole: when the shapes' largest
longitude gap is not the one across ±180°, everything east of the
antimeridian is drawn 360° further east (Leaflet takes longitudes beyond 180).
"""
from __future__ import annotations

import base64
import html
import importlib.resources
import json
import re
from functools import lru_cache

import numpy as np
import pandas as pd
from branca.element import MacroElement
from jinja2 import Template

from .._geo import ground
from .._text import plural, show
from .._validation import check_choice
from ..datasets import OUTLINE_ATTRIBUTION, PLACES_ATTRIBUTION
from ..errors import ParameterError
from .places import PLACE_STYLE, PlaceLayer, near_places
from .stacking import FILL_OPACITY, drawing_order, faded_fills, one_per_shape, overlap_notes, overlapping, touching

__all__ = ["check_tiles", "class_map", "lonlat_shapes", "render_html", "shapes_named"]

MAX_MAP_CLASSES = 100_000
DIGITS = 6             # decimals kept of the drawn coordinates (about 0.1 m)
PIXELS = 1200          # a map's width in pixels: shapes and outlines are simplified to its span / PIXELS
ZOOM_SNAP = 0.25       # fitted to the classes in quarter zoom levels, so they fill the view
WORLD = (-180.0, -60.0, 180.0, 75.0)    # the view when no class has a shape
THIN_FROM = 2_000      # classes from which their edges are drawn half as wide (dense maps stay readable)
# Colour scales, in the legend's order: the class's width in km (fine to
# coarse, see width_cuts), records / k, neighbouring classes apart.
COLOR_BY = ("precision", "size", "neighbours")
COLOR_NAMES = {"precision": "width", "size": "records / k", "neighbours": "neighbours"}
PRECISION_COLORS = ("#fef0d9", "#fdcc8a", "#fc8d59", "#e34a33", "#b30000")
# Fill colors by class size / k: at k, up to 10% over, 50% over, 2x, more.
SIZE_BINS = (1.0, 1.1, 1.5, 2.0)
SIZE_COLORS = ("#1a9850", "#91cf60", "#fee08b", "#fc8d59", "#d73027")
FORCED_COLOR = "#9e9e9e"       # a group that is one region already above k: no choice, no alarm
# Distinct fills for neighbouring classes (ColorBrewer's Set2 and Dark2 hues).
NEIGHBOUR_COLORS = ("#66c2a5", "#fc8d62", "#8da0cb", "#e78ac3", "#a6d854", "#ffd92f", "#e5c494", "#1b9e77",
                    "#d95f02", "#7570b3")
# What a class's popup shows: column, heading, unit.
POPUP = (("class_id", "class", ""), ("label", "published", ""), ("regions", "regions", ""),
         ("classes", "classes", ""), ("records", "records", ""), ("km", "width", " km"))
# Context lines: Natural Earth coastlines, country and US state borders.
OUTLINE_STYLES = {"coast": {"color": "#3b6e8f", "weight": 1.2, "opacity": 0.9},
                  "country": {"color": "#444444", "weight": 1.2, "opacity": 0.9, "dashArray": "4 3"},
                  "state": {"color": "#777777", "weight": 0.8, "opacity": 0.8, "dashArray": "2 3"}}
OUTLINE_MARGIN = 0.5      # outlines drawn this far around the classes, in spans (the view is wider than the fit)


class _ClassLayer(MacroElement):
    """The classes as one GeoJSON layer built, styled and explained in the
    browser: the page holds the geometries, one array per popup field and,
    per colour scale, a palette and each class's index in it; the legend's
    radio buttons (``name="geoanon-colour"``) switch the scale. Python does
    no per-feature work. The data is HTML-safe JSON (``<``, ``>`` and ``&``
    escaped), its string values already HTML-escaped for the popup."""

    _template = Template("""{% macro script(this, kwargs) %}
var {{ this.get_name() }} = (function (shapes, values, fields, scales, faded) {
  var picked = document.querySelector('input[name="geoanon-colour"]:checked');
  var scale = picked ? picked.value : {{ this.scale|tojson }};
  var features = shapes.map(function (geometry, i) {
    return {type: "Feature", geometry: geometry, properties: {i: i}};
  });
  var layer = L.geoJSON({type: "FeatureCollection", features: features}, {
    style: function (f) {
      var s = scales[scale];
      return {fillColor: s.colors[s.index[f.properties.i]], color: "#333333", weight: {{ this.weight }},
              fillOpacity: f.properties.i in faded ? faded[f.properties.i] : {{ this.opacity }}};
    }
  });
  layer.bindPopup(function (shape) {
    var i = shape.feature.properties.i;
    return fields.map(function (f) {
      return "<b>" + f[1] + "</b> " + values[f[0]][i] + f[2];
    }).join("<br>");
  }, {maxWidth: 360});
  layer.on("mouseover", function (e) { e.layer.setStyle({weight: 3}); });
  layer.on("mouseout", function (e) { layer.resetStyle(e.layer); });
  function show() {
    document.querySelectorAll(".geoanon-legend [data-scale]").forEach(function (rows) {
      rows.style.display = rows.getAttribute("data-scale") === scale ? "" : "none";
    });
  }
  document.querySelectorAll('input[name="geoanon-colour"]').forEach(function (input) {
    input.addEventListener("change", function () { scale = input.value; layer.resetStyle(); show(); });
  });
  show();
  document.body.setAttribute("data-classes-drawn", features.length);
  return layer;
})({{ this.shapes }}, {{ this.values }}, {{ this.fields }}, {{ this.scales }}, {{ this.faded }}).addTo({{ this._parent.get_name() }});
{% endmacro %}""")

    def __init__(self, geoms, values: dict, fields: list, scales: dict, scale: str, weight: float, faded: dict):
        import shapely

        super().__init__()
        self._name = "Classes"
        self.shapes = _script_json("[" + ",".join(shapely.to_geojson(geoms).tolist()) + "]")
        self.values = _script_json(json.dumps(values, separators=(",", ":")))
        self.fields = _script_json(json.dumps(fields))
        self.scales = _script_json(json.dumps(scales, separators=(",", ":")))
        self.faded = json.dumps(faded, separators=(",", ":"))
        self.scale, self.weight, self.opacity = scale, weight, FILL_OPACITY


class _OutlineLayer(MacroElement):
    """Coastlines and borders (:func:`geoanon.datasets.outlines`) for context
    without tiles: thin lines over the classes that take no mouse events."""

    _template = Template("""{% macro script(this, kwargs) %}
L.geoJSON({{ this.data }}, {
  interactive: false,
  style: function (f) { return {{ this.styles }}[f.properties.kind]; }
}).addTo({{ this._parent.get_name() }});
{% endmacro %}""")

    def __init__(self, features: str):
        super().__init__()
        self._name = "Outlines"
        self.data = _script_json(features)
        self.styles = json.dumps(OUTLINE_STYLES)


def outline_features(bounds) -> str | None:
    """The outlines near ``bounds`` (xmin, ymin, xmax, ymax in degrees; xmax
    may pass 180 where the classes were unwrapped across the antimeridian) as
    a GeoJSON FeatureCollection, one MultiLineString per kind, simplified to
    about a pixel of a map of that extent; None when none is near."""
    import shapely

    xmin, ymin, xmax, ymax = context_box(bounds)
    span = max(float(bounds[2]) - float(bounds[0]), float(bounds[3]) - float(bounds[1]), 0.01)
    geoms, kinds = _outline_lines()
    pieces = [shapely.clip_by_rect(geoms, max(xmin, -180.0), ymin, min(xmax, 180.0), ymax)]
    if xmax > 180:       # drawn east of the antimeridian: the western lines, 360 degrees east
        east = shapely.clip_by_rect(geoms, -180.0, ymin, xmax - 360.0, ymax)
        pieces.append(shapely.transform(east, lambda c: c + np.array([360.0, 0.0])))
    tolerance = span / PIXELS
    digits = int(np.clip(np.ceil(-np.log10(tolerance)), 1, 4))    # a tenth of a pixel or finer
    features = []
    for kind in OUTLINE_STYLES:
        mine = kinds == kind
        parts = shapely.get_parts(np.concatenate([p[mine] for p in pieces]))
        parts = parts[~shapely.is_empty(parts)]
        if parts.size == 0:
            continue
        # each line on its own: a multi-line's topology check makes the world's coasts 10x slower
        merged = shapely.multilinestrings(shapely.simplify(parts, tolerance))
        merged = shapely.transform(merged, lambda c: np.round(c, digits))
        features.append(f'{{"type":"Feature","properties":{{"kind":"{kind}"}},"geometry":{shapely.to_geojson(merged)}}}')
    if not features:
        return None
    return '{"type":"FeatureCollection","features":[' + ",".join(features) + "]}"


def context_box(bounds) -> tuple:
    """The box around ``bounds`` (xmin, ymin, xmax, ymax in degrees) whose
    outlines and places a map draws: ``OUTLINE_MARGIN`` spans and half a
    degree wider on every side (the view is wider than the classes)."""
    xmin, ymin, xmax, ymax = (float(v) for v in bounds)
    margin = max(xmax - xmin, ymax - ymin, 0.01) * OUTLINE_MARGIN + 0.5
    return xmin - margin, max(ymin - margin, -90.0), xmax + margin, min(ymax + margin, 90.0)


@lru_cache(maxsize=1)
def _outline_lines() -> tuple:
    """The shipped outlines as (lines, kinds) arrays, decoded once per process."""
    from ..datasets import outlines

    lines = outlines()
    return lines.geometry.to_numpy(), lines["kind"].to_numpy()


def _script_json(text: str) -> str:
    """JSON text made safe inside a <script> element."""
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


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


def check_tiles(tiles, attribution=None) -> None:
    """ParameterError unless ``tiles`` can be drawn: None or "" (no tiles), a tile provider name
    known to xyzservices (``"OpenStreetMap"``, ``"OpenTopoMap"``, ...) that
    needs no API key, or an http(s) URL template with ``{z}``, ``{x}`` and ``{y}``
    together with its ``attribution`` (the credit line its provider asks for)."""
    import xyzservices

    if tiles is None or tiles == "":
        return
    if attribution is not None and not isinstance(attribution, str):
        raise ParameterError(f"the tiles' attribution must be text, got {show(attribution)}")
    if isinstance(tiles, str) and "{" not in tiles and "://" not in tiles:
        try:
            tiles = xyzservices.providers.query_name("OpenStreetMap Mapnik" if tiles.lower() == "openstreetmap"
                                                     else tiles)
        except ValueError:
            raise ParameterError(f"unknown tiles {show(tiles)}: give a name such as 'OpenStreetMap' or "
                                 "'OpenTopoMap', or a URL such as https://tile.example.org/{z}/{x}/{y}.png"
                                 ) from None
    if isinstance(tiles, xyzservices.TileProvider):
        if tiles.requires_token():
            raise ParameterError(f"tiles {show(tiles.name)} need an API key: give their URL with the key in it, "
                                 "and their attribution")
        return
    if not isinstance(tiles, str):
        raise ParameterError(f"tiles must be a name or a URL, got {show(tiles)}")
    if not tiles.startswith(("https://", "http://")):
        raise ParameterError(f"tiles URL {show(tiles)} must start with https:// or http://")
    if "{z}" not in tiles or "{x}" not in tiles or ("{y}" not in tiles and "{-y}" not in tiles):
        raise ParameterError(f"tiles URL {show(tiles)} must hold the placeholders {{z}}, {{x}} and {{y}}")
    if not (attribution or "").strip():
        raise ParameterError(f"tiles URL {show(tiles)} needs an attribution: the credit line its provider "
                             "asks for")


def offline_map(bounds, *, tiles=None, attribution=None, tiles_attribution=None, canvas=False):
    """An empty folium map fitted to ``bounds`` = (xmin, ymin, xmax, ymax), with
    Leaflet inlined and, by default, no base tiles; ``tiles_attribution``
    (escaped) credits the tiles (required for a URL, see :func:`check_tiles`);
    ``canvas``: shapes drawn on a canvas rather than as SVG. The view is
    fitted in steps of ``ZOOM_SNAP`` zoom levels."""
    import folium

    m = folium.Map(tiles=None, control_scale=True, prefer_canvas=canvas, zoom_snap=ZOOM_SNAP)
    m.default_js = []
    m.default_css = []
    js, css = leaflet_assets()
    header = m.get_root().header
    header.add_child(folium.Element(f"<style>{css}</style>"), name="leaflet_css")
    header.add_child(folium.Element(f"<script>{js}</script>"), name="leaflet_js")
    if tiles:
        check_tiles(tiles, tiles_attribution)
        folium.TileLayer(tiles, attr=None if tiles_attribution is None else html.escape(tiles_attribution)).add_to(m)
    if attribution:
        _Attribution(attribution).add_to(m)
    xmin, ymin, xmax, ymax = (float(v) for v in bounds)
    m.fit_bounds([[ymin, xmin], [ymax, xmax]])
    return m


def class_map(classes, k: int, *, title=None, tiles=None, attribution=None, tiles_attribution=None, notes=(),
              color_by="precision", outlines=True, places=True, shapes="classes", release_classes=None):
    """A folium map of equivalence classes.

    Parameters
    ----------
    classes : GeoDataFrame
        One row per class with ``class_id`` and ``weight`` (records),
        optionally ``label`` (its published values), ``regions`` and
        ``classes`` (shown in its popup), geometry in EPSG:4326 or a CRS that
        converts to it. Classes without geometry (suppressed or unknown
        locations) are not drawn; the legend counts their records.
    k : int
        The anonymity level, for coloring and the legend.
    title : str, optional
        Shown above the legend (escaped).
    tiles : str, optional
        A tile provider name or URL template (needs network when viewed; see
        :func:`check_tiles`).
    attribution : str, optional
        Data attribution shown on the map (escaped).
    tiles_attribution : str, optional
        The tiles' credit line (escaped); required for a URL.
    notes : sequence of str
        Extra legend lines (escaped), e.g. about suppressed records.
    color_by : {"precision", "size", "neighbours"}
        The colour scale shown first; the legend switches between all three.
        ``"precision"``: the class's width in km (the diagonal of its box;
        :func:`width_cuts`); ``"size"``: records / k, where a group that is one region
        already above k is grey, not an alarm; ``"neighbours"``: classes that
        touch get different fills (a greedy colouring of their adjacency).
    outlines : bool
        Draw coastlines, country and US state borders (Natural Earth, shipped,
        offline) over the classes, for context without tiles.
    places : bool
        Label the places near the classes (Natural Earth populated places,
        shipped, offline; :mod:`geoanon.report.places`), largest first and
        spaced for the view, in a layer the legend switches off.
    shapes : str
        What the legend calls the shapes (:func:`shapes_named`).
    release_classes : int, optional
        The release's classes, where the shapes are location classes holding
        several of them (the joint release): the legend gives both counts.

    The shapes are drawn on a canvas (SVG tiles of a map filled with classes
    outgrow Chromium's tile memory and draw as a strip), largest first
    (:func:`~.stacking.drawing_order`: a small class is never hidden under a larger one,
    and a click on it reaches it), simplified to about a pixel of the fitted
    view; drawn coordinates keep ``DIGITS`` decimals. Where shapes overlap
    (boxes rounded out onto their grids; the joint design's widely) the legend
    says so and the largest of them are filled fainter (:mod:`.stacking`).
    """
    import folium

    color_by = check_choice("color_by", color_by, COLOR_BY)
    if len(classes) > MAX_MAP_CLASSES:
        raise ParameterError(f"a map preview draws at most {MAX_MAP_CLASSES} classes, got {len(classes)}; "
                             "raise k or preview a subset")
    extra = [c for c in ("label", "regions", "classes") if c in classes.columns]
    gdf, notes = _drawable(classes[["class_id", "weight", *extra, classes.geometry.name]], list(notes))
    gdf["class_id"] = gdf["class_id"].astype(int)
    gdf["records"] = gdf["weight"].astype(int)
    for c in extra:   # the popup shows values as HTML
        if not pd.api.types.is_numeric_dtype(gdf[c]):
            gdf[c] = [html.escape(str(v)) for v in gdf[c]]
    bounds = gdf.total_bounds if len(gdf) else WORLD
    span = max(bounds[2] - bounds[0], bounds[3] - bounds[1])
    gdf, drawn = one_per_shape(gdf, _drawn(gdf.geometry.to_numpy(), span / PIXELS), DIGITS)
    order = drawing_order(drawn)
    gdf, drawn = gdf.iloc[order].reset_index(drop=True), drawn[order]
    geoms = gdf.geometry.to_numpy()
    width = class_widths_km(geoms)
    gdf["km"] = pd.Series([_two_digits(v) for v in width.tolist()], dtype=object)
    pairs = touching(geoms)
    scales, rows = _color_scales(geoms, pairs, width, gdf["records"].to_numpy() / k, gdf.get("regions"))
    fields = [list(f) for f in POPUP if f[0] in gdf.columns]
    overlaps = overlapping(geoms, pairs)
    notes += overlap_notes(overlaps, shapes)
    m = offline_map(bounds, tiles=tiles, attribution=attribution, tiles_attribution=tiles_attribution, canvas=True)
    _ClassLayer(drawn, {f[0]: gdf[f[0]].tolist() for f in fields}, fields, scales, color_by,
                weight=1 if len(gdf) < THIN_FROM else 0.5, faded=faded_fills(geoms, overlaps)).add_to(m)
    labelled = _context(m, bounds, outlines, places)
    legend = _legend(k, len(gdf), title, notes, rows, color_by, (shapes, release_classes), labelled)
    m.get_root().html.add_child(folium.Element(legend))
    return m


def _context(m, bounds, outlines: bool, places: bool) -> bool:
    """Add the context layers asked for near ``bounds``: the outlines, the
    place names (and their style); whether place names were added."""
    import folium

    if outlines:
        features = outline_features(bounds)
        if features is not None:
            _OutlineLayer(features).add_to(m)
            _Attribution(OUTLINE_ATTRIBUTION).add_to(m)
    found = near_places(*context_box(bounds)) if places else None
    if found is None:
        return False
    m.get_root().header.add_child(folium.Element(f"<style>{PLACE_STYLE}</style>"), name="geoanon_places_css")
    PlaceLayer(_script_json(json.dumps(found, ensure_ascii=False, separators=(",", ":")))).add_to(m)
    _Attribution(PLACES_ATTRIBUTION).add_to(m)
    return True


def _drawable(classes, notes: list) -> tuple:
    """The classes with a shape, in longitude/latitude and unwrapped across the
    antimeridian, and the notes with a line for those not drawn."""
    shapeless = (classes.geometry.isna() | classes.geometry.is_empty).to_numpy()
    if shapeless.any():
        records = int(classes["weight"].to_numpy()[shapeless].sum())
        notes.append(f"{plural(records, 'record')} in {plural(int(shapeless.sum()), 'class', 'classes')} without an "
                     "area (suppressed or unknown locations), not drawn")
        classes = classes[~shapeless]
    shapes, outside = lonlat_shapes(classes)
    gdf = classes.set_geometry(shapes.to_numpy(), crs="EPSG:4326")
    if outside:
        gdf = gdf[~gdf.geometry.is_empty]
        notes.append(f"{plural(outside, 'class', 'classes')} beyond the area where {classes.crs.name} holds "
                     "are not drawn")
    gdf = gdf.reset_index(drop=True)
    gdf[gdf.geometry.name] = unwrap_antimeridian(gdf.geometry.to_numpy())
    return gdf, notes


def _color_scales(geoms, pairs, width, ratio, regions) -> tuple:
    """Each colour scale (:data:`COLOR_BY`) as its palette and every class's
    index in it, and its legend rows (colour, HTML label)."""
    cuts = width_cuts(width)
    forced = (regions.to_numpy() == 1) & (ratio > 1) if regions is not None else np.zeros(len(ratio), dtype=bool)
    scales = {
        "precision": (PRECISION_COLORS, np.searchsorted(cuts[1:-1], width, side="left")),
        "size": (SIZE_COLORS + (FORCED_COLOR,), np.where(forced, len(SIZE_COLORS),
                                                          np.searchsorted(SIZE_BINS, ratio, side="left"))),
        "neighbours": (NEIGHBOUR_COLORS, neighbour_colors(geoms, pairs) % len(NEIGHBOUR_COLORS)),
    }
    rows = {"precision": [(c, f"{_km(lo)}&ndash;{_km(hi)} km wide") for c, lo, hi in zip(PRECISION_COLORS, cuts[:-1],
                                                                                            cuts[1:])],
            "size": _size_rows(forced.any()),
            "neighbours": [(None, "neighbouring classes get different fills")]}
    return {name: {"colors": list(colors), "index": index.tolist()} for name, (colors, index) in scales.items()}, rows


def lonlat_shapes(classes) -> tuple:
    """The classes' shapes in longitude/latitude, and how many have no part
    there. A projected CRS gives no finite longitude/latitude beyond its area
    of use (Albers past the pole), so shapes are first clipped to that area's
    box in the CRS, and their edges split before the transform so that they
    bend as the projection bends them; a shape wholly beyond comes back
    empty."""
    import geopandas as gpd
    import shapely

    crs = classes.crs
    if crs is None or crs.equals("EPSG:4326"):
        return classes.geometry, 0
    if crs.is_geographic:
        return classes.geometry.to_crs("EPSG:4326"), 0
    geoms = classes.geometry.to_numpy()
    area = crs.area_of_use
    if area is not None:
        from pyproj import Transformer

        box = Transformer.from_crs("EPSG:4326", crs, always_xy=True).transform_bounds(*area.bounds, densify_pts=101)
        geoms = shapely.clip_by_rect(geoms, *box)
    empty = shapely.is_empty(geoms) | shapely.is_missing(geoms)
    bounds = shapely.bounds(geoms[~empty])
    if bounds.size:
        step = max(float(np.nanmax(bounds[:, 2:] - bounds[:, :2])) / 64, 1e-9)
        geoms[~empty] = shapely.segmentize(geoms[~empty], step)
    out = gpd.GeoSeries(geoms, crs=crs, index=classes.index).to_crs("EPSG:4326")
    lonlat = out.to_numpy()
    finite = np.isfinite(shapely.get_coordinates(lonlat)).all(axis=1)
    if not finite.all():                  # a corner of the area's box beyond the projection: not drawn
        owner = np.repeat(np.arange(len(lonlat)), shapely.get_num_coordinates(lonlat))
        out.iloc[np.unique(owner[~finite])] = shapely.Polygon()
    empty = out.is_empty.to_numpy() | out.isna().to_numpy()
    return out, int(empty.sum())


def neighbour_colors(geoms: np.ndarray, pairs: tuple | None = None) -> np.ndarray:
    """A colour index per shape, different for shapes that touch (``pairs``:
    :func:`~.stacking.touching`'s, found if not given): greedy colouring of
    the adjacency (shapes in order of decreasing degree, each the smallest
    index its coloured neighbours do not use)."""
    if len(geoms) == 0:
        return np.zeros(0, dtype=np.int64)
    a, b = touching(geoms) if pairs is None else pairs
    degree = np.bincount(a, minlength=len(geoms))
    order = np.argsort(-degree, kind="stable")
    start = np.r_[0, np.cumsum(np.bincount(a, minlength=len(geoms)))]
    neighbours = b[np.argsort(a, kind="stable")]
    color = np.full(len(geoms), -1, dtype=np.int64)
    for v in order.tolist():
        used = set(color[neighbours[start[v]:start[v + 1]]].tolist())
        c = 0
        while c in used:
            c += 1
        color[v] = c
    return color


def class_widths_km(geoms: np.ndarray) -> np.ndarray:
    """Each shape's width in km: the diameter of its bounding box in
    longitude/latitude (:meth:`geoanon._geo.Ground.extents`, as the report's
    figures measure it; 0 for an empty shape)."""
    import shapely

    box = shapely.bounds(geoms).reshape(-1, 4)
    return np.nan_to_num(ground("EPSG:4326").extents(box[:, 0], box[:, 1], box[:, 2], box[:, 3])[2])


def _drawn(geoms: np.ndarray, tolerance: float) -> np.ndarray:
    """Shapes simplified to ``tolerance`` (a pixel), coordinates to ``DIGITS`` decimals."""
    import shapely

    return shapely.transform(shapely.simplify(geoms, tolerance), lambda c: np.round(c, DIGITS))


def unwrap_antimeridian(geoms: np.ndarray) -> np.ndarray:
    """Shapes in longitude/latitude, redrawn contiguous across the antimeridian.

    When the largest longitude gap between the shapes' parts is not the one
    across ±180°, every part west of that gap (east of the antimeridian) moves
    360° east, and a shape with parts on both sides becomes their union; else
    the shapes are returned as they are.
    """
    import shapely

    parts, owner = shapely.get_parts(geoms, return_index=True)
    if parts.size < 2:
        return geoms
    box = shapely.bounds(parts)
    lo, hi = box[:, 0], box[:, 2]
    order = np.argsort(lo, kind="stable")
    gaps = lo[order][1:] - np.maximum.accumulate(hi[order])[:-1]
    i = int(np.argmax(gaps))
    if gaps[i] <= lo.min() + 360 - hi.max():
        return geoms
    moved = lo < lo[order][i + 1]
    east = np.array([360.0, 0.0])
    parts = parts.copy()
    parts[moved] = shapely.transform(parts[moved], lambda c: c + east)
    n_moved = np.bincount(owner[moved], minlength=len(geoms))
    n_parts = np.bincount(owner, minlength=len(geoms))
    out = geoms.copy()
    whole = (n_moved > 0) & (n_moved == n_parts)
    out[whole] = shapely.transform(geoms[whole], lambda c: c + east)
    for g in np.flatnonzero((n_moved > 0) & (n_moved < n_parts)):
        out[g] = shapely.union_all(parts[owner == g])
    return out


def width_cuts(width: np.ndarray) -> np.ndarray:
    """The precision scale's bin edges: from the narrowest class's width to
    the widest's in equal steps of their logarithm (each colour a few times
    wider than the one before, so towns and countryside both show), rounded
    to two significant digits."""
    positive = width[width > 0]
    if positive.size == 0:
        return np.zeros(len(PRECISION_COLORS) + 1)
    edges = np.geomspace(positive.min(), positive.max(), len(PRECISION_COLORS) + 1)
    return np.array([_two_digits(v) for v in edges.tolist()], dtype=float)


def _two_digits(v: float):
    """``v`` to two significant digits, whole from 10 on (as legends and popups show widths)."""
    rounded = float(f"{v:.2g}")
    return int(rounded) if rounded >= 10 else rounded


def _km(v: float) -> str:
    """A width in km as the legend writes it: 0.041, 3.5, 87, 1,200."""
    return f"{v:,.0f}" if v >= 100 else f"{v:.3g}"


def _size_rows(forced: bool) -> list:
    edges = [f"{lo:g}&ndash;{hi:g}&times;k" for lo, hi in zip(SIZE_BINS[:-1], SIZE_BINS[1:])]
    labels = ["exactly k"] + edges + [f"over {SIZE_BINS[-1]:g}&times;k"]
    return list(zip(SIZE_COLORS, labels)) + ([(FORCED_COLOR, "one region, already above k")] if forced else [])


def _legend(k: int, n_classes: int, title, notes, rows: dict, color_by: str, counted: tuple, labelled: bool) -> str:
    """The legend, fixed at the top right: counts (``counted``: what the
    shapes are called, and the release's classes), a radio button per colour
    scale (the page's script switches them) with that scale's rows, notes,
    and where place names are ``labelled`` the box that shows them."""
    swatch = ('<span style="display:inline-block;width:12px;height:12px;background:{};border:1px solid #333;'
              'margin-right:4px"></span>')
    radios = "".join(f'<label style="margin-right:6px"><input type="radio" name="geoanon-colour" value="{name}"'
                     f'{" checked" if name == color_by else ""}>{COLOR_NAMES[name]}</label>' for name in COLOR_BY)
    hidden = ' style="display:none"'
    scales = "".join(f'<div data-scale="{name}"{"" if name == color_by else hidden}>'
                     + "".join(f"<div>{'' if c is None else swatch.format(c)}{lab}</div>" for c, lab in rows[name])
                     + "</div>" for name in COLOR_BY)
    head = f"<b>{html.escape(title)}</b><br>" if title else ""
    extra = "".join(f"<div>{html.escape(n)}</div>" for n in notes)
    if labelled:
        extra += '<div><label><input type="checkbox" name="geoanon-places" checked>place names</label></div>'
    return (f'<div class="geoanon-legend" style="position:fixed;top:10px;right:10px;z-index:1000;max-width:340px;'
            f'background:white;padding:6px 8px;font:12px sans-serif;border:1px solid #999">'
            f"{head}{_counted(n_classes, *counted)}, k = {int(k)}<br>"
            f"<div>colour by {radios}</div>{scales}{extra}<div><i>click a class for its published values</i></div>"
            "</div>")


def _counted(drawn: int, shapes: str, release_classes) -> str:
    """The legend's count: the shapes drawn (escaped), and the release's
    classes in them where they are location classes holding several."""
    if release_classes is None or release_classes == drawn:
        return f"{drawn:,} {html.escape(shapes)}"
    return f"{drawn:,} {html.escape(shapes)} holding {release_classes:,} {'class' if release_classes == 1 else 'classes'}"


# What a map's legend calls its shapes: by a release's location kind and, for
# regions, by the level its ZIP codes were published at (zip_level).
SHAPE_NAMES = {"points": "boxes of GPS points", "regions": "groups of regions", "labels": "groups of labels"}


def shapes_named(location: dict | None, zip_level: str | None = None) -> str:
    """What a map's legend calls the shapes of a release whose ``location``
    is ``{"kind": ..., "columns": (...)}`` (:attr:`Release.location`),
    published at ``zip_level``: "boxes of GPS points", "groups of regions
    (zip)", "groups of counties (county)" (the published column in brackets:
    a roll-up's is named for its level), "classes" without a location."""
    from ..options.locations import LEVEL_GROUPS

    if location is None:
        return "classes"
    if zip_level in LEVEL_GROUPS:
        return f"{LEVEL_GROUPS[zip_level]} ({zip_level})"
    name = SHAPE_NAMES[location["kind"]]
    return name if location["kind"] == "points" else f"{name} ({', '.join(location['columns'])})"


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
