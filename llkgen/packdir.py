"""Pack directories (``llkgen.packdir/1``): packs too big for one file.

A pack directory holds ``index.json`` and parts ``levels-00000.jsonl``, ... of at most
:data:`PART_LEVELS` levels each, one compact level object per line. Each part is small enough
to read, diff and ship; the index lets a tool find a level without parsing every part; and
:func:`iter_pack_dir` streams the parts one line at a time, so reading holds one level (and
the index) in memory, whatever the number of levels. :func:`write_pack_dir` builds the
directory beside its target and swaps it in only when it is complete.

The ``files`` layout (``llkgen.pack-files/1``, :mod:`llkgen.packfiles`) is read through the same
functions: its index is a :class:`PackIndex` whose parts are one level file each.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from llkgen.board import _kind
from llkgen.errors import LevelFormatError, OutputError
from llkgen.files import _umask
from llkgen.level import (
    MAX_FILE_BYTES,
    PACK_FORMAT,
    Level,
    Pack,
    dumps,
    level_from_json,
    level_to_json,
    parse_json,
    read_json,
)
from llkgen.text import escape_surrogates

PACKDIR_FORMAT = "llkgen.packdir/1"
#: The ``files`` layout: a directory of level files and an index (see :mod:`llkgen.packfiles`).
PACK_FILES_FORMAT = "llkgen.pack-files/1"
#: The formats of a pack directory's index.json that llkgen reads, and may replace on writing.
DIR_FORMATS = (PACKDIR_FORMAT, PACK_FILES_FORMAT)
#: A pack directory's index file, and the most levels one part file holds.
PACK_INDEX = "index.json"
PART_LEVELS = 10_000
#: Refuse a line of a part longer than this: one level, so the same cap as a level file.
MAX_LINE_BYTES = MAX_FILE_BYTES


class PackFileError(LevelFormatError):
    """A problem in one file of a pack directory: ``where`` is the file, or ``file:line`` for a
    line of a part, and ``reason`` says what was expected and found."""

    def __init__(self, where: str, reason: str):
        super().__init__(f"{where}: {reason}")
        self.where = where
        self.reason = reason


@dataclass(frozen=True)
class PackPart:
    """One part file of a pack directory: its file name, how many levels it holds, and the
    0-based index in the pack of its first level."""

    path: str
    count: int
    first: int


@dataclass(frozen=True)
class PackIndex:
    """A validated ``index.json``: ``extra`` holds every other top-level key of the pack
    (``generator``, ``seed``, ...), ``ids`` one entry per level (``None`` for no id).
    ``format`` says how the parts are read: JSON-lines parts, or one level file each."""

    name: str
    count: int
    parts: list[PackPart]
    ids: list[str | None]
    extra: dict = field(default_factory=dict)
    format: str = PACKDIR_FORMAT


_INDEX_KEYS = ("format", "name", "count", "files", "ids")


def is_pack_dir(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a directory meant as a pack directory: it holds ``index.json`` or a
    ``levels-*.jsonl`` part (a directory of parts without its index is a broken pack, and is
    reported as one rather than ignored)."""
    p = Path(path)
    if not p.is_dir():
        return False
    if (p / PACK_INDEX).exists():
        return True
    try:
        return any(e.name.startswith("levels-") and e.name.endswith(".jsonl") for e in os.scandir(p))
    except OSError:
        return False


def _count(obj: dict, key: str, where: str, lo: int, hi: int | None = None) -> int:
    v = obj.get(key)
    if type(v) is not int or v < lo or (hi is not None and v > hi):
        want = f"an integer >= {lo}" + (f" and <= {hi}" if hi is not None else "")
        raise LevelFormatError(f"{where}.{key}: expected {want}, found {_kind(v)}")
    return v


def _part_name_ok(name: str) -> bool:
    # A part is a plain file beside the index: no directory parts, nothing hidden, so a
    # crafted index cannot make a reader open files outside the pack directory.
    return (name.endswith(".jsonl") and not name.startswith(".") and "/" not in name
            and "\\" not in name and "\0" not in name)


