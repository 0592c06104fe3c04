"""The path rule, gravity and the referee checked against the plain oracle in tests/oracle.py.

The oracle enumerates every simple cell path with at most two turns (DFS over
(cell, direction, turns)); the library scans corner positions.  Two unrelated
methods agreeing on thousands of random boards is the evidence that
``find_path`` is right.  The oracle is itself checked first: against hand-worked
boards and against a third method (Dijkstra over (cell, direction)).
"""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from llkgen.game.board import Board, Rules
from llkgen.game.gravity import apply_gravity
from llkgen.game.path import find_path, removable_pairs
from llkgen.game.referee import replay

import oracle as O
from strategies import GRAVITIES, cases, grid_text, grids


def examples(n: int) -> settings:
    """Hypothesis settings: n examples, no per-example deadline (timings vary on CI)."""
    return settings(max_examples=n, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# Boards for path checks: sparser than solver boards so that long, winding links occur.
path_grids = grids(max_tiles=14, max_spare=6, settle=False)


def same_type_pairs(grid):
    """Every (a, b), a < b, of two tiles of one type."""
    cells = O.tile_cells(grid)
    return [(a, b) for i, a in enumerate(cells) for b in cells[i + 1:]
            if grid[a[0]][a[1]] == grid[b[0]][b[1]]]


# --------------------------------------------------------------------------- hand-worked boards

# (board text, a, b, border, expected (turns, length, corners) or None).  Each was worked out by
# hand; they pin the oracle before it is trusted and then pin the library.
HAND_CASES = [
    ("1 . 1", (0, 0), (0, 2), False, (0, 2, [(0, 0), (0, 2)])),
    ("1 1", (0, 0), (0, 1), False, (0, 1, [(0, 0), (0, 1)])),
    ("1\n1", (0, 0), (1, 0), False, (0, 1, [(0, 0), (1, 0)])),
    ("1 1", (0, 1), (0, 0), True, (0, 1, [(0, 1), (0, 0)])),
    # A wall between: no way round inside a one-row board...
    ("1 # 1", (0, 0), (0, 2), False, None),
    # ... but the ring above (row -1) and below (row 1) both work; row -1 sorts first.
    ("1 # 1", (0, 0), (0, 2), True, (2, 4, [(0, 0), (-1, 0), (-1, 2), (0, 2)])),
    ("1 2 1 2", (0, 0), (0, 2), True, (2, 4, [(0, 0), (-1, 0), (-1, 2), (0, 2)])),
    # Same column blocked by the 2: a U through column 1 inside, or through ring column -1.
    ("1 .\n2 .\n1 .\n2 .", (0, 0), (2, 0), False, (2, 4, [(0, 0), (0, 1), (2, 1), (2, 0)])),
    ("1 #\n2 #\n1 #\n2 #", (0, 0), (2, 0), True, (2, 4, [(0, 0), (0, -1), (2, -1), (2, 0)])),
    ("1 #\n2 #\n1 #\n2 #", (0, 0), (2, 0), False, None),
    # One turn; two corners possible, (0, 2) is the smaller.
    ("1 . .\n. . 1", (0, 0), (1, 2), False, (1, 3, [(0, 0), (0, 2), (1, 2)])),
    # One turn, only through (1, 0).
    ("1 # .\n. . 1", (0, 0), (1, 2), False, (1, 3, [(0, 0), (1, 0), (1, 2)])),
    # A B / B A: every route is blocked, with or without the ring.
    ("1 2\n2 1", (0, 0), (1, 1), False, None),
    ("1 2\n2 1", (0, 0), (1, 1), True, None),
    ("1 2\n2 1", (0, 1), (1, 0), True, None),
    # Needs three turns (right, down, right, down) inside the board: refused.
    ("1 . #\n# . #\n# . .\n# # 1", (0, 0), (3, 2), False, None),
    # The same corridor with the ring: still more than two turns every way.
    ("1 . #\n# . #\n# . .\n# # 1", (0, 0), (3, 2), True, None),
    # Shortest two-turn route wins over a longer one (ring row -1 vs. interior row 2).
    ("1 # 1\n. # .\n. . .", (0, 0), (0, 2), True, (2, 4, [(0, 0), (-1, 0), (-1, 2), (0, 2)])),
    ("1 # 1\n. # .\n. . .", (0, 0), (0, 2), False, (2, 6, [(0, 0), (2, 0), (2, 2), (0, 2)])),
    # Tiles of other types and walls block: up to the ring, across, then down into b's column is
    # stopped by the 2, and every other route needs a third turn.
    ("3 1 2\n# # 1\n3 2 #", (0, 1), (1, 2), True, None),
    ("3 1 2\n# . 1\n3 2 #", (0, 1), (1, 2), True, (1, 2, [(0, 1), (1, 1), (1, 2)])),
    # Round the outside: left into ring column -1, down, then right through the empty (2, 0).
    ("1 2\n2 #\n. 1", (0, 0), (2, 1), True, (2, 5, [(0, 0), (0, -1), (2, -1), (2, 1)])),
    ("1 2\n2 #\n. 1", (0, 0), (2, 1), False, None),
]


def _expected_hand(case):
    text, a, b, border, expected = case
    return O.parse(text), a, b, border, expected


@pytest.mark.parametrize("case", HAND_CASES, ids=lambda c: f"{c[0]!r}-{c[1]}-{c[2]}-b{int(c[3])}")
def test_oracle_hand_cases(case):
    grid, a, b, border, expected = _expected_hand(case)
    got = O.best_path(grid, a, b, border)
    assert got == expected
    assert O.min_cost_dijkstra(grid, a, b, border) == (None if expected is None else expected[:2])


@pytest.mark.parametrize("case", HAND_CASES, ids=lambda c: f"{c[0]!r}-{c[1]}-{c[2]}-b{int(c[3])}")
def test_find_path_hand_cases(case):
    grid, a, b, border, expected = _expected_hand(case)
    got = find_path(Board.from_grid(grid), a, b, Rules(border=border))
    assert got == (None if expected is None else expected[2])


def test_oracle_gravity_hand_cases():
    grid = O.parse("1 . # . 2\n. 3 . 4 #")
    assert O.oracle_gravity(grid, "right") == O.parse(". 1 # . 2\n. . 3 4 #")
    assert O.oracle_gravity(grid, "left") == O.parse("1 . # 2 .\n3 4 . . #")
    assert O.oracle_gravity(grid, "none") == grid
    col = O.parse("1 2\n. #\n. 3\n4 .")
    assert O.oracle_gravity(col, "down") == O.parse(". 2\n. #\n1 .\n4 3")
    assert O.oracle_gravity(col, "up") == O.parse("1 2\n4 #\n. 3\n. .")


@pytest.mark.parametrize("text, border, expected", [
    ("1 2\n2 1", True, []),
    ("1 2 . 2 1", False, [((0, 1), (0, 3))]),
    # Four copies of one type: of the six pairs, only neighbours link inside the board...
    ("1 1 # 1 1", False, [((0, 0), (0, 1)), ((0, 3), (0, 4))]),
    # ... and all six link once the ring is open (the wall is jumped via row -1).
    ("1 1 # 1 1", True, [((0, 0), (0, 1)), ((0, 0), (0, 3)), ((0, 0), (0, 4)),
                         ((0, 1), (0, 3)), ((0, 1), (0, 4)), ((0, 3), (0, 4))]),
])
def test_pairs_hand_cases(text, border, expected):
    grid = O.parse(text)
    assert O.oracle_pairs(grid, border) == expected
    moves = removable_pairs(Board.from_grid(grid), Rules(border=border))
    assert [(m.a, m.b) for m in moves] == expected


# --------------------------------------------------------------------------- oracle vs oracle


@examples(200)
@given(grid=grids(max_rows=4, max_cols=5, max_tiles=10, max_spare=6, settle=False))
def test_enumerator_agrees_with_dijkstra(grid):
    """Two unrelated oracles give the same minimum for every pair of non-wall cells."""
    rows, cols = len(grid), len(grid[0])
    cells = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] != -1]
    for border, a in itertools.product((False, True), cells):
        for b in cells:
            if b <= a:
                continue
            got = O.enumerate_paths(grid, a, b, border)
            assert got == O.min_cost_dijkstra(grid, a, b, border), (grid_text(grid), a, b, border)
            if got is not None:
                corners = O.best_path(grid, a, b, border)[2]
                assert O.check_polyline(grid, corners, a, b, border) is None


