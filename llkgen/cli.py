"""The ``llkgen`` command line: a thin layer over the library.

Each command parses its arguments, calls one library function and formats the result.
Errors in the user's input become ``Error: ...`` on stderr with exit code 1, never a traceback.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from llkgen import __version__
from llkgen.errors import LevelFormatError, LlkgenError
from llkgen.level import load_level, read_json
from llkgen.path import removable_pairs
from llkgen.referee import replay as replay_moves

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_UNSOLVABLE, EXIT_UNKNOWN = 0, 1, 2, 3, 4

EXIT_CODES_HELP = (
    "Exit codes: 0 ok / solvable; 1 invalid input or failed check; 2 usage error; "
    "3 unsolvable; 4 unknown (a budget ran out)."
)

app = typer.Typer(
    name="llkgen",
    help="Generate Lianliankan (Onet / Shisen-Sho) level packs and certify that every board "
    "can be cleared.\n\n" + EXIT_CODES_HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _emit_json(obj: object) -> None:
    typer.echo(json.dumps(obj, ensure_ascii=False))


@app.command()
def show(level: Path = typer.Argument(..., help="A llkgen.level/1 JSON file.")) -> None:
    """Print a level's board in the text form, plus its rules.

    Example: llkgen show tests/data/demo.json
    """
    lv = load_level(level)
    typer.echo(f"# {lv.id or level.name}: {lv.board.rows}x{lv.board.cols}, {lv.rules.describe()}")
    typer.echo(lv.board.to_text())


@app.command()
def moves(
    level: Path = typer.Argument(..., help="A llkgen.level/1 JSON file."),
    as_json: bool = typer.Option(False, "--json", help="Print {\"moves\": [{\"a\", \"b\", \"path\"}, ...]}."),
) -> None:
    """List every pair that can be removed right now, with the path that would be drawn.

    Example: llkgen moves tests/data/demo.json --json
    """
    lv = load_level(level)
    found = removable_pairs(lv.board, lv.rules)
    if as_json:
        _emit_json({"moves": [m.to_json() for m in found]})
        return
    for m in found:
        path = " -> ".join(f"({r},{c})" for r, c in m.path)
        typer.echo(f"type {lv.board[m.a]}: {list(m.a)} {list(m.b)}  via {path}")
    typer.echo(f"{len(found)} removable pair{'s' if len(found) != 1 else ''}")


def _load_moves(path: Path) -> list:
    obj = read_json(path)
    if isinstance(obj, dict):
        for key in ("solution", "moves"):
            if key in obj:
                obj = obj[key]
                break
        else:
            raise LevelFormatError(f"{path}: expected a list of moves or an object with 'solution'")
    if not isinstance(obj, list):
        raise LevelFormatError(f"{path}: expected a list of moves [[r1, c1], [r2, c2]], found {type(obj).__name__}")
    return obj


@app.command()
def replay(
    level: Path = typer.Argument(..., help="A llkgen.level/1 JSON file."),
    moves_file: Path = typer.Argument(..., metavar="MOVES.json", help="A JSON list of [[r1, c1], [r2, c2]] moves."),
) -> None:
    """Check a solution with the referee: exit 0 if every move is legal and the board ends
    cleared, otherwise exit 1 naming the bad step.

    Example: llkgen replay tests/data/demo.json tests/data/demo.moves.json
    """
    lv = load_level(level)
    result = replay_moves(lv.board, lv.rules, _load_moves(moves_file))
    if result.ok and result.cleared:
        typer.echo(f"OK: {result.describe()}")
        return
    typer.echo(f"FAILED: {result.describe()}", err=True)
    raise typer.Exit(EXIT_FAILED)


@app.command()
def version() -> None:
    """Print llkgen's version."""
    typer.echo(f"llkgen {__version__}")


def main() -> None:
    try:
        app()
    except LlkgenError as e:
        typer.echo(f"Error: {e}", err=True)
        sys.exit(e.exit_code)
    except KeyboardInterrupt:
        typer.echo("Interrupted.", err=True)
        sys.exit(130)
