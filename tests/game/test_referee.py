"""The referee, :func:`llkgen.game.referee.replay`, on hand-built boards with hand-derived answers:
legal and illegal moves, malformed input, and gravity applied after each move."""

from __future__ import annotations

import pytest

from llkgen.game.board import Board, Rules
from llkgen.game.gravity import apply_gravity
from llkgen.game.referee import ReplayResult, replay

ON, OFF = Rules(border=True), Rules(border=False)


# -- the referee ---------------------------------------------------------------------------------------
DEMO = Board.from_grid([[1, 2, 0, 2], [-1, 0, 0, 1], [3, 0, 0, 3]])
DEMO_SOLUTION = [[[0, 1], [0, 3]], [[0, 0], [1, 3]], [[2, 0], [2, 3]]]


def test_replay_accepts_a_good_solution():
    res = replay(DEMO, ON, DEMO_SOLUTION)
    assert isinstance(res, ReplayResult)
    assert res.ok and res.cleared and res.applied == 3
    assert res.error_index is None and res.reason is None
    assert res.final.is_cleared() and res.final.grid() == [[0, 0, 0, 0], [-1, 0, 0, 0], [0, 0, 0, 0]]
    assert res.paths == [[(0, 1), (0, 3)], [(0, 0), (0, 3), (1, 3)], [(2, 0), (2, 3)]]
    assert res.describe() == "all 3 moves are legal and the board is cleared"


def test_replay_accepts_tuples():
    moves = [((0, 1), (0, 3)), ((1, 3), (0, 0)), ((2, 3), (2, 0))]
    res = replay(DEMO, ON, moves)
    assert res.ok and res.cleared
    assert res.paths[1] == [(1, 3), (0, 3), (0, 0)]


def test_replay_partial_solution_is_ok_but_not_cleared():
    res = replay(DEMO, ON, [[[2, 0], [2, 3]]])
    assert res.ok and not res.cleared and res.applied == 1 and res.error_index is None
    assert res.final.grid() == [[1, 2, 0, 2], [-1, 0, 0, 1], [0, 0, 0, 0]]
    assert res.describe() == "all 1 moves are legal but 4 tiles remain"


def test_replay_of_nothing():
    res = replay(DEMO, ON, [])
    assert res.ok and not res.cleared and res.applied == 0 and res.final == DEMO


def _bad(board, rules, moves, index, *needles):
    res = replay(board, rules, moves)
    assert not res.ok and not res.cleared
    assert res.error_index == index and res.applied == index
    assert len(res.paths) == index
    for needle in needles:
        assert needle in res.reason, res.reason
    assert res.describe().startswith(f"move {index}: ")
    return res


def test_replay_rejects_wrong_type():
    res = _bad(DEMO, ON, [[[0, 0], [0, 1]]], 0, "different types (1 and 2)", "[0, 0]", "[0, 1]")
    assert res.final == DEMO


def test_replay_rejects_blocked_path():
    # The 1s are boxed in by the wall at (1,0) and the 2 at (0,3) until the 2s go.
    _bad(DEMO, ON, [[[0, 0], [1, 3]]], 0, "no path with at most two turns", "[0, 0]", "[1, 3]")


def test_replay_rejects_reused_cell():
    res = _bad(DEMO, ON, [[[0, 1], [0, 3]], [[0, 1], [0, 3]]], 1, "cell [0, 1] is empty")
    assert res.final.grid() == [[1, 0, 0, 0], [-1, 0, 0, 1], [3, 0, 0, 3]]


def test_replay_rejects_empty_and_wall_cells():
    _bad(DEMO, ON, [[[0, 2], [1, 1]]], 0, "cell [0, 2] is empty")
    _bad(DEMO, ON, [[[1, 0], [0, 0]]], 0, "cell [1, 0] is a wall")


def test_replay_rejects_same_cell_twice():
    _bad(DEMO, ON, [[[2, 3], [2, 0]], [[0, 0], [0, 0]]], 1, "both cells are [0, 0]", "two distinct tiles")


