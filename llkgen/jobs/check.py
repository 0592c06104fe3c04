"""``llkgen verify PATH...``: re-certify level files, packs and pack directories, for a
studio's CI.

A stored ``certificate`` is never believed. A level is certified in one of two ways, and the
report names the ``method``:

* ``replay``: the level stores a ``solution`` and the referee (:func:`llkgen.game.referee.replay`)
  replays it move by move to a cleared board. That is a complete proof on its own, so the
  level is not searched. A stored solution that does not replay is a failed check: the pack
  ships a wrong solution, and a player or a tool reading it would be misled.
* ``search``: the level stores no solution (or ``resolve`` is set), and the verifier decides
  it within its budget.

With ``resolve`` every level is searched, as a check of the verifier and of the levels
together; a stored solution is still replayed, a failing one is still a failed check, and a
level the search leaves undecided is certified by ``replay`` when its stored solution clears
the board.

The outcome of each check (:class:`~llkgen.jobs.check_report.CheckStatus`, the reports' ``check``),
and the exit code each one forces (the worst wins, in the order 1 > 3 > 4 > 0):

========== ==== ===============================================================
ok         0    certified (by ``replay`` or ``search``)
unknown    4    the search's budget (nodes or seconds) ran out and no stored solution helped;
                or, for a level or a file, the whole run's ``seconds`` ran out before it was
                checked
unsolvable 3    the search proved the level cannot be cleared
failed     1    the stored solution does not replay, or contradicts the search
invalid    1    a file could not be read or is not a valid level/pack file or pack directory
skipped    0    a file in a searched folder that is not an llkgen level or pack (not checked)
========== ==== ===============================================================

A corrupt or truncated file is reported by name and the other files are still checked. A pack
directory is streamed: levels are read, checked and reported a few at a time (one at a time
with one job, at most :func:`~llkgen.execution.base.window` ahead with more), so memory does
not grow with the number of levels (the JSON and JUnit reports are spooled to a temporary
file and written from it a level at a time). A bad line in a part stops that pack directory
there (``DIR/levels-00001.jsonl:17``), after the levels before it have been checked.
Directories are searched recursively for ``*.json`` and for pack directories (hidden files
and folders are skipped); there, a JSON file that is not an llkgen level or pack (no
``"format": "llkgen..."``) is listed as skipped rather than failed, so a level folder may
hold other JSON. A path named on the command line is always checked strictly.

The search budget is ``nodes`` when given, otherwise the budget recorded in the level's
certificate (so a pack made with ``verify.nodes: 500000`` is re-checked with the same effort),
otherwise 200 000 nodes. Nodes are deterministic: a CI verdict that depends on them never
depends on machine speed.

``seconds`` (``llkgen verify --budget``) is a wall-clock limit for the *whole* run, on top of
the nodes, like ``--budget`` of every other command: the run ends within it (plus the time to
stop the workers and write the reports), whatever the number of levels. Each level searched
gets at most the time left, so none runs past the deadline: one stopped by it is ``unknown``
("the budget of S s ran out"), and may be decided on a faster machine. Once the deadline has
passed nothing more is checked, read or replayed:

* a level already read but not yet checked (in a worker, or waiting for one) is ``unknown``,
  detail ``not checked: the budget of S s ran out``; its ``replayed`` is ``None``;
* the rest of the input is not read (reading a million levels alone takes half a minute): each
  file, pack or pack directory not finished is listed once among the files, check
  ``unknown``, detail ``not checked: ...`` (``not checked from LABEL on: ...`` for one cut
  short), and counts as unknown for the exit code.

So ``seconds=0`` checks nothing and exits 4. The verdicts of the levels that were checked stay
what ``nodes`` makes them, unless the deadline stopped their search.
"""

from __future__ import annotations

import os
import time
from collections import deque
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator

from llkgen.errors import (
    BudgetExhausted,
    LevelFormatError,
    LlkgenError,
    budget_text,
)
from llkgen.execution.base import Executor, ProcessExecutor, out_of_time
from llkgen.formats.container import DIR_FORMATS, DirKind, PackFileError, dir_kind, is_pack_dir
from llkgen.formats.level import LEVEL_FORMAT, PACK_FORMAT, levels_from_json, read_json
from llkgen.formats.load import iter_pack_dir
from llkgen.game.board import Board, Rules
from llkgen.game.referee import replay
from llkgen.jobs.check_report import REPLAY, SEARCH, CheckStatus, FileProblem, LevelResult, VerifyReport
from llkgen.text import printable
from llkgen.verifier import SOLVABLE, UNKNOWN, UNSOLVABLE, Budget, verify
from llkgen.verifier.verdict import DEFAULT_NODES, Limit

