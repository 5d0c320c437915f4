"""Benchmark the map previews and the HTML report on the maps issue 33 asks
to draw in seconds, beside what a folium user would write, in one run.

    pip install ".[bench]"          # and Debian's chromium
    python bench/bench_maps.py      # about 10 minutes; --quick for a smoke run

Releases (seeded, each built in the measuring process):

- ``points``: 500,000 clustered points (``datasets.clustered``) at k = 15;
- ``cities``: 20,000 records around nine US cities, 5% rural, 20% sharing a
  household's coordinates, with age and sex, released jointly at k = 5 (the
  map that drew as a strip at 1400 x 1000 when such maps were SVG);
- ``zip``: ``geoanon zip`` of 20,000 records at the shipped US ZIP codes (1%
  empty, 1% malformed, suppressed) over all 29,442 ZIPs with a centroid off
  (0, 0), k = 5: one polygon per group, Voronoi cells clipped to the land;
- ``zip_joint``: the joint release of the same records with age and sex.

Pages: ``geoanon`` (:func:`geoanon.report.maps.class_map` and ``render_html``: a canvas
layer built in the browser, colour scales, popups, outlines); ``svg``: the same
page drawn as SVG; ``markers``: the ZIP groups drawn as their members'
centroids (what the joint release drew before its groups were polygons);
``folium_svg`` and ``folium_canvas``: ``folium.GeoJson`` of the same classes
with a ``style_function`` and a ``GeoJsonTooltip`` (class and records), on the
same offline page; ``report``: :meth:`Release.to_html`, the HTML report with
the map embedded; ``chromium``: an empty page.

Reported: the release's class shapes (``shapes``: for ZIP groups, the Voronoi
cells, their clipping to the land and the union per group), the page's build
time (best of 3) and size; headless Chromium (network refused) taking a
1400 x 1000 screenshot of it: the wall time of the process (start-up
included), the class features the map holds once its scripts ran (a script
appended to the page counts them) and the share of the screenshot painted (not
the map's grey background; a page that draws a strip paints less). The
results replace the maps section of bench/RESULTS.md.

    python bench/bench_maps.py --readable     # about 5 minutes

measures the map step of the README's two releases of the shipped demo
records instead (``demo_points``: GPS points, k = 10, l = 2; ``demo_zip``:
ZIP codes over the shipped ZIP map, k = 10): the page with place names
(``places``, the default) and without (``no_places``), its build time (best
of 7), size and Chromium's screenshot, and the place names' own step, into
the section "Maps that read".
"""
from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from common import code_state, machine, main, replace_section, run_measurements, today  # noqa: E402

PLAN = [("points", m) for m in ("chromium", "geoanon", "folium_svg", "folium_canvas", "report")] + \
       [("cities", m) for m in ("geoanon", "svg")] + \
       [("zip", m) for m in ("geoanon", "folium_svg", "folium_canvas", "report")] + \
       [("zip_joint", m) for m in ("geoanon", "markers")]
QUICK = [("cities", m) for m in ("chromium", "geoanon", "svg")]
READABLE = [(d, m) for d in ("demo_points", "demo_zip") for m in ("places", "no_places")]
CHROMIUM_LIMIT = 120           # seconds a page may take in Chromium
SIZE = "1400,1000"
COUNTER = """<script>window.addEventListener("load", function () {
  setTimeout(function () {
    var map = Object.values(window).find(function (v) { return v instanceof L.Map; });
    var n = 0;
    map.eachLayer(function (l) { if (l.feature && l.feature.properties && !l.feature.properties.kind) n += 1; });
    document.body.setAttribute("data-features", n);
  }, 0);
});</script>"""


def release(dataset: str):
    """The release of a dataset (see the module's docstring) and its k."""
    import pandas as pd

    import geoanon as ga

    if dataset == "points":
        from datasets import clustered

        xy = clustered(500_000)
        return ga.generalize_points(pd.DataFrame({"lon": xy[:, 0], "lat": xy[:, 1]}), 15), 15
    if dataset == "cities":
        return ga.anonymize(cities(20_000), location=("lat", "lon"), qi=["age", "sex"], k=5), 5
    if dataset.startswith("demo_"):
        return demo_release(dataset), 10
    table, nodes = zip_records(20_000)
    location = {"regions": nodes, "region_id": "zip", "edges": ga.datasets.data_path("us_zip_delaunay_edges.csv.gz"),
                "unknown": "suppress"}
    if dataset == "zip":
        return ga.generalize_regions(table, 5, column="zip", keep=["age", "sex"], **location), 5
    return ga.anonymize(table, location={"zip": "zip", **location}, qi=["age", "sex"], k=5), 5


