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
workers died under it. That report is final here (:class:`WorkersDied`). The local cluster sets the limit to 1, so a
level whose worker dies is run once more and a second death stops the run. (The scheduler
cannot tell which of a dead worker's tasks was running, so it counts a death against every
task the worker held; with the limit at 1, the levels merely queued there survive one death.)
A remote scheduler keeps its own limit (Dask's default is 3).

A worker can also die holding results it finished that were not fetched yet. The scheduler
computes those again (on the workers left, counting no failure against them) and they arrive
as if nothing had happened: a call is never counted as failed for a result lost that way.
Every call is a pure function of its argument, so a call computed twice gives the same result.

A lost scheduler is final too. When the client's connection to the scheduler breaks, Dask
cancels every task of the client at once: the run stops with :class:`SchedulerLost` at the
first result that did not come back (the results before it are yielded first), and no call
is retried, as there is no cluster left to retry it on.

Every machine must run the client's llkgen version: a worker of another version could compute
different results, and the scheduler unpickles every task, so it needs llkgen too. On
connecting, the client asks the scheduler and every worker for their version and refuses a
cluster where one differs (:class:`VersionMismatch`). A worker that joins later is checked by
each task it runs: a task on a worker of another version fails at once, before computing, with
an :class:`~llkgen.errors.LlkgenError` that is not retried.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Generator, Iterable, Iterator, Sized
from contextlib import contextmanager
from typing import Any, TypeVar

from llkgen._version import __version__
from llkgen.execution.base import (
    DASK_HINT,
    DETERMINISTIC,
    TRIES,
    Executor,
    SchedulerError,
    SchedulerLost,
    WorkerFailure,
    WorkersDied,
    window,
)

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


#: The states of a future that has come to an end. Any other, after ``as_completed`` handed it
#: over, is ``lost``: its worker died after computing it, before its result was fetched.
SETTLED = ("finished", "error", "cancelled")


#: Why Dask cancels every task of a client whose connection to the scheduler broke.
CONNECTION_LOST = "scheduler-connection-lost"


class MissingDask(SchedulerError):
    """``--scheduler`` without ``distributed`` installed: a usage error, exit code 2."""

    exit_code = 2


class VersionMismatch(SchedulerError):
    """The scheduler or a worker does not run the client's llkgen version (or cannot import
    llkgen at all): the message names each and what it runs. Exit code 1."""


def _installed(where: str) -> str:
    """How a message names what ``where`` runs: ``llkgen 1.2.0``, or ``no llkgen (...)``."""
    return where if where.startswith("no llkgen") else f"llkgen {where}"


def _probes() -> tuple[Callable[[Any], tuple[str, str]], Callable[[Any], str]]:
    """The two functions that ask a worker (its name and llkgen version) and the scheduler
    (its llkgen version) what they run; a version reads ``no llkgen (ERROR)`` where llkgen
    cannot be imported. Defined inside a function so that cloudpickle sends them by value: a
    machine with another llkgen, or none, runs them all the same, where a function of this
    module would be looked up in that machine's llkgen."""

    def worker_version(dask_worker: Any) -> tuple[str, str]:
        try:
            from llkgen import _version as installed

            version = installed.__version__
        except Exception as e:
            version = f"no llkgen ({type(e).__name__}: {e})"
        return str(dask_worker.name), version

    def scheduler_version(dask_scheduler: Any) -> str:
        try:
            from llkgen import _version as installed

            return str(installed.__version__)
        except Exception as e:
            return f"no llkgen ({type(e).__name__}: {e})"

    return worker_version, scheduler_version


def _worker(address: str, name: str) -> str:
    """A worker as messages name it: its address, and its name when it has one of its own."""
    return address if name in ("", address) else f"{address} ({name})"


def check_versions(client: Any, where: str) -> None:
    """Raise :class:`VersionMismatch` unless the scheduler (``where``, as messages name it) and
    every worker of ``client``'s cluster run this llkgen version: two round trips, on
    connecting. Workers that join later are checked by :func:`pinned`."""
    worker_version, scheduler_version = _probes()
    found = client.run_on_scheduler(scheduler_version)
    odd = [] if found == __version__ else [f"{where} has {_installed(found)}"]
    for address, reply in sorted(client.run(worker_version, on_error="return").items()):
        if isinstance(reply, BaseException):  # the probe did not run: no llkgen question of ours
            odd.append(f"the worker {address} cannot run a task ({type(reply).__name__}: {reply})")
            continue
        name, version = reply
        if version != __version__:
            odd.append(f"the worker {_worker(address, name)} has {_installed(version)}")
    if odd:
        raise VersionMismatch(f"scheduler: every machine of the Dask cluster needs llkgen {__version__}, as this "
                              f"client has, but {'; '.join(odd)}. Install llkgen {__version__} there: another "
                              "version could compute different results (and the scheduler unpickles every task)",
                              arguments=("scheduler",))


def pinned(fn: Callable[[A], R], version: str = __version__) -> Callable[[A], R]:
    """``fn`` as a task runs it: on a worker whose llkgen is not ``version`` it raises an
    :class:`~llkgen.errors.LlkgenError` naming the worker and both versions (never retried)
    instead of computing anything. For workers that join after :func:`check_versions`; one
    attribute read a call. Sent by value, like :func:`_probes`'s functions, so that it runs
    on a worker of any llkgen version."""

    def call(arg: A) -> R:
        from llkgen import _version as installed

        running = installed.__version__
        if running != version:
            from distributed import get_worker

            from llkgen.errors import LlkgenError

            w = get_worker()
            name = "" if str(w.name) == w.address else f" ({w.name})"
            wrong = LlkgenError(f"scheduler: the Dask worker {w.address}{name} has llkgen {running}: every "
                                f"machine of the cluster needs llkgen {version}, as this client has (another "
                                "version could compute different results)")
            wrong.arguments = ("scheduler",)  # set, not passed: an older llkgen's error takes no such argument
            raise wrong
        return fn(arg)

    return call


@contextmanager
def _silenced(logger: str) -> Iterator[None]:
    """Nothing logged by ``logger`` (and its children) meanwhile."""
    log = logging.getLogger(logger)
    level = log.level
    log.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        log.setLevel(level)


def _import_distributed() -> Any:
    try:
        import distributed
    except ImportError as e:
        raise MissingDask(f"scheduler: needs the optional dependency 'distributed' ({e.msg}): "
                          f"install it with: {DASK_HINT}", arguments=("scheduler",)) from None
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
        #: How messages name the scheduler.
        self.where = ("the scheduler of the local Dask cluster" if scheduler == "local"
                      else f"the Dask scheduler at {scheduler}")

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
        inside :meth:`session`, that session's client. Its cluster's versions are checked
        first (:func:`check_versions`)."""
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
                    check_versions(client, self.where)
                    yield client
            finally:
                cluster.close()
            return
        try:
            client = distributed.Client(self.scheduler, timeout=CONNECT_TIMEOUT)
        except (OSError, TimeoutError, ValueError) as e:
            raise SchedulerError(f"scheduler: cannot reach the Dask scheduler at {self.scheduler!r}: "
                                 f"{e} (expected 'local' or an address such as tcp://HOST:8786)",
                                 arguments=("scheduler",)) from None
        try:
            check_versions(client, self.where)
            yield client
        finally:
            if client.status == "running":
                client.close()
            else:
                # It lost the scheduler and is trying to reconnect. Closing it stops that, which
                # Dask logs as an error with a traceback; the run reports the loss itself.
                with _silenced("distributed.client"):
                    client.close()

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
            task = pinned(fn)  # refuses a worker of another llkgen version (one that joined late)

            def submit(positions: list[int]) -> None:
                if client.status != "running":  # it lost the scheduler: the run's tasks are gone
                    for pos in positions:
                        fail(pos, lost(pos, CONNECTION_LOST))
                    return
                for pos in positions:
                    tries[pos] = tries.get(pos, 0) + 1
                futures = client.map(task, [held[pos] for pos in positions], pure=False,
                                     key=[f"llkgen-{run}-{pos}-{tries[pos]}" for pos in positions])
                pending.update(zip(futures, positions))
                done.update(futures)

            def fail(pos: int, exc: BaseException) -> None:
                nonlocal failure
                if failure is None or pos < failure[0]:
                    failure = (pos, exc)

            def lost(pos: int, reason: str) -> SchedulerLost:
                """The failure at ``pos`` (the results before it are yielded first)."""
                what = (f"lost {self.where}" if reason == CONNECTION_LOST
                        else f"{self.where} cancelled the run's tasks ({reason})")
                return SchedulerLost(f"{what}: the run stopped after {pos} result{'s' if pos != 1 else ''}, and the "
                                     "calls still on the cluster were lost with it", what, held[pos])

            def cancelled(f: Any) -> str:
                """Why Dask cancelled ``f``: its result is an error that says."""
                try:
                    f.result()
                except Exception as e:
                    return str(getattr(e, "reason", None) or CONNECTION_LOST)
                return CONNECTION_LOST  # not reached: a cancelled future has no result

            def failed(pos: int, exc: BaseException) -> None:
                arg = held[pos]
                if isinstance(exc, DETERMINISTIC):
                    fail(pos, exc)
                elif isinstance(exc, distributed.KilledWorker):  # the scheduler's retries are spent
                    fail(pos, WorkersDied(arg, exc))
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
                    # Every future finished by now, and their results in one gather. A result
                    # whose worker died before it was fetched is lost (the future is no longer
                    # finished): the scheduler computes it again and ``done`` hands the future
                    # back then. Not a failure, which would run the call once more and count a
                    # try against it (a call retried once already would fail the run).
                    ready: list[Any] = []
                    for f in done.next_batch(block=True):
                        if f.status in SETTLED:
                            ready.append(f)
                        else:
                            done.add(f)
                    ready.sort(key=pending.__getitem__)
                    finished = [f for f in ready if f.status == "finished"]
                    # A cancelled future: the scheduler dropped the run's tasks (the client lost
                    # it, and Dask cancels them all). So did a gather that failed for want of
                    # a scheduler. Nothing is retried then: no call failed, and the tasks are gone.
                    gone = next((cancelled(f) for f in ready if f.cancelled()), None)
                    values: dict[Any, Any] = {}
                    if finished and gone is None:
                        try:
                            values = dict(zip(finished, client.gather(finished)))
                        except (distributed.CancelledError, OSError):
                            gone = CONNECTION_LOST
                    for f in ready:
                        pos = pending.pop(f)
                        if f in values:
                            results[pos] = values[f]
                        elif gone is not None and (f.cancelled() or not isinstance(f.exception(), DETERMINISTIC)):
                            fail(pos, lost(pos, gone))
                        else:
                            failed(pos, f.exception())
                        f.release()
            finally:
                # Closed early or failed: the calls still on the cluster are of no use (a lost
                # scheduler cancelled them all already, and cannot be told).
                live = [f for f in pending if not f.cancelled()]
                if live and client.status == "running":
                    client.cancel(live)
