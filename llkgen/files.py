"""Reading and writing the user's files without surprises.

Guarantees:

* :func:`read_bounded` never holds more than ``cap + 1`` bytes, whatever the path names: a
  regular file, a pipe, a FIFO or a device such as ``/dev/zero``. It never waits for long on
  a FIFO that has no writer. Every operating-system problem becomes the caller's :class:`LlkgenError`
  naming the file.
* :func:`write_text_atomic` writes to a temporary file beside the target, fsyncs it and renames
  it into place. An interrupted or failed write leaves the previous file as it was and no
  temporary file behind. Every operating-system problem becomes an :class:`OutputError` naming
  the file and saying why, e.g. ``out: cannot write: is a directory, expected a file name``.
* :func:`check_writable` and :func:`prepare_dir` run the same checks before a long run, so a
  bad ``--out`` fails in a second instead of after the work is done.
* A temporary that a killed run (SIGKILL, a power cut) left behind is removed by the next run
  that writes into the same directory (:func:`sweep_stale`), and never one that a live run,
  in this process or any other, is still writing.
"""

from __future__ import annotations

import errno
import os
import re
import select
import shutil
import stat
import tempfile
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from llkgen.errors import LlkgenError, OutputError

try:
    import fcntl

    _FLOCK = True
except ImportError:  # Windows: no flock, so no temporary can be told stale, and none is swept
    _FLOCK = False

#: Bytes read per system call.
_CHUNK = 1 << 20
#: How long a FIFO with no writer is waited on before it is reported.
FIFO_WAIT_SECONDS = 5.0
#: Opening without blocking is what keeps a FIFO with no writer from hanging the open (POSIX).
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
#: Refusing a final symbolic link, for readers that must stay inside a directory (POSIX).
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
#: The temporary file's name is short and fixed-length, so any target name the file system
#: accepts can be written: a name derived from the target's could itself be too long.
TMP_PREFIX, TMP_SUFFIX = ".llkgen-", ".tmp"
#: The name of a temporary that :func:`sweep_stale` may remove: :func:`temp_prefix` (``old-``
#: for a pack directory moved aside, then the writer's PID), then mkstemp's random part. Any
#: other ``.llkgen-*.tmp`` (an older llkgen's, a journal's) is never swept.
_SWEPT_NAME = re.compile(r"\.llkgen-(old-)?([0-9]+)-[a-z0-9_]+\.tmp")
#: A temporary younger than this is never swept: it may be between its creation and its lock.
STALE_GRACE_SECONDS = 10.0
#: Directories swept by this process already: once per run is enough (a temporary of a run that
#: dies later waits for the next run), and a directory of 20,000 SVGs is not listed 20,000 times.
_swept: set[str] = set()


# -- reading --------------------------------------------------------------------------------------
def open_for_reading(path: str | os.PathLike, what: str, error: type[LlkgenError] = LlkgenError,
                     flags: int = os.O_RDONLY | getattr(os, "O_BINARY", 0)) -> int:
    """A descriptor open on ``path``; every reason it cannot be opened raised as ``error``,
    naming the file and ``what`` was expected: the one mapping of open errors to messages."""
    try:
        return os.open(path, flags)
    except FileNotFoundError:
        raise error(f"{Path(path)}: no such file") from None
    except IsADirectoryError:
        raise error(f"{Path(path)}: is a directory, expected {what}") from None
    except OSError as e:
        if e.errno == errno.ELOOP and flags & _NOFOLLOW:
            raise error(f"{Path(path)}: a symbolic link, expected {what}") from None
        raise error(f"{Path(path)}: cannot read: {e.strerror}") from None
    except ValueError as e:  # e.g. an embedded NUL byte in the path
        raise error(f"{os.fspath(path)!r}: not a usable file name: {e}") from None


