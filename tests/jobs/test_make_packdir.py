"""``make`` and ``merge`` write packs past one file's levels as a ``llkgen.packdir/1``
directory (with :func:`llkgen.formats.packdir.write_pack_dir`). The limit (10,000 levels) is lowered
here to 3, so a pack of 7 levels shows every case in a second."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import llkgen.jobs.make as export
from llkgen.errors import OutputError
from llkgen.generation.spec import MAX_COUNT, parse_spec
from llkgen.jobs.make import make_pack, merge_shards
from llkgen.jobs.shards import Shard

from specs import tiny_spec

SPEC = tiny_spec(name="big", seed=2, count=7, export=None)


def spec(tmp: Path, out: str):
    return parse_spec(SPEC, "big.yaml").with_overrides(out=tmp / out)


@pytest.fixture(scope="module")
def single(tmp_path_factory) -> dict:
    """The same pack as one file (under the real limit)."""
    tmp = tmp_path_factory.mktemp("single")
    return json.loads(make_pack(spec(tmp, "big.json"), jobs=1).path.read_text("utf-8"))


@pytest.fixture
def small_files(monkeypatch):
    monkeypatch.setattr(export, "PACK_FILE_MAX", 3)


def _read_dir(path: Path) -> tuple[dict, list[dict]]:
    index = json.loads((path / "index.json").read_text("utf-8"))
    levels = []
    for f in index["files"]:
        lines = (path / f["path"]).read_text("utf-8").splitlines()
        assert len(lines) == f["count"]
        levels += [json.loads(line) for line in lines]
    return index, levels


def test_a_big_pack_is_a_directory_of_the_same_levels(tmp_path, single, small_files):
    result = make_pack(spec(tmp_path, "big.json"), jobs=2)
    assert result.path == tmp_path / "big" and result.path.is_dir()  # named without .json
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big"]  # no journal, no temporary left
    assert sorted(p.name for p in result.path.iterdir()) == [
        "index.json", "levels-00000.jsonl", "levels-00001.jsonl", "levels-00002.jsonl"]
    index, levels = _read_dir(result.path)
    assert list(index) == ["format", "name", "generator", "seed", "count", "files", "ids"]
    assert index["format"] == "llkgen.packdir/1"
    assert {k: index[k] for k in ("name", "generator", "seed")} == {k: single[k] for k in ("name", "generator", "seed")}
    assert index["count"] == 7 and index["ids"] == [f"big-{i}" for i in range(1, 8)]
    assert index["files"] == [{"path": "levels-00000.jsonl", "count": 3, "first": 0},
                              {"path": "levels-00001.jsonl", "count": 3, "first": 3},
                              {"path": "levels-00002.jsonl", "count": 1, "first": 6}]
    assert levels == single["levels"]
    # one compact line per level, exactly the level object
    first = (result.path / "levels-00000.jsonl").read_text("utf-8").splitlines()[0]
    assert first == json.dumps(single["levels"][0], ensure_ascii=False, separators=(",", ":"))


def test_shards_merge_into_the_same_directory(tmp_path, small_files):
    whole = make_pack(spec(tmp_path, "whole.json"), jobs=1).path
    shards = [make_pack(spec(tmp_path, f"s{k}.jsonl"), jobs=1, shard=Shard(k, 2)).path for k in range(2)]
    merged = merge_shards(shards, tmp_path / "merged.json").path
    assert merged == tmp_path / "merged"
    assert sorted(p.name for p in merged.iterdir()) == sorted(p.name for p in whole.iterdir())
    for p in whole.iterdir():
        assert (merged / p.name).read_bytes() == p.read_bytes()


def test_a_resumed_big_pack_and_a_rewrite(tmp_path, small_files):
    first = make_pack(spec(tmp_path, "big.json"), jobs=1, resume=True).path
    before = {p.name: p.read_bytes() for p in first.iterdir()}
    again = make_pack(spec(tmp_path, "big.json"), jobs=1).path  # replaces the earlier pack directory
    assert {p.name: p.read_bytes() for p in again.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["big"]


def test_a_directory_that_is_not_a_pack_is_never_replaced(tmp_path, small_files):
    (tmp_path / "big").mkdir()
    (tmp_path / "big" / "notes.txt").write_text("mine")
    with pytest.raises(OutputError, match=r"big: cannot write: a directory that is not a pack directory"):
        export.check_output(tmp_path / "big.json", 7)
    with pytest.raises(OutputError):
        make_pack(spec(tmp_path, "big.json"), jobs=1)
    assert (tmp_path / "big" / "notes.txt").read_text() == "mine"
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match=r"file: cannot write: exists and is not a directory"):
        export.check_output(tmp_path / "file", 7)


def test_the_count_cap_is_raised():
    assert MAX_COUNT == 1_000_000
    assert parse_spec(SPEC.replace("count: 7", "count: 250000"), "big.yaml").count == 250_000
