"""Packs made in pieces: shards for batch schedulers (a CI matrix, a Slurm array, Kubernetes
Jobs), and their merge into the one pack a single run would have written.

Shard ``K/N`` of a pack holds the levels ``i`` with ``i mod N == K``. Level ``i`` depends only
on ``(spec, i)`` (:func:`llkgen.generation.generator.generate_level`), so shards made anywhere, in any
order, merge into a pack byte-identical to one made in one run.

A shard file (``llkgen.shard/1``) is JSON lines. Line 1 is its header::

    {"format": "llkgen.shard/1", "generator": "llkgen 0.9.0", "name": "easy", "seed": 1,
     "count": 10, "spec_sha256": "...", "shard": "1/4", "levels": 3, "grid": "nested",
     "layout": "pack"}

and each further line one record, ``{"index": i, "attempts": a, "level": {...}}``, in index
order (see :mod:`llkgen.jobs.spool`). ``spec_sha256`` is the SHA-256 of the resolved spec (every
default filled in, command-line overrides applied) without its output path: two shards merge
only when they come from the same spec, seed, count and llkgen version. ``grid`` and
``layout`` are the spec's ``export`` shape, which the merged pack is written in (absent in
shards of older versions: nested, pack); the shards of one pack must agree on them.

:func:`merge_shards` reads the shards side by side, one line at a time, so merging a pack of a
million levels never holds more than one level per shard (plus one file's levels when the
result is a single pack file).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from llkgen._version import __version__
from llkgen.errors import LevelFormatError, LlkgenError
from llkgen.files import open_for_reading
from llkgen.formats.level import JSONSyntaxError, parse_json_line
from llkgen.formats.shapes import GRID_SHAPES, LAYOUTS, GridShape, Layout
from llkgen.generation.spec import MAX_COUNT, MAX_SEED, NAME_RULE, Spec, name_ok
from llkgen.jobs.spool import parse_record, record_line
from llkgen.text import describe_value

SHARD_FORMAT = "llkgen.shard/1"
#: The fields two shards (or a journal and its run) must agree on to belong together.
IDENTITY = ("generator", "name", "seed", "count", "spec_sha256")
#: The shape the merged pack is written in, and its value in shards that do not say.
WRITING = {"grid": GridShape.NESTED.value, "layout": Layout.PACK.value}
#: A header line is a few hundred bytes; a level line of a 64x64 board with its solution about
#: 100 KB. Longer lines are refused before they are parsed.
MAX_LINE_BYTES = 64 * 1024 * 1024
#: A header longer than this is cut there, and so is not JSON: not a shard's header.
MAX_HEADER_BYTES = 64 * 1024

_SHARD_RE = re.compile(r"(\d{1,9})/(\d{1,9})")


class ShardOptionError(LlkgenError):
    """A malformed ``--shard`` value: a usage error (exit code 2)."""

    exit_code = 2


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``of``: the levels ``i`` with ``i % of == index``. ``Shard(0, 1)`` is
    the whole pack."""

    index: int = 0
    of: int = 1

    @classmethod
    def parse(cls, text: str, option: str = "shard") -> Shard:
        """``"K/N"`` with ``0 <= K < N``; raises :class:`ShardOptionError` quoting ``text`` and
        naming ``option``, the argument or the key it was given as."""
        m = _SHARD_RE.fullmatch(text.strip())
        if m is None or not int(m.group(1)) < int(m.group(2)):
            raise ShardOptionError(
                f"{option}: expected K/N with 0 <= K < N, e.g. 0/4 for the first of four shards, found {text!r}")
        return cls(int(m.group(1)), int(m.group(2)))

    def indices(self, count: int) -> range:
        return range(self.index, count, self.of)

    def __str__(self) -> str:
        return f"{self.index}/{self.of}"

    @property
    def whole(self) -> bool:
        return self.of == 1


#: Export keys that say only how levels are written, never what they are: left out of
#: :func:`spec_sha256`, so shards and journals of one pack fit whatever shape it is written in.
WRITING_KEYS = ("path", "grid", "layout")


