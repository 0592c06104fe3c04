"""Finished levels on their way into a pack: JSON lines, written as they arrive.

A *record* is one made level, ``{"index": i, "attempts": a, "level": {...}}`` where ``level``
is exactly the object the pack will hold (:func:`llkgen.formats.level.level_to_json`). When that
object carries no ``solution`` (a spec with ``export.solutions: false``), the record carries the
level's certified solution beside it, as a last key ``"solution"``, so that the level can still
be replayed wherever the record is read back; the pack never holds it. Records cross process
and machine boundaries as JSON, and a JSON round trip gives back an equal object (floats print
as their shortest repr, keys keep their order), so a pack assembled from records that went
through a file is byte-identical to one assembled in memory.

Anything read back from a file is input: :func:`parse_record`, the one reader of a record line
(journals here, shard files in :mod:`llkgen.jobs.shards`), parses it strictly
(:func:`llkgen.formats.level.parse_json`: no ``NaN``), re-validates the level object and has the
referee (:func:`llkgen.game.referee.replay`) replay its solution to a cleared board; given the
pack's name, it also holds the level's id to the one its run gives (:func:`pack_level_id`), so
an id read back from a file is exactly as safe as one made from a spec (a spec's name passes
:func:`llkgen.generation.spec.name_ok`): no ``../../evil``, no 5,000 characters, no second
record of one id. A record that fails is never returned.

* :class:`MemorySpool` keeps the records of a pack that fits in one file.
* :class:`Journal` appends each record to a file as one line, written and fsynced before
  the next is accepted, and remembers only each index's byte offset. A run that is killed
  loses at most the line being written; :meth:`Journal.open` with ``resume`` drops such a torn
  last line and keeps every complete one. Records are read back one at a time, in index order,
  each through :func:`parse_record` again. A journal never follows a symbolic link at its path.
"""

from __future__ import annotations

import errno
import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from llkgen.errors import LevelFormatError, OutputError
from llkgen.files import TMP_SUFFIX, hold, sweep_stale, temp_prefix, write_error
from llkgen.formats.level import level_from_json, parse_json_line
from llkgen.game.referee import replay
from llkgen.text import describe_value, escape_surrogates

JOURNAL_FORMAT = "llkgen.journal/1"


def record_line(obj: Any) -> str:
    """One compact JSON line (with its newline); lone surrogates escaped so it encodes."""
    return escape_surrogates(json.dumps(obj, ensure_ascii=False, separators=(",", ":"))) + "\n"


#: The keys of a record, in order; the last one only when the level holds no solution.
RECORD_KEYS = ["index", "attempts", "level"]
SOLUTION_KEY = "solution"


def pack_level_id(name: str, index: int) -> str:
    """The id of level ``index`` of the pack named ``name``: ``<name>-<index + 1>``, unpadded so
    ids never change when the pack grows."""
    return f"{name}-{index + 1}"


def parse_record(line: str, where: str, expected: int | None = None, pack: str | None = None) -> dict:
    """A record decoded from ``line`` and certified: strict JSON (no ``NaN`` or ``Infinity``
    anywhere, metrics included), an index (``expected`` when given), a positive attempt count, a
    valid level object (:func:`llkgen.formats.level.level_from_json`) whose id, given the
    name of its ``pack``, is :func:`pack_level_id`'s, and a solution (the level's, or the record's
    when the level holds none) that the referee replays to a cleared board. Raises
    :class:`LevelFormatError` naming ``where`` (``FILE line N``), and the level for a solution
    that fails."""
    obj = parse_json_line(line, where)
    if not isinstance(obj, dict) or list(obj) not in (RECORD_KEYS, [*RECORD_KEYS, SOLUTION_KEY]):
        found = list(obj) if isinstance(obj, dict) else type(obj).__name__
        raise LevelFormatError(f"{where}: expected a record with index, attempts and level (and a solution "
                               f"when the level holds none), found {found}")
    index, attempts = obj["index"], obj["attempts"]
    if type(index) is not int or index < 0 or (expected is not None and index != expected):
        want = "a level index" if expected is None else f"level index {expected}"
        raise LevelFormatError(f"{where}: expected {want}, found {index!r}")
    if type(attempts) is not int or attempts < 1:
        raise LevelFormatError(f"{where}: attempts: expected an integer >= 1, found {attempts!r}")
    if pack is not None:
        given = obj["level"].get("id") if isinstance(obj["level"], dict) else None
        if given != pack_level_id(pack, index):
            raise LevelFormatError(f"{where}: level id: expected {pack_level_id(pack, index)!r} (level {index + 1} "
                                   f"of pack {pack!r}), found {describe_value(given)}")
    level = level_from_json(obj["level"], f"{where}: level")
    name = f"level {level.id}" if level.id is not None else f"level index {index}"
    if SOLUTION_KEY in obj and level.solution is not None:
        raise LevelFormatError(f"{where}: {name}: expected one solution, in the level or beside it, found both")
    solution = obj.get(SOLUTION_KEY, level.solution)
    if solution is None:
        raise LevelFormatError(f"{where}: {name}: no stored solution to replay (a record of an older llkgen "
                               "with export.solutions false: make it again)")
    if not isinstance(solution, list):
        raise LevelFormatError(f"{where}: {name}: stored solution fails: expected a list of moves "
                               "[[r1, c1], [r2, c2]]")
    result = replay(level.board, level.rules, solution)
    if not (result.ok and result.cleared):
        raise LevelFormatError(f"{where}: {name}: stored solution fails: {result.describe()}")
    return obj


