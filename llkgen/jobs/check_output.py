"""How ``llkgen verify`` prints its report (:class:`ReportFormat`: text, JSON, or GitHub
workflow commands), and the markdown job summary it appends for GitHub Actions.

The GitHub form is the text form with each level that is not certified, and each file that
is invalid or was left unchecked, printed as a workflow command instead of a text line:
``::error file=F,line=N,title=T::MESSAGE`` for a failed or unsolvable level and an invalid
file, ``::warning ...`` for an unknown level or an unchecked file. The runner shows each as an
annotation on that line of the file, in the pull request's diff and on the run's page (GitHub
shows the first ten errors and ten warnings of a step there; the log keeps every one). The
line is where the level starts: 1 for a level file; in a pack file, the line of the level's
object in ``levels``; in a pack directory, the level's line in its part. Values are escaped as
the runner reads them (:func:`escape_data`, :func:`escape_property`), so no label, id or
detail can end a command early or start another.

The summary (:func:`summary_markdown`) is written by llkgen, not by the Action's shell from
the JSON report: it is then the same for any CI that renders markdown, and it is tested with
the rest of the library. It comes from the same run as the annotations.

:mod:`llkgen.jobs.check_report` holds the report; nothing here checks a level.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import IO

from llkgen.errors import LlkgenError, OutputError
from llkgen.formats.load import read_pack_index
from llkgen.jobs.check_report import CheckStatus, FileProblem, LevelResult, VerifyReport, format_level, format_problem
from llkgen.text import printable


class ReportFormat(StrEnum):
    """The forms of ``llkgen verify``'s output on stdout."""

    #: One line per level as its result comes, then the files that are not levels and the summary.
    TEXT = "text"
    #: The JSON report (``llkgen.verify-report/2``), whole, at the end.
    JSON = "json"
    #: The text form, with a GitHub workflow command in place of the line of each level not
    #: certified and of each file invalid or unchecked (the module docstring).
    GITHUB = "github"


#: The workflow command of each status that gets one, and its title; certified levels and
#: skipped files get none.
COMMANDS = {
    CheckStatus.FAILED: ("error", "llkgen verify: failed"),
    CheckStatus.UNSOLVABLE: ("error", "llkgen verify: unsolvable"),
    CheckStatus.INVALID: ("error", "llkgen verify: invalid file"),
    CheckStatus.UNKNOWN: ("warning", "llkgen verify: unknown"),
}

#: At most this many rows in the summary's table of levels and files not certified: GitHub
#: takes up to 1 MiB of summary per step, and a reader wants the first few; the rest are in the
#: JUnit and JSON reports.
SUMMARY_ROWS = 100


def escape_data(text: str) -> str:
    """``text`` as a workflow command's message: ``%``, carriage return and newline escaped
    (the runner unescapes them), so the message stays on the command's line; other control
    characters shown as ``\\xNN`` (:func:`~llkgen.text.printable`)."""
    return printable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def escape_property(text: str) -> str:
    """``text`` as a workflow command's property value (``file=``, ``title=``): as
    :func:`escape_data`, and ``:`` and ``,``, which end a value, escaped too."""
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def log_line(text: str) -> str:
    """A plain line of the GitHub form (a certified level, a skipped file, the summary) kept to
    one line: a newline or carriage return in a label or file name shown as ``\\x0a`` or
    ``\\x0d``, so the rest of the name cannot start a line of its own that the runner would read
    as a workflow command (``::error::``, ``::add-mask::``, ``::stop-commands::``)."""
    return text.replace("\r", "\\x0d").replace("\n", "\\x0a")


def workflow_command(command: str, file: str, line: int, title: str, message: str) -> str:
    """One annotation: ``::command file=…,line=…,title=…::message``, escaped."""
    return (f"::{command} file={escape_property(file)},line={line},title={escape_property(title)}"
            f"::{escape_data(message)}")


