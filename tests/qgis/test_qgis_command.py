"""The QGIS provider's runner of the geoanon command line (qgis/geoanon_qgis/command.py), which needs no QGIS:
which command it runs, in which environment, and how a run ends (an error's message; a cancel stops geoanon,
which leaves nothing behind)."""
import importlib.util
import os
import shlex
import signal
import sys

import numpy as np
import pandas as pd
import pytest

from qgis_headless import ROOT, geoanon_command


def _load_command():
    spec = importlib.util.spec_from_file_location("geoanon_qgis_command", ROOT / "qgis" / "geoanon_qgis" / "command.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module                  # for its dataclass
    spec.loader.exec_module(module)
    return module


command = _load_command()


def _geoanon():
    return shlex.split(geoanon_command())


def test_the_command_comes_from_the_variable_then_the_setting_then_path(tmp_path, monkeypatch):
    program = tmp_path / "my geoanon"            # a path with a space is one program
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    monkeypatch.setenv("GEOANON_EXECUTABLE", str(program))
    assert command.geoanon_command("/elsewhere/geoanon") == [str(program)]
    monkeypatch.setenv("GEOANON_EXECUTABLE", "/venv/bin/python -m geoanon.cli")
    assert command.geoanon_command() == ["/venv/bin/python", "-m", "geoanon.cli"]
    monkeypatch.delenv("GEOANON_EXECUTABLE")
    assert command.geoanon_command(" /opt/geoanon ") == ["/opt/geoanon"]
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(command.CommandNotFound, match="GEOANON_EXECUTABLE"):
        command.geoanon_command(None)
    (tmp_path / "geoanon").write_text("#!/bin/sh\n")
    (tmp_path / "geoanon").chmod(0o755)
    assert command.geoanon_command("") == [str(tmp_path / "geoanon")]


def test_the_child_does_not_inherit_qgis_python():
    env = command.child_environment({"PYTHONHOME": "/qgis/python", "PYTHONPATH": "/qgis/python/lib", "HOME": "/h"})
    assert env == {"HOME": "/h", "PYTHONIOENCODING": "utf-8"}


@pytest.mark.parametrize("line, message", [
    ("geoanon anonymize: error: k=50 is larger than the table (30 rows)", "k=50 is larger than the table (30 rows)"),
    ("geoanon: error: the table has no column 'x'", "the table has no column 'x'"),
    ("geoanon: reading in.csv: 0.01 s", None),
    ("geoanon anonymize: warning: 3 records error: x", None),
    ("Traceback: error: nothing of geoanon's", None),
])
def test_an_error_line_gives_its_message(line, message):
    assert command.error_message(line) == message


@pytest.mark.slow
def test_a_failing_run_gives_the_message_and_its_lines(tmp_path):
    (tmp_path / "in.csv").write_text("lat,lon\n" + "".join(f"{40 + i / 100},{-100 + i / 50}\n" for i in range(30)))
    lines = []
    outcome = command.run([*_geoanon(), "points", str(tmp_path / "in.csv"), "--lat", "lat", "--lon", "lon", "-k", "50",
                           "-o", str(tmp_path / "out.csv"), "-v"],
                          on_line=lambda stream, text: lines.append((stream, text)), canceled=lambda: False)
    assert outcome.code == 2 and not outcome.canceled
    assert outcome.error == "k=50 is larger than the data (total weight 30)"
    assert ("stderr", "geoanon: reading " + str(tmp_path / "in.csv") + " ...") in lines
    assert sorted(os.listdir(tmp_path)) == ["in.csv"]


@pytest.mark.slow
def test_cancel_stops_geoanon_and_leaves_nothing(tmp_path):
    """Canceled while geoanon works (its partitioning logged), the child is stopped by SIGTERM, and neither the
    outputs nor geoanon's staging folders are left."""
    rng = np.random.default_rng(0)
    rows = 300_000            # seconds of partitioning: the cancel, a tenth of a second after its log line, comes first
    pd.DataFrame({"lat": np.round(30 + rng.random(rows) * 10, 6),
                  "lon": np.round(-100 + rng.random(rows) * 20, 6)}).to_csv(tmp_path / "in.csv", index=False)
    seen = []
    outcome = command.run([*_geoanon(), "points", str(tmp_path / "in.csv"), "--lat", "lat", "--lon", "lon", "-k", "5",
                           "-o", str(tmp_path / "out.csv"), "--report", str(tmp_path / "r.json"), "-v"],
                          on_line=lambda stream, text: seen.append(text),
                          canceled=lambda: any("partitioning" in text for text in seen))
    assert outcome.canceled and outcome.code == 128 + signal.SIGTERM     # stopped by SIGTERM, not killed
    assert any("partitioning" in text for text in seen)
    assert sorted(os.listdir(tmp_path)) == ["in.csv"]


@pytest.mark.parametrize("words, flag", [
    (["--max-withheld", "1%", "--report", "r.json"], "--report"),
    (["--report=r.json"], "--report"),
    (["--rep", "r.json"], "--rep"),                  # argparse takes a long flag's unique prefix
    (["-k5"], "-k"),                                 # and a short flag's value attached
    (["--keep-order", "--jobs", "-1", "-vv", "--weight", "location=4"], None),
])
def test_options_that_set_the_algorithms_own_flags_are_found(words, flag):
    assert command.taken_flag(words, {"-o", "--report", "-k", "--keep"}) == flag


def test_quoted_is_a_shell_line():
    words = ["geoanon", "points", "/tmp/a b.csv", "--max-withheld", "1%"]
    assert shlex.split(command.quoted(words)) == words
