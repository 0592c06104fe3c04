"""Pack export: certified levels to a deterministic ``llkgen.pack/1`` file.

The bytes written depend only on the spec (after command-line overrides) and llkgen's version:
no timestamps, no timings, no host names, keys in a fixed order, and levels in index order
whatever the number of worker processes. The file is written atomically (a temporary file
beside it, fsynced, then renamed), so an interrupted run leaves the previous pack untouched.

Each level carries ``seed`` (its own, see :func:`llkgen.generation.generator.level_seed`), ``metrics``,
``certificate`` ``{verdict, method, budget, stats}`` and, unless ``export.solutions`` is false,
``solution`` (the verifier's witness, replayed by the referee).

The spec's ``export.grid`` and ``export.layout`` (:mod:`llkgen.formats.shapes`) say how the levels are
written: nested or flat (:mod:`llkgen.formats.flat`), in one pack or one file per level
(:mod:`llkgen.formats.packfiles`). Levels are made, journalled and sharded nested, whatever the shape,
and take their shape only as the pack is written.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Callable

import llkgen.generation.generator as generate
from llkgen.errors import BudgetExhausted, LevelFormatError, budget_arguments, budget_text
from llkgen.execution.base import (
    TRIES,
    Executor,
    ProcessExecutor,
    SchedulerLost,
    WorkerFailure,
    WorkersDied,
    out_of_time,
)
from llkgen.files import check_writable, prepare_dir, write_lines_atomic
from llkgen.formats.container import check_pack_dir_target
from llkgen.formats.flat import flat_level_json
from llkgen.formats.level import PACK_FORMAT, level_to_json, write_json_atomic
from llkgen.formats.packdir import PART_LEVELS, write_pack_dir
from llkgen.formats.packfiles import write_pack_files
from llkgen.formats.shapes import FILES_LAYOUT_MAX, GridShape, Layout
from llkgen.generation.generator import GeneratedLevel
from llkgen.generation.spec import Spec
from llkgen.jobs.pack import level_of
from llkgen.jobs.shards import Shard, open_shards, shard_lines, spec_identity
from llkgen.jobs.spool import SOLUTION_KEY, Journal, MemorySpool, temporary_journal_path

#: The most levels a pack file holds; a bigger pack is written as a pack directory
#: (:func:`llkgen.formats.packdir.write_pack_dir`), with as many levels per part.
PACK_FILE_MAX = PART_LEVELS


@dataclass(frozen=True)
class LevelSummary:
    """What ``llkgen make`` reports about a level it made (or found in a journal)."""

    index: int
    id: str
    seed: int
    attempts: int
    metrics: dict
    #: The ladder's tier and clear rates (the level's ``players``), if it was measured.
    players: dict | None = None

    @classmethod
    def of(cls, record: dict) -> LevelSummary:
        level = record["level"]
        return cls(record["index"], level.get("id"), level.get("seed"), record["attempts"],
                   level.get("metrics", {}), level.get("players"))


@dataclass(frozen=True)
class MakeResult:
    """The file (or pack directory) written and its levels, in index order. ``resumed`` of
    them came from a journal."""

    path: Path
    levels: list[LevelSummary]
    resumed: int = 0
    #: One message per journal record that failed its check (:func:`llkgen.jobs.spool.parse_record`)
    #: and whose level was therefore made again.
    dropped: tuple[str, ...] = ()


#: The format of ``llkgen make --json``'s report.
MAKE_REPORT_FORMAT = "llkgen.make-report/1"


def make_report(result: MakeResult, spec: Spec, part: Shard | None, *, jobs: int, seconds: float, resume: bool,
                scheduler: str | None) -> dict:
    """``llkgen make --json``'s summary of a run: where the pack went (a shard file when
    ``part`` is given), how it was made, and each level's id, seed, attempts and metrics."""
    report: dict = {
        "format": MAKE_REPORT_FORMAT, "path": str(result.path), "name": spec.name,
        "seed": spec.seed, "strategy": spec.generator.strategy, "jobs": jobs,
        "seconds": round(seconds, 3),
        "levels": [{"id": lv.id, "seed": lv.seed, "attempts": lv.attempts, "metrics": lv.metrics,
                    **({} if lv.players is None else {"players": lv.players})} for lv in result.levels],
    }
    if part is not None:
        report["shard"] = str(part)
    if resume:
        report["resumed"] = result.resumed
    if scheduler is not None:
        report["scheduler"] = scheduler
    return report


