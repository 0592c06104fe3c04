"""Level and pack files: ``llkgen.level/1`` and ``llkgen.pack/1`` JSON.

A level may also be in the flat shape, ``llkgen.level-flat/1`` (see :mod:`llkgen.formats.flat`): it
loads to the same :class:`Level` as its nested form, and a pack may hold levels of either.

Loading validates everything and raises :class:`LevelFormatError` with the file name, the
place (``levels[3].grid row 2 col 5``) and what was expected versus found. Unknown top-level
keys are kept in ``extra`` and written back unchanged, so later versions can add
``solution``, ``certificate``, ``metrics`` and ``seed`` without breaking older readers.

Pack directories, for packs too big for one file, are :mod:`llkgen.formats.packdir`.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING

from llkgen.errors import LevelFormatError
from llkgen.files import read_bounded, write_text_atomic
from llkgen.formats.flat import FLAT_BOARD_KEY, FLAT_LEVEL_FORMAT, board_from_cells, flat_level_json, moves_from_indices
from llkgen.formats.shapes import GridShape
from llkgen.game.board import GRAVITIES, Board, Rules
from llkgen.text import describe_value, escape_surrogates, int_text

if TYPE_CHECKING:  # annotations only
    from llkgen.game.path import Move

LEVEL_FORMAT = "llkgen.level/1"
PACK_FORMAT = "llkgen.pack/1"
#: Refuse files larger than this before parsing: a 64x64 level with a solution is ~100 KB.
MAX_FILE_BYTES = 64 * 1024 * 1024

_LEVEL_KEYS = ("format", "id", "rows", "cols", "grid", "rules")
_FLAT_LEVEL_KEYS = ("format", "id", "rows", "cols", FLAT_BOARD_KEY, "rules")
LEVEL_FORMATS = (LEVEL_FORMAT, FLAT_LEVEL_FORMAT)
#: The largest magnitude of a number in a level's ``metrics``: 2^53, past which a float (and a
#: JavaScript number) no longer holds every integer. Every metric llkgen writes is far below it.
#: A larger one is refused where the level is read: a 401-digit integer passed ``verify``, then
#: ``grade``, ``view`` and ``render`` crashed with OverflowError turning it into a float.
MAX_METRIC = 2**53


@dataclass(frozen=True)
class Level:
    board: Board
    rules: Rules = Rules()
    id: str | None = None
    extra: dict = field(default_factory=dict)

    @property
    def solution(self) -> list | None:
        return self.extra.get("solution")


@dataclass(frozen=True)
class Pack:
    name: str
    levels: list[Level]
    extra: dict = field(default_factory=dict)


# -- JSON <-> objects ----------------------------------------------------------------------------
def rules_from_json(obj: object, where: str = "rules") -> Rules:
    if obj is None:
        return Rules()
    if not isinstance(obj, dict):
        raise LevelFormatError(f"{where}: expected an object, found {describe_value(obj)}")
    for key in obj:
        if key not in ("border", "gravity"):
            raise LevelFormatError(f"{where}: unknown rule {key!r}: expected border or gravity")
    border = obj.get("border", True)
    if not isinstance(border, bool):
        raise LevelFormatError(f"{where}.border: expected true or false, found {describe_value(border)}")
    gravity = obj.get("gravity", "none")
    if gravity not in GRAVITIES:
        raise LevelFormatError(
            f"{where}.gravity: expected one of {', '.join(GRAVITIES)}, found {describe_value(gravity)}"
        )
    return Rules(border=border, gravity=gravity)


def level_from_json(obj: object, where: str = "level") -> Level:
    """Validate a decoded level object, nested (``grid``) or flat (``cells``), and build a
    :class:`Level`. A flat level's solution is turned into moves, so both shapes of one level
    give equal :class:`Level` objects."""
    if not isinstance(obj, dict):
        raise LevelFormatError(f"{where}: expected a level object, found {describe_value(obj)}")
    if obj.get("format") == PACK_FORMAT:
        n = len(obj["levels"]) if isinstance(obj.get("levels"), list) else "?"
        raise LevelFormatError(
            f"{where}.format: expected {LEVEL_FORMAT!r}, found string {PACK_FORMAT!r}: "
            f"this is a pack of {n} levels (name one as FILE#ID; `llkgen verify` checks whole packs)"
        )
    flat = obj.get("format") == FLAT_LEVEL_FORMAT
    board_key = FLAT_BOARD_KEY if flat else "grid"
    for key in ("format", "rows", "cols", board_key):
        if key not in obj:
            hint = ""
            if key == "grid" and FLAT_BOARD_KEY in obj:
                hint = f" (a level with {FLAT_BOARD_KEY!r} has format {FLAT_LEVEL_FORMAT!r})"
            raise LevelFormatError(f"{where}: missing field {key!r}{hint}")
    if obj["format"] not in LEVEL_FORMATS:
        raise LevelFormatError(f"{where}.format: expected {LEVEL_FORMAT!r} or {FLAT_LEVEL_FORMAT!r}, "
                               f"found {describe_value(obj['format'])}")
    if flat and "grid" in obj:
        raise LevelFormatError(f"{where}.grid: expected no grid in a {FLAT_LEVEL_FORMAT!r} level (its "
                               f"board is {FLAT_BOARD_KEY!r}), found both")
    for key in ("rows", "cols"):
        v = obj[key]
        if type(v) is not int or v < 1:
            raise LevelFormatError(f"{where}.{key}: expected a positive integer, found {describe_value(v)}")
    if flat:
        board = board_from_cells(obj["rows"], obj["cols"], obj[board_key], f"{where}.{board_key}")
    else:
        board = Board.from_grid(obj["grid"], f"{where}.grid")
    if (board.rows, board.cols) != (obj["rows"], obj["cols"]):
        raise LevelFormatError(
            f"{where}: rows/cols say {int_text(obj['rows'])}x{int_text(obj['cols'])} "
            f"but the grid is {board.rows}x{board.cols}"
        )
    level_id = obj.get("id")
    if level_id is not None and not isinstance(level_id, str):
        raise LevelFormatError(f"{where}.id: expected a string, found {describe_value(level_id)}")
    rules = rules_from_json(obj.get("rules"), f"{where}.rules")
    _check_metrics(obj.get("metrics"), f"{where}.metrics")
    known = _FLAT_LEVEL_KEYS if flat else _LEVEL_KEYS
    extra = {k: v for k, v in obj.items() if k not in known}
    if flat and "solution" in extra:
        extra["solution"] = moves_from_indices(extra["solution"], board, f"{where}.solution")
    return Level(board, rules, level_id, extra)


def _check_metrics(metrics: object, where: str) -> None:
    """Every number in ``metrics`` is within :data:`MAX_METRIC` of 0 (so finite). Other values
    are kept as they are, as unknown keys are: readers take only numbers from ``metrics``."""
    if not isinstance(metrics, dict):
        return
    for key, v in metrics.items():
        if isinstance(v, (int, float)) and not isinstance(v, bool) and not -MAX_METRIC <= v <= MAX_METRIC:
            raise LevelFormatError(f"{where}.{key}: expected a number from -2^53 to 2^53, found {describe_value(v)}")


def level_to_json(level: Level, grid: GridShape = GridShape.NESTED) -> dict:
    """The level object of ``level``: nested (``llkgen.level/1``) or, with ``grid`` flat,
    ``llkgen.level-flat/1`` (see :func:`llkgen.formats.flat.flat_level_json`)."""
    out: dict = {"format": LEVEL_FORMAT}
    if level.id is not None:
        out["id"] = level.id
    out.update(rows=level.board.rows, cols=level.board.cols, grid=level.board.grid(),
               rules=level.rules.to_json())
    out.update(level.extra)
    if grid == GridShape.FLAT:
        return flat_level_json(out, f"level {level.id}" if level.id is not None else "level")
    return out


def pack_from_json(obj: object, where: str = "pack") -> Pack:
    if not isinstance(obj, dict):
        raise LevelFormatError(f"{where}: expected a pack object, found {describe_value(obj)}")
    for key in ("format", "name", "levels"):
        if key not in obj:
            raise LevelFormatError(f"{where}: missing field {key!r}")
    if obj["format"] != PACK_FORMAT:
        raise LevelFormatError(f"{where}.format: expected {PACK_FORMAT!r}, found {describe_value(obj['format'])}")
    if not isinstance(obj["name"], str):
        raise LevelFormatError(f"{where}.name: expected a string, found {describe_value(obj['name'])}")
    if not isinstance(obj["levels"], list):
        raise LevelFormatError(f"{where}.levels: expected a list of levels, found {describe_value(obj['levels'])}")
    levels = [level_from_json(lv, f"levels[{i}]") for i, lv in enumerate(obj["levels"])]
    extra = {k: v for k, v in obj.items() if k not in ("format", "name", "levels")}
    return Pack(obj["name"], levels, extra)


def pack_to_json(pack: Pack, grid: GridShape = GridShape.NESTED) -> dict:
    out: dict = {"format": PACK_FORMAT, "name": pack.name}
    out.update(pack.extra)
    out["levels"] = [level_to_json(lv, grid) for lv in pack.levels]
    return out


# -- the level's vocabulary -----------------------------------------------------------------------
# What a level file holds, in the shapes it holds them; every JSON document llkgen prints uses
# them for the same things (llkgen.outputs, llkgen.analysis.explain).
Cell = Sequence[int]


def cell_json(cell: Cell) -> list[int]:
    """A cell, or a point of a path: ``[row, col]``."""
    return [cell[0], cell[1]]


def move_json(a: Cell, b: Cell) -> list[list[int]]:
    """The two tiles removed together: ``[[r1, c1], [r2, c2]]``."""
    return [cell_json(a), cell_json(b)]


def cells_json(cells: Iterable[Cell]) -> list[list[int]]:
    """Cells, as a proof's ``locked`` tiles or a ``bottleneck``: ``[[r, c], ...]``."""
    return [cell_json(c) for c in cells]


