"""Spec loader: shipped configs, one test per kind of user mistake, and fuzzing that proves any
input yields either a Spec or a SpecError naming the source."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llkgen.errors import LlkgenError, SpecError
from llkgen.game.board import Rules
from llkgen.generation.spec import (
    MetricRange,
    Spec,
    load_spec,
    load_spec_ref,
    parse_spec,
    shipped_specs,
    spec_from_dict,
)
from llkgen.generation.starter import starter_spec

from paths import CONFIGS

SHIPPED = ["easy", "medium", "hard", "gravity", "shapes"]

MINIMAL = """\
name: t
board: {rows: 2, cols: 3}
tiles: {types: 3, copies: 2}
"""


def err(text: str, source: str = "t.yaml") -> str:
    with pytest.raises(SpecError) as info:
        parse_spec(text, source=source)
    return str(info.value)


# --------------------------------------------------------------------------- shipped configs


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_config_loads_and_fills_its_board(name):
    spec = load_spec(CONFIGS / f"{name}.yaml")
    assert spec.name == name
    assert spec.export.path == f"output/{name}.json"
    assert 1 <= spec.count <= 20
    tiles, walls = spec.layout_cells()
    assert len(spec.tile_multiset()) == len(tiles)
    assert not set(tiles) & set(walls)


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_config_comments_every_key(name):
    # The configs double as the format's documentation: every key line explains itself.
    for number, line in enumerate((CONFIGS / f"{name}.yaml").read_text().splitlines(), 1):
        if re.match(r"\s*[\w]+:", line):
            assert " # " in line, f"{name}.yaml:{number} has no comment: {line!r}"


def test_shipped_configs_have_the_promised_character():
    easy, medium, hard = (load_spec(CONFIGS / f"{n}.yaml") for n in ("easy", "medium", "hard"))
    gravity, shapes = load_spec(CONFIGS / "gravity.yaml"), load_spec(CONFIGS / "shapes.yaml")
    sizes = [len(s.tile_multiset()) for s in (easy, medium, hard)]
    assert sizes == sorted(sizes) and sizes[0] < sizes[2]
    assert (
        len(easy.tiles.distribution) < len(medium.tiles.distribution) < len(hard.tiles.distribution)
    )
    # easy demands random play often succeeds, hard that it usually fails: the ranges are disjoint.
    assert easy.difficulty.random_clear_rate.low > hard.difficulty.random_clear_rate.high
    assert gravity.rules == Rules(border=True, gravity="down")
    tiles, walls = shapes.layout_cells()
    assert walls and len(tiles) < shapes.board.rows * shapes.board.cols - len(walls)
    assert len({c for _, c in shapes.tiles.distribution}) > 1


# --------------------------------------------------------------------------- the model


def test_minimal_spec_gets_every_default():
    spec = parse_spec(MINIMAL)
    assert spec == Spec(
        name="t",
        board=spec.board,
        tiles=spec.tiles,
        export=spec.export,
    )
    assert (spec.seed, spec.count) == (0, 1)
    assert spec.rules == Rules(border=True, gravity="none")
    assert (spec.generator.strategy, spec.generator.max_attempts) == ("shuffle", 200)
    assert spec.difficulty.targets() == {} and spec.difficulty.playthroughs == 32
    assert spec.verify.nodes == 200_000
    assert (spec.export.path, spec.export.solutions) == ("output/t.json", True)
    assert spec.tile_multiset() == [1, 1, 2, 2, 3, 3]
    assert spec.layout_cells() == ([(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)], [])


def test_default_copies_is_four():
    spec = parse_spec("name: t\nboard: {rows: 2, cols: 4}\ntiles: {types: 2}\n")
    assert spec.tile_multiset() == [1] * 4 + [2] * 4


def test_layout_cells_are_row_major_and_walls_separate():
    text = """\
name: t
board:
  rows: 3
  cols: 3
  layout: |
    #X#
    ...
    #X#