def read_bounded(path: str | os.PathLike, cap: int, what: str,
                 error: type[LlkgenError] = LlkgenError, *, follow_symlinks: bool = True) -> bytes:
    """The bytes of ``path``, at most ``cap`` of them; raises ``error`` (naming the file and
    ``what`` was expected) for a missing file, a directory, an input over ``cap`` bytes, a pipe
    or FIFO with nothing to read, or any other OS error. With ``follow_symlinks=False`` a
    ``path`` that is itself a symbolic link is refused, not read through (where the system
    has ``O_NOFOLLOW``).

    A FIFO is opened without blocking: with no writer it is waited on for at most
    :data:`FIFO_WAIT_SECONDS`, then reported. A pipe whose writer is still working is read to
    its end like a file, up to the cap."""
    p = Path(path)
    nofollow = 0 if follow_symlinks else _NOFOLLOW
    fd = open_for_reading(p, what, error, os.O_RDONLY | _NONBLOCK | nofollow | getattr(os, "O_BINARY", 0))
    try:
        return _read_fd(fd, p, cap, what, error)
    except OSError as e:
        raise error(f"{p}: cannot read: {e.strerror}") from None
    finally:
        os.close(fd)


def _read_fd(fd: int, p: Path, cap: int, what: str, error: type[LlkgenError]) -> bytes:
    st = os.fstat(fd)
    if stat.S_ISDIR(st.st_mode):
        raise error(f"{p}: is a directory, expected {what}")
    if stat.S_ISREG(st.st_mode) and st.st_size > cap:
        raise error(f"{p}: file too large: {st.st_size} bytes, the cap is {cap}")
    chunks: list[bytes] = []
    if stat.S_ISFIFO(st.st_mode) and _NONBLOCK:
        # Opened without blocking: an empty read means no writer is connected (or it closed
        # without writing), "would block" that a writer is there but has not written yet.
        try:
            first = os.read(fd, _CHUNK)
        except BlockingIOError:
            first = None
        if first == b"":
            # A producer started alongside may not have opened the FIFO yet: wait for one,
            # a little. (A pipe whose writer is gone is readable at once and reads as empty.)
            ready, _, _ = select.select([fd], [], [], FIFO_WAIT_SECONDS)
            if not ready:
                raise error(f"{p}: nothing to read: no writer opened this FIFO within "
                            f"{FIFO_WAIT_SECONDS:g} s, expected {what}")
        elif first:
            chunks.append(first)
    if _NONBLOCK:
        os.set_blocking(fd, True)
    total = sum(map(len, chunks))
    while total <= cap:
        chunk = os.read(fd, min(_CHUNK, cap + 1 - total))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    if total > cap:
        raise error(f"{p}: file too large: more than {cap} bytes, the cap is {cap}")
    return b"".join(chunks)


# -- temporaries and their owners ---------------------------------------------------------------
# Which temporaries are stale: those whose writer is dead. The writer holds a shared flock on
# its temporary (the file, or the directory being filled) from just after creating it until
# the temporary's name is gone (renamed into place, or removed); a sweep takes an exclusive
# flock without waiting, and only a temporary it can lock is removed. This is safe with any
# number of runs writing into the same directory at once: the kernel drops a flock when its
# holder dies, even by SIGKILL, and never while it lives. A PID alone would not be: a run in
# another container (another PID namespace) sharing the directory looks dead, and a recycled
# PID looks alive. The PID is still in the name: it pairs the two directories of a swap that
# was interrupted (:func:`sweep_stale`), and tells a person whose temporary it is. Where locks
# do not work (no fcntl; NFS, whose emulated exclusive lock needs a file open for writing) the
# sweep cannot lock anything and removes nothing: a leak, never a loss.


def temp_prefix(old: bool = False) -> str:
    """The prefix of a temporary's name for mkstemp or mkdtemp in this process (``old`` for a
    pack directory moved aside); its owner must :func:`hold` it, or a sweep will remove it."""
    return f"{TMP_PREFIX}{'old-' if old else ''}{os.getpid()}-"


def hold(fd: int) -> None:
    """Mark the temporary open on ``fd`` as in use until ``fd`` is closed (see above)."""
    if _FLOCK:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            pass  # locks unsupported here: a sweep cannot lock it either, so it is kept


