"""Work spread over forked worker processes, which inherit the function
to map, with whatever state it holds (a closure, a ``partial``), instead of
receiving it pickled; only the items and the results travel."""
from __future__ import annotations

from contextlib import contextmanager

from .progress import detach, step

__all__ = ["beside", "forked", "forked_map"]

_FUNCTION = None    # the function being mapped, inherited by the forked workers
_FREEZES = 0        # forked workers alive (the garbage collector's objects frozen while any is)


def forked_map(function, items: list, n_jobs: int, beside=None):
    """``function`` of every item, in order: in ``n_jobs`` forked workers
    that ignore Ctrl-C (the caller's interrupt terminates them), or in this
    process with one job or one item and nothing ``beside``, with no items,
    or where processes cannot fork. ``beside``: a function this process runs
    while the workers map (after them when they do not run); then returns
    (results, its result)."""
    import multiprocessing as mp

    global _FUNCTION
    alone = beside is None and (n_jobs == 1 or len(items) < 2)
    if alone or not items or "fork" not in mp.get_all_start_methods():
        out = [function(item) for item in items]
        return out if beside is None else (out, beside())
    previous, _FUNCTION = _FUNCTION, function       # restored after: a worker that maps in turn keeps its own
    try:
        with _frozen(), mp.get_context("fork").Pool(min(n_jobs, len(items)), initializer=_ignore_interrupts) as pool:
            if beside is None:
                return pool.map(_call, items, chunksize=1)
            pending = pool.map_async(_call, items, chunksize=1)
            done = beside()
            with step(f"waiting for {len(items)} worker process{'es' if len(items) > 1 else ''}"):
                return pending.get(), done
    finally:
        _FUNCTION = previous


@contextmanager
def forked(function, n_jobs: int):
    """A callable giving ``function()``: computed from now on in a forked
    worker (only its result travels, pickled; a Ctrl-C or an error here
    terminates it) while this process goes on, with ``n_jobs`` > 1 where
    processes can fork; else at once, in this process. ``function`` may not
    change state this process reads: the worker's changes stay in the worker.

    >>> with forked(lambda: 6 * 7, 2) as result:
    ...     result()
    42
    """
    import multiprocessing as mp

    global _FUNCTION
    if n_jobs == 1 or "fork" not in mp.get_all_start_methods():
        done = function()
        yield lambda: done
        return
    previous, _FUNCTION = _FUNCTION, lambda _: function()
    with _frozen():
        try:
            pool = mp.get_context("fork").Pool(1, initializer=_ignore_interrupts)
        finally:
            _FUNCTION = previous
        with pool:
            pending = pool.apply_async(_call, (None,))

            def result():
                with step("waiting for a worker process"):
                    return pending.get()

            yield result


def beside(first, second, n_jobs: int) -> tuple:
    """``(first(), second())``: with ``n_jobs`` > 1, ``first`` in a forked
    worker while this process runs ``second`` (:func:`forked`); else, or
    where processes cannot fork, one after the other in this process.
    Neither may change state the other, or the caller after, reads."""
    with forked(first, n_jobs) as result:
        other = second()
        return result(), other


@contextmanager
def _frozen():
    """The objects this process holds frozen while forked workers share
    them: neither its collections nor the workers' touch them, so their
    pages stay shared (a collection here would copy every page a worker
    shares with it). They thaw when the last worker ends."""
    import gc

    global _FREEZES
    gc.freeze()
    _FREEZES += 1
    try:
        yield
    finally:
        _FREEZES -= 1
        if not _FREEZES:
            gc.unfreeze()


def _call(item):
    """In a worker: the inherited function of ``item``."""
    return _FUNCTION(item)


def _ignore_interrupts():
    """A worker's signals: Ctrl-C is the parent's to handle; a termination
    ends the worker at once. Its steps are logged, not shown: the spinner is
    the parent's."""
    import signal

    detach()

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
