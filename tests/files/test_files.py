"""Reading and writing the user's files (:mod:`llkgen.files`): bounded reads of anything a path
can name, and atomic writes whose every failure is an ``Error:`` naming the file."""

from __future__ import annotations

import errno
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

import llkgen.formats.level as level_mod
from llkgen.errors import LevelFormatError, OutputError
from llkgen.files import check_writable, prepare_dir, read_bounded, write_text_atomic
from llkgen.formats.level import load_level, read_json

from timing import HANG_SECONDS

LEVEL = {"format": "llkgen.level/1", "id": "t", "rows": 1, "cols": 2, "grid": [[1, 1]]}
POSIX = pytest.mark.skipif(os.name != "posix", reason="pipes, FIFOs and /dev/zero are POSIX")


def _llkgen(*args: str, cwd: Path, timeout: float = 60, memory: int | None = None):
    def limit() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return subprocess.run([sys.executable, "-m", "llkgen", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=timeout, preexec_fn=limit)


# -- bounded reads ---------------------------------------------------------------------------------
@POSIX
def test_an_endless_device_is_refused_at_the_cap(tmp_path):
    # 1 GiB of address space: reading /dev/zero whole would die with MemoryError long before.
    r = _llkgen("show", "/dev/zero", cwd=tmp_path, memory=1 << 30)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == (f"Error: /dev/zero: file too large: more than {level_mod.MAX_FILE_BYTES} bytes, "
                        f"the cap is {level_mod.MAX_FILE_BYTES}\n")


@POSIX
def test_a_pipe_is_read_only_up_to_the_cap(monkeypatch):
    cap = 1 << 20
    monkeypatch.setattr(level_mod, "MAX_FILE_BYTES", cap)
    r, w = os.pipe()
    written = 0

    def feed() -> None:  # 64 MiB, far more than the cap; stops when the reader hangs up
        nonlocal written
        block = b" " * 65536
        try:
            for _ in range(1024):
                written += os.write(w, block)
        except BrokenPipeError:
            pass
        finally:
            os.close(w)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        with pytest.raises(LevelFormatError, match=f"file too large: more than {cap} bytes"):
            read_json(f"/dev/fd/{r}")
    finally:
        os.close(r)
        writer.join(30)
    assert not writer.is_alive()
    # What was consumed is the cap plus at most one read and the pipe's own buffer.
    assert written <= cap + (1 << 20) + (1 << 20)


@POSIX
def test_a_fifo_with_no_writer_is_an_error_not_a_hang(tmp_path):
    os.mkfifo(tmp_path / "level.json")
    r = _llkgen("show", "level.json", cwd=tmp_path, timeout=HANG_SECONDS)
    assert r.returncode == 1
    assert r.stderr == ("Error: level.json: nothing to read: no writer opened this FIFO within 5 s, "
                        "expected a JSON file\n")


@POSIX
def test_a_fifo_with_a_writer_is_read(tmp_path):
    fifo = tmp_path / "level.json"
    os.mkfifo(fifo)

    def feed() -> None:
        time.sleep(0.5)  # the reader opens first and must wait for the writer
        with open(fifo, "w") as f:  # blocks until the reader has opened the FIFO
            f.write(json.dumps(LEVEL))

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    assert load_level(fifo).id == "t"
    writer.join(10)


@POSIX
def test_a_pipe_whose_writer_closed_reads_as_empty():
    r, w = os.pipe()
    os.close(w)
    try:
        with pytest.raises(LevelFormatError, match="bad JSON at line 1 column 1"):
            read_json(f"/dev/fd/{r}")
    finally:
        os.close(r)


def test_regular_files_over_the_cap_are_refused_before_reading(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b" " * 101)
    with pytest.raises(LevelFormatError) as info:
        read_bounded(path, 100, "a JSON file", LevelFormatError)
    assert str(info.value) == f"{path}: file too large: 101 bytes, the cap is 100"
    path.write_bytes(b" " * 100)
    assert read_bounded(path, 100, "a JSON file", LevelFormatError) == b" " * 100


# -- atomic writes ---------------------------------------------------------------------------------
def test_writing_onto_a_directory_names_it(tmp_path):
    (tmp_path / "out").mkdir()
    with pytest.raises(OutputError) as info:
        write_text_atomic(tmp_path / "out", "x")
    assert str(info.value) == f"{tmp_path / 'out'}: cannot write: is a directory, expected a file name"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_writing_onto_a_fifo_is_refused_and_leaves_it(tmp_path):
    """A path that is a pipe (or a device such as /dev/null) is not replaced by a file: the
    rename would swap it for one, which as root turns /dev/null into a regular file."""
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(OutputError, match="device, pipe or socket"):
        write_text_atomic(fifo, "{}")
    with pytest.raises(OutputError, match="device, pipe or socket"):
        check_writable(fifo)
    assert fifo.is_fifo() and sorted(p.name for p in tmp_path.iterdir()) == ["pipe"]


@pytest.mark.parametrize("sub", ["x.json", "a/b/x.json"])
def test_writing_under_a_regular_file_names_the_file(tmp_path, sub):
    (tmp_path / "pack.json").write_text("{}")
    target = tmp_path / "pack.json" / sub
    with pytest.raises(OutputError) as info:
        write_text_atomic(target, "x")
    assert str(info.value) == f"{target}: cannot write: {tmp_path / 'pack.json'} is a file, expected a directory"


def test_a_name_of_250_bytes_is_written(tmp_path):
    # The temporary file's name must not grow with the target's, or this fails.
    target = tmp_path / ("a" * 245 + ".html")
    write_text_atomic(target, "ok")
    assert target.read_text() == "ok"
    assert sorted(p.name for p in tmp_path.iterdir()) == [target.name]


def test_a_name_too_long_for_the_file_system_says_so(tmp_path):
    target = tmp_path / ("é" * 128 + ".json")  # 261 bytes in UTF-8
    with pytest.raises(OutputError) as info:
        write_text_atomic(target, "x")
    assert str(info.value).endswith("cannot write: file name too long: 261 bytes, this file system allows 255")


def test_no_permission_is_an_error_and_leaves_nothing(tmp_path, monkeypatch):
    # Simulated, because the tests may run as root, whom a read-only mode does not stop.
    def denied(*args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied")

    monkeypatch.setattr(tempfile, "mkstemp", denied)
    with pytest.raises(OutputError) as info:
        write_text_atomic(tmp_path / "x.json", "x")
    assert str(info.value) == f"{tmp_path / 'x.json'}: cannot write: permission denied in {tmp_path}"


@pytest.mark.skipif(os.name != "posix" or os.geteuid() == 0, reason="needs a user that file modes stop")
def test_a_read_only_directory_is_an_error(tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        with pytest.raises(OutputError, match="cannot write: permission denied in"):
            write_text_atomic(ro / "x.json", "x")
    finally:
        ro.chmod(0o755)


def test_a_failed_write_keeps_the_previous_file_and_no_temporary(tmp_path, monkeypatch):
    target = tmp_path / "pack.json"
    target.write_text("before")

    def full(src, dst):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(OutputError) as info:
        write_text_atomic(target, "after")
    assert str(info.value) == f"{target}: cannot write: no space left on device"
    assert target.read_text() == "before"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pack.json"]


def test_check_writable_and_prepare_dir_fail_early_and_write_nothing(tmp_path):
    (tmp_path / "f").write_text("")
    with pytest.raises(OutputError, match="is a directory"):
        check_writable(tmp_path)
    with pytest.raises(OutputError, match="is a file, expected a directory"):
        prepare_dir(tmp_path / "f")
    with pytest.raises(OutputError, match="f is a file, expected a directory"):
        prepare_dir(tmp_path / "f" / "svg")
    assert check_writable(tmp_path / "new" / "p.json") == tmp_path / "new" / "p.json"
    assert prepare_dir(tmp_path / "svg") == tmp_path / "svg"
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["f", "new", "svg"]