@dataclass
class LevelLines:
    """Where each level starts, found on demand and remembered per file: a pack file, or a pack
    directory's index, is read once however many of its levels fail (and only when one does).
    A file that cannot be read again (it changed, or went) gives line 1 of the file named: the
    annotation still points at the right file."""

    _files: dict[str, dict[str, tuple[str, int]]] = field(default_factory=dict)

    def locate(self, lv: LevelResult) -> tuple[str, int]:
        """``(file, line)`` for the level ``lv``: the file that holds it (a pack directory's
        part) and the line where it starts."""
        file, sep, name = lv.label.rpartition("#")
        if not sep or file != lv.file:
            return lv.file, 1  # a level file
        if lv.file not in self._files:
            path = Path(lv.file)
            try:
                if path.is_dir():
                    self._files[lv.file] = _pack_dir_lines(path)
                else:
                    self._files[lv.file] = {k: (lv.file, n)
                                            for k, n in pack_level_lines(path.read_text(encoding="utf-8")).items()}
            except (OSError, UnicodeError, ValueError, LlkgenError):
                self._files[lv.file] = {}
        return self._files[lv.file].get(name, (lv.file, 1))


def pack_level_lines(text: str) -> dict[str, int]:
    """For the pack file ``text``: each level's name in its label (its ``id``, or its 0-based
    index for a level without one, as :func:`llkgen.formats.level.levels_from_json` names it)
    to the 1-based line where its object starts. Read with the standard JSON scanner, value by
    value, so only positions are kept, not the levels; ``{}`` for text that is not a pack.
    Raises ``ValueError`` for text that is not JSON."""
    decoder = json.JSONDecoder()
    at = _skip(text, 0)
    if not text.startswith("{", at):
        return {}
    at = _skip(text, at + 1)
    while at < len(text) and text[at] != "}":
        key, at = decoder.raw_decode(text, at)
        at = _skip(text, _skip(text, at) + 1)  # past the ':'
        if key == "levels" and text.startswith("[", at):
            return _array_lines(text, at, decoder)
        at = _skip(text, decoder.raw_decode(text, at)[1])
        if text.startswith(",", at):
            at = _skip(text, at + 1)
    return {}


def _array_lines(text: str, at: int, decoder: json.JSONDecoder) -> dict[str, int]:
    """:func:`pack_level_lines` for the ``levels`` array that starts at ``text[at]``."""
    lines: dict[str, int] = {}
    line, counted = 1, 0  # the line of text[counted]: newlines are counted once, going forward
    at = _skip(text, at + 1)
    i = 0
    while at < len(text) and text[at] != "]":
        level, end = decoder.raw_decode(text, at)
        line += text.count("\n", counted, at)
        counted = at
        level_id = level.get("id") if isinstance(level, dict) else None
        lines.setdefault(level_id if isinstance(level_id, str) and level_id else str(i), line)
        i += 1
        at = _skip(text, end)
        if text.startswith(",", at):
            at = _skip(text, at + 1)
    return lines


_WHITESPACE = re.compile(r"[ \t\n\r]*")


def _skip(text: str, at: int) -> int:
    """The index of the first character at or after ``at`` that is not JSON whitespace."""
    m = _WHITESPACE.match(text, at)
    assert m is not None, "the pattern matches the empty string"
    return m.end()


def _pack_dir_lines(path: Path) -> dict[str, tuple[str, int]]:
    """For the pack directory ``path``: each level's name in its label (its id, or its index)
    to its part file and its line there, from the index alone (a part holds one level a line,
    or one level a file)."""
    index = read_pack_index(path)
    ids = index.ids
    return {ids[i] or str(i): (printable(str(path / part.path)), i - part.first + 1)
            for part in index.parts for i in range(part.first, part.first + part.count)}


def level_annotation(lv: LevelResult, lines: LevelLines) -> str | None:
    """The workflow command for the level ``lv``; ``None`` when it is certified."""
    if lv.check not in COMMANDS:
        return None
    command, title = COMMANDS[lv.check]
    file, line = lines.locate(lv)
    return workflow_command(command, _relative(file), line, title, f"{lv.label}: {lv.detail}")


def problem_annotation(p: FileProblem) -> str | None:
    """The workflow command for the file problem ``p``; ``None`` for a skipped file. A part of
    a pack directory is named with its line (``DIR/levels-00001.jsonl:17``): that is the line."""
    if p.check not in COMMANDS:
        return None
    command, title = COMMANDS[p.check]
    file, line = p.file, 1
    if (m := re.fullmatch(r"(.+):(\d+)", p.file)) and not os.path.exists(p.file):
        file, line = m.group(1), int(m.group(2))
    elif m := re.search(r"\bat line (\d+) column \d+", p.detail):  # a JSON syntax error's position
        line = int(m.group(1))
    return workflow_command(command, _relative(file), line, title, f"{p.file}: {p.detail}")


