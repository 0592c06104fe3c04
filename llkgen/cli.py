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
    """List every pair removable right now, with the path that would be drawn.

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
    """Check a solution with the referee.

    Exits 0 if every move is legal and the board ends cleared, otherwise 1, naming the bad step.

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
def solve(
    level: Path = typer.Argument(..., help="A llkgen.level/1 JSON file."),
    as_json: bool = typer.Option(False, "--json", help="Print the verdict as JSON."),
    budget: Optional[float] = typer.Option(None, "--budget", min=0.0, help="Wall-clock budget in seconds (makes the verdict machine-dependent)."),
    nodes: Optional[int] = typer.Option(200_000, "--nodes", min=1, help="Search-node budget (deterministic)."),
    engine: str = typer.Option("auto", "--engine", help="auto (portfolio), search, cpsat or baseline."),
) -> None:
    """Decide whether a level can be cleared.

    Exits 0 solvable (with a replayed witness), 3 unsolvable (with a proof), 4 unknown (a
    budget ran out), 1 invalid input.

    Example: llkgen solve tests/data/demo.json --json --nodes 50000
    """
    from llkgen.verify import ENGINES, Budget, verify

    if engine not in ENGINES:
        raise typer.BadParameter(f"expected one of {', '.join(ENGINES)}, found {engine!r}", param_hint="--engine")
    lv = load_level(level)
    verdict = verify(lv.board, lv.rules, Budget(nodes=nodes, seconds=budget), engine=engine)
    if verdict.proof is not None and verdict.proof.get("locked") and lv.rules.gravity == "none":
        import time

        from llkgen.verify.flow import explain_locked

        # For the designer: which tiles block each locked type (min vertex cuts), within what
        # is left of --budget (verify's own time_ms says how much it used).
        deadline = None if budget is None else (
            time.perf_counter() + max(0.0, budget - verdict.stats.get("time_ms", 0.0) / 1000))
        explained = explain_locked(lv.board, lv.rules, [tuple(c) for c in verdict.proof["locked"]],
                                   deadline=deadline)
        verdict.proof["bottlenecks"] = explained["types"]
        if not explained["complete"]:
            verdict.proof["bottlenecks_incomplete"] = explained["reason"]
    if as_json:
        _emit_json(verdict.to_json())
    else:
        typer.echo(f"{verdict.status}: {verdict.reason}")
        if verdict.proof and verdict.proof.get("locked"):
            typer.echo("locked tiles: " + " ".join(f"({r},{c})" for r, c in verdict.proof["locked"]))
            for t in verdict.proof.get("bottlenecks", []):
                if t["blockers"]:
                    cells = " ".join(f"({r},{c})" for r, c in t["blockers"])
                    typer.echo(f"type {t['type']} is blocked by: {cells}")
        for i, m in enumerate(verdict.moves, 1):
            typer.echo(f"{i:3d}. {list(m.a)} {list(m.b)}")
    raise typer.Exit({"solvable": EXIT_OK, "unsolvable": EXIT_UNSOLVABLE}.get(verdict.status, EXIT_UNKNOWN))


@app.command()
def render(
    source: Path = typer.Argument(..., metavar="PACK|LEVEL", help="A pack or level JSON file."),
    out: Path = typer.Option(..., "--out", help="Directory for the SVG files (created if missing)."),
    solution: bool = typer.Option(False, "--solution", help="Also write <id>.solution.svg: each level's certified removal order, step by step."),
) -> None:
    """Write one SVG preview per level (and, with --solution, a step-by-step solution strip).

    Example: llkgen render output/easy.json --out output/easy-svg --solution
    """
    from llkgen.level import load_levels
    from llkgen.render import write_svgs

    levels = load_levels(source)
    written = write_svgs(levels, out)
    if solution:  # the step-by-step previews come in addition to the plain ones
        written += write_svgs(levels, out, solution=True)
    for p in written:
        typer.echo(str(p))
    typer.echo(f"{len(written)} SVG file{'s' if len(written) != 1 else ''} written to {out}")


@app.command()
def view(
    pack: Path = typer.Argument(..., metavar="PACK", help="A llkgen.pack/1 JSON file."),
    out: Path = typer.Option(..., "--out", help="The HTML file to write."),
) -> None:
    """Write a self-contained HTML page to browse and play a pack.

    The page lists the pack's levels; play one by clicking two tiles, with undo, restart,
    hint and "play the solution".

    Example: llkgen view output/easy.json --out output/easy.html
    """
    from llkgen.level import load_pack
    from llkgen.render import write_viewer

    path = write_viewer(load_pack(pack), out)
    typer.echo(f"viewer written to {path}")


