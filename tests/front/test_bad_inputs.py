"""Bad input from the command line, table-driven (see ``badinput``): the
in-memory jobs and the audit."""
import os

import pandas as pd
import pytest

from badinput import (ROWS, Case, centroids_with, drop_field, edges_isolating, header_and, make_sources, records,
                      refused, regions_with)


@pytest.fixture(scope="module")
def sources(tmp_path_factory):
    return make_sources(tmp_path_factory.mktemp("sources"))


# every column has a role (the job's own, --identifiers or --keep), so that each case fails for its own reason
DEFAULTS = {
    "points": {"IN": "in.csv", "-k": "5", "--lat": "lat", "--lon": "lon", "-o": "out.csv", "--report": "r.json",
               "--map": "m.html", "--identifiers": "id,name", "--keep": "zip,age,sex,race,diagnosis"},
    "zip": {"IN": "in.csv", "-k": "30", "--zip-col": "zip", "--regions": "regions.geojson", "--region-id": "FIPS",
            "-o": "out.csv", "--report": "r.json", "--map": "m.html", "--classes": "c.geojson",
            "--identifiers": "id,name,lat,lon", "--keep": "age,sex,race,diagnosis"},
    "labels": {"IN": "in.csv", "-k": "40", "--label-col": "name", "-o": "out.csv", "--report": "r.json",
               "--classes": "c.csv", "--identifiers": "id,lat,lon", "--keep": "zip,age,sex,race,diagnosis"},
    "suppress": {"IN": "in.csv", "--qi": "age,sex,race", "--sensitive": "diagnosis", "-k": "5", "-o": "out.csv",
                 "--report": "r.json", "--classes": "c.csv", "--identifiers": "id,name,lat,lon", "--keep": "zip"},
    "audit": {"IN": "in.csv", "--qi": "age,sex", "--sensitive": "diagnosis", "-k": "2", "--report": "r.json"},
    "anonymize": {"IN": "in.csv", "--lat": "lat", "--lon": "lon", "--qi": "age,sex,race", "--sensitive": "diagnosis",
                  "-k": "5", "-o": "out.csv", "--report": "r.json", "--map": "m.html", "--keep": "id,zip,name"},
}
JOBS = ("points", "zip", "labels", "suppress", "anonymize")
ALL = JOBS + ("audit",)


