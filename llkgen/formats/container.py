"""What the two pack-directory layouts share: the index's parsed form (:class:`PackIndex`),
the error naming one file of a directory, the sniff that tells a pack directory from any other,
and the atomic swap that puts a complete directory in place.

A layout (:mod:`llkgen.formats.packdir`, :mod:`llkgen.formats.packfiles`) is a
:class:`PackLayout`: it parses its own ``index.json`` and reads and writes its own part files.
:mod:`llkgen.formats.load` keeps the table of layouts by ``format`` and is the only reader
that dispatches on it.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Callable

from llkgen.errors import LevelFormatError, OutputError
from llkgen.files import TMP_SUFFIX, current_umask, hold, sweep_stale, temp_prefix
from llkgen.formats.level import PACK_FORMAT, Level, read_json

#: The format of a JSON-lines pack directory (:mod:`llkgen.formats.packdir`).
PACKDIR_FORMAT = "llkgen.packdir/1"
#: The ``files`` layout: a directory of level files and an index (:mod:`llkgen.formats.packfiles`).
PACK_FILES_FORMAT = "llkgen.pack-files/1"
#: The formats of a pack directory's index.json that llkgen reads, and may replace on writing.
DIR_FORMATS = (PACKDIR_FORMAT, PACK_FILES_FORMAT)
#: A pack directory's index file, and the most levels one part file holds.
PACK_INDEX = "index.json"
#: Opening without blocking keeps a FIFO from hanging the open; not following a final symbolic
#: link keeps a pack's files inside its directory (both POSIX; 0 where the system lacks them).
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)

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


@dataclass(frozen=True)
class PackLayout:
    """One way of laying a pack out as a directory: ``format`` is its index's ``format``;
    ``index_from_json(obj)`` validates a decoded ``index.json`` (raising
    :class:`LevelFormatError`); ``read_part(file, part, ids)`` yields ``(index in the pack,
    level)`` for every level of one part, checked against the index's ``ids`` (raising
    :class:`PackFileError` naming the file, and line); ``write(path, header, levels)`` writes
    a pack directory of this layout atomically (:func:`write_dir_atomic`)."""

    format: str
    index_from_json: Callable[[object], PackIndex]
    read_part: Callable[[Path, PackPart, list[str | None]], Iterator[tuple[int, Level]]]
    write: Callable[[str | os.PathLike, dict, Iterable[Level | dict]], Path]


class DirKind(Enum):
    """What a directory is, to llkgen: the one sniff every reader and writer asks."""

    #: Not a pack directory: no ``index.json`` and no ``levels-*.jsonl`` part.
    PLAIN = "plain"
    #: Its ``index.json`` is a JSON object with one of :data:`DIR_FORMATS`: a pack directory.
    PACK = "pack"
    #: It holds a part, or an ``index.json`` that cannot be read as JSON, or one that is a
    #: symbolic link to a pack index (never read through): a broken pack directory.
    BROKEN = "broken"
    #: Its ``index.json`` is valid JSON of some other tool: an ordinary folder.
    FOREIGN = "foreign"


def dir_kind(path: str | os.PathLike) -> DirKind:
    """Sniff the directory ``path`` (:class:`DirKind`); anything that is not a directory is
    ``PLAIN``."""
    p = Path(path)
    if not p.is_dir():
        return DirKind.PLAIN
    if not (p / PACK_INDEX).exists():
        try:
            with os.scandir(p) as entries:  # closed even when any() stops early
                parts = any(e.name.startswith("levels-") and e.name.endswith(".jsonl") for e in entries)
        except OSError:
            return DirKind.PLAIN
        return DirKind.BROKEN if parts else DirKind.PLAIN
    try:
        obj = read_json(p / PACK_INDEX)
    except LevelFormatError:
        return DirKind.BROKEN
    if not isinstance(obj, dict) or obj.get("format") not in DIR_FORMATS:
        return DirKind.FOREIGN
    # A linked index is refused by every reader (open_part), so the directory is not a pack
    # that a writer may replace either; a link to some other tool's JSON leaves it a folder.
    return DirKind.BROKEN if (p / PACK_INDEX).is_symlink() else DirKind.PACK


def is_pack_dir(path: str | os.PathLike) -> bool:
    """Whether ``path`` is a directory meant as a pack directory: it holds ``index.json`` or a
    ``levels-*.jsonl`` part (a directory of parts without its index is a broken pack, and is
    reported as one rather than ignored)."""
    return dir_kind(path) is not DirKind.PLAIN


def open_part(file: Path, what: str = f"a part of {PACK_INDEX}") -> int:
    """A descriptor for a file of a pack directory (a part, a level file, the index), which
    must be a regular file in the directory itself: a symbolic link is refused, not followed
    (it could name any file on the system, which would then be read and certified as part of
    the pack), and a FIFO or a device is refused at once instead of blocking or reading
    forever. ``what`` is what the file should be, for the message."""
    where = str(file)
    try:
        # lstat gives the clear message; O_NOFOLLOW closes the window in which the file could
        # become a link after it (the open then fails with ELOOP, reported the same way).
        if stat.S_ISLNK(os.lstat(file).st_mode):
            raise PackFileError(where, f"a symbolic link, expected {what}")
        fd = os.open(file, os.O_RDONLY | _NONBLOCK | _NOFOLLOW | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        raise PackFileError(where, f"no such file, but {PACK_INDEX} lists it") from None
    except OSError as e:
        if e.errno == errno.ELOOP and _NOFOLLOW:
            raise PackFileError(where, f"a symbolic link, expected {what}") from None
        raise PackFileError(where, f"cannot read: {e.strerror}") from None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise PackFileError(where, f"not a regular file, expected {what}")
    if hasattr(os, "set_blocking"):
        os.set_blocking(fd, True)
    return fd


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
        if entries and dir_kind(p) is not DirKind.PACK:
            raise OutputError(f"{p}: cannot write: a directory that is not a pack directory (no {PACK_INDEX} "
                              f"with format {PACKDIR_FORMAT!r} or {PACK_FILES_FORMAT!r}); it is never replaced")
    return p


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
    A run killed outright cannot remove its temporary directory: the next write beside
    ``path`` does (:func:`llkgen.files.sweep_stale`), and never that of a live run.
    Raises :class:`OutputError` when the directory cannot be written."""
    target = check_pack_dir_target(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        sweep_stale(target.parent)
        tmp = Path(tempfile.mkdtemp(prefix=temp_prefix(), suffix=TMP_SUFFIX, dir=target.parent))
    except OSError as e:
        raise OutputError(f"{target}: cannot write: {(e.strerror or str(e)).lower()}") from None
    held = _hold_dir(tmp)  # until tmp is renamed into place or removed, so no sweep takes it
    try:
        fill(tmp)
        mode = 0o666 & ~current_umask()
        for name in os.listdir(tmp):
            os.chmod(tmp / name, mode)
        os.chmod(tmp, 0o777 & ~current_umask())  # mkdtemp makes 0700; give the usual permissions
        _fsync_dir(tmp)
        _swap_in(tmp, target)
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(e, OSError):
            raise OutputError(f"{target}: cannot write: {(e.strerror or str(e)).lower()}") from None
        raise
    finally:
        _release(held)
    return target


def _hold_dir(p: Path) -> int | None:
    """A descriptor on the directory ``p`` that holds it (:func:`llkgen.files.hold`) until
    :func:`_release`; ``None`` where a directory cannot be opened (then nothing is held)."""
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return None
    hold(fd)
    return fd


def _release(fd: int | None) -> None:
    if fd is not None:
        os.close(fd)


def _swap_in(new: Path, target: Path) -> None:
    """Rename the complete directory ``new`` to ``target``. An existing ``target`` is renamed
    aside first and removed only after ``new`` is in place; if that rename fails, it is put
    back. (Between the two renames ``target`` is missing for an instant, but the old pack is
    whole under its hidden name: nothing written is ever lost. A run killed in that instant
    leaves both directories, which :func:`llkgen.files.sweep_stale` keeps; a run killed after
    it leaves the old one, which it removes.)"""
    if not os.path.lexists(target):
        os.rename(new, target)
        _fsync_dir(target.parent)
        return
    old = Path(tempfile.mkdtemp(prefix=temp_prefix(old=True), suffix=TMP_SUFFIX, dir=target.parent))
    os.rmdir(old)  # only its unique name is wanted
    # Held before the rename, so it is never seen unheld under its temporary name while we live.
    held = _hold_dir(target)
    try:
        os.rename(target, old)
        try:
            os.rename(new, target)
        except BaseException:
            os.rename(old, target)
            raise
        _fsync_dir(target.parent)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        _release(held)
