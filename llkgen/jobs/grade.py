"""``llkgen grade``: every level of a level file, a pack or a pack directory measured afresh
(:func:`llkgen.analysis.audit.regrade`), in pack order, into one :class:`GradeReport`.

Levels are read as they are measured (a pack directory is streamed) and measured on an
executor, in order; the report is the same at any ``jobs``, since each level's numbers depend
only on the level, the seed and the limits.

With a ``deadline`` (a :func:`time.perf_counter` value): each level stops measuring at it and
reports what it got (``partial``); no level starts after it; the executor ends the workers
still busy :data:`STOP_GRACE` after it; every level whose result was not back by then, and
every level not started, is ``not measured``. The levels of a pack directory are no longer read once the
deadline has passed (the report says from which level on it stopped).
"""

from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from itertools import chain

from llkgen.analysis.audit import LevelAudit, regrade
from llkgen.analysis.calibration import Calibration, load_calibration
from llkgen.analysis.difficulty import MAX_RUNS, PRECISION
from llkgen.errors import EXIT_OK, EXIT_UNKNOWN, BudgetExhausted, budget_text
from llkgen.execution.base import Executor, ProcessExecutor, out_of_time
from llkgen.formats.level import Level
from llkgen.formats.load import iter_levels, load_level_ref, load_levels, read_pack_index
from llkgen.text import printable

#: The ``format`` of the ``--json`` report.
REPORT_FORMAT = "llkgen.grade-report/2"

#: How long after the deadline the workers are stopped: each level stops itself at the
#: deadline (between batches and gradings); this is its time to hand back what it got.
STOP_GRACE = 0.2

#: How long after the deadline levels already in memory are still listed one by one.
LIST_GRACE = 0.1


@dataclass(frozen=True)
class GradeTask:
    """One level to measure: :func:`regrade`'s arguments as one picklable value."""

    label: str
    index: int
    level: Level
    seed: int
    precision: float
    max_runs: int
    deadline: float | None = None
    calibration: Calibration | None = None


def grade_task(task: GradeTask) -> LevelAudit | NotMeasured:
    """:func:`regrade` of ``task``: the call an executor runs. A task the executor reaches only
    after the deadline (it was queued behind others) is :class:`NotMeasured`: no level starts
    after the deadline."""
    if out_of_time(task.deadline):
        return NotMeasured(task.label, task.level.id, task.index)
    return regrade(task.level, task.seed, precision=task.precision, max_runs=task.max_runs,
                   deadline=task.deadline, label=task.label, index=task.index, calibration=task.calibration)


@dataclass(frozen=True)
class NotMeasured:
    """A level the deadline left unmeasured."""

    label: str
    id: str | None
    index: int

    def to_json(self) -> dict:
        return {"label": self.label, "id": self.id, "index": self.index, "status": "not measured"}


@dataclass
class GradeReport:
    """What ``llkgen grade`` found: every level, measured (:class:`LevelAudit`) or not
    (:class:`NotMeasured`), in pack order."""

    seed: int
    precision: float
    max_runs: int
    levels: list[LevelAudit | NotMeasured] = field(default_factory=list)
    #: Set when the deadline stopped the reading of a pack directory: the first level not read.
    unread_from: str | None = None
    budget: float | None = None

    @property
    def measured(self) -> list[LevelAudit]:
        return [a for a in self.levels if isinstance(a, LevelAudit)]

    @property
    def budget_ran_out(self) -> bool:
        return (self.unread_from is not None
                or any(isinstance(a, NotMeasured) or not a.complete for a in self.levels))

    @property
    def exit_code(self) -> int:
        return EXIT_UNKNOWN if self.budget_ran_out else EXIT_OK

    def summary(self) -> dict:
        done = self.measured
        moved = [a.label for a in done if a.moved]
        return {
            "levels": len(self.levels),
            "measured": sum(a.complete for a in done),
            "partial": sum(not a.complete for a in done),
            "not_measured": len(self.levels) - len(done),
            "unread_from": self.unread_from,
            "moved": len(moved),
            "moved_levels": moved,
            "no_stored_difficulty": sum(a.moved is None for a in done),
            "tiers": {t: sum(a.tier == t for a in done) for t in dict.fromkeys(a.tier for a in done)},
        "tier_changed": sum(bool(a.tier_changed) for a in done),
        }

    def to_json(self) -> dict:
        return {"format": REPORT_FORMAT, "seed": self.seed, "precision": self.precision,
                "max_runs": self.max_runs, "levels": [a.to_json() for a in self.levels],
                "summary": self.summary()}


def _sources(source: str) -> tuple[Iterator[tuple[int, str, Level]], bool]:
    """``(index, label, level)`` for every level ``source`` names, and whether they are all in
    memory already. ``source`` is a level file, a pack file, a pack directory or ``PACK#ID``
    (``index`` is then the level's position when ``ID`` is one, else 0): a
    :class:`~llkgen.errors.LlkgenError` if it is none of them."""
    if os.path.isdir(source):
        return ((i, label, lv) for i, (label, lv) in enumerate(iter_levels(source))), False
    if "#" in source and not os.path.lexists(source):
        lv = load_level_ref(source)
        wanted = source.rpartition("#")[2]
        return iter([(int(wanted) if lv.id is None and wanted.isdigit() else 0, source, lv)]), True
    return iter([(i, label, lv) for i, (label, lv) in enumerate(load_levels(source))]), True


