"""The commands that make packs: ``init`` writes a starter spec, ``make`` builds a pack from a
spec (whole, or one shard of it, resumable), and ``merge`` joins the shards."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Annotated, Optional

import typer

from llkgen.cli.options import (
    JOBS_HELP,
    WRITE_BUDGET_HELP,
    Quiet,
    Scheduler,
    budget_flag,
    json_flag,
)
from llkgen.console import deadline_after, made_lines, plural, progress, run_deadline, shipped_note
from llkgen.errors import OutputError
from llkgen.files import check_writable, write_text_atomic
from llkgen.generation.limits import MAX_COUNT, MAX_SEED, shipped_fallback, shipped_specs
from llkgen.outputs import merge_report_json
from llkgen.text import json_dumps, printable


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


def make(
    config: str = typer.Option(
        ..., "--config", metavar="SPEC",
        help="A YAML spec file, or the name of a shipped spec: " + ", ".join(shipped_specs()) + " (NAME.yaml "
        "too, when no such file is here)."),
    out: Optional[Path] = typer.Option(
        None, "--out",
        help="Pack file to write (default: the spec's export.path). A pack of more than 10000 levels, or one "
             "with export.layout files, is a directory, named without .json. With --shard: the shard file "
             "(default: PACK.shard-K-of-N.jsonl)."),
    count: Optional[int] = typer.Option(
        None, "--count", min=1, max=MAX_COUNT, help="Number of levels (overrides the spec's count)."),
    seed: Optional[int] = typer.Option(
        None, "--seed", min=0, max=MAX_SEED, help="Pack seed (overrides the spec's seed)."),
    jobs: Optional[int] = typer.Option(
        None, "--jobs", min=1, help=f"{JOBS_HELP} The pack is byte-identical for every value."),
    shard: Optional[str] = typer.Option(
        None, "--shard", metavar="K/N",
        help="Make only the levels i with i mod N = K (0 <= K < N) into a shard file; join the N shards with "
             "llkgen merge."),
    resume: bool = typer.Option(
        False, "--resume",
        help="Journal each finished level in OUT.journal and, after an interruption, skip the levels already "
             "there (each replayed by the referee again; one that fails is made again). The journal is removed "
             "once the pack is written."),
    scheduler: Scheduler = None,
    budget: Annotated[Optional[float], budget_flag(
        f"{WRITE_BUDGET_HELP} With --resume the journal keeps every level finished. Not with --scheduler.")] = None,
    as_json: Annotated[bool, json_flag("make")] = False,
    quiet: Quiet = False,
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


def merge(
    shards: list[Path] = typer.Argument(..., metavar="SHARD", help="Every shard file of one pack (make --shard)."),
    out: Path = typer.Option(
        ..., "--out",
        help="The pack to write (a directory, named without .json, past 10000 levels or for export.layout files)."),
    budget: Annotated[Optional[float], budget_flag(WRITE_BUDGET_HELP)] = None,
    as_json: Annotated[bool, json_flag("merge")] = False,
    quiet: Quiet = False,
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
        typer.echo(json_dumps(merge_report_json(str(result.path), result.count, result.shards)))
    elif not quiet:
        typer.echo(f"wrote {plural(result.count, 'certified level')} from {plural(result.shards, 'shard')} "
                   f"to {result.path}")
