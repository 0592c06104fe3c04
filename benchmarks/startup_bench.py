"""Start-up benchmark: how long ``llkgen --version`` and ``llkgen show LEVEL`` take as whole
processes, against a bare interpreter (``python -c pass``) and the command-line framework
(``python -c 'import typer'``) timed in the same run.

``llkgen --version`` is answered by :mod:`llkgen.entry` before any command-line framework is
imported; ``llkgen --help`` (the whole Typer app) is timed too, to show what that saves.
``llkgen show LEVEL`` is the cheapest command that runs through Typer: its ratio to ``import
typer`` is what llkgen's own imports add to the framework's (the target: at most 1.5x). A
one-command Typer app that prints its one argument is timed too: what Typer itself costs to run
a command, beyond its import (it coerces every argument through pydantic), which no import of
llkgen's can save. The commands run in turn, round after round, so a machine whose speed drifts
affects them alike; the table gives each command's median wall time and its ratio to the bare
interpreter.

    python benchmarks/startup_bench.py [--runs 20] [--level LEVEL]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

#: ``llkgen show LEVEL`` / ``python -c 'import typer'``, at most.
SHOW_TARGET = 1.5
#: The smallest Typer app with a command like ``show``: one command, one argument, printed.
TYPER_ONE_COMMAND = textwrap.dedent("""\
    import typer
    app = typer.Typer(add_completion=False)
    @app.callback()
    def root() -> None:
        pass
    @app.command()
    def show(level: str = typer.Argument(..., metavar="LEVEL")) -> None:
        typer.echo(level)
    app()
""")


def console_script() -> str:
    """The installed ``llkgen`` script beside this interpreter, else the one on PATH."""
    here = Path(sys.executable).parent / ("llkgen.exe" if os.name == "nt" else "llkgen")
    found = str(here) if here.exists() else shutil.which("llkgen")
    if found is None:
        sys.exit("startup_bench: no llkgen console script found: pip install -e . first")
    return found


def wall(argv: list[str]) -> float:
    started = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def write_level(folder: Path) -> str:
    """A one-level pack in ``folder``, named as ``llkgen show`` takes it: ``PACK.json#ID``."""
    from llkgen.formats.level import Level, Pack, pack_to_json, write_json_atomic
    from llkgen.game.board import Board

    board = Board.from_text("1 5 7 10 9 9 6 2\n11 1 5 2 8 12 3 11\n12 6 5 1 10 12 10 8\n"
                            "4 11 7 7 10 2 12 3\n4 3 8 4 9 3 4 6\n8 5 9 6 7 11 1 2")
    path = folder / "bench.json"
    write_json_atomic(path, pack_to_json(Pack("bench", [Level(board, id="bench-1")])))
    return f"{path}#bench-1"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="timed runs of each command (after one warm-up)")
    parser.add_argument("--level", help="the LEVEL llkgen show prints (default: a 6x8 board written here)")
    args = parser.parse_args()
    script = console_script()
    with tempfile.TemporaryDirectory(prefix="llkgen-startup-") as tmp:
        folder = Path(tmp)
        (folder / "typer_one_command.py").write_text(TYPER_ONE_COMMAND, "utf-8")
        level = args.level or write_level(folder)
        commands = {
            "python -c pass (baseline)": [sys.executable, "-c", "pass"],
            "llkgen --version": [script, "--version"],
            "python -m llkgen --version": [sys.executable, "-m", "llkgen", "--version"],
            "llkgen --help (the whole CLI)": [script, "--help"],
            "python -c 'import typer'": [sys.executable, "-c", "import typer"],
            "typer app, 1 command (floor)": [sys.executable, str(folder / "typer_one_command.py"), "show", level],
            "llkgen show LEVEL": [script, "show", level],
        }
        run(commands, args.runs)


def run(commands: dict[str, list[str]], runs: int) -> None:
    """Time ``commands`` in turn, ``runs`` rounds after one warm-up, and print the table."""
    times: dict[str, list[float]] = {name: [] for name in commands}
    for argv in commands.values():  # warm-up: the file cache, the .pyc files
        wall(argv)
    for _ in range(runs):
        for name, argv in commands.items():
            times[name].append(wall(argv))
    base = statistics.median(times["python -c pass (baseline)"])
    print(f"{'command':<32} {'median ms':>10} {'min ms':>8} {'max ms':>8} {'x baseline':>11}")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"{name:<32} {med * 1e3:>10.1f} {min(ts) * 1e3:>8.1f} {max(ts) * 1e3:>8.1f} {med / base:>11.2f}")
    print(f"({runs} runs of each command, in turn; wall time of the whole process)")
    typer_times = times["python -c 'import typer'"]  # ratios taken round by round, as the machine drifts
    show = statistics.median(a / b for a, b in zip(times["llkgen show LEVEL"], typer_times))
    floor = statistics.median(a / b for a, b in zip(times["typer app, 1 command (floor)"], typer_times))
    print(f"llkgen show LEVEL / python -c 'import typer': {show:.2f}x (target: at most {SHOW_TARGET}x: "
          f"{'met' if show <= SHOW_TARGET else 'not met'}); a 1-command Typer app: {floor:.2f}x")


if __name__ == "__main__":
    main()
