"""The commands that measure difficulty: ``grade`` re-measures levels with the model players,
and ``calibrate`` fits a pack's measures to a studio's play data."""

from __future__ import annotations

import os
import time
from typing import Annotated, Optional

import typer

from llkgen.cli.options import BUDGET_HELP, Jobs, Quiet, budget_flag, json_flag
from llkgen.console import deadline_after, progress, with_flags
from llkgen.errors import budget_arguments
from llkgen.generation.limits import MAX_SEED
from llkgen.text import json_dumps


def grade(
    source: str = typer.Argument(
        ..., metavar="LEVEL|PACK", help="A level file, PACK.json#ID, a pack file or a pack directory."),
    seed: int = typer.Option(0, "--seed", min=0, max=MAX_SEED, help="Seeds every measurement, with each level's id."),
    as_json: Annotated[bool, json_flag("grade")] = False,
    budget: Annotated[Optional[float], budget_flag(
        f"{BUDGET_HELP}: each level reports what it measured by then, levels not reached are not measured, "
        "exit 4. Makes the numbers machine-dependent.")] = None,
    jobs: Jobs = None,
    precision: float = typer.Option(
        1.5, "--precision", metavar="POINTS", min=0.25, max=50,
        help="The standard error the difficulty score is measured to, in points (default 1.5, as make does): "
             "batches of 32 playthroughs until it is reached, at most 1024 per model player."),
    quiet: Quiet = False,
    calibration: Optional[str] = typer.Option(
        None, "--calibration", metavar="FILE", help="Also predict your players' clear rate (llkgen calibrate)."),
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


def calibrate(
    pack: str = typer.Argument(..., metavar="PACK", help="The pack the plays were played on (made with grading)."),
    plays: str = typer.Argument(
        ..., metavar="PLAYS", help="CSV or JSON Lines: level, attempts, clears (or level, cleared per attempt)."),
    out: Optional[str] = typer.Option(None, "--out", metavar="FILE", help="Write the llkgen.calibration/1 file here."),
    as_json: Annotated[bool, json_flag("calibrate")] = False,
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
