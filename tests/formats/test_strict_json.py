"""Everything llkgen reads back is input, even what it wrote: one strict JSON reader
(:func:`llkgen.formats.level.parse_json`) refuses NaN and Infinity, duplicate keys at any depth,
nesting beyond MAX_DEPTH and oversized text, with ``Error: FILE: where: ...`` and exit 1 from
the CLI, never a traceback and never a pack that llkgen's own reader would refuse."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from llkgen.errors import LevelFormatError
from llkgen.formats import level as level_module
from llkgen.formats.level import MAX_DEPTH, JSONSyntaxError, parse_json, parse_json_line, read_json
from llkgen.generation.spec import parse_spec
from llkgen.jobs.make import make_pack, merge_shards
from llkgen.jobs.shards import Shard

from cli_runner import run_cli_in_process
from specs import tiny_spec


@pytest.fixture(scope="module")
def shards(tmp_path_factory) -> tuple[list[str], Path]:
    """The lines of shard 0/2 of a 4-level pack (a header, then 2 records), and the file of
    shard 1/2 to merge it with."""
    tmp = tmp_path_factory.mktemp("strict")
    spec = parse_spec(tiny_spec(), "tiny.yaml")
    paths = [make_pack(spec.with_overrides(out=tmp / f"s{k}.jsonl"), jobs=1, shard=Shard(k, 2)).path for k in (0, 1)]
    return paths[0].read_text("utf-8").splitlines(keepends=True), paths[1]


def _write(path: Path, lines: list[str]) -> Path:
    path.write_text("".join(lines), "utf-8")
    return path


def _merge(first: Path, other: Path, tmp_path: Path, monkeypatch, capsys) -> tuple[int, str, str]:
    out = tmp_path / "merged.json"
    result = run_cli_in_process(["merge", str(first), str(other), "--out", str(out)], monkeypatch, capsys)
    assert not out.exists()
    return result


# -- bug 3: NaN in a shard line ----------------------------------------------------------------------
def test_nan_in_a_shard_record_fails_the_merge(shards, tmp_path, monkeypatch, capsys):
    lines, other = shards
    record = lines[2].replace('"random_clear_rate":', '"random_clear_rate":NaN,"was":', 1)
    assert record != lines[2]
    bad = _write(tmp_path / "nan.jsonl", [lines[0], lines[1], record])
    code, out, err = _merge(bad, other, tmp_path, monkeypatch, capsys)
    assert (code, out) == (1, "")
    assert err.startswith(f"Error: {bad} line 3: bad JSON") and err.endswith(": NaN is not valid JSON\n"), err
    assert err.count("\n") == 1


@pytest.mark.parametrize("field, value", [("seed", "NaN"), ("count", "Infinity"), ("seed", "-Infinity")])
def test_a_non_finite_number_in_a_shard_header_is_refused(shards, tmp_path, monkeypatch, capsys, field, value):
    lines, other = shards
    header = json.loads(lines[0])
    text = lines[0].replace(f'"{field}":{header[field]}', f'"{field}":{value}', 1)
    bad = _write(tmp_path / "h.jsonl", [text, *lines[1:]])
    column = text.index(value) + 1
    code, out, err = _merge(bad, other, tmp_path, monkeypatch, capsys)
    assert (code, out) == (1, "")
    assert err == f"Error: {bad}: line 1: bad JSON at column {column}: {value} is not valid JSON\n"


# -- bug 4: duplicate keys -------------------------------------------------------------------------------
DUP_LEVEL = ('{"format": "llkgen.level/1", "rows": 2, "cols": 2,\n'
             ' "grid": [[1, 2], [2, 1]], "grid": [[1, 1], [2, 2]], "rules": {"border": false}}\n')


@pytest.mark.parametrize("command", ["verify", "show", "solve"])
def test_a_level_with_two_grids_is_refused(tmp_path, monkeypatch, capsys, command):
    # The last grid alone is solvable; the first is not: no reading may pick one silently.
    path = tmp_path / "dup.json"
    path.write_text(DUP_LEVEL, "utf-8")
    message = f'{path}: bad JSON at line 2 column 28: duplicate key "grid" at grid (first at line 2 column 2)'
    code, out, err = run_cli_in_process([command, str(path)], monkeypatch, capsys)
    assert code == 1
    assert message in (out if command == "verify" else err), (out, err)


@pytest.mark.parametrize("text, message", [
    ('{"a": 1, "a": 1}', 'at line 1 column 10: duplicate key "a" at a (first at line 1 column 2)'),
    ('{"format": "llkgen.pack/1", "levels": [{"rules": {}}, {"rules": {"border": true,\n"border": false}}]}',
     'at line 2 column 1: duplicate key "border" at levels[1].rules.border (first at line 1 column 66)'),
    ('[[{"x": [1, {"y": 1, "z": 2, "y": 3}]}]]', 'at line 1 column 30: duplicate key "y" at [0][0].x[1].y '
                                                 '(first at line 1 column 14)'),
    ('{"\\u0067rid": [], "grid": []}', 'at line 1 column 19: duplicate key "grid" at grid (first at line 1 column 2)'),
    ('{"a b": {"c": 1, "c": 2}}', 'at line 1 column 18: duplicate key "c" at ["a b"].c (first at line 1 column 10)'),
])
def test_duplicate_keys_are_refused_at_any_depth(text, message):
    with pytest.raises(LevelFormatError) as e:
        parse_json(text.encode(), "src")
    assert str(e.value) == f"src: bad JSON {message}"


def test_equal_keys_in_different_objects_are_fine():
    assert parse_json(b'{"a": {"a": 1}, "b": [{"a": 2}, {"a": 3}]}', "src") == {"a": {"a": 1}, "b": [{"a": 2},
                                                                                                    {"a": 3}]}


def test_a_duplicate_key_in_a_pack_directory_is_refused(tmp_path, monkeypatch, capsys):
    spec = parse_spec(tiny_spec(export="{path: tiny.json, layout: files}"), "tiny.yaml")
    pack = make_pack(spec.with_overrides(out=tmp_path / "tiny"), jobs=1).path
    index = pack / "index.json"
    text = index.read_text("utf-8")
    index.write_text(text.replace('"name": "tiny"', '"name": "tiny", "name": "other"', 1), "utf-8")
    code, out, _ = run_cli_in_process(["verify", str(pack)], monkeypatch, capsys)
    assert code == 1 and 'duplicate key "name" at name' in out, out


# -- bug 8: nesting -----------------------------------------------------------------------------------------
def test_a_shard_of_deep_brackets_is_one_error_line(shards, tmp_path, monkeypatch, capsys):
    bad = _write(tmp_path / "deep.jsonl", ["[" * 60_000 + "\n"])
    code, out, err = _merge(bad, shards[1], tmp_path, monkeypatch, capsys)
    assert (code, out, err) == (1, "", f"Error: {bad}: line 1: bad JSON: nested too deeply (more than {MAX_DEPTH} "
                                       f"levels) at column {MAX_DEPTH + 1}\n")


def test_a_shard_record_of_deep_brackets_is_one_error_line(shards, tmp_path, monkeypatch, capsys):
    lines, other = shards
    bad = _write(tmp_path / "deep.jsonl", [lines[0], "[" * 60_000 + "\n"])
    code, out, err = _merge(bad, other, tmp_path, monkeypatch, capsys)
    assert (code, out) == (1, "")
    assert err.startswith(f"Error: {bad} line 2: bad JSON: nested too deeply (more than {MAX_DEPTH} levels)"), err
    assert err.count("\n") == 1


def test_a_journal_of_deep_brackets_is_one_error_line(tmp_path, monkeypatch, capsys):
    (tmp_path / "tiny.yaml").write_text(tiny_spec(), "utf-8")
    (tmp_path / "tiny.json.journal").write_text("[" * 60_000 + "\n", "utf-8")
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli_in_process(["make", "--config", "tiny.yaml", "--resume", "--jobs", "1", "-q"],
                                        monkeypatch, capsys)
    assert (code, out) == (1, "")
    assert err.startswith("Error: tiny.json.journal: line 1: ") and err.count("\n") == 1, err


def _nested(depth: int, inner: str = "1") -> str:
    text = inner
    for d in range(depth):
        text = f'{{"k{d}": {text}}}' if d % 2 else f"[{text}, \"]]}}\"]"
    return text


def test_nesting_up_to_the_bound_is_read_and_beyond_it_refused():
    assert parse_json(_nested(MAX_DEPTH), "src") == json.loads(_nested(MAX_DEPTH))
    with pytest.raises(LevelFormatError, match=rf"^src: bad JSON: nested too deeply \(more than {MAX_DEPTH} levels\) "
                                               r"at line 1 column \d+$"):
        parse_json(_nested(MAX_DEPTH + 1), "src")


@pytest.mark.parametrize("text", [
    '["' + "[" * 1000 + '"]',  # brackets in strings do not nest
    '{"a": "\\"' + "{" * 1000 + '"}',  # nor after an escaped quote
    '{"a": "\\\\", "b": [' + '"[[[[", ' * 300 + '1]}',  # an escaped backslash closes no string early
])
def test_brackets_inside_strings_do_not_count(text):
    assert parse_json(text, "src") == json.loads(text)


@pytest.mark.parametrize("text", [
    "]" * 100 + "[" * 100,  # unbalanced: the parser stops at once, the bound holds anyway
    '"' + '\\"' * 100_000 + "[" * 100,  # an unclosed string: every bracket is inside it
])
def test_text_that_is_not_json_is_refused_without_a_traceback(text):
    with pytest.raises(LevelFormatError):
        parse_json(text, "src")


def test_the_depth_check_agrees_with_the_parser_on_random_json():
    rng = random.Random(7)

    def value(depth: int) -> object:
        r = rng.random()
        if depth > 70 or r < 0.25:
            return rng.choice([1, 2.5, None, True, "[", "]", "\\", '"', "}{", "x"])
        if r < 0.6:
            return [value(depth + 1) for _ in range(rng.randint(0, 2))]
        return {rng.choice(["a", "[", '"{', "\\"]) + str(i): value(depth + 1) for i in range(rng.randint(0, 2))}

    for _ in range(3000):
        obj = value(0)
        text = json.dumps(obj)
        deepest = 0
        stack = [(obj, 0)]
        while stack:
            v, d = stack.pop()
            if isinstance(v, (list, dict)):
                deepest = max(deepest, d + 1)
                stack.extend((c, d + 1) for c in (v.values() if isinstance(v, dict) else v))
        if deepest <= MAX_DEPTH:
            assert parse_json(text, "src") == obj
        else:
            with pytest.raises(LevelFormatError, match="nested too deeply"):
                parse_json(text, "src")


# -- bug 9: header integers ----------------------------------------------------------------------------------
@pytest.mark.parametrize("field, value, expected", [
    ("count", "10000000000000000000", "count: expected an integer in 1..1000000, found number 10000000000000000000"),
    ("count", "0", "count: expected an integer in 1..1000000, found number 0"),
    ("count", "4.0", "count: expected an integer in 1..1000000, found number 4.0"),
    ("seed", "-1", "seed: expected an integer in 0..9223372036854775807, found number -1"),
    ("seed", "9223372036854775808", "seed: expected an integer in 0..9223372036854775807, "
                                    "found number 9223372036854775808"),
    ("levels", "true", "levels: expected an integer in 0..1000000, found boolean true"),
    ("name", "[1]", "name: expected a string, found a list of 1"),
])
def test_shard_header_fields_are_bounded(shards, tmp_path, monkeypatch, capsys, field, value, expected):
    lines, other = shards
    header = json.loads(lines[0])
    header[field] = json.loads(value)
    bad = _write(tmp_path / "h.jsonl", [json.dumps(header, separators=(",", ":")) + "\n", *lines[1:]])
    code, out, err = _merge(bad, other, tmp_path, monkeypatch, capsys)
    assert (code, out, err) == (1, "", f"Error: {bad}: line 1: {expected}\n")


def test_good_shards_still_merge(shards, tmp_path):
    lines, other = shards
    good = _write(tmp_path / "good.jsonl", lines)
    assert merge_shards([good, other], tmp_path / "m.json").count == 4


# -- sizes, and the two entry points ---------------------------------------------------------------------------
def test_text_over_the_size_cap_is_refused(monkeypatch):
    monkeypatch.setattr(level_module, "MAX_FILE_BYTES", 10)
    with pytest.raises(LevelFormatError, match=r"^src: larger than 10 bytes, the cap for a JSON file$"):
        parse_json(b'{"a": [1, 2, 3]}', "src")
    assert parse_json(b"[1, 2, 3]", "src") == [1, 2, 3]


def test_read_json_is_strict(tmp_path):
    path = tmp_path / "dup.json"
    path.write_text(DUP_LEVEL, "utf-8")
    with pytest.raises(LevelFormatError, match=r'duplicate key "grid"'):
        read_json(path)


def test_a_json_line_gives_columns_and_tells_syntax_from_refusal():
    with pytest.raises(JSONSyntaxError) as e:
        parse_json_line(b'{"a": 1,}\r\n', "F line 3")
    assert str(e.value) == "F line 3: bad JSON at column 9: Expecting property name enclosed in double quotes"
    with pytest.raises(LevelFormatError) as refused:
        parse_json_line('{"a": 1, "a": 2}\n', "F line 3")
    assert not isinstance(refused.value, JSONSyntaxError)
    assert str(refused.value) == 'F line 3: bad JSON at column 10: duplicate key "a" at a (first at column 2)'
    with pytest.raises(JSONSyntaxError, match=r"^F line 3: not UTF-8 text \(byte 7\)$"):
        parse_json_line(b'{"a": "\xff"}', "F line 3")
