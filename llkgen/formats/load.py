"""Opening anything llkgen reads as levels: a level file, a pack file, or a pack directory of
either layout. This is the one place that picks a reader by a file's ``format``: the
:data:`LAYOUTS` table maps each pack-directory format to its :class:`PackLayout`.

Labels are the ones ``llkgen verify`` prints: a level file's path, ``PACK#ID`` for a level of a
pack (``PACK#INDEX`` for a level without an id).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from llkgen.errors import LevelFormatError
from llkgen.files import read_bounded
from llkgen.formats import packdir, packfiles
from llkgen.formats.container import (
    PACK_INDEX,
    PACKDIR_FORMAT,
    PackFileError,
    PackIndex,
    PackLayout,
    is_pack_dir,
)
from llkgen.formats.level import (
    MAX_FILE_BYTES,
    Level,
    Pack,
    levels_from_json,
    load_level,
    pack_from_json,
    parse_json,
    prefixed,
    read_json,
)

#: What a pack directory's ``index.json`` should be, for messages.
INDEX_WHAT = "the pack directory's index file"
#: Every pack-directory layout llkgen reads, by the ``format`` of its ``index.json``.
LAYOUTS: dict[str, PackLayout] = {layout.format: layout for layout in (packdir.LAYOUT, packfiles.LAYOUT)}


def _layout(obj: object) -> PackLayout:
    """The layout an ``index.json`` object names (a JSON-lines pack directory unless it says
    otherwise: its own validation then names what is wrong)."""
    fmt = obj.get("format") if isinstance(obj, dict) else None
    return LAYOUTS.get(fmt, packdir.LAYOUT) if isinstance(fmt, str) else packdir.LAYOUT


def read_pack_index(path: str | os.PathLike) -> PackIndex:
    """The validated index of the pack directory ``path``; raises :class:`PackFileError`
    naming ``PATH/index.json`` (read up to :data:`MAX_FILE_BYTES`, like any JSON file)."""
    index = Path(path) / PACK_INDEX
    where = str(index)
    if not os.path.lexists(index) and Path(path).is_dir():
        raise PackFileError(where, f"no such file: a pack directory needs its index ({PACKDIR_FORMAT})")
    if index.is_symlink():
        # As for its parts (open_part): a link could make any JSON on the system this pack's index.
        raise PackFileError(where, f"a symbolic link, expected {INDEX_WHAT}")
    try:
        obj = parse_json(read_bounded(index, MAX_FILE_BYTES, INDEX_WHAT, LevelFormatError, follow_symlinks=False),
                         where)
    except LevelFormatError as e:
        msg = str(e)
        raise PackFileError(where, msg[len(where) + 2:] if msg.startswith(where + ": ") else msg) from None
    try:
        return _layout(obj).index_from_json(obj)
    except LevelFormatError as e:
        raise PackFileError(where, str(e)) from None

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
    read = LAYOUTS[idx.format].read_part
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

def load_pack(path: str | os.PathLike) -> Pack:
    """A pack file, or a whole pack directory (use :func:`iter_pack_dir` to stream one)."""
    if os.path.isdir(path):
        return load_pack_dir(path)
    return prefixed(str(path), pack_from_json, read_json(path))

def load_level_ref(ref: str | os.PathLike) -> Level:
    """:func:`load_level` for a level file. ``PACK#ID`` names one level of a pack (a file or a
    pack directory) by the label ``llkgen verify`` prints for it: its id, or for a level
    without one its 0-based index. A file whose own name holds ``#`` is still read as that
    file. In a pack directory only the part that holds the level is read."""
    text = os.fspath(ref)
    if "#" not in text or os.path.lexists(text):
        if os.path.isdir(text) and is_pack_dir(text):
            n = read_pack_index(text).count
            raise LevelFormatError(f"{text}: is a pack directory of {n} levels: expected one level, "
                                   f"named as {text}#ID (`llkgen verify` checks whole packs)")
        return load_level(text)
    file, _, wanted = text.rpartition("#")
    if os.path.isdir(file):
        return level_by_id(file, wanted)
    levels = load_levels(file)
    for label, level in levels:
        if label == text:
            return level
    ids = ", ".join(label.rpartition("#")[2] for label, _ in levels[:3] if "#" in label)
    raise LevelFormatError(
        f"{file}: no level {wanted!r}: expected the id of one of its {len(levels)} levels"
        + (f" ({ids}{', ...' if len(levels) > 3 else ''})" if ids else "")
    )

def load_levels(path: str | os.PathLike) -> list[tuple[str, Level]]:
    """Load a level file, a pack file or a pack directory as a list of ``(label, level)``."""
    if os.path.isdir(path):
        return list(iter_pack_dir(path))
    return levels_from_json(read_json(path), str(path))

def iter_levels(path: str | os.PathLike) -> Iterator[tuple[str, Level]]:
    """:func:`load_levels` one level at a time: a pack directory is streamed part by part and
    line by line, so memory does not grow with the number of levels."""
    if os.path.isdir(path):
        return iter_pack_dir(path)
    return iter(load_levels(path))


def load_pack_page(path: str | os.PathLike, start: int, limit: int) -> tuple[Pack, int]:
    """Levels ``start`` to ``start + limit - 1`` of a pack file or pack directory, and the
    pack's level count. From a directory only the parts holding those levels are read."""
    if os.path.isdir(path):
        return load_pack_dir(path, start, start + limit), read_pack_index(path).count
    whole = load_pack(path)
    return Pack(whole.name, whole.levels[start:start + limit], whole.extra), len(whole.levels)
