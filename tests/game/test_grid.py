"""The grid's link test (:meth:`llkgen.game.grid.Grid.link_cell`, :meth:`~llkgen.game.grid.Grid.link`)
and :func:`llkgen.game.path.best_link` against the oracle's path enumeration, on random walled
boards, border on and off, including links to *emptied* cells: the lock test asks for those."""

from __future__ import annotations

import random

from llkgen.game.board import Board, Rules
from llkgen.game.grid import Grid, from_padded, to_padded
from llkgen.game.path import best_link

import oracle as O
from strategies import grid_text


def test_link_test_matches_oracle_geometry_including_empty_targets():
    """The lock test asks the grid's link test for paths to *emptied* partner cells; compare
    ``Grid.link_cell`` and ``best_link`` with the oracle's path enumeration for every
    (tile, any cell) pair, walls and border off included."""
    rng = random.Random(8500)
    checked = 0
    for _ in range(400):
        rows, cols = rng.randint(1, 6), rng.randint(1, 6)
        grid = [[rng.choice([0, 0, 1, -1]) for _ in range(cols)] for _ in range(rows)]
        border = rng.random() < 0.5
        ones = sum(v == 1 for row in grid for v in row)
        if ones % 2:  # the board model wants even type counts; the geometry ignores types
            grid[0][0] = 1 if grid[0][0] != 1 else 0
        g = Grid(Board.from_grid(grid), Rules(border=border))
        w = g.w
        cells = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] != -1]
        for a in cells:
            for b in cells:
                if a >= b or grid[a[0]][a[1]] != 1:
                    continue
                want = O.best_path(grid, a, b, border)
                got = g.link_cell(to_padded(a, w), to_padded(b, w))
                assert got == (want is not None), (grid_text(grid), a, b, border)
                if got and grid[b[0]][b[1]] == 1:
                    assert g.link(to_padded(a, w), to_padded(b, w))
                    best = best_link(g.g, w, to_padded(a, w), to_padded(b, w))
                    corners = [from_padded(p, w) for p in best]
                    assert (len(corners) - 2, O.polyline_cost(corners)[1], corners) == want
                checked += 1
    assert checked > 1500
