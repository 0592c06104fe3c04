"""The commands that read one level and answer about its board: ``show``, ``moves``, ``hint``,
``reshuffle``, ``replay`` and ``solve``. They are the quick ones: each imports what it uses when
it runs (the analysis, the verifier), so that ``llkgen show`` pays for none of it
(tests/cli/test_cli_imports.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from llkgen import outputs
from llkgen.cli.options import NODES_HELP, WHOLE_BUDGET_HELP, LevelRef, Nodes, Quiet, budget_flag, json_flag
from llkgen.console import (
    classified_report,
    deadline_after,
    hint_lines,
    level_heading,
    move_text,
    moves_to_replay,
    no_solution_text,
    plural,
    refuse_the_pack,
    reshuffled_text,
    verdict_lines,
)
from llkgen.errors import EXIT_FAILED, EXIT_UNSOLVABLE
from llkgen.files import check_writable
from llkgen.formats.load import load_level_ref
from llkgen.generation.limits import MAX_SEED
from llkgen.text import json_dumps, printable
from llkgen.verifier.verdict import ADVICE_NODES, DEFAULT_NODES, UNKNOWN, UNSOLVABLE, Budget, Engine

#: ``--budget`` of every command here: the answer about one board.
WholeBudget = Annotated[Optional[float], budget_flag(WHOLE_BUDGET_HELP)]


def show(level: LevelRef) -> None:
    """Print a level's board in the text form, plus its rules.

    Example: llkgen show output/easy.json#easy-1
    """
    lv = load_level_ref(level)
    typer.echo(level_heading(lv, level))
    typer.echo(lv.board.to_text())


def moves(
    level: LevelRef,
    as_json: Annotated[bool, json_flag("moves")] = False,
    classify: bool = typer.Option(
        False, "--classify",
        help="Also label each pair: safe (the board can still be cleared after it, with a replayed witness), "
             "fatal (proven: it cannot) or unknown (a budget ran out)."),
    nodes: Optional[int] = typer.Option(
        None, "--nodes", min=1, help=f"With --classify: {NODES_HELP} Default: {ADVICE_NODES}."),
    budget: Annotated[Optional[float], budget_flag(f"With --classify: {WHOLE_BUDGET_HELP}")] = None,
) -> None:
    """List every pair removable right now, with the path that would be drawn.

    Exits 0 if some pair is removable (or no tile is left), 3 if the board is dead (tiles are
    left and no pair can be removed), 1 for invalid input.

    With --classify, each pair is labelled safe, fatal or unknown, followed by a count of each
    (JSON: each move's "label", "reason", "witness" or "proof", and a "summary"). It then
    exits 0 if some move is safe (or no tile is left), 3 if the board is dead (every move
    fatal, or no move left), 4 if no move is proven safe and some are unknown (a budget ran
    out), 1 for invalid input. --budget bounds the whole labelling: the moves still unchecked
    when it runs out are unknown.

    Example: llkgen moves output/easy.json#easy-1 --classify
    """
    from llkgen.game.path import removable_pairs

    deadline = deadline_after(budget)
    for name, value in (("--nodes", nodes), ("--budget", budget)):
        if value is not None and not classify:
            raise typer.BadParameter("only counts with --classify", param_hint=name)
    lv = load_level_ref(level)
    if classify:
        limits = Budget(nodes=ADVICE_NODES if nodes is None else nodes, seconds=budget)
        text, code = classified_report(lv.board, lv.rules, as_json, limits, deadline)
        typer.echo(text)
        raise typer.Exit(code)
    found = removable_pairs(lv.board, lv.rules)
    if as_json:
        typer.echo(json_dumps(outputs.moves_json(found, lv.board.tile_count)))
    else:
        for m in found:
            typer.echo(move_text(lv.board, m))
        typer.echo(plural(len(found), "removable pair"))
    if not found and not lv.board.is_cleared():
        raise typer.Exit(EXIT_UNSOLVABLE)  # dead, as with --classify


def hint(
    level: LevelRef,
    as_json: Annotated[bool, json_flag("hint")] = False,
    nodes: Nodes = ADVICE_NODES,
    budget: WholeBudget = None,
) -> None:
    """Suggest a move after which the level can still be cleared.

    Prints the move and the path drawn for it; the witness (--json) is a removal order that
    clears the board after it, replayed by the referee. Without gravity the hint is the
    easiest such move to spot: the fewest turns, then the shortest line. If nothing can
    clear the board it says so, with the proof (e.g. the tiles that can never be removed).

    Exits 0 with a move (or when no tile is left), 3 unsolvable (the board can never be
    cleared), 4 unknown (a budget ran out), 1 invalid input.

    Example: llkgen hint output/easy.json#easy-1
    """
    from llkgen.analysis.advice import hint as find_hint

    deadline = deadline_after(budget)
    lv = load_level_ref(level)
    found = find_hint(lv.board, lv.rules, Budget(nodes=nodes), deadline=deadline)
    typer.echo(json_dumps(outputs.hint_json(found, Budget(nodes, budget))) if as_json
               else "\n".join(hint_lines(lv.board, found)))
    raise typer.Exit(found.exit_code)


def reshuffle(
    level: LevelRef,
    seed: int = typer.Option(..., "--seed", min=0, max=MAX_SEED, help="The same seed gives the same board."),
    out: Optional[Path] = typer.Option(
        None, "--out", metavar="FILE",
        help="Write the new board as a llkgen.level/1 file (same id and rules, its replayed solution, and "
             "\"reshuffle\": {seed, attempts}). It may be the level file itself, never the pack a PACK#ID "
             "level came from."),
    as_json: Annotated[bool, json_flag("reshuffle")] = False,
    nodes: Nodes = ADVICE_NODES,
    budget: WholeBudget = None,
    quiet: Quiet = False,
) -> None:
    """Rearrange the tiles left on a level over the same cells into a board that can be cleared.

    Walls, empty cells and the count of each tile type stay as they are; under gravity the
    board is settled first. The new board is certified like a generated level: a witness
    found by the verifier and replayed by the referee. Without --out it is printed in the
    text form, as show prints it; --json prints the level --out writes.

    Exits 0 with a certified board, 3 if no arrangement of these tiles can ever be cleared
    (proven: unsolvable), 4 if none was certified within the attempts, --nodes and --budget
    (unknown), 1 invalid input.

    Example: llkgen reshuffle output/easy.json#easy-1 --seed 1
    """
    from llkgen.analysis.reshuffle import ReshuffleError
    from llkgen.analysis.reshuffle import reshuffle as rearrange
    from llkgen.formats.level import Level, write_json_atomic

    deadline = deadline_after(budget)
    if out is not None:
        refuse_the_pack(out, level)
    lv = load_level_ref(level)
    if out is not None:
        check_writable(out)
    try:
        done = rearrange(lv.board, lv.rules, seed, Budget(nodes=nodes), deadline=deadline)
    except ReshuffleError as e:
        verdict = UNSOLVABLE if e.proven else UNKNOWN
        typer.echo(json_dumps(outputs.reshuffle_json(verdict, str(e), seed)) if as_json
                   else printable(f"{verdict}: {e}"))
        raise typer.Exit(e.exit_code) from None
    reason, new = reshuffled_text(done, seed), outputs.reshuffled_level(done, lv.rules, lv.id)
    if out is not None:
        write_json_atomic(out, new)
    what = reason if out is None else f"{reason}; wrote {out}"
    if as_json:
        typer.echo(json_dumps(outputs.reshuffled_json(done, reason, new)))
    elif not quiet:
        if out is None:
            typer.echo(level_heading(Level(done.board, lv.rules, lv.id), level))
            typer.echo(done.board.to_text())
        typer.echo(printable(what))


def replay(
    level: LevelRef,
    moves_file: Optional[Path] = typer.Argument(
        None, metavar="[MOVES.json]",
        help="A JSON list of [[r1, c1], [r2, c2]] moves, or an object with \"solution\" (e.g. solve --json "
             "output). Default: the solution stored in the level."),
    as_json: Annotated[bool, json_flag("replay")] = False,
    quiet: Quiet = False,
) -> None:
    """Check a solution with the referee.

    Exits 0 if every move is legal and the board ends cleared, otherwise 1, naming the bad step.
    The --json report: "ok" (every move legal), "cleared", "given" and "applied" (moves),
    "tiles_left", and for a bad move its 0-based "error_index" and "reason"; "error" is what
    the text form prints after FAILED: (or Error: when the level stores no solution, "given"
    0), null when the board ends cleared.

    Example: llkgen replay output/easy.json#easy-1
    """
    from llkgen.game.referee import replay as replay_moves

    lv = load_level_ref(level)
    if as_json and moves_file is None and not isinstance(lv.solution, list):
        # Nothing to check: the document says so (no move replayed), as for any that fails.
        typer.echo(json_dumps(outputs.replay_json(replay_moves(lv.board, lv.rules, []), 0, no_solution_text(level))))
        raise typer.Exit(EXIT_FAILED)
    steps = moves_to_replay(lv, level, moves_file)
    result = replay_moves(lv.board, lv.rules, steps)
    if as_json:
        typer.echo(json_dumps(outputs.replay_json(result, len(steps))))
    elif result.ok and result.cleared:
        if not quiet:
            typer.echo(f"OK: {result.describe()}")
    else:
        typer.echo(f"FAILED: {result.describe()}", err=True)
    if not (result.ok and result.cleared):
        raise typer.Exit(EXIT_FAILED)


_ENGINE_NAMES = [e.value for e in Engine]
_ENGINES = "<" + "|".join(_ENGINE_NAMES) + ">"


def _engine(value: str | Engine) -> Engine:
    """``--engine``'s value, refused in the project's words (expected, found) rather than
    the argument library's validation wording."""
    try:
        return Engine(value)
    except ValueError:
        raise typer.BadParameter(
            f"expected one of {', '.join(_ENGINE_NAMES)}, found {value!r}") from None


def solve(
    level: LevelRef,
    as_json: Annotated[bool, json_flag("solve")] = False,
    budget: WholeBudget = None,
    nodes: Optional[int] = typer.Option(
        None, "--nodes", min=1,
        help=f"{NODES_HELP} Default: {DEFAULT_NODES}, or none when --budget is given: the seconds are then the "
             "only limit."),
    engine: Engine = typer.Option(
        Engine.AUTO, "--engine", parser=_engine, metavar=_ENGINES,
        help="The verifier: auto is the portfolio; cpsat (OR-Tools) takes gravity none only."),
) -> None:
    """Decide whether a level can be cleared.

    Exits 0 solvable (with a replayed witness), 3 unsolvable (with a proof), 4 unknown (a
    budget ran out), 1 invalid input.

    Example: llkgen solve output/easy.json#easy-1 --json --nodes 50000
    """
    from llkgen.analysis.explain import explain_verdict
    from llkgen.verifier import verify

    lv = load_level_ref(level)
    limits = Budget(nodes=nodes if nodes is not None else None if budget is not None else DEFAULT_NODES, seconds=budget)
    verdict = verify(lv.board, lv.rules, limits, engine=engine.value)
    # For the designer: which tiles block each locked type, within what is left of --budget.
    verdict = explain_verdict(verdict, lv.board, lv.rules, budget)
    typer.echo(json_dumps(outputs.solve_json(verdict, limits)) if as_json else "\n".join(verdict_lines(verdict)))
    raise typer.Exit(verdict.status.exit_code)
