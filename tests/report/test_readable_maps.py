"""Maps a person can read (issue 50): small classes drawn above large ones,
place names from the shipped gazetteer, a legend named for the location
kind, and the README's own maps looked at in a real browser."""
import html
import json
import re
import shlex
import sys
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import shapely

import geoanon as ga
from geoanon.report.maps import class_map, render_html

from browser import chromium_path, console_messages, headless, screenshot, with_script
from checkers import drawn_geometries

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "tests" / "artifacts"


def _shapes(geometries) -> np.ndarray:
    """GeoJSON geometries as shapely's, in their order."""
    return np.array([shapely.geometry.shape(g) for g in geometries], dtype=object)


def _assert_small_above_large(shapes: np.ndarray) -> None:
    """Shapes (longitude/latitude, in drawing order): none is drawn before a
    smaller one (its area on the ground: an equal-area projection) or before
    one it holds."""
    ground = shapely.transform(shapes, lambda c: np.c_[c[:, 0], np.sin(np.radians(c[:, 1]))])
    area = shapely.area(ground)
    assert (np.diff(area) <= 1e-12 * area.max()).all(), "a shape drawn before a larger one"
    inner, outer = shapely.STRtree(shapes).query(shapes, predicate="within")
    assert (outer <= inner).all(), "a shape drawn after a shape it holds"


def _overlapping(shapes: np.ndarray) -> np.ndarray:
    """Which shapes' interiors meet another's."""
    a, b = shapely.STRtree(shapes).query(shapes, predicate="intersects")
    meet = (a != b) & shapely.relate_pattern(shapes[a], shapes[b], "T********")
    return np.isin(np.arange(len(shapes)), a[meet])


def _joint(n=3000, seed=1):
    """The joint default on the shipped demo patients (a sample): boxes that overlap."""
    records = ga.datasets.demo_records().sample(n, random_state=seed)
    return ga.anonymize(records, ga.Columns(location=("lat", "lon"), qi=["cost_usd"], sensitive="diagnosis",
                                            identifiers=["record_id", "zip"]), k=10)


@pytest.fixture(scope="module")
def joint():
    return _joint()


def test_small_classes_are_drawn_above_large_ones(joint):
    page = render_html(joint.preview())
    boxes = _shapes(drawn_geometries(page))
    published = np.unique(joint.classes.geometry.bounds.to_numpy(), axis=0)
    assert len(boxes) == len(published)             # classes that share a box: drawn once, their ids together
    shared = [i for i in _layer_values(page)["class_id"] if isinstance(i, str)]
    assert sum(len(i.split(", ")) - 1 for i in shared) == len(joint.classes) - len(published)
    held = shapely.STRtree(boxes).query(boxes, predicate="within")
    assert (held[0] != held[1]).sum() > 10                # boxes inside others: the case that hid them
    _assert_small_above_large(boxes)
    assert "the smaller are drawn on top" in page
    assert 'method &quot;frontier&quot; and extent &quot;tile&quot; publishes boxes that never overlap' in page


def test_tiles_say_nothing_of_overlaps_and_the_largest_overlapping_boxes_fade(joint):
    rng = np.random.default_rng(2)
    df = pd.DataFrame({"lat": 40 + rng.normal(0, 1, 400), "lon": -75 + rng.normal(0, 1, 400),
                       "age": rng.integers(18, 90, 400)})
    tiles = render_html(ga.anonymize(df, location=("lat", "lon"), qi=["age"], k=5, method="frontier",
                                     extent="tile").preview())
    assert "drawn on top" not in tiles and re.search(r", \{\}\)\.addTo\(map_\w+\);", tiles)   # no fill faded
    boxes = render_html(ga.generalize_points(df[["lat", "lon"]], 5).preview())      # rounded out onto their grids
    assert "the smaller are drawn on top" in boxes
    faded = re.search(r", (\{[^{}]*\})\)\.addTo\(map_\w+\);", render_html(joint.preview()))[1]
    opacity = json.loads(faded)
    assert opacity and all(0.08 <= o < 0.6 for o in opacity.values())