def level_count(source: str) -> int:
    """How many levels :func:`grade_levels` measures from ``source``, for a progress display:
    a pack directory's index says; a level file or ``PACK#ID`` is one level; a pack file is read
    (a second time: its levels are parsed again when measured, a small cost beside measuring)."""
    if os.path.isdir(source):
        return read_pack_index(source).count
    if "#" in source and not os.path.lexists(source):
        return 1
    return len(load_levels(source))


def grade_levels(source: str, seed: int = 0, *, precision: float = PRECISION, max_runs: int = MAX_RUNS,
                 jobs: int = 1, executor: Executor | None = None, deadline: float | None = None,
                 budget: float | None = None, calibration: str | None = None,
                 on_level: Callable[[LevelAudit | NotMeasured], None] | None = None) -> GradeReport:
    """Measure every level of ``source`` afresh (see the module docstring); ``on_level`` sees
    each result in order as it comes. ``budget`` is the number of seconds ``deadline`` came
    from, for messages. ``calibration`` names a ``llkgen.calibration/1`` file: each level then
    carries its players' predicted clear rate. Raises :class:`~llkgen.errors.LlkgenError` for a source that cannot be
    read (for a part of a pack directory found bad midway: after the levels before it)."""
    report = GradeReport(seed, precision, max_runs, budget=budget)
    model = None if calibration is None else load_calibration(calibration)
    levels, in_memory = _sources(source)
    if executor is None:
        count = levels.__length_hint__() if in_memory else jobs  # type: ignore[attr-defined]
        executor = ProcessExecutor(max(1, min(jobs, count)))

    def add(res: LevelAudit | NotMeasured) -> None:
        report.levels.append(res)
        if on_level is not None:
            on_level(res)

    owed: deque[GradeTask] = deque()  # handed to the executor, result not yet seen
    cut: list[tuple[int, str, Level]] = []  # the first level not started: the deadline had passed

    def tasks() -> Iterator[GradeTask]:
        for i, label, lv in levels:
            if out_of_time(deadline):
                cut.append((i, label, lv))
                return
            task = GradeTask(label, i, lv, seed, precision, max_runs, deadline, model)
            owed.append(task)
            yield task

    stop = None if deadline is None else deadline + STOP_GRACE
    try:
        # Closed explicitly: when on_level raises (Ctrl-C included), the workers stop now.
        with closing(executor.imap_ordered(grade_task, tasks(), deadline=stop)) as results:
            for res in results:
                owed.popleft()
                add(res)
        ran_out = bool(cut)
    except BudgetExhausted:
        ran_out = True
        for task in owed:
            add(NotMeasured(task.label, task.level.id, task.index))
    for i, label, lv in chain(cut, levels) if ran_out else ():
        # The rest, listed while that is cheap (a pack file is in memory), else named from where.
        if not in_memory and time.perf_counter() > (deadline or 0.0) + LIST_GRACE:
            report.unread_from = label
            break
        add(NotMeasured(label, lv.id, i))
    return report


def level_line(a: LevelAudit | NotMeasured) -> str:
    """One level of the text report."""
    if isinstance(a, NotMeasured):
        return printable(f"{a.label}  not measured")
    d, drift = a.difficulty, a.drift
    score = f"difficulty {d.score:5.1f} ± {d.se:.1f}"
    moved = drift.get("difficulty")
    if moved is not None:
        score += f" (stored {a.stored['difficulty']:g}, {moved.value:+.1f}{' MOVED' if moved.moved else ''})"
    tier = f"tier {a.tier}"
    if a.tier_changed:
        tier += f" (stored {a.stored['tier']})"
    prof = a.profile
    if not prof.monotone:
        tier += f" ({prof.text()})"
    rates = " ".join(f"{m} {d.rates[m].rate:.2f}±{d.rates[m].se:.2f}" for m, _ in prof.rates)
    parts = [printable(a.label), score, tier, f"clear rates weak to strong {rates}", f"pairs {a.pairs}",
             f"{d.runs} runs"]
    p = a.predicted
    if p is not None:
        parts.insert(3, f"predicted clear rate {p.rate:.2f} ± {p.se:.2f} [{p.low:.2f}, {p.high:.2f}]")
    if not a.complete:
        parts.append("(partial)")
    return "  ".join(parts)


def summary_line(report: GradeReport, seconds: float) -> str:
    """The last line of the text report."""
    s = report.summary()
    text = (f"graded {s['measured']} of {s['levels']} levels with seed {report.seed} in {seconds:.1f} s: "
            f"{s['moved']} moved by more than 2 SE from the stored difficulty")
    if s["no_stored_difficulty"]:
        text += f" ({s['no_stored_difficulty']} without a stored score or its error)"
    if s["partial"] or s["not_measured"] or s["unread_from"]:
        text += (f"; {budget_text(report.budget)} ran out: {s['partial']} partial, "
                 f"{s['not_measured']} not measured")
        if s["unread_from"]:
            text += f", none read from {s['unread_from']} on"
    return text