def path_json(path: Iterable[Cell]) -> list[list[int]]:
    """The corners of the line drawn for a move, from its first tile to its second."""
    return cells_json(path)


def solution_json(moves: Iterable[Move]) -> list[list[list[int]]]:
    """Moves (with or without their paths) as a solution: ``[[[r1, c1], [r2, c2]], ...]``."""
    return [move_json(m.a, m.b) for m in moves]


# -- files ---------------------------------------------------------------------------------------
def read_json(path: str | os.PathLike) -> object:
    """Decode a JSON file with :func:`parse_json`'s guarantees, turning every I/O problem into
    :class:`LevelFormatError` too. Reads at most :data:`MAX_FILE_BYTES` (see
    :func:`llkgen.files.read_bounded`)."""
    data = read_bounded(path, MAX_FILE_BYTES, "a JSON file", LevelFormatError)
    return parse_json(data, str(Path(path)))


#: The deepest nesting of arrays and objects any input may have. A level nests about 5 deep
#: (pack, levels, level, solution, move, cell); json.loads recurses once per level, so
#: without a bound ``"[" * 60000`` ends in a RecursionError instead of a message.
MAX_DEPTH = 64


class JSONSyntaxError(LevelFormatError):
    """The text is not JSON at all (not UTF-8, or a syntax error), as opposed to JSON llkgen
    refuses (a non-finite number, a duplicate key, nesting beyond :data:`MAX_DEPTH`, more
    than :data:`MAX_FILE_BYTES`). Readers that sniff a file's kind use the difference."""


