"""Writing a pack too big for one file: a ``llkgen.packdir/1`` directory.

::

    PACK_DIR/
      index.json          {"format": "llkgen.packdir/1", "name": ..., <every other top-level
                           key of the llkgen.pack/1 pack except "levels">, "count": N,
                           "files": [{"path": "levels-00000.jsonl", "count": 10000, "first": 0}, ...],
                           "ids": [id0, id1, ...]}
      levels-00000.jsonl  one level per line, exactly level_to_json, compact; at most
                          LEVELS_PER_FILE lines per file

The directory is built under a temporary name beside the target and renamed into place once
complete, so a reader never sees half a pack. (A directory cannot be renamed over a non-empty
one, so an existing pack directory is first moved aside, then removed: between those two
renames the old pack is still whole under its temporary name.)

Only the writing side lives here, streaming levels so that a pack of a million levels never
holds more than one level at a time; readers see :mod:`llkgen.level`.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterable
from pathlib import Path

from llkgen.errors import OutputError
from llkgen.files import _TMP_PREFIX, _explain, _umask, prepare_dir
from llkgen.level import dumps
from llkgen.spool import record_line

PACKDIR_FORMAT = "llkgen.packdir/1"
INDEX = "index.json"
#: Levels per ``levels-NNNNN.jsonl`` file, and the most a single-file pack holds.
LEVELS_PER_FILE = 10_000


def check_dir_writable(path: str | os.PathLike) -> Path:
    """Raise :class:`OutputError` now if a pack directory could not be written at ``path``."""
    p = Path(path)
    if p.exists() and not p.is_dir():
        raise OutputError(f"{p}: cannot write: is a file, expected a directory for a pack of more than "
                          f"{LEVELS_PER_FILE} levels")
    if p.is_dir() and not _is_pack_dir(p):
        # Replacing it would delete whatever the user keeps there.
        raise OutputError(f"{p}: cannot write: a directory that is not a {PACKDIR_FORMAT} pack: "
                          "expected a new name or an earlier pack directory")
    prepare_dir(p.parent)
    return p


def _is_pack_dir(p: Path) -> bool:
    try:
        with open(p / INDEX, "rb") as f:
            return f'"format": "{PACKDIR_FORMAT}"'.encode() in f.read(200)
    except OSError:
        return False


def write_pack_dir(path: str | os.PathLike, header: dict, levels: Iterable[dict]) -> Path:
    """Write ``levels`` (level objects, in index order) as a pack directory at ``path``.

    ``header`` is the pack's top-level keys but ``levels``, ``format`` first (as in
    :func:`llkgen.level.pack_to_json`); its ``format`` is replaced by :data:`PACKDIR_FORMAT`."""
    p = check_dir_writable(path)
    try:
        tmp = Path(tempfile.mkdtemp(prefix=_TMP_PREFIX, suffix=".tmpdir", dir=p.parent))
    except OSError as e:
        raise _explain(p, e) from None
    try:
        files: list[dict] = []
        ids: list = []
        out = None
        for i, level in enumerate(levels):
            if i % LEVELS_PER_FILE == 0:
                if out is not None:
                    _finish(out)
                name = f"levels-{i // LEVELS_PER_FILE:05d}.jsonl"
                files.append({"path": name, "count": 0, "first": i})
                out = open(tmp / name, "wb")
            assert out is not None
            out.write(record_line(level).encode("utf-8"))
            files[-1]["count"] += 1
            ids.append(level.get("id"))
        if out is not None:
            _finish(out)
        index: dict = {"format": PACKDIR_FORMAT}
        index.update((k, v) for k, v in header.items() if k not in ("format", "levels"))
        index.update(count=len(ids), files=files, ids=ids)
        with open(tmp / INDEX, "wb") as f:
            f.write(dumps(index).encode("utf-8"))
            _finish(f)
        os.chmod(tmp, 0o777 & ~_umask())
        _replace_dir(tmp, p)
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if isinstance(e, OSError):
            raise _explain(p, e) from None
        raise
    return p


def _finish(f) -> None:
    f.flush()
    os.fsync(f.fileno())
    f.close()


def _replace_dir(new: Path, target: Path) -> None:
    if not target.exists():
        os.rename(new, target)
        return
    old = Path(tempfile.mkdtemp(prefix=_TMP_PREFIX, suffix=".old", dir=target.parent))
    os.rename(target, old / "pack")
    try:
        os.rename(new, target)
    except BaseException:
        os.rename(old / "pack", target)
        raise
    finally:
        shutil.rmtree(old, ignore_errors=True)
