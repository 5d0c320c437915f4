"""geoanon suppress and geoanon audit from the shell."""
import json

import pandas as pd
import pytest

from geoanon.datasets import adult, data_path

from checkers import check_suppression, emd_equal
from shipped import ADULT_QI

QI = ",".join(ADULT_QI)


def keep(qi=QI, sensitive=None):
    """--keep: adult's columns that are neither quasi-identifiers nor sensitive, published as they are."""
    return ["--keep", ",".join(c for c in adult().columns if c not in qi.split(",") and c != sensitive)]


@pytest.fixture
def adult_csv(tmp_path, adult_df):
    df = adult_df.head(1500)
    df.loc[3, "sex"] = "NA"            # a value, not a missing cell
    path = tmp_path / "adult.csv"
    df.to_csv(path, index=False)
    return path


@pytest.mark.slow
def test_suppress_then_audit(adult_csv, tmp_path, cli):
    out, report, classes = tmp_path / "out.csv", tmp_path / "r.json", tmp_path / "classes.csv"
    code, stdout, err = cli("suppress", adult_csv, "--qi", QI, "--sensitive", "occupation", "-k", 5, "-l", 2,
                            "-t", 0.35, "-o", out, "--report", report, "--classes", classes, "--time-limit", 3,
                            *keep(sensitive="occupation"), "--keep-order")
    assert code == 0, err
    raw = pd.read_csv(adult_csv, dtype=str, keep_default_na=False)
    released = pd.read_csv(out, dtype=str, keep_default_na=False)
    released["class_id"] = released["class_id"].astype(int)
    stars = check_suppression(raw, released, QI.split(","), 5, sensitive="occupation", l=2, t=0.35, emd=emd_equal)
    r = json.loads(report.read_text())
    assert r["cost"] == stars and r["audit"]["ok"] and r["audit"]["k"] >= 5
    assert len(pd.read_csv(classes)) == r["classes"]
    assert "suppressed cells" in stdout

    code, stdout, err = cli("audit", out, "--qi", QI + ",class_id", "--sensitive", "occupation", "-k", 5,
                            "-t", 0.35, "--report", tmp_path / "a.json")
    assert code == 0, err
    assert "k=5: met" in stdout
    measured = json.loads((tmp_path / "a.json").read_text())
    assert measured["k"] == r["audit"]["k"] and measured["suppressed_cells"] == stars


def test_audit_exits_1_on_a_violation(adult_csv, cli):
    code, stdout, _ = cli("audit", adult_csv, "--qi", QI, "-k", 5)
    assert code == 1 and "VIOLATED" in stdout


def test_audit_with_a_hierarchy_ground(adult_csv, cli):
    code, stdout, err = cli("audit", adult_csv, "--qi", "sex", "--sensitive", "occupation",
                            "--ground", data_path("adult_hierarchy_occupation.csv"))
    assert code == 0, err
    assert "t = " in stdout


@pytest.mark.parametrize("args, message", [
    (["-k", 100000], "larger than the table"),
    (["-l", 20, "--sensitive", "occupation"], "no grouping reaches l=20"),
    (["--qi", "sex,nope", "-k", 2], "no column 'nope'"),
    (["-t", 0.2], "need a sensitive column"),
    (["-k", 2, "--sensitive", "occupation", "-t", 0.2, "--ground", "nofile.csv"], "is neither equal, ordered nor a hierarchy file"),
    (["-k", 2, "--time-limit", 0], "time_limit must be a positive"),
    (["-k", 3, "--method", "matching"], "2-anonymity or 2-diversity"),
    ([], "give at least one of"),
])
def test_bad_requests_exit_2_and_write_nothing(adult_csv, tmp_path, cli, args, message):
    out = tmp_path / "out.csv"
    qi = [] if "--qi" in args else ["--qi", QI]
    given = [*qi, *args]
    roles = keep(given[given.index("--qi") + 1], "occupation" if "--sensitive" in args else None)
    code, _, err = cli("suppress", adult_csv, *given, *roles, "-o", out, "--report", tmp_path / "r.json")
    assert code == 2 and message in err and err.count("\n") == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adult.csv"]


def test_a_program_the_time_limit_leaves_no_room_for_is_a_warning(adult_csv, tmp_path, cli):
    out, report = tmp_path / "out.csv", tmp_path / "r.json"
    code, _, err = cli("suppress", adult_csv, "--qi", QI, "--sensitive", "occupation", "-l", 2, "--method", "milp",
                       "--time-limit", 0.001, "-o", out, "--report", report, *keep(sensitive="occupation"))
    assert code == 0, err
    r = json.loads(report.read_text())
    assert r["program"] == {"skipped": "no time was left for it"} and r["method"] == "lattice"
    assert err.splitlines() == [f"geoanon suppress: warning: {line}".replace("t='0.5'", "-t 0.5")
                                for line in r["warnings"]]
    assert err.startswith("geoanon suppress: warning: Theorem 9's program was skipped: no time was left for it; ")
    assert len(r["warnings"]) == 1 + (r["audit"]["far_from_table"]["records"] > 0)      # and what classes tell
