"""Temporaries left by a killed run: the next run writing into the same directory removes them,
and never one that a live run (in this process or another) is still writing.

The writers are real processes, killed with SIGKILL mid-write, so what is swept is exactly
what a killed ``llkgen make`` or ``merge`` leaves.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import llkgen.files as files
from llkgen.files import STALE_GRACE_SECONDS, sweep_stale, write_text_atomic
from llkgen.formats.load import load_pack
from llkgen.formats.packdir import write_pack_dir

from timing import HANG_SECONDS

pytestmark = pytest.mark.skipif(not files._FLOCK, reason="stale temporaries are told by flock (POSIX)")

# A writer that stops mid-write and says so; {what} picks the kind of temporary it leaves.
WRITER = r"""
import sys, time
from llkgen.formats.level import Level
from llkgen.game.board import Board, Rules

def levels(n):
    for i in range(n):
        yield Level(Board.from_grid([[1, 0, 1]]), Rules(True, "none"), f"lv-{i}", {})
    print("ready", flush=True)
    time.sleep(600)

what, target = sys.argv[1], sys.argv[2]
if what == "dir":
    from llkgen.formats.packdir import write_pack_dir
    write_pack_dir(target, {"name": "p"}, levels(3))
elif what == "file":
    from llkgen.files import open_atomic
    with open_atomic(target) as f:
        f.write("half")
        print("ready", flush=True)
        time.sleep(600)
elif what == "swap":  # stopped after the new pack is in place, before the old one is removed
    import llkgen.formats.container as container
    from llkgen.formats.packdir import write_pack_dir
    def stop(path, ignore_errors=False):
        print("ready", flush=True)
        time.sleep(600)
    container.shutil.rmtree = stop
    write_pack_dir(target, {"name": "p"}, [Level(Board.from_grid([[2, 2]]), Rules(True, "none"), "new", {})])
