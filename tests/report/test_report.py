"""The release report (issue 13): its figures against hand computations and an
independent geodesic, the JSON and the HTML carrying the same numbers, every
user string escaped, no record in the page, and Chromium rendering it offline."""
import html
import json
import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import geoanon as ga
from geoanon._geo import row_box_extents
from geoanon.report.figures import _shape_extents, prosecutor_risk, size_histogram

from browser import chromium_path, console_messages, headless, screenshot

ONE_DEGREE_KM = 2 * np.pi * 6371.0088 / 360


def _points(n=600, seed=3, **columns):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame({"lat": np.round(35 + rng.normal(size=n), 5), "lon": np.round(-80 + 2 * rng.normal(size=n), 5),
                       **columns})
    return df


def test_prosecutor_risk_by_hand():
    risk = prosecutor_risk(np.array([2, 5, 10, 20]))
    assert risk["max"] == 0.5 and risk["mean"] == round(4 / 37, 6)
    # risk 1/size above 5%: sizes below 20; above 10%: below 10; above 20%: below 5
    assert risk["records_above"] == {"0.05": round(17 / 37, 6), "0.1": round(7 / 37, 6), "0.2": round(2 / 37, 6)}


@given(st.lists(st.integers(1, 5000), min_size=1, max_size=200))
def test_size_histogram_holds_every_class_and_record_in_its_bin(sizes):
    h = size_histogram(np.array(sizes))
    edges = np.array(h["edges"])
    assert sum(h["classes"]) == len(sizes) and sum(h["records"]) == sum(sizes)
    assert (np.diff(edges) > 0).all() and edges[0] <= min(sizes) < max(sizes) + 1 <= edges[-1]
    for i, (lo, hi) in enumerate(zip(edges[:-1], edges[1:])):
        inside = [s for s in sizes if lo <= s < hi]
        assert h["classes"][i] == len(inside) and h["records"][i] == sum(inside)


def test_rectangle_extents_in_km():
    boxes = pd.DataFrame({"lat_min": [0.0, 60.0, -10.0], "lat_max": [1.0, 61.0, 10.0],
                          "lon_min": [0.0, 0.0, 179.0], "lon_max": [1.0, 2.0, -179.0]})
    width, height, diameter = row_box_extents(boxes, "lat", "lon", "EPSG:4326")
    assert width[0] == pytest.approx(ONE_DEGREE_KM) and height[0] == pytest.approx(ONE_DEGREE_KM)
    assert diameter[0] == pytest.approx(157.25, abs=0.05)            # the diagonal of a 1-degree box at the equator
    assert width[1] == pytest.approx(2 * ONE_DEGREE_KM * np.cos(np.radians(60)))   # on the parallel nearer the equator
    assert width[2] == pytest.approx(2 * ONE_DEGREE_KM)              # across the antimeridian, two degrees
    assert height[2] == pytest.approx(20 * ONE_DEGREE_KM)
    # NC State Plane, US survey feet, in North Carolina: measured on the ground (the grid's scale there within
    # 0.01% of 1, the sphere's mean radius within 0.3% of the ellipsoid's), not in the grid's feet
    feet = pd.DataFrame({"y_min": [600000.0], "y_max": [602000.0], "x_min": [2e6], "x_max": [2001000.0]})
    width, height, diameter = row_box_extents(feet, "y", "x", "EPSG:2264")
    assert width[0] == pytest.approx(0.3048006, rel=3e-3) and height[0] == pytest.approx(0.6096012, rel=3e-3)
    assert diameter[0] == pytest.approx(np.hypot(0.3048006, 0.6096012), rel=3e-3)
    far = feet.assign(x_min=0.0, x_max=1000.0)               # 600 km west of the zone's meridian: its scale shows
    assert row_box_extents(far, "y", "x", "EPSG:2264")[0][0] < 0.3048006 * (1 - 1e-3)


