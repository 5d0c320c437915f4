"""One state's ZIP codes on the shipped national ZIP map (issue 50): the
groups stay within the records' area, are named after their record-holding
members without counts, in a column named for the level, with one km
figure, a map of the state alone and an explore axis that is not all 0 km.
At a19b1a4, Texas rows were published as Indiana or Nevada ZIP codes
(``47010+20509``), the map painted the contiguous US, NC-only data at
``zip_level="state"`` was labelled with all 49 states."""
import re

import numpy as np
import pandas as pd
import pytest

import geoanon as ga

from checkers import check_joint_release, check_region_groups, drawn_geometries

K = 10
pytestmark = pytest.mark.slow          # the national ZIP map: 29,442 regions, 88,297 edges


def one_state(nodes, state="TX", n=3000, seed=0):
    """``n`` patients in one state's ZIP codes, heavy where a lognormal draw
    puts them (many ZIP codes hold 1 to k - 1 records), with an age and a sex."""
    zips = nodes.loc[nodes["state"] == state, "zip"].to_numpy()
    rng = np.random.default_rng(seed)
    weight = rng.lognormal(0, 2, zips.size)
    return pd.DataFrame({"id": np.arange(n).astype(str), "zip": rng.choice(zips, n, p=weight / weight.sum()),
                         "age": rng.integers(18, 90, n), "sex": rng.choice(["F", "M"], n)})


def regions(nodes, edges):
    return {"zip": "zip", "regions": nodes, "region_id": "zip", "edges": edges}


def names_in(label: str) -> list:
    """The names a published group label lists: ``77001|77005 #2`` -> [77001, 77005]; ``781xx+4`` -> [781xx]."""
    return re.split(r"(?<!\\)\|", label.split(" #")[0].rsplit("+", 1)[0])


def check_names(label: pd.Series, df: pd.DataFrame, nodes, k=K, state="TX", tiled=True):
    """Every name a label lists is one of the state's places (a ZIP code,
    ``NNNxx`` ZIP3 area, county or the state); a label lists its group's
    record-holding units at its level, all of them (none singled out; in a
    release whose location classes tile the map, exactly those of the rows
    publishing it, else at least those), up to three, or one and +N, never
    as many as k (so no member's count shows)."""
    place = nodes.set_index("zip")
    mine = nodes[nodes["state"] == state]
    units = {"zip": set(mine["zip"]), "zip3": {z[:3] + "xx" for z in mine["zip"]},
             "county": set(state + "/" + mine["county"]), "state": {state}}
    for text in label.unique():
        shown, more = names_in(text), int(text.split(" #")[0].rsplit("+", 1)[1]) if "+" in text else 0
        level = next((lv for lv, names in units.items() if set(shown) <= names), None)
        assert level is not None, f"{text}: a place outside {state}"
        assert len(shown) + more == 1 or len(shown) + more < k, text
        rows = list(set(df["zip"][label == text]))
        held = {"zip": set(rows), "zip3": {z[:3] + "xx" for z in rows},
                "county": set(place.loc[rows, "state"] + "/" + place.loc[rows, "county"]), "state": {state}}[level]
        if more:
            assert shown[0] in held and (len(held) == more + 1 if tiled else len(held) <= more + 1), text
        else:
            assert set(shown) == held if tiled else set(shown) >= held, text


@pytest.fixture(scope="module")
def zip_map():
    from geoanon import datasets

    nodes = pd.read_csv(datasets.data_path("us_zip_delaunay_nodes.csv.gz"), dtype=str)
    edges = pd.read_csv(datasets.data_path("us_zip_delaunay_edges.csv.gz"), dtype=str)
    return nodes, edges


def state_frame(nodes, state="TX", margin=1.0):
    """The state's extent: the box of its ZIP centroids widened by ``margin`` degrees (border ZIPs' areas)."""
    mine = nodes[nodes["state"] == state][["lon", "lat"]].astype(float)
    return mine["lon"].min() - margin, mine["lat"].min() - margin, mine["lon"].max() + margin, mine["lat"].max() + margin


def within(frame, geometries) -> bool:
    xs = [c[0] for g in geometries for c in _coordinates(g["coordinates"])]
    ys = [c[1] for g in geometries for c in _coordinates(g["coordinates"])]
    return frame[0] <= min(xs) and max(xs) <= frame[2] and frame[1] <= min(ys) and max(ys) <= frame[3]


def _coordinates(nested):
    if isinstance(nested[0], (int, float)):
        yield nested
    else:
        for part in nested:
            yield from _coordinates(part)