def spec_sha256(spec: Spec) -> str:
    """The SHA-256 of the resolved spec without its output path, grid shape and layout (which
    never change a level)."""
    data = spec.to_dict()
    data["export"] = {k: v for k, v in data["export"].items() if k not in WRITING_KEYS}
    canonical = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode("ascii")).hexdigest()


def spec_identity(spec: Spec) -> dict:
    """What makes two runs' levels interchangeable: see :data:`IDENTITY`."""
    return {"generator": f"llkgen {__version__}", "name": spec.name, "seed": spec.seed,
            "count": spec.count, "spec_sha256": spec_sha256(spec)}


def default_shard_path(pack_path: str | os.PathLike, shard: Shard) -> Path:
    """``output/easy.json`` -> ``output/easy.shard-1-of-4.jsonl``: beside the pack, and not a
    ``*.json`` file, so ``llkgen verify output/`` does not take it for a pack."""
    p = Path(pack_path)
    stem = p.name[:-len(".json")] if p.name.endswith(".json") else p.name
    return p.with_name(f"{stem}.shard-{shard.index}-of-{shard.of}.jsonl")


def shard_lines(identity: dict, shard: Shard, records: Iterator[dict], levels: int,
                grid: GridShape = GridShape.NESTED, layout: Layout = Layout.PACK) -> Iterator[str]:
    """The lines of a shard file: its header, then ``records`` (in index order)."""
    yield record_line({"format": SHARD_FORMAT, **identity, "shard": str(shard), "levels": levels,
                       "grid": grid.value, "layout": layout.value})
    for record in records:
        yield record_line(record)


# -- reading and merging -------------------------------------------------------------------------
@dataclass
class _Open:
    path: Path
    header: dict
    shard: Shard
    f: IO[bytes]
    line: int = 1


def _readline(s: _Open) -> bytes:
    line = s.f.readline(MAX_LINE_BYTES + 1)
    s.line += 1
    if len(line) > MAX_LINE_BYTES:
        raise LevelFormatError(f"{s.path} line {s.line}: line too long: more than {MAX_LINE_BYTES} bytes")
    return line


def _open_shard(path: Path) -> _Open:
    """Open the shard at ``path`` and check its header line: strict JSON
    (:func:`~llkgen.formats.level.parse_json_line`), every field present, each of the right type and
    within its bounds (``count`` 1..MAX_COUNT, ``seed`` 0..MAX_SEED, ``levels`` 0..MAX_COUNT; the
    exact ``levels`` is :func:`_check_set`'s), so nothing later overflows on a value no run writes."""
    f = os.fdopen(open_for_reading(path, f"a {SHARD_FORMAT} file", LevelFormatError), "rb")
    try:
        first = f.readline(MAX_HEADER_BYTES)
        where = f"{path}: line 1"
        try:
            header = parse_json_line(first, where)
        except JSONSyntaxError:
            header = None  # not JSON at all (a pack file, say): said below as not a shard
        if not isinstance(header, dict) or header.get("format") != SHARD_FORMAT:
            found = header.get("format") if isinstance(header, dict) else first[:40]
            raise LevelFormatError(f"{where}: expected a {SHARD_FORMAT} header "
                                   f"(a file from llkgen make --shard), found {found!r}")
        for key in (*IDENTITY, "shard", "levels"):
            if key not in header:
                raise LevelFormatError(f"{where}: missing field {key!r}")
        try:
            shard = Shard.parse(str(header["shard"]), "shard")
        except ShardOptionError as e:
            raise LevelFormatError(f"{where}: {e}") from None
        for key in ("generator", "name", "spec_sha256"):
            if not isinstance(header[key], str):
                raise LevelFormatError(f"{where}: {key}: expected a string, found {describe_value(header[key])}")
        # The name names the pack's level ids and files, as a spec's does: held to the same rule.
        if not name_ok(header["name"]):
            raise LevelFormatError(f"{where}: name: expected {NAME_RULE}, found {describe_value(header['name'])}")
        # Bounds as make enforces them: count sizes ranges and files, so 10**19 would overflow.
        for key, low, high in (("count", 1, MAX_COUNT), ("seed", 0, MAX_SEED), ("levels", 0, MAX_COUNT)):
            value = header[key]
            if type(value) is not int or not low <= value <= high:
                raise LevelFormatError(f"{where}: {key}: expected an integer in {low}..{high}, "
                                       f"found {describe_value(value)}")
        for key, options in (("grid", GRID_SHAPES), ("layout", LAYOUTS)):
            value = header.setdefault(key, WRITING[key])
            if value not in options:
                raise LevelFormatError(f"{where}: {key}: expected one of {', '.join(options)}, "
                                       f"found {describe_value(value)}")
        return _Open(path, header, shard, f)
    except BaseException:
        f.close()
        raise


