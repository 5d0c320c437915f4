"""Every report that shows NCP shows the loss in plain units beside it
(``units``): the jobs' reports, the JSON and HTML reports and the summary
line of ``geoanon anonymize``, and the audit against the original."""
import json

import numpy as np
import pandas as pd
import pytest

import geoanon as ga
from geoanon.report.html import unit_phrases

REGIONS = pd.DataFrame({"zip": ["27701", "27703", "27705", "27707", "27713"],
                        "lat": [35.99, 35.97, 36.02, 35.95, 35.90],
                        "lon": [-78.90, -78.84, -78.95, -78.95, -78.92]})
RECORDS = pd.DataFrame({"zip": ["27701"] * 3 + ["27703"] + ["27705"] * 2 + ["27707"] + ["27713"] * 3})


def _haversine_km(a, b):
    """Great-circle distance between (lat, lon) points, written out here."""
    (p1, l1), (p2, l2) = np.radians(a), np.radians(b)
    h = np.sin((p2 - p1) / 2) ** 2 + np.cos(p1) * np.cos(p2) * np.sin((l2 - l1) / 2) ** 2
    return 2 * 6371.0088 * np.arcsin(np.sqrt(h))


def _centroid(z):
    row = REGIONS.set_index("zip").loc[z]
    return row["lat"], row["lon"]


def test_regions_job_reports_each_group_diameter_between_centroids():
    r = ga.generalize_regions(RECORDS, k=3, column="zip", regions=REGIONS, region_id="zip")
    # groups 27701+27703 (4 records), 27705+27707 (3) and 27713 alone (3); a group of two: the diagonal of
    # its centroids' box is their distance
    first = _haversine_km(_centroid("27701"), _centroid("27703"))
    second = _haversine_km(_centroid("27705"), _centroid("27707"))
    per_row = np.sort([first] * 4 + [second] * 3 + [0.0] * 3)
    loc = r.report["units"]["location"]
    assert loc["measure"] == "group diameter" and loc["without"] == 0.0
    assert loc["median_km"] == pytest.approx(np.median(per_row), abs=1e-3)
    assert loc["p90_km"] == pytest.approx(np.quantile(per_row, 0.9), abs=1e-3)
    assert loc["exact"] == 0.3                                # the three records of 27713, published as it is
    assert r.report["units"]["columns"] == {} and "ncp" in r.report


def test_a_joint_release_by_zip_reports_its_groups_in_km():
    df = RECORDS.assign(age=[30, 31, 35, 40, 41, 44, 50, 52, 55, 60])
    r = ga.anonymize(df, location={"zip": "zip", "regions": REGIONS, "region_id": "zip"}, qi=["age"], k=3)
    loc = r.report["units"]["location"]
    assert loc["measure"] == "group diameter" and loc["without"] == 0.0
    lat, lon = REGIONS["lat"], REGIONS["lon"]
    box = _haversine_km((lat.min(), lon.min()), (lat.max(), lon.max()))
    assert 0 <= loc["median_km"] <= loc["p90_km"] <= box + 1e-3
    # one measure of a group's width: the plain units' and the job's location_km (the search's)
    assert (loc["median_km"], loc["p90_km"]) == (r.report["location_km"]["median"], r.report["location_km"]["p90"])
    assert set(r.report["units"]["columns"]) == {"age"}


def test_a_group_of_regions_measures_the_diagonal_of_its_centroids_box():
    """Four ZIPs in a diamond: the box's diagonal, not the largest distance between two of them."""
    from geoanon._geo import ground
    from geoanon.joint.km_loss import node_diameters

    corner = [(-78.85, 35.99), (-78.90, 36.04), (-78.80, 36.04), (-78.85, 36.09)]      # (x, y): lon, lat
    boxes = np.array([(x, y, x, y) for x, y in corner] + [(np.nan,) * 4])              # and '*', with no place
    km = node_diameters([np.array([0, 0, 0, 0, 1])], boxes, ground("EPSG:4326"))[0]
    diagonal = _haversine_km((35.99, -78.90), (36.09, -78.80))
    assert km[0] == pytest.approx(diagonal, rel=1e-3) and np.isnan(km[1])
    assert km[0] > max(_haversine_km(a[::-1], b[::-1]) for a in corner for b in corner) + 1


def test_label_and_suppression_jobs_report_exact_shares():
    names = pd.DataFrame({"name": ["Ann", "Ann", "Ann", "Bob", "Cy", "Dee", "Dee", "Dee", "Eve", "Flo"]})
    labels = ga.generalize_labels(names, k=3, column="name")
    assert labels.report["units"] == {"columns": {"name": {"exact": 0.3}}}     # Dee's class keeps its label
    df = pd.DataFrame({"age": ["30-39"] * 3 + ["40-49"] * 3, "sex": ["F", "M", "F", "M", "M", "F"],
                       "zip": ["27701", "27701", "27705", "27705", "27705", "27705"]})
    suppressed = ga.suppress(df, ["age", "sex", "zip"], k=3)       # 30-39 * *, and 40-49 * 27705
    assert suppressed.report["units"] == {"columns": {"age": {"exact": 1.0}, "sex": {"exact": 0.0},
                                                      "zip": {"exact": 0.5}}}