def test_the_legend_is_named_for_the_location_kind(joint, births_df, nc_gdf):
    from geoanon.report.maps import shapes_named

    assert shapes_named(None) == "classes"
    assert shapes_named({"kind": "points", "columns": ("lat", "lon")}) == "boxes of GPS points"
    assert shapes_named({"kind": "regions", "columns": ("zip",)}, "zip") == "groups of regions (zip)"
    assert shapes_named({"kind": "regions", "columns": ("zip",)}, "county") == "groups of counties (county)"
    assert shapes_named({"kind": "regions", "columns": ("zip",)}, "zip3") == "groups of ZIP3 areas (zip3)"
    boxes = len(np.unique(joint.classes.geometry.bounds.to_numpy(), axis=0))      # a box two classes share: once
    holding = "" if boxes == joint.report.classes else f" holding {joint.report.classes:,} classes"
    assert f"{boxes:,} boxes of GPS points{holding}, k = 10" in render_html(joint.preview())
    counties = ga.generalize_regions(births_df, 1000, column="county_fips", regions=nc_gdf, region_id="FIPS",
                                     identifiers=["record_id"], keep=["sex", "birth_weight_g"])
    assert f"{len(counties.classes):,} groups of regions (county_fips), k = 1000" in render_html(counties.preview())
    named = class_map(counties.classes, 1000, shapes='<b>x</b>')
    assert "&lt;b&gt;x&lt;/b&gt;" in render_html(named) and "<b>x</b>" not in render_html(named)


def _places_blob(page: str) -> dict:
    found = re.search(r"\}\)\(map_\w+, (?=\{\"name\":)", page)
    return json.JSONDecoder().raw_decode(page, found.end())[0]


def test_place_names_come_from_the_gazetteer_largest_first():
    from geoanon.report import places as place_names

    found = place_names.near_places(-107.0, 25.5, -93.0, 37.0)          # Texas and around it
    names = [html.unescape(n) for n in found["name"]]
    assert names[:4] == ["Houston", "San Antonio", "Ciudad Juárez", "Dallas"]
    assert {"Austin", "El Paso", "Ft. Worth", "Lubbock"} <= set(names)
    assert found["chars"] == [len(n) for n in names]
    assert all(25.5 <= y <= 37.0 for y in found["lat"]) and all(-107 <= x <= -93 for x in found["lon"])
    assert place_names.near_places(-30.0, -40.0, -29.0, -39.0) is None     # the open South Atlantic
    pacific = place_names.near_places(170.0, -20.0, 190.0, -10.0)        # unwrapped east of the antimeridian
    at = dict(zip(pacific["name"], pacific["lon"]))
    assert 178 < at["Suva"] < 179 and 188 < at["Apia"] < 189


def test_place_names_depend_on_the_extent_never_on_the_records():
    """Two sets of classes with the same extent, their small boxes in
    opposite corners: the same places, in the same order."""
    import geopandas as gpd

    frame = shapely.box(-100.0, 30.0, -90.0, 38.0)
    a = [frame, *shapely.box(np.arange(10) * 0.1 - 100, 30.0, np.arange(10) * 0.1 - 99.9, 30.1)]
    b = [frame, *shapely.box(np.arange(10) * 0.1 - 91, 37.9, np.arange(10) * 0.1 - 90.9, 38.0)]
    pages = [render_html(class_map(gpd.GeoDataFrame({"class_id": range(11), "weight": [10] * 11}, geometry=g,
                                                    crs="EPSG:4326"), 10)) for g in (a, b)]
    assert _places_blob(pages[0]) == _places_blob(pages[1]) and len(_places_blob(pages[0])["name"]) > 50
    without = render_html(class_map(gpd.GeoDataFrame({"class_id": [0], "weight": [10]}, geometry=[frame],
                                                     crs="EPSG:4326"), 10, places=False))
    assert '{"name":' not in without and "geoanon-places" not in without and "GeoNames" not in without


HOSTILE = '<img src=x onerror="alert(1)">&Co'


@pytest.fixture
def hostile_place(monkeypatch):
    """The gazetteer with a place named like markup, in Texas."""
    from geoanon.report import places as place_names

    names, lat, lon = place_names._places()
    monkeypatch.setattr(place_names, "_places", lambda: (np.r_[[HOSTILE], names].astype(object), np.r_[31.0, lat],
                                                          np.r_[-99.0, lon]))


def test_place_names_are_escaped(joint, hostile_place):
    page = render_html(joint.preview())
    assert HOSTILE not in page and "<img src=x" not in page
    assert _places_blob(page)["name"][0] == html.escape(HOSTILE)
    assert "\\u0026lt;img src=x onerror=\\u0026quot;alert(1)\\u0026quot;\\u0026gt;\\u0026amp;Co" in page


