"""Pack directories (``llkgen.packdir/1``): packs too big for one file.

A pack directory holds ``index.json`` and parts ``levels-00000.jsonl``, ... of at most
:data:`PART_LEVELS` levels each, one compact level object per line. Each part is small enough
to read, diff and ship; the index lets a tool find a level without parsing every part; and
:func:`llkgen.formats.load.iter_pack_dir` streams the parts one line at a time, so reading holds one level (and
the index) in memory, whatever the number of levels. :func:`write_pack_dir` builds the
directory beside its target and swaps it in only when it is complete. ``llkgen schema packdir``
(``llkgen/schemas/packdir.schema.json``) describes ``index.json``; :func:`pack_index_from_json`
checks what a schema cannot (the parts' counts and firsts add up).

The ``files`` layout (``llkgen.pack-files/1``) is the other :class:`~llkgen.formats.container.PackLayout`
(:mod:`llkgen.formats.packfiles`); :mod:`llkgen.formats.load` reads both.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from llkgen.errors import LevelFormatError
from llkgen.formats.container import (
    PACK_INDEX,
    PACKDIR_FORMAT,
    PackFileError,
    PackIndex,
    PackLayout,
    PackPart,
    check_header,
    open_part,
    write_dir_atomic,
    write_synced,
)
from llkgen.formats.level import MAX_FILE_BYTES, Level, dumps, level_from_json, level_to_json, parse_json_line
from llkgen.text import describe_value, escape_surrogates

#: The most levels one part file holds.
PART_LEVELS = 10_000
#: Refuse a line of a part longer than this: one level, so the same cap as a level file.
MAX_LINE_BYTES = MAX_FILE_BYTES


_INDEX_KEYS = ("format", "name", "count", "files", "ids")


def _count(obj: dict, key: str, where: str, lo: int, hi: int | None = None) -> int:
    v = obj.get(key)
    if type(v) is not int or v < lo or (hi is not None and v > hi):
        want = f"an integer >= {lo}" + (f" and <= {hi}" if hi is not None else "")
        raise LevelFormatError(f"{where}.{key}: expected {want}, found {describe_value(v)}")
    return v


def _part_name_ok(name: str) -> bool:
    # A part is a plain file beside the index: no directory parts, nothing hidden, so a
    # crafted index cannot make a reader open files outside the pack directory.
    return (name.endswith(".jsonl") and not name.startswith(".") and "/" not in name
            and "\\" not in name and "\0" not in name)


def pack_index_from_json(obj: object) -> PackIndex:
    """Validate a decoded ``index.json``; raises :class:`LevelFormatError` naming the key."""
    if not isinstance(obj, dict):
        raise LevelFormatError(f"expected an index object, found {describe_value(obj)}")
    for key in _INDEX_KEYS:
        if key not in obj:
            raise LevelFormatError(f"missing field {key!r}")
    if obj["format"] != PACKDIR_FORMAT:
        raise LevelFormatError(f"format: expected {PACKDIR_FORMAT!r}, found {describe_value(obj['format'])}")
    if not isinstance(obj["name"], str):
        raise LevelFormatError(f"name: expected a string, found {describe_value(obj['name'])}")
    count = _count(obj, "count", "index", 0)
    files = obj["files"]
    if not isinstance(files, list):
        raise LevelFormatError(f"files: expected a list of parts, found {describe_value(files)}")
    parts: list[PackPart] = []
    total = 0
    seen: set[str] = set()
    for i, f in enumerate(files):
        where = f"files[{i}]"
        if not isinstance(f, dict):
            raise LevelFormatError(f"{where}: expected an object with path, count and first, found {describe_value(f)}")
        name = f.get("path")
        if not isinstance(name, str) or not _part_name_ok(name):
            raise LevelFormatError(f"{where}.path: expected a file name ending .jsonl in the pack "
                                   f"directory, found {describe_value(name)}")
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
        found = f"a list of {len(ids)}" if isinstance(ids, list) else describe_value(ids)
        raise LevelFormatError(f"ids: expected a list of {count} level ids (count), found {found}")
    for i, level_id in enumerate(ids):
        if level_id is not None and not isinstance(level_id, str):
            raise LevelFormatError(f"ids[{i}]: expected a string or null, found {describe_value(level_id)}")
    extra = {k: v for k, v in obj.items() if k not in _INDEX_KEYS}
    return PackIndex(obj["name"], count, parts, list(ids), extra)


def read_part(file: Path, part: PackPart, ids: list[str | None]) -> Iterator[tuple[int, Level]]:
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
                obj = parse_json_line(line, at)
                level = level_from_json(obj, f"levels[{i}]")
            except LevelFormatError as e:
                raise PackFileError(at, str(e).removeprefix(f"{at}: ")) from None
            if level.id != ids[i]:
                raise PackFileError(at, f"levels[{i}].id: {PACK_INDEX} lists {ids[i]!r}, found {level.id!r}")
            yield i, level
        if lineno < part.count:
            raise PackFileError(f"{where}:{lineno + 1}", f"the file ends after {lineno} levels, but "
                                f"{PACK_INDEX} lists {part.count}")


def level_line(level: Level) -> str:
    """One level as a line of a part file: :func:`level_to_json`, compact, keys in the order
    built, lone surrogates escaped, and a newline."""
    return _compact_line(level_to_json(level))


def _compact_line(obj: dict) -> str:
    return escape_surrogates(json.dumps(obj, ensure_ascii=False, separators=(",", ":"))) + "\n"


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


#: This layout, for :data:`llkgen.formats.load.LAYOUTS`.
LAYOUT = PackLayout(PACKDIR_FORMAT, pack_index_from_json, read_part, write_pack_dir)
