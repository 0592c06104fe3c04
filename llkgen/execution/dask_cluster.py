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
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any, TypeVar

from llkgen.execution.base import DASK_HINT, DETERMINISTIC, TRIES, SchedulerError, WorkerFailure, _Ordered, window

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


class DaskExecutor:
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
        """Keep one client (and its local cluster) open across several :meth:`run_ordered`
        calls: ``llkgen verify`` sends a stream of levels in chunks, and a local cluster takes
        seconds to start."""
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

    def run_ordered(self, fn: Callable[[A], R], args: Sequence[A],
                    on_result: Callable[[int, R], None]) -> None:
        if not args:
            return
        distributed = _import_distributed()
        with self.client() as client:
            state = _Ordered(len(args), on_result)
            limit = window(max(1, sum(client.nthreads().values())))
            run = uuid.uuid4().hex[:12]  # task keys unique to this run: results are never shared
            tries: dict[int, int] = {}
            pending: dict[Any, int] = {}
            done = distributed.as_completed()

            def submit(positions: list[int]) -> None:
                for pos in positions:
                    tries[pos] = tries.get(pos, 0) + 1
                futures = client.map(fn, [args[pos] for pos in positions], pure=False,
                                     key=[f"llkgen-{run}-{pos}-{tries[pos]}" for pos in positions])
                pending.update(zip(futures, positions))
                done.update(futures)

            def failed(pos: int, exc: BaseException) -> None:
                if isinstance(exc, DETERMINISTIC):
                    state.failed(pos, exc)
                elif isinstance(exc, distributed.KilledWorker):  # the scheduler's retries are spent
                    state.failed(pos, WorkerFailure(
                        f"{args[pos]!r}: the workers holding it died (it may only have been queued on a worker "
                        f"another call killed): {type(exc).__name__}: {exc}", arg=args[pos], error=exc))
                elif tries[pos] < TRIES:
                    submit([pos])
                else:
                    state.failed(pos, WorkerFailure(
                        f"{args[pos]!r}: failed {TRIES} times on the cluster: {type(exc).__name__}: {exc}",
                        arg=args[pos], error=exc))

            try:
                while True:
                    # Submitted in batches once half the window is free, and results gathered
                    # in one call per wake-up: 1000 no-op calls on the local cluster took
                    # 14.3 s one by one, 4.8 s this way (overhead the parent's CPU takes from
                    # the workers on a small machine).
                    if len(pending) <= limit // 2:
                        batch = []
                        while state.may_submit(limit):
                            batch.append(state.next_submit)
                            state.next_submit += 1
                        if batch:
                            submit(batch)
                    if state.finished():
                        break
                    # Every future finished by now, and their results in one gather.
                    ready = sorted(done.next_batch(block=True), key=pending.__getitem__)
                    finished = [f for f in ready if f.status == "finished"]
                    results = dict(zip(finished, client.gather(finished))) if finished else {}
                    for f in ready:
                        pos = pending.pop(f)
                        if f in results:
                            state.done(pos, results[f])
                        else:
                            failed(pos, f.exception())
                        f.release()
            finally:
                for f in pending:
                    f.cancel()
            if state.failure is not None:
                raise state.failure[1]
