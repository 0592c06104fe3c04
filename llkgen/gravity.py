"""Gravity: after each removal, tiles slide towards one side of the board.

Each column (for ``down``/``up``) or row (for ``left``/``right``) is split by walls into runs;
each run compacts its tiles towards the gravity side on its own, keeping their order. Walls
never move and the outer ring never holds tiles.
"""

from __future__ import annotations

from llkgen.board import WALL, Board


def _lines(rows: int, cols: int, gravity: str) -> list[list[int]]:
    """Flat indices of each line, listed from the gravity side outwards."""
    if gravity == "down":
        return [[r * cols + c for r in range(rows - 1, -1, -1)] for c in range(cols)]
    if gravity == "up":
        return [[r * cols + c for r in range(rows)] for c in range(cols)]
    if gravity == "right":
        return [[r * cols + c for c in range(cols - 1, -1, -1)] for r in range(rows)]
    if gravity == "left":
        return [[r * cols + c for c in range(cols)] for r in range(rows)]
    raise ValueError(f"gravity: expected down, up, left, right or none, found {gravity!r}")


def compact(cells: list[int], lines: list[list[int]]) -> None:
    """Compact ``cells`` in place along ``lines`` (each ordered from the gravity side)."""
    for line in lines:
        dest = 0  # position in line of the next free slot of the current run
        for k, i in enumerate(line):
            v = cells[i]
            if v == WALL:
                dest = k + 1
            elif v > 0:
                if k != dest:
                    cells[line[dest]] = v
                    cells[i] = 0
                dest += 1


def apply_gravity(board: Board, gravity: str) -> Board:
    """The board after tiles slide towards ``gravity``; ``"none"`` returns it unchanged."""
    if gravity == "none":
        return board
    cells = list(board.cells)
    compact(cells, _lines(board.rows, board.cols, gravity))
    return Board(board.rows, board.cols, tuple(cells))
