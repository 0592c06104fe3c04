"""The :class:`~llkgen.execution.base.Executor` on a Dask cluster (``pip install 'llkgen[dask]'``).

``DaskExecutor("tcp://host:8786", jobs)`` sends calls to a running scheduler; every worker
must have the same llkgen installed. ``DaskExecutor("local", jobs)`` starts a
``LocalCluster`` of ``jobs`` worker processes, one thread each, for the run.

Results come back in order and failures follow :mod:`llkgen.execution.base`: a deterministic
error (an :class:`~llkgen.errors.LlkgenError`, an :class:`AssertionError`) fails the run at
once; any other error a call raises is retried once, and a second failure stops the run with
:class:`~llkgen.execution.base.WorkerFailure`.

A worker that dies is the scheduler's to retry: it sends the worker's tasks elsewhere, and
reports ``KilledWorker`` for a task once more than ``distributed.scheduler.allowed-failures``
workers died under it. That report is final here. The local cluster sets the limit to 1, so a
level whose worker dies is run once more and a second death stops the run. (The scheduler
cannot tell which of a dead worker's tasks was running, so it counts a death against every
task the worker held; with the limit at 1, the levels merely queued there survive one death.)
A remote scheduler keeps its own limit (Dask's default is 3).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Generator, Iterable, Iterator, Sized
from contextlib import contextmanager
from typing import Any, TypeVar

from llkgen.execution.base import DASK_HINT, DETERMINISTIC, TRIES, Executor, SchedulerError, WorkerFailure, window

A = TypeVar("A")
R = TypeVar("R")

#: Seconds to wait for a remote scheduler to answer before giving up on it.
CONNECT_TIMEOUT = 10


#: The local cluster's settings, which its worker processes inherit:
#:
#: * A task is given up after two worker deaths (see the module docstring).
#: * No queuing on the scheduler (``worker-saturation: inf``): each worker holds its next
#:   levels itself instead of asking the scheduler for one level at a time. With queuing every
#:   level waited one round trip through the scheduler, and on a busy 2-core machine that cost
#:   about 75 ms a task: 20 tasks of 0.2 s on 2 workers took 3.5 s instead of 2.1 s (1.8 s
#:   without queuing, the process pool 2.1 s). Work stealing still evens out slow levels.
#: * The workers' statistical profiler is off: it walks the running task's Python stack every
#:   10 ms, and a level is pure Python.
#:
#: Re-measure with ``benchmarks/make_bench.py --compare`` when upgrading ``distributed``. A
#: remote scheduler uses its own settings: give it ``worker-saturation: inf`` too.
LOCAL_CONFIG = {
    "distributed.scheduler.allowed-failures": 1,
    "distributed.scheduler.worker-saturation": float("inf"),
    "distributed.worker.profile.enabled": False,
    "distributed.admin.system-monitor.gil.enabled": False,
}


class MissingDask(SchedulerError):
    """``--scheduler`` without ``distributed`` installed: a usage error, exit code 2."""

    exit_code = 2


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError as e:
        raise MissingDask(f"--scheduler: needs the optional dependency 'distributed' ({e.msg}): "
                          f"install it with: {DASK_HINT}") from None
    return distributed


class DaskExecutor(Executor):
    """Calls run as Dask tasks; see the module docstring."""

    def __init__(self, scheduler: str, jobs: int) -> None:
        _import_distributed()  # fail before any work, with the hint
        if type(jobs) is not int or jobs < 1:
            raise ValueError(f"jobs: expected an integer >= 1, found {jobs!r}")
        self.scheduler = scheduler
        self.jobs = jobs
        self._open: Any = None
        self.description = (f"a local Dask cluster of {jobs} worker{'s' if jobs != 1 else ''}"
                            if scheduler == "local" else f"the Dask scheduler {scheduler}")

    @contextmanager
    def session(self) -> Iterator[None]:
        """Keep one client (and its local cluster) open across several runs (calls of
        :meth:`imap_ordered`): a local cluster takes seconds to start. One run needs none: it
        keeps its client for the whole stream."""
        with self.client() as client:
            self._open = client
            try:
                yield
            finally:
                self._open = None

    @contextmanager
    def client(self) -> Iterator[Any]:
        """A ``distributed.Client`` for the run, closed (with its local cluster) afterwards;
        inside :meth:`session`, that session's client."""
        if self._open is not None:
            yield self._open
            return
        distributed = _import_distributed()
        import dask

        if self.scheduler == "local":
            # Port 0 for the scheduler's HTTP server, which runs even without the dashboard:
            # its default port clashes with any other cluster on the machine.
            with dask.config.set(LOCAL_CONFIG):
                cluster = distributed.LocalCluster(
                    n_workers=self.jobs, threads_per_worker=1, processes=True,
                    host="127.0.0.1", dashboard_address=":0", silence_logs=logging.CRITICAL)
            try:
                with distributed.Client(cluster) as client:
                    yield client
            finally:
                cluster.close()
            return
        try:
            client = distributed.Client(self.scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as e:
            raise SchedulerError(f"--scheduler: cannot reach the Dask scheduler at {self.scheduler!r}: "
                                 f"{e} (expected 'local' or an address such as tcp://HOST:8786)") from None
        with client:
            yield client

    def imap_ordered(self, fn: Callable[[A], R], iterable: Iterable[A], *,
                     inline: Callable[[A], bool] | None = None,
                     deadline: float | None = None) -> Generator[R, None, None]:
        """See :class:`~llkgen.execution.base.Executor`. One client (and local cluster) serves
        the whole stream; closing the generator early cancels the calls still on the cluster.

        A ``deadline`` is refused with :class:`ValueError`: a task already running on a Dask
        worker cannot be stopped (cancelling only forgets its result), and a remote worker's
        clock is not this process's, so no bound on the run could be kept."""
        if deadline is not None:
            raise ValueError("deadline: not supported on a Dask cluster (a running task cannot be stopped)")
        distributed = _import_distributed()
        if isinstance(iterable, Sized) and not len(iterable):
            return  # no cluster started for nothing (a resumed run with every level made)
        args = iter(iterable)
        with self.client() as client:
            limit = window(max(1, sum(client.nthreads().values())))
            run = uuid.uuid4().hex[:12]  # task keys unique to this run: results are never shared
            pulled = delivered = 0  # positions read from ``iterable``, and yielded
            exhausted = False
            held: dict[int, Any] = {}  # the argument of each position on the cluster, for retries
            results: dict[int, Any] = {}  # finished, waiting for an earlier position
            failure: tuple[int, BaseException] | None = None  # the lowest failure so far
            tries: dict[int, int] = {}
            pending: dict[Any, int] = {}
            done = distributed.as_completed()

            def submit(positions: list[int]) -> None:
                for pos in positions:
                    tries[pos] = tries.get(pos, 0) + 1
                futures = client.map(fn, [held[pos] for pos in positions], pure=False,
                                     key=[f"llkgen-{run}-{pos}-{tries[pos]}" for pos in positions])
                pending.update(zip(futures, positions))
                done.update(futures)

            def fail(pos: int, exc: BaseException) -> None:
                nonlocal failure
                if failure is None or pos < failure[0]:
                    failure = (pos, exc)

            def failed(pos: int, exc: BaseException) -> None:
                arg = held[pos]
                if isinstance(exc, DETERMINISTIC):
                    fail(pos, exc)
                elif isinstance(exc, distributed.KilledWorker):  # the scheduler's retries are spent
                    fail(pos, WorkerFailure(
                        f"{arg!r}: the workers holding it died (it may only have been queued on a worker "
                        f"another call killed): {type(exc).__name__}: {exc}", arg=arg, error=exc))
                elif tries[pos] < TRIES:
                    submit([pos])
                else:
                    fail(pos, WorkerFailure(f"{arg!r}: failed {TRIES} times on the cluster: {type(exc).__name__}: "
                                            f"{exc}", arg=arg, error=exc))

            try:
                while True:
                    # Pulled and submitted in batches once half the window is free, and results
                    # gathered in one call per wake-up: 1000 no-op calls on the local cluster
                    # took 14.3 s one by one, 4.8 s this way (overhead the parent's CPU takes
                    # from the workers on a small machine).
                    if failure is None and not exhausted and len(pending) <= limit // 2:
                        batch = []
                        while failure is None and pulled - delivered < limit:
                            pos = pulled
                            try:
                                arg = next(args)
                            except StopIteration:
                                exhausted = True
                                break
                            except Exception as e:  # the iterable's own failure, raised at its position
                                fail(pos, e)
                                break
                            pulled += 1
                            if inline is not None and inline(arg):
                                try:
                                    results[pos] = fn(arg)
                                except Exception as e:
                                    fail(pos, e)
                            else:
                                held[pos] = arg
                                batch.append(pos)
                        if batch:
                            submit(batch)
                    stop = pulled if failure is None else failure[0]
                    while delivered < stop and delivered in results:
                        held.pop(delivered, None)
                        result = results.pop(delivered)
                        delivered += 1
                        yield result
                    if delivered >= stop:
                        if failure is not None:
                            raise failure[1]
                        if exhausted:
                            return
                    if not pending:  # every pulled position is yielded: pull the next ones
                        continue
                    # Every future finished by now, and their results in one gather.
                    ready = sorted(done.next_batch(block=True), key=pending.__getitem__)
                    finished = [f for f in ready if f.status == "finished"]
                    values = dict(zip(finished, client.gather(finished))) if finished else {}
                    for f in ready:
                        pos = pending.pop(f)
                        if f in values:
                            results[pos] = values[f]
                        else:
                            failed(pos, f.exception())
                        f.release()
            finally:
                # Closed early or failed: the calls still on the cluster are of no use.
                for f in pending:
                    f.cancel()