def _relative(file: str) -> str:
    """``file`` relative to the working directory when it lies under it: the runner matches an
    annotation's file against the repository's paths."""
    path = Path(file)
    if path.is_absolute():
        try:
            return path.relative_to(Path.cwd()).as_posix()
        except ValueError:
            return file
    return file


@dataclass
class ReportPrinter:
    """Prints ``llkgen verify``'s report on ``out`` in ``format``: :meth:`level` as each result
    comes (nothing for JSON, nothing for a certified level when ``quiet``), :meth:`finish` at the
    end."""

    format: ReportFormat
    out: IO[str]
    quiet: bool = False
    lines: LevelLines = field(default_factory=LevelLines)

    def level(self, lv: LevelResult) -> None:
        if self.format is ReportFormat.JSON or (self.quiet and lv.check == CheckStatus.OK):
            return
        if self.format is ReportFormat.GITHUB:
            text = level_annotation(lv, self.lines) or log_line(format_level(lv))
        else:
            text = format_level(lv)
        self.out.write(text + "\n")
        self.out.flush()

    def finish(self, report: VerifyReport) -> None:
        """The end of the output: the JSON report; or each file's line (its annotation, for
        GitHub) and the summary line."""
        if self.format is not ReportFormat.GITHUB:
            report.write(self.out, self.format is ReportFormat.JSON)
            return
        self.out.writelines((problem_annotation(p) or log_line(format_problem(p))) + "\n" for p in report.problems)
        self.out.write(log_line(report.summary()) + "\n")
        self.out.flush()


def _cell(text: str) -> str:
    """``text`` in a markdown table cell: on one line, no ``|`` to split the cell, no HTML."""
    text = printable(text).replace("\r", " ").replace("\n", " ")
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("|", "\\|")


def summary_markdown(report: VerifyReport) -> str:
    """A markdown summary of ``report``, for ``$GITHUB_STEP_SUMMARY``: a heading, the counts
    (levels certified, failed, unsolvable, unknown; files invalid and skipped), the summary line,
    and a table of the levels and files not certified (the first :data:`SUMMARY_ROWS`). It reads
    every level's result (``report.results()``): the report must keep or spool them."""
    c = report.counts()
    ok = report.exit_code == 0
    out = [f"### llkgen verify: {'all levels certified' if ok else 'not all levels certified'}", "",
           "| certified | failed | unsolvable | unknown | invalid files | skipped files |",
           "|---:|---:|---:|---:|---:|---:|",
           f"| {c['ok']} | {c['failed']} | {c['unsolvable']} | {c['unknown']} | {c['invalid_files']} "
           f"| {c['skipped_files']} |", "", _cell(report.summary()), ""]
    rows = [(lv.label, str(lv.check), lv.detail) for lv in report.results() if lv.check != CheckStatus.OK]
    rows += [(p.file, f"{p.check} file", p.detail) for p in report.problems if p.check != CheckStatus.SKIPPED]
    if rows:
        out += ["| level or file | check | detail |", "|---|---|---|"]
        out += [f"| {_cell(where)} | {check} | {_cell(detail)} |" for where, check, detail in rows[:SUMMARY_ROWS]]
        if len(rows) > SUMMARY_ROWS:
            out += ["", f"... and {len(rows) - SUMMARY_ROWS} more (the JUnit and JSON reports list them all)."]
        out.append("")
    return "\n".join(out) + "\n"


def append_summary(report: VerifyReport, path: str | os.PathLike) -> None:
    """Append :func:`summary_markdown` to the file ``path`` (created if missing): GitHub's
    ``$GITHUB_STEP_SUMMARY`` collects what each step appends. Appended, not replaced, so it
    is not written atomically; what earlier steps wrote is kept. Raises :class:`OutputError`
    naming the file when it cannot be written."""
    text = summary_markdown(report)
    try:
        with open(path, "a", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise OutputError(f"{printable(os.fspath(path))}: cannot append the summary: {e.strerror or e}") from None
