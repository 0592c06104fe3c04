"""The board model and gravity: construction, views, the text form, and exact gravity results.

Every expected grid below was worked out by hand from the rules (tiles slide towards the gravity
side, walls stay put and split a line into runs that compact independently, order is kept).
"""

from __future__ import annotations

import pytest

from llkgen.errors import LevelFormatError, LlkgenError
from llkgen.game.board import EMPTY, GRAVITIES, MAX_SIDE, WALL, Board, Rules
from llkgen.game.gravity import apply_gravity


# -- construction and views -------------------------------------------------------------------
def test_constants():
    assert (EMPTY, WALL, MAX_SIDE) == (0, -1, 64)
    assert GRAVITIES == ("none", "down", "up", "left", "right")
    assert issubclass(LevelFormatError, LlkgenError) and issubclass(LlkgenError, ValueError)
    assert LlkgenError.exit_code == 1


def test_from_grid_and_views():
    b = Board.from_grid([[1, 2, 0, 2], [-1, 0, 0, 1], [3, 0, 0, 3]])
    assert (b.rows, b.cols) == (3, 4)
    assert b.cells == (1, 2, 0, 2, -1, 0, 0, 1, 3, 0, 0, 3)
    assert b[0, 0] == 1 and b[1, 0] == WALL and b[1, 1] == EMPTY and b[2, 3] == 3
    assert b.grid() == [[1, 2, 0, 2], [-1, 0, 0, 1], [3, 0, 0, 3]]
    assert b.tiles() == [(0, 0), (0, 1), (0, 3), (1, 3), (2, 0), (2, 3)]
    assert b.tile_count == 6
    assert b.types() == {1: [(0, 0), (1, 3)], 2: [(0, 1), (0, 3)], 3: [(2, 0), (2, 3)]}
    assert list(b.types()) == [1, 2, 3]
    assert not b.is_cleared()


def test_types_sorted_ascending_even_when_first_seen_later():
    b = Board.from_grid([[7, 3], [3, 7]])
    assert list(b.types()) == [3, 7]
    assert b.types()[3] == [(0, 1), (1, 0)]


@pytest.mark.parametrize("rc", [(-1, 0), (0, -1), (2, 0), (0, 2), (5, 5)])
def test_getitem_outside_raises_index_error(rc):
    b = Board.from_grid([[1, 1], [0, 0]])
    with pytest.raises(IndexError, match="outside a 2x2 board"):
        b[rc]


def test_in_bounds():
    b = Board.from_grid([[1, 1, 0]])
    assert b.in_bounds((0, 2)) and not b.in_bounds((1, 0)) and not b.in_bounds((0, -1))


def test_walls_only_board_is_cleared():
    b = Board.from_grid([[-1, 0], [0, -1]])
    assert b.is_cleared() and b.tile_count == 0 and b.tiles() == [] and b.types() == {}


def test_set_cells_returns_new_board_and_keeps_original():
    b = Board.from_grid([[1, 1], [2, 2]])
    c = b.set_cells({(0, 0): 0, (0, 1): 0})
    assert c.grid() == [[0, 0], [2, 2]]
    assert b.grid() == [[1, 1], [2, 2]]
    assert c.set_cells({(1, 0): 0, (1, 1): 0}).is_cleared()


def test_board_is_hashable_and_compares_by_value():
    a = Board.from_grid([[1, 0, 1]])
    b = Board.from_text("1 . 1")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1


def test_max_side_board_is_accepted():
    grid = [[0] * MAX_SIDE for _ in range(MAX_SIDE)]
    grid[0][0] = grid[MAX_SIDE - 1][MAX_SIDE - 1] = 5
    b = Board.from_grid(grid)
    assert (b.rows, b.cols, b.tile_count) == (64, 64, 2)