def _is_stale(path: str) -> bool:
    """Whether the temporary ``path`` is old enough and locked by no one: its writer is dead."""
    try:
        if time.time() - os.lstat(path).st_mtime < STALE_GRACE_SECONDS:
            return False
        fd = os.open(path, os.O_RDONLY | _NONBLOCK | _NOFOLLOW)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return False  # held by a live writer, or locks do not work here
    finally:
        os.close(fd)  # drops the lock at once: a dead writer never comes back for its name
    return True


def _is_empty_dir(path: str) -> bool:
    try:
        with os.scandir(path) as entries:
            return next(entries, None) is None
    except OSError:
        return False  # cannot tell: treated as holding a pack, so kept


def sweep_stale(directory: str | os.PathLike) -> None:
    """Remove from ``directory`` the temporaries (files and directories named by
    :func:`temp_prefix`) whose writers are dead; once per process per directory. Never raises,
    never removes a temporary a live run holds, and keeps both directories of a pack swap cut
    off between its two renames: the pack moved aside is then the only copy of the old pack,
    and the new one is complete; a person decides."""
    if not _FLOCK:
        return
    key = os.path.abspath(directory)
    if key in _swept:
        return
    _swept.add(key)
    found: list[tuple[str, bool, str, bool]] = []
    try:
        with os.scandir(key) as entries:
            for e in entries:
                m = _SWEPT_NAME.fullmatch(e.name)
                if m and (e.is_file(follow_symlinks=False) or e.is_dir(follow_symlinks=False)):
                    found.append((e.path, m[1] is not None, m[2], e.is_dir(follow_symlinks=False)))
    except OSError:
        return
    stale = [f for f in found if _is_stale(f[0])]
    # An empty ``old-`` directory is only the name reserved for the pack to move aside (a run
    # killed before the rename, its pack still in place), or an empty directory that was
    # replaced: nothing to keep, so the pair is swept like any other, not left for ever.
    moved_aside = {pid for path, old, pid, _ in stale if old and not _is_empty_dir(path)}
    cut_off = moved_aside & {pid for _, old, pid, is_dir in stale if not old and is_dir}
    for path, _, pid, is_dir in stale:
        if pid in cut_off:
            continue
        try:
            if is_dir:
                shutil.rmtree(path)  # removes links inside, never what they point to
            else:
                os.unlink(path)
        except OSError:
            pass


def mkstemp_held(directory: str | os.PathLike) -> tuple[int, str]:
    """``tempfile.mkstemp`` in ``directory`` for a temporary beside a file being written:
    ``(fd, path)``, the file held (:func:`hold`) while ``fd`` is open."""
    fd, tmp = tempfile.mkstemp(prefix=temp_prefix(), suffix=TMP_SUFFIX, dir=directory)
    hold(fd)
    return fd, tmp


#: Whether a temporary is renamed into place while its descriptor (and lock) is still open:
#: needed for the lock (see above), and impossible on Windows, which has no flock anyway.
_RENAME_OPEN = _FLOCK


# -- writing --------------------------------------------------------------------------------------
def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _cannot(p: Path, why: str) -> OutputError:
    return OutputError(f"{p}: cannot write: {why}")


def write_error(p: Path, e: OSError, where: Path | None = None) -> OutputError:
    """The most useful reason for an OS error while writing ``p`` (a file in ``where``, by
    default its parent directory)."""
    if e.errno in (errno.EEXIST, errno.ENOTDIR):
        for parent in p.parents:
            if parent.exists() or parent.is_symlink():
                if not parent.is_dir():
                    return _cannot(p, f"{parent} is a file, expected a directory")
                break
    if e.errno == errno.EISDIR:
        return _cannot(p, "is a directory, expected a file name")
    if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        reason = (e.strerror or "not allowed").lower()
        return _cannot(p, f"{reason} in {p.parent if where is None else where}")
    return _cannot(p, (e.strerror or str(e)).lower())


