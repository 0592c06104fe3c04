"""The JSON and JUnit reports of ``llkgen verify`` written from a spool, one level at a time,
are the same bytes as those built in memory; and ``open_atomic`` keeps the old file when the
writing fails."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from llkgen.files import open_atomic
from llkgen.jobs.check import verify_paths
from llkgen.jobs.check_report import report_json, write_junit

from check_levels import GOOD, HARD, UNSOLVABLE, pack, write, write_pack_dir_of


@pytest.fixture
def levels(tmp_path: Path) -> Path:
    root = tmp_path / "levels"
    write(root / "p.json", pack(GOOD, UNSOLVABLE, HARD))
    write(root / "q.json", "{")
    write(root / "odd.json", GOOD | {"id": "x\ud800\x01<&>"})  # escapes in JSON and in XML
    write(root / "other.json", {"name": "not llkgen"})
    big = write_pack_dir_of(root / "big", GOOD, GOOD | {"id": "g2"}, GOOD | {"id": "g3"})
    (big / "levels-00001.jsonl").write_text("{\n", "utf-8")
    return root


def test_spooled_reports_are_the_same_bytes(levels, tmp_path):
    kept = verify_paths([levels])
    spooled = verify_paths([levels], keep_levels=False, spool=True)
    assert spooled.levels == [] and spooled._spool is not None
    assert report_json(spooled) == report_json(kept)
    assert json.loads(report_json(spooled)) == json.loads(json.dumps(kept.to_json()))
    assert spooled.to_junit() == kept.to_junit()
    write_junit(spooled, tmp_path / "a.xml")
    assert (tmp_path / "a.xml").read_text("utf-8") == kept.to_junit()
    assert spooled.lines() == kept.lines()
    spooled.close()


def test_an_empty_report_streams_too(tmp_path):
    write(tmp_path / "q.json", "{")
    kept, spooled = verify_paths([tmp_path]), verify_paths([tmp_path], keep_levels=False, spool=True)
    assert report_json(spooled) == report_json(kept) and spooled.to_junit() == kept.to_junit()


def test_open_atomic_keeps_the_old_file_when_writing_fails(tmp_path):
    target = tmp_path / "r.xml"
    target.write_text("old", "utf-8")
    with pytest.raises(RuntimeError):
        with open_atomic(target) as f:
            f.write("new, half")
            raise RuntimeError("stopped")
    assert target.read_text("utf-8") == "old" and os.listdir(tmp_path) == ["r.xml"]
    with open_atomic(target) as f:
        f.write("new")
        f.write(", whole")
    assert target.read_text("utf-8") == "new, whole" and os.listdir(tmp_path) == ["r.xml"]
