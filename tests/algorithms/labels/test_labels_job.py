"""The label job: API and command line, records in and records out."""
import json

import numpy as np
import pandas as pd
import pytest

from geoanon import DataError, InfeasibleError, generalize_labels

NAMES = ["NA", "NULL", "TRUE", "", "MARY", "MARY", "NA", "JOHN", "NAN", "MARY", "JOHN", ""]


def table():
    return pd.DataFrame({"id": [f"{i:03d}" for i in range(len(NAMES))], "name": NAMES,
                         "age": [str(30 + i) for i in range(len(NAMES))]})


ROLES = {"identifiers": ["id"], "keep": ["age"]}                      # the columns of table() besides the label
CLI_ROLES = ["--identifiers", "id", "--keep", "age"]


def test_api_keeps_rows_and_columns_and_every_class_reaches_k():
    df = table()
    release = generalize_labels(df, 3, column="name", **ROLES)
    out = release.in_input_order()
    assert list(out.columns) == ["name", "age", "class_id"]
    assert out["age"].tolist() == df["age"].tolist()
    sizes = out.groupby("class_id").size()
    assert (sizes >= 3).all()
    assert out.groupby("name").ngroups == out["class_id"].nunique()
    classes = release.classes
    assert sorted(classes["label"]) == sorted(set(NAMES))
    # each record's class is its label's class; a class label names a member that
    # at least k records hold, or none ("group C")
    mapping = dict(zip(classes["label"], classes["class_id"]))
    assert [mapping[v] for v in NAMES] == out["class_id"].tolist()
    held = pd.Series(NAMES).value_counts()
    for c, group in classes.groupby("class_id"):
        label = group["class_label"].iloc[0]
        if label == f"group {c}":
            assert (held[group["label"]] < 3).all() or len(group) == 1
        else:
            assert label.split("+")[0] in set(group["label"]) and held[label.split("+")[0]] >= 3
    assert release.report["max_class"] >= release.report["lower_bound"]


def test_cli_csv_round_trip_keeps_na_null_true_and_empty_labels(tmp_path, cli):
    src = tmp_path / "in.csv"
    table().to_csv(src, index=False)
    out, classes, report = tmp_path / "out.csv", tmp_path / "classes.csv", tmp_path / "r.json"
    code, stdout, err = cli("labels", src, "-k", 2, "--label-col", "name", "-o", out, "--classes", classes,
                            "--report", report, "--keep", "id,age")
    assert code == 0, err
    released = pd.read_csv(out, dtype=str, keep_default_na=False)
    table_back = pd.read_csv(classes, dtype=str, keep_default_na=False)
    assert set(table_back["label"]) == set(NAMES)          # "", NA, NULL, TRUE, NAN all survive
    # every record (by its id) is in its own label's class
    class_of = dict(zip(table_back["label"], table_back["class_id"]))
    name_of = dict(zip(table()["id"], NAMES))
    assert sorted(released["id"]) == table()["id"].tolist()
    assert all(class_of[name_of[i]] == c for i, c in zip(released["id"], released["class_id"]))
    assert (released.groupby("name").size() >= 2).all()
    figures = json.loads(report.read_text())
    assert figures["audit"]["k"] >= 2 and figures["labels"] == len(set(NAMES))


def test_cli_errors_leave_nothing_behind(tmp_path, cli):
    src = tmp_path / "in.csv"
    table().to_csv(src, index=False)
    out = tmp_path / "out.csv"
    code, _, err = cli("labels", src, "-k", 2, "--label-col", "name", "-o", out, "--missing", "error", *CLI_ROLES)
    assert code == 2 and "missing or empty" in err and err.count("\n") == 1
    code, _, err = cli("labels", src, "-k", 100, "--label-col", "name", "-o", out, *CLI_ROLES)
    assert code == 2 and "larger than" in err
    code, _, err = cli("labels", src, "-k", 2, "--label-col", "nope", "-o", out, *CLI_ROLES)
    assert code == 2 and "no column" in err
    code, _, err = cli("labels", src, "-k", 2, "--label-col", "name", "-o", out, "--classes", tmp_path / "c.geojson",
                       *CLI_ROLES)
    assert code == 2 and "classes file" in err
    (tmp_path / "empty.csv").write_text("")
    code, _, err = cli("labels", tmp_path / "empty.csv", "-k", 2, "--label-col", "name", "-o", out, *CLI_ROLES)
    assert code == 2 and "empty" in err
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == ["empty.csv", "in.csv"]