def _name_max(p: Path) -> int:
    """The longest file name, in bytes, allowed in the directory ``p`` will be written to (or
    its nearest existing ancestor); 255 when the system cannot say."""
    for directory in p.parents:
        try:
            if directory.is_dir():
                return os.pathconf(directory, "PC_NAME_MAX")
        except (AttributeError, OSError, ValueError):
            break
    return 255


def _check_name(p: Path) -> None:
    size, limit = len(os.fsencode(p.name)), _name_max(p)
    if size > limit:
        raise _cannot(p, f"file name too long: {size} bytes, this file system allows {limit}")


def _prepare(p: Path) -> tuple[int, str]:
    """Check ``p`` can be a written file, create its directory, and open the temporary file
    beside it: ``(fd, temporary path)``."""
    try:
        _check_name(p)
        if p.is_dir():
            raise _cannot(p, "is a directory, expected a file name")
        if p.exists() and not p.is_file():
            # A device, pipe or socket: the rename would replace it with a file (as root, even
            # /dev/null), and nothing written to it would be atomic.
            raise _cannot(p, "is a device, pipe or socket, expected a regular file")
        p.parent.mkdir(parents=True, exist_ok=True)
        sweep_stale(p.parent)
        return mkstemp_held(p.parent)
    except OutputError:
        raise
    except OSError as e:
        raise write_error(p, e) from None
    except ValueError as e:  # an embedded NUL byte
        raise OutputError(f"{os.fspath(p)!r}: not a usable file name: {e}") from None


def check_writable(path: str | os.PathLike) -> Path:
    """Raise :class:`OutputError` now if :func:`write_text_atomic` could not write ``path``
    (a directory, a parent that is a file, no permission, a name too long). Creates the
    parent directory, as the write would; writes nothing else."""
    p = Path(path)
    fd, tmp = _prepare(p)
    os.unlink(tmp)  # before the close that drops the lock
    os.close(fd)
    return p


def prepare_dir(path: str | os.PathLike) -> Path:
    """Create the output directory ``path`` (and its parents) and check that files can be
    written in it; raises :class:`OutputError` naming the problem."""
    p = Path(path)
    try:
        _check_name(p)
        if p.exists() and not p.is_dir():
            raise _cannot(p, "is a file, expected a directory")
        p.mkdir(parents=True, exist_ok=True)
        sweep_stale(p)
        fd, tmp = mkstemp_held(p)
    except OutputError:
        raise
    except OSError as e:
        raise write_error(p, e, where=p) from None
    except ValueError as e:
        raise OutputError(f"{os.fspath(p)!r}: not a usable directory name: {e}") from None
    os.unlink(tmp)
    os.close(fd)
    return p


@contextmanager
def open_atomic(path: str | os.PathLike) -> Iterator[IO[str]]:
    """:func:`write_text_atomic` for text written piece by piece: ``with open_atomic(p) as
    f: f.write(...)``. The file appears at ``path`` only when the block ends without an
    exception; otherwise the previous file is left as it was and no temporary file remains."""
    p = Path(path)
    fd, tmp = _prepare(p)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
            os.chmod(tmp, 0o666 & ~current_umask())
            if _RENAME_OPEN:
                os.replace(tmp, p)  # still locked: an unlocked temporary is fair game to a sweep
        if not _RENAME_OPEN:
            os.replace(tmp, p)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(e, OSError):
            raise write_error(p, e) from None
        raise


def write_text_atomic(path: str | os.PathLike, text: str) -> Path:
    """Write ``text`` as UTF-8 to ``path`` atomically (see the module docstring); returns the
    path. Raises :class:`OutputError` when the file cannot be written."""
    with open_atomic(path) as f:
        f.write(text)
    return Path(path)


def write_lines_atomic(path: str | os.PathLike, lines: Iterable[str]) -> Path:
    """:func:`write_text_atomic` for text made line by line (each with its newline), streamed
    without holding the whole text."""
    with open_atomic(path) as f:
        f.writelines(lines)
    return Path(path)
