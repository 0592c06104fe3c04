"""Worker processes that never outlive the run that started them.

:func:`worker_pool` is a :class:`~concurrent.futures.ProcessPoolExecutor` with two guarantees:

* When the body raises anything (a failed level, Ctrl-C, SIGTERM turned into an exception by the
  CLI), the workers are terminated at once instead of finishing their current task.
* When the parent dies without a chance to clean up (SIGKILL, a crash), each worker notices
  within :data:`PARENT_POLL_SECONDS` that it has been orphaned and exits.

Workers ignore SIGINT: Ctrl-C in a terminal reaches the whole process group, and it is the
parent's job to stop the run (and say so), not each worker's to print a traceback.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

#: How often a worker checks that its parent is still alive.
PARENT_POLL_SECONDS = 0.25


@contextmanager
def worker_pool(jobs: int) -> Iterator[ProcessPoolExecutor]:
    """A process pool of ``jobs`` workers, terminated if the ``with`` body raises and shut down
    normally (waiting for submitted work) otherwise."""
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_init_worker)
    try:
        yield pool
    except BaseException:
        _terminate(pool)
        raise
    pool.shutdown(wait=True)


def _terminate(pool: ProcessPoolExecutor) -> None:
    terminate = getattr(pool, "terminate_workers", None)  # Python 3.14+
    if terminate is not None:
        terminate()
        return
    # Earlier versions have no public way to stop a running task; the worker table is the
    # executor's own, and it is only read here.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        if p.is_alive():
            p.terminate()
    for p in processes:
        p.join(5)


def _init_worker() -> None:
    # A forked worker inherits the parent's handlers; give it the defaults a worker needs.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if hasattr(os, "getppid"):
        threading.Thread(target=_exit_when_orphaned, args=(os.getppid(),), daemon=True,
                         name="llkgen-parent-watch").start()


def _exit_when_orphaned(parent: int) -> None:
    """Exit the worker as soon as its parent process is gone (it is then re-parented)."""
    while True:
        time.sleep(PARENT_POLL_SECONDS)
        if os.getppid() != parent:
            os._exit(1)
