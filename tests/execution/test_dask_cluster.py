"""llkgen on a real Dask cluster: a scheduler and workers, each a separate process started with
the ``dask scheduler`` and ``dask worker`` commands on loopback, as a user would start them on
several machines, with Dask's default settings (not those of ``--scheduler local``). Workers
are killed in the middle of a run, the whole process group at once (the nanny and its worker
process, so nothing restarts it), and the run must not notice: ``llkgen make`` and ``llkgen
verify`` write the bytes of a plain run.

A kill is made certain, not timed: the test watches the scheduler until a worker holds what it
should lose, stops that worker's process group (SIGSTOP), lets what it sent before stopping
reach the scheduler, and kills it only if the scheduler still counts those tasks on it (else it
lets the worker go on and watches again). The scheduler's record of the removal then has to
list them as lost.

What must stop a run is tested the same way: the scheduler killed in the middle of ``make``,
a level Dask gives up on once its worker dies (``KilledWorker``), and machines that run another
llkgen version (made so with Dask's own ``--preload``, which runs a module in the worker or
scheduler process as it starts) each end the run with one clear error and exit code 1.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from llkgen._version import __version__
from llkgen.execution.dask_cluster import DaskExecutor

from specs import tiny_spec

distributed = pytest.importorskip("distributed")

#: Real processes, killed on purpose, about 40 s in all: .ci/run runs them with -m slow.
pytestmark = pytest.mark.slow

#: A pack of 12 levels of about 0.15 s each: a few seconds of work for a 2-core machine. A
#: level takes about 20 ms to search again, so verify reads the pack in :data:`COPIES` files.
COUNT = 12
SPEC = tiny_spec(seed=11, count=COUNT, board="{rows: 8, cols: 12}", tiles="{types: 24, copies: 4}",
                 export="{path: board.json}")
COPIES = 4

#: The longest any one step may take before the test gives up on it (a hang is a failure).
PATIENCE = 120.0


def _text(path: Path) -> str:
    return path.read_text("utf-8", "replace") if path.exists() else "(none)"


def _logs(log: Path) -> str:
    return f"stdout:\n{_text(log.with_suffix('.out'))}\nstderr:\n{_text(log.with_suffix('.err'))}"


@dataclass
class Processes:
    """Every process the test starts, each in a session (and process group) of its own, so
    that killing the group ends its children too; :meth:`end_all` kills what is left."""

    cwd: Path
    started: list[subprocess.Popen] = field(default_factory=list)

    def start(self, argv: list[str], log: Path, env: dict[str, str] | None = None) -> subprocess.Popen:
        """``argv`` with its stdout in ``log``.out and its stderr in ``log``.err, and ``env``
        added to the environment."""
        with open(log.with_suffix(".out"), "wb") as out, open(log.with_suffix(".err"), "wb") as err:
            proc = subprocess.Popen(argv, cwd=self.cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                    start_new_session=True, env={**os.environ, **(env or {})})
        self.started.append(proc)
        return proc

    def run(self, argv: list[str], log: Path) -> str:
        return finish(self.start(argv, log), log)

    def end_all(self) -> None:
        for proc in self.started:
            try:
                os.killpg(proc.pid, signal.SIGKILL)  # a stopped group too: SIGKILL needs no SIGCONT
            except ProcessLookupError:
                pass
            proc.wait()


def finish(run: subprocess.Popen, log: Path, code: int = 0) -> str:
    """Wait for ``run``, which must exit with ``code`` without a traceback; its stdout."""
    try:
        got = run.wait(timeout=PATIENCE)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{run.args}: still running after {PATIENCE} s (a hang):\n{_logs(log)}")
    assert got == code, f"{run.args}: exit {got}:\n{_logs(log)}"
    assert "Traceback" not in _text(log.with_suffix(".err")), _logs(log)
    return _text(log.with_suffix(".out"))


def error_of(run: subprocess.Popen, log: Path) -> str:
    """Wait for ``run``, which must fail with exit code 1 and one error, the last line on its
    stderr, without a traceback; that line."""
    finish(run, log, code=1)
    *_, last = _text(log.with_suffix(".err")).splitlines()
    assert last.startswith("Error: "), _logs(log)
    return last


@pytest.fixture
def processes(tmp_path):
    started = Processes(tmp_path)
    try:
        yield started
    finally:
        started.end_all()


@dataclass
class Cluster:
    address: str
    scheduler: subprocess.Popen
    workers: dict[str, subprocess.Popen]  # by worker name
    logs: Path
    processes: Processes
    scratch: Path
    clients: list = field(default_factory=list)

    def start_worker(self, name: str, *args: str) -> subprocess.Popen:
        """One more worker of one thread, with the further ``dask worker`` arguments ``args``."""
        self.workers[name] = self.processes.start(
            _dask("worker", self.address, "--name", name, "--nthreads", "1", "--nworkers", "1", "--host", "127.0.0.1",
                  "--no-dashboard", "--dashboard-address", "127.0.0.1:0", "--death-timeout", "30",
                  "--local-directory", str(self.scratch / name), *args),
            self.logs / name)
        return self.workers[name]

    def connect(self):
        """A client to watch the scheduler with, once every worker has registered."""
        client = distributed.Client(self.address, timeout=PATIENCE)
        self.clients.append(client)
        self.wait_for_workers(client)
        return client

    def wait_for_workers(self, client) -> dict[str, str]:
        """Once the scheduler counts exactly the workers still running: their names by address."""
        deadline = time.monotonic() + PATIENCE
        while True:
            running = {name for name, proc in self.workers.items() if proc.poll() is None}
            names = {addr: w["name"] for addr, w in client.scheduler_info()["workers"].items()}
            if set(names.values()) == running:
                return names
            assert time.monotonic() < deadline, f"the scheduler counts {sorted(names.values())}, not {sorted(running)}"
            time.sleep(0.05)

    def end_worker(self, name: str) -> None:
        """Kill the process group of the worker ``name``."""
        os.killpg(self.workers[name].pid, signal.SIGKILL)
        self.workers[name].wait(timeout=PATIENCE)


def _dask(*args: str) -> list[str]:
    """The ``dask`` command of this interpreter's environment."""
    return [sys.executable, "-m", "dask", *args]