def level_record(spec: Spec, lv: GeneratedLevel) -> dict:
    """``lv`` as a record (see :mod:`llkgen.jobs.spool`): its level object exactly as the pack
    holds it and, when that holds no solution (``export.solutions: false``), the certified
    solution beside it, so that wherever the record is read back its level can be replayed."""
    level = level_of(spec, lv)
    record = {"index": lv.index, "attempts": lv.attempts, "level": level_to_json(level)}
    if level.solution is None:
        record[SOLUTION_KEY] = lv.solution
    return record


def make_record(spec: Spec, index: int) -> dict:
    """Level ``index`` of ``spec`` made and turned into a record: the unit of work sent to
    worker processes and clusters (plain JSON data, small to send back)."""
    return level_record(spec, generate.generate_level(spec, index))


def pack_header(identity: dict) -> dict:
    """The top-level keys of the pack, in :func:`~llkgen.jobs.pack.build_pack`'s order, but ``levels``."""
    return {"format": PACK_FORMAT, "name": identity["name"], "generator": identity["generator"],
            "seed": identity["seed"]}


def is_directory(count: int, layout: Layout = Layout.PACK) -> bool:
    """Whether a pack of ``count`` levels in ``layout`` is written as a directory: always for
    ``files``, past :data:`PACK_FILE_MAX` levels for ``pack``."""
    return layout == Layout.FILES or count > PACK_FILE_MAX


def pack_path(path: str | os.PathLike, count: int, layout: Layout = Layout.PACK) -> Path:
    """Where a pack of ``count`` levels goes for ``--out path``: the file itself, or, for a
    directory (:func:`is_directory`), a directory named like it without ``.json``
    (``output/big.json`` -> ``output/big``)."""
    p = Path(path)
    if is_directory(count, layout) and p.name.endswith(".json"):
        return p.with_name(p.name[:-len(".json")])
    return p


def check_output(path: str | os.PathLike, count: int, layout: Layout = Layout.PACK) -> Path:
    """Raise :class:`~llkgen.errors.OutputError` now if the pack could not be written."""
    p = pack_path(path, count, layout)
    if not is_directory(count, layout):
        return check_writable(p)
    check_pack_dir_target(p)
    prepare_dir(p.parent)
    return p


def shaped(level: dict, grid: GridShape) -> dict:
    """A nested level object (as records hold it) in the shape ``grid``."""
    return flat_level_json(level, f"level {level.get('id')}") if grid == GridShape.FLAT else level


def write_pack(path: str | os.PathLike, identity: dict, records: Iterable[dict],
               grid: GridShape = GridShape.NESTED, layout: Layout = Layout.PACK) -> Path:
    """Write the pack of ``records`` (every level, in index order) atomically, its levels in
    the shape ``grid``: one ``llkgen.pack/1`` file, or a pack directory past
    :data:`PACK_FILE_MAX` levels, or with ``layout`` files one file per level (see
    :func:`pack_path`). The bytes depend only on the records, ``identity`` and the shape."""
    header = pack_header(identity)
    count = identity["count"]
    levels = (shaped(r["level"], grid) for r in records)
    if layout == Layout.FILES:
        return write_pack_files(pack_path(path, count, layout), header, levels)
    if count > PACK_FILE_MAX:
        return write_pack_dir(pack_path(path, count), header, levels, per_file=PACK_FILE_MAX)
    return write_json_atomic(path, {**header, "levels": list(levels)})


def journal_path(out: str | os.PathLike) -> Path:
    """The journal of ``make --resume`` for the output ``out``: ``out.journal`` beside it."""
    p = Path(out)
    return p.with_name(p.name + ".journal")


def _until(deadline: float | None, records: Iterable[dict], stop: Callable[[int], BudgetExhausted]) -> Iterator[dict]:
    """``records``, checking ``deadline`` before each: past it, ``stop(k)`` is raised, ``k``
    the records handed over so far (inside an atomic writer, so that nothing is written)."""
    for k, record in enumerate(records):
        if out_of_time(deadline):
            raise stop(k)
        yield record


