"""llkgen: generate Lianliankan (Onet / Shisen-Sho) level boards and certify that each can be
cleared.

The library is usable without the CLI; docs/api.md describes it with examples::

    import llkgen

    verdict = llkgen.verify([[1, 2, 0, 2], [-1, 0, 0, 1], [3, 0, 0, 3]])
    pack = llkgen.generate("easy", count=2)         # a shipped spec, a file, a dict or a Spec
    advice = llkgen.hint(pack.levels[0].board, pack.levels[0].rules)

Every function listed in ``__all__`` is :mod:`llkgen.api`'s, which checks its arguments and
raises :class:`LlkgenError` naming the one that is wrong. Every name is loaded on first use
(PEP 562), so ``import llkgen`` stays cheap: the CLI imports this package for every command,
and numpy alone costs ~200 ms.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from llkgen._version import __version__

#: Each top-level name and the module that defines it.
_LAZY = {
    "verify": "llkgen.api",
    "generate": "llkgen.api",
    "hint": "llkgen.api",
    "classify_moves": "llkgen.api",
    "reshuffle": "llkgen.api",
    "replay": "llkgen.api",
    "removable_pairs": "llkgen.api",
    "Board": "llkgen.game.board",
    "Rules": "llkgen.game.board",
    "Gravity": "llkgen.game.board",
    "Move": "llkgen.game.path",
    "ReplayResult": "llkgen.game.referee",
    "Budget": "llkgen.verifier.verdict",
    "Verdict": "llkgen.verifier.verdict",
    "Status": "llkgen.verifier.verdict",
    "Proof": "llkgen.verifier.verdict",
    "Argument": "llkgen.verifier.verdict",
    "Limit": "llkgen.verifier.verdict",
    "Engine": "llkgen.verifier.verdict",
    "MoveLabel": "llkgen.analysis.advice",
    "Label": "llkgen.analysis.advice",
    "Hint": "llkgen.analysis.advice",
    "HintStatus": "llkgen.analysis.advice",
    "Reshuffled": "llkgen.analysis.reshuffle",
    "ReshuffleError": "llkgen.analysis.reshuffle",
    "Level": "llkgen.formats.level",
    "Pack": "llkgen.formats.level",
    "load_level": "llkgen.api",
    "load_pack": "llkgen.api",
    "level_to_json": "llkgen.api",
    "pack_to_json": "llkgen.api",
    "write_json_atomic": "llkgen.api",
    "Spec": "llkgen.generation.spec",
    "load_spec": "llkgen.api",
    "parse_spec": "llkgen.api",
    "LlkgenError": "llkgen.errors",
    "LevelFormatError": "llkgen.errors",
    "SpecError": "llkgen.errors",
    "GenerationError": "llkgen.errors",
    "OutputError": "llkgen.errors",
}

__all__ = [
    "__version__", "verify", "generate", "hint", "classify_moves", "reshuffle", "replay", "removable_pairs",
    "Board", "Rules", "Gravity", "Move", "ReplayResult", "Budget", "Verdict", "Status", "Proof", "Argument",
    "Limit", "Engine", "MoveLabel", "Label", "Hint", "HintStatus", "Reshuffled",
    "Level", "Pack", "load_level", "load_pack", "level_to_json", "pack_to_json", "write_json_atomic",
    "Spec", "load_spec", "parse_spec",
    "LlkgenError", "LevelFormatError", "SpecError", "GenerationError", "OutputError", "ReshuffleError",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'llkgen' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


if TYPE_CHECKING:
    from llkgen.analysis.advice import Hint, HintStatus, Label, MoveLabel
    from llkgen.analysis.reshuffle import Reshuffled, ReshuffleError
    from llkgen.api import (
        classify_moves,
        generate,
        hint,
        level_to_json,
        load_level,
        load_pack,
        load_spec,
        pack_to_json,
        parse_spec,
        removable_pairs,
        replay,
        reshuffle,
        verify,
        write_json_atomic,
    )
    from llkgen.errors import GenerationError, LevelFormatError, LlkgenError, OutputError, SpecError
    from llkgen.formats.level import Level, Pack
    from llkgen.game.board import Board, Gravity, Rules
    from llkgen.game.path import Move
    from llkgen.game.referee import ReplayResult
    from llkgen.generation.spec import Spec
    from llkgen.verifier.verdict import Argument, Budget, Engine, Limit, Proof, Status, Verdict
