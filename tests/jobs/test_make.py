"""Pack export: schema validity, determinism, no timings, atomic writes."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from llkgen import __version__
from llkgen.analysis.ladder import TIERS
from llkgen.errors import GenerationError
from llkgen.formats.level import dumps, pack_to_json
from llkgen.formats.load import load_pack
from llkgen.game.referee import replay
from llkgen.generation.spec import parse_spec
from llkgen.jobs.make import make_pack
from llkgen.jobs.pack import build_pack, generate_pack

from specs import tiny_spec

SPEC = tiny_spec(name="exp", seed=11, count=3, generator=None, difficulty="{playthroughs: 8}", export=None)


def spec(tmp_path: Path, extra: str = "", **over):
    s = parse_spec(SPEC + extra, "exp.yaml")
    return s.with_overrides(out=over.pop("out", tmp_path / "exp.json"), **over)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("pack")
    result = make_pack(spec(tmp), jobs=1)
    return result, json.loads(result.path.read_text("utf-8"))


def test_pack_matches_the_shipped_schema(made, schema_validator):
    _, obj = made
    schema_validator("pack").validate(obj)
    for level in obj["levels"]:
        schema_validator("level").validate(level)


def test_schema_rejects_what_it_should(schema_validator):
    level = {"format": "llkgen.level/1", "rows": 1, "cols": 2, "grid": [[1, 1]],
             "certificate": {"verdict": "solvable", "method": "x", "stats": {"nodes": 1, "time_ms": 3}}}
    v = schema_validator("level")
    assert not v.is_valid(level)  # timings are not allowed in a certificate
    level["certificate"]["stats"] = {"nodes": 1}
    assert v.is_valid(level)
    assert not v.is_valid(level | {"grid": [[1, -2]]})
    assert not v.is_valid(level | {"rules": {"gravity": "sideways"}})
    assert not schema_validator("pack").is_valid({"format": "llkgen.pack/1", "name": "p", "levels": [{"format": "x"}]})


def test_pack_contents(made):
    result, obj = made
    assert list(obj) == ["format", "name", "generator", "seed", "levels"]
    assert obj["format"] == "llkgen.pack/1" and obj["name"] == "exp"
    assert obj["generator"] == f"llkgen {__version__}" and obj["seed"] == 11
    assert [lv["id"] for lv in obj["levels"]] == ["exp-1", "exp-2", "exp-3"]
    for lv, gen in zip(obj["levels"], result.levels):
        assert list(lv) == ["format", "id", "rows", "cols", "grid", "rules", "seed", "metrics",
                            "certificate", "players", "solution"]
        assert list(lv["metrics"])[-3:] == ["difficulty", "difficulty_se", "pairs"]
        assert lv["players"] == gen.players and lv["players"]["tier"] in TIERS
        assert lv["seed"] == gen.seed
        assert lv["certificate"]["verdict"] == "solvable"
        assert lv["certificate"]["method"] == lv["certificate"]["stats"]["stage"] != ""
        assert lv["certificate"]["budget"] == {"nodes": 20000}
    pack = load_pack(result.path)  # the library reads its own output back
    for level in pack.levels:
        assert replay(level.board, level.rules, level.solution).cleared


def test_no_timings_anywhere(made):
    _, obj = made

    def keys(o):
        if isinstance(o, dict):
            for k, v in o.items():
                yield k
                yield from keys(v)
        elif isinstance(o, list):
            for v in o:
                yield from keys(v)

    assert not [k for k in keys(obj) if "time" in k or k.endswith("_ms") or "date" in k]


def test_same_bytes_every_run(made, tmp_path):
    result, _ = made
    again = make_pack(spec(tmp_path), jobs=2)
    assert again.path.read_bytes() == result.path.read_bytes()
    levels = generate_pack(spec(tmp_path), jobs=1)
    assert result.path.read_text("utf-8") == dumps(pack_to_json(build_pack(spec(tmp_path), levels)))


def test_solutions_can_be_left_out(tmp_path, schema_validator):
    result = make_pack(spec(tmp_path, "export: {solutions: false}", count=1), jobs=1)
    obj = json.loads(result.path.read_text("utf-8"))
    assert "solution" not in obj["levels"][0]
    schema_validator("pack").validate(obj)


def test_failure_mid_run_keeps_the_previous_pack(tmp_path, fail_level):
    out = tmp_path / "exp.json"
    make_pack(spec(tmp_path, count=2), jobs=1)
    before = out.read_bytes()
    # A bigger run whose third level fails: nothing may be written.
    fail_level(2)
    with pytest.raises(GenerationError):
        make_pack(spec(tmp_path, count=4), jobs=1)
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exp.json"]


def test_interrupted_write_keeps_the_previous_pack(tmp_path, monkeypatch):
    out = tmp_path / "exp.json"
    make_pack(spec(tmp_path, count=1), jobs=1)
    before = out.read_bytes()

    def crash(src, dst):  # the process dies after the temporary file is written, before rename
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", crash)
    with pytest.raises(KeyboardInterrupt):
        make_pack(spec(tmp_path, count=2), jobs=1)
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["exp.json"]  # no temporary left behind


def test_output_directory_is_created(tmp_path):
    result = make_pack(spec(tmp_path, count=1, out=tmp_path / "a" / "b" / "p.json"), jobs=1)
    assert result.path == tmp_path / "a" / "b" / "p.json" and result.path.exists()
