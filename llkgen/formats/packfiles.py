"""The ``files`` layout (``llkgen.pack-files/1``): a pack as a directory of level files.

A game that loads one level at a time wants one file per level, and an index to list them::

    PACK_DIR/
      index.json    {"format": "llkgen.pack-files/1", "name": "easy", "generator": "llkgen 0.1.0",
                     "seed": 1, "count": 2,
                     "levels": [{"id": "easy-1", "file": "easy-1.json"},
                                {"id": "easy-2", "file": "easy-2.json"}]}
      easy-1.json   a level file, as `llkgen make` writes levels (nested or flat: its "format" says)
      easy-2.json

``levels`` lists the levels in pack order, each with its id and its file, named after the id.
Nothing in the index or the level files is an array inside an array, except a nested level's
own ``grid`` and ``solution``. :func:`write_pack_files` builds the directory beside its target
and swaps it in when complete (:func:`llkgen.formats.container.write_dir_atomic`). Reading goes through
:mod:`llkgen.formats.load` (``read_pack_index``, ``iter_pack_dir``, ...), which hands this layout
its index and each level file through :data:`LAYOUT`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from llkgen.errors import LevelFormatError
from llkgen.formats.container import (
    PACK_FILES_FORMAT,
    PACK_INDEX,
    PackFileError,
    PackIndex,
    PackLayout,
    PackPart,
    check_header,
    open_part,
    write_dir_atomic,
    write_synced,
)
from llkgen.formats.level import MAX_FILE_BYTES, Level, dumps, level_from_json, level_to_json, parse_json
from llkgen.text import describe_value

_INDEX_KEYS = ("format", "name", "count", "levels")
#: A level file's name: its id and ``.json``. Ids ``llkgen make`` gives (``NAME-N``, with NAME
#: from ``[A-Za-z0-9_.-]``) always fit; nothing hidden, no directory part, so a crafted index
#: cannot make a reader open a file outside the directory.
_FILE_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,199}\.json")


def level_file_name(level_id: object) -> str:
    """The file a level of id ``level_id`` is written to: ``<id>.json``. Raises ``ValueError``
    for an id that is not a plain file name (``make`` never gives one)."""
    name = f"{level_id}.json"
    if not isinstance(level_id, str) or not _FILE_RE.fullmatch(name) or name == PACK_INDEX:
        raise ValueError(f"level id: expected 1..200 characters from A-Z a-z 0-9 _ . - (not starting "
                         f"with . or -) to name its file, found {level_id!r}")
    return name


def files_index_from_json(obj: object) -> PackIndex:
    """Validate a decoded ``llkgen.pack-files/1`` index; raises :class:`LevelFormatError`
    naming the key. Each level file is a part of one level."""
    if not isinstance(obj, dict):
        raise LevelFormatError(f"expected an index object, found {describe_value(obj)}")
    for key in _INDEX_KEYS:
        if key not in obj:
            raise LevelFormatError(f"missing field {key!r}")
    if not isinstance(obj["name"], str):
        raise LevelFormatError(f"name: expected a string, found {describe_value(obj['name'])}")
    count = obj["count"]
    if type(count) is not int or count < 0:
        raise LevelFormatError(f"count: expected an integer >= 0, found {describe_value(count)}")
    entries = obj["levels"]
    if not isinstance(entries, list) or len(entries) != count:
        found = f"a list of {len(entries)}" if isinstance(entries, list) else describe_value(entries)
        raise LevelFormatError(f"levels: expected a list of {count} entries {{id, file}} (count), found {found}")
    parts: list[PackPart] = []
    ids: list[str | None] = []
    seen: dict[str, int] = {}
    for i, entry in enumerate(entries):
        where = f"levels[{i}]"
        if not isinstance(entry, dict):
            raise LevelFormatError(f"{where}: expected an object with id and file, found {describe_value(entry)}")
        level_id, name = entry.get("id"), entry.get("file")
        if not isinstance(level_id, str):
            raise LevelFormatError(f"{where}.id: expected a string, found {describe_value(level_id)}")
        if not isinstance(name, str) or not _FILE_RE.fullmatch(name) or name == PACK_INDEX:
            raise LevelFormatError(f"{where}.file: expected a file name ending .json in the directory "
                                   f"(not {PACK_INDEX}), found {describe_value(name)}")
        if name in seen:
            raise LevelFormatError(f"{where}.file: {name!r} is listed twice (also levels[{seen[name]}])")
        seen[name] = i
        parts.append(PackPart(name, 1, i))
        ids.append(level_id)
    extra = {k: v for k, v in obj.items() if k not in _INDEX_KEYS}
    return PackIndex(obj["name"], count, parts, ids, extra, PACK_FILES_FORMAT)


def file_level(file: Path, part: PackPart, ids: list[str | None]) -> Iterator[tuple[int, Level]]:
    """``(index in the pack, level)`` for the one level file ``file``, checked against the
    index. Read up to :data:`MAX_FILE_BYTES`, the cap of any level file; a problem raises
    :class:`PackFileError` naming the file."""
    where = str(file)
    i = part.first
    with os.fdopen(open_part(file, f"a level file listed in {PACK_INDEX}"), "rb") as f:
        try:
            data = f.read(MAX_FILE_BYTES + 1)
        except OSError as e:
            raise PackFileError(where, f"cannot read: {e.strerror}") from None
    if len(data) > MAX_FILE_BYTES:
        raise PackFileError(where, f"larger than {MAX_FILE_BYTES} bytes, the cap for a level file")
    try:
        level = level_from_json(parse_json(data, ""), "level")
    except LevelFormatError as e:
        raise PackFileError(where, str(e).removeprefix(": ")) from None
    if level.id != ids[i]:
        raise PackFileError(where, f"level.id: {PACK_INDEX} lists {ids[i]!r} for levels[{i}], found {level.id!r}")
    yield i, level


def write_pack_files(path: str | os.PathLike, header: dict, levels: Iterable[Level | dict]) -> Path:
    """Write the ``files`` layout: each level to ``<id>.json`` (:func:`level_file_name`), as
    :func:`llkgen.formats.level.dumps` writes a level file, then ``index.json``; returns the path. A
    level is a :class:`Level` (written nested) or a level object, written as given (nested or
    flat). ``header`` is the pack's top-level keys but ``levels`` (``name``, ``generator``,
    ``seed``, ...). The same header and levels give the same bytes.

    Atomic, as :func:`llkgen.formats.container.write_dir_atomic`: an old pack at ``path`` is replaced
    only once the new one is complete. Raises ``ValueError`` for a level without a usable id or
    two levels of one id, and :class:`~llkgen.errors.OutputError` when it cannot write."""
    check_header(header, ("levels", "count"))

    def fill(tmp: Path) -> None:
        entries: list[dict] = []
        seen: set[str] = set()
        for level in levels:
            obj = level if isinstance(level, dict) else level_to_json(level)
            name = level_file_name(obj.get("id"))
            if name in seen:
                raise ValueError(f"level id: {obj['id']!r} is given twice, and names one file")
            seen.add(name)
            write_synced(tmp / name, dumps(obj))
            entries.append({"id": obj["id"], "file": name})
        index: dict = {"format": PACK_FILES_FORMAT, "name": header["name"]}
        index.update((k, v) for k, v in header.items() if k not in ("format", "name"))
        index.update(count=len(entries), levels=entries)
        write_synced(tmp / PACK_INDEX, dumps(index))

    return write_dir_atomic(path, fill)


#: This layout, for :data:`llkgen.formats.load.LAYOUTS`.
LAYOUT = PackLayout(PACK_FILES_FORMAT, files_index_from_json, file_level, write_pack_files)
