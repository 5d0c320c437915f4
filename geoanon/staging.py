"""Outputs staged beside their destinations and committed together: all the
new files, or all the old ones, whatever ends the job and whenever.

A job writes each output into a hidden staging folder beside its destination
(``.{name}.geoanon.{host}.{pid}.*``, on the destination's file system), then
:meth:`StagedOutputs.commit` moves them all at once:

1. a journal of every move (staged file, destination, where the
   destination's old file is kept) is written into each staging folder;
2. each old file is hard-linked (renamed where links fail) into its staging
   folder, and the staged file renamed over the destination;
3. the first folder's journal is removed: the commit point;
4. the other journals, the old files and the staging folders are removed.

An error during the moves puts the old files back. SIGINT, SIGTERM and
SIGHUP that arrive during a commit, at whichever thread, are held (the
handler records them and returns) and acted on once the commit is done, so
the outcome is the new files and then the interrupt. A process killed
outright (SIGKILL, a power cut) leaves its staging folders: the next job that
writes into one of those folders finds the journal and rolls the commit back
to the old files, or, past the commit point, removes what is left
(:func:`remove_stale_staging`, run by :func:`check_writable`).
"""
from __future__ import annotations

import contextlib
import contextvars
import json
import os
import re
import shutil
import signal
import socket
import tempfile
import threading
from pathlib import Path

from . import _outcome
from .errors import DataError

__all__ = ["HELD_SIGNALS", "StagedOutputs", "batch", "check_writable", "current_batch", "holding_interrupts",
           "remove_stale_staging"]

JOURNAL = "commit.json"
HELD_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
_STAGING = re.compile(r"\.geoanon\.(?P<host>\w+)\.(?P<pid>\d+)\.\w+$")


def _host() -> str:
    return re.sub(r"\W", "_", socket.gethostname()) or "host"


@contextlib.contextmanager
def holding_interrupts():
    """Within the block SIGINT, SIGTERM and SIGHUP are recorded, not acted
    on, whichever thread receives them; on leaving it each one received is
    delivered again to the handler it would have met (the command line's
    raises KeyboardInterrupt). From the main thread a recording handler
    stands in for the block; from another thread (where handlers cannot be
    set) the command line's own handler holds them while
    ``_outcome.holding`` is set."""
    held: list = []
    previous = {}
    _outcome.holding = True
    try:
        if threading.current_thread() is threading.main_thread():
            for number in HELD_SIGNALS:
                previous[number] = signal.signal(number, lambda signum, frame: held.append(signum))
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
        _outcome.holding = False
        for number in dict.fromkeys(held):
            signal.raise_signal(number)


def check_writable(path, *, creatable: bool = False) -> Path:
    """Validate an output path before any work: an existing folder this process
    can create files in (tried, not assumed), and no folder, device or other
    non-regular file in the way. Stale staging folders of dead jobs in that
    folder are cleared (:func:`remove_stale_staging`). ``creatable``: a
    missing folder will do if this process can create it (the nearest
    existing folder above it is tried)."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir() and creatable:
        above = next((p for p in folder.parents if p.exists()), Path("."))
        if not above.is_dir() or folder.exists():
            raise DataError(f"{path}: {above if not above.is_dir() else folder} is not a folder")
        _probe(path, above)
        return path
    if not folder.is_dir():
        raise DataError(f"{path}: the folder {folder} does not exist")
    if path.is_dir():
        raise DataError(f"{path}: is a folder")
    if path.exists() and not path.is_file():
        raise DataError(f"{path}: exists and is not a regular file")
    _probe(path, folder)
    remove_stale_staging(folder)
    return path


def _probe(path: Path, folder: Path) -> None:
    """DataError unless this process can create a file in ``folder`` (tried)."""
    try:
        fd, probe = tempfile.mkstemp(prefix=".geoanon-probe.", dir=folder)
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise DataError(f"{path}: cannot write into the folder {folder} ({exc.strerror or exc})") from None


def remove_stale_staging(folder) -> list:
    """Clear the staging folders that jobs on this host left in ``folder``
    when they were killed (their process no longer runs): a commit cut short
    is rolled back to the old files first (past its commit point, only what
    is left is removed). Returns the staging folders removed."""
    if os.name != "posix":   # os.kill(pid, 0) probes a process only on POSIX
        return []
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    for entry in entries:
        match = _STAGING.search(entry.name)
        if not (match and entry.name.startswith(".") and match["host"] == _host() and entry.is_dir()):
            continue
        try:
            os.kill(int(match["pid"]), 0)
            continue                      # still running (or someone else's and alive)
        except ProcessLookupError:
            pass
        except OSError:
            continue
        removed += _recover(Path(entry.path))
    return removed


def _recover(folder: Path) -> list:
    """Finish what a dead job's staging ``folder`` holds: roll its commit back
    if it stopped before the commit point, then remove the commit's folders."""
    journal = _read_journal(folder / JOURNAL)
    if journal is None:
        shutil.rmtree(folder, ignore_errors=True)
        return [str(folder)]
    primary = Path(journal["primary"])
    if (primary / JOURNAL).exists():
        _roll_back(journal["moves"])
    folders = [Path(f) for f in journal["folders"]]
    for f in [f for f in folders if f != primary] + [primary]:       # the commit point's journal last
        shutil.rmtree(f, ignore_errors=True)
    return [str(f) for f in folders]


