"""The executor interface (:mod:`llkgen.execution.base`): results in order, failures as in one
process, whatever runs the calls: this process, a process pool, or a Dask cluster of worker
processes (a ``LocalCluster``; skipped only when ``distributed`` is not installed)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from dataclasses import asdict
from pathlib import Path

import pytest

from llkgen.errors import GenerationError
from llkgen.execution import make_executor
from llkgen.execution.base import InlineExecutor, ProcessExecutor, WorkerFailure, window
from llkgen.generation.spec import parse_spec
from llkgen.jobs.make import make_pack

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
    got: list = []
    executor.run_ordered(fn, args, lambda pos, r: got.append((pos, r)))
    return got


@pytest.mark.parametrize("executor", [InlineExecutor(), ProcessExecutor(1), ProcessExecutor(2)],
                         ids=["inline", "1 process", "2 processes"])
def test_results_in_order_and_the_lowest_failure(executor):
    args = list(range(150))  # more than the window: submission must refill it
    assert 150 > window(2)
    assert _collect(executor, square, args) == [(i, i * i) for i in args]
    assert _collect(executor, square, []) == []


def _fail_4_and_9(x: int) -> int:
    return fail_at((4, 9))(x)


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_lowest_failing_call_wins_and_earlier_results_are_delivered(jobs):
    got: list = []
    with pytest.raises(GenerationError, match="^call 4 failed$"):
        ProcessExecutor(jobs).run_ordered(_fail_4_and_9, list(range(12)), lambda pos, r: got.append(pos))
    assert got == [0, 1, 2, 3]


@pytest.mark.parametrize("command", [["make", "--config", "easy", "--count", "1"], ["verify", "."]])
def test_without_distributed_scheduler_says_how_to_install_it(command, tmp_path):
    code = ("import sys; sys.modules['distributed'] = None\n"
            f"sys.argv = ['llkgen', *{command!r}, '--scheduler', 'local']\n"
            "from llkgen.cli import main; main()")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path)
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


def test_verify_on_dask_reports_as_one_process(cluster, tmp_path, monkeypatch):
    """``llkgen verify --scheduler``: the searches go to the cluster in chunks (lowered here
    to 3 levels, so a pack of 8 takes three chunks and one session), the replays stay here,
    and the report is the one a single process writes."""
    import llkgen.jobs.check as ci

    (tmp_path / "tiny.yaml").write_text(SPEC, "utf-8")
    pack = make_pack(parse_spec(SPEC, "tiny.yaml").with_overrides(out=tmp_path / "p.json", count=8), jobs=1).path
    monkeypatch.setattr(ci, "CHUNK", 3)
    executor = dask(cluster)
    sessions = []
    real = executor.session

    def counted():
        sessions.append(1)
        return real()

    executor.session = counted  # type: ignore[method-assign]
    for resolve in (True, False):
        alone = ci.verify_paths([pack], jobs=1, resolve=resolve)
        spread = ci.verify_paths([pack], executor=executor, resolve=resolve)
        assert [asdict(r) for r in spread.levels] == [asdict(r) for r in alone.levels]
        assert {r.method for r in spread.levels} == {"search" if resolve else "replay"}
    assert len(alone.levels) == 8 and sessions == [1, 1]


def test_dask_results_in_order_and_the_lowest_failure(cluster):
    assert _collect(dask(cluster), square, list(range(70))) == [(i, i * i) for i in range(70)]
    got: list = []
    with pytest.raises(GenerationError, match="^call 4 failed$"):  # deterministic: not retried
        dask(cluster).run_ordered(fail_at((4, 9)), list(range(12)), lambda pos, r: got.append(pos))
    assert got == [0, 1, 2, 3]


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

