"""Gravity: after each removal, tiles slide towards one side of the board.

Each column (for ``down``/``up``) or row (for ``left``/``right``) is split by walls into runs;
each run compacts its tiles towards the gravity side on its own, keeping their order. Walls
never move and the outer ring never holds tiles. The direction table lives in
:class:`llkgen.game.board.Gravity`; this module only applies it.
"""

from __future__ import annotations

from typing import Sequence

from llkgen.game.board import WALL, Board, Gravity


def compact(cells: list[int], lines: Sequence[Sequence[int]]) -> list[tuple[int, int]]:
    """Compact ``cells`` in place along ``lines`` (indices into ``cells``, each line ordered
    from the gravity side). Returns the tile moves ``(from, to)`` in the order made."""
    moves = []
    for line in lines:
        dest = 0  # position in line of the next free slot of the current run
        for k, i in enumerate(line):
            v = cells[i]
            if v == WALL:
                dest = k + 1
            elif v > 0:
                if k != dest:
                    j = line[dest]
                    cells[j] = v
                    cells[i] = 0
                    moves.append((i, j))
                dest += 1
    return moves


def flat_lines(gravity: Gravity | str, rows: int, cols: int) -> list[list[int]]:
    """:meth:`Gravity.lines` as row-major flat indices."""
    return [[r * cols + c for r, c in line] for line in Gravity(gravity).lines(rows, cols)]


def apply_gravity(board: Board, gravity: Gravity | str) -> Board:
    """The board after tiles slide towards ``gravity``; ``none`` returns it unchanged."""
    if gravity == Gravity.NONE:
        return board
    cells = list(board.cells)
    compact(cells, flat_lines(gravity, board.rows, board.cols))
    return Board(board.rows, board.cols, tuple(cells))
