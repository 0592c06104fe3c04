"""The top-level functions that take user input straight from a program: ``llkgen.verify`` and
``llkgen.generation.generator`` (docs/api.md shows them at work).

Each checks every argument before any work starts and raises :class:`LlkgenError` saying
which argument, what was expected and what was found -- never a ``TypeError`` or
``AttributeError`` from deep inside the library. They then call the library unchanged, so
their results carry the library's guarantees: a ``solvable`` verdict's witness has been
replayed by the referee, and every generated level is certified.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from llkgen.errors import LlkgenError
from llkgen.formats.level import Pack
from llkgen.game.board import Board, Rules
from llkgen.verifier.verdict import Budget, Verdict

if TYPE_CHECKING:  # annotations only: the advice module loads on first use
    from llkgen.analysis.advice import Hint, MoveLabel, Reshuffled

__all__ = ["verify", "generate", "hint", "classify_moves", "reshuffle", "check_inputs"]


def _kind(x: object) -> str:
    return type(x).__name__


def check_inputs(board: Any, rules: Any, budget: Any, default: Budget | None = None) -> tuple[Board, Rules, Budget]:
    """The arguments of the functions here, validated: ``board`` a :class:`Board` or a list of
    rows; ``rules`` a :class:`Rules`, a mapping ``{"border", "gravity"}`` or ``None``;
    ``budget`` a :class:`Budget`, an int (nodes) or ``None`` (``default``, else ``Budget()``).
    Anything else raises :class:`LlkgenError` saying what was expected."""
    if isinstance(board, list):
        board = Board.from_grid(board, "board")
    elif not isinstance(board, Board):
        raise LlkgenError(f"board: expected a llkgen Board or a list of rows, found {_kind(board)}")
    if rules is None:
        rules = Rules()
    elif isinstance(rules, Mapping):
        unknown = sorted(set(map(str, rules)) - {"border", "gravity"})
        if unknown:
            raise LlkgenError(f"rules: expected the keys border and gravity, found {', '.join(unknown)}")
        rules = Rules(**rules)
    elif not isinstance(rules, Rules):
        raise LlkgenError(f"rules: expected a llkgen Rules or a mapping, found {_kind(rules)}")
    if budget is None:
        budget = Budget() if default is None else default
    elif type(budget) is int:
        budget = Budget(nodes=budget)
    elif not isinstance(budget, Budget):
        raise LlkgenError(f"budget: expected a llkgen Budget or a node count, found {_kind(budget)}")
    if budget.nodes is not None and (type(budget.nodes) is not int or budget.nodes < 1):
        raise LlkgenError(f"budget.nodes: expected an integer >= 1 or None, found {budget.nodes!r}")
    # 0 seconds is a budget like any other, one that runs out at once: the verdict is unknown
    # (as ``llkgen solve --budget 0`` says). ``not >= 0`` also refuses NaN; bools are no numbers.
    seconds = budget.seconds
    if seconds is not None and (not isinstance(seconds, (int, float)) or isinstance(seconds, bool)
                                or not seconds >= 0):
        raise LlkgenError(f"budget.seconds: expected a number >= 0 or None, found {seconds!r}")
    return board, rules, budget


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
    """:func:`llkgen.verifier.verify` with its arguments checked: ``board`` a
    :class:`~llkgen.game.board.Board` or a list of rows; ``rules`` a
    :class:`~llkgen.game.board.Rules`, a mapping ``{"border", "gravity"}`` or None (the
    default rules); ``budget`` a :class:`~llkgen.verifier.Budget`, a node count or None
    (``Budget()``: :data:`~llkgen.verifier.verdict.DEFAULT_NODES` nodes; ``Budget(seconds=S)``:
    S seconds and no node limit);
    ``engine`` one of ``auto``, ``search``, ``cpsat``, ``baseline``; ``hint`` an optional
    removal order tried first. Returns ``solvable`` only with a witness the referee replayed,
    ``unsolvable`` only with a sound proof, otherwise ``unknown``."""
    from llkgen.verifier import ENGINES
    from llkgen.verifier import verify as run_verify

    board, rules, budget = check_inputs(board, rules, budget)
    if not isinstance(engine, str) or engine not in ENGINES:
        raise LlkgenError(f"engine: expected one of {', '.join(ENGINES)}, found {engine!r}")
    return run_verify(board, rules, budget, engine=engine, hint=_check_hint(hint))


def _load(spec: Any) -> Any:
    """``spec`` as a validated :class:`~llkgen.generation.spec.Spec`."""
    from llkgen.generation.spec import Spec, load_spec_ref, parse_spec, spec_from_dict

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

    ``spec`` is a :class:`~llkgen.generation.spec.Spec`, a mapping of spec keys, YAML text (a string with
    a line break), or else the path of a YAML spec file or a shipped spec's name (``"easy"``).
    ``count`` and ``seed`` override the spec's. ``jobs`` worker processes make the levels (1:
    in this process); the pack is the same for every value. Each level carries ``seed``,
    ``metrics``, ``certificate`` and, unless the spec's ``export.solutions`` is false,
    ``solution``: the verifier's witness, replayed by the referee. Nothing is written.

    Raises :class:`~llkgen.errors.SpecError` for a bad spec, :class:`LlkgenError` for a bad
    argument, and :class:`~llkgen.errors.GenerationError` when a level cannot be made within
    the spec's ``generator.max_attempts``."""
    from llkgen.generation.spec import MAX_COUNT, MAX_SEED
    from llkgen.jobs.pack import build_pack, generate_pack

    loaded = _load(spec)
    if count is not None:
        _check_int("count", count, 1, MAX_COUNT)
    if seed is not None:
        _check_int("seed", seed, 0, MAX_SEED)
    if type(jobs) is not int or jobs < 1:
        raise LlkgenError(f"jobs: expected an integer >= 1, found {jobs!r}")
    loaded = loaded.with_overrides(count=count, seed=seed)
    return build_pack(loaded, generate_pack(loaded, jobs=jobs))


