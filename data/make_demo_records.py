"""Build data/demo_patients.csv: synthetic records placed at real ZIP centroids of the
contiguous US (48 states and DC).

    python data/make_demo_records.py PATH/TO/us_zip_centroids.csv data/demo_patients.csv

The centroids come from the zipcodes 3.0.0 package (coordinates (c) GeoNames,
CC BY 4.0). Every record is synthetic: a ZIP drawn with a heavy-tailed weight,
so that some places hold many records at identical coordinates, as geocoding
to ZIP centroids does; a diagnosis group and a cost drawn at random. Seeded.
"""
import sys

import numpy as np
import pandas as pd

N_RECORDS = 20_000
CONUS = set("AL AR AZ CA CO CT DC DE FL GA IA ID IL IN KS KY LA MA MD ME MI MN MO MS MT NC ND NE NH NJ NM "
            "NV NY OH OK OR PA RI SC SD TN TX UT VA VT WA WI WV WY".split())
DIAGNOSES = ["circulatory", "respiratory", "digestive", "musculoskeletal", "injury",
             "neoplasm", "endocrine", "mental health"]

source, target = sys.argv[1], sys.argv[2]
rng = np.random.default_rng(20261121)
z = pd.read_csv(source, dtype={"zip": str})
z = z[(z["type"] == "STANDARD") & (z["active"] == 1) & z["state"].isin(CONUS) & z["lat"].notna() & z["lon"].notna()]
density = rng.lognormal(mean=0.0, sigma=0.7, size=len(z))
pick = rng.choice(len(z), size=N_RECORDS, p=density / density.sum())
records = pd.DataFrame({
    "record_id": [f"R{i:05d}" for i in range(1, N_RECORDS + 1)],
    "diagnosis": rng.choice(DIAGNOSES, size=N_RECORDS),
    "cost_usd": np.round(rng.lognormal(7.5, 1.0, size=N_RECORDS)).astype(int),
    "lat": z["lat"].to_numpy()[pick],
    "lon": z["lon"].to_numpy()[pick],
})
records.to_csv(target, index=False)
print(f"wrote {target}: {len(records)} records at {len(np.unique(pick))} distinct ZIP centroids")