def _level_line(lv) -> str:
    m = lv.metrics
    return (f"level {lv.index + 1:>3}  initial_moves {m['initial_moves']:>3}  "
            f"random_clear_rate {m['random_clear_rate']:.2f}  verify_nodes {m['verify_nodes']:>6}  "
            f"({lv.attempts} attempt{'s' if lv.attempts != 1 else ''})")


@app.command()
def make(
    config: Path = typer.Option(..., "--config", help="The YAML spec, e.g. configs/easy.yaml."),
    out: Optional[Path] = typer.Option(None, "--out", help="Pack file to write (default: the spec's export.path)."),
    count: Optional[int] = typer.Option(None, "--count", help="Number of levels (overrides the spec's count)."),
    seed: Optional[int] = typer.Option(None, "--seed", help="Pack seed (overrides the spec's seed)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", min=1, help="Worker processes (default: the number of cores). The pack is byte-identical for every value."),
) -> None:
    """Generate a pack of certified levels from a YAML spec and write it as llkgen.pack/1 JSON.

    Every level is certified solvable by the verifier, and its solution is replayed by the referee. The same spec and seed always give the same bytes, whatever --jobs is.

    Exit 1 if the spec is invalid, or if a level cannot be generated within generator.max_attempts (the message says why).

    Example: llkgen make --config configs/easy.yaml --count 20 --out output/easy20.json
    """
    import os
    import time

    from llkgen.export import make_pack
    from llkgen.spec import load_spec

    spec = load_spec(config).with_overrides(count=count, seed=seed, out=out)
    jobs = jobs or os.cpu_count() or 1
    started = time.perf_counter()
    with _progress(spec.count, f"making {spec.name}") as advance:
        result = make_pack(spec, jobs=jobs, on_level=lambda lv: advance())
    for lv in result.levels:
        typer.echo(_level_line(lv))
    took = time.perf_counter() - started
    n = len(result.levels)
    typer.echo(f"wrote {n} certified level{'s' if n != 1 else ''} to {result.path} "
               f"(pack seed {spec.seed}, {spec.generator.strategy}, {took:.1f} s with {min(jobs, n)} job{'s' if min(jobs, n) != 1 else ''})")


class _progress:
    """A rich progress bar on stderr when stderr is a terminal; otherwise nothing at all."""

    def __init__(self, total: int, label: str):
        self.total, self.label, self.bar = total, label, None

    def __enter__(self):
        if not sys.stderr.isatty():
            return lambda: None
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), console=Console(stderr=True), transient=True)
        self.bar.__enter__()
        task = self.bar.add_task(self.label, total=self.total)
        return lambda: self.bar.advance(task)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.__exit__(*exc)
        return False


@app.command("verify")
def verify_levels(
    paths: list[Path] = typer.Argument(..., metavar="PATH...", help="Level files, pack files or directories (searched recursively for *.json)."),
    as_json: bool = typer.Option(False, "--json", help="Print a machine-readable JSON report instead of lines."),
    junit: Optional[Path] = typer.Option(None, "--junit", metavar="FILE", help="Also write a JUnit XML report to FILE."),
    nodes: Optional[int] = typer.Option(None, "--nodes", min=1, help="Verifier budget per level in search nodes (default: the level's recorded budget, else 200000)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", min=1, help="Worker processes (default: the number of cores)."),
) -> None:
    """Re-certify every level from scratch (for CI) and replay stored solutions.

    Prints one line per level and a summary.

    Exit 0: every level certified; 3: some level unsolvable; 4: some level unknown (a budget ran out) and none unsolvable; 1: invalid input, or a stored solution that fails. 1 wins over 3, and 3 over 4.

    Example: llkgen verify levels/ output/easy.json --junit reports/llkgen.xml
    """
    import os

    from llkgen.ci_verify import format_level, format_problem, report_json, verify_paths, write_junit

    def show(res) -> None:
        if not as_json:
            typer.echo(format_level(res))

    report = verify_paths(paths, nodes=nodes, jobs=jobs or os.cpu_count() or 1, on_level=show)
    if junit is not None:
        write_junit(report, junit)
    if as_json:
        typer.echo(report_json(report), nl=False)
    else:
        for p in report.problems:
            typer.echo(format_problem(p))
        typer.echo(report.summary())
    raise typer.Exit(report.exit_code)


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