@pytest.fixture
def start_cluster(tmp_path, processes):
    """``start_cluster(n)``: a scheduler on a free loopback port and ``n`` workers of one thread
    each, started (:meth:`Cluster.connect` waits for them to be ready). Ports 0: the scheduler's
    address comes from its scheduler file. Should the test process die without cleaning up,
    the scheduler stops once idle for two minutes, and the workers half a minute after it.
    ``env`` is added to the scheduler's environment, ``args`` to its command line."""
    clusters: list[Cluster] = []

    def start(n: int, *args: str, env: dict[str, str] | None = None) -> Cluster:
        logs = tmp_path / "logs"
        logs.mkdir()
        file = logs / "scheduler.json"
        scheduler = processes.start(
            _dask("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
                  "--dashboard-address", "127.0.0.1:0", "--idle-timeout", "120", "--scheduler-file", str(file),
                  *args),
            logs / "scheduler", env)
        deadline = time.monotonic() + PATIENCE
        while True:
            try:
                address = json.loads(file.read_text("utf-8"))["address"]
                break
            except (OSError, ValueError):  # not there yet, or not written in full
                assert scheduler.poll() is None, f"the scheduler exited:\n{_logs(logs / 'scheduler')}"
                assert time.monotonic() < deadline, f"no scheduler file:\n{_logs(logs / 'scheduler')}"
                time.sleep(0.05)
        cluster = Cluster(address, scheduler, {}, logs, processes, tmp_path / "scratch")
        for i in range(n):
            cluster.start_worker(f"w{i}")
        clusters.append(cluster)
        return cluster

    yield start
    for cluster in clusters:  # before ``processes`` ends the cluster
        for client in cluster.clients:
            client.close()


def _run_tasks(keys) -> set[str]:
    """The tasks of llkgen runs among ``keys`` (see :mod:`llkgen.execution.dask_cluster`)."""
    return {str(k) for k in keys or () if str(k).startswith("llkgen-")}


def computing(client) -> dict[str, set[str]]:
    """The tasks of llkgen runs each worker holds to compute."""
    return {addr: _run_tasks(keys) for addr, keys in client.processing().items()}


def holding(client) -> dict[str, set[str]]:
    """The results of llkgen runs each worker holds, not fetched yet."""
    return {addr: _run_tasks(keys) for addr, keys in client.has_what().items()}