def parse_json(data: bytes | str, source: str) -> object:
    """Decode JSON text strictly: the one reader of everything llkgen reads back (levels,
    packs, pack directories, shards, journals, indexes), files it wrote itself included.

    Guarantees: at most :data:`MAX_FILE_BYTES` of UTF-8; no ``NaN``, ``Infinity`` or float
    that overflows to infinity; no key twice in one object, at any depth; no nesting deeper
    than :data:`MAX_DEPTH`, checked before json.loads recurses. Anything else raises
    :class:`LevelFormatError` (:class:`JSONSyntaxError` when the text is not JSON at all)
    whose message is ``"{source}: ..."`` with the line and column when they are known."""
    if len(data) > MAX_FILE_BYTES:
        raise LevelFormatError(f"{source}: larger than {MAX_FILE_BYTES} bytes, the cap for a JSON file")
    try:
        text = data.decode("utf-8") if isinstance(data, bytes) else data
    except UnicodeDecodeError as e:
        raise JSONSyntaxError(f"{source}: not UTF-8 text (byte {e.start})") from None
    raw = data if isinstance(data, bytes) else text.encode("utf-8", "surrogatepass")
    # Counting is a fast C loop; only text with enough brackets to be deep pays for the scan.
    if raw.count(b"[") + raw.count(b"{") > MAX_DEPTH:
        _check_depth(raw, text, source)
    try:
        return json.loads(text, parse_constant=_reject_constant, parse_float=_finite_float,
                          object_pairs_hook=_unique_keys)
    except json.JSONDecodeError as e:
        raise JSONSyntaxError(f"{source}: bad JSON at line {e.lineno} column {e.colno}: {e.msg}") from None
    except _NonFinite as e:
        raise LevelFormatError(f"{source}: bad JSON{_position(text, str(e))}: {e} is not valid JSON") from None
    except _DuplicateKey as e:
        raise LevelFormatError(f"{source}: bad JSON{_duplicate(text, e.key)}") from None
    except RecursionError:  # a safety net: _check_depth stops nesting long before
        raise LevelFormatError(f"{source}: bad JSON: nested too deeply (more than {MAX_DEPTH} levels)") from None
    except ValueError as e:  # e.g. an integer beyond Python's digit limit
        raise LevelFormatError(f"{source}: bad JSON: {e}") from None