def _layer_values(text: str) -> dict:
    """The popup values of a page's class layer (each field's list, in drawing order)."""
    decoder, at = json.JSONDecoder(), text.index("return layer;\n})(") + len("return layer;\n})(")
    return decoder.raw_decode(text, decoder.raw_decode(text, at)[1] + len(", "))[0]     # after the shapes


def _class_layer(page: Path) -> str:
    return re.search(r"var (classes_\w+) = \(function", page.read_text(encoding="utf-8"))[1]


# In the browser: the class shapes in the order the canvas draws them (its
# list from first to last drawn), the labels shown, and a click and a hover at
# the middle of the last-drawn box that lies inside a box drawn before it (a
# small box on a larger one), at the point where the page has the canvas on top;
# the labels shown once the legend's "place names" box is clicked off, and on
# again; a second after the load, once the view is fitted.
PROBE = """setTimeout(function () {
var map = Object.values(window).find(function (v) { return v instanceof L.Map; });
var shapes = LAYER.getLayers(), renderer = shapes[0]._renderer, drawn = [];
for (var o = renderer._drawFirst; o; o = o.next) {
  if (o.layer.feature && o.layer.feature.properties.i !== undefined) {
    var b = o.layer.getBounds();
    drawn.push([o.layer.feature.properties.i, b.getWest(), b.getSouth(), b.getEast(), b.getNorth()]);
  }
}
document.body.setAttribute("data-drawn", JSON.stringify(drawn));
var labels = Array.from(document.querySelectorAll(".geoanon-place")).map(function (e) { return e.textContent; });
document.body.setAttribute("data-labels", JSON.stringify(labels));
var box = document.querySelector('input[name="geoanon-places"]'), counts = [];
[0, 1].forEach(function () { box.click(); counts.push(document.querySelectorAll(".geoanon-place").length); });
document.body.setAttribute("data-switched", counts.join(" "));
var rect = map.getContainer().getBoundingClientRect(), size = map.getSize();
for (var j = drawn.length - 1; j > 0; j--) {
  var inner = shapes.find(function (s) { return s.feature.properties.i === drawn[j][0]; });
  var middle = inner.getBounds().getCenter(), p = map.latLngToContainerPoint(middle);
  if (p.x < 60 || p.y < 60 || p.x > size.x - 400 || p.y > size.y - 60) continue;
  var held = drawn.slice(0, j).some(function (d) {
    return d[1] <= drawn[j][1] && d[2] <= drawn[j][2] && d[3] >= drawn[j][3] && d[4] >= drawn[j][4];
  });
  var target = document.elementFromPoint(rect.left + p.x, rect.top + p.y);
  if (!held || target !== renderer._container) continue;
  var at = {bubbles: true, cancelable: true, clientX: rect.left + p.x, clientY: rect.top + p.y};
  target.dispatchEvent(new MouseEvent("mousemove", at));
  document.body.setAttribute("data-hovered", inner.options.weight);
  target.dispatchEvent(new MouseEvent("click", at));
  document.body.setAttribute("data-target", drawn[j][0]);
  break;
}
}, 1000);"""