def kill_a_worker(client, cluster: Cluster, tasks_of, ongoing) -> dict:
    """Kill the process group of a worker for which ``tasks_of(client)`` (tasks by worker
    address) lists tasks, while ``ongoing()`` holds; return the scheduler's record of its
    removal, checked to list as lost every one of those tasks it still had."""
    deadline = time.monotonic() + PATIENCE
    names: dict[str, str] = {}  # worker address: name
    while True:
        assert ongoing(), "it was over before any worker held tasks"
        assert time.monotonic() < deadline, "no worker held tasks"
        busy = [addr for addr, keys in tasks_of(client).items() if keys]
        if not busy:
            time.sleep(0.01)
            continue
        addr = busy[0]
        if addr not in names:
            names = {a: w["name"] for a, w in client.scheduler_info()["workers"].items()}
        worker = cluster.workers[names[addr]]
        os.killpg(worker.pid, signal.SIGSTOP)
        time.sleep(0.3)  # what the worker sent before it stopped reaches the scheduler
        held = tasks_of(client).get(addr, set())
        if not held:  # done with them just before it stopped: watch again
            os.killpg(worker.pid, signal.SIGCONT)
            continue
        assert ongoing()
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(timeout=PATIENCE)
        removal = _removal(client, addr)
        assert held <= _run_tasks(removal["processing-tasks"]) | _run_tasks(removal["lost-computed-tasks"])
        return removal


def _removal(client, addr: str) -> dict:
    """The scheduler's record of removing the worker at ``addr``, once it has one."""
    deadline = time.monotonic() + PATIENCE
    while True:
        removals = [msg for _, msg in client.get_events("all")
                    if isinstance(msg, dict) and msg.get("action") == "remove-worker" and msg.get("worker") == addr]
        if removals:
            (msg,) = removals
            assert msg["expected"] is False  # a death, not a worker retired on request
            return msg
        assert time.monotonic() < deadline, "the scheduler did not notice the worker die"
        time.sleep(0.05)


def _llkgen(*args: str) -> list[str]:
    return [sys.executable, "-m", "llkgen", *args]


def test_make_and_verify_each_lose_a_worker_and_write_the_bytes_of_a_plain_run(tmp_path, processes,
                                                                                start_cluster):
    """Three workers: one is killed during make while it holds levels to make, one of the two
    left during verify while it holds levels to search. Both outputs are a plain run's bytes."""
    cluster = start_cluster(3)
    (tmp_path / "tiny.yaml").write_text(SPEC, "utf-8")
    logs = cluster.logs
    make = _llkgen("make", "--config", "tiny.yaml")
    verify = _llkgen("verify", "copies", "--resolve", "--json")

    # The plain runs first, while the workers start.
    plain_make = processes.run([*make, "--jobs", "1", "--out", "plain.json"], logs / "plain-make")
    (tmp_path / "copies").mkdir()
    for i in range(COPIES):
        shutil.copyfile(tmp_path / "plain.json", tmp_path / "copies" / f"pack-{i}.json")
    plain_verify = processes.run([*verify, "--jobs", "1"], logs / "plain-verify")
    assert json.loads(plain_verify)["summary"]["certified_by"]["search"] == COUNT * COPIES

    client = cluster.connect()
    run = processes.start([*make, "--scheduler", cluster.address, "--out", "dask.json"], logs / "dask-make")
    killed = kill_a_worker(client, cluster, computing, lambda: run.poll() is None)["worker"]
    dask_make = finish(run, logs / "dask-make")
    assert (tmp_path / "dask.json").read_bytes() == (tmp_path / "plain.json").read_bytes()
    # Every level once, in order: the level lines, and one progress line each on stderr. (Dask
    # may log there too: a result the run was fetching from the worker as it died is fetched
    # again, with a warning.)
    *levels, wrote = dask_make.splitlines()
    assert levels == plain_make.splitlines()[:-1] and len(levels) == COUNT
    assert wrote.endswith(f" s with the Dask scheduler {cluster.address})")
    progress = [line for line in _text(logs / "dask-make.err").splitlines() if line.startswith("making ")]
    assert progress == [f"making tiny: {k}/{COUNT} levels" for k in range(1, COUNT + 1)]

    run = processes.start([*verify, "--scheduler", cluster.address], logs / "dask-verify")
    assert kill_a_worker(client, cluster, computing, lambda: run.poll() is None)["worker"] != killed
    # The JSON report holds no timing (no field to mask): the bytes must match.
    assert finish(run, logs / "dask-verify") == plain_verify


def leaving_marks(marks: Path):
    """A call that gives ``x * x`` after 0.3 s (at once for 0), and leaves a file in ``marks``.
    (A closure: Dask sends it by value, and the workers cannot import this module.)"""

    def call(x: int) -> int:
        (marks / f"{x}-{uuid.uuid4().hex}").touch()
        if x:
            time.sleep(0.3)
        return x * x

    return call


