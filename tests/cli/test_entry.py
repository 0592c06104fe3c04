"""The console script's own door (:mod:`llkgen.entry`): what a command does when standard
output cannot be written."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from timing import HANG_SECONDS

FULL = Path("/dev/full")

pytestmark = pytest.mark.skipif(not FULL.exists(), reason="needs /dev/full (Linux)")

LEVEL = {"format": "llkgen.level/1", "id": "t", "rows": 2, "cols": 2, "grid": [[1, 2], [2, 1]],
         "rules": {"border": True, "gravity": "none"}}


@pytest.mark.parametrize("argv", [["--version"], ["--help"], ["schema"], ["schema", "level"], ["show", "{level}"],
                                  ["solve", "{level}", "--json"], ["verify", "{level}"], ["moves", "{level}"]],
                         ids=" ".join)
def test_stdout_on_a_full_disk_is_one_error_line(tmp_path, argv):
    """``llkgen ... > /dev/full``: every command printed an ENOSPC traceback. Now one
    ``Error:`` line on stderr and exit 1, whether the write failed in the command or in the
    flush at exit."""
    level = tmp_path / "level.json"
    level.write_text(json.dumps(LEVEL), "utf-8")
    with FULL.open("w") as full:
        r = subprocess.run([sys.executable, "-m", "llkgen", *(a.format(level=level) for a in argv)], cwd=tmp_path,
                           stdout=full, stderr=subprocess.PIPE, text=True, timeout=HANG_SECONDS)
    assert (r.returncode, r.stderr) == (1, "Error: cannot write to standard output: No space left on device\n")


@pytest.mark.parametrize("fmt", [["--json"], ["--format", "github"], []], ids=lambda f: " ".join(f) or "text")
def test_a_report_longer_than_the_buffer_on_a_full_disk(tmp_path, fmt):
    """``verify`` writes its reports with ``writelines``; past the stream's buffer (8 KiB) the
    write error comes from there, and it too is one ``Error:`` line, not a traceback."""
    import llkgen

    pack = tmp_path / "pack.json"
    llkgen.write_json_atomic(pack, llkgen.pack_to_json(llkgen.generate("easy", count=30)))
    with FULL.open("w") as full:
        r = subprocess.run([sys.executable, "-m", "llkgen", "verify", str(pack), *fmt], cwd=tmp_path,
                           stdout=full, stderr=subprocess.PIPE, text=True, timeout=HANG_SECONDS)
    assert (r.returncode, r.stderr) == (1, "Error: cannot write to standard output: No space left on device\n")


def test_an_error_from_another_file_is_not_taken_for_stdout(monkeypatch):
    """An ``OSError`` that stdout did not raise goes on as it is (a bug to see, with its
    traceback): the door names stdout only for the errors stdout raised."""
    import errno

    from llkgen import entry

    def elsewhere() -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(entry, "_run", elsewhere)
    monkeypatch.setattr(sys, "stdout", sys.stdout)  # entry.main replaces it; put it back after
    with pytest.raises(OSError, match="No space left"):
        entry.main()