@pytest.mark.parametrize(
    "move, needle",
    [
        ([[0, 0], [3, 0]], "second cell [3, 0] is outside the 3x4 board"),
        ([[-1, 0], [0, 0]], "first cell [-1, 0] is outside the 3x4 board"),
        ([[0, 0], [0, 4]], "second cell [0, 4] is outside the 3x4 board"),
        ([[0, 0], [0, -1]], "second cell [0, -1] is outside"),
    ],
)
def test_replay_rejects_cells_outside_the_board(move, needle):
    _bad(DEMO, ON, [[[0, 1], [0, 3]], move], 1, needle)


@pytest.mark.parametrize(
    "move",
    [
        "ab",
        None,
        7,
        [[0, 1]],
        [[0, 1], [0, 3], [2, 0]],
        [[0, 1], [0]],
        [[0, 1], [0, 3, 1]],
        [[0, "1"], [0, 3]],
        [[0, 1.0], [0, 3]],
        [[0, True], [0, 3]],
        [None, [0, 3]],
        {"a": [0, 1], "b": [0, 3]},
    ],
    ids=repr,
)
def test_replay_rejects_malformed_moves(move):
    _bad(DEMO, ON, [[[2, 0], [2, 3]], move], 1, "expected a pair of cells [[r1, c1], [r2, c2]]")


def test_replay_stops_at_first_bad_move():
    res = _bad(DEMO, ON, [[[2, 0], [2, 3]], [[0, 0], [0, 0]], "junk", [[0, 1], [0, 3]]], 1, "both cells")
    assert res.final.grid() == [[1, 2, 0, 2], [-1, 0, 0, 1], [0, 0, 0, 0]]


# Under gravity down this board is at rest; removing the 3s lets the 2 at (0,1) fall to (1,1).
GRAVITY_BOARD = [
    [2, 2, 0, 0],
    [1, 3, 0, 1],
    [4, -1, 3, 4],
]
DOWN = Rules(border=False, gravity="down")
STILL = Rules(border=False, gravity="none")


def test_gravity_board_is_at_rest():
    b = Board.from_grid(GRAVITY_BOARD)
    assert apply_gravity(b, "down") == b


def test_replay_with_gravity_accepts_post_gravity_coordinates():
    moves = [[[1, 1], [2, 2]], [[0, 0], [1, 1]], [[1, 0], [1, 3]], [[2, 0], [2, 3]]]
    res = replay(Board.from_grid(GRAVITY_BOARD), DOWN, moves)
    assert res.ok and res.cleared and res.applied == 4
    assert res.paths == [
        [(1, 1), (1, 2), (2, 2)],
        [(0, 0), (0, 1), (1, 1)],
        [(1, 0), (1, 3)],
        [(2, 0), (1, 0), (1, 3), (2, 3)],
    ]


def test_replay_rejects_path_legal_only_before_gravity():
    moves = [[[1, 1], [2, 2]], [[1, 0], [1, 3]]]
    board = Board.from_grid(GRAVITY_BOARD)
    assert replay(board, STILL, moves).ok  # without gravity the 1s see each other
    res = _bad(board, DOWN, moves, 1, "no path", "[1, 0]", "[1, 3]")
    assert res.final.grid() == [[2, 0, 0, 0], [1, 2, 0, 1], [4, -1, 0, 4]]


def test_replay_rejects_cell_vacated_by_gravity():
    moves = [[[1, 1], [2, 2]], [[0, 0], [0, 1]]]
    board = Board.from_grid(GRAVITY_BOARD)
    assert replay(board, STILL, moves).ok
    _bad(board, DOWN, moves, 1, "cell [0, 1] is empty")


@pytest.mark.parametrize(
    "gravity, expected",
    [
        ("none", [[1, 0, 1], [0, 0, 0]]),
        ("down", [[0, 0, 0], [1, 0, 1]]),
        ("up", [[1, 0, 1], [0, 0, 0]]),
        ("left", [[1, 1, 0], [0, 0, 0]]),
        ("right", [[0, 1, 1], [0, 0, 0]]),
    ],
)
def test_replay_applies_the_rules_gravity_after_each_move(gravity, expected):
    board = Board.from_grid([[1, 2, 1], [0, 2, 0]])
    res = replay(board, Rules(border=False, gravity=gravity), [[[0, 1], [1, 1]]])
    assert res.ok and res.final.grid() == expected