# --------------------------------------------------------------------------- find_path


def _check_library_path(grid, a, b, border, got):
    where = f"\n{grid_text(grid)}\na={a} b={b} border={border}"
    expected = O.best_path(grid, a, b, border)
    if expected is None:
        assert got is None, f"library links an unlinkable pair via {got}{where}"
        return
    assert got is not None, f"library misses the link {expected[2]}{where}"
    got = [tuple(p) for p in got]
    problem = O.check_polyline(grid, got, a, b, border)
    assert problem is None, f"illegal path {got}: {problem}{where}"
    assert O.polyline_cost(got) == expected[:2], f"path {got} not minimal; oracle {expected}{where}"
    assert got == expected[2], f"tie broken wrongly: {got}, oracle {expected[2]}{where}"


@examples(800)
@given(grid=path_grids, gravity=st.sampled_from(GRAVITIES))
def test_find_path_matches_enumerator(grid, gravity):
    board = Board.from_grid(grid)
    for border, (a, b) in itertools.product((False, True), same_type_pairs(grid)):
        rules = Rules(border=border, gravity=gravity)  # gravity must not matter to the path rule
        _check_library_path(grid, a, b, border, find_path(board, a, b, rules))
        _check_library_path(grid, b, a, border, find_path(board, b, a, rules))


@examples(150)
@given(grid=path_grids, border=st.booleans())
def test_find_path_refuses_non_pairs(grid, border):
    """Different types, empty cells, walls and a == b never link (find_path's docstring)."""
    board = Board.from_grid(grid)
    rules = Rules(border=border)
    rows, cols = len(grid), len(grid[0])
    cells = [(r, c) for r in range(rows) for c in range(cols)]
    for a in cells:
        for b in cells:
            va, vb = grid[a[0]][a[1]], grid[b[0]][b[1]]
            if a == b or va <= 0 or va != vb:
                assert find_path(board, a, b, rules) is None, (grid_text(grid), a, b)


