"""The driver of ``test_commit_signals``: one ``geoanon run`` batch, forked
at the start of its commit once per trial, each fork sent a signal a given
time after its commit begins.

Run as ``python commit_driver.py FOLDER PLAN`` (PLAN: a JSON list of trials,
each ``[signal number, delay in ms, target]``, target ``"process"`` or
``"thread"``; signal 0 sends none). The batch's job files and the earlier
versions of its outputs (in ``FOLDER/out``) are there already. The driver
runs the command line until the batch's outputs are staged; then, for each
trial, it writes the earlier outputs and the staged files back and forks.
The fork starts three idle threads (as library thread pools do), tells the
driver through a pipe that its commit is about to begin, waits ``LEAD`` ms
(so that early signals land before the commit on any machine, however fast
its commit and however slow its signal delivery) and carries on as the
command line would: the commit, the summary, the exit. The driver waits the delay
and sends the signal to the process (any thread may take it) or, with
``"thread"``, to one of the fork's threads other than the main one
(``tgkill``). It prints one JSON line per trial: the exit status, stdout,
stderr and a digest of every entry of the output folder.
"""
import ctypes
import hashlib
import json
import os
import platform
import shutil
import sys
import threading
import time
from pathlib import Path

LEAD = 5
TGKILL = {"x86_64": 234, "aarch64": 131}.get(platform.machine())


def tgkill(pid: int, tid: int, sig: int) -> None:
    ctypes.CDLL(None, use_errno=True).syscall(TGKILL, pid, tid, sig)


def other_threads(pid: int) -> list:
    try:
        return sorted(int(t) for t in os.listdir(f"/proc/{pid}/task") if int(t) != pid)
    except OSError:
        return []


def send(pid: int, sig: int, target: str) -> None:
    try:
        threads = other_threads(pid)
        if target == "thread" and threads and TGKILL is not None:
            tgkill(pid, threads[len(threads) // 2], sig)
        else:
            os.kill(pid, sig)
    except ProcessLookupError:
        pass


def trials(folder: Path, plan: list, commit):
    """A stand-in for ``StagedOutputs.commit`` that runs the trials: returns
    (to the command line, which goes on) only in the forks."""
    out = folder / "out"
    earlier = {p: p.read_bytes() for p in out.iterdir()}

    def run(self):
        staged = {p: p.read_bytes() for f, _ in self._staged for p in f.iterdir()}
        for sig, delay, target in plan:
            for p in out.iterdir():
                shutil.rmtree(p) if p.is_dir() else p.unlink()
            for p, data in earlier.items():
                p.write_bytes(data)
            for p, data in staged.items():
                p.parent.mkdir(exist_ok=True)
                p.write_bytes(data)
            ready_r, ready_w = os.pipe()
            sys.stdout.flush()
            sys.stderr.flush()
            pid = os.fork()
            if pid == 0:
                os.close(ready_r)
                for name, fd in (("stdout", 1), ("stderr", 2)):
                    os.dup2(os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), fd)
                for _ in range(3):
                    threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
                os.write(ready_w, b"c")
                time.sleep(LEAD / 1000)
                return commit(self)
            os.close(ready_w)
            os.read(ready_r, 1)
            os.close(ready_r)
            if sig:
                time.sleep(delay / 1000)
                send(pid, sig, target)
            _, status = os.waitpid(pid, 0)
            files = {p.name: hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "folder"
                     for p in out.iterdir()}
            print(json.dumps({"signal": sig, "delay": delay, "target": target,
                              "exit": os.waitstatus_to_exitcode(status), "files": files,
                              "stdout": (folder / "stdout").read_text(), "stderr": (folder / "stderr").read_text()}),
                  flush=True)
        os._exit(0)

    return run


def main(folder: Path, plan: list) -> None:
    import geoanon.staging as staging
    from geoanon import cli

    staging.StagedOutputs.commit = trials(folder, plan, staging.StagedOutputs.commit)
    sys.argv = ["geoanon", "run", *map(str, sorted(folder.glob("job*.toml")))]
    cli.entry()


if __name__ == "__main__":
    main(Path(sys.argv[1]), json.loads(sys.argv[2]))
