"""``make --resume``: a run killed part-way keeps what it finished in a journal, and the rerun
writes the same bytes as a run that was never interrupted."""

from __future__ import annotations

import errno
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

from cli_runner import run_cli_in_process
from specs import tiny_spec
from timing import HANG_SECONDS

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
        deadline = time.monotonic() + HANG_SECONDS
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
                                               r"\(delete the file, or run without resume\)$"):
        make_pack(s, jobs=1, resume=True)


def test_a_run_without_resume_ignores_the_journal(tmp_path):
    s = spec(tmp_path, count=2)
    journal = journal_path(s.export.path)
    journal.write_text("whatever\n", "utf-8")
    make_pack(s, jobs=1)
    assert journal.read_text("utf-8") == "whatever\n"


def test_a_failed_resumable_run_keeps_its_journal(tmp_path, monkeypatch, fail_level):
    import llkgen.generation.generator as generate
    from llkgen.errors import GenerationError

    original = fail_level(2)
    s = spec(tmp_path, count=4)
    with pytest.raises(GenerationError):
        make_pack(s, jobs=1, resume=True)
    journal = journal_path(s.export.path)
    assert _lines(journal) == 1 + 2  # levels 1 and 2 are kept for the next try
    monkeypatch.setattr(generate, "generate_level", original)
    assert make_pack(s, jobs=1, resume=True).resumed == 2
    assert not journal.exists()


def _journal_of(tmp: Path, s, levels: list[dict], lines: list[str] | None = None) -> Path:
    """The journal a run of ``s`` killed after ``levels`` (in index order) would leave, or with ``lines``."""
    from llkgen.jobs.shards import spec_identity
    from llkgen.jobs.spool import record_line

    header = {"format": "llkgen.journal/1", **spec_identity(s), "shard": "0/1"}
    if lines is None:
        lines = [record_line({"index": i, "attempts": 1, "level": lv}) for i, lv in enumerate(levels)]
    journal = journal_path(s.export.path)
    journal.write_text(record_line(header) + "".join(lines), "utf-8")
    return journal


def test_a_journalled_level_that_fails_its_replay_is_made_again(tmp_path, monkeypatch, capsys):
    s = spec(tmp_path, count=3)
    plain = make_pack(spec(tmp_path, "plain.json", count=3), jobs=1).path
    levels = json.loads(plain.read_text("utf-8"))["levels"]
    from llkgen.jobs.spool import record_line

    bad_move = json.loads(json.dumps(levels[0]))
    bad_move["solution"][0] = [[0, 0], [0, 0]]
    lines = [record_line({"index": 0, "attempts": 1, "level": bad_move}),
             record_line({"index": 1, "attempts": 1, "level": levels[1]}).replace(
                 '"difficulty_se":', '"difficulty_se":NaN,"x":', 1),
             record_line({"index": 2, "attempts": 1, "level": levels[2]})]
    journal = _journal_of(tmp_path, s, levels, lines)
    calls: list[int] = []
    result = make_pack(s, jobs=1, resume=True, on_level=lambda lv: calls.append(lv.index))
    assert result.resumed == 1 and calls == [2, 0, 1]  # only the sound record was kept
    assert result.dropped[0] == (f"{journal} line 2: level tiny-1: stored solution fails: move 0: both cells are "
                                 "[0, 0]: a move needs two distinct tiles")
    assert result.dropped[1].startswith(f"{journal} line 3: bad JSON") and "NaN" in result.dropped[1]
    assert result.path.read_bytes() == plain.read_bytes() and not journal.exists()
    # The command line says what it dropped, and the pack passes verify.
    (tmp_path / "tiny.yaml").write_text(SPEC, "utf-8")
    monkeypatch.chdir(tmp_path)
    _journal_of(tmp_path, spec(tmp_path, count=3), levels, lines).rename(tmp_path / "c.json.journal")
    code, out, err = run_cli_in_process(["make", "--config", "tiny.yaml", "--count", "3", "--out", "c.json",
                                         "--resume", "--jobs", "1", "--json"], monkeypatch, capsys)
    assert code == 0, err
    assert json.loads(out)["resumed"] == 1
    warnings = [line for line in err.splitlines() if line.startswith("Warning: ")]
    assert warnings[0] == ("Warning: c.json.journal line 2: level tiny-1: stored solution fails: move 0: both cells "
                           "are [0, 0]: a move needs two distinct tiles: dropped from the journal, level made again")
    assert len(warnings) == 2
    code, out, err = run_cli_in_process(["verify", "c.json", "--jobs", "1"], monkeypatch, capsys)
    assert code == 0, out + err
    assert (tmp_path / "c.json").read_bytes() == plain.read_bytes()


