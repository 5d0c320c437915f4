"""Map previews: self-contained HTML, escaped strings, and a real browser drawing
the classes with the network off."""
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import geoanon as ga
from geoanon.maps import check_tiles, class_map, leaflet_assets, render_html

from browser import chromium_path, console_messages, headless, screenshot
from checkers import drawn_geometries, drawn_shapes

ARTIFACTS = Path(__file__).parent / "artifacts"


def _release(n=400, k=10):
    rng = np.random.default_rng(4)
    df = pd.DataFrame({"lat": np.round(35 + 3 * rng.normal(size=n), 3), "lon": np.round(-95 + 6 * rng.normal(size=n), 3)})
    return ga.generalize_points(df, k)


def test_html_loads_nothing_from_the_network():
    html = render_html(_release().preview())
    # no external scripts or stylesheets: Leaflet is inlined
    assert not re.search(r"<script[^>]+src=", html)
    assert not re.search(r"<link[^>]+href=", html)
    js, css = leaflet_assets()
    assert js[:200] in html and "L.map(" in html
    assert "url(images/" not in css and "data:image/png;base64," in css
    assert "tile.openstreetmap" not in html


def test_tiles_are_optional():
    html = render_html(_release().preview(tiles="OpenStreetMap"))
    assert "tile.openstreetmap.org" in html


def test_tooltip_values_are_escaped():
    classes = _release().classes.assign(label="<b>a</b>", regions="<i>r</i>")
    html = render_html(class_map(classes, 10))
    assert "<b>a</b>" not in html and "<i>r</i>" not in html
    # escaped for the tooltip's HTML, then JSON-encoded into the script
    assert '"label":["\\u0026lt;b\\u0026gt;a' in html and '"regions":["\\u0026lt;i\\u0026gt;r' in html


def test_user_strings_are_escaped():
    rel = _release()
    rel.notes.append('<img src=x onerror="alert(2)">')
    html = render_html(rel.preview(title="<b>x</b>&", attribution="</script><script>alert(3)</script>"))
    assert "<b>x</b>&" not in html and "&lt;b&gt;x&lt;/b&gt;&amp;" in html
    assert '<img src=x onerror="alert(2)">' not in html
    assert "</script><script>alert(3)" not in html


@pytest.mark.parametrize("tiles, attribution, match", [
    (None, None, None),
    ("", None, None),
    ("OpenStreetMap", None, None),
    ("OpenTopoMap", "own credit", None),
    ("https://tiles.example.org/{z}/{x}/{y}.png", "© Example", None),
    ("https://tiles.example.org/{z}/{x}/{-y}.png", "© Example", None),
    ("https://tiles.example.org/{z}/{x}/{y}.png", None, "needs an attribution"),
    ("https://tiles.example.org/{z}/{x}/{y}.png", "  ", "needs an attribution"),
    ("https://tiles.example.org/{z}/{x}/{y}.png", 5, "attribution must be text, got 5"),
    ("tiles.example.org/{z}/{x}/{y}.png", "a", "must start with https:// or http://"),
    ("javascript:alert(1)//{z}{x}{y}", "a", "must start with https://"),
    ("https://tiles.example.org/map.png", "a", r"placeholders \{z\}, \{x\} and \{y\}"),
    ("Nowhere Maps", None, "unknown tiles 'Nowhere Maps'"),
    ("Thunderforest.OpenCycleMap", None, "need an API key"),
    (3, None, "tiles must be a name or a URL, got 3"),
])
def test_check_tiles_before_any_drawing(tiles, attribution, match):
    if match is None:
        check_tiles(tiles, attribution)
        return
    with pytest.raises(ga.ParameterError, match=match) as err:
        check_tiles(tiles, attribution)
    assert "\n" not in str(err.value)


