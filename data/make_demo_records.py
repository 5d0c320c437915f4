"""Build the demo records shipped in data/ (seeded, reproducible).

    pip download --no-deps zipcodes==3.0.0 -d /tmp/wheels
    python data/make_demo_records.py /tmp/wheels/zipcodes-3.0.0-cp39-abi3-manylinux_2_17_x86_64.manylinux2014_x86_64.whl data/

demo_patients.csv: 20,000 synthetic records placed at real ZIP centroids of the
contiguous US (48 states and DC), with their ZIP code (text: 01001 keeps its
leading zero; a ZIP sharing its centroid with a lower one is not a node of the
shipped graph, as real ZIP columns hold codes a map lacks). The centroids come from the zipcodes 3.0.0
package (coordinates (c) GeoNames, CC BY 4.0), read by make_zip_graph.py's
``zip_records`` and ``centroids``: the 29,546 active STANDARD ZIPs with a
centroid, in ZIP order, ZIPs sharing a centroid not collapsed. Each record's
ZIP is drawn with a heavy-tailed weight, so that some places hold several
records at identical coordinates, as geocoding to ZIP centroids does (12,991
ZIPs drawn, at 12,968 distinct coordinates).

demo_nc_births.csv: 30,000 synthetic birth records in North Carolina counties,
drawn in proportion to the counties' 1974 births (BIR74 of nc_counties.geojson,
from libpysal's sids2 example, read from this script's folder).

Diagnoses, costs and birth weights are invented. Both files are written
byte-identical to the shipped ones (with numpy 2 and pandas 3.1).
"""
import sys
from pathlib import Path

import geopandas as gpd
import numpy as np
import pandas as pd

from make_zip_graph import centroids, zip_records

DIAGNOSES = ["circulatory", "respiratory", "digestive", "musculoskeletal", "injury",
             "neoplasm", "endocrine", "mental health"]


def patients(z: pd.DataFrame, n: int = 20_000) -> pd.DataFrame:
    """n records at the centroids (lat, lon) of the ZIPs z, with their ZIP."""
    rng = np.random.default_rng(20261121)
    density = rng.lognormal(mean=0.0, sigma=0.7, size=len(z))
    pick = rng.choice(len(z), size=n, p=density / density.sum())
    return pd.DataFrame({
        "record_id": [f"R{i:05d}" for i in range(1, n + 1)],
        "diagnosis": rng.choice(DIAGNOSES, size=n),
        "cost_usd": np.round(rng.lognormal(7.5, 1.0, size=n)).astype(int),
        "zip": z["zip"].to_numpy()[pick],
        "lat": z["lat"].to_numpy()[pick],
        "lon": z["lon"].to_numpy()[pick],
    })


def nc_births(counties: Path, n: int = 30_000) -> pd.DataFrame:
    rng = np.random.default_rng(1974)
    nc = gpd.read_file(counties)
    share = nc["BIR74"].to_numpy(dtype=float)
    pick = rng.choice(len(nc), size=n, p=share / share.sum())
    return pd.DataFrame({
        "record_id": [f"B{i:05d}" for i in range(1, n + 1)],
        "county_fips": nc["FIPS"].to_numpy()[pick],
        "sex": rng.choice(["F", "M"], size=n),
        "birth_weight_g": np.round(rng.normal(3300, 550, size=n)).astype(int),
    })


if __name__ == "__main__":
    wheel, out = Path(sys.argv[1]), Path(sys.argv[2])
    patients(centroids(zip_records(wheel))).to_csv(out / "demo_patients.csv", index=False, lineterminator="\n")
    nc_births(Path(__file__).parent / "nc_counties.geojson").to_csv(out / "demo_nc_births.csv", index=False,
                                                                    lineterminator="\n")
    print(f"wrote {out / 'demo_patients.csv'} and {out / 'demo_nc_births.csv'}")
