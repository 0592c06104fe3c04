"""``llkgen verify PATH...``: re-certify level files and packs, for a studio's CI.

Every level is certified from scratch: the verifier runs on it again, and a stored
``certificate`` is never believed. A stored ``solution`` is replayed through the referee; one
that fails is reported. A level counts as certified when the verifier says ``solvable``, or
when its budget ran out but the stored solution replays and clears the board (the referee's
replay is a complete proof on its own).

Statuses, and the exit code each one forces (the worst wins, in the order 1 > 3 > 4 > 0):

========== ==== ===============================================================
ok         0    certified
unknown    4    the verifier's node budget ran out and no stored solution helped
unsolvable 3    the verifier proved the level cannot be cleared
failed     1    the stored solution does not replay, or contradicts the verifier
invalid    1    a file could not be read or is not a valid level/pack file
========== ==== ===============================================================

A corrupt or truncated file is reported by name and the other files are still checked.
Directories are searched recursively for ``*.json`` (hidden files and folders are skipped);
there, a JSON file that is not an llkgen level or pack (no ``"format": "llkgen..."``) is listed
as skipped rather than failed, so a level folder may hold other JSON. A file named on the
command line is always checked strictly.

The verifier budget is ``--nodes`` when given, otherwise the budget recorded in the level's
certificate (so a pack made with ``verify.nodes: 500000`` is re-checked with the same effort),
otherwise 200 000 nodes. Nodes, not seconds: a CI verdict never depends on machine speed.
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterable

from llkgen.board import Board, Rules
from llkgen.errors import LevelFormatError, LlkgenError
from llkgen.files import write_text_atomic
from llkgen.level import LEVEL_FORMAT, PACK_FORMAT, levels_from_json, read_json
from llkgen.referee import replay
from llkgen.text import json_dumps, printable, xml_text
from llkgen.verify import SOLVABLE, UNSOLVABLE, Budget, verify
from llkgen.workers import worker_pool

DEFAULT_NODES = 200_000
REPORT_FORMAT = "llkgen.verify-report/1"

OK, UNKNOWN_S, UNSOLVABLE_S, FAILED, INVALID = "ok", "unknown", "unsolvable", "failed", "invalid"
EXIT_FOR = {OK: 0, UNKNOWN_S: 4, UNSOLVABLE_S: 3, FAILED: 1, INVALID: 1}
#: Exit codes from most to least severe.
SEVERITY = (1, 3, 4, 0)


@dataclass
class LevelResult:
    """The outcome for one level. ``solution`` is ``"none"``, ``"replays"`` or ``"fails"``."""

    label: str
    file: str
    status: str
    verdict: str
    method: str
    nodes: int
    budget: int
    solution: str
    detail: str

    @property
    def exit_code(self) -> int:
        return EXIT_FOR[self.status]


@dataclass
class FileProblem:
    file: str
    status: str  # "invalid" or "skipped"
    detail: str


@dataclass
class VerifyReport:
    levels: list[LevelResult] = field(default_factory=list)
    problems: list[FileProblem] = field(default_factory=list)
    files: int = 0

    @property
    def invalid(self) -> list[FileProblem]:
        return [p for p in self.problems if p.status == INVALID]

    @property
    def skipped(self) -> list[FileProblem]:
        return [p for p in self.problems if p.status != INVALID]

    def counts(self) -> dict[str, int]:
        out = {s: 0 for s in (OK, UNSOLVABLE_S, UNKNOWN_S, FAILED)}
        for lv in self.levels:
            out[lv.status] += 1
        out["invalid_files"] = len(self.invalid)
        out["skipped_files"] = len(self.skipped)
        return out

    @property
    def exit_code(self) -> int:
        codes = {lv.exit_code for lv in self.levels} | {1 for _ in self.invalid}
        return next((c for c in SEVERITY if c in codes), 0)

    def summary(self) -> str:
        c = self.counts()
        n = len(self.levels)
        text = (f"{n} level{'s' if n != 1 else ''} in {self.files} file{'s' if self.files != 1 else ''}: "
                f"{c[OK]} certified, {c[UNSOLVABLE_S]} unsolvable, {c[UNKNOWN_S]} unknown, "
                f"{c[FAILED]} failed")
        if c["invalid_files"]:
            text += f"; {c['invalid_files']} invalid file{'s' if c['invalid_files'] != 1 else ''}"
        if c["skipped_files"]:
            text += f"; {c['skipped_files']} skipped"
        return text + f" (exit {self.exit_code})"

    def lines(self) -> list[str]:
        """One line per level, then one per invalid or skipped file."""
        return [format_level(lv) for lv in self.levels] + [format_problem(p) for p in self.problems]

    def to_json(self) -> dict:
        return {
            "format": REPORT_FORMAT,
            "exit_code": self.exit_code,
            "summary": self.counts() | {"levels": len(self.levels), "files": self.files},
            "levels": [asdict(lv) for lv in self.levels],
            "files": [asdict(p) for p in self.problems],
        }

    def to_junit(self) -> str:
        """JUnit XML: one testsuite per file, one testcase per level; unsolvable, unknown and
        failed levels are failures, invalid files are errors, skipped files are skipped."""
        root = ET.Element("testsuites", name="llkgen verify")
        suites: dict[str, ET.Element] = {}
        tally: dict[str, dict[str, int]] = {}

        def suite(name: str) -> ET.Element:
            if name not in suites:
                suites[name] = ET.SubElement(root, "testsuite", name=name)
                tally[name] = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
            return suites[name]

        # Ids and file names may hold characters XML cannot carry: each is shown as an escape.
        for lv in self.levels:
            file, detail = xml_text(lv.file), xml_text(lv.detail)
            case = ET.SubElement(suite(file), "testcase", classname=file, name=xml_text(lv.label))
            tally[file]["tests"] += 1
            if lv.status != OK:
                ET.SubElement(case, "failure", type=lv.status, message=detail).text = detail
                tally[file]["failures"] += 1
        for p in self.problems:
            file, detail = xml_text(p.file), xml_text(p.detail)
            case = ET.SubElement(suite(file), "testcase", classname=file, name=file)
            tally[file]["tests"] += 1
            if p.status == INVALID:
                ET.SubElement(case, "error", type="invalid", message=detail).text = detail
                tally[file]["errors"] += 1
            else:
                ET.SubElement(case, "skipped", message=detail)
                tally[file]["skipped"] += 1
        total = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
        for name, el in suites.items():
            for k, v in tally[name].items():
                el.set(k, str(v))
                total[k] += v
        for k, v in total.items():
            root.set(k, str(v))
        ET.indent(root)
        return '<?xml version="1.0" encoding="utf-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def format_level(lv: LevelResult) -> str:
    return printable(f"{lv.status.upper() if lv.status != OK else OK:<10} {lv.label}: {lv.detail}")


def format_problem(p: FileProblem) -> str:
    return printable(f"{'INVALID' if p.status == INVALID else 'skipped':<10} {p.file}: {p.detail}")


# -- finding files -------------------------------------------------------------------------------
def collect(paths: Iterable[str | os.PathLike]) -> list[tuple[Path, bool]]:
    """``(file, strict)`` for each path: files as given (strict), directories expanded to their
    ``*.json`` files recursively, sorted, hidden entries skipped (not strict). A path that does
    not exist is returned as a strict file, so it is reported as invalid by name."""
    out: list[tuple[Path, bool]] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            for f in sorted(p.rglob("*.json")):
                rel = f.relative_to(p).parts
                if f.is_file() and not any(part.startswith(".") for part in rel):
                    out.append((f, False))
        else:
            out.append((p, True))
    return out


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


def check_level(label: str, file: str, board: Board, rules: Rules, solution: object,
                nodes: int) -> LevelResult:
    """Re-certify one level from scratch and replay its stored solution (if not ``None``)."""
    verdict = verify(board, rules, Budget(nodes=nodes))
    method = str(verdict.stats.get("stage", ""))
    spent = int(verdict.stats.get("nodes", 0))
    sol_state, sol_note, sol_clears = "none", "", False
    if solution is not None:
        if not isinstance(solution, list):
            sol_state, sol_note = "fails", "stored solution: expected a list of moves [[r1, c1], [r2, c2]]"
        else:
            result = replay(board, rules, solution)
            sol_clears = result.ok and result.cleared
            sol_state = "replays" if sol_clears else "fails"
            sol_note = "stored solution replays" if sol_clears else f"stored solution fails: {result.describe()}"
    effort = f"{spent} node{'s' if spent != 1 else ''}"
    effort = f"{method}, {effort}" if method else effort
    if sol_state == "fails":
        status, detail = FAILED, f"{sol_note} (verifier: {verdict.status}, {effort})"
    elif verdict.status == SOLVABLE:
        status = OK
        detail = f"solvable ({effort})" + (f"; {sol_note}" if sol_note else "")
    elif verdict.status == UNSOLVABLE and sol_clears:
        status = FAILED
        detail = ("internal contradiction: the stored solution clears the board but the verifier says "
                  f"unsolvable ({verdict.reason}); please report this")
    elif verdict.status == UNSOLVABLE:
        status, detail = UNSOLVABLE_S, f"unsolvable: {verdict.reason}"
    elif sol_clears:
        status, method = OK, "stored-solution"
        detail = f"solvable: the stored solution replays and clears the board (verifier undecided after {spent} nodes)"
    else:
        status, detail = UNKNOWN_S, f"unknown: {verdict.reason}; raise --nodes to decide it"
    return LevelResult(label, file, status, verdict.status, method, spent, nodes, sol_state, detail)


def _check_task(task: tuple) -> LevelResult:
    return check_level(*task)


# -- the whole run ------------------------------------------------------------------------------
from llkgen.executors import Executor  # noqa: E402  (here, beside its one use)


def verify_paths(paths: Iterable[str | os.PathLike], nodes: int | None = None, jobs: int = 1,
                 on_level: Callable[[LevelResult], None] | None = None,
                 executor: Executor | None = None) -> VerifyReport:
    """Check every level found under ``paths``; never raises for bad files (they are reported
    as invalid). ``jobs > 1`` verifies levels in a process pool, ``executor`` (e.g. a Dask
    cluster, see :mod:`llkgen.executors`) wherever it runs them; the report is the same."""
    if nodes is not None and (type(nodes) is not int or nodes < 1):
        raise ValueError(f"nodes: expected an integer >= 1, found {nodes!r}")
    paths = list(paths)
    report = VerifyReport()
    tasks: list[tuple] = []
    for path, strict in collect(paths):
        report.files += 1
        source = printable(str(path))  # undecodable bytes of a file name shown as \xNN
        try:
            obj = read_json(path)
            if not strict and not _is_llkgen(obj):
                report.problems.append(FileProblem(
                    source, "skipped",
                    f'not an llkgen level or pack (no "format": "{LEVEL_FORMAT}" or "{PACK_FORMAT}")'))
                continue
            levels = levels_from_json(obj, source)
        except LlkgenError as e:
            msg = printable(str(e))
            detail = msg[len(source) + 2:] if msg.startswith(source + ": ") else msg
            report.problems.append(FileProblem(source, INVALID, detail))
            continue
        for label, lv in levels:
            tasks.append((label, source, lv.board, lv.rules, lv.extra.get("solution"), _budget_of(lv.extra, nodes)))
    if not tasks and not report.problems:
        raise LevelFormatError(
            "no level files found in " + ", ".join(str(p) for p in paths) + " (expected *.json level or pack files)"
        )
    if executor is not None:
        def keep(pos: int, res: LevelResult) -> None:
            report.levels.append(res)
            if on_level is not None:
                on_level(res)

        executor.run_ordered(_check_task, tasks, keep)
        return report
    jobs = max(1, min(jobs, len(tasks)))
    if jobs == 1:
        results = map(_check_task, tasks)
        for res in results:
            report.levels.append(res)
            if on_level is not None:
                on_level(res)
    else:
        with worker_pool(jobs) as pool:
            for res in pool.map(_check_task, tasks, chunksize=1):
                report.levels.append(res)
                if on_level is not None:
                    on_level(res)
    return report


def write_junit(report: VerifyReport, path: str | os.PathLike) -> Path:
    return write_text_atomic(path, report.to_junit())


def report_json(report: VerifyReport) -> str:
    return json_dumps(report.to_json(), indent=2) + "\n"
