"""Pack export: certified levels to a deterministic ``llkgen.pack/1`` file.

The bytes written depend only on the spec (after command-line overrides) and llkgen's version:
no timestamps, no timings, no host names, keys in a fixed order, and levels in index order
whatever the number of worker processes. The file is written atomically (a temporary file
beside it, fsynced, then renamed), so an interrupted run leaves the previous pack untouched.

Each level carries ``seed`` (its own, see :func:`llkgen.generate.level_seed`), ``metrics``,
``certificate`` ``{verdict, method, budget, stats}`` and, unless ``export.solutions`` is false,
``solution`` (the verifier's witness, replayed by the referee).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Callable

from llkgen import __version__
from llkgen.generate import GeneratedLevel, generate_pack
from llkgen.level import Level, Pack, pack_to_json, write_json_atomic
from llkgen.spec import Spec

SCHEMAS = ("level", "pack")


def level_id(spec: Spec, index: int) -> str:
    """``<name>-<index + 1>``; unpadded, so ids never change when the pack grows."""
    return f"{spec.name}-{index + 1}"


def build_pack(spec: Spec, levels: list[GeneratedLevel]) -> Pack:
    """The pack object for generated ``levels`` (in index order)."""
    out = []
    for lv in levels:
        extra: dict = {"seed": lv.seed, "metrics": dict(lv.metrics), "certificate": lv.certificate}
        if spec.export.solutions:
            extra["solution"] = lv.solution
        out.append(Level(lv.board, lv.rules, level_id(spec, lv.index), extra))
    return Pack(spec.name, out, {"generator": f"llkgen {__version__}", "seed": spec.seed})


@dataclass(frozen=True)
class MakeResult:
    path: Path
    levels: list[GeneratedLevel]


def make_pack(spec: Spec, jobs: int = 1,
              on_level: Callable[[GeneratedLevel], None] | None = None) -> MakeResult:
    """Generate every level of ``spec`` and write the pack to ``spec.export.path``.

    Nothing is written unless every level was generated and certified; a failure raises
    :class:`~llkgen.errors.GenerationError` and leaves any previous pack as it was."""
    levels = generate_pack(spec, jobs=jobs, on_level=on_level)
    path = write_json_atomic(spec.export.path, pack_to_json(build_pack(spec, levels)))
    return MakeResult(path, levels)


def load_schema(name: str) -> dict:
    """The shipped JSON Schema ``"level"`` or ``"pack"`` (``llkgen/schemas/<name>.schema.json``).
    The pack schema refers to the level schema by its ``$id``."""
    if name not in SCHEMAS:
        raise ValueError(f"schema: expected one of {', '.join(SCHEMAS)}, found {name!r}")
    text = resources.files("llkgen").joinpath("schemas", f"{name}.schema.json").read_text("utf-8")
    return json.loads(text)
