"""The executor interface (:mod:`llkgen.execution.base`): results in order, failures as in one
process, the iterable read at most a window ahead, workers stopped when the stream is closed,
``inline`` arguments computed here, whatever runs the calls: this process, a process pool, or a
Dask cluster of worker processes (a ``LocalCluster``; skipped only when ``distributed`` is not
installed)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import asdict
from functools import partial
from pathlib import Path

import pytest

from llkgen.errors import BudgetExhausted, GenerationError
from llkgen.execution import make_executor
from llkgen.execution.base import InlineExecutor, ProcessExecutor, WorkerFailure, window
from llkgen.generation.spec import parse_spec
from llkgen.jobs.make import make_pack

from timing import HANG_SECONDS, Timed

SPEC = """\
name: tiny
seed: 8
count: 6
board: {rows: 4, cols: 6}
tiles: {types: 6, copies: 4}
generator: {strategy: shuffle, max_attempts: 50}
difficulty: {initial_moves: [2, null], playthroughs: 8}
verify: {nodes: 20000}
export: {path: tiny.json}
"""


def square(x: int) -> int:
    if x % 7 == 3:
        time.sleep(0.05)  # finishes after later calls: the order must still hold
    return x * x


def fail_at(bad: tuple[int, ...]):
    def fn(x: int) -> int:
        if x in bad:
            if x == min(bad):
                time.sleep(0.3)  # the lowest failure arrives last
            raise GenerationError(f"call {x} failed")
        return x

    return fn


def _collect(executor, fn, args) -> list:
    """``(position, result)`` pairs from :meth:`imap_ordered`."""
    return list(enumerate(executor.imap_ordered(fn, args)))


def where(x: int) -> tuple[int, int]:
    """``x`` and the process that computed it."""
    return x, os.getpid()


class Counted:
    """An iterable over ``range(n)`` (a generator: no length) that counts what was pulled."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.pulled = 0

    def __iter__(self):
        for i in range(self.n):
            self.pulled += 1
            yield i


def _read_ahead(executor, fn, n: int, **kwargs) -> tuple[list, int]:
    """The results of ``imap_ordered`` over :class:`Counted` ``(n)``, and the most arguments
    pulled beyond the result being handed over."""
    args = Counted(n)
    got, ahead = [], 0
    for r in executor.imap_ordered(fn, args, **kwargs):
        got.append(r)
        ahead = max(ahead, args.pulled - len(got))
    return got, ahead


EXECUTORS = [InlineExecutor(), ProcessExecutor(1), ProcessExecutor(2)]
IDS = ["inline", "1 process", "2 processes"]


@pytest.mark.parametrize("executor", EXECUTORS, ids=IDS)
def test_results_in_order_and_the_iterable_read_at_most_a_window_ahead(executor):
    n = 3 * window(2)  # more than the window: pulling must refill it
    got, ahead = _read_ahead(executor, square, n)
    assert got == [i * i for i in range(n)]
    # In one process an argument is pulled only once the previous result was taken; a pool fills
    # its window before handing over a result (the workers stay busy), and never reads further.
    assert ahead == (0 if executor.description == "1 job" else window(2) - 1)
    assert list(executor.imap_ordered(square, [])) == []
    assert _collect(executor, square, range(5)) == [(i, i * i) for i in range(5)]


def _fail_4_and_9(x: int) -> int:
    return fail_at((4, 9))(x)


@pytest.mark.parametrize("executor", EXECUTORS, ids=IDS)
def test_the_lowest_failing_call_wins_and_earlier_results_are_delivered(executor):
    got: list = []
    with pytest.raises(GenerationError, match="^call 4 failed$"):
        for r in executor.imap_ordered(_fail_4_and_9, Counted(12)):
            got.append(r)
    assert got == [0, 1, 2, 3]
    got = []
    with pytest.raises(GenerationError, match="^call 4 failed$"):
        for r in executor.imap_ordered(_fail_4_and_9, list(range(12))):  # a list: sized input
            got.append(r)
    assert got == [0, 1, 2, 3]


