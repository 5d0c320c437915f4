"""Bad input from the command line, table-driven.

Every case runs one subcommand on a folder holding good inputs and an output
file that already exists (``out.csv``), with one thing wrong. Each must end
with exit code 2 and one line on stderr naming the problem, no traceback, and
the folder exactly as it was: no new file (hidden staging included), no
changed file, the existing output untouched.
"""
import hashlib
import os
import shutil
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
import pytest

from geoanon.datasets import data_path, nc_counties

PRECIOUS = b"an earlier output that must survive\n"
ROWS = 400


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    """The good inputs, made once: records with coordinates, NC county ids,
    names and other quasi-identifiers; the county polygons, their centroids
    and rook edges; an ARX hierarchy of the sensitive column."""
    folder = tmp_path_factory.mktemp("sources")
    nc = nc_counties()
    rng = np.random.default_rng(0)
    df = pd.DataFrame({
        "id": [f"{i:05d}" for i in range(ROWS)],
        "lat": np.round(35 + rng.random(ROWS) * 1.5, 4).astype(str),
        "lon": np.round(-82 + rng.random(ROWS) * 6, 4).astype(str),
        "zip": rng.choice(nc.FIPS.to_numpy(), size=ROWS, p=nc.BIR74 / nc.BIR74.sum()),
        "name": rng.choice(["ann", "bob", "cy", "dee", "eve", "fay", "gus"], ROWS),
        "age": rng.integers(20, 80, ROWS).astype(str),
        "sex": rng.choice(["F", "M"], ROWS),
        "race": rng.choice(["a", "b", "c"], ROWS),
        "diagnosis": rng.choice(["d1", "d2", "d3", "d4"], ROWS),
    })
    df.to_csv(folder / "in.csv", index=False)
    nc.to_file(folder / "regions.geojson")
    import shapely

    xy = shapely.get_coordinates(shapely.centroid(nc.geometry.values))
    pd.DataFrame({"FIPS": nc.FIPS, "lat": xy[:, 1], "lon": xy[:, 0]}).to_csv(folder / "centroids.csv", index=False)
    shutil.copy(data_path("nc_counties_rook_edges.csv"), folder / "edges.csv")
    (folder / "hier.csv").write_text("d1;x;*\nd2;x;*\nd3;y;*\nd4;y;*\n")
    return folder


def header_and(rows, text=None):
    """A CSV of the standard columns with these rows (each a dict of overrides)."""
    base = {"id": "1", "lat": "35.5", "lon": "-80.5", "zip": "37001", "name": "ann", "age": "40", "sex": "F",
            "race": "a", "diagnosis": "d1"}
    lines = [",".join(base)]
    for row in rows:
        lines.append(",".join(str({**base, **row}[c]) for c in base))
    return "\n".join(lines) + "\n" if text is None else text


def records(n=ROWS, overrides=None):
    """``n`` good records, with ``overrides`` = {position: {column: value}}."""
    overrides = overrides or {}
    rng = np.random.default_rng(1)
    rows = []
    for i in range(n):
        row = {"id": f"{i:05d}", "lat": f"{35 + rng.random() * 1.5:.4f}", "lon": f"{-82 + rng.random() * 6:.4f}",
               "zip": "37001", "name": ["ann", "bob", "cy"][i % 3], "age": str(20 + i % 50), "sex": "FM"[i % 2],
               "race": "abc"[i % 3], "diagnosis": f"d{1 + i % 4}"}
        row.update(overrides.get(i, {}))
        rows.append(row)
    return header_and(rows)


DEFAULTS = {
    "points": {"IN": "in.csv", "-k": "5", "--lat": "lat", "--lon": "lon", "-o": "out.csv", "--report": "r.json",
               "--map": "m.html"},
    "zip": {"IN": "in.csv", "-k": "30", "--zip-col": "zip", "--regions": "regions.geojson", "--region-id": "FIPS",
            "-o": "out.csv", "--report": "r.json", "--map": "m.html", "--classes": "c.geojson"},
    "labels": {"IN": "in.csv", "-k": "40", "--col": "name", "-o": "out.csv", "--report": "r.json",
               "--classes": "c.csv"},
    "suppress": {"IN": "in.csv", "--qi": "age,sex,race", "--sensitive": "diagnosis", "-k": "5", "-o": "out.csv",
                 "--report": "r.json", "--classes": "c.csv"},
    "audit": {"IN": "in.csv", "--qi": "age,sex", "--sensitive": "diagnosis", "-k": "2", "--report": "r.json"},
}
JOBS = ("points", "zip", "labels", "suppress")
ALL = JOBS + ("audit",)