def test_point_precision_agrees_with_the_wgs84_geodesic():
    from pyproj import Geod

    rel = ga.generalize_points(_points(), 10)
    width, height, diameter = row_box_extents(rel.in_input_order(), "lat", "lon", "EPSG:4326")
    t = rel.in_input_order()
    _, _, metres = Geod(ellps="WGS84").inv(t.lon_min.to_numpy(), t.lat_min.to_numpy(), t.lon_max.to_numpy(),
                                          t.lat_max.to_numpy())
    np.testing.assert_allclose(diameter, metres / 1000, rtol=0.006)   # a sphere against the ellipsoid
    p = rel.figures()["precision_km"]
    boxed = int(t["lat_min"].notna().sum())                  # the rows without a location are counted apart
    assert p["records"] == boxed and p["without"] == len(t) - boxed and p["measure"] == "rectangle"
    assert p["diameter"]["median"] == pytest.approx(np.nanmedian(diameter), abs=1e-4)
    assert sum(p["histogram"]["records"]) == boxed


def test_group_diameters_hold_their_regions(births_df, nc_gdf):
    rel = ga.generalize_regions(births_df, 1000, column="county_fips", regions=nc_gdf,
                                region_id="FIPS", identifiers=["record_id"], keep=["sex", "birth_weight_g"])
    width, height, diameter = _shape_extents(rel.classes)
    assert len(diameter) == rel.report.rows
    assert (diameter >= height - 1e-9).all()
    # no group is wider than the state (about 810 km east to west)
    state = _shape_extents(rel.classes.dissolve().assign(weight=1))
    assert (diameter <= state[2][0] + 1e-9).all() and 750 < state[2][0] < 900
    assert rel.figures()["precision_km"]["measure"] == "group"


def test_json_and_html_carry_the_same_figures(tmp_path, cli):
    src = tmp_path / "in.csv"
    _points(age=np.arange(600) % 70).to_csv(src, index=False)
    code, out, err = cli("anonymize", src, "--lat", "lat", "--lon", "lon", "--qi", "age", "-k", 10,
                         "-o", tmp_path / "out.csv", "--report", tmp_path / "r.json", "--html-report", tmp_path / "r.html")
    assert code == 0, err
    report = json.loads((tmp_path / "r.json").read_text())
    page = (tmp_path / "r.html").read_text()
    assert report["risk"]["max"] == round(1 / report["min_class"], 6)
    assert f"{report['risk']['max']:.2%}" in page and f"{report['risk']['mean']:.2%}" in page
    assert f"<b>{report['classes']:,}</b>classes" in page
    for col in report["published"]:
        if col["ncp"] is not None:
            assert f"{col['ncp']:.4f}" in page
    assert {c["column"]: c["role"] for c in report["published"]} == {
        "age": "quasi-identifier", "lat": "location", "lon": "location", "class_id": "added"}
    for name in ("width", "height", "diameter"):
        assert f"{report['precision_km'][name]['median']:,.1f}" in page
    assert sum(report["class_sizes"]["classes"]) == report["classes"]
    assert "<iframe" in page and "leaflet" in page


def test_every_user_string_is_escaped():
    evil = '<img src=x onerror="alert(1)">'
    rel = ga.generalize_points(_points(**{evil: "a&b"}), 10, keep=[evil])
    rel.notes.append("<script>alert(2)</script>")
    page = rel.to_html(map=False, title="<b>title</b>")
    assert evil not in page and "<script>" not in page and "<b>title</b>" not in page
    assert html.escape(evil) in page and "&lt;b&gt;title&lt;/b&gt;" in page


def test_the_page_holds_no_record():
    df = _points(patient=[f"P{i:05d}" for i in range(600)])
    rel = ga.generalize_points(df, 10, keep=["patient"])           # published as it is, never in the page
    page = rel.to_html(map=False)
    text = re.sub(r"<svg.*?</svg>", "", page, flags=re.S)      # the figures' paths are drawing coordinates
    assert not any(f"{v:.5f}".rstrip("0") in text for v in df["lat"].head(50))
    assert "P00001" not in page


@pytest.mark.slow
def test_the_same_release_gives_the_same_page():
    rel = ga.generalize_points(_points(), 10)
    assert rel.to_html() == rel.to_html()


def test_every_job_kind_reports(tmp_path, patients_df):
    df = patients_df.head(3000)
    roles = {"identifiers": ["record_id", "lat", "lon", "zip"], "keep": ["cost_usd"]}
    for rel in (ga.generalize_labels(df, 10, column="diagnosis", **roles),
                ga.suppress(df.head(400), ["diagnosis"], k=5, **roles)):
        page = rel.to_html()
        f = rel.figures()
        assert f["precision_km"] is None and "Location precision" not in page and "<iframe" not in page
        assert f"{f['risk']['max']:.2%}" in page