def broken_after(n: int):
    """``range(n)``, then the iterable itself fails."""
    yield from range(n)
    raise GenerationError(f"no argument after {n}")


@pytest.mark.parametrize("executor", EXECUTORS, ids=IDS)
def test_a_failing_iterable_fails_at_its_position(executor):
    got: list = []
    with pytest.raises(GenerationError, match="^no argument after 5$"):
        for r in executor.imap_ordered(square, broken_after(5)):
            got.append(r)
    assert got == [i * i for i in range(5)]


@pytest.mark.parametrize("executor", EXECUTORS, ids=IDS)
def test_inline_arguments_are_computed_here_in_order(executor):
    here = os.getpid()
    got = list(executor.imap_ordered(where, Counted(40), inline=lambda x: x % 3 == 0))
    assert [x for x, _ in got] == list(range(40))
    assert all(pid == here for x, pid in got if x % 3 == 0)
    elsewhere = {pid for x, pid in got if x % 3}
    assert elsewhere == ({here} if executor.description == "1 job" else elsewhere - {here})
    # An inline call that fails is raised at its position too.
    with pytest.raises(GenerationError, match="^call 4 failed$"):
        list(executor.imap_ordered(_fail_4_and_9, range(12), inline=lambda x: x == 4))


def pid_then_sleep(marks: Path, x: int) -> int:
    """0 at once; every other call leaves its worker's pid in ``marks`` and sleeps a minute."""
    if x:
        (marks / str(os.getpid())).touch()
        time.sleep(60)
    return x


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_closing_the_stream_early_terminates_the_workers(tmp_path):
    results = ProcessExecutor(2).imap_ordered(partial(pid_then_sleep, tmp_path), range(10))
    assert next(results) == 0
    deadline = time.monotonic() + 60
    while len(list(tmp_path.iterdir())) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)  # both workers are inside a sleeping call
    workers = [int(p.name) for p in tmp_path.iterdir()]
    assert len(workers) == 2
    with Timed() as t:
        results.close()
    assert t.seconds < t.limit(0, 10), t  # not the minute the calls would take
    assert all(_gone(pid) for pid in workers)


@pytest.mark.parametrize("command", [["make", "--config", "easy", "--count", "1"], ["verify", "."]])
def test_without_distributed_scheduler_says_how_to_install_it(command, tmp_path):
    code = ("import sys; sys.modules['distributed'] = None\n"
            f"sys.argv = ['llkgen', *{command!r}, '--scheduler', 'local']\n"
            "from llkgen.cli import main; main()")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=HANG_SECONDS, cwd=tmp_path)
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr.startswith("Error: --scheduler: needs the optional dependency 'distributed' (")
    assert r.stderr.endswith("): install it with: pip install 'llkgen[dask]'\n") and "Traceback" not in r.stderr


# -- Dask ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def cluster():
    """A local cluster of two worker processes, shared by the Dask tests (starting one costs
    seconds), set up as ``--scheduler local`` sets up its own."""
    distributed = pytest.importorskip("distributed")
    import cloudpickle
    import dask

    from llkgen.execution.dask_cluster import LOCAL_CONFIG

    # The workers are fresh processes: send this module's functions by value.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    with dask.config.set(LOCAL_CONFIG):
        with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                      host="127.0.0.1", dashboard_address=":0", silence_logs=50) as c:
            yield c.scheduler_address
    cloudpickle.unregister_pickle_by_value(sys.modules[__name__])


def dask(address: str):
    from llkgen.execution.dask_cluster import DaskExecutor

    return DaskExecutor(address, 2)