def test_results_lost_with_their_worker_are_not_failures(tmp_path, start_cluster):
    """A worker dies holding results it finished that the run has not fetched yet: the
    scheduler computes them again, and the run takes them as they come. Counted as failed
    instead, each was run a third time, and one retried once already failed the run."""
    cluster = start_cluster(2)
    client = cluster.connect()
    marks = tmp_path / "marks"
    marks.mkdir()
    n = 9
    with closing(DaskExecutor(cluster.address, 2).imap_ordered(leaving_marks(marks), range(n))) as results:
        got = [next(results)]  # 0 at once; the others finish while no result is asked for, unfetched

        def all_done() -> bool:
            return len(list(marks.iterdir())) == n and not any(computing(client).values())

        deadline = time.monotonic() + PATIENCE
        while not all_done():
            assert time.monotonic() < deadline, "the calls did not finish"
            time.sleep(0.05)
        removal = kill_a_worker(client, cluster, holding, lambda: True)
        time.sleep(0.1)  # the run's client hears of the loss; computing them again takes longer
        got += results
    assert got == [x * x for x in range(n)]
    lost = {int(key.split("-")[2]) for key in _run_tasks(removal["lost-computed-tasks"])}
    assert lost and 0 not in lost
    runs = Counter(int(p.name.split("-")[0]) for p in marks.iterdir())
    assert runs == {x: 2 if x in lost else 1 for x in range(n)}  # once more each, by the scheduler


def _positions(keys) -> set[int]:
    """The positions of the llkgen run tasks among ``keys`` (``llkgen-RUN-POSITION-TRY``)."""
    return {int(key.split("-")[2]) for key in _run_tasks(keys)}


def test_make_that_loses_its_scheduler_stops_at_once_and_resume_keeps_the_levels_made(tmp_path, processes,
                                                                                     start_cluster):
    """The scheduler is killed while levels are still to make: the run stops with one error that
    says so, without retrying anything (every task went with the scheduler), and with
    ``--resume`` the journal keeps every level made, so a rerun writes a plain run's bytes.
    Half the pack: the plain run and the rerun are the test's slow part."""
    cluster = start_cluster(2)
    count = COUNT // 2
    (tmp_path / "tiny.yaml").write_text(SPEC.replace(f"count: {COUNT}\n", f"count: {count}\n"), "utf-8")
    logs = cluster.logs
    make = _llkgen("make", "--config", "tiny.yaml")
    processes.run([*make, "--jobs", "1", "--out", "plain.json"], logs / "plain-make")
    client = cluster.connect()

    def unfinished(dask_scheduler) -> int:  # nested, so that it is sent by value
        return sum(1 for key, ts in dask_scheduler.tasks.items()
                   if str(key).startswith("llkgen-") and ts.state != "memory")

    def made() -> int:
        return sum(line.startswith("making ") for line in _text(logs / "dask-make.err").splitlines())

    run = processes.start([*make, "--scheduler", cluster.address, "--out", "dask.json", "--resume"], logs / "dask-make")
    deadline = time.monotonic() + PATIENCE
    while not made():
        assert run.poll() is None, _logs(logs / "dask-make")
        assert time.monotonic() < deadline, "no level was made"
        time.sleep(0.01)
    # Levels the workers cannot finish any more: the run cannot end well once the scheduler goes.
    for worker in cluster.workers.values():
        os.killpg(worker.pid, signal.SIGSTOP)
    time.sleep(0.3)  # what the workers sent before they stopped reaches the scheduler
    assert client.run_on_scheduler(unfinished) > 0
    os.killpg(cluster.scheduler.pid, signal.SIGKILL)
    cluster.scheduler.wait(timeout=PATIENCE)

    error = error_of(run, logs / "dask-make")
    kept = made()
    assert error == (f"Error: tiny.yaml: lost the Dask scheduler at {cluster.address}: {count - kept} of {count} "
                     f"levels were not made; the journal dask.json.journal keeps the {kept} made (rerun with "
                     "--resume to make the rest)")
    assert 0 < kept < count and not (tmp_path / "dask.json").exists()
    journal = (tmp_path / "dask.json.journal").read_text("utf-8").splitlines()
    assert len(journal) == 1 + kept  # its header, and a line a level

    *_, wrote = processes.run([*make, "--jobs", "2", "--out", "dask.json", "--resume"], logs / "resume").splitlines()
    assert f" {kept} of them from the journal " in wrote
    assert (tmp_path / "dask.json").read_bytes() == (tmp_path / "plain.json").read_bytes()


