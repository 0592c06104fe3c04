"""Exports a game client can load: ``export.grid`` (nested|flat) and ``export.layout``
(pack|files), read back by everything llkgen reads, matched by the shipped schemas, and the
loaders of docs/games/ (the blocks marked ``llkgen:``) held to the real exported JSON."""

from __future__ import annotations

import http.server
import json
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

import llkgen.jobs.make as export
from llkgen.errors import LevelFormatError, OutputError, SpecError
from llkgen.formats.container import PackFileError
from llkgen.formats.flat import FLAT_LEVEL_FORMAT
from llkgen.formats.level import Level, dumps, level_from_json, level_to_json
from llkgen.formats.load import load_level_ref, load_levels, load_pack, read_pack_index
from llkgen.formats.shapes import GridShape
from llkgen.game.referee import replay
from llkgen.generation.spec import parse_spec
from llkgen.jobs.make import make_pack, merge_shards
from llkgen.jobs.shards import Shard, spec_sha256

from docs_blocks import marked_block
from specs import tiny_spec
from timing import HANG_SECONDS

SPEC = tiny_spec(name="shp", seed=5, count=3, rules="{border: true, gravity: down}", generator=None,
                 difficulty="{playthroughs: 8}", export=None)

SHAPES = [(g, lay) for g in ("nested", "flat") for lay in ("pack", "files")]


def spec(tmp: Path, grid: str | None = None, layout: str | None = None, out: str = "shp.json", **over):
    keys = [f"grid: {grid}"] * (grid is not None) + [f"layout: {layout}"] * (layout is not None)
    text = SPEC + (f"export: {{{', '.join(keys)}}}\n" if keys else "")
    return parse_spec(text, "shp.yaml").with_overrides(out=tmp / out, **over)


def llkgen(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "llkgen", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=300)