def test_the_zip_job_keeps_a_state_on_the_national_map(zip_map, tmp_path):
    nodes, edges = zip_map
    df = one_state(nodes)
    rel = ga.generalize_regions(df, K, column="zip", regions=nodes, region_id="zip", edges=edges,
                                keep=["id", "age", "sex"])
    t = rel.in_input_order()
    check_names(t["zip"], df, nodes)
    G = ga.read_edge_list(edges, ids=nodes["zip"])
    counts = df["zip"].value_counts().to_dict()
    check_region_groups(G, counts, K, [m.split(",") for m in rel.classes["members"]])
    assert (t.groupby("class_id").size() >= K).all() and t["id"].tolist() == df["id"].tolist()    # every row once
    state = dict(zip(nodes["zip"], nodes["state"]))
    assert {state[v] for m in rel.classes["members"] for v in m.split(",")} == {"TX"}   # the map: Texas alone
    r = rel.report
    assert (r["units"]["location"]["median_km"], r["units"]["location"]["p90_km"]) == \
        (r["location_km"]["median"], r["location_km"]["p90"])
    rel.to_file(tmp_path / "out.csv", map_html=tmp_path / "map.html")
    assert within(state_frame(nodes), drawn_geometries((tmp_path / "map.html").read_text()))


@pytest.mark.parametrize("method", ["frontier", "joint"])
def test_the_joint_release_keeps_a_state_on_the_national_map(zip_map, method, tmp_path):
    nodes, edges = zip_map
    df = one_state(nodes)
    rel = ga.anonymize(df, location=regions(nodes, edges), qi=["age", "sex"], identifiers=["id"], k=K, method=method)
    t = rel.in_input_order()
    check_joint_release(df.drop(columns=["id", "zip"]), t.drop(columns=["zip"]), K, intervals=["age"], sets=["sex"])
    check_names(t["zip"], df, nodes, tiled=method == "frontier")
    d = rel.report.details
    assert (d["units"]["location"]["median_km"], d["units"]["location"]["p90_km"]) == \
        (d["location_km"]["median"], d["location_km"]["p90"])
    assert d["location_km"]["p90"] < 1500                  # Texas is 1,700 km across; the US 4,600
    rel.to_file(tmp_path / "out.csv", map_html=tmp_path / "map.html")
    assert within(state_frame(nodes), drawn_geometries((tmp_path / "map.html").read_text()))


@pytest.mark.parametrize("level", ["zip3", "county", "state"])
def test_a_rolled_up_state_names_its_own_units_in_a_column_named_for_the_level(zip_map, level):
    nodes, edges = zip_map
    df = one_state(nodes, "NC", n=1500, seed=3)
    place = nodes.set_index("zip")
    unit = {"zip3": df["zip"].str[:3], "county": "NC/" + df["zip"].map(place["county"]),
            "state": df["zip"].map(place["state"])}[level]
    for rel in (ga.generalize_regions(df, K, column="zip", regions=nodes, region_id="zip", edges=edges,
                                      zip_level=level, keep=["id", "age", "sex"]),
                ga.anonymize(df, location=regions(nodes, edges), qi=["age", "sex"], identifiers=["id"], k=K,
                             zip_level=level)):
        t = rel.in_input_order()
        assert level in t.columns and "zip" not in t.columns
        for text in t[level].unique():
            shown = names_in(text)
            assert set(shown) <= set(unit[t[level] == text]) and (len(shown) <= 3 or "+" in text), text
        if level == "state":
            assert set(t[level]) == {"NC"}                       # not the 49 states of the map
        units, km = rel.report["units"]["location"], rel.report["location_km"]
        assert units["median_km"] == km["median"] > 0 and units["p90_km"] == km["p90"]
        if rel.report.job == "anonymize":                                 # the map's legend names the level's groups
            noun = {"zip3": "groups of ZIP3 areas", "county": "groups of counties", "state": "groups of states"}
            assert [note.startswith(f"{noun[level]} kept within") for note in rel.notes] == [True]


@pytest.mark.parametrize("job", ["zip", "frontier"])
def test_the_national_map_gives_the_release_of_the_map_cut_to_the_state(zip_map, job):
    """The issue's workaround was to cut the regions file to the state: the national map now gives the same
    release (the records' area is the same graph, whatever order the files list the regions in)."""
    nodes, edges = zip_map
    df = one_state(nodes, "NC", n=2000, seed=5)
    mine = set(nodes.loc[nodes["state"] == "NC", "zip"])
    cut = nodes[nodes["zip"].isin(mine)].sample(frac=1.0, random_state=0), \
        edges[edges["zip_a"].isin(mine) & edges["zip_b"].isin(mine)]
    tables = []
    for where in (regions(nodes, edges), regions(*cut)):
        rel = ga.generalize_regions(df, K, column="zip", regions=where["regions"], region_id="zip",
                                    edges=where["edges"], keep=["id", "age", "sex"]) if job == "zip" else \
            ga.anonymize(df, location=where, qi=["age", "sex"], identifiers=["id"], k=K)
        tables.append(rel.in_input_order())
    pd.testing.assert_frame_equal(*tables)


