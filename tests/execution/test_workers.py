"""Worker processes never outlive ``llkgen make``, and a stopped run says so (:mod:`llkgen.execution.workers`
and the signal handling in :mod:`llkgen.cli`).

Each test starts a real ``llkgen make --jobs 2`` on a spec whose levels can never be accepted,
or ``llkgen verify --jobs 2`` on levels no search decides for minutes, so both workers are busy,
then stops the parent the way a user or a CI runner would, and watches the worker processes in
/proc (helpers in tests/orphans.py, which the wheel test shares).
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from orphans import (
    assert_workers_die_with_parent,
    catches,
    children,
    death_seconds,
    gone,
    heavy_pack,
    kill_group,
    state,
    wait_until,
)
from specs import tiny_spec
from timing import HANG_SECONDS, slowdown

pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")

# Every deal is rejected (no 6x8 board has 500 removable pairs) and there are a million tries.
ENDLESS = """\
name: endless
count: 4
board: {rows: 6, cols: 8}
tiles: {types: 12, copies: 4}
generator: {strategy: shuffle, max_attempts: 1000000}
difficulty: {initial_moves: [500, null]}
export: {path: endless.json}
"""


@pytest.fixture
def run(tmp_path):
    """Start ``llkgen make`` on the endless spec in its own session; yields (process, workers)."""
    (tmp_path / "endless.yaml").write_text(ENDLESS)
    (tmp_path / "endless.json").write_text("the previous pack\n")
    started: list[subprocess.Popen] = []

    def start(jobs: int) -> tuple[subprocess.Popen, list[int]]:
        proc = subprocess.Popen([sys.executable, "-m", "llkgen", "make", "--config", "endless.yaml",
                                 "--jobs", str(jobs)], cwd=tmp_path, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        started.append(proc)
        # The CLI's own handlers are in place (before that, a signal on a loaded machine can
        # land while Python is still importing), and the workers are up.
        assert wait_until(lambda: catches(proc.pid, signal.SIGTERM), HANG_SECONDS)
        assert wait_until(lambda: len(children(proc.pid)) >= (jobs if jobs > 1 else 0), HANG_SECONDS)
        time.sleep(0.5)  # let the workers get into their first level
        return proc, children(proc.pid)

    yield start
    for proc in started:
        try:  # the whole session: the parent and any worker a failing test left behind
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
    assert (tmp_path / "endless.json").read_text() == "the previous pack\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["endless.json", "endless.yaml"]


def test_workers_exit_when_the_parent_is_killed(tmp_path):
    """SIGKILL to ``verify --jobs 2`` while both workers search boards that take minutes: they
    die with the parent within about a second. (The wheel test runs the same check against the
    compiled search core, whose long stretches without a GIL switch starved the old watch
    thread for 12-42 s.)"""
    assert_workers_die_with_parent([sys.executable, "-m", "llkgen"], tmp_path)


def test_make_workers_exit_when_the_parent_is_killed(run):
    proc, workers = run(jobs=2)
    assert len(workers) == 2
    proc.kill()  # SIGKILL: the parent gets no chance to clean up
    proc.wait()
    assert wait_until(lambda: all(gone(w) for w in workers), death_seconds()), [state(w) for w in workers]


def test_sigterm_ends_the_workers_and_says_so(run):
    proc, workers = run(jobs=2)
    proc.terminate()
    _, err = proc.communicate(timeout=HANG_SECONDS)
    assert proc.returncode == 143
    assert err.splitlines()[-1] == "Terminated." and "Traceback" not in err
    assert wait_until(lambda: all(gone(w) for w in workers), death_seconds())


@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_says_interrupted_and_exits_130(run, jobs):
    proc, workers = run(jobs=jobs)
    os.killpg(proc.pid, signal.SIGINT)  # a terminal sends Ctrl-C to the whole process group
    _, err = proc.communicate(timeout=HANG_SECONDS)
    assert proc.returncode == 130, err
    assert err.splitlines()[-1] == "Interrupted." and "Traceback" not in err
    assert wait_until(lambda: all(gone(w) for w in workers), death_seconds())


# -- forkserver (Python 3.14's default start method on Linux) -------------------------------------

#: ``python -c`` code that runs the llkgen command line (the arguments after it) with the
#: forkserver start method, as Python 3.14 does by default on Linux.
FORKSERVER = ("import multiprocessing, runpy, sys; multiprocessing.set_start_method('forkserver'); "
              "runpy.run_module('llkgen', run_name='__main__', alter_sys=True)")


def _descendants(pid: int) -> list[int]:
    out = []
    for child in children(pid):
        out += [child, *_descendants(child)]
    return out


def test_forkserver_workers_exit_when_the_parent_is_killed(tmp_path):
    """Under forkserver the workers are the server's children, not the run's. SIGKILL to
    ``verify --jobs 2`` while both search boards that take minutes: the server, the workers and
    the resource tracker are all gone within about a second. (They searched on for minutes
    while each worker held the server's "alive" pipe open: workers._let_the_forkserver_go.)"""
    pack = heavy_pack(tmp_path / "heavy.json")
    proc = subprocess.Popen([sys.executable, "-c", FORKSERVER, "verify", str(pack), "--jobs", "2",
                             "--nodes", "1000000000"], cwd=tmp_path, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        assert wait_until(lambda: catches(proc.pid, signal.SIGTERM), HANG_SECONDS)
        # The workers are the run's grandchildren: its children are the server and the tracker.
        assert wait_until(lambda: sum(len(children(c)) for c in children(proc.pid)) >= 2, HANG_SECONDS), \
            _descendants(proc.pid)
        time.sleep(3.0)  # deep in the search
        left = _descendants(proc.pid)
        assert proc.poll() is None and len(left) >= 3 and not any(gone(p) for p in left), [state(p) for p in left]
        proc.kill()  # SIGKILL: the parent gets no chance to clean up
        proc.wait()
        assert wait_until(lambda: all(gone(p) for p in left), death_seconds()), [state(p) for p in left]
    finally:
        kill_group(proc)


def test_make_under_forkserver_writes_the_same_pack(tmp_path):
    """``make --jobs 2`` under forkserver writes the bytes ``--jobs 1`` writes, and exits 0."""
    (tmp_path / "spec.yaml").write_text(tiny_spec(count=4))
    for name, argv in (("one", [sys.executable, "-m", "llkgen"]), ("two", [sys.executable, "-c", FORKSERVER])):
        jobs = "1" if name == "one" else "2"
        r = subprocess.run([*argv, "make", "--config", "spec.yaml", "--jobs", jobs, "--out", f"{name}.json", "-q"],
                           cwd=tmp_path, capture_output=True, text=True, timeout=HANG_SECONDS)
        assert r.returncode == 0, r.stderr
    assert (tmp_path / "one.json").read_bytes() == (tmp_path / "two.json").read_bytes()


# -- shutdown: bounded wherever the signal lands ---------------------------------------------------


def test_an_interrupt_inside_the_normal_shutdown_terminates_the_workers(monkeypatch):
    """Ctrl-C that lands in the pool's normal ``shutdown(wait=True)`` (after the body, all
    work done): the workers are terminated before the interrupt goes on. Before, they were left
    to the interpreter's exit, which joins them without a timeout while the CLI ignores
    signals; one was stuck on the call queue's lock and the parent never exited."""
    from concurrent.futures import ProcessPoolExecutor

    from llkgen.execution.workers import worker_pool

    shutdown = ProcessPoolExecutor.shutdown

    def interrupted(self, wait=True, *, cancel_futures=False):
        if wait:
            raise KeyboardInterrupt  # where the signal landed
        return shutdown(self, wait=wait, cancel_futures=cancel_futures)

    monkeypatch.setattr(ProcessPoolExecutor, "shutdown", interrupted)
    with pytest.raises(KeyboardInterrupt), worker_pool(2) as pool:
        assert sorted(pool.map(abs, [-1, -2, -3, -4])) == [1, 2, 3, 4]
        workers = [p.pid for p in pool._processes.values()]
    assert len(workers) == 2 and all(gone(w) for w in workers), [state(w) for w in workers]


#: A run of ``make`` that a signal can land anywhere in: 80 tiny levels over two workers, most of
#: them in the journal before the end (the window of the hang: all journalled, pack not written).
EIGHTY = tiny_spec(name="eighty", count=80, export="{path: eighty.json}")

#: How long a signalled run may take to exit, from the signal, on an idle machine; scaled by
#: the machine's slowdown at the time (tests/timing.py).
EXIT_SECONDS = 3.0


@pytest.mark.slow
def test_ctrl_c_anywhere_in_a_resumed_run_exits_promptly(tmp_path):
    """Ctrl-C to ``make --jobs 2 --resume`` at 40 seeded random points over its run, from the
    moment its handlers are in place to the end: every time it exits within
    :data:`EXIT_SECONDS` of the signal (scaled by the load), with no worker left, and says
    "Interrupted." with exit 130 unless the run had finished (exit 0, the pack written). Seen
    before: "Interrupted." and no exit, the parent ignoring every signal (1 in 73 tries); an
    exit 5.4 s after the signal (a worker lost its SIGTERM); a Ctrl-C dropped in a garbage
    collector's callback; a death by SIGINT, with no message, at the very end."""
    rng = random.Random("test_workers/ctrl-c-anywhere")
    (tmp_path / "eighty.yaml").write_text(EIGHTY)
    argv = [sys.executable, "-m", "llkgen", "make", "--config", "eighty.yaml", "--jobs", "2", "--resume", "-q"]

    def start() -> subprocess.Popen:
        for name in ("eighty.json", "eighty.json.journal"):
            (tmp_path / name).unlink(missing_ok=True)
        proc = subprocess.Popen(argv, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                text=True, start_new_session=True)
        assert wait_until(lambda: catches(proc.pid, signal.SIGTERM), HANG_SECONDS)  # the CLI's handlers
        return proc

    proc = start()  # one run to the end: how long the part past start-up takes
    started = time.monotonic()
    _, err = proc.communicate(timeout=HANG_SECONDS)
    assert proc.returncode == 0, err
    whole = time.monotonic() - started
    for k in range(40):
        proc = start()
        try:
            time.sleep(rng.uniform(0, whole))
            workers = children(proc.pid)
            os.killpg(proc.pid, signal.SIGINT)  # a terminal sends Ctrl-C to the whole process group
            limit = EXIT_SECONDS * slowdown()
            try:
                _, err = proc.communicate(timeout=limit)
            except subprocess.TimeoutExpired:
                pytest.fail(f"try {k}: no exit {limit:.1f} s after Ctrl-C")
            if proc.returncode == 0:  # the signal came after the run's last word
                assert (tmp_path / "eighty.json").is_file() and err == "", (k, err)
            else:
                assert (proc.returncode, err) == (130, "Interrupted.\n"), (k, proc.returncode, err)
            assert wait_until(lambda ws=workers: all(gone(w) for w in ws), death_seconds()), \
                (k, [state(w) for w in workers])
        finally:
            kill_group(proc)


# -- the pool's wake-up pipe at exit ---------------------------------------------------------------

#: A pool stopped by an exception, then the interpreter's exit, with the window of the race
#: widened: the exit's wake-up of the pool's manager sleeps between its check that the pipe is
#: open and its write, while the manager (waited for 0 s here) closes the pipe.
WAKEUP_RACE = """
import time
import concurrent.futures.process as cfp
from llkgen.execution import workers

def slow(self):
    if not self._closed:
        time.sleep(0.2)
        self._writer.send_bytes(b"")

cfp._ThreadWakeup.wakeup = slow
workers.MANAGER_GRACE = 0.0
try:
    with workers.worker_pool(2) as pool:
        for _ in range(4):
            pool.submit(time.sleep, 30)
        time.sleep(0.3)
        raise RuntimeError("stop")
except RuntimeError:
    pass
"""


def test_a_stopped_pool_exits_quietly():
    """``grade --jobs 2 --budget`` printed "OSError: [Errno 9] Bad file descriptor" at exit
    about once in 90 runs: the interpreter's exit wakes the pool's manager without the lock
    the manager closes the pipe under. With the window widened, 1 run in 3 showed it; now none
    of 6 may."""
    for k in range(6):
        r = subprocess.run([sys.executable, "-c", WAKEUP_RACE], capture_output=True, text=True,
                           timeout=HANG_SECONDS)
        assert (r.returncode, r.stderr) == (0, ""), k


#: Ctrl-C arriving while the pool forks a worker, in the parent's at-fork hooks (where
#: ``logging`` has one): the hook here sends it, once.
CTRL_C_IN_FORK = """
import os, signal
from llkgen.execution.workers import worker_pool

signal.signal(signal.SIGINT, signal.default_int_handler)  # a background job inherits SIGINT ignored
sent = []

def interrupt():
    if not sent:
        sent.append(1)
        os.kill(os.getpid(), signal.SIGINT)
        sum(range(1000))  # the handler runs here, inside the hook

os.register_at_fork(after_in_parent=interrupt)
try:
    with worker_pool(2) as pool:
        print(pool.submit(abs, -1).result(), flush=True)
        print("went on", flush=True)
except KeyboardInterrupt:
    print("stopped", flush=True)
"""


def test_ctrl_c_during_a_fork_is_not_lost():
    """An exception raised in an at-fork hook is printed and dropped by the interpreter: Ctrl-C
    that landed there ("Exception ignored in: <function _releaseLock>") was lost and the run
    went on. The pool holds the signal while it forks and delivers it after."""
    r = subprocess.run([sys.executable, "-c", CTRL_C_IN_FORK], capture_output=True, text=True, timeout=HANG_SECONDS)
    assert (r.stdout, r.stderr) == ("stopped\n", ""), (r.stdout, r.stderr)


#: A worker that gets its SIGTERM between its fork and its initializer (an at-fork hook that
#: sleeps widens that window): the stop comes at once, while both workers are still starting.
#: The stop's wait before it kills is raised from 1 s to 30 s here: on a busy machine a worker
#: can take more than a second to reach its initializer, and would then be killed (-9) whether
#: or not the signal was kept. A worker that keeps the signal ends at its initializer, so the
#: wait ends as soon as it does; one that forgets it starts its 60 s call and is killed after
#: the 30 s. The exit codes are read once the pool's own thread has recorded them: it reaps
#: the workers too, and a code read in the instant between its reaping and its recording is
#: None (1 run in 25 to 60 here).
SIGTERM_BEFORE_INIT = """
import os, time
import llkgen.execution.workers as workers_module
from llkgen.execution.workers import worker_pool

workers_module.JOIN_SECONDS = 30

os.register_at_fork(after_in_child=lambda: time.sleep(0.5))
try:
    with worker_pool(2) as pool:
        for _ in range(2):
            pool.submit(time.sleep, 60)
        workers = list(pool._processes.values())
        raise RuntimeError("stop")
except RuntimeError:
    pass
deadline = time.monotonic() + 10
while any(p.exitcode is None for p in workers) and time.monotonic() < deadline:
    time.sleep(0.01)
print(sorted(p.exitcode for p in workers), flush=True)
"""


def test_a_worker_signalled_before_its_initializer_dies_of_it():
    """Each worker ends by the SIGTERM of the stop (exit code -15), also one that got it
    before its initializer ran. It used to run the noting handler it inherited from the fork,
    forget the signal, and start its 60 s call; the stop waited for it, then killed it (-9)."""
    r = subprocess.run([sys.executable, "-c", SIGTERM_BEFORE_INIT], capture_output=True, text=True,
                       timeout=HANG_SECONDS)
    assert (r.stdout, r.stderr) == (f"{[-signal.SIGTERM] * 2}\n", ""), (r.stdout, r.stderr)


#: A worker that has written the first 10 bytes of a 1,000-byte result when the pool is
#: stopped: the pool's manager thread is reading that result.
HALF_A_RESULT = """
import os, struct, sys, time
from llkgen.execution.workers import worker_pool

def half_a_result(_):
    results = sys._getframe(1).f_locals["result_queue"]  # the worker loop's own
    os.write(results._writer.fileno(), struct.pack("!i", 1000) + b"x" * 10)
    time.sleep(60)

try:
    with worker_pool(1) as pool:
        pool.submit(half_a_result, 0)
        manager = pool._executor_manager_thread
        time.sleep(1.0)
        raise RuntimeError("stop")
except RuntimeError:
    pass
manager.join(60)  # a guard against a hang, not a bound on speed: the stop has already waited
print(manager.is_alive(), flush=True)
os._exit(0)  # the interpreter's exit would join a manager still alive, for ever
"""


def test_a_half_written_result_does_not_hold_a_stopped_pool():
    """The interpreter's exit joins the pool's manager thread with no timeout. A worker killed
    in the middle of writing a result left the manager waiting for the rest for ever; the
    stop now closes the parent's own end for writing once the workers are dead, so the read
    ends."""
    r = subprocess.run([sys.executable, "-c", HALF_A_RESULT], capture_output=True, text=True, timeout=HANG_SECONDS)
    assert (r.stdout, r.stderr) == ("False\n", ""), (r.stdout, r.stderr)


#: Ctrl-C landing in a weakref callback run by the garbage collector, where Python prints an
#: exception and drops it, in a command that would otherwise go on and succeed.
CTRL_C_IN_A_CALLBACK = """
import os, signal, time, weakref
from llkgen.console import run_app

class Thing:
    pass

def command():
    thing = Thing()
    ref = weakref.ref(thing, lambda ref: (os.kill(os.getpid(), signal.SIGINT), sum(range(1000))))
    del thing  # the callback runs here, and the handler inside it
    assert ref() is None
    for _ in range(100):
        time.sleep(0.05)
    print("went on", flush=True)

run_app(command)
"""


def test_ctrl_c_dropped_by_the_interpreter_is_sent_again():
    r = subprocess.run([sys.executable, "-c", CTRL_C_IN_A_CALLBACK], capture_output=True, text=True,
                       timeout=HANG_SECONDS)
    assert (r.returncode, r.stdout, r.stderr) == (130, "", "Interrupted.\n")


#: A command that has finished, and an exit function (of some library) that waits: Ctrl-C
#: lands in it.
CTRL_C_AT_EXIT = """
import atexit, os, signal, time
from llkgen.console import run_app

def waits():
    os.kill(os.getpid(), signal.SIGINT)
    for _ in range(100):
        time.sleep(0.05)
    print("waited", flush=True)

run_app(lambda: atexit.register(waits))
"""


def test_ctrl_c_during_the_exit_ends_it_at_once_and_says_so():
    """Once the command is done, a signal ends the interpreter's exit at once, with the
    message and code of a Ctrl-C: no wait at exit outlasts it. (Before, the stop was raised in
    the exit function, printed as "Exception ignored" with its traceback, and the wait went on.)"""
    r = subprocess.run([sys.executable, "-c", CTRL_C_AT_EXIT], capture_output=True, text=True, timeout=HANG_SECONDS)
    assert (r.returncode, r.stdout, r.stderr) == (130, "", "Interrupted.\n")


#: ``llkgen --version``, with an exit function registered before the console script's, so it
#: runs after all of the console script's own: what Ctrl-C does there.
LAST_EXIT_FUNCTION = """
import atexit, signal, sys
from llkgen.entry import main

atexit.register(lambda: print(signal.getsignal(signal.SIGINT) is signal.SIG_IGN,
                              signal.getsignal(signal.SIGTERM) is signal.SIG_IGN))
sys.argv = ["llkgen", "--version"]
main()
"""


def test_signals_are_ignored_once_only_the_teardown_is_left():
    """After the last exit function, the interpreter puts back the default action of the
    signals it handled, and a Ctrl-C then killed a finished run by SIGINT, with no message.
    The console script's last exit function ignores them: nothing is left to stop."""
    r = subprocess.run([sys.executable, "-c", LAST_EXIT_FUNCTION], capture_output=True, text=True,
                       timeout=HANG_SECONDS)
    assert (r.returncode, r.stdout.splitlines()[-1], r.stderr) == (0, "True True", "")


#: Ctrl-C landing while a class is created (Python 3.11 wraps what ``__set_name__`` raises in a
#: ``RuntimeError``), in an import a library guards with ``except Exception`` or not at all.
CTRL_C_IN_A_CLASS = """
import os, signal, sys, time
from llkgen.console import run_app

class Slot:
    def __set_name__(self, owner, name):
        os.kill(os.getpid(), signal.SIGINT)
        sum(range(1000))  # the handler runs here

def set_up():
    class Thing:
        slot = Slot()

def command():
    if sys.argv[1] == "guarded":
        try:
            set_up()
        except Exception:
            pass  # an optional extra that failed to load
    else:
        set_up()
    for _ in range(100):
        time.sleep(0.05)
    print("went on", flush=True)

run_app(command)
"""


@pytest.mark.parametrize("import_", ["guarded", "unguarded"])
def test_ctrl_c_wrapped_by_the_code_it_landed_in_still_stops(import_):
    """Guarded, the stop was dropped with the ``RuntimeError`` and the run went on; unguarded,
    it ended in a ``RuntimeError`` traceback, exit 1 (both seen when Ctrl-C landed in
    ``make``'s import of numpy)."""
    r = subprocess.run([sys.executable, "-c", CTRL_C_IN_A_CLASS, import_], capture_output=True, text=True,
                       timeout=HANG_SECONDS)
    assert (r.returncode, r.stdout, r.stderr) == (130, "", "Interrupted.\n")