def classify_moves(board: Any, rules: Any = None, budget: Any = None) -> list[MoveLabel]:
    """:func:`llkgen.analysis.advice.classify_moves` with its arguments checked as in
    :func:`verify`; ``budget`` defaults to :data:`~llkgen.analysis.advice.ADVICE_BUDGET`, its
    ``nodes`` bound each verification and its ``seconds`` (0 allowed) the whole call. Every pair
    removable now is labelled ``safe`` (with a replayed witness for the board after it),
    ``fatal`` (with a sound proof) or ``unknown``."""
    from llkgen.analysis import advice

    board, rules, budget = check_inputs(board, rules, budget, advice.ADVICE_BUDGET)
    return advice.classify_moves(board, rules, budget)


def hint(board: Any, rules: Any = None, budget: Any = None) -> Hint:
    """:func:`llkgen.analysis.advice.hint` with its arguments checked as in :func:`verify`: a
    :class:`~llkgen.analysis.advice.Hint` whose ``verdict`` is ``solvable`` with a move after
    which the board can still be cleared (and a replayed witness; no move when no tile is left),
    ``unsolvable`` with a proof, or ``unknown`` (``budget.seconds``, 0 allowed, bounds the whole
    call). ``llkgen.outputs.hint_json`` prints it as ``llkgen hint --json`` does."""
    from llkgen.analysis import advice

    board, rules, budget = check_inputs(board, rules, budget, advice.ADVICE_BUDGET)
    return advice.hint(board, rules, budget)


def reshuffle(board: Any, rules: Any = None, seed: int = 0, budget: Any = None,
              attempts: int | None = None) -> Reshuffled:
    """:func:`llkgen.analysis.advice.reshuffle` with its arguments checked: the board's tiles
    rearranged into a certified board, or :class:`~llkgen.analysis.advice.ReshuffleError`
    (exit code 3 when no arrangement can be cleared, 4 when none was found in ``attempts``, or
    before ``budget.seconds``, 0 allowed, ran out: a limit for the whole call)."""
    from llkgen.analysis import advice

    board, rules, budget = check_inputs(board, rules, budget, advice.ADVICE_BUDGET)
    if type(seed) is not int or seed < 0:
        raise LlkgenError(f"seed: expected an integer >= 0, found {seed!r}")
    if attempts is None:
        attempts = advice.RESHUFFLE_ATTEMPTS
    if type(attempts) is not int or attempts < 1:
        raise LlkgenError(f"attempts: expected an integer >= 1, found {attempts!r}")
    return advice.reshuffle(board, rules, seed, budget, attempts)
