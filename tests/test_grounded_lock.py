"""The grounded lock (:mod:`llkgen.verifier.grounded`) against the brute-force oracle.

It claims a board can never be cleared; the oracle must agree every time it fires: on seeded
small boards in every gravity direction, border on and off, walls on some, and at positions
reached by random play from them (the test reads any settled position, not only a dealt one).
Each sample must see it fire on a good share of its unsolvable boards, so a rule that stopped
firing fails here rather than passing vacuously.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from llkgen.game.board import Board, Rules
from llkgen.game.grid import Grid
from llkgen.game.playout import Playout
from llkgen.verifier import Budget, verify
from llkgen.verifier.grounded import closure, grounded_lock

from oracle import brute_solve, oracle_gravity

DIRECTIONS = ("down", "up", "left", "right")
REAL = Path(__file__).resolve().parents[2] / "shared" / "real-boards" / "all.jsonl"


def _pairs_board(rng: random.Random) -> tuple[list[list[int]], bool, str]:
    """A settled small board of 2-tile types (the crossed pairs the lock is about need few
    copies), walls on four in ten, border on half, any direction."""
    rows, cols = rng.randint(2, 5), rng.randint(2, 6)
    free = [(r, c) for r in range(rows) for c in range(cols)]
    rng.shuffle(free)
    grid = [[0] * cols for _ in range(rows)]
    if rng.random() < 0.4:
        for _ in range(rng.randint(1, max(1, rows * cols // 5))):
            r, c = free.pop()
            grid[r][c] = -1
    n = len(free) // 2 * 2 if rng.random() < 0.5 else min(len(free) // 2 * 2, 2 * rng.randint(1, 6))
    types = rng.randint(1, max(1, n // 2))
    tiles = [1 + (j // 2) % types for j in range(n)]
    rng.shuffle(tiles)
    for t in tiles:
        r, c = free.pop()
        grid[r][c] = t
    gravity = rng.choice(DIRECTIONS)
    return oracle_gravity(grid, gravity), rng.random() < 0.5, gravity


@pytest.mark.parametrize("seed", range(3))
def test_a_grounded_lock_is_never_claimed_on_a_board_that_can_be_cleared(seed):
    rng = random.Random(f"grounded/{seed}")
    fired = unsolvable = 0
    for _ in range(800):
        grid, border, gravity = _pairs_board(rng)
        board, rules = Board.from_grid(grid), Rules(border=border, gravity=gravity)
        if not board.tile_count:
            continue
        truth = brute_solve(grid, border, gravity)
        unsolvable += not truth
        lock = grounded_lock(Grid(board, rules), rules)
        if lock is not None:
            fired += 1
            assert not truth, (grid, border, gravity, lock)
            types, cells = lock
            assert cells and all(grid[r][c] in types for r, c in cells)
    assert fired >= unsolvable // 4 and fired >= 20, (fired, unsolvable)


@pytest.mark.parametrize("gravity", DIRECTIONS)
def test_positions_reached_in_play_are_judged_like_the_oracle_judges_them(gravity):
    rng = random.Random(f"grounded-play/{gravity}")
    fired = 0
    for _ in range(250):
        grid, border, _ = _pairs_board(rng)
        grid = oracle_gravity(grid, gravity)
        board, rules = Board.from_grid(grid), Rules(border=border, gravity=gravity)
        play = Playout(board, rules)
        while True:
            here = play.grid.to_board()
            lock = grounded_lock(Grid(here, rules), rules)
            if lock is not None:
                fired += 1
                assert not brute_solve(here.grid(), border, gravity), (here.grid(), border, gravity, lock)
            moves = play.moves()
            if not moves:
                break
            play.remove(*moves[rng.randrange(len(moves))])
    assert fired >= 20


@pytest.mark.parametrize("gravity", DIRECTIONS)
@pytest.mark.parametrize("border", [True, False])
def test_crossed_pairs_at_the_gravity_side_are_locked_in_every_direction(gravity, border):
    # A B over B A against the bottom, the last two of each type, with a free tile pair above:
    # neither pair links while the other stands, and nothing can move them.
    down = [[3, 0, 0, 3], [1, 2, 0, 0], [2, 1, 0, 0]]
    turn = {"down": lambda g: g, "up": lambda g: g[::-1],
            "left": lambda g: [list(r) for r in zip(*g[::-1])][::-1],
            "right": lambda g: [list(r) for r in zip(*g)]}[gravity]
    grid = oracle_gravity(turn(down), gravity)
    board, rules = Board.from_grid(grid), Rules(border=border, gravity=gravity)
    assert not brute_solve(grid, border, gravity)
    assert grounded_lock(Grid(board, rules), rules) == ([1, 2], sorted(
        (r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v in (1, 2)))
    verdict = verify(board, rules, Budget(nodes=1))
    assert verdict.status == "unsolvable" and verdict.stats["stage"] == "grounded-lock"
    assert verdict.proof["argument"] == "grounded-lock" and verdict.proof["types"] == [1, 2]


def test_the_test_declines_what_it_is_not_for():
    rules = Rules(border=True, gravity="down")
    floating = Board.from_grid([[1, 2], [0, 0], [2, 1]])  # not settled: the first move drops the top row
    assert grounded_lock(Grid(floating, rules), rules) is None
    with pytest.raises(ValueError, match="under gravity"):
        grounded_lock(Grid(floating, Rules()), Rules())
    # A tile high in its run pulls the whole run beneath it in; past the cap the type is skipped.
    tall = Board.from_grid([[1], [2], [3], [4], [1], [2], [3], [4]])
    grid = Grid(tall, rules)
    assert closure(grid, 1, grid.by_type(), limit=3) is None
    assert closure(grid, 4, grid.by_type())[0] == {1, 2, 3, 4}


@pytest.mark.skipif(not REAL.exists(), reason="the real boards live beside the repository")
def test_the_real_boards_built_around_crossed_pairs_are_refuted_at_the_root():
    """italankin's engine tests its solvable-board builder on three boards built around a
    crossed block; the move search alone left two of them undecided after 120 s. On every
    other real gravity board the lock stays silent: the games' own expected verdicts say
    solvable for some of them, and a lock there would be a wrong verdict."""
    fired = []
    for line in REAL.read_text().splitlines():
        rec = json.loads(line)
        if rec["gravity"] == "none":
            continue
        board, rules = Board.from_grid(rec["grid"]), Rules(border=rec["border"], gravity=rec["gravity"])
        if grounded_lock(Grid(board, rules), rules) is not None:
            fired.append(rec["id"])
            assert rec.get("expected") != "solvable"
            assert verify(board, rules, Budget(nodes=1)).status == "unsolvable"
    assert sorted(fired) == ["italankin-fx-CreateSolvable-gravity-0-down",
                             "italankin-fx-CreateSolvable-gravity_pairs-0-down",
                             "italankin-fx-CreateSolvable-gravity_smallGame-0-down"]
