"""The top-level functions that take user input straight from a program: ``llkgen.verify`` and
``llkgen.generate`` (docs/api.md shows them at work).

Each checks every argument before any work starts and raises :class:`LlkgenError` saying
which argument, what was expected and what was found -- never a ``TypeError`` or
``AttributeError`` from deep inside the library. They then call the library unchanged, so
their results carry the library's guarantees: a ``solvable`` verdict's witness has been
replayed by the referee, and every generated level is certified.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from llkgen.errors import LlkgenError
from llkgen.level import Pack
from llkgen.verify.verdict import Budget, Verdict

__all__ = ["verify", "generate"]


def _kind(x: object) -> str:
    return type(x).__name__


def _check_hint(hint: Any) -> list[tuple[tuple[int, int], tuple[int, int]]] | None:
    """``hint`` as a list of ``((r1, c1), (r2, c2))`` pairs, or None; anything else raises."""
    if hint is None:
        return None
    if not isinstance(hint, (list, tuple)):
        raise LlkgenError(f"hint: expected a list of moves [[r1, c1], [r2, c2]], found {_kind(hint)}")
    out = []
    for i, move in enumerate(hint):
        try:
            (r1, c1), (r2, c2) = move
        except (TypeError, ValueError):
            raise LlkgenError(f"hint[{i}]: expected a move [[r1, c1], [r2, c2]], found {move!r}") from None
        if not all(type(v) is int for v in (r1, c1, r2, c2)):
            raise LlkgenError(f"hint[{i}]: expected integer coordinates, found {move!r}")
        out.append(((r1, c1), (r2, c2)))
    return out


def verify(board: Any, rules: Any = None, budget: Any = None, *, engine: str = "auto",
           hint: Any = None) -> Verdict:
    """:func:`llkgen.verify.verify` with its arguments checked: ``board`` a
    :class:`~llkgen.board.Board` or a list of rows; ``rules`` a :class:`~llkgen.board.Rules`, a
    mapping ``{"border", "gravity"}`` or None (the default rules); ``budget`` a
    :class:`~llkgen.verify.Budget`, a node count or None (``Budget()``, 200,000 nodes);
    ``engine`` one of ``auto``, ``search``, ``cpsat``, ``baseline``; ``hint`` an optional
    removal order tried first. Returns ``solvable`` only with a witness the referee replayed,
    ``unsolvable`` only with a sound proof, otherwise ``unknown``."""
    from llkgen.advice import check_inputs
    from llkgen.verify import ENGINES
    from llkgen.verify import verify as run_verify

    board, rules, budget = check_inputs(board, rules, Budget() if budget is None else budget)
    if not isinstance(engine, str) or engine not in ENGINES:
        raise LlkgenError(f"engine: expected one of {', '.join(ENGINES)}, found {engine!r}")
    return run_verify(board, rules, budget, engine=engine, hint=_check_hint(hint))


def _load(spec: Any) -> Any:
    """``spec`` as a validated :class:`~llkgen.spec.Spec`."""
    from llkgen.spec import Spec, load_spec_ref, parse_spec, spec_from_dict

    if isinstance(spec, Spec):
        return spec
    if isinstance(spec, Mapping):
        return spec_from_dict(dict(spec), "<dict>")
    if isinstance(spec, str) and "\n" in spec:
        return parse_spec(spec, "<string>")
    if isinstance(spec, (str, os.PathLike)):
        return load_spec_ref(spec)
    raise LlkgenError(f"spec: expected a Spec, a mapping, YAML text, a spec file's path or a shipped "
                      f"spec's name, found {_kind(spec)}")


def _check_int(name: str, value: Any, low: int, high: int) -> None:
    if type(value) is not int or not low <= value <= high:
        raise LlkgenError(f"{name}: expected an integer in {low}..{high}, found {value!r}")


def generate(spec: Any, *, count: int | None = None, seed: int | None = None, jobs: int = 1) -> Pack:
    """The certified pack ``spec`` describes, as ``llkgen make`` would write it, but in memory.

    ``spec`` is a :class:`~llkgen.spec.Spec`, a mapping of spec keys, YAML text (a string with
    a line break), or else the path of a YAML spec file or a shipped spec's name (``"easy"``).
    ``count`` and ``seed`` override the spec's. ``jobs`` worker processes make the levels (1:
    in this process); the pack is the same for every value. Each level carries ``seed``,
    ``metrics``, ``certificate`` and, unless the spec's ``export.solutions`` is false,
    ``solution``: the verifier's witness, replayed by the referee. Nothing is written.

    Raises :class:`~llkgen.errors.SpecError` for a bad spec, :class:`LlkgenError` for a bad
    argument, and :class:`~llkgen.errors.GenerationError` when a level cannot be made within
    the spec's ``generator.max_attempts``."""
    from llkgen.export import build_pack
    from llkgen.generate import generate_pack
    from llkgen.spec import MAX_COUNT, MAX_SEED

    loaded = _load(spec)
    if count is not None:
        _check_int("count", count, 1, MAX_COUNT)
    if seed is not None:
        _check_int("seed", seed, 0, MAX_SEED)
    if type(jobs) is not int or jobs < 1:
        raise LlkgenError(f"jobs: expected an integer >= 1, found {jobs!r}")
    loaded = loaded.with_overrides(count=count, seed=seed)
    return build_pack(loaded, generate_pack(loaded, jobs=jobs))
