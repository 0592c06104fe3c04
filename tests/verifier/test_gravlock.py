"""The lock test for gravity (:mod:`llkgen.verifier.gravlock`) against the brute-force oracle.

A tile it calls locked must never be removable: so a board (or a position reached in play)
with a locked tile must be unsolvable, in every gravity direction and ``none``, border on and
off, with walls and without. The test must also fire on a good share of the unsolvable boards,
so that one that stopped firing fails rather than passes vacuously.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from llkgen.game.board import Board, Rules
from llkgen.verifier import Budget, verify
from llkgen.verifier.gravlock import gravity_locked

from oracle import brute_solve, oracle_gravity
from paths import ROOT
from strategies import cases, equivalence, grid_text, positions_in_play, random_grid

GRAVITIES = ("down", "up", "left", "right", "none")

#: A real board (italankin/shisensho-base@0144c9e, CreateSolvableTest.kt, ``gravity``; 7x12,
#: border on, gravity down): the crossing pairs 16 17 / 17 16 in the bottom right corner lock.
ITALANKIN_GRAVITY = [
    [10, 2, 3, 9, 14, 12, 4, 5, 8, 6, 13, 12],
    [12, 10, 7, 2, 2, 7, 1, 3, 5, 14, 8, 9],
    [13, 3, 1, 12, 5, 11, 3, 8, 10, 12, 9, 6],
    [4, 14, 13, 2, 13, 4, 13, 4, 6, 11, 5, 2],
    [6, 6, 14, 5, 12, 11, 7, 10, 7, 14, 6, 4],
    [2, 9, 10, 11, 8, 10, 13, 1, 11, 4, 40, 41],
    [8, 8, 1, 9, 9, 7, 7, 11, 5, 14, 41, 40],
]


def _cases(seed: int, n: int, gravity: str, walls: float):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        grid = random_grid(rng, max_rows=5, max_cols=6, max_tiles=16, max_types=4, wall_prob=walls,
                           min_fill=0.7)
        if gravity != "none":
            grid = oracle_gravity(grid, gravity)
        board = Board.from_grid(grid)
        if board.tile_count:
            out.append((board, Rules(border=rng.random() < 0.5, gravity=gravity)))
    return out


@pytest.mark.parametrize("gravity", GRAVITIES)
def test_locked_tiles_only_on_unsolvable_positions(gravity):
    rng = random.Random(11)
    fired = unsolvable = checked = 0
    for board, rules in _cases(20261206 + len(gravity), 500, gravity, walls=0.4):
        for position in positions_in_play(board, rules, rng, 3):
            checked += 1
            locked = gravity_locked(position, rules)
            truth = brute_solve(position.grid(), rules.border, rules.gravity)
            unsolvable += not truth
            if locked:
                fired += 1
                assert not truth, (f"locked {locked} in a solvable position\n{grid_text(position.grid())}\n"
                                   f"{rules}\nroot\n{board}")
                grid = position.grid()
                assert all(grid[r][c] > 0 for r, c in locked)
    assert fired > 0.4 * unsolvable and fired > 30, (fired, unsolvable, checked)


@equivalence(200)
@given(case=cases(max_tiles=16, max_types=4, settle=True), seed=st.integers(0, 2**32 - 1))
def test_locked_tiles_only_on_unsolvable_drawn_positions(case, seed):
    """The sweep above on one drawn board and a few positions in play, so a failure shrinks."""
    grid, border, gravity = case
    board, rules = Board.from_grid(grid), Rules(border=border, gravity=gravity)
    assume(board.tile_count)
    for position in positions_in_play(board, rules, random.Random(seed), 3):
        locked = gravity_locked(position, rules)
        if locked:
            assert not brute_solve(position.grid(), border, gravity), f"locked {locked} in a solvable position"
            assert all(position.grid()[r][c] > 0 for r, c in locked)


@pytest.mark.parametrize("gravity", GRAVITIES[:4])
def test_wall_free_crowded_boards(gravity):
    """Boards without walls, full or nearly (the kind the random benchmark sets are), where
    the other gravity proofs never fire."""
    rng = random.Random(12)
    fired = unsolvable = 0
    for _ in range(400):
        rows, cols = rng.randint(2, 4), rng.randint(2, 5)
        cells = rows * cols
        k = rng.randint(cells * 3 // 4, cells) // 2 * 2
        types = rng.randint(2, max(2, k // 2))
        tiles = [1 + i // 2 % types for i in range(k)] + [0] * (cells - k)
        rng.shuffle(tiles)
        grid = oracle_gravity([tiles[r * cols:(r + 1) * cols] for r in range(rows)], gravity)
        board = Board.from_grid(grid)
        if not board.tile_count:
            continue
        rules = Rules(border=rng.random() < 0.7, gravity=gravity)
        truth = brute_solve(grid, rules.border, gravity)
        unsolvable += not truth
        if gravity_locked(board, rules):
            fired += 1
            assert not truth, f"locked tiles in a solvable board\n{grid_text(grid)}\n{rules}"
    assert fired > 0.3 * unsolvable and fired > 10, (fired, unsolvable)


def test_an_unsettled_board_is_refused():
    board = Board.from_text("1 .\n. 1")
    with pytest.raises(ValueError, match="settled"):
        gravity_locked(board, Rules(gravity="down"))
    assert gravity_locked(board, Rules(gravity="none")) == []


def test_the_real_board_with_crossing_pairs_in_a_corner():
    board = Board.from_grid(ITALANKIN_GRAVITY)
    rules = Rules(border=True, gravity="down")
    assert gravity_locked(board, rules) == [(5, 10), (5, 11), (6, 10), (6, 11)]
    verdict = verify(board, rules, Budget(nodes=10_000, seconds=None))
    assert verdict.status == "unsolvable" and verdict.stats["stage"] == "gravity-lock"


def test_move_search_runs_the_lock_test_on_its_root(monkeypatch):
    """With no dive and no wait the lock test runs on the root first: a board it locks ends
    the search as refuted, with the locked tiles; the search's verdict must be brute force's
    either way."""
    import llkgen.verifier.movesearch as movesearch
    from llkgen.verifier.movesearch import MoveSearch

    monkeypatch.setattr(movesearch, "LOCK_AFTER", 0)

    roots = decided = 0
    for gravity in GRAVITIES[:4]:
        for board, rules in _cases(20261207 + len(gravity), 150, gravity, walls=0.3):
            search = MoveSearch(board, rules, Budget(nodes=5000), dive=0, lock=True)
            found = search.search()
            truth = brute_solve(board.grid(), rules.border, gravity)
            assert (found is not None) == truth, f"{board}\n{rules}"
            if search.locked_root is not None:
                roots += 1
                assert found is None and search.locked_root == gravity_locked(board, rules)
            decided += 1
    assert roots > 20, (roots, decided)


@pytest.mark.parametrize("gravity", ("down", "up", "left", "right"))
@pytest.mark.parametrize("border", [True, False])
def test_crossed_pairs_at_the_gravity_side_lock_in_every_direction(gravity, border):
    # A B over B A against the gravity side, the last two of each type, and a free pair above:
    # neither crossed pair can link while the other stands, and nothing can move them.
    down = [[3, 0, 0, 3], [1, 2, 0, 0], [2, 1, 0, 0]]
    turn = {"down": lambda g: g, "up": lambda g: g[::-1],
            "left": lambda g: [list(r) for r in zip(*g[::-1])][::-1],
            "right": lambda g: [list(r) for r in zip(*g)]}[gravity]
    grid = oracle_gravity(turn(down), gravity)
    board, rules = Board.from_grid(grid), Rules(border=border, gravity=gravity)
    assert not brute_solve(grid, border, gravity)
    crossed = [(r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v in (1, 2)]
    assert gravity_locked(board, rules) == crossed


def test_the_real_gravity_boards_it_locks_are_the_unsolvable_ones():
    """On the 141 real gravity boards (``../shared/real-boards``) the test locks tiles at the
    root of exactly seven: italankin's three boards built around crossed pairs and four of its
    random 12x7 deals, none of which a game expects solvable, and all of which the move search
    refutes (or, for two of the first three, leaves undecided after 120 s)."""
    import json

    real = ROOT.parent / "shared" / "real-boards" / "all.jsonl"
    if not real.exists():
        pytest.skip("the real boards live beside the repository")
    locked = []
    for line in real.read_text().splitlines():
        rec = json.loads(line)
        if rec["gravity"] == "none":
            continue
        if gravity_locked(Board.from_grid(rec["grid"]), Rules(border=rec["border"], gravity=rec["gravity"])):
            assert rec.get("expected") != "solvable", rec["id"]
            locked.append(rec["id"])
    assert sorted(locked) == sorted(
        [f"italankin-fx-CreateSolvable-gravity{s}-0-down" for s in ("", "_pairs", "_smallGame")]
        + [f"italankin-gen-12x7-p1-random-s{i}-down" for i in range(4)])