def demo_release(dataset: str):
    """The README's release of the shipped demo records: by GPS point (``demo_points``) or ZIP code."""
    import pandas as pd

    import geoanon as ga
    from geoanon.datasets import data_path

    records = ga.datasets.demo_records()
    if dataset == "demo_points":
        return ga.anonymize(records, location=("lat", "lon"), qi=["cost_usd"], sensitive="diagnosis",
                            identifiers=["record_id", "zip"], k=10, l=2)
    nodes = pd.read_csv(data_path("us_zip_delaunay_nodes.csv.gz"), dtype=str, keep_default_na=False)
    location = {"zip": "zip", "regions": nodes, "region_id": "zip",
                "edges": data_path("us_zip_delaunay_edges.csv.gz"), "unknown": "suppress"}
    return ga.anonymize(records, location=location, qi=["cost_usd"], sensitive="diagnosis",
                        identifiers=["record_id", "lat", "lon"], k=10)


def cities(n: int, seed: int = 2):
    """Records around nine US cities, 5% anywhere in the contiguous US, 20% at
    another record's coordinates (households), with age and sex."""
    import pandas as pd

    rng = np.random.default_rng(seed)
    towns = np.array([[40.71, -74.0], [34.05, -118.24], [41.88, -87.63], [29.76, -95.37], [33.45, -112.07],
                      [39.95, -75.17], [29.42, -98.49], [32.72, -117.16], [47.61, -122.33]])
    home = towns[rng.integers(0, len(towns), n)]
    lat, lon = home[:, 0] + rng.normal(0, 0.15, n), home[:, 1] + rng.normal(0, 0.2, n)
    rural = rng.random(n) < 0.05
    lat[rural], lon[rural] = rng.uniform(25, 49, rural.sum()), rng.uniform(-124, -67, rural.sum())
    shared = rng.random(n) < 0.2
    other = rng.integers(0, n, n)[shared]
    lat[shared], lon[shared] = lat[other], lon[other]
    return pd.DataFrame({"lat": lat.round(6), "lon": lon.round(6), "age": rng.integers(0, 95, n),
                         "sex": rng.choice(["F", "M"], n)})


