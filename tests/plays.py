"""Play data for the calibration tests: a tiny graded pack and plays drawn from a known rule.

``calibration_fixture(d)`` makes ``d/cal.json`` (24 levels of the tiny spec on an 8x10 board of
20 types, :data:`BOARD` and :data:`TILES`, graded: their random clear rates spread from about
0.2 to 1) and writes ``d/plays.csv``: per level 60 to 200 attempts, cleared ``Binomial`` from
``0.1 + 0.8 x`` the level's stored ``random`` clear rate, with a fixed seed.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from llkgen.generation.spec import parse_spec
from llkgen.jobs.make import make_pack

from specs import tiny_spec

LEVELS = 24
BOARD = "{rows: 8, cols: 10}"
TILES = "{types: 20, copies: 4}"


def simulated_plays(pack: Path, out: Path, seed: int = 2031) -> Path:
    """Write ``out``: per level of ``pack``, 60 to 200 attempts cleared ``Binomial`` from ``0.1 +
    0.8 x`` its stored ``random`` clear rate (levels named by id, as ``verify`` labels them
    after the ``#``)."""
    rng = np.random.default_rng(seed)
    rows = ["level,attempts,clears,seconds"]
    for lv in json.loads(Path(pack).read_text("utf-8"))["levels"]:
        n = int(rng.integers(60, 200))
        p = 0.1 + 0.8 * lv["players"]["clear_rates"]["random"]["rate"]
        rows.append(f"{Path(pack).name}#{lv['id']},{n},{rng.binomial(n, p)},{n * 20}")
    out.write_text("\n".join(rows) + "\n", "utf-8")
    return out


def calibration_fixture(d: Path) -> tuple[Path, Path]:
    text = tiny_spec(name="cal", count=LEVELS, board=BOARD, tiles=TILES, difficulty="{playthroughs: 8}")
    spec = parse_spec(text, "cal.yaml")
    pack = make_pack(spec.with_overrides(out=d / "cal.json"), jobs=1).path
    return Path(pack), simulated_plays(Path(pack), d / "plays.csv")
