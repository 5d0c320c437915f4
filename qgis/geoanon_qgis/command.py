"""The geoanon command line run as a child process: which command, in which
environment, its output passed on line by line, stopped on request.

Plain Python (no QGIS), so that it can be tested without QGIS."""
from __future__ import annotations

import os
import queue
import shlex
import shutil
import subprocess
import threading
from dataclasses import dataclass
from typing import Callable

ENVIRONMENT_VARIABLE = "GEOANON_EXECUTABLE"
SETTING = "GEOANON_EXECUTABLE"   # the Processing setting's key ('geoanon command')
# QGIS's own Python (OSGeo4W sets both for it) would be taken up by geoanon's
PYTHON_VARIABLES = ("PYTHONHOME", "PYTHONPATH")
STOP_GRACE_SECONDS = 10.0     # after SIGTERM (geoanon removes its staged outputs), before SIGKILL


class CommandNotFound(Exception):
    """No geoanon command is configured and none is on PATH."""


def geoanon_command(setting: str | None = None) -> list[str]:
    """The command that runs geoanon: ``$GEOANON_EXECUTABLE``, else the
    Processing setting, else ``geoanon`` on PATH. A value naming a file is
    that one program (spaces and all); any other value is split as a shell
    would (``/venv/bin/python -m geoanon.cli``)."""
    for value in (os.environ.get(ENVIRONMENT_VARIABLE), setting):
        value = (value or "").strip()
        if value:
            return [value] if os.path.isfile(value) else shlex.split(value)
    found = shutil.which("geoanon")
    if found is None:
        raise CommandNotFound(f"no geoanon command: set {ENVIRONMENT_VARIABLE}, or the Processing setting 'geoanon "
                              "command', to the geoanon program of the Python environment geoanon is installed in, "
                              "or put that program on PATH")
    return [found]


def child_environment(environ=None) -> dict:
    """The environment geoanon runs in: this one without the variables that
    point a Python at QGIS's own, and with UTF-8 output."""
    environ = dict(os.environ if environ is None else environ)
    for name in PYTHON_VARIABLES:
        environ.pop(name, None)
    environ["PYTHONIOENCODING"] = "utf-8"
    return environ


@dataclass(frozen=True)
class Outcome:
    """How a run ended: its exit code, the message of its last ``error:``
    line on stderr (if any), and whether it was stopped on request."""

    code: int
    error: str | None
    canceled: bool = False


def error_message(line: str) -> str | None:
    """The message of a geoanon error line (``geoanon zip: error: k=50 is
    larger than the table (30 rows)`` -> ``k=50 is larger ...``), else None."""
    head, sep, message = line.partition(": error: ")
    return message.strip() if sep and head.startswith("geoanon") else None


def run(command: list[str], *, on_line: Callable[[str, str], None], canceled: Callable[[], bool],
        poll_seconds: float = 0.1) -> Outcome:
    """Run ``command`` to its end, handing each line it prints to
    ``on_line(stream, text)`` (stream ``"stdout"`` or ``"stderr"``) in the
    calling thread. When ``canceled()`` turns true the child is asked to stop
    (SIGTERM: geoanon removes what it staged and writes nothing), and killed
    if it has not within :data:`STOP_GRACE_SECONDS`."""
    child = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             env=child_environment(), creationflags=getattr(subprocess, "CREATE_NO_WINDOW", 0))
    lines: queue.Queue = queue.Queue()
    readers = [threading.Thread(target=_read_lines, args=(stream, name, lines), daemon=True)
               for stream, name in ((child.stdout, "stdout"), (child.stderr, "stderr"))]
    for reader in readers:
        reader.start()
    error, open_streams, stopped = None, len(readers), False
    while open_streams:
        if canceled():
            _stop(child)
            stopped = True
            break
        try:
            stream, text = lines.get(timeout=poll_seconds)
        except queue.Empty:
            continue
        if text is None:
            open_streams -= 1
            continue
        if stream == "stderr":
            error = error_message(text) or error
        on_line(stream, text)
    code = child.wait()
    for reader in readers:                   # a stopped child's own children may hold its pipes a while
        reader.join(STOP_GRACE_SECONDS if stopped else None)
    return Outcome(code, error, stopped)


def _read_lines(stream, name: str, lines: queue.Queue) -> None:
    """Put each line of ``stream`` (a spinner's redraws: the last) on
    ``lines``, then None for its end."""
    with stream:
        for raw in stream:
            text = raw.decode("utf-8", errors="replace").rstrip("\r\n").rsplit("\r", 1)[-1]
            if text.strip():
                lines.put((name, text))
    lines.put((name, None))


def _stop(child: subprocess.Popen) -> None:
    child.terminate()
    try:
        child.wait(STOP_GRACE_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()


def taken_flag(words: list[str], taken: set) -> str | None:
    """The first flag among command-line ``words`` that sets one of the
    flags ``taken``, as argparse reads it (``--report=r.json``; ``--rep``, a
    long flag's prefix; ``-k5``), else None."""
    for word in words:
        flag = word
        if word.startswith("--"):
            flag = word.split("=", 1)[0]
        elif word.startswith("-") and len(word) > 2 and not word[1].isdigit():
            flag = word[:2]
        if flag in taken or (flag.startswith("--") and any(name.startswith(flag) for name in taken)):
            return flag
    return None


def quoted(command: list[str]) -> str:
    """``command`` as one line a shell would run."""
    return " ".join(shlex.quote(word) for word in command)