@pytest.mark.parametrize(
    "grid, message",
    [
        ([[1, 1], [2]], "grid row 1: ragged rows: expected 2 cells like row 0, found 1"),
        ([[1, 2], [2, 2]], "every tile type must occur an even number of times, but type 1 occurs 1 times"),
        ([[1, 1, 3], [3, 3, 0]], "type 3 occurs 3 times"),
        ([[1, -2], [1, 0]], "grid row 0 col 1: expected -1 (wall), 0 (empty) or a tile type >= 1, found -2"),
        ([[1, True], [1, 0]], "grid row 0 col 1: expected an integer cell value, found boolean true"),
        ([[1, 1.0], [1, 0]], "grid row 0 col 1: expected an integer cell value, found number 1.0"),
        ([[1, "1"]], "grid row 0 col 1: expected an integer cell value, found string '1'"),
        ([[1, None]], "grid row 0 col 1: expected an integer cell value, found null"),
        ([[1, 10000], [1, 10000]], "grid row 0 col 1: expected a tile type <= 9999, found 10000"),
        ([], "grid: expected at least one row, found none"),
        ([[]], "grid row 0: expected at least one cell, found none"),
        ("1 1", "grid: expected a list of rows, found string '1 1'"),
        ([[1, 1], 5], "grid row 1: expected a list of cells, found number 5"),
        ([[0]] * 65, "grid: board too large: the cap is 64x64, found 65x1"),
        ([[0] * 65], "grid: board too large: the cap is 64x64, found 1x65"),
    ],
)
def test_from_grid_rejects_with_precise_message(grid, message):
    with pytest.raises(LevelFormatError) as info:
        Board.from_grid(grid)
    assert message in str(info.value)


# -- text form ---------------------------------------------------------------------------------
def test_to_text_exact():
    b = Board.from_grid([[1, 2, 0, 2], [-1, 0, 0, 1], [3, 0, 0, 3]])
    assert b.to_text() == "1 2 . 2\n# . . 1\n3 . . 3"
    assert str(b) == b.to_text()


def test_to_text_pads_wide_types_and_round_trips():
    b = Board.from_grid([[12, 0, -1], [12, 7, 7]])
    assert b.to_text() == "12  .  #\n12  7  7"
    assert Board.from_text(b.to_text()) == b


def test_from_text_ignores_blank_lines_and_extra_whitespace():
    b = Board.from_text("\n  1\t.  1 \n\n # 2 2\n")
    assert b.grid() == [[1, 0, 1], [-1, 2, 2]]


@pytest.mark.parametrize(
    "text, message",
    [
        ("1 x 1", "text line 1: expected '.', '#' or a tile type from 1 to 9999, found 'x'"),
        ("1 1\n0 .", "text line 2: expected '.', '#' or a tile type from 1 to 9999, found '0'"),
        ("1 -1 1", "found '-1'"),
        ("1 1\n2", "ragged rows"),
        ("1 2", "type 1 occurs 1 times"),
        ("", "expected at least one row"),
    ],
)
def test_from_text_rejects(text, message):
    with pytest.raises(LevelFormatError) as info:
        Board.from_text(text)
    assert message in str(info.value)


def test_from_text_superscript_digit_is_a_format_error():
    with pytest.raises(LevelFormatError):
        Board.from_text("\u00b2 \u00b2")


def test_from_text_huge_number_is_a_format_error():
    with pytest.raises(LevelFormatError):
        Board.from_text(("9" * 5000 + " ") * 2)


def test_text_json_text_round_trip():
    text = "1 2 . 2\n# . . 1\n3 . . 3"
    b = Board.from_text(text)
    assert Board.from_grid(b.grid()) == b
    assert Board.from_grid(b.grid()).to_text() == text


# -- rules --------------------------------------------------------------------------------------
def test_rules_defaults_and_json():
    assert Rules() == Rules(border=True, gravity="none")
    assert Rules(False, "down").to_json() == {"border": False, "gravity": "down"}
    assert Rules(False, "left").describe() == "border=off, gravity=left"