def test_audit_against_the_original_reports_units(tmp_path, cli):
    original = pd.DataFrame({"age": [31, 35, 42, 48, 90, 95], "sex": ["F", "M", "F", "F", "M", "M"]})
    released = pd.DataFrame({"age_min": [30, 30, 40, 40, 90, 90], "age_max": [39, 39, 49, 49, None, None],
                             "sex": ["*", "*", "F", "F", "M", "M"]})
    report = ga.audit(released, ["age_min", "age_max", "sex"], k=2, original=original)
    assert report["units"]["columns"] == {
        "age": {"median_width": 9.0, "p90_width": 9.0, "unit": None, "open": round(2 / 6, 6), "suppressed": 0.0},
        "sex": {"exact": round(4 / 6, 6)}}
    original.to_csv(tmp_path / "in.csv", index=False)
    released.to_csv(tmp_path / "out.csv", index=False)
    code, out, err = cli("audit", tmp_path / "out.csv", "--qi", "age_min,age_max,sex", "-k", 2,
                         "--original", tmp_path / "in.csv")
    assert code == 0, err
    assert "in plain units: age median width 9, p90 9, 33.3% open; sex 66.7% exact" in out


def test_anonymize_writes_units_in_its_json_and_html_report_and_summary(tmp_path, cli):
    rng = np.random.default_rng(5)
    n = 400
    df = pd.DataFrame({"lat": np.round(35 + rng.normal(size=n), 5), "lon": np.round(-80 + 2 * rng.normal(size=n), 5),
                       "age": rng.integers(18, 95, n), "sex": rng.choice(["F", "M"], n),
                       "visit": np.datetime_as_string(np.datetime64("2023-01-01")
                                                      + rng.integers(0, 400, n).astype("timedelta64[D]"), unit="D")})
    src = tmp_path / "in.csv"
    df.to_csv(src, index=False)
    code, out, err = cli("anonymize", src, "--lat", "lat", "--lon", "lon", "--qi", "age,sex,visit", "-k", 10,
                         "--keep-order", "-o", tmp_path / "out.csv", "--report", tmp_path / "r.json",
                         "--html-report", tmp_path / "r.html")
    assert code == 0, err
    report = json.loads((tmp_path / "r.json").read_text())
    units = report["units"]
    assert set(report["ncp"]) >= {"overall", "columns"} and all(0 <= v <= 1 for v in report["ncp"]["columns"].values())
    t = pd.read_csv(tmp_path / "out.csv")
    # the widths, the exact share and the box diagonals, measured again on the written table
    closed = np.isfinite(t["age_min"]) & np.isfinite(t["age_max"])
    ages = (t["age_max"] - t["age_min"])[closed]
    assert units["columns"]["age"]["median_width"] == ages.median()
    assert units["columns"]["age"]["p90_width"] == pytest.approx(np.quantile(ages, 0.9))
    assert units["columns"]["age"]["open"] == pytest.approx((np.isinf(t["age_min"]) | np.isinf(t["age_max"])).mean())
    days = (pd.to_datetime(t["visit_max"].where(t["visit_max"] != "..")) -
            pd.to_datetime(t["visit_min"].where(t["visit_min"] != ".."))).dt.days.dropna()
    assert units["columns"]["visit"]["unit"] == "days" and units["columns"]["visit"]["median_width"] == days.median()
    assert units["columns"]["sex"]["exact"] == pytest.approx((t["sex"] == df["sex"]).mean(), abs=1e-6)
    boxed = t.dropna(subset=["lat_min"])
    diagonal = _haversine_km((boxed["lat_min"].to_numpy(), boxed["lon_min"].to_numpy()),
                             (boxed["lat_max"].to_numpy(), boxed["lon_max"].to_numpy()))
    loc = units["location"]
    assert loc["measure"] == "box diagonal" and loc["without"] == pytest.approx(1 - len(boxed) / n, abs=1e-6)
    assert loc["median_km"] == pytest.approx(np.median(diagonal), rel=1e-3)
    assert loc["p90_km"] == pytest.approx(np.quantile(diagonal, 0.9), rel=1e-3)
    # the same words in the summary line and the HTML report
    phrases, location = unit_phrases(units)
    page = (tmp_path / "r.html").read_text()
    assert "in plain units" in page and location in page and location in out
    for col in ("age", "sex", "visit"):
        assert phrases[col] in page and f"{col} {phrases[col]}" in out