def test_make_names_a_level_dask_gave_up_on_with_dask_s_own_error(tmp_path, processes, start_cluster):
    """A scheduler that allows no worker death: the levels a killed worker held end as
    ``KilledWorker``, Dask's last word, which make quotes as it is (they were never retried)."""
    cluster = start_cluster(2, env={"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": "0"})
    (tmp_path / "tiny.yaml").write_text(SPEC, "utf-8")
    client = cluster.connect()
    log = cluster.logs / "dask-make"
    run = processes.start(_llkgen("make", "--config", "tiny.yaml", "--scheduler", cluster.address), log)
    removal = kill_a_worker(client, cluster, computing, lambda: run.poll() is None)
    error = error_of(run, log)
    # The lowest position the dead worker held fails the run (the others were made).
    i = min(_positions(removal["processing-tasks"]))
    assert error.startswith(f"Error: tiny.yaml: level {i + 1} of {COUNT} (index {i}): the workers holding it died "
                            "(it may only have been queued on a worker another call killed): KilledWorker: "), error
    assert "times on the cluster" not in error
    assert not (tmp_path / "board.json").exists()


def odd_version(tmp_path: Path) -> Path:
    """A module for Dask's ``--preload`` that makes llkgen report another version in the
    process it runs in, as another install of llkgen would."""
    path = tmp_path / "odd_version.py"
    path.write_text("import llkgen._version\n\nllkgen._version.__version__ = '0.0.1'\n", "utf-8")
    return path


def test_workers_of_another_llkgen_version_are_refused_on_connecting_and_when_they_join(tmp_path, processes,
                                                                                        start_cluster):
    """A worker whose llkgen reports another version: the run is refused on connecting, naming
    it and both versions. One that joins once the run is under way fails its first task, with
    an error that names it and is not retried; nothing is written either way."""
    cluster = start_cluster(1)
    cluster.start_worker("odd", "--preload", str(odd_version(tmp_path)))
    (tmp_path / "tiny.yaml").write_text(SPEC, "utf-8")
    client = cluster.connect()
    odd = next(addr for addr, name in cluster.wait_for_workers(client).items() if name == "odd")
    make = _llkgen("make", "--config", "tiny.yaml", "--scheduler", cluster.address)
    error = error_of(processes.start(make, cluster.logs / "refused-make"), cluster.logs / "refused-make")
    assert error == (f"Error: --scheduler: every machine of the Dask cluster needs llkgen {__version__}, as this "
                     f"client has, but the worker {odd} (odd) has llkgen 0.0.1. Install llkgen {__version__} "
                     "there: another version could compute different results (and the scheduler unpickles every task)")

    # No worker now: the run's levels wait on the scheduler until the odd one joins.
    for name in ("w0", "odd"):
        cluster.end_worker(name)
    cluster.wait_for_workers(client)

    def waiting(dask_scheduler) -> int:  # nested, so that it is sent by value
        return sum(1 for key in dask_scheduler.tasks if str(key).startswith("llkgen-"))

    run = processes.start(make, cluster.logs / "late-make")
    deadline = time.monotonic() + PATIENCE
    while not client.run_on_scheduler(waiting):
        assert run.poll() is None, _logs(cluster.logs / "late-make")
        assert time.monotonic() < deadline, "the run sent no level"
        time.sleep(0.05)
    cluster.start_worker("late", "--preload", str(odd_version(tmp_path)))
    error = error_of(run, cluster.logs / "late-make")
    late = next(addr for addr, name in cluster.wait_for_workers(client).items() if name == "late")
    assert error == (f"Error: --scheduler: the Dask worker {late} (late) has llkgen 0.0.1: every machine of the "
                     f"cluster needs llkgen {__version__}, as this client has (another version could compute "
                     "different results)")
    assert not (tmp_path / "board.json").exists()


def test_a_scheduler_without_llkgen_is_refused_on_connecting(tmp_path, processes, start_cluster):
    """The scheduler unpickles every task, so it needs llkgen too: without, every level would
    fail on it. The run is refused before any is sent."""
    blocked = tmp_path / "no_llkgen.py"
    blocked.write_text("import sys\n\nsys.modules['llkgen'] = None  # import llkgen fails\n", "utf-8")
    cluster = start_cluster(0, "--preload", str(blocked))
    (tmp_path / "tiny.yaml").write_text(SPEC, "utf-8")
    log = cluster.logs / "dask-make"
    error = error_of(processes.start(_llkgen("make", "--config", "tiny.yaml", "--scheduler", cluster.address), log),
                     log)
    assert error == (f"Error: --scheduler: every machine of the Dask cluster needs llkgen {__version__}, as this "
                     f"client has, but the Dask scheduler at {cluster.address} has no llkgen (ModuleNotFoundError: "
                     f"import of llkgen halted; None in sys.modules). Install llkgen {__version__} there: another "
                     "version could compute different results (and the scheduler unpickles every task)")
