"""Worker processes that never outlive the run that started them.

:func:`worker_pool` is a :class:`~concurrent.futures.ProcessPoolExecutor` with two guarantees:

* When the body raises anything (a failed level, Ctrl-C, SIGTERM turned into an exception by the
  CLI), the workers are terminated at once instead of finishing their current task.
* When the parent dies without a chance to clean up (SIGKILL, a crash), each worker dies with
  it. On Linux the kernel sees to it (``prctl(PR_SET_PDEATHSIG, SIGKILL)``): the worker is
  killed as its parent exits, whatever it is running. A watch thread that polls
  ``os.getppid()`` cannot promise that: a worker busy in the compiled search core holds the GIL
  for many seconds at a time, and the thread did not run for 12-42 s after the parent was
  killed. Elsewhere that thread is all there is: the worker exits within
  :data:`PARENT_POLL_SECONDS` of noticing, once it gets the GIL.

Workers ignore SIGINT: Ctrl-C in a terminal reaches the whole process group, and it is the
parent's job to stop the run (and say so), not each worker's to print a traceback.

Shutdown never waits on a worker without a bound once anything has gone wrong. A signal can
land anywhere, the normal shutdown included; wherever it lands, the workers are terminated,
then killed if they have not gone within :data:`JOIN_SECONDS`, before the exception goes on. The
CLI ignores further signals while it says goodbye, and the interpreter's exit joins the pool's
threads without a timeout: a worker left alive then (one blocked on the call queue's lock,
waiting for a shutdown sentinel that never came) held the parent until SIGKILL.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager

#: How often a worker checks that its parent is still alive.
PARENT_POLL_SECONDS = 0.25

#: How long a terminated worker is waited for before it is killed (SIGKILL cannot be ignored
#: or blocked; SIGTERM is the workers' default action, so this is rarely reached).
JOIN_SECONDS = 5.0

#: How long a stop waits for the pool's manager thread to see the dead workers and finish:
#: bounded, as a ``--budget`` stop promises the prompt back within 0.5 s. When it does not finish
#: in time, the interpreter's exit joins it; :func:`_quiet_wakeup` keeps that join quiet.
MANAGER_GRACE = 0.3


@contextmanager
def worker_pool(jobs: int) -> Iterator[ProcessPoolExecutor]:
    """A process pool of ``jobs`` workers, terminated if the ``with`` body raises and shut down
    normally (waiting for submitted work) otherwise."""
    context = multiprocessing.get_context()
    # The worker's parent is this process, except under forkserver, whose server forks the
    # workers (and exits when this process does, so the workers then follow it).
    parent = None if context.get_start_method() == "forkserver" else os.getpid()
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=context, initializer=_init_worker,
                               initargs=(parent,))
    _quiet_when_stopped(pool)
    _quiet_wakeup(pool)
    _signals_after_fork(pool)
    try:
        yield pool
        # Inside the ``try``: Ctrl-C while the pool shuts down terminates it too.
        pool.shutdown(wait=True)
    except BaseException:
        _terminate(pool)
        raise


def _terminate(pool: ProcessPoolExecutor) -> None:
    """Stop ``pool`` now: its workers are gone when this returns, even if a second signal
    interrupts it (the ``finally`` kills whatever the interrupted steps left alive)."""
    # The worker table is the executor's own, and it is only read here.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    pool._llkgen_stopped = True  # type: ignore[attr-defined]  # read by _quiet_when_stopped
    try:
        terminate = getattr(pool, "terminate_workers", None)  # Python 3.14+
        if terminate is not None:
            terminate()
        else:  # earlier versions have no public way to stop a running task
            pool.shutdown(wait=False, cancel_futures=True)
            for p in processes:
                if p.is_alive():
                    p.terminate()
        for p in processes:
            p.join(JOIN_SECONDS)
    finally:
        for p in processes:
            if p.is_alive():
                p.kill()
                p.join(JOIN_SECONDS)
    # Let the pool's own threads see the dead workers and finish before the caller goes on (and
    # perhaps exits); bounded, and what is left is quiet (_quiet_wakeup).
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        manager.join(MANAGER_GRACE)


def _quiet_when_stopped(pool: ProcessPoolExecutor) -> None:
    """Silence the pool's call-queue feeder once :func:`_terminate` has stopped the pool on
    purpose: a call it was still handing to a worker that no longer exists fails with an OS
    error that means nothing to the user (the run has already stopped and says why). Before
    that, every feeder error is reported as the pool reports it (a call that cannot be pickled
    fails its future). The queue is the executor's own; it is only wrapped here, before its
    feeder thread starts (at the first call), which is when the thread binds this hook."""
    queue = getattr(pool, "_call_queue", None)
    report = getattr(queue, "_on_queue_feeder_error", None)
    if queue is None or report is None:
        return

    def on_error(e: BaseException, obj: object) -> None:
        if getattr(pool, "_llkgen_stopped", False) and isinstance(e, OSError):
            return
        report(e, obj)

    queue._on_queue_feeder_error = on_error


def _quiet_wakeup(pool: ProcessPoolExecutor) -> None:
    """Make waking ``pool``'s manager thread safe against the manager closing its wake-up pipe.

    At the interpreter's exit, ``concurrent.futures`` wakes every pool's manager without the
    lock the manager closes that pipe under ("call not protected by
    ProcessPoolExecutor._shutdown_lock", CPython 3.11-3.13). A manager still tearing down a
    stopped pool (it is waited for only :data:`MANAGER_GRACE`) can close the pipe between the
    wake-up's check and its write: "OSError: [Errno 9] Bad file descriptor" (or "handle is
    closed") at exit, about one ``grade --jobs 2 --budget`` in 90 under load. A pipe closed is a
    manager that needs no waking, so exactly that error, with the pipe marked closed, is
    dropped; any other is raised. The wake-up object is the executor's own; it is only wrapped
    here, on the instance, which every caller (exit included) looks the method up on."""
    wakeup = getattr(pool, "_executor_manager_thread_wakeup", None)
    send = getattr(wakeup, "wakeup", None)
    if wakeup is None or send is None or not hasattr(wakeup, "_closed"):
        return

    def quiet() -> None:
        try:
            send()
        except OSError:
            if not wakeup._closed:  # set before the pipe is closed: not the race, a real error
                raise

    wakeup.wakeup = quiet


#: The signals the CLI turns into an exception (``llkgen.console.STOP``'s).
STOP_SIGNALS = tuple(getattr(signal, name) for name in ("SIGINT", "SIGTERM") if hasattr(signal, name))


def _signals_after_fork(pool: ProcessPoolExecutor) -> None:
    """Hold Ctrl-C and SIGTERM while ``pool`` forks a worker, and deliver them after.

    A fork runs the interpreter's at-fork hooks (``logging``'s lock release among them) in the
    parent, and an exception raised in one is printed ("Exception ignored in: <function
    _releaseLock>") and dropped: the CLI's handler raised its stop there, the stop was lost and
    the run went on, once in 40 Ctrl-Cs at random points of ``make --jobs 2 --resume``. So,
    while the main thread forks, the handlers only note the signal; once the fork is done the
    previous handlers are back and the first signal noted goes to its handler then."""
    spawn = getattr(pool, "_spawn_process", None)  # the executor's own; wrapped on the instance
    if spawn is None:
        return

    def held() -> None:
        if threading.current_thread() is not threading.main_thread():
            spawn()  # only the main thread runs Python signal handlers (or may set them)
            return
        noted: list[int] = []
        previous = {s: signal.signal(s, lambda signum, frame: noted.append(signum)) for s in STOP_SIGNALS}
        try:
            spawn()
        finally:
            for s, handler in previous.items():
                signal.signal(s, handler)
            if noted:
                _deliver(noted[0], previous[noted[0]])

    pool._spawn_process = held  # type: ignore[attr-defined]


def _deliver(signum: int, handler: object) -> None:
    """Act on ``signum`` as ``handler`` (a signal handler as :func:`signal.signal` returns it)
    would have when it arrived."""
    if callable(handler):
        handler(signum, None)
    elif handler == signal.SIG_DFL:
        os.kill(os.getpid(), signum)  # the default action, now that the default is back


#: ``prctl`` option: the signal a process gets when its parent exits (linux/prctl.h).
PR_SET_PDEATHSIG = 1


def _init_worker(parent: int | None = None) -> None:
    """Set up a worker: default signal handling, and death with ``parent`` (the pid that
    started the pool; ``None``: whatever process forked this one)."""
    # A forked worker inherits the parent's handlers; give it the defaults a worker needs.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if not hasattr(os, "getppid"):
        return
    if parent is None:
        parent = os.getppid()
    if _die_with_parent():
        # The parent may have died before prctl ran: then the signal will never come, and
        # this process already has another parent (init or a subreaper). Checked after prctl,
        # so one of the two always catches the death.
        if os.getppid() != parent:
            os._exit(1)
        return
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_exit_when_orphaned, args=(parent,), daemon=True,
                     name="llkgen-parent-watch").start()


def _die_with_parent() -> bool:
    """Ask the Linux kernel to SIGKILL this process when its parent exits; whether it agreed.

    The kernel ties the signal to the parent *thread* that forked this process. Workers are
    forked by the thread that submits to the pool (ProcessPoolExecutor spawns them in
    ``submit``), which is inside :func:`worker_pool`'s ``with`` body for the pool's whole
    life, so that thread outlives the workers."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)) == 0
    except (OSError, AttributeError):  # no C library to load, or no prctl in it
        return False


def _exit_when_orphaned(parent: int) -> None:
    """Exit the worker as soon as its parent process is gone (it is then re-parented)."""
    while True:
        time.sleep(PARENT_POLL_SECONDS)
        if os.getppid() != parent:
            os._exit(1)
