"""Where a batch of independent calls runs: one small interface, three implementations.

:meth:`Executor.imap_ordered` ``(fn, iterable, inline=None)`` pulls arguments from ``iterable``
as it goes and yields ``fn(arg)`` for each *in the order of* the arguments, whatever order the
calls finish in. Its guarantees, the same for every implementation:

* **Failure as in one process.** When calls raise, the exception raised is the one of the
  lowest position that fails, and every result before that position has been yielded first:
  exactly what a plain ``for`` loop would do. An exception raised by ``iterable`` itself is
  raised in the same way, at its position. No argument is pulled once a failure is known.
* **Bounded memory.** At most :func:`window` ``(workers)`` calls are in flight or finished but
  not yet yielded, and ``iterable`` is never read further ahead than that, so a million
  arguments never hold a million results (nor a million arguments).
* **Nothing outlives the run.** When the generator is closed early (or garbage collected), or
  raises, the calls still running are stopped at once: a process pool's workers are
  terminated, a cluster's tasks cancelled.
* **Inline calls.** Arguments for which ``inline(arg)`` is true are computed in the calling
  process, when they are pulled (for calls that cost less than sending the argument to a
  worker); their results are yielded in order with the others.
* **A deadline.** With ``deadline`` (a :func:`time.perf_counter` value, as
  :func:`llkgen.console.deadline_after` gives), no result is yielded once the clock has
  passed it: the next one asked for raises :class:`~llkgen.errors.BudgetExhausted` instead,
  and calls still running are stopped as on any failure. A process pool's parent waits for a
  result no longer than the deadline, so it raises on time even while a worker is stuck in a
  long call. A call computed in the calling process (:class:`InlineExecutor`, ``inline``
  arguments) cannot be interrupted: the deadline is checked before each one starts. For a
  bound that holds whatever the calls do, use :class:`ProcessExecutor`, which runs every
  call that is not ``inline`` in a worker process when given a deadline, even with one job.
  A stream that owes no more results ends normally, whenever that is.

The implementations: :class:`InlineExecutor` (this process), :class:`ProcessExecutor` (a
:func:`llkgen.execution.workers.worker_pool`: workers are terminated on error and never outlive the run)
and :class:`DaskExecutor` (a ``distributed`` cluster, the optional ``llkgen[dask]`` extra).

On a cluster a worker can die under a call (out of memory, a lost machine). Such failures are
retried: a call whose worker failed is sent again once, and a second failure stops the run
with a :class:`WorkerFailure` naming the position and the worker's error. A call that raises
:class:`~llkgen.errors.LlkgenError` or :class:`AssertionError` failed deterministically (a
level that cannot be generated, a bug) and is never retried: it would only fail again. Two
kinds of it say more: :class:`WorkersDied` (the cluster gave up on a call itself) and
:class:`SchedulerLost` (the run's tasks are gone, and no call failed). They are declared here,
beside the contract, so that a caller tells the failures apart without importing a back end.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from collections.abc import Callable, Generator, Iterable, Sized
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import ExitStack
from typing import Protocol, TypeVar

from llkgen.errors import BudgetExhausted, LlkgenError
from llkgen.execution.workers import worker_pool

A = TypeVar("A")
R = TypeVar("R")

#: Calls that fail the same way wherever they run; never retried.
DETERMINISTIC = (LlkgenError, AssertionError)

#: How many times a call whose worker failed is run in all.
TRIES = 2

#: The installation hint for ``--scheduler`` without the extra.
DASK_HINT = "pip install 'llkgen[dask]'"


def window(workers: int) -> int:
    """Calls in flight or waiting to be yielded, for ``workers`` parallel workers: enough to
    keep every worker busy while one slow call holds up the order, and few enough that the
    waiting results stay small (a level's JSON is a few kilobytes)."""
    return max(64, 8 * workers)


class WorkerFailure(LlkgenError):
    """A call failed :data:`TRIES` times for reasons outside the call itself (its worker died,
    or raised an error that is not deterministic); ``arg`` is the call's argument and
    ``error`` the worker's last error."""

    def __init__(self, message: str, arg: object = None, error: BaseException | None = None) -> None:
        super().__init__(message)
        self.arg = arg
        self.error = error


class SchedulerError(LlkgenError):
    """The cluster cannot be used: ``distributed`` is missing, or the scheduler cannot be
    reached. Exit code 2 when the extra is missing (a usage error), 1 otherwise."""


class WorkersDied(WorkerFailure):
    """The cluster gave up on a call: the workers holding it died more than
    ``distributed.scheduler.allowed-failures`` times, and its ``KilledWorker`` (``error``) is
    final, the scheduler having done the retrying. ``cause`` is the message but the argument."""

    def __init__(self, arg: object, error: BaseException) -> None:
        self.cause = (f"the workers holding it died (it may only have been queued on a worker another call killed): "
                      f"{type(error).__name__}: {error}")
        super().__init__(f"{arg!r}: {self.cause}", arg=arg, error=error)


class SchedulerLost(WorkerFailure):
    """The run's tasks are gone from the cluster: the client lost its scheduler, or the
    scheduler cancelled them (as restarting it does). No call failed, and none is retried.
    ``lost`` says what happened (``lost the Dask scheduler at tcp://host:8786``); ``arg`` is
    the argument of the first call whose result did not come back."""

    def __init__(self, message: str, lost: str, arg: object = None) -> None:
        super().__init__(message, arg=arg)
        self.lost = lost


def out_of_time(deadline: float | None) -> bool:
    """Whether ``deadline`` (a :func:`time.perf_counter` value, ``None`` for none) has passed."""
    return deadline is not None and time.perf_counter() >= deadline


def _exhausted() -> BudgetExhausted:
    return BudgetExhausted("the deadline passed with results still owed")


class Executor(Protocol):
    """Runs ``fn`` over arguments and yields the results in order.

    :meth:`imap_ordered` is the interface; its contract (results in argument order, the lowest
    failure raised after every earlier result, at most :func:`window` calls in flight or
    waiting and ``iterable`` read no further ahead, workers stopped when the generator is
    closed or raises, ``inline`` arguments computed in the calling process, nothing yielded
    past ``deadline``) is the module docstring's, the same for every implementation."""

    #: What the run used, for reports: e.g. ``"2 jobs"`` or ``"dask tcp://host:8786"``.
    description: str

    def imap_ordered(self, fn: Callable[[A], R], iterable: Iterable[A], *,
                     inline: Callable[[A], bool] | None = None,
                     deadline: float | None = None) -> Generator[R, None, None]: ...


class InlineExecutor(Executor):
    """Every call in this process, one after the other, each argument pulled only when the
    previous result has been taken: a lazy ``map``. A ``deadline`` is checked before each call
    and after it (a call in progress cannot be interrupted)."""

    description = "1 job"

    def imap_ordered(self, fn: Callable[[A], R], iterable: Iterable[A], *,
                     inline: Callable[[A], bool] | None = None,
                     deadline: float | None = None) -> Generator[R, None, None]:
        # ``inline`` changes nothing here: every call already runs in this process.
        for arg in iterable:
            if out_of_time(deadline):
                raise _exhausted()
            result = fn(arg)
            if out_of_time(deadline):
                raise _exhausted()
            yield result


class ProcessExecutor(Executor):
    """A local process pool of ``jobs`` workers (:func:`llkgen.execution.workers.worker_pool`).

    The pool starts at the first argument that is not ``inline``, so a stream computed in the
    calling process never starts one. With one job, or a sized ``iterable`` of at most one
    argument, every call runs in the calling process, unless a ``deadline`` is given: then the
    calls run in a worker process all the same, so that one stuck in a long computation is
    stopped at the deadline. A sized ``iterable`` never gets more workers than arguments."""

    def __init__(self, jobs: int) -> None:
        if type(jobs) is not int or jobs < 1:
            raise ValueError(f"jobs: expected an integer >= 1, found {jobs!r}")
        self.jobs = jobs
        self.description = f"{jobs} job{'s' if jobs != 1 else ''}"

    def imap_ordered(self, fn: Callable[[A], R], iterable: Iterable[A], *,
                     inline: Callable[[A], bool] | None = None,
                     deadline: float | None = None) -> Generator[R, None, None]:
        workers = min(self.jobs, len(iterable)) if isinstance(iterable, Sized) else self.jobs
        if workers <= 1 and deadline is None:
            yield from InlineExecutor().imap_ordered(fn, iterable)
            return
        workers = max(1, workers)
        limit = window(workers)
        args = iter(iterable)
        # One future per pulled argument, in order; an inline call or a failure to pull is a
        # future completed here, so the head is always the next result or the next exception.
        queue: deque[Future] = deque()
        failed = threading.Event()  # some call has failed: pulling further is wasted work

        def note(f: Future) -> None:
            if not f.cancelled() and f.exception() is not None:
                failed.set()

        with ExitStack() as stack:
            pool: ProcessPoolExecutor | None = None
            exhausted = False
            while True:
                # The window is filled before each result is handed over, so the workers stay
                # busy while the caller deals with it.
                while not exhausted and not failed.is_set() and len(queue) < limit:
                    f: Future = Future()
                    try:
                        arg = next(args)
                    except StopIteration:
                        exhausted = True
                        break
                    except Exception as e:  # the iterable's own failure, raised at its position
                        f.set_exception(e)
                        failed.set()
                    else:
                        if out_of_time(deadline):  # a result is owed: no call starts past the deadline
                            raise _exhausted()  # inside the pool's ``with``: its workers are terminated
                        if inline is not None and inline(arg):
                            try:
                                f.set_result(fn(arg))
                            except Exception as e:
                                f.set_exception(e)
                                failed.set()
                        else:
                            if pool is None:
                                pool = stack.enter_context(worker_pool(workers))
                            f = pool.submit(fn, arg)
                            f.add_done_callback(note)
                    queue.append(f)
                if not queue:
                    return
                # Waits for the head; raises its exception once every earlier result was
                # yielded, inside the pool's ``with``, which terminates the workers. With a
                # deadline the wait is bounded by it, so a stuck worker cannot hold the parent.
                if deadline is None:
                    yield queue.popleft().result()
                    continue
                try:
                    result = queue[0].result(timeout=max(0.0, deadline - time.perf_counter()))
                except FutureTimeout:
                    raise _exhausted() from None
                if out_of_time(deadline):
                    raise _exhausted()
                queue.popleft()
                yield result
