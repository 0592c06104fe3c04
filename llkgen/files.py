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
"""

from __future__ import annotations

import errno
import os
import select
import stat
import tempfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO

from llkgen.errors import LlkgenError, OutputError

#: Bytes read per system call.
_CHUNK = 1 << 20
#: How long a FIFO with no writer is waited on before it is reported.
FIFO_WAIT_SECONDS = 5.0
#: Opening without blocking is what keeps a FIFO with no writer from hanging the open (POSIX).
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
#: The temporary file's name is short and fixed-length, so any target name the file system
#: accepts can be written: a name derived from the target's could itself be too long.
TMP_PREFIX, TMP_SUFFIX = ".llkgen-", ".tmp"


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
        raise error(f"{Path(path)}: cannot read: {e.strerror}") from None
    except ValueError as e:  # e.g. an embedded NUL byte in the path
        raise error(f"{os.fspath(path)!r}: not a usable file name: {e}") from None


def read_bounded(path: str | os.PathLike, cap: int, what: str,
                 error: type[LlkgenError] = LlkgenError) -> bytes:
    """The bytes of ``path``, at most ``cap`` of them; raises ``error`` (naming the file and
    ``what`` was expected) for a missing file, a directory, an input over ``cap`` bytes, a pipe
    or FIFO with nothing to read, or any other OS error.

    A FIFO is opened without blocking: with no writer it is waited on for at most
    :data:`FIFO_WAIT_SECONDS`, then reported. A pipe whose writer is still working is read to
    its end like a file, up to the cap."""
    p = Path(path)
    fd = open_for_reading(p, what, error, os.O_RDONLY | _NONBLOCK | getattr(os, "O_BINARY", 0))
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
        p.parent.mkdir(parents=True, exist_ok=True)
        return tempfile.mkstemp(prefix=TMP_PREFIX, suffix=TMP_SUFFIX, dir=p.parent)
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
    os.close(fd)
    os.unlink(tmp)
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
        fd, tmp = tempfile.mkstemp(prefix=TMP_PREFIX, suffix=TMP_SUFFIX, dir=p)
    except OutputError:
        raise
    except OSError as e:
        raise write_error(p, e, where=p) from None
    except ValueError as e:
        raise OutputError(f"{os.fspath(p)!r}: not a usable directory name: {e}") from None
    os.close(fd)
    os.unlink(tmp)
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