@dataclass
class Case:
    id: str
    command: str
    message: str
    set: dict = field(default_factory=dict)      # flag -> value (None drops the flag; "IN" is the input)
    files: dict = field(default_factory=dict)    # extra files: name -> text, bytes, or a callable(path)
    flags: tuple = ()                            # extra argument-less flags or pairs appended as they are


def _cases():
    cases = []

    def add(command, case_id, message, **kw):
        cases.append(Case(f"{command}: {case_id}", command, message, **kw))

    # -- files ---------------------------------------------------------------
    missing_col = {"points": {"--lat": "latitude"}, "zip": {"--zip-col": "nope"}, "labels": {"--col": "nope"},
                   "suppress": {"--qi": "age,nope"}, "audit": {"--qi": "nope"}}
    for c in ALL:
        add(c, "missing input", "no such file", set={"IN": "nope.csv"})
        add(c, "input is a folder", "is a folder", set={"IN": "folder.csv"}, files={"folder.csv": os.mkdir})
        add(c, "empty file", "the file is empty", set={"IN": "bad.csv"}, files={"bad.csv": ""})
        add(c, "header only", "no rows", set={"IN": "bad.csv"}, files={"bad.csv": header_and([])})
        add(c, "blank first line", "first line is empty", set={"IN": "bad.csv"},
            files={"bad.csv": "\n" + records(20)})
        add(c, "not UTF-8", "not UTF-8", set={"IN": "bad.csv"},
            files={"bad.csv": records(20).encode() + b"9,35.1,-80.1,37001,\xe9\xe9,40,F,a,d1\n"})
        add(c, "unknown input format", "unknown table format '.txt'", set={"IN": "in.txt"},
            files={"in.txt": records(20)})
        add(c, "short row", "malformed CSV: line 7 has 8 fields, the header 9", set={"IN": "bad.csv"},
            files={"bad.csv": _drop_field(records(20), 6)})
        add(c, "long row", "malformed CSV", set={"IN": "bad.csv"},
            files={"bad.csv": records(20).replace(",d1\n", ",d1,extra\n", 1)})
        add(c, "unclosed quote", "malformed CSV", set={"IN": "bad.csv"},
            files={"bad.csv": records(20).replace("\n00003,", '\n"00003,', 1)})
        add(c, "duplicate column", "names column", set={"IN": "bad.csv"},
            files={"bad.csv": records(20).replace("race", "age", 1)})
        add(c, "duplicate of a column it uses", "names column", set={"IN": "bad.csv"},
            files={"bad.csv": records(20).replace("id,", "lat,", 1).replace("race", "name", 1)
                   .replace("diagnosis", "diagnosis", 1)})
        add(c, "corrupt parquet", "cannot read parquet", set={"IN": "in.parquet"},
            files={"in.parquet": "this is not parquet\n"})
        add(c, "corrupt gzip", "cannot read csv", set={"IN": "in.csv.gz"}, files={"in.csv.gz": records(20)})
        add(c, "broken geojson", "cannot read geojson", set={"IN": "in.geojson"}, files={"in.geojson": "{"})
        add(c, "missing column", "no column", set=missing_col[c])
        if c in JOBS:
            add(c, "class_id already there", "'class_id' already exists", set={"IN": "bad.csv"},
                files={"bad.csv": records(20).replace("id,", "class_id,", 1)})

    # -- output paths ----------------------------------------------------------
    for c in JOBS:
        add(c, "-o is the input", "names the input file", set={"-o": "in.csv"})
        add(c, "-o is the input, written another way", "names the input file", set={"-o": "./sub/../in.csv"},
            files={"sub": os.mkdir})
        add(c, "-o is the input by absolute path", "names the input file", set={"-o": "{d}/in.csv"})
        add(c, "-o is a symlink to the input", "names the input file", set={"-o": "link.csv"},
            files={"link.csv": lambda p: os.symlink(p.parent / "in.csv", p)})
        add(c, "-o is a hard link to the input", "names the input file", set={"-o": "hard.csv"},
            files={"hard.csv": lambda p: os.link(p.parent / "in.csv", p)})
        add(c, "input through a symlink", "names the input file", set={"IN": "link.csv", "-o": "in.csv"},
            files={"link.csv": lambda p: os.symlink(p.parent / "in.csv", p)})
        add(c, "output folder missing", "does not exist", set={"-o": "no/such/out.csv"})
        add(c, "output folder not writable", "cannot write into the folder /proc", set={"-o": "/proc/x.csv"})
        add(c, "output is a folder", "is a folder", set={"-o": "outdir.csv"}, files={"outdir.csv": os.mkdir})
        add(c, "output is a fifo", "not a regular file", set={"-o": "fifo.csv"},
            files={"fifo.csv": os.mkfifo})
        add(c, "unknown output format", "unknown table format '.xlsx'", set={"-o": "out.xlsx"})
        add(c, "report not json", "expected a .json file", set={"--report": "r.txt"})
        add(c, "report is the input", "names the input file", set={"--report": "in.csv"})
        add(c, "report folder missing", "does not exist", set={"--report": "gone/r.json"})
        add(c, "report in /proc", "cannot write into the folder /proc", set={"--report": "/proc/r.json"})
    for c in ("points", "zip"):
        add(c, "map not html", "expected a .html file", set={"--map": "m.json"})
        add(c, "map folder missing", "does not exist", set={"--map": "gone/m.html"})
        add(c, "tiles URL without attribution", "attribution",
            set={"--tiles": "https://tiles.example.org/{z}/{x}/{y}.png"})
        add(c, "unknown tiles name", "tiles", set={"--tiles": "NoSuchTiles"})
    add("zip", "-o is the regions file", "names the --regions file", set={"-o": "regions.geojson"})
    add("zip", "classes is the regions file", "names the --regions file", set={"--classes": "regions.geojson"})
    add("zip", "-o is the edges file", "names the --edges file", set={"-o": "edges.csv", "--edges": "edges.csv"})
    add("zip", "classes is -o", "name the same file", set={"-o": "c.geojson", "--classes": "c.geojson"})
    add("zip", "classes as csv", "the classes file must be", set={"--classes": "c.csv"})
    add("labels", "classes is -o", "name the same file", set={"--classes": "out.csv"})
    add("labels", "classes as geojson", "the classes file must be", set={"--classes": "c.geojson"})
    add("labels", "classes is the input", "names the input file", set={"--classes": "in.csv"})
    add("suppress", "classes is -o", "name the same file", set={"--classes": "out.csv"})
    add("suppress", "-o is the hierarchy", "names the --ground file",
        set={"-o": "hier.csv", "--ground": "hier.csv", "-t": "0.5", "-k": None})
    add("audit", "report is the input", "names the input file", set={"IN": "in.json", "--report": "in.json"},
        files={"in.json": "{}"})
    add("audit", "report not json", "expected a .json file", set={"--report": "r.txt"})
    add("audit", "report in /proc", "cannot write into the folder /proc", set={"--report": "/proc/r.json"})
    add("audit", "report is a folder", "is a folder", set={"--report": "rdir.json"}, files={"rdir.json": os.mkdir})

    # -- levels ------------------------------------------------------------------
    for c in ALL:
        add(c, "k zero", "k must be an integer >= 1", set={"-k": "0"})
        add(c, "k negative", "k must be an integer >= 1", set={"-k": "-3"})
        add(c, "k not a number", "invalid int value", set={"-k": "ten"})
        add(c, "k fractional", "invalid int value", set={"-k": "2.5"})
        add(c, "k above the rows", "larger than", set={"-k": str(ROWS + 1)})
    for c in ("suppress", "audit"):
        for value in ("nan", "inf", "-inf", "0.5", "-2"):
            add(c, f"l {value}", "l must be a finite number >= 1", set={"-l": value})
        for value in ("nan", "inf", "1.5", "-0.1"):
            add(c, f"t {value}", "t must be a number in [0, 1]", set={"-t": value})
        add(c, "l_distinct zero", "l_distinct must be an integer >= 1", set={"--l-distinct": "0"})
        add(c, "l_distinct fractional", "invalid int value", set={"--l-distinct": "2.5"})
        add(c, "l without a sensitive column", "need a sensitive column", set={"-l": "2", "--sensitive": None})
        add(c, "t without a sensitive column", "need a sensitive column", set={"-t": "0.3", "--sensitive": None})
        add(c, "a quasi-identifier twice", "listed twice", set={"--qi": "age,sex,age"})
        add(c, "sensitive among the quasi-identifiers", "cannot also be a quasi-identifier",
            set={"--qi": "age,diagnosis"})
        add(c, "no quasi-identifier", "expected column names", set={"--qi": ","})
        add(c, "missing sensitive column", "no column 'nope'", set={"--sensitive": "nope", "-l": "2"})
        add(c, "hierarchy file missing", "is neither equal, ordered nor a hierarchy file", set={"--ground": "nofile.csv", "-t": "0.3"})
        add(c, "hierarchy without a root", "must end in one root", set={"--ground": "h2.csv", "-t": "0.3"},
            files={"h2.csv": "d1;x\nd2;y\n"})
        add(c, "hierarchy not UTF-8", "cannot read the hierarchy", set={"--ground": "h3.csv", "-t": "0.3"},
            files={"h3.csv": b"d1;\xe9;*\n"})
        add(c, "sensitive value outside the hierarchy", "is not in the hierarchy", set={"--ground": "h4.csv",
            "-t": "0.3"}, files={"h4.csv": "d1;x;*\nd2;x;*\n"})
        add(c, "sensitive value outside the order", "is not in the given order",
            set={"--ground": "ordered", "--order": "d1,d2", "-t": "0.3"})
        add(c, "an order listing a value twice", "lists a value twice",
            set={"--ground": "ordered", "--order": "d1,d2,d3,d4,d1", "-t": "0.3"})
    for value in ("nan", "inf", "0", "-5"):
        add("suppress", f"time limit {value}", "time_limit must be a positive", set={"--time-limit": value})
    add("suppress", "no level", "give at least one of", set={"-k": None})
    add("suppress", "approx with l", "k-anonymity only", set={"--method": "approx", "-l": "2"})
    add("suppress", "matching with k=3", "2-anonymity or 2-diversity", set={"--method": "matching", "-k": "3"})
    add("suppress", "exact on a large table", "16 rows", set={"--method": "exact"})
    add("suppress", "l above what the table has", "no grouping reaches l=9", set={"-l": "9"})
    add("suppress", "l_distinct above the values", "no grouping reaches l_distinct=5", set={"--l-distinct": "5"})
    add("suppress", "unknown method", "invalid choice", set={"--method": "magic"})
    for c in ("suppress", "audit"):
        add(c, "unknown ground", "--ground 'manhattan'", set={"--ground": "manhattan", "-t": "0.3"})

    # -- points --------------------------------------------------------------------
    def pts(case_id, message, rows=None, **kw):
        if rows is not None:
            kw.update(set={"IN": "bad.csv", "-k": "2"}, files={"bad.csv": records(20, rows)})
        add("points", case_id, message, **kw)

    pts("lat and lon one column", "--lat and --lon both name the column 'lat'", set={"--lon": "lat"})
    pts("lon without lat", "give both --lat and --lon", set={"--lat": None})
    pts("no geometry", "has no point geometry", set={"--lat": None, "--lon": None})
    pts("missing coordinate", "1 row has no coordinates (first: row 3)", rows={3: {"lat": ""}})
    pts("two missing coordinates", "2 rows have no coordinates", rows={3: {"lat": ""}, 5: {"lon": "NA"}})
    pts("infinite", "NaN or infinite", rows={4: {"lat": "inf"}})
    pts("minus infinite", "NaN or infinite", rows={4: {"lon": "-inf"}})
    pts("NaN text", "no coordinates", rows={4: {"lat": "nan"}})
    pts("text", "'forty' is not a number", rows={2: {"lat": "forty"}})
    pts("boolean text", "'True' is not a number", rows={2: {"lat": "True"}})
    pts("complex text", "is not a number", rows={2: {"lon": "1+2j"}})
    pts("latitude 91", "outside longitude [-180, 180] / latitude [-90, 90]", rows={2: {"lat": "91"}})
    pts("latitude -90.5", "outside longitude", rows={2: {"lat": "-90.5"}})
    pts("longitude 180.5", "outside longitude", rows={2: {"lon": "180.5"}})
    pts("longitude -540", "outside longitude", rows={2: {"lon": "-540"}})
    pts("bounds of 3 numbers", "XMIN,YMIN,XMAX,YMAX", set={"--bounds": "1,2,3"})
    pts("bounds not numbers", "XMIN,YMIN,XMAX,YMAX", set={"--bounds": "a,b,c,d"})
    pts("infinite bounds", "finite numbers", set={"--bounds": "-inf,-inf,inf,inf"})
    pts("NaN bounds", "finite numbers", set={"--bounds": "nan,30,-70,40"})
    pts("bounds too small", "must contain every point", set={"--bounds": "-81,35,-80,36"})
    pts("bounds beyond the globe", "bounds", set={"--bounds": "-200,30,-70,40"})
    pts("unknown crs", "crs", set={"--crs": "EPSG:999999"})
    pts("lat_min already there", "already exists", set={"IN": "bad.csv"},
        files={"bad.csv": records(20).replace("name", "lat_min", 1)})
    pts("few rows without coordinates", "1 row without coordinates cannot form a suppressed class of k=2",
        rows={3: {"lat": "", "lon": ""}}, flags=("--missing", "suppress"))
    pts("no row has coordinates", "no row has coordinates", set={"IN": "bad.csv", "-k": "2"},
        files={"bad.csv": header_and([{"lat": "", "lon": ""}] * 4)}, flags=("--missing", "suppress"))
    pts("bad method", "invalid choice", set={"--method": "median"})
    pts("bad missing", "invalid choice", set={"--missing": "drop"})

    # -- zip -----------------------------------------------------------------------
    def zp(case_id, message, **kw):
        add("zip", case_id, message, **kw)

    zp("unknown region", "is not in the regions", set={"IN": "bad.csv", "-k": "2"},
       files={"bad.csv": records(20, {3: {"zip": "99999"}})})
    zp("missing region", "not in the regions", set={"IN": "bad.csv", "-k": "2"},
       files={"bad.csv": records(20, {3: {"zip": ""}})})
    zp("regions file missing", "no such file", set={"--regions": "nope.geojson"})
    zp("region id column missing", "no column 'GEOID' in the regions", set={"--region-id": "GEOID"})
    zp("region ids repeated", "appears more than once", set={"--regions": "dup.csv", "--region-id": "FIPS",
       "--map": None, "--classes": None}, files={"dup.csv": "FIPS,lat,lon\n37001,36,-79\n37001,35,-80\n"})
    zp("region id missing", "missing values", set={"--regions": "gap.geojson"},
       files={"gap.geojson": _regions_with(lambda g: g.assign(FIPS=g.FIPS.where(g.index != 3, None)))})
    zp("centroid latitude out of range", "outside", set={"--regions": "cbad.csv", "--map": None,
       "--classes": None}, files={"cbad.csv": _centroids_with(lat={5: "95"})})
    zp("centroid longitude out of range", "outside", set={"--regions": "cbad.csv", "--map": None,
       "--classes": None}, files={"cbad.csv": _centroids_with(lon={5: "-200"})})
    zp("centroid not a number", "is not a number", set={"--regions": "cbad.csv", "--map": None,
       "--classes": None}, files={"cbad.csv": _centroids_with(lat={5: "north"})})
    zp("centroid missing", "centroid", set={"--regions": "cbad.csv", "--map": None, "--classes": None},
       files={"cbad.csv": _centroids_with(lat={5: ""})})
    zp("centroids without lat", "no column", set={"--regions": "cbad.csv", "--map": None, "--classes": None},
       files={"cbad.csv": "FIPS,y,x\n37001,36,-79\n"})
    zp("edges file missing", "no such file", set={"--edges": "nope.csv"})
    zp("edges with one column", "two id columns", set={"--edges": "e1.csv"}, files={"e1.csv": "a\n37001\n"})
    zp("edges with an empty id", "empty id", set={"--edges": "e2.csv"}, files={"e2.csv": "a,b\n37001,\n"})
    zp("unclosed ring", "closed", set={"--regions": "ring.geojson", "--region-id": "id"},
       files={"ring.geojson": '{"type":"FeatureCollection","features":[{"type":"Feature","properties":'
                              '{"id":"a"},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],'
                              '[0,1]]]}}]}'})
    zp("regions without CRS beyond the globe", "CRS", set={"--regions": "nocrs.geojson"},
       files={"nocrs.geojson": _regions_with(lambda g: g.set_geometry(g.geometry.translate(500, 0)), crs=None)})
    zp("mixed geometry kinds", "all polygons or all points", set={"--regions": "mixed.geojson"},
       files={"mixed.geojson": _regions_with(lambda g: g.set_geometry(
           g.geometry.where(g.index != 2, g.geometry.centroid)))})
    zp("isolated light county", "weighs less than k", set={"--edges": "iso.csv", "-k": "30"},
       files={"iso.csv": _edges_isolating})
    zp("unknown contiguity", "invalid choice", set={"--contiguity": "bishop"})
    zp("unknown small", "invalid choice", set={"--small": "drop"})
    zp("exact on a large graph", "exact", set={"--method": "exact", "-k": "2"})

    # -- labels --------------------------------------------------------------------
    add("labels", "missing labels refused", "1 record has a missing or empty 'name'", set={"IN": "bad.csv",
        "-k": "2", "--missing": "error"}, files={"bad.csv": records(20, {4: {"name": ""}})})
    add("labels", "negative seed", "seed must be an integer >= 0", set={"--seed": "-1", "--order": "random"})
    add("labels", "seed not a number", "invalid int value", set={"--seed": "x"})
    add("labels", "unknown method", "invalid choice", set={"--method": "best"})
    add("labels", "unknown order", "invalid choice", set={"--order": "sorted"})
    return cases