def test_verify_on_dask_reports_as_one_process(cluster, tmp_path):
    """``llkgen verify --scheduler``: the searches go to the cluster as one stream (one client
    for the run), the replays stay here, and the report is the one a single process writes."""
    import llkgen.jobs.check as ci

    (tmp_path / "tiny.yaml").write_text(SPEC, "utf-8")
    pack = make_pack(parse_spec(SPEC, "tiny.yaml").with_overrides(out=tmp_path / "p.json", count=8), jobs=1).path
    executor = dask(cluster)
    clients = []
    real = executor.client

    def counted():
        clients.append(1)
        return real()

    executor.client = counted  # type: ignore[method-assign]
    for resolve in (True, False):
        alone = ci.verify_paths([pack], jobs=1, resolve=resolve)
        spread = ci.verify_paths([pack], executor=executor, resolve=resolve)
        assert [asdict(r) for r in spread.levels] == [asdict(r) for r in alone.levels]
        assert {r.method for r in spread.levels} == {"search" if resolve else "replay"}
    assert len(alone.levels) == 8 and clients == [1, 1]


def test_dask_results_in_order_and_the_lowest_failure(cluster):
    n = 2 * window(2) + 6
    got, ahead = _read_ahead(dask(cluster), square, n)
    assert got == [i * i for i in range(n)] and ahead < window(2)
    assert _collect(dask(cluster), square, list(range(70))) == [(i, i * i) for i in range(70)]
    got = []
    with pytest.raises(GenerationError, match="^call 4 failed$"):  # deterministic: not retried
        for r in dask(cluster).imap_ordered(fail_at((4, 9)), Counted(12)):
            got.append(r)
    assert got == [0, 1, 2, 3]
    with pytest.raises(GenerationError, match="^no argument after 5$"):
        list(dask(cluster).imap_ordered(square, broken_after(5)))


def test_dask_inline_arguments_are_computed_here_in_order(cluster):
    here = os.getpid()
    got = list(dask(cluster).imap_ordered(where, range(40), inline=lambda x: x % 3 == 0))
    assert [x for x, _ in got] == list(range(40))
    assert all((pid == here) == (x % 3 == 0) for x, pid in got)
    with pytest.raises(GenerationError, match="^call 4 failed$"):
        list(dask(cluster).imap_ordered(fail_at((4, 9)), range(12), inline=lambda x: x == 9))


def _flaky(marks: Path, how: str, times: int):
    """A call for 2 that fails ``times`` times (``how``: its worker dies, or it raises an
    environment error) before it succeeds; each attempt leaves a file in ``marks``."""

    def fn(x: int) -> int:
        if x == 2:
            n = len(list(marks.iterdir()))
            (marks / f"try-{n}-{os.getpid()}").touch()
            if n < times:
                if how == "die":
                    os._exit(1)
                raise OSError("disk full")
        return x + 100

    return fn


def test_dask_a_call_that_fails_twice_fails_the_run(cluster, tmp_path):
    # (A call that kills its worker twice ends as KilledWorker, which is final; not tested
    # here: killing both workers would make the next test wait seconds for their restart.)
    with pytest.raises(WorkerFailure) as e:
        _collect(dask(cluster), _flaky(tmp_path, "raise", 2), [0, 1, 2, 3])
    assert len(list(tmp_path.iterdir())) == 2
    assert e.value.arg == 2
    assert str(e.value) == "2: failed 2 times on the cluster: OSError: disk full"


def test_dask_pack_is_the_one_process_pack(cluster, tmp_path):
    spec = parse_spec(SPEC, "tiny.yaml")
    one = make_pack(spec.with_overrides(out=tmp_path / "one.json"), jobs=1).path.read_bytes()
    on_cluster = make_pack(spec.with_overrides(out=tmp_path / "dask.json"), executor=dask(cluster))
    assert on_cluster.path.read_bytes() == one