def _index_said(line: str) -> int:
    """The level index a record line that failed :func:`parse_record` says it holds, or -1: only
    which level to make first, so anything short of a plain integer there is -1."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return -1
    index = obj.get("index") if isinstance(obj, dict) else None
    return index if type(index) is int and 0 <= index else -1


class MemorySpool:
    """Records kept in memory (a pack of at most one file's levels)."""

    def __init__(self) -> None:
        self._records: dict[int, dict] = {}

    def __contains__(self, index: object) -> bool:
        return index in self._records

    def add(self, record: dict) -> None:
        self._records[record["index"]] = record

    def records(self, indices: Iterable[int]) -> Iterator[dict]:
        for i in indices:
            yield self._records[i]

    def close(self, remove: bool = False) -> None:
        self._records.clear()


#: A journal is opened read-write, never through a symbolic link: a link planted at its path
#: (dangling or not) would have the run create and fill a file elsewhere, and leave it there.
_FLAGS = os.O_RDWR | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)


def _link_error(p: Path) -> OutputError:
    return OutputError(f"{p}: cannot write: is a symbolic link, expected a regular file (llkgen does not "
                       "follow a link at a journal's path: remove it)")


class Journal:
    """Records appended to a JSON-lines file whose first line is ``header`` (see the module
    docstring). ``durable`` fsyncs each line: a journal that must survive a crash.

    The file is written through its descriptor, unbuffered, so a failed write (a full disk)
    raises :class:`~llkgen.errors.OutputError` at once, the partial line is cut off, and the
    journal keeps exactly the lines it had; closing never writes.

    ``dropped`` lists, for :meth:`open` with ``resume``, each complete journal line that failed
    :func:`parse_record` (damaged JSON, an invalid level, an id not its run's, a solution that
    does not replay) or repeated an index already read: its level is not taken from the journal,
    so the run makes it again. ``redo`` is the indices of those levels, where the line said
    one: the run makes them first."""

    def __init__(self, path: Path, header: dict, fd: int, offsets: dict[int, tuple[int, int, int]],
                 end: int, lines: int, durable: bool, dropped: list[str], redo: list[int] | None = None) -> None:
        self.path = path
        self.header = header
        self.dropped = dropped
        self.redo = redo or []
        self._fd = fd
        self._offsets = offsets  # index -> (byte offset, byte length, line number)
        self._end = end
        self._lines = lines
        self._durable = durable

    @classmethod
    def open(cls, path: str | os.PathLike, header: dict, resume: bool, durable: bool = True) -> Journal:
        """The journal at ``path`` for a run described by ``header``. With ``resume`` an
        existing journal is read: it must carry the same header, else
        :class:`LevelFormatError` says which field differs; its records that pass
        :func:`parse_record` are kept, the others listed in ``dropped``. Without ``resume``,
        or when there is none, a new journal is started. A symbolic link at ``path`` is
        refused with :class:`OutputError`, and never followed."""
        p = Path(path)
        header = {"format": JOURNAL_FORMAT, **header}
        if p.is_symlink():
            raise _link_error(p)
        if resume and os.path.lexists(p):
            found = cls._open_existing(p, header)
            if found is not None:
                fd, offsets, end, lines, dropped, redo = found
                return cls(p, header, fd, offsets, end, lines, durable, dropped, redo)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(p, _FLAGS | os.O_CREAT | os.O_TRUNC, 0o666)
        except OSError as e:
            raise (_link_error(p) if e.errno == errno.ELOOP else write_error(p, e)) from None
        if not durable:
            hold(fd)  # a temporary journal: in use while this run lives (see files.sweep_stale)
        journal = cls(p, header, fd, {}, 0, 0, durable, [])
        try:
            journal._append(record_line(header).encode("utf-8"))
        except BaseException:
            journal.close(remove=True)  # a journal without its header holds nothing to resume
            raise
        return journal

    @staticmethod
    def _open_existing(p: Path, header: dict) -> tuple[int, dict[int, tuple[int, int, int]], int, int,
                                                      list[str], list[int]] | None:
        """``(fd, offsets, end, lines, dropped, redo)`` of the journal at ``p``, cut after its
        last complete line; ``None`` for one killed before its header was complete."""
        try:
            fd = os.open(p, _FLAGS)
        except OSError as e:
            if e.errno == errno.ELOOP:
                raise _link_error(p) from None
            raise LevelFormatError(f"{p}: cannot read the journal: {e.strerror}") from None
        offsets: dict[int, tuple[int, int, int]] = {}
        dropped: list[str] = []
        redo: list[int] = []
        name = header.get("name") if isinstance(header.get("name"), str) else None
        try:
            with open(fd, "rb", closefd=False) as f:
                first = f.readline()
                if not first.endswith(b"\n"):
                    os.close(fd)  # killed before its header was complete: nothing to keep
                    return None
                try:
                    found = parse_json_line(first, f"{p} line 1")
                except LevelFormatError:
                    found = None
                if not isinstance(found, dict) or found.get("format") != JOURNAL_FORMAT:
                    raise LevelFormatError(
                        f"{p}: line 1: expected a {JOURNAL_FORMAT} header, found {first[:60]!r} "
                        "(delete the file, or run without resume)", arguments=("resume",))
                differ = [k for k in header if found.get(k) != header[k]]
                if differ:
                    raise LevelFormatError(
                        f"{p}: a journal of another run: " + ", ".join(
                            f"{k} is {found.get(k)!r}, expected {header[k]!r}" for k in differ)
                        + " (delete the file, or run without resume)", arguments=("resume",))
                number, good_end = 1, f.tell()
                while True:
                    offset = f.tell()
                    line = f.readline()
                    if not line.endswith(b"\n"):
                        break  # the end, or a line torn by a kill mid-write: cut below, and made again
                    number, good_end = number + 1, f.tell()
                    text = line.decode("utf-8", "surrogateescape")
                    try:
                        record = parse_record(text, f"{p} line {number}", pack=name)
                        if record["index"] in offsets:
                            raise LevelFormatError(f"{p} line {number}: level index {record['index']}: a second "
                                                   f"record of it (the first is line {offsets[record['index']][2]})")
                    except LevelFormatError as e:
                        # The header matched, so this journal is this run's: a damaged record costs
                        # one level made again, not the whole journal.
                        dropped.append(str(e))
                        redo.append(_index_said(text))
                        continue
                    offsets[record["index"]] = (offset, len(line), number)
            try:
                os.ftruncate(fd, good_end)
            except OSError as e:
                raise write_error(p, e) from None
            return fd, offsets, good_end, number, dropped, [i for i in dict.fromkeys(redo) if i >= 0]
        except BaseException:
            os.close(fd)
            raise

    def __contains__(self, index: object) -> bool:
        return index in self._offsets

    def __len__(self) -> int:
        return len(self._offsets)

    def _append(self, data: bytes) -> tuple[int, int, int]:
        """Write ``data`` (one line) at the end; ``(offset, length, line number)``."""
        start = self._end
        try:
            os.lseek(self._fd, start, os.SEEK_SET)
            view = memoryview(data)
            while view:
                view = view[os.write(self._fd, view):]
            if self._durable:
                os.fsync(self._fd)
        except OSError as e:
            try:  # the journal keeps exactly the lines it had: no torn line for the next run
                os.ftruncate(self._fd, start)
            except OSError:
                pass
            raise write_error(self.path, e) from None
        self._end, self._lines = start + len(data), self._lines + 1
        return start, len(data), self._lines

    def add(self, record: dict) -> None:
        """Append ``record`` (and fsync it, if ``durable``); raises :class:`OutputError` naming
        the journal when it cannot be written."""
        self._offsets[record["index"]] = self._append(record_line(record).encode("utf-8"))

    def _read(self, offset: int, length: int) -> bytes:
        os.lseek(self._fd, offset, os.SEEK_SET)
        chunks: list[bytes] = []
        while length > 0:
            chunk = os.read(self._fd, length)
            if not chunk:
                break
            chunks.append(chunk)
            length -= len(chunk)
        return b"".join(chunks)

    def records(self, indices: Iterable[int] | None = None) -> Iterator[dict]:
        """The records of ``indices`` (default: every index journalled, ascending), read back
        one at a time, each certified again by :func:`parse_record` (the file is input)."""
        for i in sorted(self._offsets) if indices is None else indices:
            offset, length, number = self._offsets[i]
            try:
                line = self._read(offset, length)
            except OSError as e:
                raise LevelFormatError(f"{self.path}: cannot read the journal: {e.strerror}") from None
            yield parse_record(line.decode("utf-8", "surrogateescape"), f"{self.path} line {number}", expected=i,
                               pack=self.header.get("name"))

    def close(self, remove: bool = False) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if remove:
            self.path.unlink(missing_ok=True)


def temporary_journal_path(beside: Path) -> Path:
    """A fresh file name for a journal that lives only as long as the run (a big pack without
    ``--resume``), in the output's directory so that it is on the same file system."""
    try:
        beside.parent.mkdir(parents=True, exist_ok=True)
        sweep_stale(beside.parent)  # the temporary journals of runs that were killed
        # Named as a held temporary: Journal.open holds it (files.hold) while the run lives,
        # so a later run's sweep removes it only once this run is dead.
        fd, name = tempfile.mkstemp(prefix=temp_prefix(), suffix=TMP_SUFFIX, dir=beside.parent)
    except OSError as e:
        raise OutputError(f"{beside}: cannot write: {(e.strerror or str(e)).lower()}") from None
    os.close(fd)
    return Path(name)
