"""What a points location costs the joint release's search
(``location_loss``): against the records' local spacing by default, so that
far records do not make wide boxes look cheap."""
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import geoanon as ga
from geoanon.joint.dims import Dims, RankDim
from geoanon.joint.location_loss import SPACING_BASE, SpacingLoss
from geoanon.joint.problem import SearchProblem
from geoanon.joint.tiling import Tree
from geoanon._geo import row_box_extents
from checkers import check_joint_release

QI = ["age", "sex", "marital"]


def _town_and_islands(n=1500, far=6, seed=0):
    """A dense region of records and a few far ones (islands thousands of km away)."""
    rng = np.random.default_rng(seed)
    lat = np.r_[40 + rng.normal(0, 0.8, n - far), rng.uniform(0, 25, far)]
    lon = np.r_[-75 + rng.normal(0, 1.0, n - far), rng.uniform(-170, -150, far)]
    return pd.DataFrame({"lat": lat.round(4), "lon": lon.round(4), "age": rng.integers(18, 90, n),
                         "sex": rng.choice(["F", "M"], n),
                         "marital": rng.choice(["married", "never", "divorced", "widowed"], n)})


def _median_km(table) -> float:
    return float(np.nanmedian(row_box_extents(table, "lat", "lon", "EPSG:4326")[2]))


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_far_records_no_longer_make_wide_boxes_cheap(seed):
    """Six islands among 1,500 records widen the town's boxes under NCP's
    range (more than 1.5x), not under the spacing or spread loss (< 2x) nor
    the km loss of the joint design (< 1.2x)."""
    df = _town_and_islands(seed=seed)
    town = df.iloc[:-6]
    km, ncp = {}, {}
    for loss in ("spacing", "spread", "range", "km"):
        method = "joint" if loss == "km" else "frontier"
        alone = ga.anonymize(town, location=("lat", "lon"), qi=QI, k=10, location_loss=loss, method=method,
                             suppress=["sex", "marital"])
        r = ga.anonymize(df, location=("lat", "lon"), qi=QI, k=10, location_loss=loss, method=method,
                         suppress=["sex", "marital"])
        check_joint_release(df, r.in_input_order(), 10, lat="lat", lon="lon", intervals=["age"], suppressed=["sex", "marital"])
        assert r.report.details["location_loss"] == loss
        km[loss] = (_median_km(alone.in_input_order()), _median_km(r.in_input_order().iloc[:-6]))
        ncp[loss] = r.report["ncp"]["columns"]
    assert km["range"][1] > 1.5 * km["range"][0]
    for loss in ("spacing", "spread"):
        assert km[loss][1] < 2 * km[loss][0] and km[loss][1] < km["range"][1] / 2
    assert km["km"][1] < 1.2 * km["km"][0]         # a tenfold wider box costs the same wherever it is
    # the location kept costs the other columns: the report's NCP (Xu et al.'s, over the range) says so
    assert ncp["spacing"]["age"] > ncp["range"]["age"] and ncp["spacing"]["lat"] < ncp["range"]["lat"]
    default = ga.anonymize(df, location=("lat", "lon"), qi=QI, k=10, location_loss="km", method="joint")
    pd.testing.assert_frame_equal(ga.anonymize(df, location=("lat", "lon"), qi=QI, k=10).in_input_order(), default.in_input_order())


@pytest.mark.slow
def test_defaults_per_design_and_location_and_refusals():
    df = _town_and_islands(400)
    for method, loss in (("frontier", "spacing"), ("location-first", "spacing"), ("greedy", "km"),
                         ("joint", "km")):
        r = ga.anonymize(df, location=("lat", "lon"), qi=QI, k=5, method=method)
        assert r.report.details["location_loss"] == loss
    spread = ga.anonymize(df, location=("lat", "lon"), qi=QI, k=5, method="joint", location_loss="spread")
    check_joint_release(df, spread.in_input_order(), 5, lat="lat", lon="lon", intervals=["age"], sets=["sex", "marital"])
    assert "location_loss" not in ga.anonymize(df, qi=QI, k=5, identifiers=["lat", "lon"]).report.details
    for bad, message in (({"location_loss": "miles"}, "location_loss"),
                         ({"location_loss": "spacing", "method": "joint"}, "location tree"),
                         ({"location_loss": "spacing", "method": "greedy"}, "location tree")):
        with pytest.raises(ga.ParameterError, match=message):
            ga.anonymize(df, location=("lat", "lon"), qi=QI, k=5, **bad)
    df["place"] = np.where(df.lat > 40, "north", "south")
    with pytest.raises(ga.ParameterError, match="points location"):
        ga.anonymize(df, location={"label": "place"}, qi=QI, k=5, location_loss="spread", identifiers=["lat", "lon"])