#: How long after the run's deadline the workers are stopped: each search stops itself at the
#: deadline and reports how far it got, this is its time to hand the verdict back. The run's
#: documented bound (the budget plus 0.5 s) leaves room for it and for writing the reports.
STOP_GRACE = 0.2


# -- finding files -------------------------------------------------------------------------------
def collect(paths: Iterable[str | os.PathLike]) -> list[tuple[Path, bool]]:
    """``(path, strict)`` for each path: files and pack directories as given (strict), other
    directories expanded to their ``*.json`` files and pack directories recursively, sorted,
    hidden entries skipped (not strict). A path that does not exist is returned as a strict
    file, so it is reported as invalid by name."""
    out: list[tuple[Path, bool]] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir() and not is_pack_dir(p):
            out.extend((f, False) for f in sorted(_walk(p)))
        else:
            out.append((p, True))
    return out


def _walk(top: Path) -> Iterator[Path]:
    """``*.json`` files and pack directories under ``top``, not looking inside a pack
    directory (its ``index.json`` is not a level file)."""
    try:
        entries = sorted(os.scandir(top), key=lambda e: e.name)
    except PermissionError:  # as Path.rglob does: an unreadable folder holds nothing
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        p = Path(entry.path)
        if entry.is_dir(follow_symlinks=False):  # as Path.rglob: never into a link's loop
            # A folder whose index.json is some other tool's valid JSON is an ordinary folder
            # (its index.json is then listed as skipped); a broken index is a broken pack.
            if dir_kind(p) in (DirKind.PACK, DirKind.BROKEN):
                yield p
            else:
                yield from _walk(p)
        elif entry.name.endswith(".json") and entry.is_file():
            yield p


def _is_llkgen(obj: object) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("format"), str) and obj["format"].startswith("llkgen.")


# -- checking one level --------------------------------------------------------------------------
def _budget_of(extra: dict, nodes: int | None) -> int:
    if nodes is not None:
        return nodes
    cert = extra.get("certificate")
    if isinstance(cert, dict) and isinstance(cert.get("budget"), dict):
        n = cert["budget"].get("nodes")
        if type(n) is int and n >= 1:
            return n
    return DEFAULT_NODES


def _moves_in(solution: object) -> int | None:
    """How many moves a stored solution holds; ``None`` when it is not a list of them."""
    return len(solution) if isinstance(solution, list) else None


def _replay_stored(board: Board, rules: Rules, solution: object) -> tuple[bool, str]:
    """``(clears, note)`` for a stored solution: whether the referee replays it to a cleared
    board, and a sentence saying so or naming the first bad move."""
    if not isinstance(solution, list):
        return False, "stored solution fails: expected a list of moves [[r1, c1], [r2, c2]]"
    result = replay(board, rules, solution)
    if result.ok and result.cleared:
        return True, f"the stored solution replays: {result.describe()}"
    return False, f"stored solution fails: {result.describe()}"


def not_checked(label: str, file: str, solution: object, nodes: int, seconds: float | None,
                resolve: bool = False) -> LevelResult:
    """The result of a level the run's time budget (``seconds``) left unchecked: ``unknown``,
    nothing replayed or searched."""
    method = REPLAY if solution is not None and not resolve else SEARCH
    return LevelResult(label, file, CheckStatus.UNKNOWN, UNKNOWN, method, "", 0, Budget(nodes, seconds),
                       None, _moves_in(solution), f"not checked: {budget_text(seconds)} ran out")