tiles: {types: 1}
"""
    spec = parse_spec(text)
    assert spec.layout_cells() == ([(0, 0), (0, 2), (2, 0), (2, 2)], [(0, 1), (2, 1)])
    assert spec.board.layout == ("#X#", "...", "#X#")


def test_distribution_sorted_multiset_and_string_keys():
    text = "name: t\nboard: {rows: 2, cols: 4}\ntiles:\n  distribution: {7: 2, 2: 4, '5': 2}\n"
    assert parse_spec(text).tile_multiset() == [2, 2, 2, 2, 5, 5, 7, 7]


def test_null_sections_mean_defaults():
    spec = parse_spec(
        MINIMAL + "rules:\ngenerator:\ndifficulty:\n  initial_moves:\nverify:\nexport:\n"
    )
    assert spec == parse_spec(MINIMAL)


def test_difficulty_ranges_and_accepts():
    spec = parse_spec(
        MINIMAL + "difficulty:\n  initial_moves: [2, null]\n  random_clear_rate: [0, 1]\n"
    )
    d = spec.difficulty
    assert d.initial_moves == MetricRange(2, None)
    assert d.random_clear_rate == MetricRange(0.0, 1.0)
    assert d.accepts({"initial_moves": 2, "random_clear_rate": 0.5})
    assert not d.accepts({"initial_moves": 1, "random_clear_rate": 0.5})


@pytest.mark.parametrize("name", SHIPPED)
def test_to_dict_round_trips_through_yaml_and_json(name):
    spec = load_spec(CONFIGS / f"{name}.yaml")
    assert parse_spec(yaml.safe_dump(spec.to_dict())) == spec
    assert spec_from_dict(json.loads(json.dumps(spec.to_dict()))) == spec


def test_with_overrides():
    spec = parse_spec(MINIMAL)
    new = spec.with_overrides(count=5, seed=9, out=Path("x/y.json"))
    assert (new.count, new.seed, new.export.path) == (5, 9, "x/y.json")
    assert (spec.count, spec.seed, spec.export.path) == (1, 0, "output/t.json")
    assert spec.with_overrides() == spec
    for kwargs, argument in (
        ({"count": 0}, "count"),
        ({"count": True}, "count"),
        ({"seed": -1}, "seed"),
        ({"out": ""}, "out"),
    ):
        # The library names the argument it was given, never a flag; llkgen make names its flag.
        with pytest.raises(SpecError, match=f"^{argument}: ") as caught:
            spec.with_overrides(**kwargs)
        assert caught.value.arguments == (argument,)


# --------------------------------------------------------------------------- user mistakes


def test_spec_error_is_an_llkgen_value_error():
    assert issubclass(SpecError, LlkgenError) and issubclass(SpecError, ValueError)


def test_unknown_key_suggests_the_right_one():
    msg = err("name: t\nboard:\n  rows: 2\n  colls: 3\ntiles: {types: 3, copies: 2}\n", "easy.yaml")
    assert msg == 'easy.yaml:4: unknown key "colls" at board.colls: did you mean "cols"?'


def test_unknown_key_without_a_close_match_lists_the_keys():
    msg = err(MINIMAL + "zebra: 1\n")
    assert msg.startswith('t.yaml:4: unknown key "zebra" at zebra: expected one of "name", "seed"')


def test_duplicate_key_names_path_and_both_lines():
    msg = err("name: t\nboard:\n  rows: 2\n  cols: 3\n  rows: 2\ntiles: {types: 3, copies: 2}\n")
    assert msg == 't.yaml:5: duplicate key "rows" at board.rows (first written on line 3)'


def test_duplicate_key_deep_inside_unknown_data_is_still_caught():
    assert "duplicate key" in err("a:\n  - {x: 1, x: 2}\n")


def test_merge_key_may_be_overridden():
    spec = parse_spec(
        "name: t\nboard:\n  <<: {rows: 9, cols: 3}\n  rows: 2\ntiles: {types: 3, copies: 2}\n"
    )
    assert spec.board.rows == 2


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            MINIMAL.replace("rows: 2", "rows: true"),
            "t.yaml:2: board.rows: expected an integer in 1..64, found true",
        ),
        (
            MINIMAL.replace("rows: 2", "rows: 2.0"),
            "board.rows: expected an integer in 1..64, found 2.0",
        ),
        (
            MINIMAL.replace("rows: 2", "rows: '2'"),
            'board.rows: expected an integer in 1..64, found "2"',
        ),
        (
            MINIMAL.replace("rows: 2", "rows: 65"),
            "board.rows: expected an integer in 1..64, found 65",
        ),
        (MINIMAL.replace("name: t", "name: 5"), "name: expected a file-name-safe name"),
        (MINIMAL.replace("name: t", "name: a/b"), 'found "a/b"'),
        (MINIMAL + "seed: -1\n", "seed: expected an integer in 0.."),
        (MINIMAL + "count: 0\n", "count: expected an integer in 1..1000000, found 0"),
        (MINIMAL + "rules: {border: 1}\n", "rules.border: expected true or false, found 1"),
        (MINIMAL + "generator: {strategy: shufle}\n", 'found "shufle": did you mean "shuffle"?'),
        (
            MINIMAL + "generator: {max_attempts: 0}\n",
            "generator.max_attempts: expected an integer in 1..",
        ),
        (MINIMAL + "verify: {nodes: 0}\n", "verify.nodes: expected an integer in 1.."),
        (
            MINIMAL + "export: {solutions: 'yes'}\n",
            'export.solutions: expected true or false, found "yes"',
        ),
        (MINIMAL + "board2: 1\n", 'did you mean "board"?'),
        (MINIMAL + "board: []\n", "duplicate key"),
        (
            "name: t\nboard: [2, 3]\ntiles: {types: 3, copies: 2}\n",
            "board: expected a mapping with keys rows, cols, layout, found a list",
        ),
    ],
)
def test_wrong_types_and_ranges(text, expected):
    assert expected in err(text)


@pytest.mark.parametrize(
    "old, new, path",
    [
        ("name: t", "name: t\nseed: true", "seed"),
        ("name: t", "name: t\ncount: yes", "count"),
        ("types: 3", "types: true", "tiles.types"),
        ("copies: 2", "copies: true", "tiles.copies"),
        ("name: t", "name: t\nverify: {nodes: true}", "verify.nodes"),
        ("name: t", "name: t\ndifficulty: {initial_moves: [true, null]}", "initial_moves[0]"),
    ],
)
def test_bool_is_not_an_int_anywhere(old, new, path):
    # Python's bool is an int subclass; YAML's yes/true must not pass as 1.
    msg = err(MINIMAL.replace(old, new))
    assert f"{path}: expected" in msg and "found true" in msg


def test_missing_required_keys():
    assert (
        err("board: {rows: 2, cols: 3}\ntiles: {types: 3, copies: 2}\n")
        == 't.yaml: missing required key "name" in the top level'
    )
    assert (
        err("name: t\nboard: {rows: 2}\ntiles: {types: 3, copies: 2}\n")
        == 't.yaml:2: missing required key "cols" in board'
    )
    assert "found neither" in err("name: t\nboard: {rows: 2, cols: 3}\ntiles: {copies: 2}\n")


@pytest.mark.parametrize(
    "text, expected",
    [
        (
            "",
            "t.yaml: expected a mapping of spec keys (name, board, tiles, ...), found an empty document",
        ),
        ("- 1\n", "found a list"),
        ("just text", 'found "just text"'),
        ("a: [1, 2\n", "t.yaml:2:1: invalid YAML:"),
        ("a: b: c\n", "t.yaml:1:5: invalid YAML: mapping values are not allowed here"),
        (
            "--- 1\n--- 2\n",
            "t.yaml:2:1: invalid YAML: but found another document (expected a single document",
        ),
        ("a: !!python/object:os.system x\n", "invalid YAML"),
        (
            "name: 2001-13-45\n",
            't.yaml:1:7: invalid YAML: cannot read "2001-13-45" as timestamp: month',
        ),
        ("a: !!int\n", 't.yaml:1:4: invalid YAML: cannot read "" as int'),
        ("a: !!bool x\n", 'cannot read "x" as bool'),
        ("a: !!timestamp x\n", 'cannot read "x" as timestamp'),
        ("a: !!float\n", 'cannot read "" as float'),
        ("seed: " + "9" * 5000 + "\n", "as int: Exceeds the limit"),
        ("[" * 100_000, "t.yaml:1:33: invalid YAML: nested more than 32 levels deep"),
        ("- " * 5000, "nested more than 32 levels deep"),
        (
            "a:\n" + "".join(" " * (i + 1) + "b:\n" for i in range(40)),
            "nested more than 32 levels deep",
        ),
        ("? [1]\n: 2\n", "unhashable key"),
        ("!!seq x: 1\n", "t.yaml:1:1: invalid YAML: expected a sequence node, but found scalar"),
        ("a: {!!map x: 1}\n", "expected a mapping node, but found scalar"),
        ("a: &m {x: 1}\nb: {<<: [*m, 3]}\n", "expected a mapping for merging"),
        ("a: *nope\n", "t.yaml:1:4: invalid YAML: found undefined alias"),
        (
            "a: 1\n\x00",
            "t.yaml:2: invalid YAML: special characters are not allowed (character U+0000)",
        ),
    ],
    ids=lambda v: repr(v[:20]),
)
def test_unreadable_documents(text, expected):
    # Deep nesting is capped before PyYAML's quadratic scanner or recursive composer can bite.
    assert expected in err(text)


def test_bytes_and_files(tmp_path):
    assert err(b"name: \xff\n") == "t.yaml: expected UTF-8 text, found byte 0xff at offset 6"
    assert parse_spec(b"\xef\xbb\xbf" + MINIMAL.encode()) == parse_spec(MINIMAL)
    missing = tmp_path / "nope.yaml"
    with pytest.raises(SpecError, match=re.escape(f"{missing}: no such file")):
        load_spec(missing)
    with pytest.raises(SpecError, match=re.escape(f"{tmp_path}: is a directory, expected a YAML spec")):
        load_spec(tmp_path)


LAYOUT = """\
name: t
board:
  rows: 2
  cols: 3
  layout: |
{rows}tiles: {{types: 1, copies: {n}}}
"""


def layout_spec(rows: list[str], n: int = 4) -> str:
    return LAYOUT.format(rows="".join(f"    {r}\n" for r in rows), n=n)


def test_layout_row_of_wrong_length_is_located():
    assert err(layout_spec(["##.", "##"])) == (
        't.yaml:7: board.layout row 1: expected 3 characters (board.cols), found 2 in "##"'
    )


def test_layout_bad_character_is_located():
    assert err(layout_spec(["##.", "#x#"])) == (
        't.yaml:7: board.layout row 1, col 1 (0-based): expected "#" (tile cell), "." (empty) '
        'or "X" (wall), found "x"'
    )


def test_layout_wrong_number_of_rows():
    assert "board.layout: expected 2 lines (board.rows), found 3" in err(
        layout_spec(["##.", "#.#", "..."])
    )
    folded = layout_spec(["##.", "#.#"]).replace("layout: |", "layout: >")
    assert 'write the layout as a "|" block' in err(folded)


def test_layout_counts_only_hash_cells():
    assert parse_spec(layout_spec(["##X", "#.#"])).layout_cells()[0] == [
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 2),
    ]
    msg = err(layout_spec(["##X", "###"]))
    assert 'tiles: expected 5 tiles to fill the 5 "#" cells of board.layout, found 4' in msg


def test_tile_count_mismatch_gives_both_numbers():
    msg = err("name: t\nboard: {rows: 4, cols: 4}\ntiles: {types: 3, copies: 4}\n")
    assert (
        msg
        == "t.yaml:3: tiles: expected 16 tiles to fill the 4x4 board, found 12 (3 types x 4 copies)"
    )


@pytest.mark.parametrize("copies", ["3", "0", "-2", "true", "4.0"])
def test_copies_must_be_even_and_at_least_two(copies):
    assert "tiles.copies: expected an even integer in 2..4096" in err(
        f"name: t\nboard: {{rows: 2, cols: 3}}\ntiles: {{types: 1, copies: {copies}}}\n"
    )


@pytest.mark.parametrize(
    "dist, expected",
    [
        ("{1: 3, 2: 3}", "tiles.distribution.1: expected an even count"),
        ("{0: 6}", "expected type ids in 1..9999, found key 0"),
        ("{a: 6}", 'found key "a"'),
        ("{1: 4, '1': 2}", "tiles.distribution.1: type 1 is listed twice"),
        ("[2, 4]", "tiles.distribution: expected a non-empty mapping"),
    ],
)
def test_bad_distribution(dist, expected):
    assert expected in err(
        f"name: t\nboard: {{rows: 2, cols: 3}}\ntiles:\n  distribution: {dist}\n"
    )


def test_types_and_distribution_are_exclusive():
    assert "found both" in err(
        "name: t\nboard: {rows: 2, cols: 3}\ntiles: {types: 1, distribution: {1: 6}}\n"
    )


def test_bad_gravity():
    assert (
        'rules.gravity: expected one of none, down, up, left, right, found "dwn": did you mean "down"?'
        in err(MINIMAL + "rules: {gravity: dwn}\n")
    )
    # YAML 1.1 reads a bare "no" as false: say so rather than just "found false".
    assert "quote the value" in err(MINIMAL + "rules: {gravity: no}\n")


@pytest.mark.parametrize(
    "line, expected",
    [
        (
            "initial_moves: [5, 2]",
            "t.yaml:5: difficulty.initial_moves: expected min <= max, found [5, 2]",
        ),
        ("random_clear_rate: [0.9, 0.1]", "expected min <= max, found [0.9, 0.1]"),
        (
            "random_clear_rate: [0, 1.5]",
            "difficulty.random_clear_rate[1]: expected a number in 0..1 or null, found 1.5",
        ),
        ("random_clear_rate: [.nan, 1]", "found nan"),
        (
            "initial_moves: [1.5, null]",
            "difficulty.initial_moves[0]: expected an integer >= 0 or null, found 1.5",
        ),
        ("verify_nodes: [null]", "difficulty.verify_nodes: expected [min, max]"),
        ("verify_nodes: 5", "found 5"),
        ("playthroughs: 0", "difficulty.playthroughs: expected an integer in 1.."),
        ("random_clear_rat: [0, 1]", 'did you mean "random_clear_rate"?'),
    ],
)
def test_bad_difficulty(line, expected):
    assert expected in err(MINIMAL + "difficulty:\n  " + line + "\n")


# --------------------------------------------------------------------------- fuzzing

KEYS = (
    "name seed count board rows cols layout rules border gravity tiles types copies distribution "
    "generator strategy max_attempts difficulty initial_moves random_clear_rate verify_nodes "
    "playthroughs verify nodes export path solutions"
).split()

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.integers(min_value=-3, max_value=70)
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.text(max_size=20)
    | st.sampled_from(["none", "down", "shuffle", "constructive", "#.X\n##.\n", "t", "2001-01-01"])
)
keys = st.sampled_from(KEYS) | st.text(max_size=8) | st.integers(-2, 10)
documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(keys, inner, max_size=6),
    max_leaves=30,
)


def assert_spec_or_spec_error(payload, source: str) -> None:
    try:
        spec = parse_spec(payload, source=source)
    except SpecError as e:
        assert str(e).startswith(source), str(e)
        return
    tiles, walls = spec.layout_cells()
    assert len(spec.tile_multiset()) == len(tiles)
    assert all(count % 2 == 0 and count >= 2 for _, count in spec.tiles.distribution)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents)
def test_fuzz_random_yaml_documents(doc):
    assert_spec_or_spec_error(yaml.safe_dump(doc), "fuzz.yaml")


# Small but complete: every section present, so each mutation lands on a real check.
VALID = {
    "name": "m",
    "seed": 1,
    "count": 2,
    "board": {"rows": 2, "cols": 3, "layout": "#X#\n##.\n"},
    "rules": {"border": True, "gravity": "down"},
    "tiles": {"distribution": {1: 2, 2: 2}},
    "generator": {"strategy": "constructive", "max_attempts": 5},
    "difficulty": {
        "initial_moves": [1, None],
        "random_clear_rate": [0, 0.5],
        "verify_nodes": [None, 9],
        "playthroughs": 3,
    },
    "verify": {"nodes": 10},
    "export": {"path": "o.json", "solutions": False},
}
small_documents = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=6,
)


def _paths(d, prefix=()):
    for k, v in d.items():
        yield prefix + (k,)
        if isinstance(v, dict):
            yield from _paths(v, prefix + (k,))


PATHS = list(_paths(VALID))


def test_fuzz_starting_point_is_valid():
    assert parse_spec(yaml.safe_dump(VALID)).layout_cells()[1] == [(0, 1)]


@settings(max_examples=120, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(PATHS),
            st.sampled_from(["set", "delete", "add"]),
            small_documents,
            st.sampled_from(KEYS),
        ),
        min_size=1,
        max_size=3,
    )
)
def test_fuzz_mutated_valid_spec(mutations):
    # Random documents rarely get past the top level; mutating a valid spec reaches every check.
    doc = json.loads(json.dumps(VALID))
    for path, action, value, key in mutations:
        parent = doc
        for part in path[:-1]:
            parent = parent.get(part) if isinstance(parent, dict) else None
        if not isinstance(parent, dict):
            continue
        if action == "set":
            parent[path[-1]] = value
        elif action == "delete":
            parent.pop(path[-1], None)
        else:
            parent[key] = value
    assert_spec_or_spec_error(yaml.safe_dump(doc), "mutant.yaml")


@settings(max_examples=150, deadline=None)
@given(
    st.text(
        alphabet=st.sampled_from(list("name:board{}[]-,&*!|>#'\"\n ?.X0123456789tru"))
        | st.characters(),
        max_size=120,
    )
)
def test_fuzz_random_text(text):
    assert_spec_or_spec_error(text, "text.yaml")


# fmt: off
YAML_TOKENS = [
    "!!seq ", "!!map ", "!!set ", "!!omap ", "!!binary ", "!!timestamp ", "!!int ", "!!float ",
    "!!str ", "!!bool ", "!!null ", "!foo ", "&a ", "*a", "&b ", "*b", "<<: ", "? ", ": ", "- ",
    "[", "]", "{", "}", ", ", "\n", "  ", "    ", "|\n", ">\n", "#", ".", "X", "1", "-1", "4",
    "0x10", "1e3", ".nan", ".inf", "true", "no", "null", "~", "'", '"', "2001-13-45",
    "2001-01-01", "---\n", "...\n", "%YAML 1.1\n", "\t", "\x85",
] + KEYS
# fmt: on


@settings(max_examples=250, deadline=None)
@given(st.lists(st.sampled_from(YAML_TOKENS), max_size=40).map("".join))
def test_fuzz_yaml_token_soup(text):
    # Tags, anchors, merges and indentation in random combination reach PyYAML's corners
    # (unhashable tagged keys, bad merges, bad timestamps) that plain random text never does.
    assert_spec_or_spec_error(text, "soup.yaml")


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=120))
def test_fuzz_random_bytes(data):
    assert_spec_or_spec_error(data, "bytes.yaml")


@st.composite
def valid_specs(draw):
    rows, cols = draw(st.integers(1, 8)), draw(st.integers(2, 8))
    grid = [
        draw(st.lists(st.sampled_from("#.X"), min_size=cols, max_size=cols)) for _ in range(rows)
    ]
    cells = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] == "#"]
    if len(cells) % 2:
        r, c = cells.pop()
        grid[r][c] = "."
    if not cells:
        grid[0][0] = grid[0][1] = "#"
    pairs = max(len(cells), 2) // 2
    types = draw(st.integers(1, pairs))
    counts = {t: 2 for t in range(1, types + 1)}
    for _ in range(pairs - types):
        counts[draw(st.integers(1, types))] += 2
    doc = {
        "name": draw(st.from_regex(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,9}", fullmatch=True)),
        "seed": draw(st.integers(0, 2**63 - 1)),
        "count": draw(st.integers(1, 10_000)),
        "board": {
            "rows": rows,
            "cols": cols,
            "layout": "\n".join("".join(row) for row in grid) + "\n",
        },
        "rules": {
            "border": draw(st.booleans()),
            "gravity": draw(st.sampled_from(["none", "down", "up", "left", "right"])),
        },
        "tiles": {"distribution": counts},
        "difficulty": {
            "random_clear_rate": sorted(draw(st.lists(st.floats(0, 1), min_size=2, max_size=2)))
        },
    }
    return doc, pairs * 2


@settings(max_examples=40, deadline=None)
@given(valid_specs())
def test_valid_specs_are_accepted_and_round_trip(case):
    doc, n_tiles = case
    spec = parse_spec(yaml.safe_dump(doc), source="gen.yaml")
    assert len(spec.tile_multiset()) == len(spec.layout_cells()[0]) == n_tiles
    assert spec_from_dict(spec.to_dict()) == spec
    assert spec_from_dict(json.loads(json.dumps(spec.to_dict()))) == spec


# --------------------------------------------------------------------------- shipped specs by name


def test_the_shipped_specs_are_the_files_in_configs():
    assert shipped_specs() == sorted(p.stem for p in CONFIGS.glob("*.yaml"))
    assert set(SHIPPED) <= set(shipped_specs())
    for name in shipped_specs():
        assert load_spec_ref(name) == load_spec(CONFIGS / f"{name}.yaml")


def test_the_shipped_specs_are_listed_through_importlib_resources_when_not_a_folder(monkeypatch):
    # As from a zip: the package's folder cannot be listed.
    import types

    import llkgen.generation.limits as limits

    zipped = types.SimpleNamespace(__path__=[str(CONFIGS / "llkgen.zip" / "llkgen" / "specs")])
    monkeypatch.setattr(limits, "import_module", lambda name: zipped)
    assert shipped_specs() == sorted(p.stem for p in CONFIGS.glob("*.yaml"))


def test_a_file_wins_over_a_shipped_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "easy").write_text(MINIMAL)
    assert load_spec_ref("easy").name == "t"
    with pytest.raises(SpecError, match=r"^easy\.yaml: no such file$"):
        load_spec_ref("easy.yaml")  # a file name is never a shipped name


def test_a_directory_does_not_hide_a_shipped_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ramp").mkdir()
    (tmp_path / "mine").mkdir()
    assert load_spec_ref("ramp") == load_spec(CONFIGS / "ramp.yaml")
    with pytest.raises(SpecError, match=r"^mine: is a directory, expected a YAML spec$"):
        load_spec_ref("mine")  # not a shipped name: the directory is what the user named


def test_starter_spec_is_the_easy_spec_renamed():
    text = starter_spec("castle")
    spec = parse_spec(text)
    assert spec == dataclasses.replace(load_spec(CONFIGS / "easy.yaml"), name="castle",
                                       export=dataclasses.replace(spec.export, path="output/castle.json"))
    with pytest.raises(SpecError, match="expected a file-name-safe name"):
        starter_spec("../x")


# --------------------------------------------------------------------------- the name names files


@pytest.mark.parametrize("name", [".hid", "-x", ".", "..", "-", ".x-1", "a" * 101, "a b", "a/b", ""])
def test_a_name_that_cannot_name_level_files_is_refused_at_load(name):
    # Level ids are NAME-N, and the files layout names each file after its id: a name the
    # level files cannot start with is refused before any level is made, naming the key.
    msg = err(MINIMAL.replace("name: t", f"name: {json.dumps(name)}"))
    assert msg.startswith("t.yaml:1: name: expected a file-name-safe name of 1..100 characters from "
                          "A-Z a-z 0-9 _ . - (not starting with . or -), found ")
    with pytest.raises(SpecError, match=r"^NAME: expected a file-name-safe name .*\(not starting with \. or -\)"):
        starter_spec(name)


@given(st.text(alphabet="aZ09_.-/ ", min_size=1, max_size=102))
@settings(max_examples=300, deadline=None)
def test_a_spec_name_is_accepted_exactly_when_every_level_file_of_it_can_be_named(name):
    from llkgen.formats.packfiles import level_file_name
    from llkgen.generation.spec_model import MAX_COUNT

    def files_ok(level_id: str) -> bool:
        try:
            level_file_name(level_id)
        except ValueError:
            return False
        return True

    text = MINIMAL.replace("name: t", f"name: {json.dumps(name)}")
    try:
        spec = parse_spec(text)
    except SpecError:
        # Refused only for a name some layout could not use (within the 100-character cap).
        assert len(name) > 100 or not files_ok(f"{name}-1")
        return
    assert files_ok(f"{spec.name}-1") and files_ok(f"{spec.name}-{MAX_COUNT}")
    assert not spec.export.path.split("/")[-1].startswith((".", "-"))


def test_make_refuses_a_hidden_name_before_making_any_level(tmp_path, monkeypatch, capsys):
    from cli_runner import run_cli_in_process

    spec = tmp_path / "hid.yaml"
    spec.write_text(MINIMAL.replace("name: t", "name: .hid") + "export: {layout: files}\n")
    code, out, err_text = run_cli_in_process(["make", "--config", str(spec), "--out", str(tmp_path / "out"),
                                              "--jobs", "1"], monkeypatch, capsys)
    assert code == 1 and out == ""
    assert err_text.startswith(f"Error: {spec}:1: name: expected a file-name-safe name")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hid.yaml"]


def test_init_refuses_a_hidden_name(tmp_path, monkeypatch, capsys):
    from cli_runner import run_cli_in_process

    code, _, err_text = run_cli_in_process(["init", ".x", "--out", str(tmp_path)], monkeypatch, capsys)
    assert code == 2 and "not starting with . or -" in " ".join(err_text.split())
    assert list(tmp_path.iterdir()) == []
