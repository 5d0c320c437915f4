"""Progress of long steps: reading, generalizing, solving, writing.

Each step is logged through :mod:`logging` (logger ``geoanon``: its start at
INFO, its time when it ends), so a program that configures logging sees them;
the command line's ``-v`` does. When the command line runs with stderr on a
terminal (and without ``--quiet``), :func:`configure` also turns on a spinner
with the current step and its elapsed time (rich), which disappears when the
command ends; through a pipe nothing is shown.
"""
from __future__ import annotations

import functools
import logging
import sys
import time
from contextlib import contextmanager

__all__ = ["configure", "detach", "step", "stepped"]

log = logging.getLogger("geoanon")
_display = {"console": None, "live": None, "task": None, "depth": 0}


def configure(*, quiet: bool = False, verbose: int = 0, stream=None) -> None:
    """Set up the command line's output: ``verbose`` >= 1 logs the steps with
    their times on stderr; a spinner when ``stream`` (stderr) is a terminal
    and not ``quiet``."""
    stream = sys.stderr if stream is None else stream
    if verbose:
        handler = logging.StreamHandler(stream)
        handler.setFormatter(logging.Formatter("geoanon: %(message)s"))
        log.handlers[:] = [handler]
        log.setLevel(logging.INFO if verbose == 1 else logging.DEBUG)
    _display["console"] = None
    if not quiet and stream.isatty():
        from rich.console import Console

        _display["console"] = Console(file=stream)


def detach() -> None:
    """In a forked worker process: no spinner (the parent's owns the
    terminal); the steps are still logged."""
    _display.update(console=None, live=None, task=None, depth=0)


@contextmanager
def step(what: str):
    """A long step: logged, and shown by the spinner when there is one (a step
    inside another updates the spinner's text)."""
    start = time.perf_counter()
    log.info("%s ...", what)
    shown = _show(what)
    try:
        with shown:
            yield
    finally:
        log.info("%s: %.2f s", what, time.perf_counter() - start)


def stepped(what: str):
    """Decorator: the call is a :func:`step`; ``what`` may name positional arguments (``{0}``)."""
    def wrap(fn):
        @functools.wraps(fn)
        def inner(*args, **kwargs):
            with step(what.format(*args) if "{" in what else what):
                return fn(*args, **kwargs)
        return inner
    return wrap


@contextmanager
def _show(what: str):
    console = _display["console"]
    if console is None:
        yield
        return
    if _display["depth"]:
        live, task = _display["live"], _display["task"]
        before = live.tasks[task].description
        live.update(task, description=what)
        _display["depth"] += 1
        try:
            yield
        finally:
            _display["depth"] -= 1
            live.update(task, description=before)
        return
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    with Progress(SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn(), console=console,
                  transient=True) as live:
        _display.update(live=live, task=live.add_task(what, total=None), depth=1)
        try:
            yield
        finally:
            _display.update(live=None, task=None, depth=0)
