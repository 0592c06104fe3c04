"""Where a batch of independent calls runs: one small interface, three implementations.

:meth:`Executor.run_ordered` ``(fn, args, on_result)`` calls ``fn(arg)`` for every ``arg`` and
hands each result to ``on_result(position, result)`` *in the order of* ``args``, whatever
order the calls finish in. Its guarantees, the same for every implementation:

* **Failure as in one process.** When calls raise, the exception raised is the one of the
  lowest position that fails, and every result before that position has been handed over
  first: exactly what a plain ``for`` loop would do. Calls after it are cancelled.
* **Bounded memory.** At most :data:`WINDOW` ``(workers)`` calls are in flight or finished but
  not yet handed over, so a million calls never hold a million results.

The implementations: :class:`InlineExecutor` (this process), :class:`ProcessExecutor` (a
:func:`llkgen.execution.workers.worker_pool`: workers are terminated on error and never outlive the run)
and :class:`DaskExecutor` (a ``distributed`` cluster, the optional ``llkgen[dask]`` extra).

On a cluster a worker can die under a call (out of memory, a lost machine). Such failures are
retried: a call whose worker failed is sent again once, and a second failure stops the run
with a :class:`WorkerFailure` naming the position and the worker's error. A call that raises
:class:`~llkgen.errors.LlkgenError` or :class:`AssertionError` failed deterministically (a
level that cannot be generated, a bug) and is never retried: it would only fail again.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from typing import Any, Protocol, TypeVar

from llkgen.errors import LlkgenError
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
    """Calls in flight or waiting to be handed over, for ``workers`` parallel workers: enough
    to keep every worker busy while one slow call holds up the order, and few enough that the
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


class Executor(Protocol):
    """Runs ``fn`` over ``args`` and hands results over in order (see the module docstring)."""

    #: What the run used, for reports: e.g. ``"2 jobs"`` or ``"dask tcp://host:8786"``.
    description: str

    def run_ordered(self, fn: Callable[[A], R], args: Sequence[A],
                    on_result: Callable[[int, R], None]) -> None: ...


class InlineExecutor:
    """Every call in this process, one after the other."""

    description = "1 job"

    def run_ordered(self, fn: Callable[[A], R], args: Sequence[A],
                    on_result: Callable[[int, R], None]) -> None:
        for pos, arg in enumerate(args):
            on_result(pos, fn(arg))


class _Ordered:
    """The bookkeeping every parallel implementation shares: which positions are submitted,
    which results wait for an earlier one, and the lowest failure so far."""

    def __init__(self, n: int, on_result: Callable[[int, Any], None]) -> None:
        self.n = n
        self.on_result = on_result
        self.next_submit = 0
        self.next_deliver = 0
        self.waiting: dict[int, Any] = {}
        self.failure: tuple[int, BaseException] | None = None

    def may_submit(self, limit: int) -> bool:
        """Whether another position may be submitted: below the window, and not past a known
        failure (positions after it can only be thrown away)."""
        stop = self.n if self.failure is None else self.failure[0]
        return self.next_submit < stop and self.next_submit - self.next_deliver < limit

    def done(self, pos: int, result: Any) -> None:
        self.waiting[pos] = result
        while self.next_deliver in self.waiting:
            if self.failure is not None and self.next_deliver >= self.failure[0]:
                break
            self.on_result(self.next_deliver, self.waiting.pop(self.next_deliver))
            self.next_deliver += 1

    def failed(self, pos: int, exc: BaseException) -> None:
        if self.failure is None or pos < self.failure[0]:
            self.failure = (pos, exc)

    def finished(self) -> bool:
        """True once every position before the lowest failure (or every position) is handed over."""
        stop = self.n if self.failure is None else self.failure[0]
        return self.next_deliver >= stop


class ProcessExecutor:
    """A local process pool of ``jobs`` workers (:func:`llkgen.execution.workers.worker_pool`)."""

    def __init__(self, jobs: int) -> None:
        if type(jobs) is not int or jobs < 1:
            raise ValueError(f"jobs: expected an integer >= 1, found {jobs!r}")
        self.jobs = jobs
        self.description = f"{jobs} job{'s' if jobs != 1 else ''}"

    def run_ordered(self, fn: Callable[[A], R], args: Sequence[A],
                    on_result: Callable[[int, R], None]) -> None:
        if self.jobs == 1 or len(args) <= 1:
            InlineExecutor().run_ordered(fn, args, on_result)
            return
        state = _Ordered(len(args), on_result)
        limit = window(self.jobs)
        with worker_pool(min(self.jobs, len(args))) as pool:
            pending: dict[Future, int] = {}
            while True:
                while state.may_submit(limit):
                    pending[pool.submit(fn, args[state.next_submit])] = state.next_submit
                    state.next_submit += 1
                if state.finished():
                    break
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for f in sorted(done, key=pending.__getitem__):
                    pos = pending.pop(f)
                    exc = f.exception()
                    if exc is not None:
                        state.failed(pos, exc)
                    else:
                        state.done(pos, f.result())
            if state.failure is not None:
                # Raising inside the pool's ``with`` terminates the workers still busy on
                # positions after the failure instead of waiting for them.
                raise state.failure[1]