def test_a_journal_read_back_at_the_end_is_replayed_again(tmp_path, monkeypatch):
    """The journal is input when the pack is written too: a record spoiled after it was
    journalled never reaches the pack."""
    from llkgen.errors import LevelFormatError
    from llkgen.jobs import spool

    s = spec(tmp_path, count=2)
    original = spool.Journal.add

    def add_then_spoil(self, record):
        original(self, record)
        if record["index"] == 1:
            text = self.path.read_bytes()
            self.path.write_bytes(text.replace(b'"solution":[[[', b'"solution":[[[9', 1))

    monkeypatch.setattr(spool.Journal, "add", add_then_spoil)
    with pytest.raises(LevelFormatError, match=r"tiny.json.journal line 2: level tiny-1: stored solution fails: "):
        make_pack(s, jobs=1, resume=True)
    assert not Path(s.export.path).exists()


def test_a_full_disk_is_one_error_line_and_the_journal_keeps_its_lines(tmp_path, monkeypatch, capsys):
    from llkgen.jobs import spool

    (tmp_path / "tiny.yaml").write_text(SPEC, "utf-8")
    monkeypatch.chdir(tmp_path)
    synced: list[int] = []
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        synced.append(fd)
        if len(synced) > 3:  # the header and two levels fit; the third does not
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real_fsync(fd)

    monkeypatch.setattr(spool.os, "fsync", fsync)
    argv = ["make", "--config", "tiny.yaml", "--count", "4", "--resume", "--jobs", "1", "-q"]
    code, out, err = run_cli_in_process(argv, monkeypatch, capsys)
    assert (code, out, err) == (1, "", "Error: tiny.json.journal: cannot write: no space left on device\n")
    journal = tmp_path / "tiny.json.journal"
    assert _lines(journal) == 1 + 2 and journal.read_bytes().endswith(b"}\n")  # no torn third line
    assert not (tmp_path / "tiny.json").exists()
    monkeypatch.setattr(spool.os, "fsync", real_fsync)
    code, out, err = run_cli_in_process([*argv[:-1], "--json"], monkeypatch, capsys)
    assert code == 0, err
    assert json.loads(out)["resumed"] == 2 and not journal.exists()


def test_a_symlink_at_the_journal_path_is_never_followed(tmp_path, monkeypatch, capsys):
    from llkgen.errors import OutputError
    from llkgen.jobs.spool import Journal

    (tmp_path / "tiny.yaml").write_text(SPEC, "utf-8")
    (tmp_path / "out").mkdir()
    elsewhere = tmp_path / "elsewhere" / "planted"
    (tmp_path / "elsewhere").mkdir()
    journal = tmp_path / "out" / "p.json.journal"
    journal.symlink_to(elsewhere)  # dangling
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli_in_process(["make", "--config", "tiny.yaml", "--count", "2", "--out", "out/p.json",
                                         "--resume", "--jobs", "1", "-q"], monkeypatch, capsys)
    assert (code, out) == (1, "")
    assert err == ("Error: out/p.json.journal: cannot write: is a symbolic link, expected a regular file (llkgen "
                   "does not follow a link at a journal's path: remove it)\n")
    assert not elsewhere.exists() and journal.is_symlink()
    # A link to an existing file is refused the same way, and the file is left as it was.
    elsewhere.write_text("mine\n", "utf-8")
    for resume in (True, False):  # False: the temporary journal of a big pack
        with pytest.raises(OutputError, match="is a symbolic link"):
            Journal.open(journal, {"name": "x"}, resume=resume)
    assert elsewhere.read_text("utf-8") == "mine\n"


