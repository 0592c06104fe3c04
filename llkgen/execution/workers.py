"""Worker processes that never outlive the run that started them.

:func:`worker_pool` is a :class:`~concurrent.futures.ProcessPoolExecutor` with two guarantees:

* When the body raises anything (a failed level, Ctrl-C, SIGTERM turned into an exception by the
  CLI), the workers are terminated at once instead of finishing their current task.
* When the parent dies without a chance to clean up (SIGKILL, a crash), each worker dies with
  it. On Linux the kernel sees to it (``prctl(PR_SET_PDEATHSIG, SIGKILL)``): the worker is
  killed as its parent exits, whatever it is running. Under forkserver (Python 3.14's default
  on Linux) the parent is the server, which exits as the run dies once no worker keeps its
  "alive" pipe open (:func:`_let_the_forkserver_go`). A watch thread that polls
  ``os.getppid()`` cannot promise that: a worker busy in the compiled search core holds the GIL
  for many seconds at a time, and the thread did not run for 12-42 s after the parent was
  killed. Elsewhere that thread is all there is: the worker exits within
  :data:`PARENT_POLL_SECONDS` of noticing, once it gets the GIL.

Workers ignore SIGINT: Ctrl-C in a terminal reaches the whole process group, and it is the
parent's job to stop the run (and say so), not each worker's to print a traceback.

**Stopping is bounded, wherever the signal lands.** The CLI turns Ctrl-C and SIGTERM into an
exception in the parent's main thread (``llkgen.console.Stopped``); the workers get the
Ctrl-C too (ignored) and SIGTERM only from the parent. Stage by stage:

* *While a worker is forked* (the pool starts its workers in its first ``submit``): the
  signals are held, in the parent and in the new worker, and delivered once the fork is done
  (:func:`_signals_after_fork`). The stop then goes on as below; a SIGTERM the worker got
  before its initializer ran ends it as soon as the initializer unblocks it.
* *In the ``with`` body, or in the normal ``shutdown(wait=True)`` at its end* (which waits for
  the submitted work, without a bound, for as long as nothing goes wrong): the exception
  reaches :func:`worker_pool`'s ``except``, and :func:`_terminate` stops the pool: SIGTERM to
  every worker, at most :data:`JOIN_SECONDS` for all of them to end, SIGKILL to any left and
  :data:`JOIN_SECONDS` more, then at most :data:`MANAGER_GRACE` for the pool's manager thread.
  A second signal inside it cannot leave a worker alive (its ``finally`` kills them). Bound:
  ``2 * JOIN_SECONDS + MANAGER_GRACE``; in practice a few milliseconds, as SIGTERM is the
  workers' default action.
* *At the interpreter's exit*, which joins the pool's manager thread with no timeout
  (``concurrent.futures``' exit hook, then ``threading``'s): a stopped pool's manager has
  nothing left to wait for. Its workers are dead, so it sees them gone instead of waiting for
  results, and its read of a result a worker was killed in the middle of writing ends, since
  the parent's own end for writing is closed (:func:`_close_results_writer`). And the CLI
  ignores signals only while it prints its one-line goodbye: from then on, and after a command
  that ended on its own, a signal ends the process at once (``llkgen.console.end_at_once``),
  so no wait at exit outlasts a Ctrl-C.

The stop once waited on a worker with no bound: Ctrl-C to ``make --jobs 2 --resume`` printed
"Interrupted." and never exited, the parent ignoring every signal while the interpreter's
exit joined a worker left alive. And it once waited 5 s: a worker that got its SIGTERM between
its fork and its initializer lost it (see :func:`_signals_after_fork`).
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

#: How long terminated workers are waited for, all together, before any left is killed, and how
#: long killed ones are waited for then. SIGTERM is the workers' default action and is never
#: blocked once a worker is set up (before that, it is held and taken by the initializer), so
#: a worker ends as soon as it is scheduled; this bound is for one that is not, and it keeps
#: the whole stop under the 3 s a Ctrl-C may take (tests/execution/test_workers.py).
JOIN_SECONDS = 1.0

#: How long a stop waits for the pool's manager thread to see the dead workers and finish:
#: bounded, as a ``--budget`` stop promises the prompt back within 0.5 s. When it does not finish
#: in time, the interpreter's exit joins it; :func:`_quiet_wakeup` keeps that join quiet.
MANAGER_GRACE = 0.3


@contextmanager
def worker_pool(jobs: int) -> Iterator[ProcessPoolExecutor]:
    """A process pool of ``jobs`` workers, terminated if the ``with`` body raises and shut down
    normally (waiting for submitted work) otherwise. Stopping is bounded: see the module's
    docstring for what happens on a signal at each stage, and which bound applies."""
    context = multiprocessing.get_context()
    # The worker's parent is this process, except under forkserver (Python 3.14's default on
    # Linux), whose server forks the workers. The server exits when this process does, once no
    # worker holds its "alive" pipe (_init_worker closes it), and the workers then follow it.
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
    interrupts it (the ``finally`` kills whatever the interrupted steps left alive). Takes at
    most ``2 * JOIN_SECONDS + MANAGER_GRACE``, whatever the workers were doing."""
    # The worker table and the result queue are the executor's own, and only read here: the
    # shutdown below drops the executor's references to them.
    processes = list((getattr(pool, "_processes", None) or {}).values())
    results = getattr(pool, "_result_queue", None)
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
        _join(processes, JOIN_SECONDS)
    finally:
        stragglers = [p for p in processes if p.is_alive()]
        for p in stragglers:
            p.kill()
        _join(stragglers, JOIN_SECONDS)
    if not any(p.is_alive() for p in processes):
        _close_results_writer(results)
    # Let the pool's own threads see the dead workers and finish before the caller goes on (and
    # perhaps exits); bounded, and what is left is quiet (_quiet_wakeup).
    manager = getattr(pool, "_executor_manager_thread", None)
    if manager is not None:
        manager.join(MANAGER_GRACE)