def tree(path: Path) -> dict[str, bytes]:
    """Every file under ``path`` by relative name, with its bytes (a file itself: named "")."""
    if path.is_file():
        return {"": path.read_bytes()}
    return {str(p.relative_to(path)): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict[tuple[str, str], Path]:
    """The same spec made in every grid shape and layout, each in a directory of its own."""
    out = {}
    for grid, layout in SHAPES:
        tmp = tmp_path_factory.mktemp(f"{grid}-{layout}")
        out[grid, layout] = make_pack(spec(tmp, grid, layout), jobs=1).path
    return out


def copy_into(path: Path, folder: Path) -> None:
    """Copy the pack file or directory ``path`` into ``folder`` (made), keeping its name."""
    folder.mkdir(parents=True, exist_ok=True)
    if path.is_dir():
        shutil.copytree(path, folder / path.name)
    else:
        shutil.copy(path, folder / path.name)


def _json_files(path: Path) -> list[tuple[str, object]]:
    return [(name, json.loads(data)) for name, data in tree(path).items()]


def _nested_arrays(obj: object, where: str = "", in_array: bool = False) -> list[str]:
    if isinstance(obj, list):
        here = [where] if in_array else []
        return here + [w for i, v in enumerate(obj) for w in _nested_arrays(v, f"{where}[{i}]", True)]
    if isinstance(obj, dict):
        return [w for k, v in obj.items() for w in _nested_arrays(v, f"{where}.{k}")]
    return []


# -- what is written -------------------------------------------------------------------------------
def test_the_default_is_the_nested_pack_byte_for_byte(tmp_path, made):
    default = make_pack(spec(tmp_path), jobs=1).path
    assert default == tmp_path / "shp.json"
    assert default.read_bytes() == made["nested", "pack"].read_bytes()
    obj = json.loads(default.read_bytes())
    assert {lv["format"] for lv in obj["levels"]} == {"llkgen.level/1"} and "grid" in obj["levels"][0]


def test_where_each_layout_goes(made):
    assert made["nested", "pack"].name == "shp.json" and made["nested", "pack"].is_file()
    for grid in ("nested", "flat"):
        path = made[grid, "files"]
        assert path.name == "shp" and path.is_dir()  # named like the pack, without .json
        assert sorted(tree(path)) == ["index.json", "shp-1.json", "shp-2.json", "shp-3.json"]
        assert not [p for p in path.parent.iterdir() if p != path]  # no temporary left beside it
    assert list(tree(made["nested", "pack"])) == [""]


def test_flat_output_holds_no_array_inside_an_array(made):
    for layout in ("pack", "files"):
        for name, obj in _json_files(made["flat", layout]):
            assert _nested_arrays(obj) == [], name
    # ... while the nested shape does, so the check can fail:
    assert _nested_arrays(json.loads(made["nested", "pack"].read_bytes()))


def test_the_flat_shape(made):
    nested = json.loads(made["nested", "pack"].read_bytes())["levels"][0]
    flat = json.loads(made["flat", "pack"].read_bytes())["levels"][0]
    assert list(flat) == ["format", "id", "rows", "cols", "cells", "rules", "seed", "metrics", "certificate",
                          "players", "solution"]
    assert flat["format"] == FLAT_LEVEL_FORMAT and "grid" not in flat
    cols = flat["cols"]
    assert flat["cells"] == [v for row in nested["grid"] for v in row]
    assert [flat["cells"][r * cols + c] for r in range(flat["rows"]) for c in range(cols)] == flat["cells"]
    pairs = [[[i // cols, i % cols] for i in flat["solution"][k:k + 2]] for k in range(0, len(flat["solution"]), 2)]
    assert pairs == nested["solution"]
    for key in ("id", "rows", "cols", "rules", "seed", "metrics", "certificate"):
        assert flat[key] == nested[key]


def test_the_files_layout(made):
    for grid in ("nested", "flat"):
        path = made[grid, "files"]
        index = json.loads((path / "index.json").read_bytes())
        pack = json.loads(made[grid, "pack"].read_bytes())
        assert index == {"format": "llkgen.pack-files/1", "name": "shp", "generator": pack["generator"],
                         "seed": 5, "count": 3,
                         "levels": [{"id": f"shp-{i}", "file": f"shp-{i}.json"} for i in (1, 2, 3)]}
        for entry, level in zip(index["levels"], pack["levels"]):
            text = (path / entry["file"]).read_text("utf-8")
            assert json.loads(text) == level and text == dumps(level)


def test_every_shape_is_deterministic(tmp_path, made):
    for grid, layout in SHAPES:
        again = make_pack(spec(tmp_path / f"{grid}-{layout}", grid, layout), jobs=2).path
        assert tree(again) == tree(made[grid, layout]), (grid, layout)


def test_a_flat_file_keeps_board_rows_on_lines():
    level = level_from_json({"format": "llkgen.level/1", "id": "w", "rows": 2, "cols": 40,
                             "grid": [[t for t in range(1, 21) for _ in (0, 1)]] * 2, "solution": []})
    text = dumps(level_to_json(level, GridShape.FLAT))
    cells = text[text.index('"cells": [') + len('"cells": ['):text.index("]", text.index('"cells"'))]
    assert [line.strip().rstrip(",") for line in cells.strip().splitlines()] == [
        ", ".join(str(t) for t in range(1, 21) for _ in (0, 1))] * 2


# -- reading back ----------------------------------------------------------------------------------
def test_every_shape_loads_to_the_same_levels(made):
    reference = [lv for _, lv in load_levels(made["nested", "pack"])]
    assert len(reference) == 3 and all(lv.solution for lv in reference)
    for key, path in made.items():
        assert [lv for _, lv in load_levels(path)] == reference, key
        assert load_pack(path).levels == reference, key
        assert load_level_ref(f"{path}#shp-2") == reference[1], key
    for grid in ("nested", "flat"):
        assert load_level_ref(made[grid, "files"] / "shp-3.json") == reference[2]


def test_nested_to_flat_to_level_round_trips(made):
    levels = [lv for _, lv in load_levels(made["nested", "pack"])]
    levels.append(Level(levels[0].board, levels[0].rules))  # no id, no solution
    for lv in levels:
        flat = level_to_json(lv, GridShape.FLAT)
        back = level_from_json(json.loads(dumps(flat)))
        assert (back.board, back.rules, back.id, back.solution) == (lv.board, lv.rules, lv.id, lv.solution)
        assert back == lv
        assert replay(back.board, back.rules, back.solution or []).ok


def test_verify_gates_a_folder_of_every_shape(tmp_path, made):
    for (grid, layout), path in made.items():
        copy_into(path, tmp_path / f"{grid}-{layout}")
    res = llkgen("verify", str(tmp_path), "--json", cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    report = json.loads(res.stdout)
    assert len(report["levels"]) == 12 and {lv["method"] for lv in report["levels"]} == {"replay"}
    # A wrong stored flat solution is a failed check, like a nested one.
    level = tmp_path / "flat-files" / "shp" / "shp-1.json"
    obj = json.loads(level.read_bytes())
    obj["solution"][0:2] = obj["solution"][2:4]
    level.write_text(dumps(obj), "utf-8")
    res = llkgen("verify", str(tmp_path / "flat-files"), cwd=tmp_path)
    assert res.returncode == 1 and "FAILED" in res.stdout and "stored solution fails: move 1" in res.stdout


def test_show_solve_and_view_read_the_files_layout(tmp_path, made):
    path = made["flat", "files"]
    show = llkgen("show", f"{path}#shp-1", cwd=tmp_path)
    assert show.returncode == 0 and show.stdout.startswith("# shp-1: 4x6")
    view = llkgen("view", str(path), "--out", str(tmp_path / "v.html"), cwd=tmp_path)
    assert view.returncode == 0, view.stderr
    assert "shp-3" in (tmp_path / "v.html").read_text("utf-8")


FLAT = {"format": FLAT_LEVEL_FORMAT, "id": "f", "rows": 2, "cols": 3, "cells": [1, 2, 0, 2, -1, 1],
        "rules": {"border": True, "gravity": "none"}, "solution": [0, 5, 1, 3]}


@pytest.mark.parametrize("change, message", [
    ({"cells": [1, 2, 0, 2, -1]}, "level.cells: expected 6 cells (rows 2 x cols 3), found 5"),
    ({"cells": [1, 2, 0, 2, "x", 1]}, "level.cells[4] (row 1 col 1): expected an integer cell value, found string 'x'"),
    ({"cells": [1, 2, 0, 2, -2, 1]}, "level.cells[4] (row 1 col 1): expected -1 (wall), 0 (empty) or a tile type"),
    ({"cells": [[1, 2, 0], [2, -1, 1]]}, "level.cells: expected 6 cells"),
    ({"cells": [1, 2, 0, 2, 0, 0]}, "level.cells: every tile type must occur an even number of times, but type 1"),
    ({"cells": None}, "level.cells: expected a list of rows * cols cell values"),
    ({"solution": [0, 5, 1]}, "level.solution: expected two cell indices per move, found an odd count, 3"),
    ({"solution": [0, 6]}, "level.solution[1]: expected a cell index in 0..5 (row * cols + col), found number 6"),
    ({"solution": [[[0, 0], [1, 2]]]}, "level.solution[0]: expected a cell index in 0..5"),
    ({"grid": [[1, 2, 0], [2, -1, 1]]}, "level.grid: expected no grid in a 'llkgen.level-flat/1' level"),
    ({"rows": 0}, "level.rows: expected a positive integer, found number 0"),
])
def test_a_bad_flat_level_is_named_precisely(change, message):
    with pytest.raises(LevelFormatError) as e:
        level_from_json({**FLAT, **change})
    assert str(e.value).startswith(message)


def test_a_flat_level_missing_its_cells_or_a_nested_one_with_them():
    with pytest.raises(LevelFormatError, match=r"^level: missing field 'cells'$"):
        level_from_json({k: v for k, v in FLAT.items() if k != "cells"})
    with pytest.raises(LevelFormatError, match=r"^level: missing field 'grid' \(a level with 'cells' has format "
                                               r"'llkgen.level-flat/1'\)$"):
        level_from_json({**FLAT, "format": "llkgen.level/1"})


def test_a_level_that_cannot_be_flat_is_refused():
    level = level_from_json({"format": "llkgen.level/1", "id": "h", "rows": 1, "cols": 2, "grid": [[1, 1]],
                             "hints": [[0, 1]]})
    with pytest.raises(LevelFormatError, match=r"^level h\.hints: holds an array inside an array"):
        level_to_json(level, GridShape.FLAT)


def _files_copy(made, tmp_path) -> Path:
    path = tmp_path / "shp"
    shutil.copytree(made["flat", "files"], path)
    return path


def test_a_broken_files_layout_is_named_by_file(made, tmp_path):
    path = _files_copy(made, tmp_path)
    (path / "shp-2.json").unlink()
    with pytest.raises(PackFileError, match=rf"^{path / 'shp-2.json'}: no such file, but index.json lists it$"):
        load_pack(path)
    shutil.copy(path / "shp-1.json", path / "shp-2.json")
    with pytest.raises(PackFileError, match=r"shp-2.json: level.id: index.json lists 'shp-2' for levels\[1\], "
                                            r"found 'shp-1'$"):
        load_levels(path)
    (path / "shp-2.json").write_text('{"format": "llkgen.level-flat/1", "rows": 1, "cols": 2, "cells": [1]}')
    with pytest.raises(PackFileError, match=r"shp-2.json: level.cells: expected 2 cells \(rows 1 x cols 2\), "
                                            r"found 1$"):
        load_levels(path)


def test_a_linked_level_file_is_refused_not_followed(made, tmp_path, monkeypatch, capsys):
    from cli_runner import run_cli_in_process

    path = _files_copy(made, tmp_path)
    # A valid level file outside the directory, linked in: it would certify, but it is not the pack's.
    (path / "shp-2.json").rename(tmp_path / "elsewhere.json")
    (path / "shp-2.json").symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(PackFileError, match=rf"^{path / 'shp-2.json'}: a symbolic link, expected a level file "
                                            rf"listed in index.json$"):
        load_levels(path)
    code, out, _ = run_cli_in_process(["verify", str(path)], monkeypatch, capsys)
    assert code == 1 and f"{path / 'shp-2.json'}: a symbolic link" in out


@pytest.mark.parametrize("change, message", [
    ({"count": 4}, r"levels: expected a list of 4 entries \{id, file\} \(count\), found a list of 3"),
    ({"levels": [{"id": "shp-1", "file": "../shp-1.json"}], "count": 1},
     r"levels\[0\].file: expected a file name ending .json in the directory \(not index.json\), found string"),
    ({"levels": [{"id": "a", "file": "a.json"}, {"id": "b", "file": "a.json"}], "count": 2},
     r"levels\[1\].file: 'a.json' is listed twice \(also levels\[0\]\)"),
    ({"levels": [{"id": 3, "file": "a.json"}], "count": 1}, r"levels\[0\].id: expected a string, found number 3"),
])
def test_a_bad_files_index_is_named(made, tmp_path, change, message):
    path = _files_copy(made, tmp_path)
    index = json.loads((path / "index.json").read_bytes())
    (path / "index.json").write_text(json.dumps({**index, **change}))
    with pytest.raises(PackFileError, match=rf"^{path / 'index.json'}: {message}"):
        read_pack_index(path)


# -- with the other make options ---------------------------------------------------------------------
def test_shape_is_not_part_of_a_packs_identity(tmp_path):
    assert len({spec_sha256(spec(tmp_path, g, lay)) for g, lay in SHAPES}) == 1
    assert spec_sha256(spec(tmp_path, "flat", "files", count=4)) != spec_sha256(spec(tmp_path, "flat", "files"))


def test_shards_merge_to_the_shape_they_were_made_for(tmp_path, made):
    for grid, layout in SHAPES:
        base = spec(tmp_path / f"{grid}-{layout}", grid, layout)
        shards = [make_pack(base.with_overrides(out=tmp_path / f"{grid}-{layout}" / f"s{k}.jsonl"), jobs=1,
                            shard=Shard(k, 2)).path for k in (0, 1)]
        header = json.loads(shards[0].read_text("utf-8").splitlines()[0])
        assert (header["grid"], header["layout"]) == (grid, layout)
        merged = merge_shards(shards, tmp_path / f"{grid}-{layout}" / "m.json").path
        assert tree(merged) == tree(made[grid, layout]), (grid, layout)


def test_shards_of_two_shapes_do_not_merge(tmp_path):
    s0 = make_pack(spec(tmp_path, "flat", out="s0.jsonl"), jobs=1, shard=Shard(0, 2)).path
    s1 = make_pack(spec(tmp_path, "nested", out="s1.jsonl"), jobs=1, shard=Shard(1, 2)).path
    with pytest.raises(LevelFormatError, match=r"s1.jsonl: a shard of another pack: expected grid 'flat' "
                                               r"\(as in .*s0.jsonl\), found grid 'nested'$"):
        merge_shards([s0, s1], tmp_path / "m.json")
    assert not (tmp_path / "m.json").exists()


def test_shards_that_do_not_say_their_shape_merge_nested(tmp_path, made):
    """Shards written before export.grid and export.layout existed have neither in their header."""
    shards = []
    for k in (0, 1):
        path = make_pack(spec(tmp_path, out=f"s{k}.jsonl"), jobs=1, shard=Shard(k, 2)).path
        header, *rest = path.read_text("utf-8").splitlines(keepends=True)
        old = {key: v for key, v in json.loads(header).items() if key not in ("grid", "layout")}
        path.write_text(json.dumps(old, separators=(",", ":")) + "\n" + "".join(rest), "utf-8")
        shards.append(path)
    assert tree(merge_shards(shards, tmp_path / "m.json").path) == tree(made["nested", "pack"])


def test_a_resumed_run_may_change_the_shape(tmp_path, made, monkeypatch):
    import llkgen.generation.generator as generate

    original = generate.generate_level

    def stop_at_2(s, index):
        if index == 2:
            raise KeyboardInterrupt
        return original(s, index)

    monkeypatch.setattr(generate, "generate_level", stop_at_2)
    with pytest.raises(KeyboardInterrupt):
        make_pack(spec(tmp_path, "nested", "pack"), jobs=1, resume=True)
    monkeypatch.setattr(generate, "generate_level", original)
    journal = export.journal_path(export.pack_path(tmp_path / "shp.json", 3, spec(tmp_path, "flat", "files")
                                                   .export.layout))
    (tmp_path / "shp.json.journal").rename(journal)  # the journal of the files layout's directory
    result = make_pack(spec(tmp_path, "flat", "files"), jobs=1, resume=True)
    assert result.resumed == 2 and not journal.exists()
    assert tree(result.path) == tree(made["flat", "files"])


def test_a_big_flat_pack_is_a_directory_of_flat_lines(tmp_path, made, monkeypatch):
    monkeypatch.setattr(export, "PACK_FILE_MAX", 2)
    path = make_pack(spec(tmp_path, "flat", "pack"), jobs=1).path
    assert path == tmp_path / "shp" and (path / "levels-00001.jsonl").exists()
    lines = [json.loads(line) for f in sorted(path.glob("*.jsonl")) for line in f.read_text("utf-8").splitlines()]
    assert [lv["format"] for lv in lines] == [FLAT_LEVEL_FORMAT] * 3 and not _nested_arrays(lines[0])
    assert load_pack(path).levels == load_pack(made["nested", "pack"]).levels


def test_a_files_layout_replaces_only_a_pack(tmp_path, made):
    s = spec(tmp_path, "flat", "files")
    first = tree(make_pack(s, jobs=1).path)
    assert tree(make_pack(s, jobs=1).path) == first  # an old files layout is replaced
    other = tmp_path / "keep"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(OutputError, match=r"keep: cannot write: a directory that is not a pack directory"):
        make_pack(s.with_overrides(out=tmp_path / "keep.json"), jobs=1)
    assert (other / "notes.txt").read_text() == "mine"


def test_the_files_layout_has_a_size_cap(tmp_path):
    with pytest.raises(SpecError, match=r"^shp.yaml:\d+: export.layout: expected at most 100000 levels for "
                                        r"layout files \(one file per level\), found count 200000"):
        parse_spec(SPEC.replace("count: 3", "count: 200000") + "export: {layout: files}\n", "shp.yaml")
    with pytest.raises(SpecError, match=r"^count: expected at most 100000 levels with export.layout files"):
        spec(tmp_path, "flat", "files", count=100_001)
    assert spec(tmp_path, "flat", "pack", count=100_001).count == 100_001


@pytest.fixture(scope="module")
def cli(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("cli")
    for grid, layout in SHAPES:
        (tmp / f"{grid}-{layout}.yaml").write_text(
            SPEC + f"export: {{path: out/{grid}-{layout}.json, grid: {grid}, layout: {layout}}}\n", "utf-8")
    (tmp / "typo.yaml").write_text(SPEC + "export: {grid: flatt}\n", "utf-8")
    (tmp / "key.yaml").write_text(SPEC + "export: {layot: files}\n", "utf-8")
    (tmp / "files.yaml").write_text(SPEC + "export: {layout: files}\n", "utf-8")
    return tmp


def test_make_writes_each_combination_from_the_command_line(cli, made):
    for grid, layout in SHAPES:
        res = llkgen("make", "--config", f"{grid}-{layout}.yaml", "--jobs", "1", cwd=cli)
        assert res.returncode == 0, res.stderr
        out = cli / "out" / (f"{grid}-{layout}.json" if layout == "pack" else f"{grid}-{layout}")
        assert f"to {out.relative_to(cli)} " in res.stdout
        assert tree(out) == tree(made[grid, layout])


@pytest.mark.parametrize("config, args, message", [
    ("typo.yaml", (), 'typo.yaml:9: export.grid: expected one of nested, flat, found "flatt": did you mean "flat"?'),
    ("key.yaml", (), 'key.yaml:9: unknown key "layot" at export.layot: did you mean "layout"?'),
    ("files.yaml", ("--count", "100001"), "--count: expected at most 100000 levels with export.layout files"),
])
def test_make_refuses_bad_export_keys(cli, config, args, message):
    res = llkgen("make", "--config", config, *args, cwd=cli)
    assert res.returncode == 1 and res.stdout == ""
    assert res.stderr.startswith(f"Error: {message}") and "Traceback" not in res.stderr


# -- schemas -------------------------------------------------------------------------------------------
def test_every_shape_matches_the_schemas(made, schema_validator):
    for grid in ("nested", "flat"):
        level_schema = "level" if grid == "nested" else "level-flat"
        pack = json.loads(made[grid, "pack"].read_bytes())
        schema_validator("pack").validate(pack)
        for level in pack["levels"]:
            schema_validator(level_schema).validate(level)
        files = made[grid, "files"]
        schema_validator("pack-files").validate(json.loads((files / "index.json").read_bytes()))
        for name, obj in _json_files(files):
            if name != "index.json":
                schema_validator(level_schema).validate(obj)


def test_the_schemas_tell_the_shapes_apart(made, schema_validator):
    flat = json.loads(made["flat", "pack"].read_bytes())["levels"][0]
    nested = json.loads(made["nested", "pack"].read_bytes())["levels"][0]
    assert not schema_validator("level").is_valid(flat)
    assert not schema_validator("level-flat").is_valid(nested)
    assert not schema_validator("level-flat").is_valid(flat | {"grid": nested["grid"]})
    assert not schema_validator("level-flat").is_valid(flat | {"solution": nested["solution"]})
    assert not schema_validator("level-flat").is_valid(flat | {"hints": [[1, 2]]})
    more = flat | {"metrics": flat["metrics"] | {"fatal_share": 0.25, "difficulty": 41.5}}
    assert schema_validator("level-flat").is_valid(more)  # the metrics to come are plain numbers
    assert not schema_validator("level-flat").is_valid(flat | {"metrics": flat["metrics"] | {"x": "hard"}})
    pack = json.loads(made["flat", "pack"].read_bytes())
    assert not schema_validator("pack").is_valid(pack | {"levels": [flat | {"format": "llkgen.level/1"}]})
    index = json.loads((made["flat", "files"] / "index.json").read_bytes())
    assert not schema_validator("pack-files").is_valid(index | {"levels": [{"id": "a", "file": "../a.json"}]})
    assert not schema_validator("pack-files").is_valid(index | {"levels": [{"id": "a", "file": "index.json"}]})


# -- the loaders of docs/games/ ------------------------------------------------------------------
#: Each language's marked block (tests/docs_blocks.py).
SNIPPETS = {"json": "flat-level", "csharp": "unity-loader", "gdscript": "godot-loader", "javascript": "js-loader"}


def snippet(language: str) -> str:
    return marked_block(SNIPPETS[language], language)


def test_the_docs_flat_level_example_replays():
    level = level_from_json(json.loads(snippet("json")))
    assert level.id == "easy-1" and replay(level.board, level.rules, level.solution).cleared


_CS_TYPES = {"int": int, "long": int, "float": (int, float), "double": (int, float), "bool": bool, "string": str}


def _cs_classes(code: str) -> dict[str, list[tuple[str, str]]]:
    """``{class: [(type, field), ...]}`` for every ``[Serializable]`` class of the C# code."""
    classes = {}
    for m in re.finditer(r"\[Serializable\]\s*public class (\w+)\s*\{", code):
        depth, i = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(code[i], 0)
            i += 1
        body = re.sub(r"//[^\n]*", "", code[m.end():i - 1])
        classes[m.group(1)] = re.findall(r"public ([\w\[\],<>]+) (\w+);", body)
    return classes


def _check_cs(classes: dict, name: str, obj: object, where: str, seen: set) -> None:
    seen.add(name)
    assert isinstance(obj, dict), f"{where}: class {name} wants a JSON object, found {obj!r}"
    for cs_type, field in classes[name]:
        assert field in obj, f"{where}: {name}.{field} has no key in the exported JSON"
        value, at = obj[field], f"{where}.{field}"
        assert "[][]" not in cs_type and "," not in cs_type and "<" not in cs_type, f"{at}: {cs_type}"
        if cs_type.endswith("[]"):
            assert isinstance(value, list) and value, f"{at}: {cs_type} wants a non-empty JSON array"
            items = [(cs_type[:-2], v) for v in value]
        else:
            items = [(cs_type, value)]
        for t, v in items:
            if t in classes:
                _check_cs(classes, t, v, at, seen)
            else:
                assert t in _CS_TYPES and isinstance(v, _CS_TYPES[t]) and not (t != "bool" and isinstance(v, bool)), \
                    f"{at}: C# {t} cannot hold {v!r}"


def test_the_unity_classes_match_the_flat_export(made):
    code = snippet("csharp")
    assert "JsonUtility.FromJson<" in code
    classes = _cs_classes(code)
    pack = json.loads(made["flat", "pack"].read_bytes())
    files = made["flat", "files"]
    index = json.loads((files / "index.json").read_bytes())
    level = json.loads((files / index["levels"][0]["file"]).read_bytes())
    seen: set[str] = set()
    _check_cs(classes, "LevelPack", pack, "pack", seen)
    _check_cs(classes, "LevelIndex", index, "index.json", seen)
    _check_cs(classes, "Level", level, "level file", seen)
    assert seen == set(classes)  # every class declared was checked against real JSON
    with pytest.raises(AssertionError, match=r"Level.cells has no key"):  # the check can fail
        _check_cs(classes, "Level", json.loads(made["nested", "pack"].read_bytes())["levels"][0], "nested", set())


def test_the_godot_loader_uses_keys_the_flat_export_has(made):
    code = snippet("gdscript")
    assert "JSON.parse_string" in code and "index.json" in code
    files = made["flat", "files"]
    index = json.loads((files / "index.json").read_bytes())
    level = json.loads((files / "shp-1.json").read_bytes())
    keys = set(re.findall(r'\["(\w+)"\]', code))
    assert keys == {"levels", "file", "cells", "cols", "solution"}
    known = set(index) | set(index["levels"][0]) | set(level)
    assert keys <= known, keys - known
    assert all(type(v) is int for v in level["cells"] + level["solution"])  # what int() is applied to


def _serve(root: Path):
    handler = type("Quiet", (http.server.SimpleHTTPRequestHandler,), {"log_message": lambda *a: None})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), lambda *a: handler(*a, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_the_javascript_loader_reads_every_shape(made, tmp_path):
    code = snippet("javascript")
    node = shutil.which("node")
    if node is None:  # without node, hold it to the keys and formats it relies on
        assert "llkgen.level-flat/1" in code and "llkgen.pack-files/1" in code and "entry.file" in code
        return
    for (grid, layout), path in made.items():
        copy_into(path, tmp_path / f"{grid}-{layout}")
    server = _serve(tmp_path)
    try:
        port = server.server_address[1]
        urls = {f"{g}-{lay}": f"http://127.0.0.1:{port}/{g}-{lay}/"
                + ("shp.json" if lay == "pack" else "shp/index.json") for g, lay in SHAPES}
        script = tmp_path / "run.mjs"
        script.write_text(code + f"\nconst urls = {json.dumps(urls)};\nconst out = {{}};\n"
                          "for (const [k, u] of Object.entries(urls)) out[k] = await loadLevels(u);\n"
                          "console.log(JSON.stringify(out));\n", "utf-8")
        res = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=HANG_SECONDS)
    finally:
        server.shutdown()
        server.server_close()
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    reference = [lv for _, lv in load_levels(made["nested", "pack"])]
    want = [{"id": lv.id, "rows": lv.board.rows, "cols": lv.board.cols, "rules": lv.rules.to_json(),
             "cells": list(lv.board.cells), "moves": lv.solution} for lv in reference]
    assert got == {k: want for k in urls}
