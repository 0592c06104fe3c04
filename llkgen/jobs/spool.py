"""Finished levels on their way into a pack: JSON lines, written as they arrive.

A *record* is one made level, ``{"index": i, "attempts": a, "level": {...}}`` where ``level``
is exactly the object the pack will hold (:func:`llkgen.formats.level.level_to_json`). Records cross
process and machine boundaries as JSON, and a JSON round trip gives back an equal object
(floats print as their shortest repr, keys keep their order), so a pack assembled from records
that went through a file is byte-identical to one assembled in memory.

* :class:`MemorySpool` keeps the records of a pack that fits in one file.
* :class:`Journal` appends each record to a file as one line, flushed and fsynced before
  the next is accepted, and remembers only each index's byte offset. A run that is killed
  loses at most the line being written; :meth:`Journal.open` with ``resume`` drops such a torn
  last line and keeps every complete one. Records are read back one at a time, in index order.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from llkgen.errors import LevelFormatError, OutputError
from llkgen.files import TMP_PREFIX, TMP_SUFFIX, write_error
from llkgen.formats.level import level_from_json
from llkgen.text import escape_surrogates

JOURNAL_FORMAT = "llkgen.journal/1"


def record_line(obj: Any) -> str:
    """One compact JSON line (with its newline); lone surrogates escaped so it encodes."""
    return escape_surrogates(json.dumps(obj, ensure_ascii=False, separators=(",", ":"))) + "\n"


def parse_record(line: str, where: str, expected: int | None = None) -> dict:
    """A record decoded from ``line`` and checked: an index (``expected`` when given), a
    positive attempt count and a valid level. Raises :class:`LevelFormatError` naming
    ``where`` (``FILE line N``)."""
    try:
        obj = json.loads(line)
    except (json.JSONDecodeError, RecursionError, ValueError) as e:
        raise LevelFormatError(f"{where}: bad JSON: {e}") from None
    if not isinstance(obj, dict) or list(obj) != ["index", "attempts", "level"]:
        found = sorted(obj) if isinstance(obj, dict) else type(obj).__name__
        raise LevelFormatError(f"{where}: expected a record with index, attempts and level, found {found}")
    index, attempts = obj["index"], obj["attempts"]
    if type(index) is not int or index < 0 or (expected is not None and index != expected):
        want = "a level index" if expected is None else f"level index {expected}"
        raise LevelFormatError(f"{where}: expected {want}, found {index!r}")
    if type(attempts) is not int or attempts < 1:
        raise LevelFormatError(f"{where}: attempts: expected an integer >= 1, found {attempts!r}")
    level_from_json(obj["level"], f"{where}: level")
    return obj


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


class Journal:
    """Records appended to a JSON-lines file whose first line is ``header`` (see the module
    docstring). ``durable`` fsyncs each line: a journal that must survive a crash."""

    def __init__(self, path: Path, header: dict, f: IO[bytes], offsets: dict[int, int],
                 durable: bool) -> None:
        self.path = path
        self.header = header
        self._f = f
        self._offsets = offsets
        self._durable = durable

    @classmethod
    def open(cls, path: str | os.PathLike, header: dict, resume: bool, durable: bool = True) -> Journal:
        """The journal at ``path`` for a run described by ``header``. With ``resume`` an
        existing journal is read: it must carry the same header, else
        :class:`LevelFormatError` says which field differs; its records are kept. Without
        ``resume``, or when there is none, a new journal is started."""
        p = Path(path)
        header = {"format": JOURNAL_FORMAT, **header}
        offsets: dict[int, int] = {}
        f = cls._open_existing(p, header, offsets) if resume and p.exists() else None
        if f is None:
            try:
                p.parent.mkdir(parents=True, exist_ok=True)
                f = open(p, "w+b")
            except OSError as e:
                raise write_error(p, e) from None
            f.write(record_line(header).encode("utf-8"))
            cls._sync(f, durable)
        return cls(p, header, f, offsets, durable)

    @staticmethod
    def _open_existing(p: Path, header: dict, offsets: dict[int, int]) -> IO[bytes] | None:
        try:
            f = open(p, "r+b")
        except OSError as e:
            raise LevelFormatError(f"{p}: cannot read the journal: {e.strerror}") from None
        try:
            first = f.readline()
            if not first.endswith(b"\n"):
                f.close()  # killed before its header was complete: nothing to keep
                return None
            try:
                found = json.loads(first)
            except ValueError:
                found = None
            if not isinstance(found, dict) or found.get("format") != JOURNAL_FORMAT:
                raise LevelFormatError(
                    f"{p}: line 1: expected a {JOURNAL_FORMAT} header, found {first[:60]!r} "
                    "(delete the file, or run without --resume)")
            differ = [k for k in header if found.get(k) != header[k]]
            if differ:
                raise LevelFormatError(
                    f"{p}: a journal of another run: " + ", ".join(
                        f"{k} is {found.get(k)!r}, expected {header[k]!r}" for k in differ)
                    + " (delete the file, or run without --resume)")
            number, good_end = 1, f.tell()
            while True:
                offset = f.tell()
                line = f.readline()
                if not line:
                    break
                number += 1
                if not line.endswith(b"\n"):
                    break  # torn by a kill mid-write: dropped below, and made again
                record = parse_record(line.decode("utf-8", "surrogateescape"), f"{p} line {number}")
                offsets.setdefault(record["index"], offset)
                good_end = f.tell()
            f.seek(good_end)
            f.truncate()
            return f
        except BaseException:
            f.close()
            raise

    @staticmethod
    def _sync(f: IO[bytes], durable: bool) -> None:
        f.flush()
        if durable:
            os.fsync(f.fileno())

    def __contains__(self, index: object) -> bool:
        return index in self._offsets

    def __len__(self) -> int:
        return len(self._offsets)

    def add(self, record: dict) -> None:
        self._f.seek(0, os.SEEK_END)
        offset = self._f.tell()
        self._f.write(record_line(record).encode("utf-8"))
        self._sync(self._f, self._durable)
        self._offsets[record["index"]] = offset

    def records(self, indices: Iterable[int] | None = None) -> Iterator[dict]:
        """The records of ``indices`` (default: every index journalled, ascending), read back
        one at a time."""
        for i in sorted(self._offsets) if indices is None else indices:
            self._f.seek(self._offsets[i])
            yield json.loads(self._f.readline())

    def close(self, remove: bool = False) -> None:
        self._f.close()
        if remove:
            self.path.unlink(missing_ok=True)


def temporary_journal_path(beside: Path) -> Path:
    """A fresh file name for a journal that lives only as long as the run (a big pack without
    ``--resume``), in the output's directory so that it is on the same file system."""
    try:
        beside.parent.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(prefix=TMP_PREFIX, suffix=TMP_SUFFIX, dir=beside.parent)
    except OSError as e:
        raise OutputError(f"{beside}: cannot write: {(e.strerror or str(e)).lower()}") from None
    os.close(fd)
    return Path(name)
