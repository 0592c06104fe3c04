"""The flat level shape, ``llkgen.level-flat/1``: a level with no array inside an array.

Game engines' simple JSON readers cannot read nested arrays (Unity's ``JsonUtility`` maps an
array only to a field such as ``int[]``), so a flat level writes the board as ``cells``, row
after row, and its solution as cell indices::

    {"format": "llkgen.level-flat/1", "id": "demo-1", "rows": 2, "cols": 3,
     "cells": [1, 2, 0, 2, -1, 1], "rules": {"border": true, "gravity": "none"},
     "solution": [0, 5, 1, 3]}

``cells[row * cols + col]`` is the cell ``(row, col)``; ``solution`` holds two cell indices
per move, ``[a1, b1, a2, b2, ...]``, each ``row * cols + col``. Every other key is as in a
nested level (``seed``, ``metrics``, ``certificate``: objects of numbers and strings).

A flat level and its nested form load to the same :class:`~llkgen.formats.level.Level`, so the rest of
llkgen never sees the difference: :mod:`llkgen.formats.level` validates a flat level with the helpers
here, and writes one with :func:`flat_level_json`.
"""

from __future__ import annotations

from llkgen.errors import LevelFormatError
from llkgen.game.board import MAX_TYPE, WALL, Board
from llkgen.text import describe_value, int_text

FLAT_LEVEL_FORMAT = "llkgen.level-flat/1"
#: The key a flat level holds its board in, in place of a nested level's ``grid``.
FLAT_BOARD_KEY = "cells"


def board_from_cells(rows: int, cols: int, cells: object, where: str = "cells") -> Board:
    """Validate a row-major cell list for a ``rows x cols`` board (both already checked to be
    positive integers) and build the board. Raises :class:`LevelFormatError` naming the index,
    with its row and column, of the first bad cell."""
    if not isinstance(cells, list):
        raise LevelFormatError(f"{where}: expected a list of rows * cols cell values, row after row, "
                               f"found {describe_value(cells)}")
    if len(cells) != rows * cols:
        raise LevelFormatError(f"{where}: expected {int_text(rows * cols)} cells (rows {int_text(rows)} x cols "
                               f"{int_text(cols)}), found {len(cells)}")
    for i, v in enumerate(cells):
        at = f"{where}[{i}] (row {i // cols} col {i % cols})"
        if type(v) is not int:
            raise LevelFormatError(f"{at}: expected an integer cell value, found {describe_value(v)}")
        if v < WALL:
            raise LevelFormatError(f"{at}: expected -1 (wall), 0 (empty) or a tile type >= 1, found {int_text(v)}")
        if v > MAX_TYPE:
            raise LevelFormatError(f"{at}: expected a tile type <= {MAX_TYPE}, found {int_text(v)}")
    return Board.checked(rows, cols, cells, where)


def moves_from_indices(solution: object, board: Board, where: str = "solution") -> list:
    """A flat solution (two cell indices per move) as moves ``[[[r1, c1], [r2, c2]], ...]``,
    the form the referee replays. Only its form is checked here (a list of an even number of
    cell indices on the board): whether the moves are legal is the referee's to say."""
    n = board.rows * board.cols
    if not isinstance(solution, list):
        raise LevelFormatError(f"{where}: expected a list of cell indices (row * cols + col), two per "
                               f"move, found {describe_value(solution)}")
    for i, v in enumerate(solution):
        if type(v) is not int or not 0 <= v < n:
            hint = " (moves [[r1, c1], [r2, c2]] belong in a nested level)" if isinstance(v, list) else ""
            raise LevelFormatError(f"{where}[{i}]: expected a cell index in 0..{n - 1} (row * cols + col), "
                                   f"found {describe_value(v)}{hint}")
    if len(solution) % 2:
        raise LevelFormatError(f"{where}: expected two cell indices per move, found an odd count, "
                               f"{len(solution)}")
    cols = board.cols
    return [[[a // cols, a % cols], [b // cols, b % cols]] for a, b in zip(solution[::2], solution[1::2])]


def indices_from_moves(moves: object, rows: int, cols: int, where: str = "solution") -> list[int]:
    """The flat form of a nested solution: each move ``[[r1, c1], [r2, c2]]`` as the two cell
    indices ``r1 * cols + c1, r2 * cols + c2``. Raises :class:`LevelFormatError` for a move
    that is not two cells on the board (a flat solution cannot carry one)."""
    if not isinstance(moves, list):
        raise LevelFormatError(f"{where}: expected a list of moves [[r1, c1], [r2, c2]], found {describe_value(moves)}")
    out: list[int] = []
    for i, move in enumerate(moves):
        if not (isinstance(move, list) and len(move) == 2):
            raise LevelFormatError(f"{where}[{i}]: expected a move [[r1, c1], [r2, c2]], found {describe_value(move)}")
        for cell in move:
            if not (isinstance(cell, list) and len(cell) == 2 and all(type(x) is int for x in cell)
                    and 0 <= cell[0] < rows and 0 <= cell[1] < cols):
                raise LevelFormatError(f"{where}[{i}]: expected two cells [row, col] on the {rows}x{cols} "
                                       f"board, found {describe_value(cell)}")
            out.append(cell[0] * cols + cell[1])
    return out


def flat_level_json(level: dict, where: str = "level") -> dict:
    """The flat form of a nested level object (as :func:`llkgen.formats.level.level_to_json` makes
    it): the same keys in the same order, ``format`` ``llkgen.level-flat/1``, ``grid`` replaced
    by ``cells`` and the solution's moves by cell indices. Raises :class:`LevelFormatError`
    when another key holds an array inside an array, which the flat shape never carries."""
    rows, cols = level["rows"], level["cols"]
    out: dict = {}
    for key, value in level.items():
        if key == "format":
            out[key] = FLAT_LEVEL_FORMAT
        elif key == "grid":
            out[FLAT_BOARD_KEY] = [v for row in value for v in row]
        elif key == "solution":
            out[key] = indices_from_moves(value, rows, cols, f"{where}.solution")
        else:
            if _holds_nested_array(value):
                raise LevelFormatError(f"{where}.{key}: holds an array inside an array, which a flat level "
                                       "cannot carry (write it with grid: nested)")
            out[key] = value
    return out


def _holds_nested_array(value: object, in_array: bool = False) -> bool:
    if isinstance(value, list):
        return in_array or any(_holds_nested_array(v, True) for v in value)
    if isinstance(value, dict):
        return any(_holds_nested_array(v) for v in value.values())
    return False