def _join(processes: list[multiprocessing.process.BaseProcess], seconds: float) -> None:
    """Wait for ``processes`` to end, all of them within ``seconds`` together (not each)."""
    deadline = time.monotonic() + seconds
    for p in processes:
        p.join(max(0.0, deadline - time.monotonic()))


def _close_results_writer(results: object) -> None:
    """Close this process's end for writing of the pool's result queue, once every worker (its
    only other writer) is dead: the manager thread may be reading a result a worker was killed
    in the middle of writing, and with no writer left that read ends (end of file: the pool is
    broken, which it is) instead of waiting for bytes that will never come. Nothing in this
    process writes to that queue; only the executor's normal shutdown closes it, and a stopped
    pool never runs that."""
    writer = getattr(results, "_writer", None)
    if writer is not None:
        writer.close()


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

#: Whether a thread can hold signals back (POSIX; on Windows the signals are not held).
CAN_BLOCK = hasattr(signal, "pthread_sigmask")


def _signals_after_fork(pool: ProcessPoolExecutor) -> None:
    """Hold Ctrl-C and SIGTERM while ``pool`` starts a worker, and deliver them after, to the
    parent and to the new worker alike.

    In the parent: a fork runs the interpreter's at-fork hooks (``logging``'s lock release
    among them), and an exception raised in one is printed ("Exception ignored in: <function
    _releaseLock>") and dropped: the CLI's handler raised its stop there, the stop was lost and
    the run went on. The main thread blocks the signals (a signal sent while no other thread
    can take it waits, pending, until they are unblocked), and the Python handlers only note a
    signal that another thread took; once the worker is started, the handlers are put back,
    then the signals unblocked (a pending one goes to its handler then), then a noted one is
    delivered.

    In the worker: it starts with the forking thread's blocked signals, so a SIGTERM from
    :func:`_terminate` that reaches it before its initializer is kept pending, not run by the
    noting handler it inherited. :func:`_init_worker` sets its handlers, then unblocks them:
    the pending SIGTERM ends it then. (Before, that SIGTERM was noted and forgotten, the worker
    went on to wait for work, and the parent's stop waited 5 s for it before killing it: a
    Ctrl-C at that moment of ``make --jobs 2 --resume`` took 5.4 s to exit.)

    The handlers are swapped with the signals blocked in this thread, and put back one by one
    in nested ``finally`` blocks: a signal taken by another thread meanwhile runs the old or
    the new handler, never none, and a stop raised by a handler put back cannot leave the
    other one swapped."""
    spawn = getattr(pool, "_spawn_process", None)  # the executor's own; wrapped on the instance
    if spawn is None:
        return

    def held() -> None:
        if threading.current_thread() is not threading.main_thread():
            with _blocked():  # only the main thread runs Python signal handlers (or may set them)
                spawn()
            return
        noted: list[int] = []

        def note(signum: int, frame: object) -> None:
            noted.append(signum)

        previous: dict[int, object] = {}
        with _blocked():
            try:
                for s in STOP_SIGNALS:
                    previous[s] = signal.signal(s, note)
                spawn()
            finally:
                _restore(list(previous.items()))
        if noted:
            _deliver(noted[0], previous[noted[0]])

    pool._spawn_process = held  # type: ignore[attr-defined]


@contextmanager
def _blocked() -> Iterator[None]:
    """Block :data:`STOP_SIGNALS` in this thread for the ``with`` body; a process forked in it
    starts with them blocked."""
    if not CAN_BLOCK:
        yield
        return
    before = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, before)


def _restore(handlers: list[tuple[int, object]]) -> None:
    """Put back each ``(signal, handler)``, all of them even if a handler put back raises."""
    if handlers:
        (signum, handler), rest = handlers[0], handlers[1:]
        try:
            signal.signal(signum, handler)  # type: ignore[arg-type]  # as signal.signal returned it
        finally:
            _restore(rest)


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
    # A forked worker inherits the parent's handlers; give it the defaults a worker needs, then
    # take the signals held since the fork (_signals_after_fork): a Ctrl-C is dropped, a
    # SIGTERM ends the worker here.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "SIGTERM"):
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if CAN_BLOCK:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    if parent is None:
        _let_the_forkserver_go()
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


def _let_the_forkserver_go() -> None:
    """Close this worker's copy of the forkserver's "alive" pipe (``multiprocessing`` hands one
    to every process the server forks), so that the server sees the pipe end when the run's
    process dies, and exits.

    Why: the server exits when every write end of that pipe is closed. The run's process holds
    one, and without this each worker held another, so a run killed by SIGKILL left the server
    waiting on its workers and the workers, whose parent is the server, waiting on nothing: both
    searched on for minutes (``tests/execution/test_workers.py``, under forkserver). With it, the
    server exits as the run dies, and its death ends the workers as a parent's death does
    (:func:`_die_with_parent`), however long the compiled core holds a worker's GIL. A worker
    never starts processes of its own, so it has no use for the pipe."""
    server = getattr(sys.modules.get("multiprocessing.forkserver"), "_forkserver", None)
    fd = getattr(server, "_forkserver_alive_fd", None)
    if isinstance(fd, int):
        try:
            os.close(fd)
        except OSError:
            pass
        server._forkserver_alive_fd = None  # type: ignore[union-attr]


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