def zip_records(n: int, seed: int = 7):
    """Records at the shipped ZIP codes as text (1% empty, 1% "ABCDE"), with age
    and sex, and the ZIP centroids without any at (0, 0)."""
    import pandas as pd

    from geoanon.datasets import data_path

    nodes = pd.read_csv(data_path("us_zip_delaunay_nodes.csv.gz"), dtype=str, keep_default_na=False)
    nodes = nodes[(nodes["lat"].astype(float) != 0) | (nodes["lon"].astype(float) != 0)]
    rng = np.random.default_rng(seed)
    zips = nodes["zip"].to_numpy()[rng.integers(0, len(nodes), n)].astype(object)
    draw = rng.random(n)
    zips[draw < 0.01] = ""
    zips[(draw >= 0.01) & (draw < 0.02)] = "ABCDE"
    return pd.DataFrame({"zip": zips, "age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n)}), nodes


def build(method: str, rel, k: int) -> str:
    from geoanon.report.maps import class_map, offline_map, render_html

    if method in ("geoanon", "places"):
        return render_html(rel.preview())
    if method == "no_places":
        return render_html(rel.preview(places=False))
    if method == "svg":
        m = rel.preview()
        m.options["preferCanvas"] = False
        return render_html(m)
    if method == "markers":
        return render_html(class_map(rel.classes.set_geometry(member_points(rel)), k))
    if method == "report":
        return rel.to_html()
    import folium

    gdf = rel.classes[rel.classes.geometry.notna()].rename(columns={"weight": "records"})
    m = offline_map(gdf.total_bounds, canvas=method == "folium_canvas")
    folium.GeoJson(gdf[["class_id", "records", "geometry"]],
                   style_function=lambda f: {"fillColor": "#66c2a5", "color": "#333333", "weight": 1,
                                             "fillOpacity": 0.55},
                   tooltip=folium.GeoJsonTooltip(fields=["class_id", "records"])).add_to(m)
    return render_html(m)


def member_points(rel) -> np.ndarray:
    """Each location class as the centroids of the ZIPs inside its polygon."""
    import shapely

    _, nodes = zip_records(0)
    points = shapely.points(nodes[["lon", "lat"]].astype(float).to_numpy())
    shapes = rel.classes.geometry.to_numpy()
    drawn = ~shapely.is_missing(shapes)
    group, point = shapely.STRtree(points).query(shapes[drawn], predicate="covers")
    out = np.full(len(shapes), None, dtype=object)
    out[np.flatnonzero(drawn)] = shapely.multipoints(points[point], indices=group)
    return out


def shapes_seconds(rel) -> float:
    """Seconds to build a ZIP release's group shapes again from its members (best of 3)."""
    from geoanon.pipeline.region_shapes import _land, group_shapes

    _, nodes = zip_records(0)
    import geopandas as gpd

    regions = gpd.GeoSeries(gpd.points_from_xy(nodes["lon"].astype(float), nodes["lat"].astype(float)),
                            index=nodes["zip"].to_numpy(), crs="EPSG:4326")
    members = rel.classes["members"].str.split(",").tolist()
    _land()                                    # the shipped land, decoded once per process
    best = np.inf
    for _ in range(3):
        started = time.perf_counter()
        group_shapes(regions, members)
        best = min(best, time.perf_counter() - started)
    return best


def places_seconds(rel) -> dict:
    """The place names' own step of a map (:func:`geoanon.report.places.near_places`
    around the classes, encoded for the page): seconds, best of 20, and the places."""
    import json

    from geoanon.report.maps import context_box, lonlat_shapes
    from geoanon.report.places import near_places

    shapes, _ = lonlat_shapes(rel.classes[rel.classes.geometry.notna()])
    box = context_box(shapes.total_bounds)
    near_places(*box)                          # the shipped places, read once per process
    best = np.inf
    for _ in range(20):
        started = time.perf_counter()
        found = json.dumps(near_places(*box), ensure_ascii=False, separators=(",", ":"))
        best = min(best, time.perf_counter() - started)
    return {"places_ms": round(1000 * best, 2), "places": len(json.loads(found)["name"])}


def screenshot(page: Path) -> tuple[float, int | None, float]:
    """Wall seconds of headless Chromium taking a screenshot of ``page``, the
    class features counted by :data:`COUNTER` (a second run dumping the DOM),
    and the share of the screenshot's pixels that are not the map's background."""
    from PIL import Image

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with tempfile.TemporaryDirectory() as tmp:
        base = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
                "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
                "--host-resolver-rules=MAP * ~NOTFOUND", f"--window-size={SIZE}", "--virtual-time-budget=60000"]
        shot = Path(tmp) / "shot.png"
        started = time.perf_counter()
        try:
            subprocess.run([*base, f"--user-data-dir={tmp}/a", f"--screenshot={shot}", page.as_uri()],
                           capture_output=True, timeout=CHROMIUM_LIMIT)
        except subprocess.TimeoutExpired:
            return float("inf"), None, 0.0
        seconds = time.perf_counter() - started
        done = subprocess.run([*base, f"--user-data-dir={tmp}/b", "--dump-dom", page.as_uri()], capture_output=True,
                              text=True, timeout=CHROMIUM_LIMIT)
        rgb = np.asarray(Image.open(shot).convert("RGB"))
    found = re.search(r'data-features="(\d+)"', done.stdout)
    return seconds, int(found[1]) if found else None, float((rgb != 221).any(axis=2).mean())


def measure(dataset, method) -> dict:
    started = time.perf_counter()
    rel, k = release(dataset)
    row = {"dataset": dataset, "method": method, "release_s": round(time.perf_counter() - started, 2),
           "classes": int(rel.classes.geometry.notna().sum())}
    if dataset == "zip" and method == "geoanon":
        row["shapes_s"] = round(shapes_seconds(rel), 3)
    if method == "places":
        row.update(places_seconds(rel))
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "page.html"
        if method == "chromium":
            page.write_text("<!DOCTYPE html><html><body>empty</body></html>")
        else:
            build(method, rel, k)                      # warm-up: imports, the outlines' cache
            best, html = np.inf, None
            for _ in range(7 if method in ("places", "no_places") else 3):
                started = time.perf_counter()
                html = build(method, rel, k)
                best = min(best, time.perf_counter() - started)
            row.update(build_s=round(best, 3), mb=round(len(html.encode()) / 1e6, 3))
            if method != "report":
                html = html.replace("</body>", COUNTER + "</body>")
            page.write_text(html, encoding="utf-8")
        seconds, features, share = screenshot(page)
        row.update(chromium_s=None if np.isinf(seconds) else round(seconds, 2), painted=round(share, 3))
        if method not in ("chromium", "report"):
            row["features"] = features
    return row


def describe(row) -> str:
    if "failed" in row:
        return f"{row['job']}: {row['failed']}"
    return (f"{row['dataset']:<9} {row['method']:<14} classes {row['classes']:>6,}  build {row.get('build_s', '-')} s  "
            f"{row.get('mb', '-')} MB  Chromium {row['chromium_s']} s  features {row.get('features', '-')}  "
            f"painted {row['painted']}")


def run_plan(plan, resume=False) -> list[dict]:
    rows = "maps_readable_rows.jsonl" if plan is READABLE else "maps_rows.jsonl"
    return run_measurements(__file__, plan, rows_file=HERE / "out" / rows, resume=resume, time_limit=900,
                            describe=describe)


def write_results(rows, path: Path) -> None:
    chromium = subprocess.run(["chromium", "--version"], capture_output=True, text=True).stdout.strip()
    lines = ["## Maps and reports (`python bench/bench_maps.py`)", "",
             f"{today()}, commit {code_state()}; {machine()}; {chromium}.", "",
             "Releases: `points`, 500,000 clustered points at k = 15; `cities`, 20,000 records around nine cities "
             "released jointly with age and sex at k = 5; `zip`, `geoanon zip` of 20,000 records over the 29,442 "
             "shipped ZIPs (2% unknown codes suppressed) at k = 5; `zip_joint`, their joint release with age and sex "
             "(see the script's docstring). Release: seconds to build it. Shapes: seconds to build the ZIP groups' "
             "polygons from their members (Voronoi cells, clipped to the land, united per group; best of 3). Build: "
             "the page in Python (best of 3). Chromium: wall seconds of a headless process taking a 1400 x 1000 "
             f"screenshot with the network refused (start-up included: the `chromium` row is an empty page; none "
             f"within {CHROMIUM_LIMIT} s: did not finish). Features: class shapes the map holds once its scripts "
             "ran. Painted: share of the screenshot that is not the map's background.", "",
             "| release | page | classes | release (s) | shapes (s) | build (s) | size (MB) | Chromium (s) | "
             "features | painted |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in rows:
        if "failed" in r:
            lines.append(f"| {r['job'][0]} | {r['job'][1]} | | | | | | {r['failed']} | | |")
            continue
        features = r.get("features")
        shown = "" if r["method"] in ("chromium", "report") else (
            "none (did not finish)" if features is None else f"{features:,}")
        seconds = "did not finish" if r["chromium_s"] is None else r["chromium_s"]
        lines.append(f"| {r['dataset']} | {r['method']} | {r['classes']:,} | {r['release_s']} | "
                     f"{r.get('shapes_s', '')} | {r.get('build_s', '')} | {r.get('mb', '')} | {seconds} | {shown} | "
                     f"{r['painted']} |")
    by = {(r["dataset"], r["method"]): r for r in rows if "failed" not in r}
    lines.append("")
    for dataset in dict.fromkeys(r["dataset"] for r in rows if "failed" not in r):
        ours, svg, canvas = (by.get((dataset, m)) for m in ("geoanon", "folium_svg", "folium_canvas"))
        if ours and svg and canvas:
            lines.append(f"- {dataset} ({ours['classes']:,} classes): the page is {ours['mb'] / svg['mb']:.2f}x "
                         f"folium.GeoJson's size and builds {svg['build_s'] / ours['build_s']:.1f}x faster; Chromium "
                         f"draws it in {ours['chromium_s']} s against {svg['chromium_s']} s (SVG) and "
                         f"{canvas['chromium_s']} s (canvas).")
        svg, markers = by.get((dataset, "svg")), by.get((dataset, "markers"))
        if ours and svg:
            strip = " (a strip: Chromium's tile memory runs out)" if svg["painted"] < 0.9 * ours["painted"] else ""
            lines.append(f"- {dataset} ({ours['classes']:,} classes): drawn as SVG, the same page paints "
                         f"{svg['painted']:.0%} of the view in {svg['chromium_s']} s{strip}, on its canvas "
                         f"{ours['painted']:.0%} in {ours['chromium_s']} s.")
        if ours and markers:
            shown = "did not finish" if markers["chromium_s"] is None else f"took {markers['chromium_s']} s"
            lines.append(f"- {dataset} ({ours['classes']:,} location classes): drawn as their members' centroids "
                         f"(one marker per ZIP) the page {shown} within {CHROMIUM_LIMIT} s; as one polygon per "
                         f"group Chromium draws it in {ours['chromium_s']} s.")
    replace_section(path, "maps", lines)


def write_readable(rows, path: Path) -> None:
    chromium = subprocess.run(["chromium", "--version"], capture_output=True, text=True).stdout.strip()
    lines = ["## Maps that read (`python bench/bench_maps.py --readable`)", "",
             f"{today()}, commit {code_state()}; {machine()}; {chromium}.", "",
             "The map step of the README's two releases of the shipped 20,000 demo records: `demo_points`, by GPS "
             "point (`--lat lat --lon lon --qi cost_usd --sensitive diagnosis -k 10 -l 2`, the joint default: boxes "
             "that overlap, drawn largest first); `demo_zip`, by ZIP code over the shipped ZIP map (`--zip-col zip "
             "... -k 10`). Page: `places`, the default map (classes drawn largest first, place names from the "
             "shipped Natural Earth places near the classes, labelled in the browser); `no_places`, the same with "
             "`preview(places=False)`. Build: `render_html(release.preview(...))` in Python (best of 7, after a "
             "warm-up that reads the shipped outlines and places once). Size: the HTML page. Chromium: wall seconds "
             "of a headless process taking a 1400 x 1000 screenshot (start-up included). Painted: share of the "
             "screenshot that is not the map's background.", "",
             "| release | page | shapes | build (s) | size (MB) | Chromium (s) | painted |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        if "failed" in r:
            lines.append(f"| {r['job'][0]} | {r['job'][1]} | | | | {r['failed']} | |")
            continue
        lines.append(f"| {r['dataset']} | {r['method']} | {r['features']:,} | {r['build_s']} | {r['mb']} | "
                     f"{r['chromium_s']} | {r['painted']} |")
    by = {(r["dataset"], r["method"]): r for r in rows if "failed" not in r}
    lines.append("")
    for dataset in ("demo_points", "demo_zip"):
        on, off = by.get((dataset, "places")), by.get((dataset, "no_places"))
        if on and off:
            lines.append(f"- {dataset}: the place names' own step (the {on['places']:,} shipped places near the "
                         f"classes, selected and encoded; best of 20) takes {on['places_ms']} ms; the whole page "
                         f"builds in {on['build_s']} s with them, {off['build_s']} s without (best of 7 on a machine "
                         f"shared with other jobs), and they add {1000 * (on['mb'] - off['mb']):,.0f} KB to its "
                         f"{off['mb']} MB.")
    replace_section(path, "maps-readable", lines)


if __name__ == "__main__":
    readable = "--readable" in sys.argv
    if readable:
        sys.argv.remove("--readable")
    main(__doc__, one_args=("DATASET", "METHOD"), measure=measure, plan=READABLE if readable else PLAN, quick=QUICK,
         run=run_plan, write=write_readable if readable else write_results)
