"""The ``llkgen`` command line: a thin layer over the library.

Each command parses its arguments, calls one library function and formats the result.
Errors in the user's input become ``Error: ...`` on stderr with exit code 1, never a traceback.
Every help text ends with an example that runs as printed for someone who installed the wheel
and ran the examples before it (``init``, then ``make``), in any directory.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Optional

import typer

from llkgen import outputs
from llkgen._version import version_line
from llkgen.console import (
    BUDGET_HELP,
    CLASSIFY_HELP,
    CLASSIFY_NODES_HELP,
    ENGINE_HELP,
    GRADE_BUDGET_HELP,
    GRADE_SE_HELP,
    GRADE_SOURCE_HELP,
    JOBS_HELP,
    LEVEL_HELP,
    MAKE_BUDGET_HELP,
    MAKE_JOBS_HELP,
    MAKE_OUT_HELP,
    MERGE_OUT_HELP,
    MOVES_FILE_HELP,
    NODES_HELP,
    QUIET_HELP,
    RENDER_SOLUTION_HELP,
    RESHUFFLE_OUT_HELP,
    RESOLVE_HELP,
    RESUME_HELP,
    SCHEDULER_HELP,
    SCHEMA_NAME_HELP,
    SHARD_HELP,
    SOLVE_NODES_HELP,
    VERIFY_BUDGET_HELP,
    VERIFY_NODES_HELP,
    VERIFY_PATHS_HELP,
    VERIFY_QUIET_HELP,
    VIEW_LEVELS,
    VIEW_LIMIT_HELP,
    WHOLE_BUDGET_HELP,
    WRITE_BUDGET_HELP,
    Engine,
    budget_problem,
    classified_report,
    deadline_after,
    example_kept_whole,
    hint_lines,
    json_help,
    level_heading,
    made_lines,
    move_text,
    moves_to_replay,
    no_solution_text,
    plural,
    progress,
    refuse_the_pack,
    reshuffled_text,
    run_app,
    run_deadline,
    shipped_note,
    verdict_lines,
    with_flags,
)
from llkgen.errors import EXIT_CODES_HELP, EXIT_FAILED, EXIT_UNSOLVABLE, OutputError, budget_arguments
from llkgen.files import check_writable, write_text_atomic
from llkgen.formats.load import load_level_ref
from llkgen.generation.limits import MAX_COUNT, MAX_SEED, shipped_fallback, shipped_specs
from llkgen.text import json_dumps, printable
from llkgen.verifier.verdict import ADVICE_NODES, DEFAULT_NODES, UNKNOWN, UNSOLVABLE, Budget

app = typer.Typer(
    name="llkgen",
    help="Generate Lianliankan (Onet / Shisen-Sho) level packs and certify that every board "
    "can be cleared.\n\n" + EXIT_CODES_HELP,
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _budget_seconds(value: Optional[float]) -> Optional[float]:
    """Every ``--budget``: a finite number of seconds up to the documented maximum, else exit 2."""
    problem = budget_problem(value)
    if problem is not None:
        raise typer.BadParameter(problem)
    return value


def _print_version(value: bool) -> None:
    if value:
        typer.echo(version_line())
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True,
                                 help="Print llkgen's version and exit."),
) -> None:
    pass


@app.command()
def init(
    name: str = typer.Argument("levels", help="The pack's name; the spec is written to NAME.yaml."),
    out: Path = typer.Option(Path("."), "--out", metavar="DIR", help="Directory to write NAME.yaml in."),
) -> None:
    """Write a starter spec, commented line by line, to edit and build with make.

    It is the shipped easy spec under a new name, whose first line points editors at the spec's
    JSON Schema, written beside it (llkgen schema spec). An existing file is never overwritten.

    Example: llkgen init my-levels
    """
    from llkgen.errors import SpecError
    from llkgen.generation.starter import starter_spec, write_spec_schema

    try:
        text = starter_spec(name)
    except SpecError as e:
        raise typer.BadParameter(str(e).removeprefix("NAME: "), param_hint="NAME") from None
    path = out / f"{name}.yaml"
    if os.path.lexists(path):
        raise OutputError(
            f"{path}: already exists: expected a new file name (choose another NAME or --out)")
    write_spec_schema(out)
    write_text_atomic(path, text)
    typer.echo(f"wrote {path}: edit it, then build it with: llkgen make --config {path}")


@app.command()
def show(level: str = typer.Argument(..., metavar="LEVEL", help=LEVEL_HELP)) -> None:
    """Print a level's board in the text form, plus its rules.

    Example: llkgen show output/easy.json#easy-1
    """
    lv = load_level_ref(level)
    typer.echo(level_heading(lv, level))
    typer.echo(lv.board.to_text())


@app.command()
def moves(
    level: str = typer.Argument(..., metavar="LEVEL", help=LEVEL_HELP),
    as_json: bool = typer.Option(False, "--json", help=json_help("moves")),
    classify: bool = typer.Option(False, "--classify", help=CLASSIFY_HELP),
    nodes: Optional[int] = typer.Option(None, "--nodes", min=1, help=CLASSIFY_NODES_HELP),
    budget: Optional[float] = typer.Option(
        None, "--budget", metavar="SECONDS", min=0.0, callback=_budget_seconds,
        help=f"With --classify: {WHOLE_BUDGET_HELP}"),
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


@app.command()
def hint(
    level: str = typer.Argument(..., metavar="LEVEL", help=LEVEL_HELP),
    as_json: bool = typer.Option(False, "--json", help=json_help("hint")),
    nodes: int = typer.Option(ADVICE_NODES, "--nodes", min=1, help=NODES_HELP),
    budget: Optional[float] = typer.Option(None, "--budget", metavar="SECONDS", min=0.0,
                                           callback=_budget_seconds, help=WHOLE_BUDGET_HELP),
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


@app.command()
def reshuffle(
    level: str = typer.Argument(..., metavar="LEVEL", help=LEVEL_HELP),
    seed: int = typer.Option(..., "--seed", min=0, max=MAX_SEED, help="The same seed gives the same board."),
    out: Optional[Path] = typer.Option(None, "--out", metavar="FILE", help=RESHUFFLE_OUT_HELP),
    as_json: bool = typer.Option(False, "--json", help=json_help("reshuffle")),
    nodes: int = typer.Option(ADVICE_NODES, "--nodes", min=1, help=NODES_HELP),
    budget: Optional[float] = typer.Option(None, "--budget", metavar="SECONDS", min=0.0,
                                           callback=_budget_seconds, help=WHOLE_BUDGET_HELP),
    quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP),
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
    from llkgen.analysis.advice import ReshuffleError
    from llkgen.analysis.advice import reshuffle as rearrange
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


@app.command()
def replay(
    level: str = typer.Argument(..., metavar="LEVEL", help=LEVEL_HELP),
    moves_file: Optional[Path] = typer.Argument(None, metavar="[MOVES.json]", help=MOVES_FILE_HELP),
    as_json: bool = typer.Option(False, "--json", help=json_help("replay")),
    quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP),
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


@app.command()
def solve(
    level: str = typer.Argument(..., metavar="LEVEL", help=LEVEL_HELP),
    as_json: bool = typer.Option(False, "--json", help=json_help("solve")),
    budget: Optional[float] = typer.Option(None, "--budget", metavar="SECONDS", min=0.0,
                                           callback=_budget_seconds, help=WHOLE_BUDGET_HELP),
    nodes: Optional[int] = typer.Option(None, "--nodes", min=1, help=SOLVE_NODES_HELP),
    engine: Engine = typer.Option(Engine.auto, "--engine", help=ENGINE_HELP),
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


@app.command()
def render(
    source: Path = typer.Argument(..., metavar="PACK|LEVEL", help="A pack or level JSON file, or a pack directory."),
    out: Path = typer.Option(..., "--out", help="Directory for the SVG files (created if missing)."),
    solution: bool = typer.Option(False, "--solution", help=RENDER_SOLUTION_HELP),
    budget: Optional[float] = typer.Option(
        None, "--budget", metavar="SECONDS", min=0.0, callback=_budget_seconds,
        help=f"{BUDGET_HELP}: no level starts after it, the levels not rendered are counted, exit 4; "
             "every file written is whole."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP),
) -> None:
    """Write one SVG preview per level (and, with --solution, a step-by-step solution strip).

    A pack directory is read one level at a time, as its previews are written. Before the first
    file, stderr says about how many bytes it will write, from 10 MiB up. Exit 0 when every level was rendered,
    4 if --budget ran out first, 1 for invalid input.

    Example: llkgen render output/easy.json --out output/easy-svg --solution
    """
    from llkgen.jobs.render import render_levels

    def state_size(estimate) -> None:
        if estimate.worth_stating:
            typer.echo(estimate.text(out), err=True)

    report = render_levels(source, out, solution=solution, deadline=deadline_after(budget), budget=budget,
                           on_estimate=None if quiet else state_size,
                           on_file=None if quiet else lambda p: typer.echo(str(p)))
    if not quiet:
        typer.echo(f"{plural(len(report.files), 'SVG file')} written to {out}")
    if report.budget_ran_out:
        typer.echo(f"Warning: {with_flags(report.budget_line(), budget_arguments(budget))}", err=True)
    raise typer.Exit(report.exit_code)


@app.command()
def view(
    pack: Path = typer.Argument(..., metavar="PACK", help="A llkgen.pack/1 JSON file or a pack directory."),
    out: Path = typer.Option(..., "--out", help="The HTML file to write."),
    start: int = typer.Option(0, "--start", min=0, help="0-based index of the first level on the page."),
    limit: int = typer.Option(VIEW_LEVELS, "--limit", min=1, help=VIEW_LIMIT_HELP),
    budget: Optional[float] = typer.Option(None, "--budget", metavar="SECONDS", min=0.0,
                                           callback=_budget_seconds, help=WRITE_BUDGET_HELP),
    quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP),
) -> None:
    """Write a self-contained HTML page to browse and play a pack.

    The page lists the pack's levels; play one by clicking two tiles, with undo, restart,
    hint and "play the solution". It holds at most --limit levels (1000), from --start; for a
    bigger pack it says which levels it holds, and the note on stderr says how to see others.
    From a pack directory only the parts holding those levels are read.

    Example: llkgen view output/easy.json --out output/easy.html
    """
    from llkgen.jobs.render import write_view

    def check_start(total: int) -> None:
        if start >= total > 0:
            raise typer.BadParameter(f"{start} is past the last level of {pack} ({total} levels, 0-based)",
                                     param_hint="--start")

    check_writable(out)
    path, page, total = write_view(pack, out, start, limit, deadline=deadline_after(budget), budget=budget,
                                   check_start=check_start)
    n = len(page.levels)
    if quiet:
        return
    if n < total:
        typer.echo(printable(f"note: {pack} has {total} levels; the page holds levels {start + 1} to "
                             f"{start + n} (choose others with --start and --limit)"), err=True)
    typer.echo(f"viewer written to {path}")


@app.command()
def make(
    config: str = typer.Option(
        ..., "--config", metavar="SPEC",
        help="A YAML spec file, or the name of a shipped spec: " + ", ".join(shipped_specs()) + " (NAME.yaml "
        "too, when no such file is here)."),
    out: Optional[Path] = typer.Option(None, "--out", help=MAKE_OUT_HELP),
    count: Optional[int] = typer.Option(
        None, "--count", min=1, max=MAX_COUNT, help="Number of levels (overrides the spec's count)."),
    seed: Optional[int] = typer.Option(
        None, "--seed", min=0, max=MAX_SEED, help="Pack seed (overrides the spec's seed)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", min=1, help=MAKE_JOBS_HELP),
    shard: Optional[str] = typer.Option(None, "--shard", metavar="K/N", help=SHARD_HELP),
    resume: bool = typer.Option(False, "--resume", help=RESUME_HELP),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", metavar="local|ADDRESS", help=SCHEDULER_HELP),
    budget: Optional[float] = typer.Option(None, "--budget", metavar="SECONDS", min=0.0,
                                           callback=_budget_seconds, help=MAKE_BUDGET_HELP),
    as_json: bool = typer.Option(False, "--json", help=json_help("make")),
    quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP),
) -> None:
    """Generate a pack of certified levels from a YAML spec and write it as llkgen.pack/1 JSON.

    Every level is certified solvable by the verifier, and its solution is replayed by the
    referee. The same spec and seed always give the same bytes, whatever --jobs, --shard or
    --scheduler is.

    Progress goes to stderr: a bar on a terminal, otherwise one line per level.

    Levels read back from the --resume journal are re-validated and replayed by the referee;
    one that fails is dropped with a warning and made again. --shard K/N always writes a shard
    file, --shard 0/1 included.

    Exit 1 if the spec is invalid, or if a level cannot be generated within
    generator.max_attempts (the message says why), or if --resume finds a journal of another
    run, or if an output (the journal included) cannot be written; 2 for a malformed --shard,
    or --scheduler without the dask extra; 4 if --budget ran out (nothing written).

    Example: llkgen make --config easy
    """
    from llkgen.execution import make_executor
    from llkgen.generation.spec import load_spec_ref, shipped_spec_file
    from llkgen.jobs.make import check_output, make_pack, make_report
    from llkgen.jobs.shards import Shard, default_shard_path

    deadline = run_deadline(budget, scheduler)
    shipped = shipped_fallback(config)  # easy.yaml, with no such file here: the shipped easy
    if shipped is not None:
        if not quiet:
            typer.echo(shipped_note(config, shipped, shipped_spec_file(shipped)), err=True)
        config = shipped
    # --shard always means a shard file, 0/1 included: merge takes it like any other.
    part = Shard.parse(shard, "--shard") if shard is not None else None
    spec = load_spec_ref(config).with_overrides(count=count, seed=seed, out=out)
    if part is not None and out is None:
        spec = spec.with_overrides(out=default_shard_path(spec.export.path, part))
    # Fail now, not after generating every level.
    if part is None:
        check_output(spec.export.path, spec.count, spec.export.layout)
    else:
        check_writable(spec.export.path)
    total = len((part or Shard()).indices(spec.count))
    jobs = max(1, min(jobs or os.cpu_count() or 1, total))
    executor = make_executor(jobs, scheduler)
    started = time.perf_counter()

    def warn(note: str) -> None:  # as the journal is read, before any level is made
        if not quiet:
            typer.echo(f"Warning: {printable(note)}: dropped from the journal, level made again", err=True)

    with progress(total, spec.name if part is None else f"{spec.name} shard {part}", quiet) as advance:
        result = make_pack(spec, on_level=advance, executor=executor, shard=part, resume=resume,
                           deadline=deadline, budget=budget, on_dropped=warn)
    took = time.perf_counter() - started
    if as_json:
        typer.echo(json_dumps(make_report(result, spec, part, jobs=jobs, seconds=took, resume=resume,
                                          scheduler=scheduler)))
    elif not quiet:
        typer.echo("\n".join(made_lines(result, spec, part, took, executor.description)))


@app.command()
def merge(
    shards: list[Path] = typer.Argument(..., metavar="SHARD...", help="Every shard file of one pack (make --shard)."),
    out: Path = typer.Option(..., "--out", help=MERGE_OUT_HELP),
    budget: Optional[float] = typer.Option(None, "--budget", metavar="SECONDS", min=0.0,
                                           callback=_budget_seconds, help=WRITE_BUDGET_HELP),
    as_json: bool = typer.Option(False, "--json", help=json_help("merge")),
    quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP),
) -> None:
    """Join the shard files of one pack into the pack a single make would have written.

    The result is byte-identical to a run without --shard. Every level is re-validated and
    its stored solution replayed by the referee before it is written. A missing, duplicated or
    foreign shard (another spec, seed, count or llkgen version), a damaged line, or a solution
    that does not clear its board is an error naming the file and line, exit 1, and nothing is
    written. So is a --budget that runs out, exit 4.

    Make the shards first, on any machines: llkgen make --config easy --shard 0/2, and --shard 1/2.

    Example: llkgen merge output/easy.shard-0-of-2.jsonl output/easy.shard-1-of-2.jsonl --out output/easy.json
    """
    from llkgen.jobs.make import merge_shards

    result = merge_shards(list(shards), out, deadline=deadline_after(budget), budget=budget)
    if as_json:
        typer.echo(json_dumps(outputs.merge_report_json(str(result.path), result.count, result.shards)))
    elif not quiet:
        typer.echo(f"wrote {plural(result.count, 'certified level')} from {plural(result.shards, 'shard')} "
                   f"to {result.path}")


@app.command("verify")
def verify_levels(
    paths: list[Path] = typer.Argument(..., metavar="PATH...", help=VERIFY_PATHS_HELP),
    as_json: bool = typer.Option(False, "--json", help=json_help("verify")),
    output_format: str = typer.Option(
        "text", "--format", metavar="text|json|github",
        help="text: a line per level; json: as --json; github: text, with a GitHub Actions annotation (::error, "
             "::warning) on the file and line of each level or file not certified."),
    junit: Optional[Path] = typer.Option(
        None, "--junit", metavar="FILE", help="Also write a JUnit XML report to FILE."),
    summary: Optional[Path] = typer.Option(
        None, "--summary", metavar="FILE",
        help="Also append a markdown summary (counts, and a table of what is not certified) to FILE, "
             "e.g. $GITHUB_STEP_SUMMARY."),
    nodes: Optional[int] = typer.Option(None, "--nodes", min=1, help=VERIFY_NODES_HELP),
    budget: Optional[float] = typer.Option(None, "--budget", metavar="SECONDS", min=0.0,
                                           callback=_budget_seconds, help=VERIFY_BUDGET_HELP),
    resolve: bool = typer.Option(False, "--resolve", help=RESOLVE_HELP),
    jobs: Optional[int] = typer.Option(None, "--jobs", min=1, help=JOBS_HELP),
    scheduler: Optional[str] = typer.Option(None, "--scheduler", metavar="local|ADDRESS", help=SCHEDULER_HELP),
    quiet: bool = typer.Option(False, "--quiet", "-q", help=VERIFY_QUIET_HELP),
) -> None:
    """Certify every level (for CI): replay its stored solution, or search it.

    A level that stores a solution is certified by replaying it with the referee, with no
    search; a stored solution that does not replay fails the check. A level without one is
    searched within --nodes. --resolve searches every level. Prints one line per level and a
    summary; the reports name the method, replay or search. -q prints only the levels and files
    that are not certified, and the summary.

    --budget bounds the whole command; once it runs out, levels not checked are unknown, and
    files not (fully) read are listed as unknown instead of being read.

    Exit 0: every level certified; 3: some level unsolvable; 4: some level unknown (a budget
    ran out) and none unsolvable; 1: invalid input, or a stored solution that fails. 1 wins
    over 3, and 3 over 4; 2: --scheduler without the dask extra.

    With --scheduler the searches run on a Dask cluster; the report is the same.

    Example: llkgen verify output/ --junit reports/llkgen.xml
    """
    from llkgen.execution import make_executor
    from llkgen.jobs.check import verify_paths
    from llkgen.jobs.check_output import ReportFormat, ReportPrinter, append_summary
    from llkgen.jobs.check_report import write_junit

    if output_format not in set(ReportFormat):
        raise typer.BadParameter(f"expected one of {', '.join(ReportFormat)}, found {output_format!r}",
                                 param_hint="--format")
    if as_json and output_format not in ("text", "json"):
        raise typer.BadParameter("--json is --format json: give one of them", param_hint="--format")
    printer = ReportPrinter(ReportFormat.JSON if as_json else ReportFormat(output_format), sys.stdout, quiet)
    deadline = run_deadline(budget, scheduler)
    for path in (junit, summary):
        if path is not None:
            check_writable(path)  # fail now, not after verifying every level
    jobs = jobs or os.cpu_count() or 1
    executor = None if scheduler is None else make_executor(jobs, scheduler)
    report = verify_paths(paths, nodes=nodes, jobs=jobs, on_level=printer.level,
                          seconds=budget, deadline=deadline, resolve=resolve, keep_levels=False,
                          spool=printer.format is ReportFormat.JSON or junit is not None or summary is not None,
                          executor=executor)
    try:
        if junit is not None:
            write_junit(report, junit)
        if summary is not None:
            append_summary(report, summary)
        printer.finish(report)
    finally:
        report.close()  # its spool of results, a temporary file
    raise typer.Exit(report.exit_code)


@app.command()
def grade(
    source: str = typer.Argument(..., metavar="LEVEL|PACK", help=GRADE_SOURCE_HELP),
    seed: int = typer.Option(0, "--seed", min=0, max=MAX_SEED, help="Seeds every measurement, with each level's id."),
    as_json: bool = typer.Option(False, "--json", help=json_help("grade")),
    budget: Optional[float] = typer.Option(None, "--budget", metavar="SECONDS", min=0.0,
                                           callback=_budget_seconds, help=GRADE_BUDGET_HELP),
    jobs: Optional[int] = typer.Option(None, "--jobs", min=1, help=JOBS_HELP),
    precision: float = typer.Option(1.5, "--precision", metavar="POINTS", min=0.25, max=50, help=GRADE_SE_HELP),
    quiet: bool = typer.Option(False, "--quiet", "-q", help=QUIET_HELP),
    calibration: Optional[str] = typer.Option(None, "--calibration", metavar="FILE",
                                              help="Also predict your players' clear rate (llkgen calibrate)."),
) -> None:
    """Measure levels afresh, as make does, and print each metric with its standard error.

    Per level: the difficulty score with its standard error, the tier, every model player's
    clear rate, and the length in pairs, beside the pack's stored values and their drift. Seeds
    come from --seed and each level's id, never from the pack: the same seed gives the same
    numbers, at any --jobs. Exit 0 when every level was measured; 4 if --budget ran out first
    (levels not reached are listed as not measured); 1 for invalid input.

    Example: llkgen grade output/easy.json --seed 7
    """
    from llkgen.jobs.grade import grade_levels, level_count, level_line, summary_line

    deadline, started = deadline_after(budget), time.perf_counter()
    shown = not (as_json or quiet)
    with progress(level_count(source) if shown else 0, source, not shown, verb="grading") as advance:

        def on_level(a) -> None:
            typer.echo(level_line(a))
            advance(a)

        report = grade_levels(source, seed, precision=precision, jobs=jobs or os.cpu_count() or 1, deadline=deadline,
                              budget=budget, calibration=calibration, on_level=on_level if shown else None)
    if as_json:
        typer.echo(json_dumps(report.to_json()))
    elif not quiet:
        typer.echo(with_flags(summary_line(report, time.perf_counter() - started), budget_arguments(budget)))
    raise typer.Exit(report.exit_code)


@app.command("schema")
def schema_command(name: Optional[str] = typer.Argument(None, metavar="NAME", help=SCHEMA_NAME_HELP)) -> None:
    """Print the JSON Schema of a file or a --json document of llkgen's, or without NAME the names.

    Each one is self-contained: any JSON Schema validator checks a file against it offline,
    with no registry and nothing fetched. They are the files in llkgen/schemas/.

    Example: llkgen schema pack
    """
    from llkgen.formats.schemas import schema_names, schema_text

    if name is not None and name not in schema_names():
        raise typer.BadParameter(f"expected one of {', '.join(schema_names())}, found {name!r}", param_hint="NAME")
    typer.echo("\n".join(schema_names()) if name is None else schema_text(name), nl=name is None)


@app.command()
def calibrate(
    pack: str = typer.Argument(..., metavar="PACK", help="The pack the plays were played on (made with grading)."),
    plays: str = typer.Argument(..., metavar="PLAYS", help="CSV or JSON Lines: level, attempts, clears (or level, "
                                "cleared per attempt)."),
    out: Optional[str] = typer.Option(None, "--out", metavar="FILE", help="Write the llkgen.calibration/1 file here."),
    as_json: bool = typer.Option(False, "--json", help=json_help("calibrate")),
    seed: int = typer.Option(0, "--seed", min=0, max=MAX_SEED, help="Seeds the folds and the bootstrap."),
) -> None:
    """Fit how a pack's measured features predict your players' clear rate, and check it on held-out levels.

    Exit 0 when fitted; 1 when the plays cannot support a fit (too few levels or attempts,
    levels not in the pack), naming them. docs/calibration.md walks from plays to a ramp.

    Example: llkgen calibrate output/medium.json plays.csv --out medium.calibration.json
    """
    from llkgen.jobs.calibrate import calibrate as fit_plays
    from llkgen.jobs.calibrate import report_text, write_calibration

    cal = fit_plays(pack, plays, seed)
    if out is not None:
        write_calibration(cal, out)
    typer.echo(json_dumps(cal.to_json()) if as_json else report_text(cal))


# Every example runs as printed, on a terminal of any width (tests/test_cli_help.py).
for _command in app.registered_commands:
    if _command.callback is not None:
        _command.callback.__doc__ = example_kept_whole(_command.callback.__doc__)


def main() -> None:
    """The ``llkgen`` console script: runs the Typer app and turns library errors and signals
    into the documented messages and exit codes (:func:`llkgen.console.run_app`)."""
    run_app(app)
