"""The JavaScript loader of docs/games/javascript.md, run in ``node`` from file paths.

The block marked ``<!-- llkgen:js-loader -->`` (found by ``docs_blocks``) is written to a ``.mjs``
module with a small driver, and ``node`` loads every shape llkgen writes through it (a pack
file, nested and flat; a ``files`` layout, by its directory and by its index.json; a pack
directory; one level file, through ``loadLevels`` and through ``readLevel``). What node read
must be what :func:`llkgen.formats.load.load_levels` reads. Skipped without ``node``.
(tests/formats/test_export_shapes.py runs the same block against http URLs.)
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from llkgen.formats.load import load_levels, load_pack
from llkgen.formats.packdir import write_pack_dir
from llkgen.generation.spec import parse_spec
from llkgen.jobs.make import make_pack

from docs_blocks import marked_block
from specs import tiny_spec
from timing import HANG_SECONDS

NODE = shutil.which("node")

pytestmark = pytest.mark.skipif(NODE is None, reason="node is not installed")

# Prints, as JSON, what loadLevels reads from argv[2] and, with "--level", what readLevel
# makes of that one level file.
DRIVER = """
import { readFile } from "node:fs/promises";
const [where, mode] = process.argv.slice(2);
const out = { levels: await loadLevels(where) };
if (mode === "--level") out.level = readLevel(JSON.parse(await readFile(where, "utf8")));
console.log(JSON.stringify(out));
"""


def readme_js() -> str:
    """The ```javascript block marked llkgen:js-loader."""
    code = marked_block("js-loader", "javascript")
    assert "function readLevel(" in code and "function loadLevels(" in code
    return code


def spec_text(grid: str, layout: str) -> str:
    return tiny_spec(name="js", seed=11, count=3, rules="{border: true, gravity: down}",
                     export=f"{{grid: {grid}, layout: {layout}}}")


@pytest.fixture(scope="module")
def packs(tmp_path_factory) -> dict[str, Path]:
    """Every shape, made by llkgen, under a directory whose name holds a space and a '#'."""
    root = tmp_path_factory.mktemp("js") / "my levels #1"
    made = {}
    for grid in ("nested", "flat"):
        for layout in ("pack", "files"):
            out = root / f"{grid}-{layout}" / "js.json"
            spec = parse_spec(spec_text(grid, layout), "js.yaml").with_overrides(out=out)
            made[f"{grid}-{layout}"] = make_pack(spec, jobs=1).path
    # A pack directory (what layout: pack writes past 10,000 levels), from the same levels, two parts.
    pack = json.loads(made["nested-pack"].read_bytes())
    header = {k: v for k, v in pack.items() if k != "levels"}
    made["packdir"] = write_pack_dir(root / "packdir" / "js", header, pack["levels"], per_file=2)
    return made


@pytest.fixture(scope="module")
def script(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("driver") / "driver.mjs"
    path.write_text(readme_js() + "\n" + DRIVER, "utf-8")
    return path


def run(script: Path, *args: str | Path, cwd: Path | None = None) -> dict:
    assert NODE is not None
    res = subprocess.run([NODE, str(script), *map(str, args)], capture_output=True, text=True, timeout=HANG_SECONDS,
                         cwd=cwd)
    assert res.returncode == 0, res.stderr
    return json.loads(res.stdout)


def python_view(path: Path) -> list[dict]:
    """What readLevel should give for each level llkgen reads at ``path``."""
    return [json.loads(json.dumps({"id": lv.id, "rows": lv.board.rows, "cols": lv.board.cols,
                                   "rules": lv.rules.to_json(), "cells": list(lv.board.cells),
                                   "moves": lv.solution}))
            for _, lv in load_levels(path)]


def test_the_readme_block_is_found_and_the_packs_are_real(packs):
    code = readme_js()
    assert "node:fs/promises" in code and "fetch(" in code
    reference = python_view(packs["nested-pack"])
    assert [lv["id"] for lv in reference] == ["js-1", "js-2", "js-3"]
    assert all(lv["moves"] for lv in reference)
    assert json.loads((packs["flat-files"] / "index.json").read_bytes())["format"] == "llkgen.pack-files/1"
    assert json.loads((packs["packdir"] / "index.json").read_bytes())["format"] == "llkgen.packdir/1"
    assert len(load_pack(packs["packdir"]).levels) == 3


@pytest.mark.parametrize("shape, where", [
    ("nested-pack", ""), ("flat-pack", ""),
    ("nested-files", ""), ("flat-files", ""), ("flat-files", "index.json"),
    ("packdir", ""), ("packdir", "index.json"),
])
def test_load_levels_reads_a_file_path(script, packs, shape, where):
    path = packs[shape] / where if where else packs[shape]
    got = run(script, path)
    assert got["levels"] == python_view(packs[shape]), shape
    assert got["levels"] == python_view(packs["nested-pack"])  # every shape: the same levels


@pytest.mark.parametrize("grid", ["nested", "flat"])
def test_a_single_level_file_through_both_functions(script, packs, grid):
    level = packs[f"{grid}-files"] / "js-2.json"
    got = run(script, level, "--level")
    want = python_view(level)
    assert len(want) == 1 and want[0]["id"] == "js-2"
    assert got == {"levels": want, "level": want[0]}


def test_a_relative_path_and_a_file_url(script, packs):
    pack = packs["flat-files"]
    assert run(script, pack.name, cwd=pack.parent)["levels"] == python_view(pack)
    assert run(script, (pack / "index.json").as_uri())["levels"] == python_view(pack)


def test_a_missing_file_is_an_error_naming_it(script, tmp_path):
    assert NODE is not None
    missing = tmp_path / "nope.json"
    res = subprocess.run([NODE, str(script), str(missing)], capture_output=True, text=True, timeout=HANG_SECONDS)
    assert res.returncode != 0 and "ENOENT" in res.stderr and str(missing) in res.stderr