def _leaf_tree(diagonals, sizes, parents):
    """A location tree of nodes with given box diagonals, row counts and parents."""
    rows, start = [], 0
    children = [[] for _ in parents]
    for node, p in enumerate(parents):
        if p >= 0:
            children[p].append(node)
    for node, size in enumerate(sizes):
        rows.append(np.arange(start, start + size))
        start += 0 if children[node] else size
    return Tree(list(parents), children, rows, [(node,) for node in range(len(parents))])


def _spacing_losses(diagonals, tree, weight=1.0):
    """:meth:`SpacingLoss.node_losses` of a two-axis location whose nodes have the boxes' ``diagonals``."""
    dim = RankDim(name="x", rank=np.zeros(1, dtype=np.int64), edges=np.array([0.0, 1.0]), low=np.zeros(1),
                  high=np.zeros(1), span=1.0, location=True)
    other = RankDim(name="y", rank=np.zeros(1, dtype=np.int64), edges=np.array([0.0, 1.0]), low=np.zeros(1),
                    high=np.zeros(1), span=1.0, location=True)
    spacing = SpacingLoss(lambda states: np.array([diagonals[s[0]] for s in states], dtype=float))
    problem = SearchProblem(Dims([dim, other]), None, weights=[weight, weight], location_loss=spacing)
    return spacing.node_losses(problem, tree)


@settings(max_examples=60, deadline=None)
@given(leaves=st.lists(st.tuples(st.integers(1, 30), st.floats(0.5, 500)), min_size=2, max_size=6),
       widen=st.floats(1.0, 40.0), scale=st.floats(0.01, 100.0), weight=st.sampled_from([1.0, 4.0]))
def test_spacing_loss_is_the_rows_log_ratio_to_their_finest_box(leaves, widen, scale, weight):
    """Independently: every row of a node loses log(D / d) / log(SPACING_BASE)
    per location column, d its leaf's diagonal; the loss does not depend on
    the unit (scale-free: a far record changes only its own rows' loss)."""
    sizes = [sum(s for s, _ in leaves)] + [s for s, _ in leaves]
    diag = [max(d for _, d in leaves) * widen] + [d for _, d in leaves]
    parents = [-1] + [0] * len(leaves)
    tree = _leaf_tree(diag, sizes, parents)
    got = _spacing_losses(diag, tree, weight)
    expected = 2 * weight * sum(s * np.log(diag[0] / d) / np.log(SPACING_BASE) for s, d in leaves)
    assert got[0] == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert np.allclose(got[1:], 0.0)
    scaled = _spacing_losses([d * scale for d in diag], tree, weight)
    assert np.allclose(scaled, got, rtol=1e-9, atol=1e-9)


def test_rows_without_a_location_lose_everything_beside_located_rows():
    diag = [100.0, 10.0, np.nan]
    tree = _leaf_tree(diag, [5, 3, 2], [-1, 0, 0])
    got = _spacing_losses(diag, tree)
    assert got[0] == pytest.approx(2 * (3 * np.log(10) / np.log(SPACING_BASE) + 2))
    assert got[2] == 0.0


def test_the_command_line_and_jobs_take_the_location_loss(tmp_path, cli):
    df = _town_and_islands(500)
    df.to_csv(tmp_path / "in.csv", index=False)
    base = ("anonymize", tmp_path / "in.csv", "--lat", "lat", "--lon", "lon", "--qi", ",".join(QI), "-k", "5")
    code, _, err = cli(*base, "--location-loss", "range", "-o", tmp_path / "o.csv", "--report", tmp_path / "r.json",
                       "--keep-order")
    assert code == 0, err
    assert json.loads((tmp_path / "r.json").read_text())["location_loss"] == "range"
    api = ga.anonymize(df, location=("lat", "lon"), qi=QI, k=5, location_loss="range").in_input_order()
    pd.testing.assert_series_equal(pd.read_csv(tmp_path / "o.csv")["lat_min"], api["lat_min"], check_dtype=False)
    code, _, err = cli(*base, "--location-loss", "miles", "-o", tmp_path / "o2.csv")
    assert code == 2 and "--location-loss" in err and not (tmp_path / "o2.csv").exists()
    code, _, err = cli(*base, "--method", "joint", "--location-loss", "spacing", "-o", tmp_path / "o3.csv")
    assert code == 2 and "location tree" in err and not (tmp_path / "o3.csv").exists()
    job = ('[input]\npath = "in.csv"\n[columns]\nlocation = { lat = "lat", lon = "lon" }\nqi = ["sex", "marital"]\n'
           'interval = ["age"]\n[model]\nk = 5\n[release]\nlocation_loss = "%s"\n[output]\ntable = "j.csv"\n'
           'keep_order = true\n')
    (tmp_path / "job.toml").write_text(job % "range")
    code, _, err = cli("run", tmp_path / "job.toml")
    assert code == 0, err
    pd.testing.assert_series_equal(pd.read_csv(tmp_path / "j.csv")["lat_min"], api["lat_min"], check_dtype=False)
    (tmp_path / "job.toml").write_text(job % "miles")
    code, _, err = cli("run", tmp_path / "job.toml", "--dry-run")
    assert code == 2 and "location_loss" in err
