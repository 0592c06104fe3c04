"""The report of ``llkgen verify``: each level's result and each file's problem, the statuses
and their exit codes, and the text, JSON and JUnit forms of the whole report.

:mod:`llkgen.jobs.check` fills a :class:`VerifyReport`; nothing here checks a level.
"""

from __future__ import annotations

import json
import os
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import IO, Iterator

from llkgen.errors import (
    EXIT_FAILED,
    EXIT_OK,
    EXIT_UNKNOWN,
    EXIT_UNSOLVABLE,
)
from llkgen.files import open_atomic
from llkgen.formats.level import parse_json_line
from llkgen.outputs import budget_json
from llkgen.text import json_dumps, printable, xml_text
from llkgen.verifier.verdict import Budget, Status

#: How a level's result was reached: the referee replayed its stored solution, or the verifier
#: searched it.
REPLAY, SEARCH = "replay", "search"

#: The ``format`` of the ``--json`` report (``llkgen schema verify-report``).
REPORT_FORMAT = "llkgen.verify-report/2"


class CheckStatus(StrEnum):
    """The outcome of checking a level (or, for ``invalid`` and ``skipped``, a file): the
    ``check`` of the reports, beside a level's ``verdict``
    (:class:`~llkgen.verifier.verdict.Status`). A check is about the level as shipped, so it
    can fail where the verdict is solvable (a stored solution that does not replay). A
    ``StrEnum``: it prints, compares and serialises as its value (``"ok"``)."""

    #: Certified, by ``replay`` or ``search``.
    OK = "ok"
    #: The search's budget ran out and no stored solution helped; or the run's time budget ran
    #: out before the level (or the file) was checked.
    UNKNOWN = "unknown"
    #: The search proved the level cannot be cleared.
    UNSOLVABLE = "unsolvable"
    #: The stored solution does not replay, or contradicts the search.
    FAILED = "failed"
    #: A file could not be read or is not a valid level/pack file or pack directory.
    INVALID = "invalid"
    #: A file met in a searched folder that is not an llkgen level or pack; not checked.
    SKIPPED = "skipped"

    @property
    def exit_code(self) -> int:
        """The exit code this status forces (see the module docstring): 0 ok and skipped,
        4 unknown, 3 unsolvable, 1 failed and invalid."""
        return {CheckStatus.UNKNOWN: EXIT_UNKNOWN, CheckStatus.UNSOLVABLE: EXIT_UNSOLVABLE,
                CheckStatus.FAILED: EXIT_FAILED, CheckStatus.INVALID: EXIT_FAILED}.get(self, EXIT_OK)


#: The statuses a level can have (the others are a file's), in the order the counts list them.
LEVEL_STATUSES = (CheckStatus.OK, CheckStatus.UNSOLVABLE, CheckStatus.UNKNOWN, CheckStatus.FAILED)


#: Exit codes from most to least severe.
SEVERITY = (EXIT_FAILED, EXIT_UNSOLVABLE, EXIT_UNKNOWN, EXIT_OK)


@dataclass
class LevelResult:
    """The outcome for one level.

    ``check`` is the outcome of the check; ``verdict`` the level's verdict (``unknown`` when
    nothing decided it). ``method`` is ``replay`` when the stored solution decided the check
    (certified, or failed because it does not replay) and ``search`` when the verifier did;
    ``stage`` is the verifier stage that decided (empty when nothing was searched), ``nodes``
    the search nodes spent, ``budget`` the limits: search nodes per level, and the run's
    whole time budget in seconds. ``replayed`` says whether the level's stored solution
    replays to a cleared board (``None``: no stored solution, or the run's time budget left
    it unchecked), ``solution_moves`` how many moves it holds (``None`` when there is no list
    of moves)."""

    label: str
    file: str
    check: CheckStatus
    verdict: Status
    method: str
    stage: str
    nodes: int
    budget: Budget
    replayed: bool | None
    solution_moves: int | None
    detail: str

    @property
    def exit_code(self) -> int:
        return self.check.exit_code

    def to_json(self) -> dict:
        """The level's entry in the JSON report (and its line in the spool)."""
        return {"label": self.label, "file": self.file, "check": self.check, "verdict": self.verdict,
                "method": self.method, "stage": self.stage, "nodes": self.nodes,
                "budget": budget_json(self.budget), "replayed": self.replayed,
                "solution_moves": self.solution_moves, "detail": self.detail}

    @classmethod
    def from_json(cls, obj: dict) -> LevelResult:
        """The result :meth:`to_json` wrote."""
        return cls(**{**obj, "check": CheckStatus(obj["check"]), "verdict": Status(obj["verdict"]),
                      "budget": Budget(**obj["budget"])})


@dataclass
class FileProblem:
    file: str
    check: CheckStatus  # INVALID, SKIPPED, or UNKNOWN: not (fully) read before the time budget ran out
    detail: str

    def to_json(self) -> dict:
        return {"file": self.file, "check": self.check, "detail": self.detail}


