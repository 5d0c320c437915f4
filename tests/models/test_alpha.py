"""(alpha, k)-anonymity, added as one row of CRITERIA with its measure, a
Model field and an option row: measured by every audit, met by every search,
asked on the command line and in job files."""
import json

import pandas as pd
import pytest

import geoanon as ga
from geoanon.errors import ParameterError

DF = pd.DataFrame({"zip": ["277**"] * 4 + ["276**"] * 4,
                   "dx": ["flu", "flu", "flu", "copd", "flu", "copd", "gout", "copd"]})


def test_the_audit_measures_the_largest_share_and_its_violations():
    report = ga.audit(DF, ["zip"], model=ga.Model(k=2, alpha=0.5, sensitive="dx"))
    assert report["alpha"] == 0.75
    assert report["violations"]["alpha"]["classes"] == 1 and not report["ok"]
    assert ga.audit(DF, ["zip"], model=ga.Model(k=2, alpha=0.8, sensitive="dx"))["ok"]


def test_a_level_outside_its_rule_is_refused():
    with pytest.raises(ParameterError, match=r"alpha must be a share in \(0, 1\], got 0"):
        ga.Model(k=2, alpha=0, sensitive="dx")


def test_the_searches_meet_it():
    rows = pd.DataFrame({"age": [30, 31, 32, 33, 40, 41, 42, 43], "dx": DF["dx"]})
    release = ga.suppress(rows, ["age"], model=ga.Model(k=2, alpha=0.5, sensitive="dx"))
    assert release.report["audit"]["alpha"] <= 0.5
    release = ga.anonymize(rows, qi=["age"], model=ga.Model(k=2, alpha=0.5, sensitive="dx"))
    assert release.report["audit"]["alpha"] <= 0.5 and release.report["alpha"] == 0.5


def test_the_command_line_and_job_files_ask_for_it(tmp_path, capsys):
    from geoanon.cli import main

    DF.to_csv(tmp_path / "in.csv", index=False)
    assert main(["audit", str(tmp_path / "in.csv"), "--qi", "zip", "--sensitive", "dx", "--alpha", "0.5",
                 "--report", str(tmp_path / "r.json")]) == 1
    assert json.loads((tmp_path / "r.json").read_text())["violations"]["alpha"]["classes"] == 1
    assert "alpha = 0.75" in capsys.readouterr().out
    rows = pd.DataFrame({"age": [30, 31, 32, 33, 40, 41, 42, 43], "dx": DF["dx"]})
    rows.to_csv(tmp_path / "rows.csv", index=False)
    (tmp_path / "job.toml").write_text('[input]\npath = "rows.csv"\n\n[columns]\nqi = ["age"]\nsensitive = "dx"\n\n'
                                       '[model]\nk = 2\nalpha = 0.5\n\n[output]\ntable = "out.csv"\nreport = "j.json"\n')
    assert main(["run", str(tmp_path / "job.toml")]) == 0
    assert json.loads((tmp_path / "j.json").read_text())["audit"]["alpha"] <= 0.5
