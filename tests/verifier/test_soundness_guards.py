"""Public functions refuse the inputs they are not sound for, instead of answering wrongly.

* The lock test (``root_lock``, ``locked_tiles``, ``root_partners``) argues that emptying cells
  only opens paths and that tiles never move; under gravity tiles slide, and it called solvable
  boards "locked" (253 of 1,617 on the board below). ``verify`` never runs it under gravity,
  but the names are public: under gravity each raises ``ValueError``.
* ``greedy_order`` promises an order that clears the board; that holds only for pairs that
  cover the board exactly, so other pairs raise ``ValueError``.
"""

from __future__ import annotations

import pytest

from llkgen.analysis.advice import greedy_order
from llkgen.game.board import Board, Gravity, Rules
from llkgen.game.grid import Grid
from llkgen.game.referee import replay
from llkgen.verifier import SOLVABLE, root_lock, verify
from llkgen.verifier.lock import locked_tiles, root_partners

#: Solvable under gravity down (border on): once the 1s are gone, the 2 at (1, 1) falls to
#: (2, 1) and links to the one at (0, 0). The lock test, which assumes tiles stay put, finds the
#: 2s locked behind their walls.
GRID = [[2, -1], [-1, 2], [1, 1]]
SLIDING = [g for g in Gravity if g != Gravity.NONE]


@pytest.mark.parametrize("gravity", SLIDING)
def test_root_lock_refuses_gravity(gravity):
    with pytest.raises(ValueError, match="only sound without gravity"):
        root_lock(Board.from_grid(GRID), Rules(gravity=gravity))


def test_root_lock_would_have_called_a_solvable_board_locked():
    """Why the guard is there: the board is solvable under gravity down, and the lock test,
    run on it regardless (gravity none is the same relaxation), names locked tiles."""
    board = Board.from_grid(GRID)
    assert verify(board, Rules(gravity="down")).status == SOLVABLE
    assert root_lock(board, Rules(gravity="none"))


@pytest.mark.parametrize("gravity", SLIDING)
def test_locked_tiles_and_root_partners_refuse_gravity(gravity):
    grid = Grid(Board.from_grid(GRID), Rules(gravity=gravity))
    with pytest.raises(ValueError, match="only sound without gravity"):
        root_partners(grid)
    alive, partners = root_partners(Grid(Board.from_grid(GRID), Rules()))  # positions are the same
    with pytest.raises(ValueError, match="only sound without gravity"):
        locked_tiles(grid, alive, partners)


def test_the_guards_let_gravity_none_through():
    board, rules = Board.from_grid(GRID), Rules()
    grid = Grid(board, rules)
    alive, partners = root_partners(grid)
    assert sorted(grid.cell(p) for p in locked_tiles(grid, alive, partners)) == root_lock(board, rules)


# -- greedy_order ---------------------------------------------------------------------------------
BOARD = Board.from_text("1 2 2 1\n3 . . 3")
COVER = [((0, 1), (0, 2)), ((0, 0), (0, 3)), ((1, 0), (1, 3))]


def test_greedy_order_clears_the_board_with_pairs_that_cover_it():
    order = greedy_order(BOARD, Rules(border=False), list(reversed(COVER)))
    assert order is not None and replay(BOARD, Rules(border=False), order).cleared


@pytest.mark.parametrize("pairs, message", [
    (COVER[:2], "hold 4 of the board's 6 tiles"),  # it used to return these two: the 3s stayed
    ([*COVER, ((0, 1), (0, 2))], "more than one pair"),
    ([((0, 1), (0, 2)), ((0, 0), (1, 0)), ((0, 3), (1, 3))], "joins types 1 and 3"),
    ([((0, 1), (0, 2)), ((0, 0), (0, 3)), ((1, 0), (1, 1))], "which is no tile"),
    ([((0, 1), (0, 2)), ((0, 0), (0, 3)), ((1, 0), (1, 4))], "which is no tile"),
])
def test_greedy_order_refuses_pairs_that_do_not_cover_the_board(pairs, message):
    with pytest.raises(ValueError, match=message):
        greedy_order(BOARD, Rules(border=False), pairs)


def test_greedy_order_refuses_gravity():
    with pytest.raises(ValueError, match="gravity"):
        greedy_order(BOARD, Rules(gravity="down"), COVER)