def make_pack(spec: Spec, jobs: int = 1,
              on_level: Callable[[LevelSummary], None] | None = None, *,
              executor: Executor | None = None, shard: Shard | None = None,
              resume: bool = False, deadline: float | None = None, budget: float | None = None,
              on_dropped: Callable[[str], None] | None = None) -> MakeResult:
    """Generate every level of ``spec`` (or of ``shard`` of it) and write the pack (or the shard
    file) to ``spec.export.path``. Any ``shard`` given, ``Shard(0, 1)`` included, writes a shard
    file (:mod:`llkgen.jobs.shards`), which ``llkgen merge`` turns into the pack; ``None``
    writes the pack.

    The levels run on ``executor`` (default: a process pool of ``jobs``). ``on_level`` is called
    for each level in index order as it is made (and first for each level found in the
    journal). Nothing is written unless every level was generated and certified; a failure
    raises :class:`~llkgen.errors.GenerationError` and leaves any previous pack as it was.

    With ``resume``, each made level is first appended to :func:`journal_path` (fsynced), and
    levels already there are not made again. A journal of another spec, seed, count, shard or
    llkgen version is an error, not a silent restart: that journal names a different pack.
    The journal is removed once the pack is written; a failed run (a full disk included, as
    :class:`~llkgen.errors.OutputError`) keeps it with every complete line it had.

    Every level written is certified: made and replayed in this run, or, when read back from
    the journal, re-validated and replayed by the referee again (:func:`llkgen.jobs.spool.parse_record`).
    A journal record that fails that check, in a journal whose header matches this run, is
    dropped and its level made again, before any level new to the journal; ``on_dropped`` is
    called with each such record's error as soon as the journal is read, and
    ``MakeResult.dropped`` lists them. Re-making is what a
    user of ``--resume`` wants: the header proves the journal is this run's, so a damaged line
    (a disk error, a hand edit) costs one level's work, not an error that asks to delete hours
    of finished levels. A journal of another run is still an error, as above.

    ``deadline`` (a :func:`time.perf_counter` value; ``budget`` is the number of seconds it
    stands for, named in the message) bounds the whole run: reading the journal back, making
    the levels (workers still busy are terminated at it, see
    :meth:`~llkgen.execution.base.Executor.imap_ordered`) and writing the output. When it
    passes first, :class:`~llkgen.errors.BudgetExhausted` says how many levels were finished;
    nothing is written (a previous pack or shard file is left as it was), and with ``resume``
    the journal keeps every level finished, so a rerun continues from there."""
    executor = executor or ProcessExecutor(jobs)
    identity = spec_identity(spec)
    part = shard or Shard()
    indices = part.indices(spec.count)
    grid, layout = spec.export.grid, spec.export.layout
    out = Path(spec.export.path) if shard is not None else pack_path(spec.export.path, spec.count, layout)
    header = {**identity, "shard": str(part)}
    spool: MemorySpool | Journal
    if resume:
        spool = Journal.open(journal_path(out), header, resume=True)
    elif len(indices) > PACK_FILE_MAX:
        spool = Journal.open(temporary_journal_path(out), header, resume=False, durable=False)
    else:
        spool = MemorySpool()
    made: dict[int, LevelSummary] = {}
    dropped = tuple(spool.dropped) if isinstance(spool, Journal) else ()
    if on_dropped is not None:
        for note in dropped:
            on_dropped(note)

    def out_of_budget(writing: bool = False) -> BudgetExhausted:
        where = " (while writing the output)" if writing else ""
        held = f"{len(made)} level{'s' if len(made) != 1 else ''}"
        keep = (f", and the journal {spool.path} holds {held} (rerun with resume to continue)"
                if isinstance(spool, Journal) and resume else " (rerun with resume to keep going)")
        return BudgetExhausted(f"{spec.source}: {budget_text(budget)} ran out after {len(made)} of {len(indices)} "
                               f"levels{where}; nothing was written{keep}",
                               arguments=(*budget_arguments(budget), "resume"))

    try:
        wanted = set(indices)
        if isinstance(spool, Journal):
            for record in _until(deadline, spool.records(), lambda k: out_of_budget()):
                if record["index"] in wanted:
                    made[record["index"]] = summary = LevelSummary.of(record)
                    if on_level is not None:
                        on_level(summary)
        resumed = len(made)

        try:
            # Closed explicitly: when on_level or the spool raises (Ctrl-C included), the workers
            # stop now, not whenever the generator is collected.
            redo = set(spool.redo) if isinstance(spool, Journal) else set()
            todo = sorted(i for i in indices if i not in made and i in redo) + \
                [i for i in indices if i not in made and i not in redo]  # the dropped levels first
            with closing(executor.imap_ordered(partial(make_record, spec), todo, deadline=deadline)) as records:
                for record in records:
                    spool.add(record)
                    made[record["index"]] = summary = LevelSummary.of(record)
                    if on_level is not None:
                        on_level(summary)
        except BudgetExhausted:
            raise out_of_budget() from None
        except WorkerFailure as e:
            if isinstance(e, SchedulerLost):  # no level failed: the cluster went, with every level on it
                left = f"{len(indices) - len(made)} of {len(indices)} levels were not made"
                # The journal holds every level in ``made``: each is added before it counts.
                kept = (f"; the journal {spool.path} keeps the {len(made)} made (rerun with resume to make the rest)"
                        if resume and isinstance(spool, Journal) else
                        ", and nothing was written (rerun with resume to keep each level as it is made)")
                lost = SchedulerLost(f"{spec.source}: {e.lost}: {left}{kept}", e.lost, e.arg)
                lost.arguments = ("resume",)
                raise lost from None
            i = e.arg if isinstance(e.arg, int) else -1
            where = f"{spec.source}: level {i + 1} of {spec.count} (index {i})"
            if isinstance(e, WorkersDied):  # Dask gave up on the level: its own limit, not our tries
                raise WorkerFailure(f"{where}: {e.cause}", i, e.error) from None
            raise WorkerFailure(f"{where}: failed {TRIES} times on the cluster, last with "
                                f"{type(e.error).__name__}: {e.error}", i, e.error) from None
        if out_of_time(deadline):
            raise out_of_budget(writing=True)
        stored = _until(deadline, spool.records(indices), lambda k: out_of_budget(writing=True))
        if shard is None:
            path = write_pack(out, identity, stored, grid, layout)
        else:
            path = write_lines_atomic(out, shard_lines(identity, shard, stored, len(indices), grid, layout))
    except BaseException:
        spool.close(remove=not resume)
        raise
    spool.close(remove=True)
    return MakeResult(path, [made[i] for i in indices], resumed, dropped)


