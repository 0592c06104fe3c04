"""Fuzzing the loaders: every input gives a valid object or an ``LlkgenError``.

Inputs are random JSON values, near-valid level and pack objects with a few mutated fields,
random bytes, and byte-mutated level files. Any other exception (TypeError, KeyError, a bare
ValueError ...) fails the test, and the Hypothesis deadline turns a hang into a failure.
Whatever is accepted must survive the object round trip, and (for finite JSON) the text one.
"""

from __future__ import annotations

import copy
from datetime import timedelta

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llkgen.errors import LevelFormatError, LlkgenError
from llkgen.formats.level import (
    LEVEL_FORMAT,
    PACK_FORMAT,
    Level,
    Pack,
    dumps,
    level_from_json,
    level_to_json,
    levels_from_json,
    load_level,
    pack_from_json,
    pack_to_json,
    parse_json,
    read_json,
)
from llkgen.formats.load import load_levels, load_pack
from llkgen.game.board import GRAVITIES, Board

FUZZ = settings(
    max_examples=100,
    deadline=timedelta(seconds=2),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)

KEYS = ["format", "id", "rows", "cols", "grid", "rules", "border", "gravity", "name", "levels",
        "solution", "seed"]
FORMATS = [LEVEL_FORMAT, PACK_FORMAT, "llkgen.level/2", "", "LLKGEN.LEVEL/1"]


def _leaves(finite: bool):
    floats = st.floats(allow_nan=False, allow_infinity=False) if finite else st.floats()
    return (
        st.none()
        | st.booleans()
        | st.integers(-3, 70)
        | st.integers()
        | floats
        | st.text(max_size=8)
        | st.sampled_from(FORMATS + list(GRAVITIES))
    )


def _json_values(finite: bool):
    return st.recursive(
        _leaves(finite),
        lambda ch: st.lists(ch, max_size=4)
        | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=5), ch, max_size=4),
        max_leaves=12,
    )


# Built once: constructing recursive strategies inside every draw costs more than the test.
_LEAVES = {True: _leaves(True), False: _leaves(False)}
_JSON = {True: _json_values(True), False: _json_values(False)}


def json_values(finite: bool = False):
    return _JSON[finite]


@st.composite
def valid_levels(draw, finite: bool = True):
    rows = draw(st.integers(1, 4), label="rows")
    cols = draw(st.integers(1, 4), label="cols")
    flat = draw(st.lists(st.sampled_from([0, 0, -1, 1, 2, 3, 12]), min_size=rows * cols, max_size=rows * cols))
    seen: dict[int, int] = {}
    for v in flat:
        if v > 0:
            seen[v] = seen.get(v, 0) + 1
    for i in range(len(flat) - 1, -1, -1):  # drop the last copy of any odd type
        v = flat[i]
        if v > 0 and seen[v] % 2:
            flat[i] = 0
            seen[v] -= 1
    obj = {"format": LEVEL_FORMAT, "rows": rows, "cols": cols,
           "grid": [flat[r * cols : (r + 1) * cols] for r in range(rows)]}
    if draw(st.booleans()):
        obj["id"] = draw(st.text(max_size=6))
    if draw(st.booleans()):
        obj["rules"] = {"border": draw(st.booleans()), "gravity": draw(st.sampled_from(GRAVITIES))}
    if draw(st.booleans()):
        obj[draw(st.sampled_from(["solution", "seed", "metrics", "x"]))] = draw(json_values(finite))
    return obj


@st.composite
def _mutated(draw, obj: dict, finite: bool):
    """``obj`` with 0-3 random edits: drop or replace a key, bend rows/cols, poke the grid."""
    obj = copy.deepcopy(obj)
    for _ in range(draw(st.integers(0, 3), label="edits")):
        op = draw(st.sampled_from(["drop", "set", "size", "cell", "row", "rules", "format"]))
        if op == "drop" and obj:
            del obj[draw(st.sampled_from(sorted(obj)))]
        elif op == "set":
            obj[draw(st.sampled_from(KEYS))] = draw(json_values(finite))
        elif op == "size":
            obj[draw(st.sampled_from(["rows", "cols"]))] = draw(st.integers(-1, 6) | st.booleans())
        elif op == "format":
            obj["format"] = draw(st.sampled_from(FORMATS))
        elif op == "rules":
            rules = obj.get("rules") if isinstance(obj.get("rules"), dict) else {}
            rules[draw(st.sampled_from(["border", "gravity", "wrap"]))] = draw(
                _LEAVES[finite])
            obj["rules"] = rules
        elif op in ("cell", "row"):
            grid = obj.get("grid")
            if isinstance(grid, list) and grid and all(isinstance(row, list) for row in grid):
                r = draw(st.integers(0, len(grid) - 1))
                if op == "cell" and grid[r]:
                    grid[r][draw(st.integers(0, len(grid[r]) - 1))] = draw(_LEAVES[finite])
                elif grid[r] and draw(st.booleans()):
                    grid[r].pop()
                else:
                    grid[r].append(draw(st.integers(-2, 3)))
    return obj


@st.composite
def near_valid_levels(draw, finite: bool = False):
    return draw(_mutated(draw(valid_levels(finite)), finite))


@st.composite
def near_valid_packs(draw, finite: bool = False):
    levels = draw(st.lists(valid_levels(finite) | near_valid_levels(finite), max_size=3))
    obj = {"format": PACK_FORMAT, "name": draw(st.text(max_size=6)), "seed": draw(st.integers(0, 99)),
           "levels": levels}
    return draw(_mutated(obj, finite))


def anything(finite: bool = False):
    return json_values(finite) | near_valid_levels(finite) | valid_levels(finite) | near_valid_packs(finite)


