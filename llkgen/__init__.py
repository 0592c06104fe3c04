"""llkgen: generate Lianliankan (Onet / Shisen-Sho) level boards and certify that each can be
cleared.

The library is usable without the CLI; docs/api.md describes it with examples::

    import llkgen

    verdict = llkgen.verify([[1, 2, 0, 2], [-1, 0, 0, 1], [3, 0, 0, 3]])
    pack = llkgen.generate("easy", count=2)         # a shipped spec, a file, a dict or a Spec
    advice = llkgen.hint(pack.levels[0].board, pack.levels[0].rules)

Every name listed in ``__all__`` is loaded on first use (PEP 562), so ``import llkgen`` stays
cheap: the CLI imports this package for every command, and numpy alone costs ~200 ms.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

#: Each top-level name and the module that defines it. ``verify`` and ``generate`` are modules
#: that can be called (see :mod:`llkgen.callable_modules` for why): the name gives the module.
_LAZY = {
    "verify": "llkgen.verify",
    "generate": "llkgen.generate",
    "hint": "llkgen.advice",
    "classify_moves": "llkgen.advice",
    "reshuffle": "llkgen.advice",
    "replay": "llkgen.referee",
    "removable_pairs": "llkgen.path",
    "Board": "llkgen.board",
    "Rules": "llkgen.board",
    "Gravity": "llkgen.board",
    "Move": "llkgen.path",
    "ReplayResult": "llkgen.referee",
    "Budget": "llkgen.verify.verdict",
    "Verdict": "llkgen.verify.verdict",
    "MoveLabel": "llkgen.advice",
    "Hint": "llkgen.advice",
    "Reshuffled": "llkgen.advice",
    "Level": "llkgen.level",
    "Pack": "llkgen.level",
    "load_level": "llkgen.level",
    "load_pack": "llkgen.level",
    "level_to_json": "llkgen.level",
    "pack_to_json": "llkgen.level",
    "write_json_atomic": "llkgen.level",
    "Spec": "llkgen.spec",
    "load_spec": "llkgen.spec",
    "parse_spec": "llkgen.spec",
    "LlkgenError": "llkgen.errors",
    "LevelFormatError": "llkgen.errors",
    "SpecError": "llkgen.errors",
    "GenerationError": "llkgen.errors",
    "OutputError": "llkgen.errors",
    "ReshuffleError": "llkgen.advice",
}

__all__ = [
    "__version__", "verify", "generate", "hint", "classify_moves", "reshuffle", "replay", "removable_pairs",
    "Board", "Rules", "Gravity", "Move", "ReplayResult", "Budget", "Verdict", "MoveLabel", "Hint", "Reshuffled",
    "Level", "Pack", "load_level", "load_pack", "level_to_json", "pack_to_json", "write_json_atomic",
    "Spec", "load_spec", "parse_spec",
    "LlkgenError", "LevelFormatError", "SpecError", "GenerationError", "OutputError", "ReshuffleError",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'llkgen' has no attribute {name!r}")
    if module == f"{__name__}.{name}":
        # Importing the submodule binds it here (the import system's setattr on the package).
        return importlib.import_module(module)
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


if TYPE_CHECKING:
    # For type checkers, llkgen.verify and llkgen.generate are the functions their modules'
    # calls run (llkgen.api); the modules' contents are imported from them by name.
    from llkgen.advice import Hint, MoveLabel, Reshuffled, ReshuffleError, classify_moves, hint, reshuffle
    from llkgen.api import generate, verify
    from llkgen.board import Board, Gravity, Rules
    from llkgen.errors import GenerationError, LevelFormatError, LlkgenError, OutputError, SpecError
    from llkgen.level import Level, Pack, level_to_json, load_level, load_pack, pack_to_json, write_json_atomic
    from llkgen.path import Move, removable_pairs
    from llkgen.referee import ReplayResult, replay
    from llkgen.spec import Spec, load_spec, parse_spec
    from llkgen.verify.verdict import Budget, Verdict