def _drop_field(text, line_index):
    """``text`` with the last field of line ``line_index`` (0 = header) removed."""
    lines = text.split("\n")
    lines[line_index] = lines[line_index].rsplit(",", 1)[0]
    return "\n".join(lines)


def _regions_with(change, crs="EPSG:4326"):
    """A maker of the NC counties changed by ``change`` (and without CRS when ``crs`` is None)."""
    def make(path):
        g = change(nc_counties().copy())
        (g.set_crs(None, allow_override=True) if crs is None else g).to_file(path)
    return make


def _centroids_with(lat=None, lon=None):
    import shapely

    nc = nc_counties()
    xy = shapely.get_coordinates(shapely.centroid(nc.geometry.values))
    frame = pd.DataFrame({"FIPS": nc.FIPS, "lat": xy[:, 1].astype(str), "lon": xy[:, 0].astype(str)})
    for column, changes in (("lat", lat or {}), ("lon", lon or {})):
        for i, v in changes.items():
            frame.loc[i, column] = v
    return frame.to_csv(index=False)


def _edges_isolating(path):
    """NC rook edges without the edges of the county holding the fewest
    records, so that it is a component of its own, lighter than k."""
    edges = pd.read_csv(data_path("nc_counties_rook_edges.csv"), dtype=str)
    lonely = pd.read_csv(path.parent / "in.csv", dtype=str)["zip"].value_counts().index[-1]
    a, b = edges.columns[:2]
    edges[(edges[a] != lonely) & (edges[b] != lonely)].to_csv(path, index=False)