@st.composite
def mutated_bytes(draw):
    """A valid level or pack file, then a few byte flips, insertions or deletions."""
    obj = draw(valid_levels() | near_valid_packs(finite=True))
    data = bytearray(dumps(obj).encode("utf-8"))
    for _ in range(draw(st.integers(0, 4))):
        pos = draw(st.integers(0, len(data)))
        op = draw(st.sampled_from(["flip", "insert", "delete"]))
        byte = draw(st.integers(0, 255) | st.sampled_from(list(b'{}[],:"-0e.9 \n\\')))
        if op == "insert" or pos == len(data):
            data[pos:pos] = bytes([byte])
        elif op == "flip":
            data[pos] = byte
        else:
            del data[pos]
    return bytes(data)


def all_bytes():
    return st.binary(max_size=200) | mutated_bytes()


# -- checks ------------------------------------------------------------------------------------------
def _total(fn, *args):
    """Call ``fn``; an LlkgenError (with a message) becomes None, anything else propagates."""
    try:
        return fn(*args)
    except LlkgenError as e:
        assert str(e), "an error must say what is wrong"
        return None


def _check_level(lv: Level, text_round_trip: bool) -> None:
    assert isinstance(lv, Level)
    b = lv.board
    assert len(b.cells) == b.rows * b.cols and 1 <= b.rows <= 64 and 1 <= b.cols <= 64
    assert Board.from_grid(b.grid()) == b
    assert level_from_json(level_to_json(lv)) == lv
    if text_round_trip:
        assert level_from_json(parse_json(dumps(level_to_json(lv)), "again")) == lv


def _check_pack(pack: Pack, text_round_trip: bool) -> None:
    assert isinstance(pack, Pack) and isinstance(pack.name, str)
    for lv in pack.levels:
        _check_level(lv, text_round_trip)
    assert pack_from_json(pack_to_json(pack)) == pack


def _check_labelled(out, text_round_trip: bool) -> None:
    assert isinstance(out, list)  # an empty pack yields []
    for label, lv in out:
        assert isinstance(label, str)
        _check_level(lv, text_round_trip)


# -- properties --------------------------------------------------------------------------------------
@FUZZ
@given(anything())
def test_object_loaders_are_total(obj):
    """level_from_json, pack_from_json and levels_from_json on the same random value."""
    lv = _total(level_from_json, obj)
    if lv is not None:
        _check_level(lv, text_round_trip=False)
    pack = _total(pack_from_json, obj)
    if pack is not None:
        _check_pack(pack, text_round_trip=False)
    out = _total(levels_from_json, obj, "fuzz.json")
    if out is not None:
        _check_labelled(out, text_round_trip=False)
        assert len(out) == (len(pack.levels) if pack is not None else 1)


@settings(FUZZ, max_examples=50)
@given(anything(finite=True))
def test_accepted_finite_levels_survive_the_text_round_trip(obj):
    lv = _total(level_from_json, obj)
    if lv is not None:
        _check_level(lv, text_round_trip=True)
    pack = _total(pack_from_json, obj)
    if pack is not None:
        _check_pack(pack, text_round_trip=True)
        assert pack_from_json(parse_json(dumps(pack_to_json(pack)), "again")) == pack


@FUZZ
@given(all_bytes())
def test_parse_json_and_file_loaders_are_total(tmp_path, data):
    """parse_json on the bytes (and on their text, when UTF-8), then every file loader."""
    texts = [data]
    try:
        texts.append(data.decode("utf-8"))
    except UnicodeDecodeError:
        pass
    for raw in texts:
        try:
            obj = parse_json(raw, "fuzz.json")
        except LlkgenError as e:
            assert str(e).startswith("fuzz.json: ")
            continue
        out = _total(levels_from_json, obj, "fuzz.json")
        if out is not None:
            _check_labelled(out, text_round_trip=False)
    path = tmp_path / "fuzz.json"
    path.write_bytes(data)
    _total(read_json, path)
    lv = _total(load_level, path)
    if lv is not None:
        _check_level(lv, text_round_trip=False)
    pack = _total(load_pack, path)
    if pack is not None:
        _check_pack(pack, text_round_trip=False)
    out = _total(load_levels, path)
    if out is not None:
        _check_labelled(out, text_round_trip=False)


@FUZZ
@given(st.text(alphabet=st.sampled_from(list("0123456789.#- \t\nx+")), max_size=60))
def test_from_text_is_total(text):
    board = _total(Board.from_text, text)
    if board is not None:
        assert Board.from_text(board.to_text()) == board


# -- the generators really reach the accepting branch ---------------------------------------------------
@settings(max_examples=30, deadline=None)
@given(valid_levels(finite=True))
def test_unmutated_levels_are_accepted(obj):
    lv = level_from_json(obj)
    _check_level(lv, text_round_trip=True)
    [(label, again)] = levels_from_json(obj, "x.json")
    assert label == "x.json" and again == lv


def test_unmutated_pack_is_accepted():
    level = {"format": LEVEL_FORMAT, "rows": 1, "cols": 2, "grid": [[1, 1]]}
    pack = pack_from_json({"format": PACK_FORMAT, "name": "p", "seed": 1, "levels": [level, level]})
    _check_pack(pack, text_round_trip=True)


# -- known bugs found by probing the same surface ----------------------------------------------------------
@pytest.mark.parametrize(
    "obj",
    [
        {"format": LEVEL_FORMAT, "rows": 1, "cols": 2, "grid": [[10**5000, 1]]},
        {"format": LEVEL_FORMAT, "rows": 10**5000, "cols": 2, "grid": [[1, 1]]},
    ],
    ids=["cell", "rows"],
)
def test_huge_python_int_is_a_format_error(obj):
    with pytest.raises(LevelFormatError):
        level_from_json(obj)