def _read_journal(path: Path) -> dict | None:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _roll_back(moves: list) -> None:
    """Put every destination of ``moves`` back as it was before the commit
    (idempotent: a recovery cut short can run again)."""
    for move in reversed(moves):
        staged, destination, old = Path(move["staged"]), Path(move["destination"]), move["old"]
        if old is not None:
            if os.path.lexists(old):
                os.replace(old, destination)
        elif not os.path.lexists(staged) and os.path.lexists(destination):
            if destination.is_dir() and not destination.is_symlink():
                os.replace(destination, staged)
            else:
                destination.unlink()


_BATCH = contextvars.ContextVar("geoanon_batch", default=None)


@contextlib.contextmanager
def batch(out: "StagedOutputs"):
    """Within the block, a job that writes its own outputs (a dask job's
    dataset) stages them into ``out`` instead, so that they are renamed
    with the caller's other outputs, all or nothing."""
    token = _BATCH.set(out)
    try:
        yield out
    finally:
        _BATCH.reset(token)


def current_batch():
    """The :class:`StagedOutputs` of the enclosing :func:`batch`, or None."""
    return _BATCH.get()


class StagedOutputs:
    """Outputs written to temporary files and moved into place together.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> with StagedOutputs() as out:
    ...     _ = Path(out.stage(folder / "result.csv")).write_text("a\\n1\\n")
    ...     _ = Path(out.stage(folder / "report.json")).write_text("{}")
    >>> sorted(p.name for p in folder.iterdir())
    ['report.json', 'result.csv']

    On leaving the block without an error every staged file replaces its
    destination in one commit (the module's steps): afterwards every
    destination holds its new file, or, on any failure or a kill, every one
    its old file. On an error, Ctrl-C, SIGTERM or SIGHUP before the commit
    (the command line turns the signals into KeyboardInterrupt) every staged
    file is removed and no destination is touched. A destination's missing
    folders are made when it is staged, and removed again on discard.
    """

    def __init__(self):
        self._staged: list[tuple[Path, Path]] = []   # (staging folder, destination)
        self._made: list[Path] = []                  # folders made for destinations, outermost first

    def stage(self, destination) -> str:
        """A temporary path to write ``destination``'s content to. Each folder
        is made and recorded with the interrupts held, so that discarding
        removes every folder an interrupt leaves."""
        destination = Path(destination)
        missing = [p for p in reversed(destination.parents) if not p.exists()]
        for folder in missing:
            with holding_interrupts():
                folder.mkdir()
                self._made.append(folder)
        destination = check_writable(destination)
        prefix = f".{destination.name}.geoanon.{_host()}.{os.getpid()}."
        with holding_interrupts():
            folder = Path(tempfile.mkdtemp(prefix=prefix, dir=destination.parent))
            self._staged.append((folder, destination))
        return str(folder / destination.name)

    def commit(self) -> None:
        """Move every staged file into place, all or none (the module's
        steps), with the interrupts held; an interrupt received before it
        starts stops it, one received during it is raised once it is done."""
        with holding_interrupts():
            if _outcome.interrupted:
                raise KeyboardInterrupt(_outcome.interrupted[0])
            if not self._staged:
                return
            moves = [{"staged": str(part), "destination": str(destination.parent / part.name),
                      "old": str(folder / f".old.{part.name}") if os.path.lexists(destination.parent / part.name)
                      else None}
                     for folder, destination in self._staged for part in sorted(folder.iterdir())]
            folders = [str(folder) for folder, _ in self._staged]
            journal = json.dumps({"primary": folders[0], "folders": folders, "moves": moves})
            for folder in folders:
                _write_synced(Path(folder) / JOURNAL, journal)
            done = []
            try:
                for move in moves:
                    done.append(move)
                    if move["old"] is not None:
                        _keep_old(move["destination"], move["old"])
                    os.replace(move["staged"], move["destination"])
            except BaseException:
                _roll_back(done)
                raise
            os.unlink(Path(folders[0]) / JOURNAL)                 # the commit point
            _outcome.committed.extend(Path(move["destination"]) for move in moves)
            for folder in folders[1:] + folders[:1]:
                shutil.rmtree(folder, ignore_errors=True)
            self._staged.clear()
            self._made.clear()

    def discard(self) -> None:
        for folder, _ in self._staged:
            shutil.rmtree(folder, ignore_errors=True)
        self._staged.clear()
        for folder in reversed(self._made):
            with contextlib.suppress(OSError):
                folder.rmdir()
        self._made.clear()

    def __enter__(self) -> "StagedOutputs":
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        if exc_type is None:
            try:
                self.commit()
            except BaseException:
                self.discard()
                raise
        else:
            self.discard()


def _write_synced(path: Path, text: str) -> None:
    """Write ``path`` and flush it to the disk, so a journal outlives a power cut."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def _keep_old(destination: str, old: str) -> None:
    """Keep ``destination``'s old file at ``old``: a hard link (the
    destination never goes missing), or a rename where the file system has
    no links."""
    try:
        os.link(destination, old, follow_symlinks=False)
    except OSError:
        os.replace(destination, old)