@dataclass
class VerifyReport:
    """The results of a run. The counts, the exit code and each file's tally are kept as
    results arrive. Each level's result is kept in ``levels`` when ``keep_levels``, else
    written to a nameless temporary file when ``spool`` (for the JSON and JUnit reports,
    which read it back one level at a time), else not kept: a run that only prints lines, or
    spools, holds nothing per level."""

    levels: list[LevelResult] = field(default_factory=list)
    problems: list[FileProblem] = field(default_factory=list)
    files: int = 0
    keep_levels: bool = True
    spool: bool = False
    tally: dict[CheckStatus, int] = field(default_factory=lambda: dict.fromkeys(LEVEL_STATUSES, 0))
    methods: dict[str, int] = field(default_factory=lambda: {REPLAY: 0, SEARCH: 0})
    suite_tally: dict[str, dict[str, int]] = field(default_factory=dict)
    _spool: IO[str] | None = field(default=None, repr=False)

    def add(self, result: LevelResult) -> None:
        self.tally[result.check] += 1
        if result.check == CheckStatus.OK:
            self.methods[result.method] += 1
        suite = self.suite_tally.setdefault(xml_text(result.file),
                                            {"tests": 0, "failures": 0, "errors": 0, "skipped": 0})
        suite["tests"] += 1
        suite["failures"] += result.check != CheckStatus.OK
        if self.keep_levels:
            self.levels.append(result)
        elif self.spool:
            if self._spool is None:
                self._spool = tempfile.TemporaryFile("w+", encoding="utf-8")
            # json.dumps escapes a lone surrogate in a label, so it is read back exactly.
            self._spool.write(json.dumps(result.to_json()) + "\n")

    @property
    def checked(self) -> int:
        return sum(self.tally.values())

    @property
    def invalid(self) -> list[FileProblem]:
        return [p for p in self.problems if p.check == CheckStatus.INVALID]

    @property
    def skipped(self) -> list[FileProblem]:
        return [p for p in self.problems if p.check == CheckStatus.SKIPPED]

    @property
    def unchecked(self) -> list[FileProblem]:
        """The files the run's time budget left (partly) unread."""
        return [p for p in self.problems if p.check == CheckStatus.UNKNOWN]

    def counts(self) -> dict[str, int]:
        out = {str(status): n for status, n in self.tally.items()}
        out["invalid_files"] = len(self.invalid)
        out["skipped_files"] = len(self.skipped)
        return out

    @property
    def exit_code(self) -> int:
        codes = {s.exit_code for s, n in self.tally.items() if n} | {p.check.exit_code for p in self.problems}
        return next((c for c in SEVERITY if c in codes), 0)

    def summary(self) -> str:
        c = self.counts()
        n = self.checked
        by = f" ({self.methods[REPLAY]} by replay, {self.methods[SEARCH]} by search)" if c["ok"] else ""
        text = (f"{n} level{'s' if n != 1 else ''} in {self.files} file{'s' if self.files != 1 else ''}: "
                f"{c['ok']} certified{by}, {c['unsolvable']} unsolvable, {c['unknown']} unknown, "
                f"{c['failed']} failed")
        if c["invalid_files"]:
            text += f"; {c['invalid_files']} invalid file{'s' if c['invalid_files'] != 1 else ''}"
        if c["skipped_files"]:
            text += f"; {c['skipped_files']} skipped"
        if self.unchecked:
            n = len(self.unchecked)
            text += f"; {n} file{'s' if n != 1 else ''} not (fully) checked: the time budget ran out"
        return text + f" (exit {self.exit_code})"

    def lines(self) -> list[str]:
        """One line per level, then one per invalid or skipped file."""
        return [format_level(lv) for lv in self.results()] + [format_problem(p) for p in self.problems]

    def results(self) -> Iterator[LevelResult]:
        """Every level's result, in order: from ``levels``, or read back from the spool."""
        if self._spool is None:
            yield from self.levels
            return
        self._spool.flush()
        self._spool.seek(0)
        for line in self._spool:
            fields = parse_json_line(line, "the verify spool")  # read back: strictly, like any input
            assert isinstance(fields, dict), "the spool holds the objects this report wrote"
            yield LevelResult.from_json(fields)
        self._spool.seek(0, os.SEEK_END)

    def close(self) -> None:
        """Remove the spool file, if any (it is a nameless temporary file)."""
        if self._spool is not None:
            self._spool.close()
            self._spool = None

    def _head(self) -> dict:
        return {
            "format": REPORT_FORMAT,
            "exit_code": self.exit_code,
            "summary": self.counts() | {"levels": self.checked, "files": self.files,
                                        "certified_by": dict(self.methods)},
        }

    def to_json(self) -> dict:
        return self._head() | {"levels": [lv.to_json() for lv in self.results()],
                               "files": [p.to_json() for p in self.problems]}

    def json_chunks(self) -> Iterator[str]:
        """:func:`report_json`'s text, piece by piece: one level at a time, so a spooled report
        is written without holding its levels."""
        if not self.checked:
            yield json_dumps(self.to_json(), indent=2) + "\n"
            return
        sentinel = "@llkgen-levels@"
        text = json_dumps(self._head() | {"levels": [sentinel], "files": [p.to_json() for p in self.problems]},
                          indent=2) + "\n"
        before, after = text.split(json_dumps(sentinel), 1)
        yield before
        # Each level as json_dumps(..., indent=2) would nest it: two levels deeper. A JSON
        # string never holds a raw newline, so every newline is a line break of the layout.
        for i, lv in enumerate(self.results()):
            yield (",\n    " if i else "") + json_dumps(lv.to_json(), indent=2).replace("\n", "\n    ")
        yield after

    def write(self, out: IO[str], as_json: bool) -> None:
        """The end of ``llkgen verify``'s output on ``out``: the JSON report, a piece at a time;
        or the line of each file that is not a level and the summary (each level's line is
        printed as its result comes)."""
        if as_json:
            out.writelines(self.json_chunks())
        else:
            out.writelines(format_problem(p) + "\n" for p in self.problems)
            out.write(self.summary() + "\n")
        out.flush()

    def to_junit(self) -> str:
        return "".join(self.junit_chunks())

    def junit_chunks(self) -> Iterator[str]:
        """JUnit XML: one testsuite per file, one testcase per level; unsolvable, unknown and
        failed levels are failures, invalid files are errors, skipped files are skipped, files
        the time budget left unchecked are failures. Each
        level's testcase carries properties ``method`` (``replay`` or ``search``), ``verdict``
        and ``nodes``, and its detail as ``system-out``. Yielded a testcase at a time: the
        suites' counts are tallied as levels arrive, and a file's levels arrive together."""
        # Ids and file names may hold characters XML cannot carry: each is shown as an escape.
        problem_suites: dict[str, ET.Element] = {}
        tally = {name: dict(t) for name, t in self.suite_tally.items()}
        for p in self.problems:
            file, detail = xml_text(p.file), xml_text(p.detail)
            if file not in problem_suites:
                problem_suites[file] = ET.Element("testsuite", name=file)
                tally.setdefault(file, {"tests": 0, "failures": 0, "errors": 0, "skipped": 0})
            case = ET.SubElement(problem_suites[file], "testcase", classname=file, name=file)
            tally[file]["tests"] += 1
            if p.check == CheckStatus.INVALID:
                ET.SubElement(case, "error", type="invalid", message=detail).text = detail
                tally[file]["errors"] += 1
            elif p.check == CheckStatus.UNKNOWN:
                ET.SubElement(case, "failure", type="unknown", message=detail).text = detail
                tally[file]["failures"] += 1
            else:
                ET.SubElement(case, "skipped", message=detail)
                tally[file]["skipped"] += 1
        total = {k: sum(t[k] for t in tally.values()) for k in ("tests", "failures", "errors", "skipped")}
        yield '<?xml version="1.0" encoding="utf-8"?>\n'
        yield _start_tag(ET.Element("testsuites", {"name": "llkgen verify", **_str(total)})) + "\n"
        current = None
        for lv in self.results():
            file, detail = xml_text(lv.file), xml_text(lv.detail)
            if file != current:
                if current is not None:
                    yield "  </testsuite>\n"
                current = file
                yield "  " + _start_tag(ET.Element("testsuite", {"name": file, **_str(tally[file])})) + "\n"
            case = ET.Element("testcase", classname=file, name=xml_text(lv.label))
            props = ET.SubElement(case, "properties")
            for key in ("method", "verdict", "nodes"):
                ET.SubElement(props, "property", name=key, value=str(getattr(lv, key)))
            if lv.check != CheckStatus.OK:
                ET.SubElement(case, "failure", type=lv.check, message=detail).text = detail
            else:
                ET.SubElement(case, "system-out").text = detail
            ET.indent(case, level=2)
            yield "    " + ET.tostring(case, encoding="unicode") + "\n"
        if current is not None:
            yield "  </testsuite>\n"
        for name, el in problem_suites.items():
            for k, v in _str(tally[name]).items():
                el.set(k, v)
            ET.indent(el, level=1)
            yield "  " + ET.tostring(el, encoding="unicode") + "\n"
        yield "</testsuites>\n"


def _str(counts: dict[str, int]) -> dict[str, str]:
    return {k: str(v) for k, v in counts.items()}


def _start_tag(el: ET.Element) -> str:
    """The start tag of a childless element, as ElementTree writes it."""
    return ET.tostring(el, encoding="unicode").removesuffix(" />") + ">"


def format_level(lv: LevelResult) -> str:
    return printable(f"{lv.check.upper() if lv.check != CheckStatus.OK else lv.check:<10} {lv.label}: {lv.detail}")


def format_problem(p: FileProblem) -> str:
    word = "skipped" if p.check == CheckStatus.SKIPPED else p.check.upper()
    return printable(f"{word:<10} {p.file}: {p.detail}")


def write_junit(report: VerifyReport, path: str | os.PathLike) -> Path:
    """Write :meth:`VerifyReport.junit_chunks` to ``path`` atomically, piece by piece."""
    with open_atomic(path) as f:
        for chunk in report.junit_chunks():
            f.write(chunk)
    return Path(path)


def report_json(report: VerifyReport) -> str:
    return "".join(report.json_chunks())
