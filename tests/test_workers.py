"""Worker processes never outlive ``llkgen make``, and a stopped run says so (:mod:`llkgen.execution.workers`
and the signal handling in :mod:`llkgen.cli`).

Each test starts a real ``llkgen make --jobs 2`` on a spec whose levels can never be accepted,
so both workers are busy for minutes, then stops the parent the way a user or a CI runner
would, and watches the worker processes in /proc.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

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


def _state(pid: int) -> str | None:
    """The process state letter (``"Z"`` for a zombie), or None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except (FileNotFoundError, ProcessLookupError):
                continue
            if int(fields[1]) == pid:
                out.append(int(entry.name))
    return out


def _catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler of its own for ``signum`` (``SigCgt``)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except FileNotFoundError:
        return False
    caught = next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught, 16) >> (signum - 1) & 1)


def _gone(pid: int) -> bool:
    return _state(pid) in (None, "Z")


def _wait_until(condition, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


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
        assert _wait_until(lambda: _catches(proc.pid, signal.SIGTERM), 60)
        assert _wait_until(lambda: len(_children(proc.pid)) >= (jobs if jobs > 1 else 0), 60)
        time.sleep(0.5)  # let the workers get into their first level
        return proc, _children(proc.pid)

    yield start
    for proc in started:
        try:  # the whole session: the parent and any worker a failing test left behind
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()
    assert (tmp_path / "endless.json").read_text() == "the previous pack\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["endless.json", "endless.yaml"]


def test_workers_exit_when_the_parent_is_killed(run):
    proc, workers = run(jobs=2)
    assert len(workers) == 2
    proc.kill()  # SIGKILL: the parent gets no chance to clean up
    proc.wait()
    assert _wait_until(lambda: all(_gone(w) for w in workers), 10), [_state(w) for w in workers]


def test_sigterm_ends_the_workers_and_says_so(run):
    proc, workers = run(jobs=2)
    proc.terminate()
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 143
    assert err.splitlines()[-1] == "Terminated." and "Traceback" not in err
    assert _wait_until(lambda: all(_gone(w) for w in workers), 10)


@pytest.mark.parametrize("jobs", [1, 2])
def test_ctrl_c_says_interrupted_and_exits_130(run, jobs):
    proc, workers = run(jobs=jobs)
    os.killpg(proc.pid, signal.SIGINT)  # a terminal sends Ctrl-C to the whole process group
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert err.splitlines()[-1] == "Interrupted." and "Traceback" not in err
    assert _wait_until(lambda: all(_gone(w) for w in workers), 10)