def _look(chromium, tmp_path, page: Path, name: str) -> dict:
    """What Chromium shows of a map page (:data:`PROBE`, the console empty),
    and its screenshot kept as tests/artifacts/``name``."""
    probe = with_script(page, PROBE.replace("LAYER", _class_layer(page)), tmp_path / f"probe-{page.name}")
    done = headless(chromium, tmp_path / f"profile-{page.stem}", "--enable-logging=stderr", "--v=0",
                    "--window-size=1200,800", "--dump-dom", probe.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    assert console_messages(done.stderr) == []
    dom = done.stdout
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / name
    shot.unlink(missing_ok=True)
    assert screenshot(chromium, tmp_path, page, shot).returncode == 0 and shot.stat().st_size > 10_000

    def attribute(key):
        found = re.search(f'data-{key}="([^"]*)"', dom)
        return None if found is None else html.unescape(found[1])

    popup = re.search(r'<div class="leaflet-popup-content"[^>]*>(.*?)</div>', dom, flags=re.S)
    return {"drawn": json.loads(attribute("drawn")), "labels": json.loads(attribute("labels")),
            "target": attribute("target"), "hovered": attribute("hovered"), "popup": popup and popup[1],
            "switched": attribute("switched"),
            "values": _layer_values(page.read_text(encoding="utf-8"))}


def _readme_map_commands() -> list:
    """The README's ``geoanon anonymize ... --map`` command lines, as argument lists."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    code = "".join(block for lang, block in re.findall(r"```(\w*)\n(.*?)```", text, re.S) if lang == "bash")
    lines = code.replace("\\\n", " ").splitlines()
    return [shlex.split(line) for line in lines if line.startswith("geoanon anonymize") and "--map" in line]


@pytest.mark.slow
@pytest.mark.parametrize("which, rows", [(0, None), (1, 8000)])
def test_the_readme_maps_show_place_names_and_no_box_hidden(which, rows, tmp_path):
    """The README's two maps (GPS points; ZIP codes, on the first 8,000
    records), made by its own commands in a fresh folder: in Chromium every
    shape is drawn after every larger one and every one holding it, a click
    and a hover on a small box inside a larger one reach the small one, and
    place names are labelled; screenshots in tests/artifacts/."""
    chromium = chromium_path()
    argv = _readme_map_commands()[which]
    (tmp_path / "data").symlink_to(ROOT / "data")
    if rows:
        records = pd.read_csv(ROOT / "data" / "demo_patients.csv", dtype=str, nrows=rows)
        records.to_csv(tmp_path / "patients.csv", index=False)
        argv[argv.index("data/demo_patients.csv")] = "patients.csv"
    done = subprocess.run([sys.executable, "-m", "geoanon.cli", *argv[1:]], cwd=tmp_path, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr
    page = tmp_path / argv[argv.index("--map") + 1]
    seen = _look(chromium, tmp_path, page, f"readme_map_{which + 1}.png")
    order = [d[0] for d in seen["drawn"]]                    # the features, as the canvas draws them
    shapes = _shapes(drawn_geometries(page.read_text()))
    assert sorted(order) == list(range(len(shapes))) and len(shapes) > 100
    _assert_small_above_large(shapes[order])
    assert len(seen["labels"]) >= 20 and {"Chicago", "Dallas", "Houston"} <= set(seen["labels"])
    assert seen["switched"] == f"0 {len(seen['labels'])}"              # the legend's box hides them and back
    if which == 0:                        # the joint default's boxes overlap: a small one inside a larger one
        target = int(seen["target"])
        assert seen["hovered"] == "3"
        assert f"<b>class</b> {seen['values']['class_id'][target]}<br>" in seen["popup"]


@pytest.mark.slow
def test_a_place_name_shows_as_text_in_the_browser(tmp_path, joint, hostile_place):
    chromium = chromium_path()
    page = tmp_path / "map.html"
    page.write_text(render_html(joint.preview()), encoding="utf-8")
    seen = _look(chromium, tmp_path, page, "hostile_place_map.png")
    assert HOSTILE in seen["labels"]                    # shown as its characters, never run as markup


def test_the_docs_say_where_boxes_overlap_and_how_to_avoid_it(cli):
    """The help and the guides no longer call the joint default's boxes
    non-overlapping: they say which designs' boxes overlap and that
    method "frontier" with extent "tile" publishes rectangles that never do,
    as the releases show."""
    code, out, _ = cli("anonymize", "--help")
    out = " ".join(out.split())
    assert code == 0 and "non-overlapping" not in out
    assert "rectangles, which may overlap: --method frontier --extent tile for ones that never do" in out
    for page in ("README.md", "docs/python.md", "docs/command-line.md"):
        text = " ".join((ROOT / page).read_text(encoding="utf-8").split())
        assert "non-overlapping" not in text and re.search(r'extent[ =]"?tile"?', text), page
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"lat": 35 + rng.normal(0, 1, 600), "lon": -80 + rng.normal(0, 1, 600),
                       "sex": rng.choice(["F", "M"], 600)})
    joint = ga.anonymize(df, location=("lat", "lon"), qi=["sex"], k=5).classes.geometry.to_numpy()
    tiles = ga.anonymize(df, location=("lat", "lon"), qi=["sex"], k=5, method="frontier",
                         extent="tile").classes.geometry.to_numpy()
    assert _overlapping(joint).mean() > 0.5 and not _overlapping(tiles).any()
