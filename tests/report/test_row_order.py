"""The order of the published rows tells nothing: not the input's order, not
which row of another release is the same record (issue 48's first attack)."""
import numpy as np
import pandas as pd
import pytest

import geoanon as ga
from geoanon.report.release import published_order

from test_safe_release import COMMANDS, JOBS, people


def undone_by_the_documented_seed(input_rows: np.ndarray, seed: int = 0) -> float:
    """The share of rows an attacker puts back at their input position by
    undoing the permutation of ``seed`` (what releases were written in until
    issue 48): ``np.argsort(default_rng(seed).permutation(n))``."""
    n = input_rows.size
    return float((input_rows[np.argsort(np.random.default_rng(seed).permutation(n))] == np.arange(n)).mean())


def in_published_order(table: pd.DataFrame) -> bool:
    """Whether ``table`` is sorted by class, then by its other cells."""
    return table.iloc[published_order(table)].reset_index(drop=True).astype(str).equals(
        table.reset_index(drop=True).astype(str))


@pytest.mark.parametrize("job", JOBS)
def test_the_table_is_in_the_published_order_and_the_holder_keeps_the_key(job):
    df = people(300).sort_values("name").reset_index(drop=True)
    release = JOBS[job](df)
    table = release.table
    assert isinstance(table.index, pd.RangeIndex) and table["class_id"].is_monotonic_increasing
    assert in_published_order(table)
    assert sorted(release.input_rows) == list(range(len(df)))
    assert max(undone_by_the_documented_seed(release.input_rows, seed) for seed in range(5)) < 0.05
    back = release.in_input_order()
    assert back.index.equals(df.index) and back.loc[df.index[release.input_rows]].reset_index(drop=True).equals(table)
    treated = {*release.treatments, *(release.location or {}).get("columns", ())}
    kept = [c for c in df.columns if c in table.columns and c not in treated]
    assert back[kept].astype(str).equals(df[kept].astype(str))


def test_the_order_carries_no_trace_of_a_sorted_input(tmp_path):
    """A table sorted by name, names dropped: neither the written file nor
    ``release.table`` follows the names, whatever seed an attacker tries."""
    df = people(600).sort_values("name").reset_index(drop=True)
    release = JOBS["anonymize"](df)
    release.to_file(tmp_path / "out.csv")
    written = pd.read_csv(tmp_path / "out.csv")
    assert written["class_id"].tolist() == release.table["class_id"].tolist()
    position = release.input_rows
    assert abs(np.corrcoef(position, np.arange(len(df)))[0, 1]) < 0.1
    assert max(undone_by_the_documented_seed(position, seed) for seed in range(20)) < 0.02
    release.to_file(tmp_path / "kept.csv", keep_order=True)
    kept = pd.read_csv(tmp_path / "kept.csv")
    assert kept.sort_values(list(kept.columns)).reset_index(drop=True).equals(
        written.sort_values(list(written.columns)).reset_index(drop=True))
    assert kept["fips"].astype(str).tolist() == df["fips"].astype(str).tolist()


def test_two_releases_of_one_table_do_not_line_up():
    """Two releases of the same records (two --explore settings) no longer
    share one permutation: row i of one is rarely row i of the other, so a
    join by position pairs strangers."""
    df = people(3000, seed=3)
    kw = dict(location=("lat", "lon"), qi=["age", "sex"], k=10, identifiers=["name"],
              keep=["fips", "first", "race", "diagnosis"])
    coarse = ga.anonymize(df, location_precision=0.2, **kw)
    fine = ga.anonymize(df, location_precision=0.9, **kw)
    assert not coarse.table.drop(columns="class_id").equals(fine.table.drop(columns="class_id"))
    assert (coarse.input_rows == fine.input_rows).mean() < 0.05


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
def test_the_written_order_depends_on_nothing_but_the_published_cells(command, tmp_path, cli, nc_gdf):
    """The same records in another order give the same bytes (suppress: its
    solver may answer them otherwise; its file is sorted all the same), every
    time; --keep-order writes the input's order."""
    df = people(300).sort_values("name").reset_index(drop=True)
    df.insert(0, "row", range(len(df)))     # the input position, kept deliberately to see where each row went
    nc_gdf.to_file(tmp_path / "regions.geojson")
    written = {}
    runs = {"a": (df, []), "b": (df, []), "reordered": (df.sample(frac=1, random_state=2), []),
            "kept": (df, ["--keep-order"])}
    for name, (rows, flags) in runs.items():
        out = tmp_path / name
        out.mkdir()
        rows.to_csv(tmp_path / "in.csv", index=False)
        code, _, err = cli(*COMMANDS[command](tmp_path, out, also=["row"]), "-o", out / "out.csv", *flags)
        assert code == 0, err
        written[name] = (out / "out.csv").read_bytes()
    assert written["a"] == written["b"]
    if command != "suppress":
        assert written["a"] == written["reordered"]
    table = pd.read_csv(tmp_path / "a" / "out.csv", dtype=str)       # cells kept as read, as text
    assert table["class_id"].astype(int).is_monotonic_increasing
    assert all(list(rows) == sorted(rows) for _, rows in table.groupby("class_id")["row"])   # the first column
    table["row"] = table["row"].astype(int)
    assert undone_by_the_documented_seed(table["row"].to_numpy()) < 0.05
    assert pd.read_csv(tmp_path / "kept" / "out.csv")["row"].tolist() == list(range(len(df)))