def pack_index_from_json(obj: object) -> PackIndex:
    """Validate a decoded ``index.json``; raises :class:`LevelFormatError` naming the key."""
    if not isinstance(obj, dict):
        raise LevelFormatError(f"expected an index object, found {_kind(obj)}")
    for key in _INDEX_KEYS:
        if key not in obj:
            raise LevelFormatError(f"missing field {key!r}")
    if obj["format"] != PACKDIR_FORMAT:
        raise LevelFormatError(f"format: expected {PACKDIR_FORMAT!r}, found {_kind(obj['format'])}")
    if not isinstance(obj["name"], str):
        raise LevelFormatError(f"name: expected a string, found {_kind(obj['name'])}")
    count = _count(obj, "count", "index", 0)
    files = obj["files"]
    if not isinstance(files, list):
        raise LevelFormatError(f"files: expected a list of parts, found {_kind(files)}")
    parts: list[PackPart] = []
    total = 0
    seen: set[str] = set()
    for i, f in enumerate(files):
        where = f"files[{i}]"
        if not isinstance(f, dict):
            raise LevelFormatError(f"{where}: expected an object with path, count and first, found {_kind(f)}")
        name = f.get("path")
        if not isinstance(name, str) or not _part_name_ok(name):
            raise LevelFormatError(f"{where}.path: expected a file name ending .jsonl in the pack "
                                   f"directory, found {_kind(name)}")
        if name in seen:
            raise LevelFormatError(f"{where}.path: {name!r} is listed twice")
        seen.add(name)
        n = _count(f, "count", where, 1, PART_LEVELS)
        first = _count(f, "first", where, 0)
        if first != total:
            raise LevelFormatError(f"{where}.first: expected {total} (the levels in the parts before "
                                   f"it), found {first}")
        parts.append(PackPart(name, n, first))
        total += n
    if total != count:
        raise LevelFormatError(f"count: says {count} levels but the parts in files hold {total}")
    ids = obj["ids"]
    if not isinstance(ids, list) or len(ids) != count:
        found = f"a list of {len(ids)}" if isinstance(ids, list) else _kind(ids)
        raise LevelFormatError(f"ids: expected a list of {count} level ids (count), found {found}")
    for i, level_id in enumerate(ids):
        if level_id is not None and not isinstance(level_id, str):
            raise LevelFormatError(f"ids[{i}]: expected a string or null, found {_kind(level_id)}")
    extra = {k: v for k, v in obj.items() if k not in _INDEX_KEYS}
    return PackIndex(obj["name"], count, parts, list(ids), extra)


def read_pack_index(path: str | os.PathLike) -> PackIndex:
    """The validated index of the pack directory ``path``; raises :class:`PackFileError`
    naming ``PATH/index.json`` (read up to :data:`MAX_FILE_BYTES`, like any JSON file)."""
    index = Path(path) / PACK_INDEX
    where = str(index)
    if not index.exists() and Path(path).is_dir():
        raise PackFileError(where, f"no such file: a pack directory needs its index ({PACKDIR_FORMAT})")
    try:
        obj = read_json(index)
    except LevelFormatError as e:
        msg = str(e)
        raise PackFileError(where, msg[len(where) + 2:] if msg.startswith(where + ": ") else msg) from None
    try:
        if isinstance(obj, dict) and obj.get("format") == PACK_FILES_FORMAT:
            from llkgen.packfiles import files_index_from_json

            return files_index_from_json(obj)
        return pack_index_from_json(obj)
    except LevelFormatError as e:
        raise PackFileError(where, str(e)) from None