def test_missing_values_are_a_label_in_parquet(tmp_path, cli):
    df = pd.DataFrame({"dx": ["flu", None, "cold", None, "flu", "cold", np.nan, "flu"], "v": range(8)})
    release = generalize_labels(df, 3, column="dx", keep=["v"])
    assert (release.in_input_order().groupby("class_id").size() >= 3).all()
    with pytest.raises(DataError, match="missing or empty"):
        generalize_labels(df, 3, column="dx", missing="error", keep=["v"])
    src, out = tmp_path / "in.parquet", tmp_path / "out.parquet"
    df.to_parquet(src)
    code, _, err = cli("labels", src, "-k", 3, "--label-col", "dx", "-o", out, "--keep", "v")
    assert code == 0, err
    back = pd.read_parquet(out)
    assert sorted(back["v"]) == list(range(8)) and (back.groupby("class_id").size() >= 3).all()
    # the records without a value (v = 1, 3 and 6) are one label's class
    assert back.loc[back["v"].isin([1, 3, 6]), "class_id"].nunique() == 1


def test_output_is_byte_identical_across_runs(tmp_path, cli):
    from geoanon.datasets import census_names

    names = census_names("male")
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"first": rng.choice(names.index.to_numpy(), size=3000, p=names / names.sum())})
    src = tmp_path / "in.csv"
    df.to_csv(src, index=False)
    outputs = []
    for run in range(2):
        out, classes = tmp_path / f"o{run}.csv", tmp_path / f"c{run}.csv"
        assert cli("labels", src, "-k", 25, "--label-col", "first", "-o", out, "--classes", classes)[0] == 0
        outputs.append((out.read_bytes(), classes.read_bytes()))
    assert outputs[0] == outputs[1]


def test_k_above_the_records():
    with pytest.raises(InfeasibleError):
        generalize_labels(table(), 13, column="name", **ROLES)


def test_true_one_and_one_point_zero_stay_three_labels():
    df = pd.DataFrame({"v": pd.Series([True] * 3 + [1] * 3 + [1.0] * 3, dtype=object)})
    release = generalize_labels(df, 3, column="v")
    assert release.report["labels"] == 3 and release.in_input_order()["class_id"].nunique() == 3
    assert release.in_input_order()["v"].tolist() == ["True"] * 3 + ["1"] * 3 + ["1.0"] * 3


def test_the_classes_table_leaves_out_counts_unless_asked(tmp_path, cli):
    src = tmp_path / "in.csv"
    table().to_csv(src, index=False)
    assert "records" not in generalize_labels(table(), 3, column="name", **ROLES).classes.columns
    assert "records" in generalize_labels(table(), 3, column="name", class_counts=True, **ROLES).classes.columns
    for flag, expected in (((), False), (("--class-counts",), True)):
        classes = tmp_path / "c.csv"
        code, _, err = cli("labels", src, "-k", 3, "--label-col", "name", "-o", tmp_path / "o.csv", "--classes", classes,
                           *CLI_ROLES, *flag)
        assert code == 0, err
        assert ("records" in pd.read_csv(classes).columns) is expected


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
FORMULAS = ["=HYPERLINK(\"http://x\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1)", "\tx", "\rx"]


def test_published_labels_never_start_a_formula(tmp_path, cli):
    names = FORMULAS * 3 + ["-5", "+7", "plain"] * 3
    df = pd.DataFrame({"name": names, "note": ["=1+1"] * len(names)})
    release = generalize_labels(df, 3, column="name", keep=["note"])
    published = release.in_input_order()["name"].tolist() + release.classes["label"].tolist() + \
        release.classes["class_label"].tolist()
    risky = [v for v in published if v.startswith(FORMULA_START) and v not in ("-5", "+7")]
    assert not risky, risky
    assert "'=HYPERLINK(\"http://x\")" in release.classes["label"].tolist()
    assert release.in_input_order()["note"].tolist() == df["note"].tolist()          # untouched columns stay as they are
    src = tmp_path / "in.csv"
    df.to_csv(src, index=False)
    for flag, note in (((), "=1+1"), (("--escape-formulas",), "'=1+1")):
        out = tmp_path / "out.csv"
        assert cli("labels", src, "-k", 3, "--label-col", "name", "-o", out, "--keep", "note", *flag)[0] == 0
        back = pd.read_csv(out, dtype=str, keep_default_na=False)
        assert set(back["note"]) == {note}
        assert not any(v.startswith(FORMULA_START) and v not in ("-5", "+7") for v in back["name"])


def test_duplicate_columns_are_a_type_error():
    from geoanon import DuplicateColumnError

    df = pd.DataFrame([["a", "b"]] * 4, columns=["name", "name"])
    with pytest.raises(TypeError, match="2 columns named 'name'"):
        generalize_labels(df, 2, column="name")
    with pytest.raises(DuplicateColumnError):
        generalize_labels(df, 2, column="name")


def test_seed_must_be_a_non_negative_integer():
    from geoanon import ParameterError, cover_labels

    for seed in (-1, 1.5, True, "7"):
        with pytest.raises(ParameterError, match="seed must be an integer >= 0"):
            cover_labels([3, 4, 5], 3, order="random", seed=seed)
