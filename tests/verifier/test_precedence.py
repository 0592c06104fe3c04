"""The precedence argument under gravity (:mod:`llkgen.verifier.precedence`) against the
brute-force oracle.

A set of tiles it names must never be removable: so a board (or a position reached in play)
on which it names one must be unsolvable, in every gravity direction, border on and off,
with walls and without. It must answer None on unsettled boards and without gravity, and it
must fire on a good share of the unsolvable boards, so that an argument that stopped firing
fails rather than passes vacuously. A deliberate fault (a neighbour forgotten) must be caught
by the same sweep.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import llkgen.verifier.precedence as precedence
from llkgen.game.board import Board, Rules
from llkgen.verifier.precedence import precedence_cycle

from oracle import brute_solve, oracle_gravity
from strategies import cases, equivalence, grid_text, positions_in_play, random_grid

GRAVITIES = ("down", "up", "left", "right")


def _cases(seed: int, n: int, gravity: str, walls: float) -> list[tuple[Board, Rules]]:
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        grid = random_grid(rng, max_rows=5, max_cols=6, max_tiles=16, max_types=4, wall_prob=walls, min_fill=0.7)
        board = Board.from_grid(oracle_gravity(grid, gravity))
        if board.tile_count:
            out.append((board, Rules(border=rng.random() < 0.5, gravity=gravity)))
    return out


def _sweep(gravity: str, n: int = 400) -> tuple[int, int, list[str]]:
    """(claims, unsolvable positions, wrong claims) over seeded boards and positions in play."""
    rng = random.Random(31)
    fired = unsolvable = 0
    wrong = []
    for board, rules in _cases(20261203 + len(gravity), n, gravity, walls=0.3):
        for position in positions_in_play(board, rules, rng, 3):
            truth = brute_solve(position.grid(), rules.border, rules.gravity)
            unsolvable += not truth
            cycle = precedence_cycle(position, rules)
            if cycle is None:
                continue
            fired += 1
            grid = position.grid()
            assert cycle.tiles and all(grid[r][c] > 0 for r, c in cycle.tiles)
            assert cycle.types == sorted({grid[r][c] for r, c in cycle.tiles})
            if truth:
                wrong.append(f"{cycle.tiles} named in a solvable position\n{grid_text(grid)}\n{rules}")
    return fired, unsolvable, wrong


@pytest.mark.parametrize("gravity", GRAVITIES)
def test_claims_only_on_unsolvable_positions(gravity):
    fired, unsolvable, wrong = _sweep(gravity)
    assert not wrong, wrong[0]
    assert fired > 0.2 * unsolvable and fired > 20, (fired, unsolvable)


@equivalence(200)
@given(case=cases(gravities=GRAVITIES, max_tiles=16, max_types=4, settle=True), seed=st.integers(0, 2**32 - 1))
def test_claims_only_on_unsolvable_drawn_positions(case, seed):
    """The sweep above on one drawn board and a few positions in play, so a failure shrinks."""
    grid, border, gravity = case
    board, rules = Board.from_grid(grid), Rules(border=border, gravity=gravity)
    assume(board.tile_count)
    for position in positions_in_play(board, rules, random.Random(seed), 3):
        cycle = precedence_cycle(position, rules)
        if cycle is not None:
            tiles = position.grid()
            assert cycle.tiles and all(tiles[r][c] > 0 for r, c in cycle.tiles)
            assert cycle.types == sorted({tiles[r][c] for r, c in cycle.tiles})
            assert not brute_solve(tiles, border, gravity), f"{cycle.tiles} named in a solvable position"


def test_a_forgotten_neighbour_is_caught(monkeypatch):
    """The deliberate fault: the neighbour on one side (to the right) is never looked at, so a
    tile beside an empty cell, or beside a partner, can be called held. The sweep above must
    find a solvable position on which the faulty argument makes a claim."""
    monkeypatch.setattr(precedence, "_neighbours", lambda grid, p: (p - grid.w, p + grid.w, p - 1, p - 1))
    wrong = [w for gravity in GRAVITIES for w in _sweep(gravity, 150)[2]]
    assert wrong


@pytest.mark.parametrize("border", [True, False])
def test_two_crossed_stacks_boxed_in(border):
    """The classic: X over Y beside Y over X, each type with only those tiles, boxed in by walls
    (so the ring does not matter): no move, and all four tiles are named."""
    grid = [[-1, -1, -1, -1],
            [-1, 1, 2, -1],
            [-1, 2, 1, -1],
            [-1, -1, -1, -1]]
    rules = Rules(border=border, gravity="down")
    cycle = precedence_cycle(Board.from_grid(grid), rules)
    assert cycle is not None and cycle.tiles == [(1, 1), (1, 2), (2, 1), (2, 2)] and cycle.types == [1, 2]
    assert not brute_solve(grid, border, "down")


def test_a_free_partner_does_not_save_a_held_one():
    """A type whose other tile is held holds the free one too: the 1 at the top left has an
    empty neighbour, but the only other 1 is walled in between the two 2s, which wait for it."""
    grid = [[1, 0, -1],
            [-1, -1, -1],
            [-1, 2, -1],
            [-1, 1, -1],
            [-1, 2, -1]]
    board = Board.from_grid(grid)
    rules = Rules(border=False, gravity="down")
    cycle = precedence_cycle(board, rules)
    assert cycle is not None and (0, 0) in cycle.tiles and cycle.types == [1, 2]
    assert not brute_solve(grid, False, "down")


def test_it_answers_none_where_it_does_not_argue():
    unsettled = Board.from_grid([[1, 2], [0, 0], [2, 1]])
    assert precedence_cycle(unsettled, Rules(border=False, gravity="down")) is None
    boxed = Board.from_grid([[1, 2], [2, 1]])
    assert precedence_cycle(boxed, Rules(border=False, gravity="none")) is None
    assert precedence_cycle(boxed, Rules(border=False, gravity="down")) is not None
    assert precedence_cycle(boxed, Rules(border=True, gravity="down")) is None  # the ring is open


@pytest.mark.parametrize("gravity", GRAVITIES)
def test_the_lock_test_keeps_every_tile_named(gravity):
    """The lock test of :mod:`llkgen.verifier.gravlock` proves at least as much: with the set
    kept, its relaxation finds no path out of a held tile and no partner beside it, so every
    tile named here is one it calls locked (the reason the argument is not a stage of
    ``auto``: docs/verifier.md, "Not a stage: the precedence argument")."""
    from llkgen.verifier.gravlock import gravity_locked

    fired = 0
    for board, rules in _cases(20261213 + len(gravity), 1500, gravity, walls=0.3):
        cycle = precedence_cycle(board, rules)
        if cycle is not None:
            fired += 1
            assert set(cycle.tiles) <= set(gravity_locked(board, rules)), f"{cycle}\n{board}\n{rules}"
    assert fired > 20, fired
