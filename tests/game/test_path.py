"""The path rule (:func:`llkgen.game.path.find_path`, :func:`llkgen.game.path.removable_pairs`) on hand-built
boards with hand-derived answers, and the perft fixture's pinned pair counts.

Each expected path was worked out by hand; ``_brute_paths`` (a plain walk over every polyline,
knowing nothing of the library's reach/corner scan) double-checks the claims "no path with two
turns exists" and "a path with three turns does", so those tests cannot pass vacuously.
"""

from __future__ import annotations

import pytest

from llkgen.formats.level import solution_json
from llkgen.formats.load import load_pack
from llkgen.game.board import Board, Rules
from llkgen.game.path import Move, find_path, length, removable_pairs, turns
from llkgen.outputs import drawn_json

from paths import DATA

ON, OFF = Rules(border=True), Rules(border=False)

# -- an independent brute force ------------------------------------------------------------------
_DIRS = ((-1, 0), (1, 0), (0, -1), (0, 1))


def _passable(grid, cell, border):
    rows, cols = len(grid), len(grid[0])
    r, c = cell
    if 0 <= r < rows and 0 <= c < cols:
        return grid[r][c] == 0
    return border and -1 <= r <= rows and -1 <= c <= cols


def _brute_paths(grid, a, b, border, max_turns):
    """Every polyline from a to b with at most ``max_turns`` turns through passable cells, as
    ``(turns, length, corners)``."""
    out = []

    def walk(cell, prev, t0, corners, dist):
        for d in _DIRS:
            if prev is not None and d in (prev, (-prev[0], -prev[1])):
                continue
            t = t0 + (prev is not None)
            if t > max_turns:
                continue
            r, c = cell
            k = 0
            while True:
                r, c, k = r + d[0], c + d[1], k + 1
                if (r, c) == b:
                    out.append((t, dist + k, corners + [b]))
                    break
                if not _passable(grid, (r, c), border):
                    break
                walk((r, c), d, t, corners + [(r, c)], dist + k)

    walk(a, None, 0, [a], 0)
    return out


def _brute_best(grid, a, b, border):
    paths = _brute_paths(grid, a, b, border, 2)
    return min(paths)[2] if paths else None