@dataclass(frozen=True)
class MergeResult:
    path: Path
    count: int
    shards: int


def merge_shards(paths: list[str | os.PathLike], out: str | os.PathLike, *, deadline: float | None = None,
                 budget: float | None = None) -> MergeResult:
    """Merge shard files (see :mod:`llkgen.jobs.shards`) into the pack a single ``make`` would have
    written, byte for byte, at ``out`` (a directory past :data:`PACK_FILE_MAX` levels, or for
    the ``files`` layout), in the grid shape and layout the shards record. A missing,
    duplicated or foreign shard, or a damaged line, raises
    :class:`~llkgen.errors.LevelFormatError` naming it; nothing is written then.

    Shard files are input: every record is read through :func:`llkgen.jobs.spool.parse_record`,
    which parses it strictly, re-validates its level object and has the referee replay its
    stored solution to a cleared board before it is written. A level that fails is
    ``SHARD line N: level ID: stored solution fails: ...``, and nothing is written.

    ``deadline`` (a :func:`time.perf_counter` value; ``budget`` is the number of seconds it
    stands for, named in the message) is checked before each record: once it has passed,
    :class:`~llkgen.errors.BudgetExhausted` says how many levels were merged, and nothing is
    written (the atomic writer removes its temporary file)."""
    shards = open_shards(paths)
    try:
        if shards.layout == Layout.FILES and shards.count > FILES_LAYOUT_MAX:
            raise LevelFormatError(f"{paths[0]}: line 1: layout: expected pack for {shards.count} levels, found "
                                   f"files (at most {FILES_LAYOUT_MAX} levels, one file each)")
        check_output(out, shards.count, shards.layout)

        def out_of_budget(k: int) -> BudgetExhausted:
            return BudgetExhausted(f"{out}: {budget_text(budget)} ran out after {k} of {shards.count} levels; "
                                   "nothing was written", arguments=budget_arguments(budget))

        if out_of_time(deadline):
            raise out_of_budget(0)
        records = _until(deadline, shards.records(), out_of_budget)
        path = write_pack(out, shards.identity, records, shards.grid, shards.layout)
    finally:
        shards.close()
    return MergeResult(path, shards.count, len(paths))

