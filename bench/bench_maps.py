"""Benchmark the map previews and the HTML report on large releases, beside
what a folium user would write, in one run.

    pip install ".[bench]"          # and Debian's chromium
    python bench/bench_maps.py      # about 5 minutes; --quick for a smoke run

Points drawn from a normal cloud over the US (seeded) are generalized at
k = 10; each measurement then runs in a fresh process on that release:

- ``geoanon``: :func:`geoanon.maps.class_map` (one layer built in the browser
  from geometries and property arrays, canvas from 2,000 classes, coordinates
  to 6 decimals, Natural Earth outlines) and ``render_html``;
- ``folium_svg`` and ``folium_canvas``: ``folium.GeoJson`` of the same classes
  with a ``style_function`` and a ``GeoJsonTooltip`` (class and records), on
  the same offline page (Leaflet inlined, no tiles), drawn as SVG or canvas;
- ``report``: :meth:`Release.to_html`, the HTML report with the map embedded.

Reported: the page's build time in Python (best of 3), its size, and headless
Chromium (network refused) loading it: wall time of the process to the dumped
DOM (Chromium's own start-up included; an empty page is the ``chromium`` row)
and how many class features the map holds once the page's scripts have run
(a script appended to the page counts the map's layers whose feature has a class_id). The
results replace the maps section of bench/RESULTS.md.
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

PLAN = [(n, method) for n in (50_000, 500_000) for method in ("chromium", "geoanon", "folium_svg", "folium_canvas",
                                                               "report")]
QUICK = [(20_000, method) for method in ("chromium", "geoanon", "folium_svg", "report")]
K = 10
COUNTER = """<script>window.addEventListener("load", function () {
  setTimeout(function () {
    var map = Object.values(window).find(function (v) { return v instanceof L.Map; });
    var n = Object.values(map._layers).filter(function (l) {
      return l.feature && l.feature.properties && l.feature.properties.class_id !== undefined;
    }).length;
    document.body.setAttribute("data-features", n);
  }, 0);
});</script>"""


def release(n: int):
    import pandas as pd

    import geoanon as ga

    rng = np.random.default_rng(5)
    df = pd.DataFrame({"lat": np.round(35 + 3 * rng.normal(size=n), 5), "lon": np.round(-95 + 6 * rng.normal(size=n), 5)})
    return ga.generalize_points(df, K)


def build(method: str, rel) -> str:
    from geoanon.maps import class_map, offline_map, render_html

    if method == "geoanon":
        return render_html(class_map(rel.classes, K))
    if method == "report":
        return rel.to_html()
    import folium

    gdf = rel.classes.rename(columns={"weight": "records"})
    m = offline_map(gdf.total_bounds, canvas=method == "folium_canvas")
    folium.GeoJson(gdf[["class_id", "records", "geometry"]],
                   style_function=lambda f: {"fillColor": "#66c2a5", "color": "#333333", "weight": 1,
                                             "fillOpacity": 0.55},
                   tooltip=folium.GeoJsonTooltip(fields=["class_id", "records"])).add_to(m)
    return render_html(m)


def load_in_chromium(page: Path) -> tuple[float, int | None]:
    """Wall seconds of headless Chromium loading ``page`` and dumping its DOM,
    and the map's class features counted by :data:`COUNTER`."""
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    with tempfile.TemporaryDirectory() as profile:
        cmd = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
               "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
               f"--user-data-dir={profile}", "--proxy-server=http://127.0.0.1:9", "--proxy-bypass-list=<-loopback>",
               "--host-resolver-rules=MAP * ~NOTFOUND", "--window-size=1200,800", "--virtual-time-budget=60000",
               "--dump-dom", page.as_uri()]
        started = time.perf_counter()
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        seconds = time.perf_counter() - started
    found = re.search(r'data-features="(\d+)"', done.stdout)
    return seconds, int(found[1]) if found else None


def measure(n, method) -> dict:
    n = int(n)
    rel = release(n)
    row = {"n": n, "method": method, "classes": int(len(rel.classes))}
    with tempfile.TemporaryDirectory() as tmp:
        page = Path(tmp) / "page.html"
        if method == "chromium":
            page.write_text("<!DOCTYPE html><html><body>empty</body></html>")
        else:
            build(method, rel)                         # warm-up: imports, the outlines' cache
            best, html = np.inf, None
            for _ in range(3):
                started = time.perf_counter()
                html = build(method, rel)
                best = min(best, time.perf_counter() - started)
            row.update(build_s=round(best, 3), mb=round(len(html.encode()) / 1e6, 2))
            if method != "report":
                html = html.replace("</body>", COUNTER + "</body>")
            page.write_text(html, encoding="utf-8")
        row["load_s"], features = load_in_chromium(page)
        row["load_s"] = round(row["load_s"], 2)
        if method not in ("chromium", "report"):
            row["features"] = features
    return row


def describe(row) -> str:
    if "failed" in row:
        return f"{row['job']}: {row['failed']}"
    return (f"n={row['n']:>7,} {row['method']:<14} classes {row['classes']:>6,}  build {row.get('build_s', '-')} s  "
            f"{row.get('mb', '-')} MB  Chromium {row['load_s']} s  features {row.get('features', '-')}")


def run_plan(plan, resume=False) -> list[dict]:
    return run_measurements(__file__, plan, rows_file=HERE / "out" / "maps_rows.jsonl", resume=resume,
                            time_limit=900, describe=describe)


def write_results(rows, path: Path) -> None:
    lines = ["## Maps and reports (`python bench/bench_maps.py`)", "",
             f"{today()}, commit {code_state()}; {machine()}; "
             f"{subprocess.run(['chromium', '--version'], capture_output=True, text=True).stdout.strip()}.", "",
             f"Points from a normal cloud over the US, k = {K}. Build: the page in Python (best of 3). Chromium: wall "
             "time of a headless process loading the page with the network refused, to its dumped DOM (start-up "
             "included: the `chromium` row is an empty page). Features: class shapes the map holds once its scripts "
             "ran (every class, or the page did not finish).", "",
             "| points | page | classes | build (s) | size (MB) | Chromium (s) | features on the map |",
             "|---:|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        if "failed" in r:
            lines.append(f"| {int(r['job'][0]):,} | {r['job'][1]} | | | | {r['failed']} | |")
            continue
        features = r.get("features")
        shown = "" if r["method"] in ("chromium", "report") else (
            "none (did not finish)" if features is None else f"{features:,}")
        lines.append(f"| {r['n']:,} | {r['method']} | {r['classes']:,} | {r.get('build_s', '')} | {r.get('mb', '')} | "
                     f"{r['load_s']} | {shown} |")
    by = {(r["n"], r["method"]): r for r in rows if "failed" not in r}
    lines.append("")
    for n in sorted({r["n"] for r in rows if "failed" not in r}):
        ours, svg, canvas = by.get((n, "geoanon")), by.get((n, "folium_svg")), by.get((n, "folium_canvas"))
        if ours and svg and canvas:
            lines.append(f"- {n:,} points ({ours['classes']:,} classes): the page is {ours['mb'] / svg['mb']:.2f}x "
                         f"folium.GeoJson's size and builds {svg['build_s'] / ours['build_s']:.1f}x faster; Chromium "
                         f"loads it in {ours['load_s']} s against {svg['load_s']} s (SVG) and {canvas['load_s']} s "
                         f"(canvas).")
    replace_section(path, "maps", lines)


if __name__ == "__main__":
    main(__doc__, one_args=("N", "METHOD"), measure=measure, plan=PLAN, quick=QUICK, run=run_plan,
         write=write_results)