def open_part(file: Path) -> int:
    """A descriptor for a part file, which must be a regular file: a FIFO or a device in a pack
    directory is refused at once instead of blocking or reading forever."""
    where = str(file)
    try:
        fd = os.open(file, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise PackFileError(where, f"no such file, but {PACK_INDEX} lists it") from None
    except OSError as e:
        raise PackFileError(where, f"cannot read: {e.strerror}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise PackFileError(where, f"not a regular file, expected a part of {PACK_INDEX}")
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return fd


def _part_levels(file: Path, part: PackPart, ids: list[str | None]) -> Iterator[tuple[int, Level]]:
    """``(index in the pack, level)`` for every line of one part, checked against the index.
    Each line is read up to :data:`MAX_LINE_BYTES`, the cap for a level file."""
    where = str(file)
    fd = open_part(file)
    with os.fdopen(fd, "rb") as f:
        lineno = 0
        while True:
            try:
                line = f.readline(MAX_LINE_BYTES + 1)
            except OSError as e:
                raise PackFileError(f"{where}:{lineno + 1}", f"cannot read: {e.strerror}") from None
            if not line:
                break
            lineno += 1
            at = f"{where}:{lineno}"
            if len(line) > MAX_LINE_BYTES:
                raise PackFileError(at, f"line too long: more than {MAX_LINE_BYTES} bytes, the cap for a level")
            if lineno > part.count:
                raise PackFileError(at, f"more levels than the {part.count} that {PACK_INDEX} lists for this file")
            if not line.strip():
                raise PackFileError(at, "empty line, expected a level object")
            i = part.first + lineno - 1
            try:
                obj = parse_json(line.rstrip(b"\r\n"), "")
                level = level_from_json(obj, f"levels[{i}]")
            except LevelFormatError as e:
                # parse_json's messages start ": " (no source) and count lines within the line.
                msg = str(e).removeprefix(": ").replace("bad JSON at line 1 column", "bad JSON at column")
                raise PackFileError(at, msg) from None
            if level.id != ids[i]:
                raise PackFileError(at, f"levels[{i}].id: {PACK_INDEX} lists {ids[i]!r}, found {level.id!r}")
            yield i, level
        if lineno < part.count:
            raise PackFileError(f"{where}:{lineno + 1}", f"the file ends after {lineno} levels, but "
                                f"{PACK_INDEX} lists {part.count}")


def iter_pack_dir(path: str | os.PathLike, start: int = 0, stop: int | None = None,
                  index: PackIndex | None = None) -> Iterator[tuple[str, Level]]:
    """``(label, level)`` for the levels ``start`` to ``stop - 1`` of the pack directory
    ``path`` (all by default), streamed: one part open at a time, one line parsed at a time.
    Labels are ``PATH#ID`` (``PATH#INDEX`` for a level without an id), as for a pack file.

    Raises :class:`PackFileError` naming the file, and the line for a part, at the first
    problem: a missing or invalid index, a missing part, a bad line, a level whose id is not
    the index's, or a part with more or fewer levels than the index lists. Levels before the
    problem have already been yielded; parts outside ``start:stop`` are not opened."""
    root = Path(path)
    idx = read_pack_index(root) if index is None else index
    end = idx.count if stop is None else min(stop, idx.count)
    read = _part_levels
    if idx.format == PACK_FILES_FORMAT:
        from llkgen.packfiles import file_level as read
    for part in idx.parts:
        if part.first + part.count <= start or part.first >= end:
            continue
        for i, level in read(root / part.path, part, idx.ids):
            if i >= end:
                break
            if i >= start:
                yield f"{root}#{level.id or i}", level


def load_pack_dir(path: str | os.PathLike, start: int = 0, stop: int | None = None) -> Pack:
    """The pack directory ``path`` as a :class:`Pack` (levels ``start:stop`` only, if given)."""
    idx = read_pack_index(path)
    levels = [lv for _, lv in iter_pack_dir(path, start, stop, idx)]
    return Pack(idx.name, levels, dict(idx.extra))


def level_by_id(path: str, wanted: str) -> Level:
    """The level labelled ``wanted`` (an id, else the 0-based index) of a pack directory: the
    index says which part holds it, and only that part is read."""
    idx = read_pack_index(path)
    for i, level_id in enumerate(idx.ids):
        if (level_id or str(i)) == wanted:
            for _, level in iter_pack_dir(path, i, i + 1, idx):
                return level
    shown = ", ".join(str(x or i) for i, x in enumerate(idx.ids[:3]))
    raise LevelFormatError(f"{path}: no level {wanted!r}: expected the id of one of its {idx.count} "
                           f"levels" + (f" ({shown}{', ...' if idx.count > 3 else ''})" if shown else ""))


def level_line(level: Level) -> str:
    """One level as a line of a part file: :func:`level_to_json`, compact, keys in the order
    built, lone surrogates escaped, and a newline."""
    return _compact_line(level_to_json(level))


def _compact_line(obj: dict) -> str:
    return escape_surrogates(json.dumps(obj, ensure_ascii=False, separators=(",", ":"))) + "\n"


def check_pack_dir_target(path: str | os.PathLike) -> Path:
    """Raise :class:`OutputError` now if :func:`write_pack_dir` would refuse ``path``: it may
    be missing, an empty directory, or a pack directory (which is replaced); anything else (a
    file, a directory of other things) is never replaced. Writes nothing."""
    p = Path(path)
    if p.is_symlink() or (p.exists() and not p.is_dir()):
        raise OutputError(f"{p}: cannot write: exists and is not a directory, expected a pack directory")
    if p.is_dir():
        try:
            entries = os.listdir(p)
        except OSError as e:
            raise OutputError(f"{p}: cannot write: {(e.strerror or str(e)).lower()}") from None
        if entries and not _has_packdir_index(p):
            raise OutputError(f"{p}: cannot write: a directory that is not a pack directory (no {PACK_INDEX} "
                              f"with format {PACKDIR_FORMAT!r} or {PACK_FILES_FORMAT!r}); it is never replaced")
    return p


def _has_packdir_index(p: Path) -> bool:
    try:
        obj = read_json(p / PACK_INDEX)
    except LevelFormatError:
        return False
    return isinstance(obj, dict) and obj.get("format") in DIR_FORMATS


def _fsync_dir(p: Path) -> None:
    try:
        fd = os.open(p, os.O_RDONLY)
    except OSError:
        return  # not possible on every system; the files themselves are synced
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_pack_dir(path: str | os.PathLike, header: dict, levels: Iterable[Level | dict], *,
                   per_file: int = PART_LEVELS) -> Path:
    """Write a pack directory: ``levels`` streamed into parts of ``per_file`` levels (at most
    :data:`PART_LEVELS`), then ``index.json``; returns the path. A level is a :class:`Level`
    or a level object as :func:`level_to_json` makes it (written as given, not validated:
    readers validate every line).

    ``header`` is the pack's top-level keys except ``levels``: ``name`` (required) and any
    others (``generator``, ``seed``, ...); a ``format`` of ``llkgen.pack/1`` is dropped, so
    ``pack_to_json(pack)`` minus ``levels`` will do. The same header and levels give the same
    bytes.

    Atomic, as :func:`write_dir_atomic`. Raises :class:`OutputError` when the directory cannot
    be written."""
    check_header(header, ("levels", "count", "files", "ids"))
    if type(per_file) is not int or not 1 <= per_file <= PART_LEVELS:
        raise ValueError(f"per_file: expected an integer from 1 to {PART_LEVELS}, found {per_file!r}")

    def fill(tmp: Path) -> None:
        files: list[dict] = []
        ids: list[str | None] = []
        out = None
        try:
            for level in levels:
                if len(ids) % per_file == 0:
                    if out is not None:
                        out.flush()
                        os.fsync(out.fileno())
                        out.close()
                    name = f"levels-{len(files):05d}.jsonl"
                    out = open(tmp / name, "wb")
                    files.append({"path": name, "count": 0, "first": len(ids)})
                assert out is not None
                if isinstance(level, dict):
                    out.write(_compact_line(level).encode("utf-8"))
                    ids.append(level.get("id"))
                else:
                    out.write(level_line(level).encode("utf-8"))
                    ids.append(level.id)
                files[-1]["count"] += 1
        finally:
            if out is not None:
                out.flush()
                os.fsync(out.fileno())
                out.close()
        index: dict = {"format": PACKDIR_FORMAT, "name": header["name"]}
        index.update((k, v) for k, v in header.items() if k not in ("format", "name"))
        index.update(count=len(ids), files=files, ids=ids)
        write_synced(tmp / PACK_INDEX, dumps(index))

    return write_dir_atomic(path, fill)


def check_header(header: dict, reserved: tuple[str, ...]) -> None:
    """Raise ``ValueError`` unless ``header`` is a pack's top-level keys as a directory writer
    takes them: a string ``name``, no ``format`` but ``llkgen.pack/1`` or a directory format,
    and none of the ``reserved`` keys the writer fills in itself."""
    if not isinstance(header, dict) or not isinstance(header.get("name"), str):
        raise ValueError("header: expected a dict with a string 'name'")
    if header.get("format", PACK_FORMAT) not in (PACK_FORMAT, *DIR_FORMATS):
        raise ValueError(f"header.format: expected {PACK_FORMAT!r} or none, found {header['format']!r}")
    clash = sorted(set(header) & set(reserved))
    if clash:
        raise ValueError(f"header: {', '.join(clash)} are written by the directory writer, not given")


def write_synced(file: Path, text: str) -> None:
    """Write ``text`` as UTF-8 to a new ``file`` and fsync it (inside a directory that
    :func:`write_dir_atomic` has yet to rename into place)."""
    with open(file, "wb") as f:
        f.write(text.encode("utf-8"))
        f.flush()
        os.fsync(f.fileno())


def write_dir_atomic(path: str | os.PathLike, fill: Callable[[Path], None]) -> Path:
    """Build a directory with ``fill(tmp)``, which writes its files (no subdirectories) into
    the empty directory ``tmp``, and put it at ``path``; returns the path.

    Atomic: ``tmp`` is a temporary directory beside ``path``, renamed into place only once
    ``fill`` returns. An existing pack directory at ``path`` is moved aside, the new one renamed
    in, and only then the old one removed; a failed or interrupted write leaves it untouched
    (and removes the temporary directory). Anything at ``path`` other than a pack directory
    (either format) or an empty directory is never replaced (:func:`check_pack_dir_target`).
    Raises :class:`OutputError` when the directory cannot be written."""
    target = check_pack_dir_target(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".llkgen-", suffix=".tmp", dir=target.parent))
    except OSError as e:
        raise OutputError(f"{target}: cannot write: {(e.strerror or str(e)).lower()}") from None
    try:
        fill(tmp)
        mode = 0o666 & ~_umask()
        for name in os.listdir(tmp):
            os.chmod(tmp / name, mode)
        os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes 0700; give the usual permissions
        _fsync_dir(tmp)
        _swap_in(tmp, target)
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(e, OSError):
            raise OutputError(f"{target}: cannot write: {(e.strerror or str(e)).lower()}") from None
        raise
    return target


def _swap_in(new: Path, target: Path) -> None:
    """Rename the complete directory ``new`` to ``target``. An existing ``target`` is renamed
    aside first and removed only after ``new`` is in place; if that rename fails, it is put
    back. (Between the two renames ``target`` is missing for an instant, but the old pack is
    whole under its hidden name: nothing written is ever lost.)"""
    if not os.path.lexists(target):
        os.rename(new, target)
        _fsync_dir(target.parent)
        return
    old = Path(tempfile.mkdtemp(prefix=".llkgen-old-", suffix=".tmp", dir=target.parent))
    os.rmdir(old)  # only its unique name is wanted
    os.rename(target, old)
    try:
        os.rename(new, target)
    except BaseException:
        os.rename(old, target)
        raise
    _fsync_dir(target.parent)
    shutil.rmtree(old, ignore_errors=True)