def check_level(label: str, file: str, board: Board, rules: Rules, solution: object,
                nodes: int, seconds: float | None = None, resolve: bool = False, *,
                deadline: float | None = None) -> LevelResult:
    """Certify one level. ``solution`` is the stored solution, or ``None`` for none.

    ``deadline`` (a :func:`time.perf_counter` value) is the end of the run's time budget
    ``seconds``: a level started past it is :func:`not_checked`, and its search gets the time
    left, no more. Without ``deadline``, ``seconds`` limits this level's search alone.

    Without ``resolve``, a level with a stored solution is decided by replaying it alone:
    ``ok`` by ``replay`` when it clears the board, ``failed`` when it does not; nothing is
    searched. Otherwise the verifier searches the level within ``nodes`` (and ``seconds``, if
    given), and a stored solution is replayed as well: one that fails is ``failed`` whatever
    the search found, and one that clears certifies a level the search left undecided.
    Returns ``ok`` only when the referee has accepted a solution (stored, or the verifier's
    witness, which :func:`llkgen.verifier.verify` replays before returning it)."""
    limit = seconds
    if deadline is not None:
        limit = deadline - time.perf_counter()
        if limit <= 0:
            return not_checked(label, file, solution, nodes, seconds, resolve)
    stored = solution is not None
    clears, note = _replay_stored(board, rules, solution) if stored else (False, "")
    limits, moves = Budget(nodes, seconds), _moves_in(solution)
    if stored and not resolve:
        if clears:
            return LevelResult(label, file, CheckStatus.OK, SOLVABLE, REPLAY, "", 0, limits, True, moves,
                               f"solvable: {note}")
        return LevelResult(label, file, CheckStatus.FAILED, UNKNOWN, REPLAY, "", 0, limits, False, moves,
                           f"{note} (not searched: a level is certified by its stored solution, unless "
                           "resolve asks for a search of every level)")
    verdict = verify(board, rules, Budget(nodes=nodes, seconds=limit))
    reason = verdict.reason
    if deadline is not None and verdict.limit == Limit.SECONDS:
        # The verifier names the time it was given (what was left); the user gave --budget.
        reason = f"{budget_text(seconds)} ran out during the {verdict.stats.get('stage', 'search')}"
    stage = str(verdict.stats.get("stage", ""))
    spent = int(verdict.stats.get("nodes", 0))
    replayed = clears if stored else None
    effort = f"{spent} node{'s' if spent != 1 else ''}"
    effort = f"{stage}, {effort}" if stage else effort
    method = SEARCH
    if replayed is False:
        check, detail = CheckStatus.FAILED, f"{note} (search: {verdict.status}, {effort})"
    elif verdict.status == SOLVABLE:
        check = CheckStatus.OK
        detail = f"solvable ({effort})" + (f"; {note}" if note else "")
    elif verdict.status == UNSOLVABLE and clears:
        check = CheckStatus.FAILED
        detail = ("internal contradiction: the stored solution clears the board but the search says "
                  f"unsolvable ({verdict.reason}); please report this")
    elif verdict.status == UNSOLVABLE:
        check, detail = CheckStatus.UNSOLVABLE, f"unsolvable: {verdict.reason}"
    elif clears:
        check, method = CheckStatus.OK, REPLAY
        detail = f"solvable: {note} (search undecided: {reason})"
    else:
        check, detail = CheckStatus.UNKNOWN, f"unknown: {reason}; more nodes or a larger budget may decide it"
    return LevelResult(label, file, check, verdict.status, method, stage, spent, limits, replayed, moves, detail)


@dataclass(frozen=True)
class LevelTask:
    """One level to check: :func:`check_level`'s arguments, sent as one picklable value to a
    worker process or a cluster."""

    label: str
    file: str
    board: Board
    rules: Rules
    solution: object
    nodes: int
    seconds: float | None = None
    resolve: bool = False
    #: The run's deadline, a :func:`time.perf_counter` value: the clock is the machine's, the
    #: same in every local worker process.
    deadline: float | None = None


def check_task(task: LevelTask) -> LevelResult:
    """:func:`check_level` of ``task``: the call an executor runs."""
    return check_level(task.label, task.file, task.board, task.rules, task.solution, task.nodes,
                       task.seconds, task.resolve, deadline=task.deadline)


def not_checked_task(task: LevelTask) -> LevelResult:
    return not_checked(task.label, task.file, task.solution, task.nodes, task.seconds, task.resolve)


def is_replay_only(task: LevelTask) -> bool:
    """Whether ``task`` is decided by replaying its stored solution alone. A replay costs well
    under a millisecond, less than sending the level to a worker, so such levels are checked
    in the calling process."""
    return task.solution is not None and not task.resolve


# -- the whole run ------------------------------------------------------------------------------
def _tasks(paths: list, nodes: int | None, seconds: float | None, resolve: bool,
           report: VerifyReport, deadline: float | None = None) -> Iterator[LevelTask]:
    """One :class:`LevelTask` per level, file by file, level by level: a pack directory is
    read as it is consumed. Bad files are recorded in ``report`` as they are met, and so,
    once ``deadline`` has passed, is every file not (fully) read, which is then left unread."""
    for path, strict in collect(paths):
        report.files += 1
        source = printable(str(path))  # undecodable bytes of a file name shown as \xNN
        if out_of_time(deadline):
            report.problems.append(FileProblem(source, CheckStatus.UNKNOWN,
                                               f"not checked: {budget_text(seconds)} ran out"))
            continue
        try:
            if path.is_dir():
                levels: Iterable = iter_pack_dir(path)
            else:
                obj = read_json(path)
                if not strict and not _is_llkgen(obj):
                    report.problems.append(FileProblem(
                        source, CheckStatus.SKIPPED,
                        f'not an llkgen level or pack (no "format": "{LEVEL_FORMAT}" or "{PACK_FORMAT}")'))
                    continue
                if isinstance(obj, dict) and obj.get("format") in DIR_FORMATS:
                    raise LevelFormatError(f"{source}: is the index of a pack directory: expected a "
                                           f"level or pack file (check the directory, {path.parent})")
                levels = levels_from_json(obj, source)
            raw = str(path)
            for label, lv in levels:
                if label.startswith(raw + "#"):  # a pack directory's label: its path shown printable
                    label = source + label[len(raw):]
                if out_of_time(deadline):
                    report.problems.append(FileProblem(
                        source, CheckStatus.UNKNOWN, f"not checked from {label} on: {budget_text(seconds)} ran out"))
                    break
                yield LevelTask(label, source, lv.board, lv.rules, lv.extra.get("solution"),
                                _budget_of(lv.extra, nodes), seconds, resolve, deadline)
        except PackFileError as e:
            report.problems.append(FileProblem(printable(e.where), CheckStatus.INVALID, printable(e.reason)))
        except LlkgenError as e:
            msg = printable(str(e))
            detail = msg[len(source) + 2:] if msg.startswith(source + ": ") else msg
            report.problems.append(FileProblem(source, CheckStatus.INVALID, detail))