def _cases():
    cases = []

    def add(command, case_id, message, **kw):
        cases.append(Case(f"{command}: {case_id}", command, message, **kw))

    # -- files ---------------------------------------------------------------
    missing_col = {"points": {"--lat": "latitude"}, "zip": {"--zip-col": "nope"}, "labels": {"--label-col": "nope"},
                   "suppress": {"--qi": "age,nope", "--keep": "zip,sex,race"}, "audit": {"--qi": "nope"},
                   "anonymize": {"--qi": "age,nope", "--keep": "id,zip,name,sex,race"}}
    # the roles without the column id (renamed class_id)
    no_id = {"points": {"--identifiers": "name"}, "zip": {"--identifiers": "name,lat,lon"},
             "labels": {"--identifiers": "lat,lon"}, "suppress": {"--identifiers": "name,lat,lon"},
             "anonymize": {"--keep": "zip,name"}}
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
            files={"bad.csv": drop_field(records(20), 6)})
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
            add(c, "class_id already there", "'class_id' already exists", set={"IN": "bad.csv", **no_id[c]},
                files={"bad.csv": records(20).replace("id,", "class_id,", 1)})

    # -- roles ---------------------------------------------------------------
    without_qi = "give each to --keep (published as it is) or --identifiers (dropped), or generalize it with " \
                 "geoanon anonymize --qi"
    for c, loose, ways in (
            ("points", "5 columns 'zip', 'age', 'sex', 'race', 'diagnosis'", without_qi),
            ("zip", "4 columns 'age', 'sex', 'race', 'diagnosis'", without_qi),
            ("labels", "5 columns 'zip', 'age', 'sex', 'race', 'diagnosis'", without_qi),
            ("suppress", "1 column 'zip'", "give it to --qi (generalized), --keep (published as it is) or "
                                            "--identifiers (dropped)"),
            ("anonymize", "3 columns 'id', 'zip', 'name'", "give each to --qi (generalized), --keep (published as "
                                                            "it is) or --identifiers (dropped)")):
        add(c, "columns without a role", f"error: {loose} {'has' if loose[0] == '1' else 'have'} no role and would "
            f"be published as {'it is' if loose[0] == '1' else 'they are'}: {ways}", set={"--keep": None})
    add("anonymize", "a column without a role", "error: 1 column 'name' has no role and would be published as it is: "
        "give it to --qi (generalized), --keep (published as it is) or --identifiers (dropped)", set={"--keep": "id,zip"})
    for c in JOBS:
        add(c, "--strict is gone", "unrecognized arguments: --strict", flags=("--strict",))
        add(c, "--shuffle is gone", "unrecognized arguments: --shuffle", flags=("--shuffle",))

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
    for c in ("points", "zip", "anonymize"):
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
    add("suppress", "-o shapefile over the hierarchy", "names the --ground file (its .prj file is hier.prj)",
        set={"-o": "hier.shp", "--ground": "hier.prj", "-t": "0.5", "-k": None},
        files={"hier.prj": "d1;x;*\nd2;x;*\nd3;y;*\nd4;y;*\n"})
    add("points", "-o shapefile over an input shapefile's table", "names the input file (its .shx file is pts.shx)",
        set={"IN": "pts.shp", "-o": "pts.SHP"}, files={"pts.shp": _points_shapefile})
    add("audit", "report is the input", "names the input file", set={"IN": "in.json", "--report": "in.json"},
        files={"in.json": "{}"})
    add("audit", "report not json", "expected a .json file", set={"--report": "r.txt"})
    add("audit", "population missing", "no such file", set={"--population": "nope.csv"})
    add("audit", "population without the released classes", "must hold every released row",
        set={"--population": "p.csv"}, files={"p.csv": records(3)})
    add("audit", "report in /proc", "cannot write into the folder /proc", set={"--report": "/proc/r.json"})
    add("audit", "report is a folder", "is a folder", set={"--report": "rdir.json"}, files={"rdir.json": os.mkdir})

    # -- levels ------------------------------------------------------------------
    for c in ALL:
        add(c, "k zero", "k must be an integer >= 1", set={"-k": "0"})
        add(c, "k negative", "k must be an integer >= 1", set={"-k": "-3"})
        add(c, "k not a number", "expected an integer", set={"-k": "ten"})
        add(c, "k fractional", "expected an integer", set={"-k": "2.5"})
        add(c, "k above the rows", "larger than", set={"-k": str(ROWS + 1)})
    for c in ("suppress", "audit", "anonymize"):
        for value in ("nan", "inf", "-inf", "0.5", "-2"):
            add(c, f"l {value}", "l must be a finite number >= 1", set={"-l": value})
        for value in ("nan", "inf", "1.5", "-0.1"):
            add(c, f"t {value}", "t must be a number in [0, 1]", set={"-t": value})
        add(c, "l_distinct zero", "l_distinct must be an integer >= 1", set={"--l-distinct": "0"})
        add(c, "l_distinct fractional", "expected an integer", set={"--l-distinct": "2.5"})
        for flag, value, message in (("--l-entropy", "0.5", "l_entropy must be a finite number >= 1"),
                                     ("--l-entropy", "nan", "l_entropy must be a finite number >= 1"),
                                     ("--recursive", "3", "expected C,L"), ("--recursive", "3,2,1", "expected C,L"),
                                     ("--recursive", "3,0", "recursive must be a pair"),
                                     ("--recursive", "0,2", "recursive must be a pair"),
                                     ("--beta", "0", "beta must be a finite number > 0"),
                                     ("--beta-enhanced", "inf", "beta_enhanced must be a finite number > 0"),
                                     ("--delta", "-1", "delta must be a finite number > 0")):
            add(c, f"{flag} {value}", message, set={flag: value})
        add(c, "delta without a sensitive column", "--delta needs a sensitive column",
            set={"--delta": "1", "--sensitive": None})
        add(c, "l without a sensitive column", "need a sensitive column", set={"-l": "2", "--sensitive": None})
        add(c, "t without a sensitive column", "need a sensitive column", set={"-t": "0.3", "--sensitive": None})
        add(c, "a quasi-identifier twice", "listed twice", set={"--qi": "age,sex,age"})
        add(c, "sensitive among the quasi-identifiers", "cannot also be a quasi-identifier",
            set={"--qi": "age,diagnosis"})
        add(c, "no quasi-identifier", "expected column names", set={"--qi": ","})
        add(c, "missing sensitive column", "no column 'nope'", set={"--sensitive": "nope", "-l": "2",
            **({"--keep": "zip,diagnosis"} if c == "suppress" else {})})
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
    pts("bounds through records", "touch 2 points: an edge on a record would publish its coordinate",
        set={"IN": "bad.csv", "-k": "2", "--bounds": "-81.1,35.1,-80.1,35.9"},
        files={"bad.csv": header_and([{"lat": "35.1", "lon": "-81.1"}, {"lat": "35.9", "lon": "-80.1"}, {}, {}])})
    pts("unknown crs", "crs", set={"--crs": "EPSG:999999"})
    pts("lat_min already there", "already exists", set={"IN": "bad.csv", "--identifiers": "id",
        "--keep": "zip,age,sex,race,diagnosis,lat_min"},
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
       files={"gap.geojson": regions_with(lambda g: g.assign(FIPS=g.FIPS.where(g.index != 3, None)))})
    zp("centroid latitude out of range", "outside", set={"--regions": "cbad.csv", "--map": None,
       "--classes": None}, files={"cbad.csv": centroids_with(lat={5: "95"})})
    zp("centroid longitude out of range", "outside", set={"--regions": "cbad.csv", "--map": None,
       "--classes": None}, files={"cbad.csv": centroids_with(lon={5: "-200"})})
    zp("centroid not a number", "is not a number", set={"--regions": "cbad.csv", "--map": None,
       "--classes": None}, files={"cbad.csv": centroids_with(lat={5: "north"})})
    zp("centroid missing", "centroid", set={"--regions": "cbad.csv", "--map": None, "--classes": None},
       files={"cbad.csv": centroids_with(lat={5: ""})})
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
       files={"nocrs.geojson": regions_with(lambda g: g.set_geometry(g.geometry.translate(500, 0)), crs=None)})
    zp("mixed geometry kinds", "all polygons or all points", set={"--regions": "mixed.geojson"},
       files={"mixed.geojson": regions_with(lambda g: g.set_geometry(
           g.geometry.where(g.index != 2, g.geometry.centroid)))})
    zp("isolated light county", "weighs less than k", set={"--edges": "iso.csv", "-k": "30"},
       files={"iso.csv": edges_isolating})
    zp("unknown contiguity", "invalid choice", set={"--contiguity": "bishop"})
    zp("unknown small", "invalid choice", set={"--small": "drop"})
    zp("exact on a large graph", "exact", set={"--method": "exact", "-k": "2"})

    # -- anonymize -------------------------------------------------------------------
    def an(case_id, message, **kw):
        add("anonymize", case_id, message, **kw)

    no_location = {"--lat": None, "--lon": None, "--map": None, "--identifiers": "lat,lon"}
    races = "a;r;*\nb;r;*\nc;s;*\n"
    an("no level", "give at least one of -k, -l, --l-distinct, -t", set={"-k": None})
    an("two locations", "give one location", set={"--zip-col": "zip"})
    an("lat without lon", "give both --lat and --lon", set={"--lon": None})
    an("lat and lon one column", "'lat' is given two roles: location lat and location lon", set={"--lon": "lat"})
    an("region location without regions", "a region location needs --regions, --region-id",
       set={**no_location, "--zip-col": "zip"})
    zip_location = {**no_location, "--zip-col": "zip", "--regions": "regions.geojson", "--region-id": "FIPS",
                    "--keep": "id,name"}
    an("unknown region", "not in the regions", set={**zip_location, "IN": "bad.csv"},
       files={"bad.csv": records(ROWS, {3: {"zip": "99999"}})})
    an("small without a region location", "--small is for a region location", flags=("--small", "suppress"))
    an("contiguity without a region location", "--contiguity is for a region location",
       flags=("--contiguity", "queen"))
    an("small not a choice", "invalid choice", set=zip_location, flags=("--small", "drop"))
    an("unknown region suppressed, too few", "published as '*'", set={**zip_location, "IN": "bad.csv"},
       flags=("--unknown", "suppress"), files={"bad.csv": records(ROWS, {3: {"zip": "99999"}})})
    dated = {i: {"name": f"2024-03-{1 + i % 28:02d}"} for i in range(ROWS)}
    an("date column not in the table", "no column 'visit' in the table", flags=("--date", "visit"))
    an("date given twice", "--date name is given twice", set={"--qi": "age,sex,race,name", "--keep": "id,zip"},
       flags=("--date", "name", "--date", "name"))
    an("a date that is no date", "'2024-02-30' is not an ISO 8601 date", set={"IN": "d.csv", "--qi": "age,sex,race,name",
       "--keep": "id,zip"}, flags=("--date", "name"), files={"d.csv": records(ROWS, {**dated, 4: {"name": "2024-02-30"}})})
    an("dates in another format", "is not a date in the format '%d/%m/%Y'", set={"IN": "d.csv",
       "--qi": "age,sex,race,name", "--keep": "id,zip"}, flags=("--date", "name:%d/%m/%Y"), files={"d.csv": records(ROWS, dated)})
    an("regions file missing", "no such file", set={**no_location, "--zip-col": "zip", "--regions": "nope.geojson",
       "--region-id": "FIPS"})
    an("label location missing", "no column 'nope'", set={**no_location, "--label-col": "nope"})
    an("map without a location", "--map needs a location", set={"--lat": None, "--lon": None})
    an("classes without a location", "--classes needs a location", set={**no_location, "--classes": "c.geojson"})
    an("location also a quasi-identifier", "two roles", set={"--qi": "age,lat"})
    an("interval of a text column not among --qi", "'dee' is not a number", set={"--interval": "name",
                                                                                 "--keep": "id,zip"})
    an("two treatments", "two treatments", set={"--suppress": "race", "--sets": "race"})
    an("interval of text", "is not a number", set={"--interval": "sex"})
    an("hierarchy of a column missing", "cannot read the hierarchy", set={"--hierarchy": "race=nofile.csv"})
    an("hierarchy given twice", "--hierarchy race= is given twice", flags=("--hierarchy", "race=h.csv"),
       set={"--hierarchy": "race=h.csv"}, files={"h.csv": races})
    an("hierarchy without =", "--hierarchy expects COL=FILE", set={"--hierarchy": "race"})
    an("hierarchy with a cycle", "lists 'r' twice", set={"--hierarchy": "race=h.csv"},
       files={"h.csv": "a;r;t;r;*\nb;r;t;t2;*\nc;s;u;u2;*\n"})
    an("hierarchy leaf inside", "'a' is a leaf of the hierarchy and also a node", set={"--hierarchy": "race=h.csv"},
       files={"h.csv": "a;r;*\nb;a;*\nc;s;*\n"})
    an("hierarchy value with two parents", "'r' has two parents", set={"--hierarchy": "race=h.csv"},
       files={"h.csv": "a;r;p;*\nb;r;q;*\nc;s;q;*\n"})
    an("hierarchy without a value", "is not a leaf of its hierarchy", set={"--hierarchy": "race=h.csv"},
       files={"h.csv": "a;r;*\nb;r;*\n"})
    an("hierarchy of an unknown column", "no column 'job' in the table", set={"--hierarchy": "job=h.csv"},
       files={"h.csv": races})
    an("-o is the hierarchy", "names the --hierarchy race file", set={"-o": "h.csv", "--hierarchy": "race=h.csv"},
       files={"h.csv": races})
    an("report is the hierarchy", "names the --hierarchy race file",
       set={"--report": "h.json", "--hierarchy": "race=h.json"}, files={"h.json": races})
    an("map is the ground", "names the --ground file", set={"--map": "hier.html", "--ground": "hier.html",
       "-t": "0.5"}, files={"hier.html": "d1;x;*\nd2;x;*\nd3;y;*\nd4;y;*\n"})
    an("-o is the regions", "names the --regions file", set={**no_location, "--zip-col": "zip", "--regions":
       "regions.geojson", "--region-id": "FIPS", "-o": "regions.geojson"})
    an("classes is -o", "name the same file", set={"--classes": "c.geojson", "-o": "c.geojson"})
    an("unknown method", "invalid choice", set={"--method": "mondrian"})
    an("unknown extent", "invalid choice", set={"--extent": "hull"})
    an("jobs zero", "n_jobs must be a positive integer or -1", set={"--jobs": "0"})
    an("jobs below -1", "n_jobs must be a positive integer or -1", set={"--jobs": "-2"})
    an("resolution zero", "resolution must be a positive number", set={"--resolution": "0"})
    an("resolution negative", "resolution must be a positive number", set={"--resolution": "-0.1"})
    an("resolution NaN", "resolution must be a positive number", set={"--resolution": "nan"})
    an("resolution finer than the coordinates hold", "resolution=1e-20 is finer than coordinates",
       set={"--resolution": "1e-20"})
    an("bounds through records", "touch 2 points", set={"IN": "bad.csv", "-k": "2", "--bounds": "-81.1,35.1,-80.1,35.9",
       "--qi": "age", "--keep": "id,zip,name,sex,race"}, files={"bad.csv": header_and([{"lat": "35.1", "lon": "-81.1"}, {"lat": "35.9", "lon": "-80.1"},
                                                    {}, {}])})
    an("bounds too small", "must contain every point", set={"--bounds": "-81,35,-80,36"})
    an("unknown crs", "crs", set={"--crs": "EPSG:999999"})
    an("missing coordinate", "1 row has no coordinates", set={"IN": "bad.csv"},
       files={"bad.csv": records(ROWS, {3: {"lat": ""}})})
    an("latitude 91", "outside longitude", set={"IN": "bad.csv"}, files={"bad.csv": records(ROWS, {2: {"lat": "91"}})})
    an("l above what the table has", "l=9", set={"-l": "9"})
    an("keep a missing column", "keep names 'nope', which is not a column", set={"--keep": "nope"})
    an("keep and drop one column", "'id' is given two roles: identifiers and keep", flags=("--identifiers", "id"))
    an("withheld share above 1", "max_withheld must be a share of the rows", set={"--max-withheld": "150%"})
    an("attribution without tiles", "--attribution is the credit line of --tiles", set={"--attribution": "me"})

    # -- labels --------------------------------------------------------------------
    add("labels", "missing labels refused", "1 record has a missing or empty 'name'", set={"IN": "bad.csv",
        "-k": "2", "--missing": "error"}, files={"bad.csv": records(20, {4: {"name": ""}})})
    add("labels", "negative seed", "seed must be an integer >= 0", set={"--seed": "-1", "--label-order": "random"})
    add("labels", "seed not a number", "expected an integer", set={"--seed": "x"})
    add("labels", "unknown method", "invalid choice", set={"--method": "best"})
    add("labels", "unknown order", "invalid choice", set={"--label-order": "sorted"})
    return cases


def _points_shapefile(path):
    import geopandas as gpd

    frame = pd.read_csv(path.parent / "in.csv", dtype=str)
    gpd.GeoDataFrame(frame[["id"]], geometry=gpd.points_from_xy(frame.lon.astype(float), frame.lat.astype(float)),
                     crs="EPSG:4326").to_file(path)


CASES = _cases()


def test_the_table_is_large():
    assert len(CASES) >= 200
    assert len({c.id for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_exit_2_one_line_nothing_written(case, sources, tmp_path, cli, monkeypatch):
    refused(cli, case, DEFAULTS, sources, tmp_path, monkeypatch)