@pytest.mark.parametrize("bad_id", ["../../evil", "x" * 5000, "tiny-\u0665", "..", "tiny-1"],
                         ids=["parent", "long", "unicode", "dots", "another-levels"])
def test_a_journalled_level_id_not_its_runs_is_dropped_and_made_first(tmp_path, monkeypatch, capsys, bad_id):
    """A journal record whose level id was edited, or a second record of one level, in a
    ``files`` pack (where the id names the level's file): the record is dropped with a
    ``Warning:`` as the journal is read, and its level made again before any level new to the
    journal; the pack is the one a plain run writes. (Before: a ValueError traceback after the
    whole remaining run.)"""
    text = tiny_spec(seed=5, count=6, export="{path: tiny.json, layout: files}")
    s = parse_spec(text, "tiny.yaml").with_overrides(out=tmp_path / "tiny.json")
    plain = make_pack(parse_spec(text, "tiny.yaml").with_overrides(out=tmp_path / "plain" / "tiny.json"), jobs=1).path
    levels = [json.loads((plain / f"tiny-{i + 1}.json").read_text("utf-8")) for i in range(6)]
    from llkgen.jobs.spool import record_line

    def line(i: int, **edit) -> str:
        return record_line({"index": i, "attempts": 1, "level": {**levels[i], **edit}})

    from llkgen.jobs.shards import spec_identity

    # Levels 0 and 1 journalled, level 1 twice; level 4 with the bad id; 2, 3 and 5 never made.
    header = record_line({"format": "llkgen.journal/1", **spec_identity(s), "shard": "0/1"})
    journal = tmp_path / "tiny.journal"  # beside the pack directory tiny/
    journal.write_text(header + line(0) + line(1) + line(1) + line(4, id=bad_id), "utf-8")
    notes: list[str] = []
    calls: list[int] = []
    result = make_pack(s, jobs=1, resume=True, on_level=lambda lv: calls.append(lv.index),
                       on_dropped=lambda note: notes.append(f"{note} (before level {len(calls) + 1})"))
    assert result.resumed == 2 and calls == [0, 1, 4, 2, 3, 5]  # the dropped level first
    assert notes == [f"{journal} line 4: level index 1: a second record of it (the first is line 3) (before level 1)",
                     f"{journal} line 5: level id: expected 'tiny-5' (level 5 of pack 'tiny'), found string "
                     f"{bad_id[:40]!r} (before level 1)"]
    assert sorted(p.name for p in result.path.iterdir()) == sorted(p.name for p in plain.iterdir())
    assert all((result.path / p.name).read_bytes() == p.read_bytes() for p in plain.iterdir())
    assert not journal.exists() and not (tmp_path.parent / "evil").exists()
    # The command line warns as it reads the journal, one line per dropped record.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "tiny.yaml").write_text(text, "utf-8")
    journal.write_text(header + line(0) + line(1) + line(1) + line(4, id=bad_id), "utf-8")
    journal.rename(tmp_path / "c.journal")
    code, out, err = run_cli_in_process(["make", "--config", "tiny.yaml", "--out", "c.json", "--resume", "--jobs", "1",
                                         "--json"], monkeypatch, capsys)
    assert code == 0, err
    assert json.loads(out)["resumed"] == 2
    assert [w.split(": ", 2)[1] for w in err.splitlines() if w.startswith("Warning: ")] == \
        ["c.journal line 4", "c.journal line 5"]
    assert "Traceback" not in err
