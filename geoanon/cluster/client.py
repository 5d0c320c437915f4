"""Which cluster a job runs on, and what its workers can hold."""
from __future__ import annotations

import contextlib
import logging
import os

from ..errors import ClusterError, ParameterError

__all__ = ["cluster_client", "cluster_failures", "n_workers", "quiet", "shard_rows"]

BYTES_PER_POINT = 240        # what the in-memory points engine needs per record (bench_points)
MEMORY_SAFETY = 4            # a shard's rows, shuffle buffers and the partition's arrays at once


def quiet() -> None:
    """Keep this process's stderr to geoanon's own lines: dask's and
    distributed's loggers (a worker's failure, a connection closed as the
    cluster shuts down) and warnings are silenced (the command line calls
    this before a cluster job; a failure still reaches the job as its error),
    and so is the count of semaphores left behind that multiprocessing's
    resource tracker (a process of its own, which reads the environment)
    prints when an interrupted job's local workers end without releasing
    theirs: the tracker still releases them."""
    import warnings

    for name in ("distributed", "dask", "tornado", "asyncio", "bokeh"):
        logging.getLogger(name).setLevel(logging.CRITICAL + 1)
    for module in ("distributed", "dask", "dask_geopandas", "tornado"):
        warnings.filterwarnings("ignore", module=module)
    tracker = "ignore::UserWarning:multiprocessing.resource_tracker"
    given = os.environ.get("PYTHONWARNINGS", "")
    if tracker not in given.split(","):
        os.environ["PYTHONWARNINGS"] = ",".join(filter(None, [given, tracker]))


CONNECT_TIMEOUT = "20s"       # an unreachable scheduler is an error after this long


def scheduler_address(path) -> str:
    """The address a scheduler file (``dask scheduler --scheduler-file``)
    gives; ParameterError for a missing file or one that is not a scheduler's."""
    import json

    if not os.path.isfile(path):
        raise ParameterError(f"{path}: no such scheduler file (dask scheduler --scheduler-file writes it)")
    try:
        with open(path, encoding="utf-8") as f:
            address = json.load(f).get("address")
    except (OSError, ValueError, AttributeError):
        address = None
    if not isinstance(address, str) or not address:
        raise ParameterError(f"{path}: not a Dask scheduler file (no scheduler address in it)")
    return address


def _import_distributed():
    try:
        import distributed
    except ImportError:
        raise ParameterError('the dask engine needs the optional dependencies: pip install "geoanon[dask]"') from None
    return distributed


@contextlib.contextmanager
def cluster_client(scheduler=None, *, scheduler_file=None, n_workers=None, memory_limit=None):
    """A ``distributed.Client`` for a job: ``scheduler`` itself when it is a
    Client (left open), a connection to its address or to ``scheduler_file``
    (closed after), or a ``LocalCluster`` of processes on this machine
    (``n_workers`` default: the cores; ``memory_limit`` per worker, default
    Dask's share of the machine's memory), shut down after.

    Examples
    --------
    >>> import distributed
    >>> import geoanon.cluster as gc
    >>> client = distributed.Client(n_workers=1, processes=False, dashboard_address=":0")
    >>> with gc.cluster_client(client) as job_client:      # a Client is used as it is
    ...     job_client is client
    True
    >>> client.status
    'running'
    >>> client.close()
    """
    distributed = _import_distributed()
    if isinstance(scheduler, distributed.Client):
        yield scheduler
        return
    if scheduler is not None and not isinstance(scheduler, str):
        raise ParameterError(f"scheduler must be a distributed.Client or an address, got {type(scheduler).__name__}")
    if scheduler_file is not None:
        scheduler = scheduler_address(scheduler_file)
    if scheduler is not None:
        client, failure = None, None
        try:
            client = distributed.Client(scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as exc:          # unreachable, or not an address
            failure = " ".join(str(exc).split())
        if client is None:
            _collect_unstarted_client()
            where = scheduler + ("" if scheduler_file is None else f" (from {scheduler_file})")
            raise ParameterError(f"cannot reach the Dask scheduler at {where}: {failure}")
        with client:
            yield client
        return
    workers = n_workers or os.cpu_count() or 1
    with distributed.LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                                  memory_limit=memory_limit or "auto", dashboard_address=":0",
                                  silence_logs=logging.CRITICAL) as cluster, \
            distributed.Client(cluster) as client:
        yield client


def _collect_unstarted_client() -> None:
    """Collect the Client whose start just failed, now. Left to the garbage
    collector, its ``__del__`` closes it whenever a collection happens to run,
    and inside the start of a later Client that holds distributed's
    ``LoopRunner`` lock it waits for that lock forever (seen as a hung test)."""
    import gc

    gc.collect()


def _workers(client) -> list:
    """Every worker's info (``scheduler_info`` lists only a few unless asked for all)."""
    import inspect

    if "n_workers" in inspect.signature(client.scheduler_info).parameters:
        return list(client.scheduler_info(n_workers=-1)["workers"].values())
    return list(client.scheduler_info()["workers"].values())


def worker_memory(client) -> int:
    """The smallest memory limit among the cluster's workers, in bytes (0: none set)."""
    limits = [w.get("memory_limit") or 0 for w in _workers(client)]
    return int(min(limits)) if limits else 0


def shard_rows(client, row_bytes: float) -> int:
    """The most rows a shard may hold so that a worker can partition it: its
    memory limit over (240 bytes per point + the row's own bytes) x 4; 10^7
    when the workers have no limit."""
    limit = worker_memory(client)
    if limit <= 0:
        return 10_000_000
    return max(int(limit / (MEMORY_SAFETY * (BYTES_PER_POINT + row_bytes))), 1_000)


def n_workers(client) -> int:
    return max(len(_workers(client)), 1)


@contextlib.contextmanager
def cluster_failures():
    """Turn the cluster's own failures (a worker killed more often than Dask
    retries a task, a lost connection) into one-line :class:`ClusterError`."""
    distributed = _import_distributed()
    from distributed.comm.core import CommClosedError

    try:
        yield
    except (distributed.KilledWorker, CommClosedError, distributed.client.FutureCancelledError) as exc:
        raise ClusterError(f"the cluster lost the job: {' '.join(str(exc).split())[:300]}") from None
