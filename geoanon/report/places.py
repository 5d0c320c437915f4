"""Place names on the map previews, offline: the shipped Natural Earth
populated places (:func:`geoanon.datasets.places`) near the classes, labelled
in the browser for the view at hand.

Which places a page holds depends on the map's extent only (the classes'
bounds, which the view shows anyway), never on the records: the places within
the extent and a margin, largest population first. The page labels them
for the view: at each zoom and move, in that order, a place is labelled
unless its label would come within ``GAP_PX`` pixels of one already
labelled or lie under the legend or a control, up to ``MAX_SHOWN`` labels,
so a country shows its largest cities and a county its towns. The labels
take no mouse events (a click reaches the class under them), sit in a layer
the legend's "place names" box switches, and their names are HTML-escaped.
"""
from __future__ import annotations

import html
from functools import lru_cache

import numpy as np
from branca.element import MacroElement
from jinja2 import Template

__all__ = ["PLACE_STYLE", "PlaceLayer", "near_places"]

MAX_PLACES = 2_000      # places a page holds at most (those near its extent, largest first)
MAX_SHOWN = 60          # labels shown at once
GAP_PX = 6              # pixels kept free around a label
CHAR_PX = 6.4           # a label's width per character, in pixels (11px sans-serif, about)
DIGITS = 4              # decimals of the places' coordinates (as shipped)
PLACE_STYLE = (".geoanon-place{font:bold 11px sans-serif;color:#1a1a1a;white-space:nowrap;"
               "text-shadow:0 0 2px #fff,0 0 2px #fff,0 0 3px #fff,0 0 4px #fff}"
               ".geoanon-place i{display:inline-block;width:5px;height:5px;margin:0 3px 1px 0;border-radius:50%;"
               "background:#1a1a1a;border:1px solid #fff}")


class PlaceLayer(MacroElement):
    """The places as a Leaflet layer group labelled anew at every zoom and
    move (see the module's docstring); sets ``data-places-shown`` on
    <body> to the labels shown."""

    _template = Template("""{% macro script(this, kwargs) %}
(function (map, places) {
  var layer = L.layerGroup().addTo(map);
  function label(i) {
    return L.marker([places.lat[i], places.lon[i]], {interactive: false, keyboard: false, icon: L.divIcon({
      className: "geoanon-place", html: "<i></i>" + places.name[i], iconSize: null, iconAnchor: [4, 8]})});
  }
  function overlaps(a, b) { return a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]; }
  function covered() {       // the legend and the map's controls, in the map's pixels: no label under them
    var origin = map.getContainer().getBoundingClientRect();
    return Array.from(document.querySelectorAll(".geoanon-legend, .leaflet-control")).map(function (e) {
      var r = e.getBoundingClientRect();
      return [r.left - origin.left, r.top - origin.top, r.right - origin.left, r.bottom - origin.top];
    });
  }
  function declutter() {
    layer.clearLayers();
    var size = map.getSize(), taken = covered(), shown = 0;
    for (var i = 0; i < places.name.length && shown < {{ this.max_shown }}; i++) {
      var p = map.latLngToContainerPoint([places.lat[i], places.lon[i]]);
      if (p.x < 0 || p.y < 0 || p.x > size.x || p.y > size.y) continue;
      var box = [p.x - 4 - {{ this.gap }}, p.y - 8 - {{ this.gap }},
                 p.x + 6 + places.chars[i] * {{ this.char_px }} + {{ this.gap }}, p.y + 8 + {{ this.gap }}];
      if (taken.some(function (t) { return overlaps(t, box); })) continue;
      taken.push(box);
      layer.addLayer(label(i));
      shown += 1;
    }
    document.body.setAttribute("data-places-shown", shown);
  }
  map.on("zoomend moveend resize", declutter);
  declutter();
  var box = document.querySelector('input[name="geoanon-places"]');
  if (box) box.addEventListener("change", function () {
    if (box.checked) { layer.addTo(map); declutter(); } else { map.removeLayer(layer); }
  });
})({{ this._parent.get_name() }}, {{ this.places }});
{% endmacro %}""")

    def __init__(self, places: str):
        """``places``: :func:`near_places`'s, as script-safe JSON."""
        super().__init__()
        self._name = "Places"
        self.places = places
        self.max_shown, self.gap, self.char_px = MAX_SHOWN, GAP_PX, CHAR_PX


def near_places(xmin: float, ymin: float, xmax: float, ymax: float) -> dict | None:
    """The shipped places within the box (degrees; ``xmax`` may pass 180 where
    the classes were unwrapped across the antimeridian: places beyond it are
    drawn 360 degrees east), largest population first, at most
    ``MAX_PLACES``: their HTML-escaped ``name``, ``lat``, ``lon`` and
    ``chars`` (the name's length); None when none is near."""
    names, lat, lon = _places()
    east = xmax > 180 and lon < xmax - 360
    lon = np.where(east, lon + 360.0, lon)
    inside = np.flatnonzero((lat >= ymin) & (lat <= ymax) & (lon >= xmin) & (lon <= xmax))[:MAX_PLACES]
    if inside.size == 0:
        return None
    shown = names[inside].tolist()
    return {"name": [html.escape(n) for n in shown], "lat": lat[inside].tolist(),
            "lon": np.round(lon[inside], DIGITS).tolist(), "chars": [len(n) for n in shown]}


@lru_cache(maxsize=1)
def _places() -> tuple:
    """The shipped places' (names, latitudes, longitudes) arrays, largest population first, read once per process."""
    from ..datasets import places

    table = places()
    return table["name"].to_numpy(dtype=object), table["lat"].to_numpy(), table["lon"].to_numpy()
