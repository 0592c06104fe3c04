"""The commands that draw levels: ``render`` writes an SVG preview per level (and its solution,
step by step), ``view`` one HTML page to browse and play a pack."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from llkgen.cli.options import BUDGET_HELP, WRITE_BUDGET_HELP, Quiet, budget_flag
from llkgen.console import deadline_after, plural, with_flags
from llkgen.errors import budget_arguments
from llkgen.files import check_writable
from llkgen.text import printable

#: Levels one viewer page holds by default: a page of 1,000 easy levels is 0.8 MB and stays
#: quick in a browser; one of 100,000 would be 80 MB, more for bigger boards.
VIEW_LEVELS = 1000


def render(
    source: Path = typer.Argument(..., metavar="PACK|LEVEL", help="A pack or level JSON file, or a pack directory."),
    out: Path = typer.Option(..., "--out", help="Directory for the SVG files (created if missing)."),
    solution: bool = typer.Option(
        False, "--solution", help="Also write <id>.solution.svg: each level's certified removal order, step by step."),
    budget: Annotated[Optional[float], budget_flag(
        f"{BUDGET_HELP}: no level starts after it, the levels not rendered are counted, exit 4; "
        "every file written is whole.")] = None,
    quiet: Quiet = False,
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


def view(
    pack: Path = typer.Argument(..., metavar="PACK", help="A llkgen.pack/1 JSON file or a pack directory."),
    out: Path = typer.Option(..., "--out", help="The HTML file to write."),
    start: int = typer.Option(0, "--start", min=0, help="0-based index of the first level on the page."),
    limit: int = typer.Option(
        VIEW_LEVELS, "--limit", min=1, help="Most levels on one page; a bigger pack is cut, with a note."),
    budget: Annotated[Optional[float], budget_flag(WRITE_BUDGET_HELP)] = None,
    quiet: Quiet = False,
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
