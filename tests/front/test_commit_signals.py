"""All or nothing under any signal at any moment of the commit (issue 48's
second attack): a batch of two jobs, each writing a table, a JSON report, a
map and an HTML report over earlier versions of them, is sent SIGINT,
SIGTERM or SIGHUP at 1 ms steps from just before its commit begins until
after it ends, at the process or at one of its other threads. Every trial
ends with every output old and "nothing written", or every output new and,
if the interrupt was taken, "the outputs were already written"; nothing
else is left in the folder. A SIGKILL in the same window leaves a staging
folder that the next job in that folder rolls back or clears."""
import hashlib
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytestmark = [pytest.mark.slow, pytest.mark.skipif(not os.path.isdir("/proc"), reason="POSIX signals and /proc")]

DRIVER = Path(__file__).with_name("commit_driver.py")
SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
OUTPUTS = ("table", "report", "map", "html_report")
SUFFIX = {"table": "csv", "report": "json", "map": "html", "html_report": "html"}


def make_batch(folder: Path) -> list:
    """Two small joint releases, each with every output, in ``folder``."""
    rng = np.random.default_rng(8)
    (folder / "out").mkdir()
    names = []
    for j in (1, 2):
        n = 120
        pd.DataFrame({"lat": np.round(35 + rng.random(n), 4), "lon": np.round(-80 + rng.random(n), 4),
                      "age": rng.integers(20, 80, n), "sex": rng.choice(["F", "M"], n)}).to_csv(
            folder / f"in{j}.csv", index=False)
        outputs = {key: f"out/j{j}_{key}.{SUFFIX[key]}" for key in OUTPUTS}
        names += [Path(p).name for p in outputs.values()]
        (folder / f"job{j}.toml").write_text(
            f'[input]\npath = "in{j}.csv"\n[columns]\nlocation = {{ lat = "lat", lon = "lon" }}\n'
            'qi = ["age", "sex"]\n[model]\nk = 5\n[output]\n'
            + "".join(f'{key} = "{path}"\n' for key, path in outputs.items()))
    return sorted(names)


def run_driver(folder: Path, plan: list, earlier: dict) -> list:
    """The trials of ``plan`` (see ``commit_driver``) over the ``earlier`` outputs (name: text)."""
    for p in (folder / "out").iterdir():
        p.unlink()
    for name, text in earlier.items():
        (folder / "out" / name).write_text(text)
    done = subprocess.run([sys.executable, str(DRIVER), str(folder), json.dumps(plan)], capture_output=True,
                          text=True, timeout=1800)
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_every_signal_at_every_millisecond_of_the_commit_leaves_old_or_new(tmp_path):
    names = make_batch(tmp_path)
    earlier = {name: f"an earlier {name}\n" for name in names}
    old = {name: hashlib.sha256(text.encode()).hexdigest() for name, text in earlier.items()}
    calibration = run_driver(tmp_path, [[0, 0, "process"]] * 3, earlier)
    assert all(t["exit"] == 0 for t in calibration), calibration[0]["stderr"]
    new = calibration[0]["files"]
    assert sorted(new) == names and all(new[n] != old[n] for n in names)
    assert all(t["files"] == new for t in calibration)             # the batch writes the same bytes every time
    # the commit's window, and either side of it: 0 to 19 ms after the fork announces it (it begins
    # commit_driver.LEAD ms later), every signal, at the process and at another thread, twice over
    plan = [[int(sig), delay, target] for _ in range(2) for delay in range(20) for sig in SIGNALS
            for target in ("process", "thread")]
    trials = run_driver(tmp_path, plan, earlier)
    assert len(trials) == len(plan) >= 200
    outcomes = {"old": 0, "new": 0}
    for t in trials:
        files, err, sig = t["files"], t["stderr"], t["signal"]
        where = f"{signal.Signals(sig).name} at {t['delay']} ms to the {t['target']}: exit {t['exit']}, {err!r}"
        assert sorted(files) == names, where                       # nothing missing, no staging left
        if files == old:
            outcomes["old"] += 1
            assert t["exit"] == 128 + sig and err.endswith("interrupted; nothing written\n"), where
        else:
            assert files == new, where                             # never a mix
            outcomes["new"] += 1
            if "interrupted" in err:
                assert t["exit"] == 128 + sig and err.endswith("interrupted; the outputs were already written\n"), \
                    where
            else:                                                  # it came once the command was done
                assert t["exit"] in (0, -sig) and "wrote" in t["stdout"], where
    assert outcomes["old"] and outcomes["new"], outcomes           # the window was really crossed


KILLED_MIDWAY = """
import os, signal, sys
from pathlib import Path
import geoanon.staging as staging

folder, moves = Path(sys.argv[1]), int(sys.argv[2])
real_replace, real_unlink, done = os.replace, os.unlink, []

def replace(src, dst):
    if len(done) == moves:
        os.kill(os.getpid(), signal.SIGKILL)
    done.append(dst)
    real_replace(src, dst)

def unlink(path):          # the journal's removal: the commit point
    if len(done) == moves:
        os.kill(os.getpid(), signal.SIGKILL)
    real_unlink(path)

out = staging.StagedOutputs()
Path(out.stage(folder / "a" / "t.csv")).write_text("new table")
Path(out.stage(folder / "a" / "m.html")).write_text("new map")
Path(out.stage(folder / "b" / "r.json")).write_text("new report")
staging.os.replace, staging.os.unlink = replace, unlink
out.commit()
"""


@pytest.mark.parametrize("moves", [0, 1, 2, 3])
def test_a_commit_killed_midway_is_rolled_back_by_the_next_job(tmp_path, moves):
    """SIGKILL after some of the moves (or after all of them, before the
    commit point) leaves the journal; the next job writing into either folder
    puts the old files back and removes every staging folder of the commit."""
    from geoanon.staging import check_writable

    old = {"a/t.csv": "old table", "b/r.json": "old report"}
    for name, text in old.items():
        (tmp_path / name).parent.mkdir(exist_ok=True)
        (tmp_path / name).write_text(text)
    done = subprocess.run([sys.executable, "-c", KILLED_MIDWAY, str(tmp_path), str(moves)], capture_output=True)
    assert done.returncode == -signal.SIGKILL, done.stderr
    assert any(".geoanon." in p.name for p in (tmp_path / "a").iterdir())
    check_writable(tmp_path / ("b" if moves % 2 else "a") / "next.csv")
    assert sorted(str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*")) == ["a", "a/t.csv", "b", "b/r.json"]
    assert all((tmp_path / name).read_text() == text for name, text in old.items())


def test_a_failed_move_puts_every_old_file_back(tmp_path, monkeypatch):
    import geoanon.staging as staging

    (tmp_path / "t.csv").write_text("old table\n")
    (tmp_path / "r.json").write_text("old report\n")
    calls = []
    real_replace = os.replace

    def full_disk(src, dst):
        calls.append(dst)
        if str(dst).endswith("r.json") and not str(src).endswith(".old.r.json"):
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(staging.os, "replace", full_disk)
    with pytest.raises(OSError):
        with staging.StagedOutputs() as out:
            Path(out.stage(tmp_path / "t.csv")).write_text("new table\n")
            Path(out.stage(tmp_path / "r.json")).write_text("new report\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json", "t.csv"]
    assert (tmp_path / "t.csv").read_text() == "old table\n" and (tmp_path / "r.json").read_text() == "old report\n"
