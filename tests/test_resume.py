"""``make --resume``: a run killed part-way keeps what it finished in a journal, and the rerun
writes the same bytes as a run that was never interrupted."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from llkgen.errors import LevelFormatError
from llkgen.generation.spec import parse_spec
from llkgen.jobs.make import journal_path, make_pack
from llkgen.jobs.shards import Shard

from specs import tiny_spec

SPEC = tiny_spec(seed=5, count=40)


def spec(tmp: Path, out: str = "tiny.json", **over):
    return parse_spec(SPEC, "tiny.yaml").with_overrides(out=tmp / out, **over)


@pytest.fixture(scope="module")
def plain(tmp_path_factory) -> bytes:
    tmp = tmp_path_factory.mktemp("plain")
    return make_pack(spec(tmp), jobs=1).path.read_bytes()


def _lines(path: Path) -> int:
    try:
        return path.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0


def test_a_killed_run_resumes_to_the_same_bytes(tmp_path, plain):
    (tmp_path / "tiny.yaml").write_text(SPEC, "utf-8")
    argv = [sys.executable, "-m", "llkgen", "make", "--config", "tiny.yaml", "--resume", "--jobs", "2", "-q"]
    journal = tmp_path / "tiny.json.journal"
    proc = subprocess.Popen(argv, cwd=tmp_path, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while _lines(journal) < 1 + 5 and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        os.killpg(proc.pid, signal.SIGKILL)  # the parent and its workers, with no chance to clean up
    finally:
        proc.wait()
    assert proc.returncode == -signal.SIGKILL, "the run finished before it could be killed"
    assert not (tmp_path / "tiny.json").exists()
    kept = _lines(journal) - 1
    assert 5 <= kept < 40
    r = subprocess.run([*argv[:-1], "--json"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["resumed"] == kept  # the journalled levels were not made again
    assert (tmp_path / "tiny.json").read_bytes() == plain
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tiny.json", "tiny.yaml"]  # journal removed
    # A journal of another seed: one Error line naming it and what differs, exit 1.
    argv[argv.index("tiny.yaml") + 1:argv.index("tiny.yaml") + 1] = ["--count", "1"]
    journal.write_text('{"format":"llkgen.journal/1","seed":7}\n', "utf-8")
    r = subprocess.run(argv, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.startswith(
        "Error: tiny.json.journal: a journal of another run: generator is None, expected 'llkgen ")
    assert "seed is 7, expected 5" in r.stderr and r.stderr.endswith(" (delete the file, or run without --resume)\n")


def test_a_torn_last_line_is_dropped_and_made_again(tmp_path, plain):
    s = spec(tmp_path, count=3)
    first = make_pack(s, jobs=1, resume=True)  # leaves no journal
    assert not journal_path(first.path).exists()
    # A journal as a kill leaves it: two levels, the second one cut short mid-line.
    Path(str(first.path) + ".journal").write_text("", "utf-8")
    calls: list[int] = []
    made = make_pack(s, jobs=1, resume=True, on_level=lambda lv: calls.append(lv.index))
    assert made.resumed == 0 and calls == [0, 1, 2]
    # Now kill-like: write the journal by hand from a run interrupted after level 2.
    interrupted = make_pack(spec(tmp_path, "x.json", count=3), jobs=1).path
    pack = json.loads(interrupted.read_text("utf-8"))
    journal = journal_path(first.path)
    from llkgen.jobs.shards import spec_identity
    from llkgen.jobs.spool import record_line

    header = {"format": "llkgen.journal/1", **spec_identity(s), "shard": "0/1"}
    lines = [record_line(header), record_line({"index": 1, "attempts": 1, "level": pack["levels"][1]}),
             record_line({"index": 0, "attempts": 1, "level": pack["levels"][0]})[:40]]
    journal.write_text("".join(lines), "utf-8")
    calls.clear()
    again = make_pack(s, jobs=1, resume=True, on_level=lambda lv: calls.append(lv.index))
    assert again.resumed == 1 and calls == [1, 0, 2]
    assert again.path.read_bytes() == first.path.read_bytes()
    assert json.loads(again.path.read_text("utf-8"))["levels"] == pack["levels"]
    assert not journal.exists()


def test_a_journal_of_another_run_is_an_error(tmp_path):
    s = spec(tmp_path, count=2)
    journal = journal_path(s.export.path)
    # A journal left by a run with another seed, and one of a shard.
    for other, differs in ((dict(seed=6), "seed is 6, expected 5"), (dict(shard=Shard(1, 2)), "shard is '1/2'")):
        o = spec(tmp_path, count=2, seed=other.get("seed"))
        j = Path(str(s.export.path) + ".journal")
        from llkgen.jobs.shards import spec_identity
        from llkgen.jobs.spool import Journal

        Journal.open(j, {**spec_identity(o), "shard": str(other.get("shard", Shard()))}, resume=False).close()
        with pytest.raises(LevelFormatError, match=rf"^{journal}: a journal of another run: .*{differs}"):
            make_pack(s, jobs=1, resume=True)
        assert journal.exists() and not Path(s.export.path).exists()  # left for the user to look at
    journal.write_text("not a journal\n", "utf-8")
    with pytest.raises(LevelFormatError, match=r"line 1: expected a llkgen.journal/1 header, found .*"
                                               r"\(delete the file, or run without --resume\)$"):
        make_pack(s, jobs=1, resume=True)


def test_a_run_without_resume_ignores_the_journal(tmp_path):
    s = spec(tmp_path, count=2)
    journal = journal_path(s.export.path)
    journal.write_text("whatever\n", "utf-8")
    make_pack(s, jobs=1)
    assert journal.read_text("utf-8") == "whatever\n"


def test_a_failed_resumable_run_keeps_its_journal(tmp_path, monkeypatch):
    import llkgen.generation.generator as generate
    from llkgen.errors import GenerationError

    original = generate.generate_level

    def flaky(s, index):
        if index == 2:
            raise GenerationError("boom")
        return original(s, index)

    monkeypatch.setattr(generate, "generate_level", flaky)
    s = spec(tmp_path, count=4)
    with pytest.raises(GenerationError):
        make_pack(s, jobs=1, resume=True)
    journal = journal_path(s.export.path)
    assert _lines(journal) == 1 + 2  # levels 1 and 2 are kept for the next try
    monkeypatch.setattr(generate, "generate_level", original)
    assert make_pack(s, jobs=1, resume=True).resumed == 2
    assert not journal.exists()