def parse_json_line(line: bytes | str, where: str) -> object:
    """One line of a JSON-lines file (a shard, a journal, a part of a pack directory) with
    :func:`parse_json`'s guarantees; ``where`` names the line (``FILE line N``), so a
    position is given as its column alone."""
    if isinstance(line, bytes):
        line = line.rstrip(b"\r\n")
    else:
        line = line.rstrip("\r\n")
    try:
        return parse_json(line, where)
    except LevelFormatError as e:
        # The line holds no newline, so every position parse_json gives is on its "line 1".
        detail = str(e).removeprefix(where).replace(" at line 1 column ", " at column ")
        raise type(e)(where + detail) from None


class _NonFinite(Exception):
    pass


class _DuplicateKey(Exception):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """json.loads' object_pairs_hook: the object, unless a key occurs twice in it (json.loads
    alone would keep the last, so a file could say two things and be read as one)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _DuplicateKey(key)
            seen.add(key)
    return obj


# A JSON string, or from a quote that opens one to the end of the text when it is never closed
# (so every quote starts a match and a scan stays linear on any text); DOTALL lets an escape
# take a newline. The unrolled loop cannot backtrack into itself.
_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)'
_BRACKETS = re.compile(_STRING + r"|[\[\]{}]", re.DOTALL)
# _nesting's tables: every byte but quotes and brackets dropped, and "{}" read as "[]".
_DROP = bytes(c for c in range(256) if c not in b'"[]{}')
_AS_SQUARE = bytes.maketrans(b"{}", b"[]")
_STEP = {ord("["): 1, ord("]"): -1}


def _check_depth(raw: bytes, text: str, source: str) -> None:
    """Raise unless every array and object of the JSON text (``raw`` is its UTF-8) is nested at
    most :data:`MAX_DEPTH` deep; brackets inside strings do not count."""
    if _nesting(raw) > MAX_DEPTH:
        raise LevelFormatError(f"{source}: bad JSON: nested too deeply (more than {MAX_DEPTH} levels)"
                               f"{_depth_position(text)}")


def _nesting(raw: bytes) -> int:
    """The most arrays and objects open at once in ``raw``, outside strings: how deep
    json.loads recurses reading JSON text, and for text that is not JSON at least as deep as
    it gets before it finds the error (backslashes outside strings are such an error). Linear
    in ``raw``, and every step of the common case runs in C."""
    # Escaped backslashes, then escaped quotes, go first, so every quote left delimits a string
    # (backslashes pair off left to right); then only quotes and brackets are kept, and the
    # strings between quotes dropped (an unclosed one to the end): what remains is brackets.
    if b"\\" in raw:  # rare in llkgen's files, and the replacing costs as much as the rest
        raw = raw.replace(b"\\\\", b"").replace(b'\\"', b"")
    kept = raw.translate(_AS_SQUARE, _DROP)
    # Strings without brackets are now "", and when dropping each "" leaves no quote, the
    # quotes paired first with second, third with fourth...: no string held a bracket.
    brackets = kept.replace(b'""', b"")
    if b'"' in brackets:
        brackets = b"".join(kept.split(b'"')[::2])  # the pieces between a string's quotes are odd
    # Balanced brackets of depth d vanish after exactly d passes that each drop every "[]".
    rest = brackets
    for depth in range(MAX_DEPTH + 1):
        if not rest:
            return depth
        shorter = rest.replace(b"[]", b"")
        if len(shorter) == len(rest):
            break
        rest = shorter
    # Unbalanced (not JSON) or deep: the exact count, a step per bracket.
    return max(accumulate(map(_STEP.__getitem__, brackets), initial=0))


def _depth_position(text: str) -> str:
    """' at line L column C' of the bracket that opens level MAX_DEPTH + 1 (an error path)."""
    depth = 0
    for m in _BRACKETS.finditer(text):
        c = text[m.start()]
        if c in "[{":
            depth += 1
            if depth > MAX_DEPTH:
                return _line_column(text, m.start())
        elif c in "]}":
            depth -= 1
    return ""


def _line_column(text: str, offset: int) -> str:
    line = text.count("\n", 0, offset) + 1
    col = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f" at line {line} column {col}"


def _position(text: str, token: str) -> str:
    """' at line L column C' of the first bare ``token`` (json.loads does not report it)."""
    m = re.search(r"(?<![\w\"])" + re.escape(token) + r"(?![\w\"])", text)
    if m is None:
        return ""
    return _line_column(text, m.start())


def _reject_constant(name: str) -> object:
    raise _NonFinite(name)


def _finite_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise _NonFinite(text[:40])
    return value


def _duplicate(text: str, key: str) -> str:
    """' at line L column C: duplicate key "k" at PATH (first at line L column C)' for the
    first key, in reading order, that repeats in its object; json.loads' hook knows no
    positions, so this error path reads the text again with a small scanner of its own."""
    try:
        found = _find_duplicate(text, 0, "")[1]
    except (ValueError, IndexError):  # not expected: json.loads has read the text this far
        found = None
    if found is None:
        return f": duplicate key {json.dumps(key, ensure_ascii=False)}"
    path, name, first, second = found
    return (f"{_line_column(text, second)}: duplicate key {json.dumps(name, ensure_ascii=False)} at {path} "
            f"(first{_line_column(text, first)})")


#: (the key's path, the key, the offsets of its first and second occurrence)
_Duplicate = tuple[str, str, int, int]
_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Reads the scalars for _find_duplicate; any constant will do, json.loads has vetted them.
_SCALAR = json.JSONDecoder(parse_constant=float)


def _find_duplicate(text: str, i: int, path: str) -> tuple[int, _Duplicate | None]:
    """Read the JSON value at ``text[i:]`` (``path`` names it); return the offset past it and
    the first duplicate key inside it, or None. Recursive, so only for text whose depth
    :func:`_check_depth` has bounded."""
    i = _skip_space(text, i)
    if text[i] == "{":
        keys: dict[str, int] = {}
        i = _skip_space(text, i + 1)
        if text[i] == "}":
            return i + 1, None
        while True:
            start = i
            key, i = _SCALAR.raw_decode(text, i)
            inner = _key_path(path, key)
            if key in keys:
                return i, (inner, key, keys[key], start)
            keys[key] = start
            i, found = _find_duplicate(text, _skip_space(text, i) + 1, inner)  # + 1: past the ':'
            if found is not None:
                return i, found
            i = _skip_space(text, i)
            if text[i] == "}":
                return i + 1, None
            i = _skip_space(text, i + 1)  # past the ','
    if text[i] == "[":
        i = _skip_space(text, i + 1)
        if text[i] == "]":
            return i + 1, None
        n = 0
        while True:
            i, found = _find_duplicate(text, i, f"{path}[{n}]")
            if found is not None:
                return i, found
            i = _skip_space(text, i)
            if text[i] == "]":
                return i + 1, None
            i, n = i + 1, n + 1  # past the ','
    return _SCALAR.raw_decode(text, i)[1], None


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\n\r":
        i += 1
    return i


def _key_path(path: str, key: str) -> str:
    """``levels[3].grid`` for key ``grid`` of the object at ``levels[3]``; ``["a b"]`` for a key
    that is not a plain name."""
    if _PLAIN_KEY.fullmatch(key):
        return f"{path}.{key}" if path else key
    return f"{path}[{json.dumps(key, ensure_ascii=False)}]"


def prefixed(source: str, fn, obj):
    try:
        return fn(obj)
    except LevelFormatError as e:
        raise LevelFormatError(f"{source}: {e}") from None


def load_level(path: str | os.PathLike) -> Level:
    return prefixed(str(path), level_from_json, read_json(path))


def levels_from_json(obj: object, source: str) -> list[tuple[str, Level]]:
    """Accept either a level or a pack object; label each level for messages."""
    if isinstance(obj, dict) and obj.get("format") == PACK_FORMAT:
        pack = prefixed(source, pack_from_json, obj)
        return [(f"{source}#{lv.id or i}", lv) for i, lv in enumerate(pack.levels)]
    if isinstance(obj, dict) and "format" not in obj:
        raise LevelFormatError(f"{source}: missing field 'format': expected {LEVEL_FORMAT!r}, "
                               f"{FLAT_LEVEL_FORMAT!r} or {PACK_FORMAT!r}")
    level = prefixed(source, level_from_json, obj)
    return [(source, level)]


def dumps(obj: object) -> str:
    """Deterministic, diff-friendly JSON text: keys in the order built, any value whose compact
    form fits on a line (a grid row, a move) kept on one line, and a trailing newline. Lone
    surrogates, which JSON strings may hold, are written as escapes so the text encodes. A
    float JSON cannot hold (NaN, an infinity) raises ``ValueError``: Python's ``json`` would
    write ``NaN``, which no JSON reader in a game engine accepts."""
    return escape_surrogates(_format(obj, 0)) + "\n"


def _format(obj: object, depth: int) -> str:
    flat = json.dumps(obj, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)
    if len(flat) + depth * 2 <= 100 or not isinstance(obj, (dict, list)) or not obj:
        return flat
    pad, inner = "  " * depth, "  " * (depth + 1)
    if isinstance(obj, dict):
        items = [f"{inner}{json.dumps(k, ensure_ascii=False)}: {_format_value(obj, k, v, depth + 1)}"
                 for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    items = [inner + _format(v, depth + 1) for v in obj]
    return "[\n" + ",\n".join(items) + "\n" + pad + "]"


def _format_value(parent: dict, key: str, value: object, depth: int) -> str:
    """A flat level's long ``cells`` is written one board row a line, and its ``solution``
    with whole moves (two indices) filling each line, rather than one number a line; every
    other value as :func:`_format` writes it (so nested levels keep their bytes)."""
    runs = _flat_runs(parent, key, value)
    text = json.dumps(value, ensure_ascii=False, separators=(", ", ": "), allow_nan=False)
    if runs is None or len(text) + depth * 2 <= 100:
        return _format(value, depth)
    assert isinstance(value, list)
    size, share = runs
    inner = "  " * (depth + 1)
    lines: list[str] = []
    for i in range(0, len(value), size):
        run = ", ".join(json.dumps(v) for v in value[i:i + size])
        if share and lines and len(inner) + len(lines[-1]) + len(run) + 3 <= 100:
            lines[-1] += ", " + run
        else:
            lines.append(run)
    return "[\n" + ",\n".join(inner + line for line in lines) + "\n" + "  " * depth + "]"


def _flat_runs(parent: dict, key: str, value: object) -> tuple[int, bool] | None:
    """``(numbers per run, whether runs share a line)`` for a number list of a flat level."""
    if parent.get("format") != FLAT_LEVEL_FORMAT or not isinstance(value, list):
        return None
    if not all(type(v) is int for v in value):
        return None
    cols = parent.get("cols")
    if key == FLAT_BOARD_KEY and type(cols) is int and cols > 0:
        return cols, False
    if key == "solution":
        return 2, True
    return None


def write_json_atomic(path: str | os.PathLike, obj: object) -> Path:
    """Write :func:`dumps` of ``obj`` with :func:`llkgen.files.write_text_atomic`: an
    interrupted run never leaves a truncated file and never destroys the previous one."""
    return write_text_atomic(path, dumps(obj))
