"""Levels and packs written to disk for the tests of ``llkgen verify`` (:mod:`llkgen.jobs.check`
and its reports): one level that replays, one the lock test proves unsolvable, one no search
decides within its one-node budget, and the writers that put them in files and pack directories."""

from __future__ import annotations

import json
from pathlib import Path

from llkgen.formats.level import level_from_json
from llkgen.formats.packdir import write_pack_dir

GOOD = {"format": "llkgen.level/1", "id": "good", "rows": 3, "cols": 4,
        "grid": [[1, 2, 0, 2], [-1, 0, 0, 1], [3, 0, 0, 3]], "rules": {"border": True, "gravity": "none"},
        "solution": [[[0, 1], [0, 3]], [[0, 0], [1, 3]], [[2, 0], [2, 3]]]}
# Locked without a border: the lock test proves it unsolvable.
UNSOLVABLE = {"format": "llkgen.level/1", "id": "locked", "rows": 2, "cols": 2,
              "grid": [[1, 2], [2, 1]], "rules": {"border": False, "gravity": "none"}}
# Solvable, but not within a one-node budget.
HARD_GRID = [[2, 9, 8, 1, 1, 6], [7, 6, 3, 1, 1, 5], [8, 3, 3, 2, 9, 5],
             [3, 5, 6, 4, 9, 4], [2, 2, 5, 7, 4, 7], [7, 6, 8, 9, 4, 8]]
HARD = {"format": "llkgen.level/1", "id": "hard", "rows": 6, "cols": 6, "grid": HARD_GRID,
        "rules": {"border": False, "gravity": "none"}, "certificate": {"budget": {"nodes": 1}}}


def write(path: Path, obj) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(obj if isinstance(obj, str) else json.dumps(obj), "utf-8")
    return path


def pack(*levels) -> dict:
    return {"format": "llkgen.pack/1", "name": "p", "levels": list(levels)}


def write_pack_dir_of(path: Path, *levels) -> Path:
    return write_pack_dir(path, {"name": "p"}, (level_from_json(lv) for lv in levels), per_file=2)