def test_cli_scheduler_local(tmp_path):
    pytest.importorskip("distributed")
    (tmp_path / "tiny.yaml").write_text(SPEC, "utf-8")
    args = [sys.executable, "-m", "llkgen", "make", "--config", "tiny.yaml"]
    r = subprocess.run([*args, "--jobs", "2", "--scheduler", "local", "--out", "dask.json"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[-1].endswith(" s with a local Dask cluster of 2 workers)")
    assert "Traceback" not in r.stderr and "Warning" not in r.stderr, r.stderr
    assert make_executor(2, "local").description == "a local Dask cluster of 2 workers"
    one = make_pack(parse_spec(SPEC, "tiny.yaml").with_overrides(out=tmp_path / "one.json"), jobs=1)
    assert (tmp_path / "dask.json").read_bytes() == one.path.read_bytes()


@pytest.mark.parametrize("how", ["raise", "die"])  # last: a dead worker takes seconds to restart
def test_dask_retries_a_failed_worker_once(cluster, tmp_path, how):
    assert _collect(dask(cluster), _flaky(tmp_path, how, 1), [0, 1, 2, 3]) == [(0, 100), (1, 101), (2, 102), (3, 103)]
    assert len(list(tmp_path.iterdir())) == 2


def test_dask_a_call_whose_worker_dies_twice_fails_the_run(cluster, tmp_path):
    # Last: both workers die here, and restart while the cluster closes. The call runs alone:
    # the scheduler may queue other calls on the worker that dies, and a worker's death
    # counts against every call it held, so with company the run could stop on a lower
    # position that was only queued there (the lowest failure wins).
    with pytest.raises(WorkerFailure) as e:
        _collect(dask(cluster), _flaky(tmp_path, "die", 2), [2])
    assert len(list(tmp_path.iterdir())) == 2 and e.value.arg == 2
    assert str(e.value).startswith("2: the workers holding it died (it may only have been queued on a worker "
                                   "another call killed): KilledWorker: ")



# -- deadlines ----------------------------------------------------------------------------------
#: The documented bound: a run stops within its deadline plus this, and the flake guard for a
#: loaded 2-core machine on top of it.
def sleep_then(marks: Path, x: int) -> int:
    """Leaves its worker's pid in ``marks`` and sleeps 30 s: a call stuck in a long computation."""
    (marks / str(os.getpid())).touch()
    time.sleep(30)
    return x


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_deadline_stops_a_stuck_call_on_time_and_leaves_no_worker(tmp_path, jobs):
    """One job included: with a deadline the call runs in a worker process all the same, the
    only way to stop it on time."""
    with Timed() as t, pytest.raises(BudgetExhausted):
        list(ProcessExecutor(jobs).imap_ordered(partial(sleep_then, tmp_path), range(4),
                                                deadline=time.perf_counter() + 1.0))
    assert t.seconds < t.limit(1.0), t
    workers = [int(p.name) for p in tmp_path.iterdir()]
    assert 1 <= len(workers) <= jobs and all(_gone(pid) for pid in workers)


@pytest.mark.parametrize("executor", EXECUTORS, ids=IDS)
def test_a_deadline_in_time_changes_nothing_and_a_past_one_yields_nothing(executor):
    later = time.perf_counter() + 120
    assert list(executor.imap_ordered(square, range(20), deadline=later)) == [i * i for i in range(20)]
    assert list(executor.imap_ordered(square, [], deadline=time.perf_counter() - 1)) == []  # nothing owed
    with pytest.raises(BudgetExhausted):
        next(executor.imap_ordered(where, range(3), deadline=time.perf_counter() - 1))
    with pytest.raises(BudgetExhausted):  # inline calls are not started past it either
        next(executor.imap_ordered(where, range(3), inline=lambda x: True, deadline=time.perf_counter() - 1))


def test_dask_refuses_a_deadline(cluster):
    with pytest.raises(ValueError, match="deadline: not supported on a Dask cluster"):
        next(dask(cluster).imap_ordered(square, range(3), deadline=time.perf_counter() + 60))