CASES = _cases()


def _materialize(folder, files):
    for name, content in files.items():
        path = folder / name
        if callable(content):
            content(path)
        else:
            path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8"))


def _snapshot(folder):
    """Every entry under ``folder`` (hidden ones too) with its kind and content hash."""
    state = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            rel = os.path.relpath(path, folder)
            if os.path.islink(path):
                state[rel] = ("link", os.readlink(path))
            elif os.path.isdir(path):
                state[rel] = ("dir",)
            elif os.path.isfile(path):
                with open(path, "rb") as f:
                    state[rel] = ("file", hashlib.sha256(f.read()).hexdigest())
            else:
                state[rel] = ("other",)
    return state


def _argv(case, folder):
    options = {**DEFAULTS[case.command], **case.set}
    argv = [case.command, str(options.pop("IN")).replace("{d}", str(folder))]
    for flag, value in options.items():
        if value is not None:
            value = str(value).replace("{d}", str(folder))
            argv += [f"{flag}={value}"] if value.startswith("-") else [flag, value]
    return argv + list(case.flags)


def test_the_table_is_large():
    assert len(CASES) >= 200
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_exit_2_one_line_nothing_written(case, sources, tmp_path, cli, monkeypatch):
    for name in ("in.csv", "regions.geojson", "centroids.csv", "edges.csv", "hier.csv"):
        shutil.copy(sources / name, tmp_path / name)
    (tmp_path / "out.csv").write_bytes(PRECIOUS)
    _materialize(tmp_path, case.files)
    monkeypatch.chdir(tmp_path)
    before = _snapshot(tmp_path)
    code, out, err = cli(*_argv(case, tmp_path))
    lines = err.strip().splitlines()
    assert code == 2, (code, out, err)
    assert len(lines) == 1 and "Traceback" not in err, err
    assert case.message in lines[0], lines[0]
    assert "np." not in lines[0] and "on_small=" not in lines[0] and "missing='" not in lines[0], lines[0]
    assert _snapshot(tmp_path) == before
    assert (tmp_path / "out.csv").read_bytes() == PRECIOUS
