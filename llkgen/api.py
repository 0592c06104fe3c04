"""The library's front door: every function ``llkgen`` exports (``llkgen.__all__``), with its
arguments checked (docs/api.md shows them at work).

Each checks every argument before any work starts and raises :class:`LlkgenError` saying
which argument, what was expected and what was found -- never a ``TypeError`` or
``AttributeError`` from deep inside the library, which trusts its arguments. They then call the
library unchanged, so their results carry the library's guarantees: a ``solvable`` verdict's
witness has been replayed by the referee, and every generated level is certified.
``tests/api/test_api_edge.py`` calls each with wrong-typed arguments and holds it to this.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias, cast

from llkgen.errors import LlkgenError
from llkgen.files import write_text_atomic
from llkgen.formats import level as level_format
from llkgen.formats.level import Level, Pack
from llkgen.formats.load import load_pack as load_pack_file
from llkgen.formats.shapes import GridShape
from llkgen.game.board import Board, Gravity, Rules
from llkgen.game.path import Move
from llkgen.game.path import removable_pairs as pairs_now
from llkgen.game.referee import ReplayResult
from llkgen.game.referee import replay as referee_replay
from llkgen.verifier.verdict import MAX_BUDGET_SECONDS, Budget, Engine, Verdict

if TYPE_CHECKING:  # annotations only: the advice and generation modules load on first use
    from llkgen.analysis.advice import Hint, MoveLabel
    from llkgen.analysis.reshuffle import Reshuffled
    from llkgen.generation.spec import Spec

__all__ = ["verify", "generate", "hint", "classify_moves", "reshuffle", "replay", "removable_pairs",
           "load_level", "load_pack", "level_to_json", "pack_to_json", "write_json_atomic", "load_spec",
           "parse_spec", "check_inputs", "check_board", "check_rules", "check_budget"]

#: A board: a :class:`Board`, or its rows of cell values (a list or tuple of lists or tuples).
BoardLike: TypeAlias = "Board | Sequence[Sequence[int]]"
#: Rules: a :class:`Rules`, a mapping ``{"border", "gravity"}``, or None for the default rules.
RulesLike: TypeAlias = "Rules | Mapping[str, object] | None"
#: A budget: a :class:`Budget`, a node count, or None for the function's default.
BudgetLike: TypeAlias = "Budget | int | None"
#: A move: two cells ``[[r1, c1], [r2, c2]]``.
MoveLike: TypeAlias = "Sequence[Sequence[int]]"
#: A file's path.
PathLike: TypeAlias = "str | os.PathLike[str]"


def _kind(x: object) -> str:
    return type(x).__name__


# -- the checks --------------------------------------------------------------------------------
def check_board(board: BoardLike, name: str = "board") -> Board:
    """``board`` as a :class:`Board`: a board, or a list (or tuple) of rows of ints, checked
    cell by cell (:meth:`Board.from_grid`: the message names the row and column)."""
    if isinstance(board, Board):
        return board
    if isinstance(board, (list, tuple)):
        rows = [list(row) if isinstance(row, tuple) else row for row in board]
        return Board.from_grid(rows, name)
    raise LlkgenError(f"{name}: expected a llkgen Board or a list of rows, found {_kind(board)}")


def check_rules(rules: RulesLike) -> Rules:
    """``rules`` as a :class:`Rules`: rules, a mapping with the keys ``border`` and ``gravity``
    (either may be left out), or None (the default rules)."""
    if rules is None:
        return Rules()
    if isinstance(rules, Rules):
        return rules
    if isinstance(rules, Mapping):
        unknown = sorted(set(map(str, rules)) - {"border", "gravity"})
        if unknown:
            raise LlkgenError(f"rules: expected the keys border and gravity, found {', '.join(unknown)}")
        # Rules checks both values as it does a level file's, and raises LevelFormatError
        # naming rules.border or rules.gravity: the casts only say what it will check.
        return Rules(cast(bool, rules.get("border", True)), cast(Gravity, rules.get("gravity", Gravity.NONE)))
    raise LlkgenError(f"rules: expected a llkgen Rules or a mapping, found {_kind(rules)}")


def check_budget(budget: BudgetLike, default: Budget | None = None) -> Budget:
    """``budget`` as a :class:`Budget`: a budget, a node count, or None (``default``, else
    ``Budget()``). Nodes must be at least 1; seconds from 0 to :data:`MAX_BUDGET_SECONDS`,
    the limit ``--budget`` has on the command line."""
    if budget is None:
        budget = Budget() if default is None else default
    elif type(budget) is int:
        budget = Budget(nodes=budget)
    elif not isinstance(budget, Budget):
        raise LlkgenError(f"budget: expected a llkgen Budget or a node count, found {_kind(budget)}")
    if budget.nodes is not None and (type(budget.nodes) is not int or budget.nodes < 1):
        raise LlkgenError(f"budget.nodes: expected an integer >= 1 or None, found {budget.nodes!r}")
    # 0 seconds is a budget like any other, one that runs out at once: the verdict is unknown
    # (as ``llkgen solve --budget 0`` says). ``not 0 <= s`` also refuses NaN; bools are no numbers.
    seconds = budget.seconds
    if seconds is not None and (not isinstance(seconds, (int, float)) or isinstance(seconds, bool)
                                or not 0 <= seconds <= MAX_BUDGET_SECONDS):
        raise LlkgenError(f"budget.seconds: expected a number from 0 to {MAX_BUDGET_SECONDS:,} or None, "
                          f"found {seconds!r}")
    return budget


def check_inputs(board: BoardLike, rules: RulesLike, budget: BudgetLike,
                 default: Budget | None = None) -> tuple[Board, Rules, Budget]:
    """The three arguments of the functions that answer about a board, each checked as
    :func:`check_board`, :func:`check_rules` and :func:`check_budget` do."""
    return check_board(board), check_rules(rules), check_budget(budget, default)


def _check_moves(name: str, moves: object) -> list[object]:
    """``moves`` as a list: any iterable of moves but a string, bytes or a mapping. Each move
    is left to the referee, which judges a malformed one like an illegal one."""
    if isinstance(moves, (str, bytes, bytearray, Mapping)) or not isinstance(moves, Iterable):
        raise LlkgenError(f"{name}: expected a list of moves [[r1, c1], [r2, c2]], found {_kind(moves)}")
    return list(moves)


def _check_hint(hint: Iterable[MoveLike] | None) -> list[tuple[tuple[int, int], tuple[int, int]]] | None:
    """``hint`` as a list of ``((r1, c1), (r2, c2))`` pairs, or None; anything else raises."""
    if hint is None:
        return None
    out = []
    for i, move in enumerate(_check_moves("hint", hint)):
        cells = list(move) if isinstance(move, (list, tuple)) else []
        if len(cells) != 2 or not all(isinstance(c, (list, tuple)) and len(c) == 2 for c in cells):
            raise LlkgenError(f"hint[{i}]: expected a move [[r1, c1], [r2, c2]], found {move!r}")
        (r1, c1), (r2, c2) = cells
        if not all(type(v) is int for v in (r1, c1, r2, c2)):
            raise LlkgenError(f"hint[{i}]: expected integer coordinates, found {move!r}")
        out.append(((r1, c1), (r2, c2)))
    return out


def _check_int(name: str, value: object, low: int, high: int | None = None) -> int:
    if type(value) is not int or value < low or (high is not None and value > high):
        expected = f"an integer >= {low}" if high is None else f"an integer in {low}..{high}"
        raise LlkgenError(f"{name}: expected {expected}, found {value!r}")
    return value


def _check_path(name: str, path: PathLike) -> str:
    """``path`` as a string: a ``str`` or an ``os.PathLike`` naming one, without a NUL."""
    text = os.fspath(path) if isinstance(path, os.PathLike) else path
    if not isinstance(text, str):
        raise LlkgenError(f"{name}: expected a file's path (a str or os.PathLike), found {_kind(path)}")
    if "\0" in text:
        raise LlkgenError(f"{name}: expected a file's path, found one with a NUL character: {text!r}")
    return text


def _check_grid(grid: GridShape | str) -> GridShape:
    if not isinstance(grid, str) or grid not in tuple(GridShape):
        raise LlkgenError(f"grid: expected one of {', '.join(GridShape)}, found {grid!r}")
    return GridShape(grid)


def _check_level(level: Level, name: str = "level") -> Level:
    """``level`` a :class:`Level` whose fields hold what a level holds."""
    if not isinstance(level, Level):
        raise LlkgenError(f"{name}: expected a llkgen Level, found {_kind(level)}")
    fields = (("board", level.board, Board), ("rules", level.rules, Rules), ("extra", level.extra, dict))
    for key, value, kind in fields:
        if not isinstance(value, kind):
            raise LlkgenError(f"{name}.{key}: expected a {kind.__name__}, found {_kind(value)}")
    if level.id is not None and not isinstance(level.id, str):
        raise LlkgenError(f"{name}.id: expected a str or None, found {_kind(level.id)}")
    return level


# -- the verifier and the advice ---------------------------------------------------------------
def verify(board: BoardLike, rules: RulesLike = None, budget: BudgetLike = None, *,
           engine: Engine | str = Engine.AUTO, hint: Iterable[MoveLike] | None = None) -> Verdict:
    """:func:`llkgen.verifier.verify` with its arguments checked: ``board`` a
    :class:`~llkgen.game.board.Board` or a list of rows; ``rules`` a
    :class:`~llkgen.game.board.Rules`, a mapping ``{"border", "gravity"}`` or None (the
    default rules); ``budget`` a :class:`~llkgen.verifier.Budget`, a node count or None
    (``Budget()``: :data:`~llkgen.verifier.verdict.DEFAULT_NODES` nodes; ``Budget(seconds=S)``:
    S seconds and no node limit);
    ``engine`` an :class:`~llkgen.verifier.verdict.Engine` or its value: ``auto``, ``search``,
    ``cpsat``, ``baseline``; ``hint`` an optional removal order tried first. Returns
    ``solvable`` only with a witness the referee replayed, ``unsolvable`` only with a sound
    proof, otherwise ``unknown``."""
    from llkgen.verifier import verify as run_verify

    checked = check_inputs(board, rules, budget)
    if not isinstance(engine, str) or engine not in tuple(Engine):
        raise LlkgenError(f"engine: expected one of {', '.join(Engine)}, found {engine!r}")
    return run_verify(*checked, engine=Engine(engine), hint=_check_hint(hint))


def classify_moves(board: BoardLike, rules: RulesLike = None, budget: BudgetLike = None) -> list[MoveLabel]:
    """:func:`llkgen.analysis.advice.classify_moves` with its arguments checked as in
    :func:`verify`; ``budget`` defaults to :data:`~llkgen.analysis.advice.ADVICE_BUDGET`, its
    ``nodes`` bound each verification and its ``seconds`` (0 allowed) the whole call. Every pair
    removable now is labelled ``safe`` (with a replayed witness for the board after it),
    ``fatal`` (with a sound proof) or ``unknown``."""
    from llkgen.analysis import advice

    return advice.classify_moves(*check_inputs(board, rules, budget, advice.ADVICE_BUDGET))


def hint(board: BoardLike, rules: RulesLike = None, budget: BudgetLike = None) -> Hint:
    """:func:`llkgen.analysis.advice.hint` with its arguments checked as in :func:`verify`: a
    :class:`~llkgen.analysis.advice.Hint` whose ``verdict`` is ``solvable`` with a move after
    which the board can still be cleared (and a replayed witness; no move when no tile is left),
    ``unsolvable`` with a proof, or ``unknown`` (``budget.seconds``, 0 allowed, bounds the whole
    call). ``llkgen.outputs.hint_json`` prints it as ``llkgen hint --json`` does."""
    from llkgen.analysis import advice

    return advice.hint(*check_inputs(board, rules, budget, advice.ADVICE_BUDGET))


def reshuffle(board: BoardLike, rules: RulesLike = None, seed: int = 0, budget: BudgetLike = None,
              attempts: int | None = None) -> Reshuffled:
    """:func:`llkgen.analysis.reshuffle.reshuffle` with its arguments checked: the board's tiles
    rearranged into a certified board, or :class:`~llkgen.analysis.reshuffle.ReshuffleError`
    (exit code 3 when no arrangement can be cleared, 4 when none was found in ``attempts``, or
    before ``budget.seconds``, 0 allowed, ran out: a limit for the whole call)."""
    from llkgen.analysis import advice
    from llkgen.analysis import reshuffle as shuffler

    board_, rules_, budget_ = check_inputs(board, rules, budget, advice.ADVICE_BUDGET)
    seed = _check_int("seed", seed, 0)
    attempts = _check_int("attempts", shuffler.RESHUFFLE_ATTEMPTS if attempts is None else attempts, 1)
    return shuffler.reshuffle(board_, rules_, seed, budget_, attempts)


# -- the game ----------------------------------------------------------------------------------
def replay(board: BoardLike, rules: RulesLike, moves: Iterable[MoveLike]) -> ReplayResult:
    """:func:`llkgen.game.referee.replay` with its arguments checked: ``board`` and ``rules`` as
    in :func:`verify`, ``moves`` a list of moves ``[[r1, c1], [r2, c2]]``. The referee applies
    them one at a time and stops at the first bad one: a malformed or illegal move is its
    verdict (``ok`` false, ``error_index`` and ``reason``), not an exception."""
    board_, rules_ = check_board(board), check_rules(rules)
    # Only the list is checked: the referee judges each move, a malformed one too.
    return referee_replay(board_, rules_, cast("list[MoveLike]", _check_moves("moves", moves)))


def removable_pairs(board: BoardLike, rules: RulesLike = None) -> list[Move]:
    """:func:`llkgen.game.path.removable_pairs` with its arguments checked as in
    :func:`verify`: every pair removable right now, each with its drawn path, sorted by
    ``(a, b)`` in row-major order with ``a < b``."""
    return pairs_now(check_board(board), check_rules(rules))


# -- files -------------------------------------------------------------------------------------
def load_level(path: PathLike) -> Level:
    """:func:`llkgen.formats.level.load_level`: the level file at ``path`` (a ``str`` or an
    ``os.PathLike``); :class:`~llkgen.errors.LevelFormatError` names the file and what is wrong."""
    return level_format.load_level(_check_path("path", path))


def load_pack(path: PathLike) -> Pack:
    """:func:`llkgen.formats.load.load_pack`: the pack file or pack directory at ``path``."""
    return load_pack_file(_check_path("path", path))


def level_to_json(level: Level, grid: GridShape | str = GridShape.NESTED) -> dict[str, object]:
    """:func:`llkgen.formats.level.level_to_json` with its arguments checked: the level object
    of ``level``, nested (``llkgen.level/1``) or, with ``grid`` ``"flat"``, ``llkgen.level-flat/1``."""
    return level_format.level_to_json(_check_level(level), _check_grid(grid))


def pack_to_json(pack: Pack, grid: GridShape | str = GridShape.NESTED) -> dict[str, object]:
    """:func:`llkgen.formats.level.pack_to_json` with its arguments checked: the pack object of
    ``pack``, each level nested or flat as ``grid`` says."""
    if not isinstance(pack, Pack):
        raise LlkgenError(f"pack: expected a llkgen Pack, found {_kind(pack)}")
    if not isinstance(pack.name, str):
        raise LlkgenError(f"pack.name: expected a str, found {_kind(pack.name)}")
    if not isinstance(pack.levels, list) or not isinstance(pack.extra, dict):
        raise LlkgenError(f"pack: expected levels a list and extra a dict, found {_kind(pack.levels)} "
                          f"and {_kind(pack.extra)}")
    for i, lv in enumerate(pack.levels):
        _check_level(lv, f"pack.levels[{i}]")
    return level_format.pack_to_json(pack, _check_grid(grid))


def write_json_atomic(path: PathLike, obj: object) -> Path:
    """:func:`llkgen.formats.level.write_json_atomic` with its arguments checked: ``obj`` as
    JSON text at ``path``, written atomically (an interrupted run never leaves a truncated
    file). ``obj`` that JSON cannot hold raises before anything is written."""
    where = _check_path("path", path)
    try:
        text = level_format.dumps(obj)
    except (TypeError, ValueError) as e:  # what json.dumps raises for what JSON cannot hold
        raise LlkgenError(f"obj: expected JSON data (dicts, lists, strings, numbers, true, false, "
                          f"null), found {_kind(obj)}: {e}") from None
    return write_text_atomic(where, text)


# -- specs and generation ----------------------------------------------------------------------
def load_spec(path: PathLike) -> Spec:
    """:func:`llkgen.generation.spec.load_spec`: the spec file at ``path``, validated;
    :class:`~llkgen.errors.SpecError` names the file, the key and what is wrong."""
    from llkgen.generation.spec import load_spec as load

    return load(_check_path("path", path))


def parse_spec(text: str | bytes | bytearray, source: str = "<string>") -> Spec:
    """:func:`llkgen.generation.spec.parse_spec`: spec YAML (a ``str``, or UTF-8 ``bytes``),
    validated; ``source`` begins each :class:`~llkgen.errors.SpecError` message."""
    from llkgen.generation.spec import parse_spec as parse

    if not isinstance(text, (str, bytes, bytearray)):
        raise LlkgenError(f"text: expected spec YAML as a str or bytes, found {_kind(text)}")
    if not isinstance(source, str):
        raise LlkgenError(f"source: expected a str, found {_kind(source)}")
    return parse(bytes(text) if isinstance(text, bytearray) else text, source)


def _load(spec: Spec | Mapping[str, object] | PathLike) -> Spec:
    """``spec`` as a validated :class:`~llkgen.generation.spec.Spec`."""
    from llkgen.generation.spec import Spec, load_spec_ref, spec_from_dict

    if isinstance(spec, Spec):
        return spec
    if isinstance(spec, Mapping):
        return spec_from_dict(dict(spec), "<dict>")
    if isinstance(spec, str) and "\n" in spec:
        return parse_spec(spec, "<string>")
    if isinstance(spec, (str, os.PathLike)):
        return load_spec_ref(_check_path("spec", spec))
    raise LlkgenError(f"spec: expected a Spec, a mapping, YAML text, a spec file's path or a shipped "
                      f"spec's name, found {_kind(spec)}")


def generate(spec: Spec | Mapping[str, object] | PathLike, *, count: int | None = None,
             seed: int | None = None, jobs: int = 1) -> Pack:
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
    from llkgen.generation.limits import MAX_COUNT, MAX_SEED
    from llkgen.jobs.pack import build_pack, generate_pack

    loaded = _load(spec)
    if count is not None:
        _check_int("count", count, 1, MAX_COUNT)
    if seed is not None:
        _check_int("seed", seed, 0, MAX_SEED)
    _check_int("jobs", jobs, 1)
    loaded = loaded.with_overrides(count=count, seed=seed)
    return build_pack(loaded, generate_pack(loaded, jobs=jobs))