@pytest.mark.parametrize(
    "kw, message",
    [
        ({"border": 1}, "rules.border: expected true or false, found 1"),
        ({"border": "yes"}, "rules.border: expected true or false, found 'yes'"),
        ({"gravity": "sideways"}, "rules.gravity: expected one of none, down, up, left, right, found 'sideways'"),
        ({"gravity": "Down"}, "found 'Down'"),
    ],
)
def test_rules_reject(kw, message):
    with pytest.raises(LevelFormatError) as info:
        Rules(**kw)
    assert message in str(info.value)


# -- gravity ------------------------------------------------------------------------------------
# Two walls: (1, 2) splits column 2 and (3, 0) splits column 0 and row 3.
GRAVITY_BOARD = [
    [1, 0, 2],
    [0, 1, -1],
    [2, 0, 0],
    [-1, 0, 3],
    [0, 3, 0],
]

GRAVITY_EXPECTED = {
    "none": GRAVITY_BOARD,
    "down": [
        [0, 0, 2],   # col 2: the 2 sits on the wall's own run (row 0 alone) and stays
        [1, 0, -1],
        [2, 0, 0],   # col 0: run rows 0-2 [1, ., 2] -> [., 1, 2], kept above the wall
        [-1, 1, 0],
        [0, 3, 3],   # col 2: run rows 2-4 [., 3, .] -> [., ., 3]
    ],
    "up": [
        [1, 1, 2],
        [2, 3, -1],
        [0, 0, 3],   # col 2: run below the wall rises to row 2, not past the wall
        [-1, 0, 0],
        [0, 0, 0],   # col 0: nothing crosses the wall at (3, 0)
    ],
    "left": [
        [1, 2, 0],
        [1, 0, -1],
        [2, 0, 0],
        [-1, 3, 0],  # the 3 stops at the wall
        [3, 0, 0],
    ],
    "right": [
        [0, 1, 2],
        [0, 1, -1],  # run cols 0-1 compacts against the wall at col 2
        [0, 0, 2],
        [-1, 0, 3],
        [0, 0, 3],
    ],
}


@pytest.mark.parametrize("gravity", GRAVITIES)
def test_gravity_exact(gravity):
    b = Board.from_grid(GRAVITY_BOARD)
    after = apply_gravity(b, gravity)
    assert after.grid() == GRAVITY_EXPECTED[gravity]
    assert b.grid() == GRAVITY_BOARD  # the input board is untouched
    assert sorted(after.cells) == sorted(b.cells)
    assert apply_gravity(after, gravity) == after  # at rest stays at rest


@pytest.mark.parametrize(
    "gravity, expected",
    [
        ("left", [[1, 2, 0, -1, 2, 1, 0, -1, 3, 3]]),
        ("right", [[0, 1, 2, -1, 0, 2, 1, -1, 3, 3]]),
        ("down", [[1, 2, 0, -1, 0, 2, 1, -1, 3, 3]]),
        ("up", [[1, 2, 0, -1, 0, 2, 1, -1, 3, 3]]),
    ],
)
def test_gravity_row_split_by_walls_keeps_order(gravity, expected):
    b = Board.from_grid([[1, 2, 0, -1, 0, 2, 1, -1, 3, 3]])
    assert apply_gravity(b, gravity).grid() == expected


@pytest.mark.parametrize(
    "gravity, expected",
    [
        ("down", [[0], [4], [5], [-1], [0], [0], [4], [5]]),
        ("up", [[4], [5], [0], [-1], [4], [5], [0], [0]]),
    ],
)
def test_gravity_column_split_by_wall_keeps_order(gravity, expected):
    b = Board.from_grid([[4], [0], [5], [-1], [0], [4], [0], [5]])
    assert apply_gravity(b, gravity).grid() == expected


def test_gravity_none_returns_same_board():
    b = Board.from_grid([[1, 0], [0, 1]])
    assert apply_gravity(b, "none") is b


def test_gravity_rejects_unknown_direction():
    b = Board.from_grid([[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="sideways"):
        apply_gravity(b, "sideways")
