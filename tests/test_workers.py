"""Worker processes never outlive ``llkgen make``, and a stopped run says so (:mod:`llkgen.execution.workers`
and the signal handling in :mod:`llkgen.cli`).

Each test starts a real ``llkgen make --jobs 2`` on a spec whose levels can never be accepted,
or ``llkgen verify --jobs 2`` on levels no search decides for minutes, so both workers are busy,
then stops the parent the way a user or a CI runner would, and watches the worker processes in
/proc (helpers in tests/orphans.py, which the wheel test shares).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from orphans import DEATH_SECONDS, assert_workers_die_with_parent, catches, children, gone, state, wait_until

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
        assert wait_until(lambda: catches(proc.pid, signal.SIGTERM), 60)
        assert wait_until(lambda: len(children(proc.pid)) >= (jobs if jobs > 1 else 0), 60)
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
    assert wait_until(lambda: all(gone(w) for w in workers), DEATH_SECONDS), [state(w) for w in workers]


def test_sigterm_ends_the_workers_and_says_so(run):
    proc, workers = run(jobs=2)
    proc.terminate()
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143
    assert err.splitlines()[-1] == "Terminated." and "Traceback" not in err
    assert wait_until(lambda: all(gone(w) for w in workers), 10)


@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_says_interrupted_and_exits_130(run, jobs):
    proc, workers = run(jobs=jobs)
    os.killpg(proc.pid, signal.SIGINT)  # a terminal sends Ctrl-C to the whole process group
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert err.splitlines()[-1] == "Interrupted." and "Traceback" not in err
    assert wait_until(lambda: all(gone(w) for w in workers), 10)