def _brute_pairs(grid, border):
    cells = [(r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v > 0]
    return [
        (a, b)
        for i, a in enumerate(cells)
        for b in cells[i + 1 :]
        if grid[a[0]][a[1]] == grid[b[0]][b[1]] and _brute_paths(grid, a, b, border, 2)
    ]


def _path(grid, a, b, rules):
    """find_path, cross-checked against the brute force before the test compares it."""
    got = find_path(Board.from_grid(grid), a, b, rules)
    assert got == _brute_best(grid, a, b, rules.border)
    return got


# -- basic linkability ------------------------------------------------------------------------------
@pytest.mark.parametrize("rules", [ON, OFF], ids=["border", "no-border"])
def test_crossed_pairs_have_no_moves_with_or_without_border(rules):
    grid = [[1, 2], [2, 1]]
    board = Board.from_grid(grid)
    assert removable_pairs(board, rules) == []
    assert find_path(board, (0, 0), (1, 1), rules) is None
    assert find_path(board, (0, 1), (1, 0), rules) is None
    assert _brute_pairs(grid, rules.border) == []


@pytest.mark.parametrize("rules", [ON, OFF], ids=["border", "no-border"])
def test_one_gap_in_a_row_links_straight(rules):
    assert _path([[1, 0, 1]], (0, 0), (0, 2), rules) == [(0, 0), (0, 2)]
    assert _path([[1, 0, 1]], (0, 2), (0, 0), rules) == [(0, 2), (0, 0)]


def test_adjacent_tiles_link():
    assert find_path(Board.from_grid([[1, 1]]), (0, 0), (0, 1), OFF) == [(0, 0), (0, 1)]
    assert find_path(Board.from_grid([[1], [1]]), (0, 0), (1, 0), OFF) == [(0, 0), (1, 0)]


def test_ring_only_pair_top_row():
    grid = [[1, 2, 1, 2]]
    board = Board.from_grid(grid)
    # Above (row -1) and below (row 1 == rows) tie on length 4; row -1 is lexicographically first.
    assert _path(grid, (0, 0), (0, 2), ON) == [(0, 0), (-1, 0), (-1, 2), (0, 2)]
    assert removable_pairs(board, ON) == [
        Move((0, 0), (0, 2), [(0, 0), (-1, 0), (-1, 2), (0, 2)]),
        Move((0, 1), (0, 3), [(0, 1), (-1, 1), (-1, 3), (0, 3)]),
    ]
    assert find_path(board, (0, 0), (0, 2), OFF) is None
    assert removable_pairs(board, OFF) == []


def test_ring_only_pair_bottom_row_uses_row_rows():
    grid = [[-1, 2, -1], [1, 2, 1]]
    assert _path(grid, (1, 0), (1, 2), ON) == [(1, 0), (2, 0), (2, 2), (1, 2)]
    assert _path(grid, (1, 0), (1, 2), OFF) is None


def test_ring_only_pair_side_columns_use_minus_one_and_cols():
    grid = [[2, 1], [3, 3], [2, 1]]
    board = Board.from_grid(grid)
    assert _path(grid, (0, 1), (2, 1), ON) == [(0, 1), (0, 2), (2, 2), (2, 1)]
    assert _path(grid, (0, 0), (2, 0), ON) == [(0, 0), (0, -1), (2, -1), (2, 0)]
    assert removable_pairs(board, OFF) == [Move((1, 0), (1, 1), [(1, 0), (1, 1)])]
    assert [(m.a, m.b) for m in removable_pairs(board, ON)] == [((0, 0), (2, 0)), ((0, 1), (2, 1)), ((1, 0), (1, 1))]


THREE_TURNS = [
    [1, 0, 0, -1],
    [-1, -1, 0, -1],
    [-1, 0, 0, -1],
    [-1, 1, -1, -1],
]


@pytest.mark.parametrize("rules", [ON, OFF], ids=["border", "no-border"])
def test_pair_needing_three_turns_is_refused(rules):
    a, b = (0, 0), (3, 1)
    three = _brute_paths(THREE_TURNS, a, b, rules.border, 3)
    assert [(0, 0), (0, 2), (2, 2), (2, 1), (3, 1)] in [p[2] for p in three]  # a 3-turn path exists
    assert _brute_paths(THREE_TURNS, a, b, rules.border, 2) == []
    board = Board.from_grid(THREE_TURNS)
    assert find_path(board, a, b, rules) is None
    assert removable_pairs(board, rules) == []


# -- walls --------------------------------------------------------------------------------------------
def test_wall_blocks_straight_line_and_ring_detours_it():
    grid = [[1, -1, 1]]
    assert _path(grid, (0, 0), (0, 2), OFF) is None
    assert _path(grid, (0, 0), (0, 2), ON) == [(0, 0), (-1, 0), (-1, 2), (0, 2)]


def test_wall_on_one_corner_forces_the_other():
    assert _path([[1, 0], [-1, 1]], (0, 0), (1, 1), OFF) == [(0, 0), (0, 1), (1, 1)]
    assert _path([[1, -1], [0, 1]], (0, 0), (1, 1), OFF) == [(0, 0), (1, 0), (1, 1)]


@pytest.mark.parametrize("rules", [ON, OFF], ids=["border", "no-border"])
def test_walls_on_both_corners_block_even_with_border(rules):
    assert _path([[1, -1], [-1, 1]], (0, 0), (1, 1), rules) is None


def test_wall_blocks_the_middle_segment():
    # Without the wall at (1, 1) the pair links via column 1; with it, and no border, not at all.
    open_grid = [[1, 0, 2], [0, 0, 0], [2, 0, 1]]
    walled = [[1, 0, 2], [0, -1, 0], [2, 0, 1]]
    assert _path(open_grid, (0, 0), (2, 2), OFF) == [(0, 0), (0, 1), (2, 1), (2, 2)]
    assert _path(walled, (0, 0), (2, 2), OFF) is None
    assert _path(walled, (0, 0), (2, 2), ON) is None  # the ring cannot be reached past 2s


def test_a_wall_is_never_an_endpoint_or_a_tile():
    board = Board.from_grid([[-1, 0, -1]])
    assert find_path(board, (0, 0), (0, 2), ON) is None
    assert removable_pairs(board, ON) == []


# -- which path is drawn ---------------------------------------------------------------------------
def test_fewest_turns_beats_lexicographic_order():
    # A 2-turn path via (0,1),(2,1) has the same length and a smaller corner list; 1 turn wins.
    grid = [[1, 0, 0], [0, 0, 0], [0, 0, 1]]
    assert _path(grid, (0, 0), (2, 2), OFF) == [(0, 0), (0, 2), (2, 2)]
    assert _path(grid, (2, 2), (0, 0), OFF) == [(2, 2), (0, 2), (0, 0)]


def test_straight_beats_everything():
    grid = [[1, 0, 0, 1], [0, 0, 0, 0]]
    assert _path(grid, (0, 0), (0, 3), ON) == [(0, 0), (0, 3)]


def test_one_turn_picks_smaller_corner():
    assert _path([[0, 1], [1, 0]], (0, 1), (1, 0), OFF) == [(0, 1), (0, 0), (1, 0)]
    assert _path([[0, 1], [1, 0]], (1, 0), (0, 1), OFF) == [(1, 0), (0, 0), (0, 1)]


SHORTEST = [
    [0, 0, 0, 2],
    [0, 0, 0, 0],
    [1, 2, 1, 0],
]


@pytest.mark.parametrize("rules", [ON, OFF], ids=["border", "no-border"])
def test_shortest_beats_lexicographic_then_lexicographic_breaks_ties(rules):
    # Detours via row 0 (length 6) and row -1 (length 8) have smaller corner lists but are
    # longer; via row 1 and the ring row 3 tie at length 4, and row 1 is smaller.
    assert _path(SHORTEST, (2, 0), (2, 2), rules) == [(2, 0), (1, 0), (1, 2), (2, 2)]
    lengths = sorted({p[1] for p in _brute_paths(SHORTEST, (2, 0), (2, 2), rules.border, 2)})
    assert lengths == ([4, 6, 8] if rules.border else [4, 6])


HV_TIE = [
    [3, 0, 1],
    [0, 0, 0],
    [1, 0, 3],
]


def test_tie_between_column_and_row_detours_is_lexicographic_from_a():
    # Both routes have two turns and length 4; which one is smaller depends on which end is a.
    assert _path(HV_TIE, (0, 2), (2, 0), OFF) == [(0, 2), (0, 1), (2, 1), (2, 0)]
    assert _path(HV_TIE, (2, 0), (0, 2), OFF) == [(2, 0), (1, 0), (1, 2), (0, 2)]
    assert removable_pairs(Board.from_grid(HV_TIE), OFF) == [
        Move((0, 0), (2, 2), [(0, 0), (0, 1), (2, 1), (2, 2)]),
        Move((0, 2), (2, 0), [(0, 2), (0, 1), (2, 1), (2, 0)]),
    ]


def test_turns_and_length_helpers():
    p = [(0, 0), (-1, 0), (-1, 2), (0, 2)]
    assert turns(p) == 2 and length(p) == 4
    assert turns([(0, 0), (0, 2)]) == 0 and length([(0, 0), (0, 2)]) == 2


# -- find_path on bad arguments ------------------------------------------------------------------------
def test_find_path_returns_none_for_non_pairs():
    board = Board.from_grid([[1, 1, 2], [0, -1, 2]])
    assert find_path(board, (0, 0), (0, 0), ON) is None  # same cell
    assert find_path(board, (0, 0), (1, 0), ON) is None  # empty
    assert find_path(board, (0, 0), (1, 1), ON) is None  # wall
    assert find_path(board, (0, 1), (0, 2), ON) is None  # different types


@pytest.mark.parametrize("cell", [(-1, 0), (0, 3), (2, 0), (0,), "ab", (0, 1.0)])
def test_find_path_rejects_cells_off_the_board(cell):
    board = Board.from_grid([[1, 1, 0]])
    with pytest.raises(ValueError, match="expected a \\[row, col\\] cell on the 1x3 board"):
        find_path(board, (0, 0), cell, ON)


def test_a_move_prints_as_a_move_with_its_path_beside_it():
    m = Move((0, 0), (0, 2), [(0, 0), (-1, 0), (-1, 2), (0, 2)])
    assert drawn_json(m) == {"move": [[0, 0], [0, 2]], "path": [[0, 0], [-1, 0], [-1, 2], [0, 2]]}
    # the move alone is a move of a level file's solution
    assert solution_json([m, Move((1, 0), (1, 1), [(1, 0), (1, 1)])]) == [[[0, 0], [0, 2]], [[1, 0], [1, 1]]]


# -- perft fixtures ----------------------------------------------------------------------------------
PERFT = load_pack(DATA / "perft.json")


@pytest.mark.parametrize("level", PERFT.levels, ids=[lv.id for lv in PERFT.levels])
def test_perft_removable_pair_counts(level):
    pinned = level.extra["perft"]["removable_pairs"]
    found = removable_pairs(level.board, level.rules)
    assert len(found) == pinned
    assert [(m.a, m.b) for m in found] == _brute_pairs(level.board.grid(), level.rules.border)
    assert all(m.a < m.b for m in found) and found == sorted(found, key=lambda m: (m.a, m.b))


def test_perft_fixture_has_several_boards():
    assert len(PERFT.levels) >= 5
    assert {lv.extra["perft"]["removable_pairs"] for lv in PERFT.levels} >= {0, 2, 8, 29}
