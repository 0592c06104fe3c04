"""``llkgen verify``: certify every level of level files, packs and directories, for CI, with a
report as text, JSON, GitHub annotations, JUnit XML and a markdown summary."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from llkgen.cli.options import BUDGET_HELP, Jobs, Scheduler, budget_flag, json_flag
from llkgen.console import run_deadline
from llkgen.files import check_writable
from llkgen.verifier.verdict import DEFAULT_NODES


def verify(
    paths: list[Path] = typer.Argument(
        ..., metavar="PATH",
        help="Level files, pack files, pack directories, or directories (searched recursively for *.json and pack "
             "directories)."),
    as_json: Annotated[bool, json_flag("verify")] = False,
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
    nodes: Optional[int] = typer.Option(
        None, "--nodes", min=1,
        help=f"Search-node budget of each level searched (default: the level's recorded budget, else "
             f"{DEFAULT_NODES}); deterministic: the same answer on every machine."),
    budget: Annotated[Optional[float], budget_flag(
        f"{BUDGET_HELP}: each level searched gets at most the time left, and what is not checked when it runs "
        "out is unknown, exit 4. Makes the verdicts machine-dependent. Not with --scheduler.")] = None,
    resolve: bool = typer.Option(
        False, "--resolve", help="Search every level, also those a stored solution certifies (slower)."),
    jobs: Jobs = None,
    scheduler: Scheduler = None,
    quiet: bool = typer.Option(
        False, "--quiet", "-q",
        help="Print nothing but the levels and files that are not certified, and the summary (the --json "
             "document is printed as usual)."),
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