# --------------------------------------------------------------------------- removable_pairs


@examples(500)
@given(grid=path_grids, border=st.booleans())
def test_removable_pairs_match_oracle(grid, border):
    moves = removable_pairs(Board.from_grid(grid), Rules(border=border))
    expected = O.oracle_pairs(grid, border)
    got = [(tuple(m.a), tuple(m.b)) for m in moves]
    assert got == expected, f"\n{grid_text(grid)}\nborder={border}"
    for m in moves:
        assert m.a < m.b
        _check_library_path(grid, tuple(m.a), tuple(m.b), border, m.path)


# --------------------------------------------------------------------------- gravity


@examples(600)
@given(grid=grids(max_tiles=30, settle=False))
def test_apply_gravity_matches_oracle(grid):
    board = Board.from_grid(grid)
    for gravity in GRAVITIES:
        got = apply_gravity(board, gravity)
        assert got.grid() == O.oracle_gravity(grid, gravity), f"\n{grid_text(grid)}\n{gravity}"
        assert (got.rows, got.cols) == (board.rows, board.cols)
    assert board.grid() == grid  # the input board is untouched


# --------------------------------------------------------------------------- referee


def _random_oracle_game(grid, border, gravity, rng):
    """Random oracle-legal moves until none is left; (moves, boards before each move, final)."""
    moves, before = [], []
    g = O.thaw(grid)
    while True:
        pairs = O.oracle_pairs(g, border)
        if not pairs:
            return moves, before, g
        a, b = rng.choice(pairs)
        if rng.random() < 0.5:
            a, b = b, a  # the referee must accept either order
        moves.append((a, b))
        before.append(g)
        g = O.apply_move(g, a, b, gravity)


def _illegal_move(g, border):
    """Some move the oracle refuses on g, or None if the board has no cells to misuse."""
    tiles = O.tile_cells(g)
    for a in tiles:
        for b in tiles:
            if a < b and g[a[0]][a[1]] == g[b[0]][b[1]] and not O.linkable(g, a, b, border):
                return (a, b)
    for a in tiles:
        for b in tiles:
            if g[a[0]][a[1]] != g[b[0]][b[1]]:
                return (a, b)
    rows, cols = len(g), len(g[0])
    others = [(r, c) for r in range(rows) for c in range(cols) if g[r][c] <= 0]
    if tiles and others:
        return (tiles[0], others[0])
    if tiles:
        return (tiles[0], tiles[0])
    return None


@examples(500)
@given(case=cases(max_tiles=16, settle=None), seed=st.integers(0, 2**32 - 1))
def test_replay_accepts_oracle_games(case, seed):
    grid, border, gravity = case
    rng = random.Random(seed)
    moves, before, final = _random_oracle_game(grid, border, gravity, rng)
    board, rules = Board.from_grid(grid), Rules(border=border, gravity=gravity)
    result = replay(board, rules, moves)
    where = f"\n{grid_text(grid)}\nborder={border} gravity={gravity} moves={moves}"
    assert result.ok, f"{result.reason} at {result.error_index}{where}"
    assert result.applied == len(moves)
    assert result.error_index is None
    assert result.final.grid() == final, where
    assert result.cleared == O.is_cleared(final)
    assert len(result.paths) == len(moves)
    for g, (a, b), path in zip(before, moves, result.paths):
        _check_library_path(g, a, b, border, path)

    # One illegal move appended: refused at exactly that index, board left as it was.
    bad = _illegal_move(final, border)
    if bad is not None:
        result = replay(board, rules, moves + [bad])
        assert not result.ok, f"accepted illegal {bad}{where}"
        assert result.error_index == len(moves)
        assert result.applied == len(moves)
        assert result.final.grid() == final
        assert not result.cleared
        assert result.reason


def test_replay_refuses_moves_on_hand_board():
    board = Board.from_grid(O.parse("1 2 . 2 1"))
    rules = Rules(border=False, gravity="none")
    assert not replay(board, rules, [((0, 0), (0, 4))]).ok  # blocked by the 2s
    assert not replay(board, rules, [((0, 0), (0, 1))]).ok  # different types
    assert not replay(board, rules, [((0, 2), (0, 1))]).ok  # empty cell
    assert not replay(board, rules, [((0, 1), (0, 1))]).ok  # same cell
    ok = replay(board, rules, [((0, 1), (0, 3)), ((0, 0), (0, 4))])
    assert ok.ok and ok.cleared and ok.applied == 2
    # With gravity left, the 1s end up adjacent at (0, 0) and (0, 1).
    rules = Rules(border=False, gravity="left")
    res = replay(board, rules, [((0, 1), (0, 3)), ((0, 0), (0, 1))])
    assert res.ok and res.cleared
    assert not replay(board, rules, [((0, 1), (0, 3)), ((0, 0), (0, 4))]).ok