def test_explore_draws_the_km_of_groups(zip_map, tmp_path):
    """Most records in ten ZIP codes of 300, tiled: the median group is one ZIP code (0 km) at every setting
    (at a19b1a4 the plot's only axis); the axis is the mean group diameter per record, which moves."""
    nodes, edges = zip_map
    spread = one_state(nodes, n=600, seed=1)
    towns = nodes.loc[nodes["state"] == "TX", "zip"].to_numpy()[::170][:10]
    df = pd.concat([spread, spread.sample(3000, replace=True, random_state=1).assign(zip=np.repeat(towns, 300))],
                   ignore_index=True).assign(id=lambda d: d.index.astype(str))
    rel = ga.explore(df, location=regions(nodes, edges), qi=["age", "sex"], identifiers=["id"], k=K,
                     settings=(0.25, 0.5, 0.95), method="frontier")
    points = rel.report.details["frontier"]["points"]
    assert [p["median_km"] for p in points] == [0.0, 0.0, 0.0]
    mean = [p["mean_km"] for p in points]
    assert min(mean) > 0 and mean[0] > mean[-1]
    rel.to_html(tmp_path / "r.html", map=False)
    assert "mean group diameter per record (km)" in (tmp_path / "r.html").read_text()


def test_the_command_line_names_the_column_for_its_level(zip_map, tmp_path, cli):
    nodes, edges = zip_map
    one_state(nodes, n=800, seed=2).to_csv(tmp_path / "in.csv", index=False)
    shipped = [ga.datasets.data_path(f"us_zip_delaunay_{part}.csv.gz") for part in ("nodes", "edges")]
    where = ["--zip-col", "zip", "--regions", shipped[0], "--region-id", "zip", "--edges", shipped[1]]
    code, _, err = cli("anonymize", tmp_path / "in.csv", *where, "--qi", "age,sex", "--identifiers", "id", "-k", K,
                       "--zip-level", "county", "-o", tmp_path / "a.csv", "--report", tmp_path / "a.json")
    assert code == 0, err
    assert list(pd.read_csv(tmp_path / "a.csv").columns) == ["county", "age_min", "age_max", "sex", "class_id"]
    code, _, err = cli("zip", tmp_path / "in.csv", *where, "--keep", "age,sex", "--identifiers", "id", "-k", K,
                       "--zip-level", "zip3", "-o", tmp_path / "z.csv")
    assert code == 0, err
    assert list(pd.read_csv(tmp_path / "z.csv").columns) == ["zip3", "age", "sex", "class_id"]
    pd.DataFrame({"zip": ["77001"] * 12, "county": ["x"] * 12}).to_csv(tmp_path / "clash.csv", index=False)
    code, _, err = cli("zip", tmp_path / "clash.csv", *where, "--keep", "county", "-k", K, "--zip-level", "county",
                       "-o", tmp_path / "c.csv")
    assert code == 2 and "the name of another column" in err and not (tmp_path / "c.csv").exists()


def test_the_dask_engine_keeps_a_state_on_the_national_map(zip_map, client, tmp_path):
    import dask.dataframe as dd

    import geoanon.cluster as gc

    nodes, edges = zip_map
    df = one_state(nodes, n=2000)
    rel = gc.generalize_regions(dd.from_pandas(df, npartitions=3), K, tmp_path / "out", column="zip", regions=nodes,
                                region_id="zip", edges=edges, keep=["id", "age", "sex"], scheduler=client)
    out = pd.read_parquet(tmp_path / "out").set_index("id").loc[df["id"]]
    check_names(out["zip"].reset_index(drop=True), df, nodes)
    memory = ga.generalize_regions(df, K, column="zip", regions=nodes, region_id="zip", edges=edges,
                                   keep=["id", "age", "sex"]).in_input_order()
    assert out["zip"].tolist() == memory["zip"].tolist()
    G = ga.read_edge_list(edges, ids=nodes["zip"])
    check_region_groups(G, df["zip"].value_counts().to_dict(), K, [m.split(",") for m in rel.classes["members"]])