def _check_set(shards: list[_Open]) -> None:
    """The shards belong to one pack, and each shard of it is there exactly once."""
    first = shards[0]
    for s in shards[1:]:
        differ = [(f"{k} {first.header[k]!r}", f"{k} {s.header[k]!r}")
                  for k in (*IDENTITY, *WRITING) if s.header[k] != first.header[k]]
        if s.shard.of != first.shard.of:
            differ.append((f"one of {first.shard.of} shards", f"shard {s.shard}"))
        if differ:
            raise LevelFormatError(f"{s.path}: a shard of another pack: expected "
                                   f"{', '.join(e for e, _ in differ)} (as in {first.path}), "
                                   f"found {', '.join(f for _, f in differ)}")
    seen: dict[int, Path] = {}
    for s in shards:
        if s.shard.index in seen:
            raise LevelFormatError(f"{s.path}: shard {s.shard} given twice (also {seen[s.shard.index]})")
        seen[s.shard.index] = s.path
    n = first.shard.of
    missing = [k for k in range(n) if k not in seen]
    if missing:
        names = ", ".join(f"{k}/{n}" for k in missing)
        raise LevelFormatError(f"shard {names} missing: expected all {n} shards of pack {first.header['name']!r} "
                               f"(seed {first.header['seed']}), found {len(seen)}")
    for s in shards:
        want = len(s.shard.indices(s.header["count"]))
        if s.header["levels"] != want:
            raise LevelFormatError(f"{s.path}: line 1: levels: expected {want} for shard {s.shard} of "
                                   f"{s.header['count']}, found {s.header['levels']!r}")


@dataclass(frozen=True)
class ShardSet:
    """Shards checked to form one whole pack: its identity, and its records in index order."""

    identity: dict
    count: int
    _shards: tuple[_Open, ...]

    @property
    def grid(self) -> GridShape:
        return GridShape(self._shards[0].header["grid"])

    @property
    def layout(self) -> Layout:
        return Layout(self._shards[0].header["layout"])

    def records(self) -> Iterator[dict]:
        """Every record, level 0 first, read one line at a time from the shard that holds it,
        its level id held to the pack's (:func:`~llkgen.jobs.spool.parse_record`); raises
        :class:`LevelFormatError` at the first line out of place, and for a shard with lines
        left over."""
        by_k = {s.shard.index: s for s in self._shards}
        n = len(by_k)
        for i in range(self.count):
            s = by_k[i % n]
            line = _readline(s)
            if not line:
                raise LevelFormatError(f"{s.path} line {s.line}: expected the record of level index {i}, "
                                       "found the end of the file (truncated?)")
            yield parse_record(line.decode("utf-8", "surrogateescape"), f"{s.path} line {s.line}", expected=i,
                               pack=self.identity["name"])
        for s in self._shards:
            if _readline(s).strip():
                raise LevelFormatError(f"{s.path} line {s.line}: expected the end of the file, found more lines")

    def close(self) -> None:
        for s in self._shards:
            s.f.close()


def open_shards(paths: Sequence[str | os.PathLike]) -> ShardSet:
    """Open and check ``paths`` as the shards of one pack: every shard of it once, all from
    the same spec, seed, count and llkgen version. Raises :class:`LevelFormatError` naming the
    file at fault (a foreign or duplicated shard) or the shard that is missing."""
    opened: list[_Open] = []
    try:
        for p in paths:
            opened.append(_open_shard(Path(p)))
        _check_set(opened)
    except BaseException:
        for s in opened:
            s.f.close()
        raise
    first = opened[0].header
    return ShardSet({k: first[k] for k in IDENTITY}, first["count"], tuple(opened))