"""


def _start(what: str, target: Path) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-c", WRITER, what, str(target)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    return proc


def _kill(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=HANG_SECONDS)
    assert proc.stdout is not None
    proc.stdout.close()


def _temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".llkgen-"))


def _age(folder: Path) -> None:
    """Make every temporary in ``folder`` older than the grace a fresh one gets."""
    past = time.time() - STALE_GRACE_SECONDS - 60
    for name in _temporaries(folder):
        os.utime(folder / name, (past, past), follow_symlinks=False)


def _sweep_again(folder: Path) -> None:
    files._swept.discard(os.path.abspath(folder))  # a sweep runs once per process per directory
    sweep_stale(folder)


def _pack(tmp_path: Path, name: str) -> Path:
    from llkgen.formats.level import Level
    from llkgen.game.board import Board, Rules

    level = Level(Board.from_grid([[3, 3]]), Rules(True, "none"), "one", {})
    return write_pack_dir(tmp_path / name, {"name": name}, [level])


def test_a_killed_pack_directory_write_is_cleaned_up_by_the_next_write(tmp_path):
    proc = _start("dir", tmp_path / "big")
    _kill(proc)
    left = _temporaries(tmp_path)
    assert len(left) == 1 and left[0].startswith(f".llkgen-{proc.pid}-")  # the PID says whose it is
    assert (tmp_path / left[0] / "levels-00000.jsonl").exists()
    _age(tmp_path)
    _pack(tmp_path, "other")  # any write into the same directory
    assert _temporaries(tmp_path) == [] and load_pack(tmp_path / "other").levels[0].id == "one"


def test_a_killed_single_file_write_is_cleaned_up_by_the_next_write(tmp_path):
    (tmp_path / "out.json").write_text("before")
    _kill(_start("file", tmp_path / "out.json"))
    assert len(_temporaries(tmp_path)) == 1
    _age(tmp_path)
    write_text_atomic(tmp_path / "else.json", "x")
    assert _temporaries(tmp_path) == [] and (tmp_path / "out.json").read_text() == "before"


def test_a_pack_moved_aside_by_a_killed_swap_is_removed_once_the_new_one_is_in(tmp_path):
    _pack(tmp_path, "p")
    proc = _start("swap", tmp_path / "p")
    _kill(proc)
    left = _temporaries(tmp_path)
    assert len(left) == 1 and left[0].startswith(f".llkgen-old-{proc.pid}-")
    _age(tmp_path)
    _sweep_again(tmp_path)
    assert _temporaries(tmp_path) == [] and load_pack(tmp_path / "p").levels[0].id == "new"


@pytest.mark.parametrize("what", ["dir", "file", "swap"])
def test_a_live_writers_temporary_is_never_swept(tmp_path, what):
    # Two runs writing into one directory at once: the one that sweeps must leave the other's
    # temporary alone however old it looks, and removes it only once its writer is dead.
    if what == "swap":
        _pack(tmp_path, "p")
    proc = _start(what, tmp_path / "p")
    try:
        left = _temporaries(tmp_path)
        assert len(left) == 1
        _age(tmp_path)
        _sweep_again(tmp_path)
        _pack(tmp_path, "other")
        write_text_atomic(tmp_path / "x.json", "x")
        assert _temporaries(tmp_path) == left
    finally:
        _kill(proc)
    _sweep_again(tmp_path)
    assert _temporaries(tmp_path) == []


def test_this_processes_own_temporaries_are_never_swept(tmp_path):
    seen: list[list[str]] = []

    def levels():
        from llkgen.formats.level import Level
        from llkgen.game.board import Board, Rules

        yield Level(Board.from_grid([[1, 1]]), Rules(True, "none"), "a", {})
        _age(tmp_path)
        _sweep_again(tmp_path)
        seen.append(_temporaries(tmp_path))

    write_pack_dir(tmp_path / "p", {"name": "p"}, levels())
    assert len(seen[0]) == 1 and load_pack(tmp_path / "p").levels[0].id == "a"
    assert _temporaries(tmp_path) == []


def test_what_a_sweep_keeps(tmp_path):
    def make_dir(name: str) -> None:
        (tmp_path / name).mkdir()
        (tmp_path / name / "index.json").write_text("{}")

    # A swap killed between its two renames: the pack moved aside is the only copy of the old
    # pack, the other directory the whole new one; both are kept for a person to look at.
    make_dir(".llkgen-old-4000001-abc.tmp")
    make_dir(".llkgen-4000001-def.tmp")
    # Not the names of temporaries a writer holds: an older llkgen's, a journal's, a link.
    (tmp_path / ".llkgen-abcdefgh.tmp").write_text("journal")
    (tmp_path / "precious").write_text("mine")
    (tmp_path / ".llkgen-4000002-lnk.tmp").symlink_to(tmp_path / "precious")
    # Stale: an old pack whose new one is in place, a half-written file of another run.
    make_dir(".llkgen-old-4000003-ghi.tmp")
    (tmp_path / ".llkgen-4000004-jkl.tmp").write_text("half")
    _age(tmp_path)
    # Too young to judge: it may be between its creation and its writer's lock.
    (tmp_path / ".llkgen-4000005-mno.tmp").write_text("new")
    _sweep_again(tmp_path)
    assert _temporaries(tmp_path) == [".llkgen-4000001-def.tmp", ".llkgen-4000002-lnk.tmp",
                                      ".llkgen-4000005-mno.tmp", ".llkgen-abcdefgh.tmp",
                                      ".llkgen-old-4000001-abc.tmp"]
    assert (tmp_path / "precious").read_text() == "mine"


def test_a_sweep_never_fails_a_write(tmp_path, monkeypatch):
    (tmp_path / ".llkgen-4000006-pqr.tmp").mkdir()
    _age(tmp_path)
    monkeypatch.setattr(files.shutil, "rmtree", lambda path: (_ for _ in ()).throw(PermissionError(13, "no")))
    write_text_atomic(tmp_path / "a.json", "x")
    assert (tmp_path / "a.json").read_text() == "x" and _temporaries(tmp_path) == [".llkgen-4000006-pqr.tmp"]