def test_tile_url_with_an_escaped_attribution():
    rel = _release()
    url = "https://tiles.example.org/{z}/{x}/{y}.png"
    html = render_html(class_map(rel.classes, 10, tiles=url, tiles_attribution='<img src=x onerror="alert(4)">&'))
    assert url in html and '<img src=x onerror="alert(4)">' not in html
    # escaped for HTML (Leaflet shows attributions as HTML), then JSON-encoded into the script
    assert '"attribution": "\\u0026lt;img src=x onerror=\\u0026quot;alert(4)\\u0026quot;\\u0026gt;\\u0026amp;"' in html
    with pytest.raises(ga.ParameterError, match="needs an attribution"):
        class_map(rel.classes, 10, tiles=url)


def test_browser_draws_every_class_offline(tmp_path):
    chromium = chromium_path()
    rel = _release()
    page = tmp_path / "map.html"
    page.write_text(render_html(rel.preview(title="browser test")), encoding="utf-8")
    done = headless(chromium, tmp_path / "profile", "--enable-logging=stderr", "--v=0", "--dump-dom", page.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    assert console_messages(done.stderr) == []
    dom = done.stdout
    shapes = re.findall(r'<path[^>]*class="leaflet-interactive"', dom)
    assert len(shapes) == rel.partition.n_classes > 10
    assert "leaflet-container" in dom and "browser test" in dom

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "points_map.png"
    shot.unlink(missing_ok=True)
    done = screenshot(chromium, tmp_path, page, shot)
    assert done.returncode == 0, done.stderr[-2000:]
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


def test_browser_draws_every_region_group_offline(tmp_path):
    from geoanon.datasets import demo_nc_births, nc_counties

    chromium = chromium_path()
    rel = ga.generalize_regions(demo_nc_births(), 1000, column="county_fips", regions=nc_counties(), region_id="FIPS",
                                identifiers=["record_id"], keep=["sex", "birth_weight_g"])
    page = tmp_path / "regions.html"
    page.write_text(render_html(rel.preview(title="regions")), encoding="utf-8")
    done = headless(chromium, tmp_path / "profile", "--enable-logging=stderr", "--v=0", "--dump-dom", page.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    assert console_messages(done.stderr) == []
    shapes = re.findall(r'<path[^>]*class="leaflet-interactive"', done.stdout)
    assert len(shapes) == rel.partition.n_classes == len(rel.classes)
    outlines = re.findall(r'<path(?![^>]*leaflet-interactive)[^>]*stroke="#(?:3b6e8f|777777)"', done.stdout)
    assert len(outlines) == 2            # the coast and the state borders, drawn without tiles
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "regions_map.png"
    shot.unlink(missing_ok=True)
    done = screenshot(chromium, tmp_path, page, shot)
    assert done.returncode == 0 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_browser_draws_classes_across_the_antimeridian_whole(tmp_path):
    chromium = chromium_path()
    rng = np.random.default_rng(8)
    df = pd.DataFrame({"lon": np.r_[rng.uniform(176, 180, 150), rng.uniform(-180, -176, 150)],
                       "lat": rng.uniform(-19, -15, 300)})
    rel = ga.generalize_points(df, 10)
    assert rel.partition.bounds[0] > rel.partition.bounds[2]   # the region crosses the antimeridian
    page = tmp_path / "fiji.html"
    page.write_text(render_html(rel.preview()), encoding="utf-8")
    done = headless(chromium, tmp_path / "profile", "--window-size=1000,800", "--dump-dom", page.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    paths = re.findall(r'<path[^>]*class="leaflet-interactive"[^>]*d="([^"]+)"', done.stdout)
    assert len(paths) == rel.partition.n_classes
    spans = sorted((min(xs), max(xs)) for xs in
                   ([float(v) for v in re.findall(r"[ML](-?[\d.]+) ", d)] for d in paths))
    reach = np.maximum.accumulate([hi for _, hi in spans])
    # the classes tile one contiguous strip on screen: no gap as wide as the world between them
    assert max(lo - r for (lo, _), r in zip(spans[1:], reach[:-1])) <= 1
    assert spans[-1][1] - spans[0][0] > 500   # and the view is fitted to them


def test_neighbouring_classes_get_different_colours():
    import shapely

    from geoanon.maps import neighbour_colors

    geoms = _release(1200, 10).classes.geometry.to_numpy()
    color = neighbour_colors(geoms)
    a, b = shapely.STRtree(geoms).query(geoms, predicate="intersects")
    touching = a != b
    assert touching.any() and (color[a[touching]] != color[b[touching]]).all()
    assert color.max() < 10                      # the palette's size; planar maps need few colours


def test_colouring_by_size_and_by_precision():
    from geoanon.datasets import demo_nc_births, nc_counties

    births = demo_nc_births()
    k = int(births["county_fips"].value_counts().iloc[5])     # six counties weigh k or more on their own
    rel = ga.generalize_regions(births, k, column="county_fips", regions=nc_counties(), region_id="FIPS",
                                identifiers=["record_id"], keep=["sex", "birth_weight_g"])
    assert ((rel.classes.regions == 1) & (rel.classes.weight > k)).any()
    html = render_html(rel.preview(color_by="size"))
    fills = re.search(r'"fill":\[([^\]]*)\]', html)[1]
    assert "one region, already above k" in html and '"#9e9e9e"' in fills
    html = render_html(rel.preview(color_by="precision"))
    assert "km wide" in html
    with pytest.raises(ga.ParameterError, match="color_by"):
        rel.preview(color_by="rainbow")


def test_large_maps_draw_on_a_canvas_with_short_coordinates():
    from geoanon.maps import CANVAS_FROM

    rel = _release(CANVAS_FROM * 10 + 50, 10)
    assert len(rel.classes) >= CANVAS_FROM
    html = render_html(rel.preview())
    assert '"preferCanvas": true' in html
    assert not re.search(r"\d\.\d{7,}", html.split("<script>", 2)[-1][-len(html) // 2:])
    small = render_html(_release().preview())
    assert '"preferCanvas": false' in small


def test_browser_draws_a_500000_point_map_completely(tmp_path):
    """Issue 13's target: 500,000 points at k = 10 (about 48,000 classes) in a
    page under 10 MB that Chromium loads and builds whole (every class a
    feature of the canvas layer) within 60 s."""
    import time

    chromium = chromium_path()
    rng = np.random.default_rng(5)
    n = 500_000
    df = pd.DataFrame({"lat": np.round(35 + 3 * rng.normal(size=n), 5),
                       "lon": np.round(-95 + 6 * rng.normal(size=n), 5)})
    rel = ga.generalize_points(df, 10)
    page = tmp_path / "big.html"
    page.write_text(render_html(rel.preview()), encoding="utf-8")
    assert page.stat().st_size < 10_000_000
    started = time.monotonic()
    done = headless(chromium, tmp_path / "profile", "--dump-dom", page.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    assert time.monotonic() - started < 60
    drawn = re.search(r'data-classes-drawn="(\d+)"', done.stdout)
    assert drawn and int(drawn[1]) == len(rel.classes) > 40_000


@pytest.mark.parametrize("kind", ["points", "regions"])
def test_a_release_in_a_projected_crs_maps_to_finite_bounds(kind):
    import geopandas as gpd

    from geoanon.datasets import demo_nc_births, nc_counties

    if kind == "points":
        rng = np.random.default_rng(6)
        xy = gpd.points_from_xy(rng.uniform(-80, -79, 300), rng.uniform(35, 36, 300), crs=4326).to_crs(5070)
        rel = ga.generalize_points(gpd.GeoDataFrame({"age": np.arange(300)}, geometry=xy), 10, keep=["age"])
    else:
        rel = ga.generalize_regions(demo_nc_births(), 1000, column="county_fips", regions=nc_counties().to_crs(5070),
                                    region_id="FIPS", identifiers=["record_id"], keep=["sex", "birth_weight_g"])
    html = render_html(rel.preview())
    bounds = re.findall(r"fitBounds\(\s*\[\[([^\]]*)\],\s*\[([^\]]*)\]\]", html)[-1]
    (south, west), (north, east) = (map(float, corner.split(",")) for corner in bounds)
    assert 33 < south < north < 37 and -85 < west < east < -75 and "Infinity" not in html


def test_outlines_are_natural_earth_lines_where_they_belong():
    import shapely

    from geoanon.datasets import outlines

    lines = outlines()
    assert set(lines["kind"]) == {"coast", "country", "state"}
    near = {kind: shapely.distance(lines.geometry[lines["kind"] == kind].to_numpy(), point).min()
            for kind, point in (("coast", shapely.Point(-75.53, 35.25)),        # Cape Hatteras
                                ("state", shapely.Point(-78.0, 36.54)),         # North Carolina / Virginia
                                ("country", shapely.Point(-106.5, 31.78)))}     # El Paso / Ciudad Juarez
    assert max(near.values()) < 0.05, near


def test_maps_carry_outlines_near_their_classes_only():
    import json

    from geoanon.maps import outline_features

    nc = json.loads(outline_features((-84.3, 33.8, -75.4, 36.6)))
    kinds = {f["properties"]["kind"] for f in nc["features"]}
    assert kinds == {"coast", "state"}           # no land border of a country within reach of North Carolina
    xs = np.concatenate([np.asarray(line)[:, 0] for f in nc["features"] for line in f["geometry"]["coordinates"]])
    assert xs.min() >= -84.3 - 5.0 and xs.max() <= -75.4 + 5.0
    fiji = json.loads(outline_features((177.0, -19.0, 183.0, -15.0)))    # classes unwrapped east of 180
    xs = np.concatenate([np.asarray(line)[:, 0] for f in fiji["features"] for line in f["geometry"]["coordinates"]])
    assert xs.max() > 180 and xs.min() > 170      # Taveuni and Lau, 360 degrees east, drawn beside Viti Levu
    assert outline_features((-30.0, -40.0, -29.99, -39.99)) is None     # the open South Atlantic
    html = render_html(_release().preview())
    assert "Natural Earth" in html and "interactive: false" in html
    assert "interactive: false" not in render_html(_release().preview(outlines=False))


def test_a_projected_crs_beyond_its_area_draws_what_it_can(tmp_path, cli):
    """Points in CONUS Albers spread far past its area of use (beyond the pole
    the projection has no longitude/latitude): the classes inside are drawn,
    clipped to the area, the others counted in the legend."""
    rng = np.random.default_rng(0)
    pd.DataFrame({"x": rng.uniform(-8e6, 8e6, 2000).round(1), "y": rng.uniform(-4e6, 8e6, 2000).round(1)}).to_csv(
        tmp_path / "m.csv", index=False)
    code, _, err = cli("points", tmp_path / "m.csv", "--lat", "y", "--lon", "x", "--crs", "EPSG:5070", "-k", "10",
                       "-o", tmp_path / "out.csv", "--map", tmp_path / "m.html", "--html-report", tmp_path / "r.html")
    assert code == 0, err
    page = (tmp_path / "m.html").read_text()
    drawn = drawn_shapes(page)
    assert 0 < drawn < 200 and f"{200 - drawn} classes beyond the area where NAD83 / Conus Albers holds" in page
    coordinates = np.array([c for g in drawn_geometries(page) for c in _flat(g["coordinates"])], dtype=float)
    assert np.isfinite(coordinates).all() and (np.abs(coordinates) <= 540).all()


def _flat(nested):
    if isinstance(nested[0], (int, float)):
        return [nested]
    return [c for part in nested for c in _flat(part)]
