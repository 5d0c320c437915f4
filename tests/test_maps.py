"""Map previews: self-contained HTML, escaped strings, and a real browser drawing
the classes with the network off."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import geoanon as ga
from geoanon.maps import leaflet_assets, render_html

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


def test_user_strings_are_escaped():
    rel = _release()
    rel.notes.append('<img src=x onerror="alert(2)">')
    html = render_html(rel.preview(title="<b>x</b>&", attribution="</script><script>alert(3)</script>"))
    assert "<b>x</b>&" not in html and "&lt;b&gt;x&lt;/b&gt;&amp;" in html
    assert '<img src=x onerror="alert(2)">' not in html
    assert "</script><script>alert(3)" not in html


def _chromium():
    found = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
    if found:
        return found
    if os.environ.get("GEOANON_REQUIRE_BROWSER") == "1":
        pytest.fail("chromium is required (GEOANON_REQUIRE_BROWSER=1) but not installed")
    pytest.skip("chromium not installed")


def _headless(chromium, profile, *args):
    """Chromium headless with every network request refused."""
    cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
           f"--user-data-dir={profile}", "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
           "--host-resolver-rules=MAP * ~NOTFOUND", "--virtual-time-budget=5000", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def test_browser_draws_every_class_offline(tmp_path):
    chromium = _chromium()
    rel = _release()
    page = tmp_path / "map.html"
    page.write_text(render_html(rel.preview(title="browser test")), encoding="utf-8")
    done = _headless(chromium, tmp_path / "profile", "--dump-dom", page.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    shapes = re.findall(r'<path[^>]*class="leaflet-interactive"', dom)
    assert len(shapes) == rel.partition.n_classes > 10
    assert "leaflet-container" in dom and "browser test" in dom

    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "points_map.png"
    shot.unlink(missing_ok=True)
    done = _headless(chromium, tmp_path / "profile2", "--window-size=1200,800", f"--screenshot={shot}", page.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 10_000


def test_browser_draws_every_region_group_offline(tmp_path):
    from geoanon.datasets import demo_nc_births, nc_counties

    chromium = _chromium()
    rel = ga.generalize_regions(demo_nc_births(), 1000, column="county_fips", regions=nc_counties(), region_id="FIPS")
    page = tmp_path / "regions.html"
    page.write_text(render_html(rel.preview(title="regions")), encoding="utf-8")
    done = _headless(chromium, tmp_path / "profile", "--dump-dom", page.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    shapes = re.findall(r'<path[^>]*class="leaflet-interactive"', done.stdout)
    assert len(shapes) == rel.partition.n_classes == len(rel.classes)
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "regions_map.png"
    shot.unlink(missing_ok=True)
    done = _headless(chromium, tmp_path / "profile2", "--window-size=1200,800", f"--screenshot={shot}", page.as_uri())
    assert done.returncode == 0 and shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
