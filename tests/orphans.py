"""Watching worker processes in /proc: what tests/execution/test_workers.py and the wheel test in
tests/project/test_package.py need to check that workers never outlive a killed ``llkgen`` run.

:func:`heavy_pack` writes levels that keep a verifier busy in the search core for minutes (so a
worker killed with its parent is killed *in* search code, compiled or not), and
:func:`assert_workers_die_with_parent` runs ``llkgen verify --jobs 2`` on them, SIGKILLs the
parent and times the workers' end.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
from pathlib import Path
from typing import Callable

from timing import HANG_SECONDS, slowdown

#: How long workers may outlive a SIGKILLed parent on an idle machine. The kernel ends them at
#: once on Linux (PR_SET_PDEATHSIG); the rest is this machine's scheduling, so the wait a test
#: allows is this times the machine's slowdown at the time (:func:`death_seconds`).
DEATH_SECONDS = 2.0


def death_seconds() -> float:
    """:data:`DEATH_SECONDS`, scaled by how busy the machine is now (``tests/timing.py``)."""
    return DEATH_SECONDS * slowdown()


def state(pid: int) -> str | None:
    """The process state letter (``"Z"`` for a zombie), or None when there is no such process."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def children(pid: int) -> list[int]:
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


def catches(pid: int, signum: int) -> bool:
    """Whether process ``pid`` has a handler of its own for ``signum`` (``SigCgt``)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return False
    caught = next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:"))
    return bool(int(caught, 16) >> (signum - 1) & 1)


def gone(pid: int) -> bool:
    return state(pid) in (None, "Z")


def wait_until(condition: Callable[[], bool], seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def _full_board(rows: int, cols: int, types: int, seed: int) -> list[list[int]]:
    rng = random.Random(f"orphans/{rows}x{cols}/{types}/{seed}")
    tiles = [1 + (k // 2) % types for k in range(rows * cols)]
    rng.shuffle(tiles)
    return [tiles[r * cols:(r + 1) * cols] for r in range(rows)]


def heavy_pack(path: Path, count: int = 4) -> Path:
    """A pack of ``count`` full 32x32 boards of 4 types, half of them under gravity, with no
    stored solution: ``verify`` searches each, and with a large ``--nodes`` none is decided
    in minutes (pairing search, move search), so the workers stay in the search core."""
    levels = []
    for k in range(count):
        gravity = "down" if k % 2 else "none"
        grid = _full_board(32, 32, 4, k)
        levels.append({"format": "llkgen.level/1", "id": f"heavy-{k}", "rows": 32, "cols": 32, "grid": grid,
                       "rules": {"border": True, "gravity": gravity}})
    path.write_text(json.dumps({"format": "llkgen.pack/1", "name": "heavy", "levels": levels}), "utf-8")
    return path


def assert_workers_die_with_parent(llkgen: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
    """Run ``llkgen verify --jobs 2`` (``llkgen`` is the command's argv prefix) on
    :func:`heavy_pack`, SIGKILL it once both workers are searching, and assert that both are
    gone within :data:`DEATH_SECONDS`."""
    pack = heavy_pack(cwd / "heavy.json")
    proc = subprocess.Popen([*llkgen, "verify", str(pack), "--jobs", "2", "--nodes", "1000000000"], cwd=cwd,
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        # The CLI's handlers are in place (so it is past its imports), then the workers are up.
        assert wait_until(lambda: catches(proc.pid, signal.SIGTERM), HANG_SECONDS)
        assert wait_until(lambda: len(children(proc.pid)) >= 2, HANG_SECONDS), children(proc.pid)
        workers = children(proc.pid)
        time.sleep(3.0)  # past reading the level and building the search: deep in the search
        assert proc.poll() is None and not any(gone(w) for w in workers), (proc.returncode, [state(w) for w in workers])
        proc.kill()  # SIGKILL: the parent gets no chance to clean up
        proc.wait()
        assert wait_until(lambda: all(gone(w) for w in workers), death_seconds()), [state(w) for w in workers]
    finally:
        try:  # the whole session: the parent and any worker left behind
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.communicate()


def kill_group(proc: subprocess.Popen) -> None:
    """End ``proc``'s whole process group (started with ``start_new_session=True``) and reap
    ``proc``: the cleanup of a test that signals a run and may have left it, or its workers,
    alive."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.communicate()