def test_html_report_path_is_checked_before_work(tmp_path, cli):
    src = tmp_path / "in.csv"
    _points().to_csv(src, index=False)
    code, _, err = cli("points", src, "-k", 10, "-o", tmp_path / "o.csv", "--html-report", tmp_path / "r.txt")
    assert code == 2 and "--html-report: expected a .html file" in err
    code, _, err = cli("points", src, "-k", 10, "-o", tmp_path / "o.csv", "--html-report", src)
    assert code == 2 and "names the input file" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]


def test_a_job_writes_its_html_report(tmp_path, cli):
    _points(age=np.arange(600) % 70).to_csv(tmp_path / "in.csv", index=False)
    (tmp_path / "job.toml").write_text('[input]\npath = "in.csv"\n[columns]\nlocation = { lat = "lat", lon = "lon" }\n'
                                       'interval = ["age"]\n[model]\nk = 10\n[output]\ntable = "out.csv"\n'
                                       'html_report = "report.html"\n', encoding="utf-8")
    code, out, err = cli("run", tmp_path / "job.toml")
    assert code == 0, err
    page = (tmp_path / "report.html").read_text()
    assert "Privacy model" in page and "<iframe" in page and "report.html" in out


@pytest.mark.slow
def test_browser_renders_the_report_offline(tmp_path):
    chromium = chromium_path()
    rel = ga.generalize_points(_points(), 10)
    page = tmp_path / "report.html"
    text = rel.to_html(title="browser test")
    page.write_text(text, encoding="utf-8")
    embedded = html.unescape(re.search(r"srcdoc='([^']*)'", text)[1])
    for part in (text, embedded):        # nothing to fetch: no external script, style, image or frame
        tags = re.sub(r"<script>.*?</script>", "", re.sub(r"srcdoc='[^']*'", "", part), flags=re.S)
        assert not re.search(r"<(script|img|link|iframe|source|embed|object)\b[^>]*\b(src|href)=", tags)
        assert not re.search(r"url\((?!['\"]?(data:|#))", tags)
    done = headless(chromium, tmp_path / "profile", "--enable-logging=stderr", "--v=0", "--dump-dom", page.as_uri())
    assert done.returncode == 0, done.stderr[-2000:]
    assert console_messages(done.stderr) == []
    for section in ("Privacy model", "Columns", "Class sizes", "Re-identification risk", "Location precision",
                    "Map of the classes"):
        assert section in done.stdout
    assert done.stdout.count("<svg") >= 2
    shot = tmp_path / "report.png"
    done = screenshot(chromium, tmp_path, page, shot, size="1100,2400")
    assert done.returncode == 0, done.stderr[-2000:]
    from PIL import Image

    image = np.asarray(Image.open(shot).convert("L"))
    assert image.std() > 10 and (image < 128).mean() > 0.01        # text, figures and the map, not a blank page


def test_a_release_prints_in_a_few_lines():
    """print(release) and print(release.report) show the summary the command
    line prints, not the table, partition and audit behind it."""
    import geoanon as ga

    records = ga.datasets.demo_records().iloc[:4000]
    release = ga.explore(records, location=("lat", "lon"), qi=["cost_usd"], sensitive="diagnosis",
                         identifiers=["record_id", "zip"], k=10, l=2, settings=(0.3, 0.7))
    shown = repr(release)
    assert shown.startswith("<Release of anonymize: 4000 rows, ") and len(shown) < 500, shown
    assert "in plain units: location box diagonal median" in shown and "trade-off" not in shown
    assert shown.count("\n") == 1
    assert "trade-off" in release.summary() and release.summary().count("\n") == 6     # the 3 settings' table
    # the tail beside the median (issue 51): p90 and the widest box, in the summary, the units and the trade-off
    widest = release.report["units"]["location"]["max_km"]
    assert widest >= release.report["units"]["location"]["p90_km"] and " km, max " in shown
    assert "max km" in release.summary() and all(p["max_km"] >= p["p90_km"] for p in release.report["frontier"]["points"])
    report = repr(release.report)
    assert report.startswith("<JobReport of anonymize: 4,000 rows") and len(report) < 600, report
    points = repr(ga.generalize_points(records[["lat", "lon"]], k=10))
    assert points.startswith("<Release of points: 4000 rows, ") and "x the lower bound" in points and "\n" not in points
