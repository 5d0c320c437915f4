"""Interrupted and killed jobs: Ctrl-C, SIGTERM and SIGHUP leave nothing and
exit with 128 + the signal's number (the shell's convention), SIGKILL's
leftovers are removed by the next job in the same folder.

The job is large enough (500,000 records) to be caught mid-work and
mid-write; the tests wait for a state (the job running, a staging folder
appearing), never for a duration, and assert outcomes, not timings.
"""
import os
import signal
import subprocess
import sys
import time
import weakref

import numpy as np
import pandas as pd
import pytest

from shipped import ADULT_QI

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX signals")

ROWS = 500_000
PATIENCE = 120      # seconds a state may take to appear before the test gives up


@pytest.fixture(scope="module")
def big_csv(tmp_path_factory):
    rng = np.random.default_rng(3)
    path = tmp_path_factory.mktemp("big") / "big.csv"
    pd.DataFrame({"lat": np.round(35 + rng.normal(size=ROWS) * 3, 5), "lon": np.round(-90 + rng.normal(size=ROWS) * 5, 5),
                  "payload": rng.integers(0, 10**9, ROWS)}).to_csv(path, index=False)
    return path


def _start(folder, source, out="out.csv"):
    return subprocess.Popen([sys.executable, "-m", "geoanon.cli", "points", str(source), "-k", "10", "--lat", "lat",
                             "--lon", "lon", "--keep", "payload", "-o", str(folder / out), "--report",
                             str(folder / "r.json")],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_for(condition, child):
    deadline = time.monotonic() + PATIENCE
    while not condition():
        assert child.poll() is None, "the job ended before the state the test waits for"
        assert time.monotonic() < deadline, "the state never came"
        time.sleep(0.005)


def _staging(folder):
    return [p for p in os.listdir(folder) if ".geoanon." in p]


def _working(child):
    """True once the child is past its imports and reading (its CPU time grows)."""
    with open(f"/proc/{child.pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK") > 1.5


@pytest.mark.slow
@pytest.mark.parametrize("phase", ["computing", "writing"])
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_interrupt_writes_nothing_and_keeps_the_earlier_output(big_csv, tmp_path, sig, phase):
    (tmp_path / "out.csv").write_text("an earlier output\n")
    child = _start(tmp_path, big_csv)
    _wait_for((lambda: _working(child)) if phase == "computing" else (lambda: _staging(tmp_path)), child)
    child.send_signal(sig)
    out, err = child.communicate(timeout=PATIENCE)
    if phase == "writing" and child.returncode == 0:
        # the signal raced the end of the job: it landed once the outputs were renamed into place,
        # where nothing is left to undo; what must hold is that both outputs are whole
        assert sorted(os.listdir(tmp_path)) == ["out.csv", "r.json"]
        assert pd.read_csv(tmp_path / "out.csv").shape[0] == ROWS
        return
    assert child.returncode == 128 + sig, err          # the shell's convention: 130, 143, 129
    assert err.strip() == "geoanon points: interrupted; nothing written"
    assert sorted(os.listdir(tmp_path)) == ["out.csv"]
    assert (tmp_path / "out.csv").read_text() == "an earlier output\n"


@pytest.mark.slow
def test_killed_job_is_cleaned_up_by_the_next(big_csv, tmp_path):
    child = _start(tmp_path, big_csv)
    _wait_for(lambda: _staging(tmp_path), child)
    child.send_signal(signal.SIGKILL)
    child.communicate(timeout=PATIENCE)
    left = _staging(tmp_path)
    assert left and not (tmp_path / "out.csv").exists()      # what SIGKILL leaves: a staging folder
    small = tmp_path / "small.csv"
    pd.read_csv(big_csv, nrows=200).to_csv(small, index=False)
    done = subprocess.run([sys.executable, "-m", "geoanon.cli", "points", str(small), "-k", "5", "--lat", "lat",
                           "--lon", "lon", "--keep", "payload", "-o", str(tmp_path / "small_out.csv")],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert _staging(tmp_path) == []
    assert sorted(os.listdir(tmp_path)) == ["small.csv", "small_out.csv"]


def test_a_live_jobs_staging_is_left_alone(tmp_path):
    from geoanon.staging import StagedOutputs, remove_stale_staging

    with StagedOutputs() as out:
        staged = out.stage(tmp_path / "a.csv")
        with open(staged, "w") as f:
            f.write("x\n")
        assert remove_stale_staging(tmp_path) == []           # our own process is alive
        assert os.path.exists(staged)
    assert (tmp_path / "a.csv").read_text() == "x\n" and _staging(tmp_path) == []


def _children(pid):
    """Process ids whose parent is ``pid``."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry))
    return found


@pytest.mark.slow
def test_ctrl_c_during_the_solver_stops_suppress_and_its_solver(tmp_path, adult_df):
    source = tmp_path / "adult.csv"
    adult_df.to_csv(source, index=False)
    folder = tmp_path / "out"
    folder.mkdir()
    child = subprocess.Popen([sys.executable, "-m", "geoanon.cli", "suppress", str(source),
                              "--qi", ",".join(ADULT_QI), "--sensitive", "occupation", "-k", "5", "-t", "0.2",
                              "--method", "milp", "--time-limit", "600", "--keep",
                              "age,education,native-country,salary-class", "-o", str(folder / "out.csv"),
                              "--report", str(folder / "r.json")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for(lambda: _children(child.pid), child)          # the HiGHS process is running
    solver = _children(child.pid)
    child.send_signal(signal.SIGINT)
    out, err = child.communicate(timeout=PATIENCE)
    assert child.returncode == 130, err
    assert err.strip() == "geoanon suppress: interrupted; nothing written"
    assert os.listdir(folder) == []
    deadline = time.monotonic() + PATIENCE           # the solver was killed; on a loaded machine it takes a moment
    while any(_running(pid) for pid in solver) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_running(pid) for pid in solver)


def _running(pid: int) -> bool:
    """Whether ``pid`` is a live process (a zombie waiting to be reaped is dead)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs /proc")
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_interrupted_anonymize_stops_its_worker_processes(tmp_path, sig):
    rng = np.random.default_rng(4)
    n = 200_000
    src = tmp_path / "in.csv"
    pd.DataFrame({"lat": np.round(35 + rng.normal(size=n) * 3, 5), "lon": np.round(-90 + rng.normal(size=n) * 5, 5),
                  "age": rng.integers(18, 90, n)}).to_csv(src, index=False)
    child = subprocess.Popen([sys.executable, "-m", "geoanon.cli", "anonymize", str(src), "--lat", "lat", "--lon", "lon",
                              "--qi", "age", "-k", "5", "--jobs", "2", "-o", str(tmp_path / "out.csv")],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    _wait_for(lambda: len(_children(child.pid)) >= 2, child)
    workers = _children(child.pid)
    child.send_signal(sig)
    out, err = child.communicate(timeout=PATIENCE)
    assert child.returncode == 128 + sig, err
    assert err.strip().endswith("interrupted; nothing written")
    assert not (tmp_path / "out.csv").exists() and not _staging(tmp_path)
    deadline = time.monotonic() + PATIENCE
    while any(os.path.exists(f"/proc/{w}") and open(f"/proc/{w}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
              for w in workers):
        assert time.monotonic() < deadline, "a worker process outlived the interrupted job"
        time.sleep(0.05)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
@pytest.mark.parametrize("how", ["raised", "swallowed", "wrapped", "half-built"])
def test_an_interrupt_a_library_mishandles_still_writes_nothing(tmp_path, cli, monkeypatch, how, sig):
    """numba's dispatcher may clear the KeyboardInterrupt a signal raised in
    it (the job then runs on) or wrap it in a SystemError; the interrupt may
    leave a library's object half-built, failing when it is freed (as
    multiprocessing's ``Finalize`` does, hit before its key). Either way the
    job ends with 128 + the signal's number, one line on stderr (the job's
    warnings are never shown), and nothing is renamed into place."""
    import geoanon.cli
    import geoanon.pipeline as pipeline

    real = pipeline.generalize_points
    finalizers = []

    def interrupted(*args, **kwargs):
        held = [type("Pool", (), {})()]        # only this frame holds it; its end calls a broken finalizer
        if how == "half-built":
            finalizers.append(weakref.ref(held[0], lambda ref: ref._key))
        try:
            geoanon.cli._interrupt(sig, None)
        except KeyboardInterrupt as exc:
            if how in ("raised", "half-built"):
                raise
            if how == "wrapped":
                raise SystemError("a result with an exception set") from exc
        release = real(*args, **kwargs)
        release.warnings.append("something was worked around")       # never shown: the job was interrupted
        return release

    monkeypatch.setattr(pipeline, "generalize_points", interrupted)
    src = tmp_path / "in.csv"
    pd.DataFrame({"lat": np.linspace(35, 36, 50), "lon": np.linspace(-80, -79, 50)}).to_csv(src, index=False)
    (tmp_path / "out.csv").write_text("an earlier output\n")
    said = []                                       # what Python would print as "Exception ignored in ..."
    monkeypatch.setattr(sys, "unraisablehook", said.append)
    code, out, err = cli("points", src, "-k", "5", "--lat", "lat", "--lon", "lon", "-o", tmp_path / "out.csv",
                         "--report", tmp_path / "r.json")
    assert said == [] and sys.unraisablehook == said.append
    assert code == 128 + sig
    assert err == "geoanon points: interrupted; nothing written\n"
    assert sorted(os.listdir(tmp_path)) == ["in.csv", "out.csv"]
    assert (tmp_path / "out.csv").read_text() == "an earlier output\n"