def verify_paths(paths: Iterable[str | os.PathLike], nodes: int | None = None, jobs: int = 1,
                 on_level: Callable[[LevelResult], None] | None = None, *,
                 seconds: float | None = None, resolve: bool = False,
                 keep_levels: bool = True, spool: bool = False,
                 executor: Executor | None = None, deadline: float | None = None) -> VerifyReport:
    """Check every level found under ``paths`` (see the module docstring); never raises for
    bad files (they are reported as invalid). ``jobs > 1`` searches levels in a process pool;
    the report is the same. ``resolve`` searches levels that store a solution too.

    ``seconds`` is a wall-clock limit for the whole run, from ``deadline`` (a
    :func:`time.perf_counter` value; default: ``seconds`` from now): every level searched gets
    at most the time left, workers still busy :data:`STOP_GRACE` after the deadline are
    terminated, and what the deadline leaves unchecked is reported ``unknown`` (the module
    docstring says how), so the run returns within ``seconds`` plus a fraction of a second
    whatever the number of levels. With a deadline the searches always run in worker
    processes (one with ``jobs=1``), the only way to stop one on time; an ``executor`` given
    must accept a deadline (a Dask cluster does not).

    With ``keep_levels`` false the report holds
    counts only (with ``spool``, a temporary file of results too, read back by the JSON and
    JUnit writers; :meth:`VerifyReport.close` removes it), and ``on_level`` is the way to see
    each result as it comes. ``executor`` (e.g. a Dask cluster, see :mod:`llkgen.execution.base`)
    runs the searches instead of the process pool; the report is the same.

    Levels certified by replay alone are checked in this process (:func:`is_replay_only`), the
    others on the executor; at most :func:`llkgen.execution.base.window` levels are read ahead
    of the last one reported, so memory does not grow with the pack."""
    if nodes is not None and (type(nodes) is not int or nodes < 1):
        raise ValueError(f"nodes: expected an integer >= 1, found {nodes!r}")
    if seconds is not None and not (isinstance(seconds, (int, float)) and seconds >= 0):
        raise ValueError(f"seconds: expected a number >= 0, found {seconds!r}")
    paths = list(paths)
    if seconds is not None and deadline is None:
        deadline = time.perf_counter() + seconds
    report = VerifyReport(keep_levels=keep_levels, spool=spool)
    executor = executor or ProcessExecutor(max(1, jobs))

    def add(res: LevelResult) -> None:
        report.add(res)
        if on_level is not None:
            on_level(res)

    owed: deque[LevelTask] = deque()  # read and handed to the executor, result not yet seen

    def pulled(tasks: Iterator[LevelTask]) -> Iterator[LevelTask]:
        for task in tasks:
            owed.append(task)
            yield task

    tasks = _tasks(paths, nodes, seconds, resolve, report, deadline)
    stop = None if deadline is None else deadline + STOP_GRACE
    try:
        # Closed explicitly: when on_level raises (Ctrl-C included), the workers stop now.
        with closing(executor.imap_ordered(check_task, pulled(tasks), inline=is_replay_only, deadline=stop)) as results:
            for res in results:
                owed.popleft()
                add(res)
    except BudgetExhausted:
        # The workers are stopped. What they held is reported in order; the reader, past the
        # deadline, lists the files it has not finished instead of reading them.
        for task in owed:
            add(not_checked_task(task))
        for task in tasks:
            add(not_checked_task(task))
    if not report.checked and not report.problems:
        raise LevelFormatError(
            "no level files found in " + ", ".join(str(p) for p in paths) + " (expected *.json level or pack "
            "files, or pack directories)"
        )
    return report


