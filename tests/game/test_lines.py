"""``llkgen.game.lines.Lines.tile_sets`` against the oracle's independent path enumerator.

The flow pairing check and the CP-SAT model both rest on this one enumeration: for two cells,
the distinct sets of tiles crossed by the wall-free lines of at most two turns. Here every such
line comes from ``oracle.iter_paths`` (a plain DFS over cells that knows nothing of corners or
bitmasks) on the grid with every tile lifted, and the sets must match exactly.
"""

from __future__ import annotations

import itertools
import random

from llkgen.game.board import Board, Rules
from llkgen.game.grid import Grid
from llkgen.game.lines import Lines

try:
    from oracle import iter_paths, parse
    from strategies import grid_text, random_grid
except ImportError:  # tests imported as a package
    from tests.oracle import iter_paths, parse
    from tests.strategies import grid_text, random_grid


def _oracle_sets(grid, a, b, border) -> set[frozenset]:
    relaxed = [[0 if v > 0 else v for v in row] for row in grid]
    rows, cols = len(grid), len(grid[0])
    return {frozenset((r, c) for r, c in path[1:-1]
                      if 0 <= r < rows and 0 <= c < cols and grid[r][c] > 0)
            for path in iter_paths(relaxed, a, b, border)}


def _cells(mask: int, grid: Grid) -> frozenset:
    out = []
    while mask:
        low = mask & -mask
        out.append(grid.cell(low.bit_length() - 1))
        mask ^= low
    return frozenset(out)


def _check(grid_rows, border, pairs) -> int:
    board = Board.from_grid(grid_rows)
    grid = Grid(board, Rules(border=border))
    lines = Lines(grid)
    for a, b in pairs:
        got = lines.tile_sets(grid.pos(a), grid.pos(b))
        assert got == sorted(set(got)), "sets must be distinct and sorted"
        assert {_cells(m, grid) for m in got} == _oracle_sets(grid_rows, a, b, border), \
            (grid_text(grid_rows), border, a, b)
    return len(pairs)


def test_tile_sets_match_the_oracle_paths():
    rng = random.Random(7101)
    checked = nonempty = 0
    for k in range(500):
        grid_rows = random_grid(rng, wall_prob=0.7, min_fill=0.6)
        border = rng.random() < 0.5
        rows, cols = len(grid_rows), len(grid_rows[0])
        tiles = [(r, c) for r in range(rows) for c in range(cols) if grid_rows[r][c] > 0]
        pairs = list(itertools.combinations(tiles, 2))
        if k < 150:  # empty ends too: the function is geometry, not types
            free = [(r, c) for r in range(rows) for c in range(cols) if grid_rows[r][c] != -1]
            pairs = list(itertools.combinations(free, 2))
        checked += _check(grid_rows, border, pairs)
        board = Board.from_grid(grid_rows)
        grid = Grid(board, Rules(border=border))
        nonempty += sum(any(Lines(grid).tile_sets(grid.pos(a), grid.pos(b))) for a, b in pairs)
    assert checked > 5000 and nonempty > 1000, (checked, nonempty)


def test_tile_sets_examples():
    grid_rows = parse("1 2 1\n. 3 .\n3 # 2")
    board = Board.from_grid(grid_rows)
    for border, want in ((False, {frozenset({(0, 1)}), frozenset({(1, 1)})}),
                         (True, {frozenset(), frozenset({(0, 1)}), frozenset({(1, 1)}),
                                 frozenset({(2, 0), (2, 2)})})):  # over the top, under the wall
        grid = Grid(board, Rules(border=border))
        got = Lines(grid).tile_sets(grid.pos((0, 0)), grid.pos((0, 2)))
        assert {_cells(m, grid) for m in got} == want
    walled = Board.from_text("1 # 1")
    grid = Grid(walled, Rules(border=False))
    assert Lines(grid).tile_sets(grid.pos((0, 0)), grid.pos((0, 2))) == []
    grid = Grid(Board.from_text("1 1"), Rules(border=False))
    assert Lines(grid).tile_sets(grid.pos((0, 0)), grid.pos((0, 1))) == [0]
