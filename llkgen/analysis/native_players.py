"""The model players in C: the optional fast path of :func:`llkgen.analysis.players.playthroughs`.

A measurement of a level plays it hundreds of times (``docs/difficulty.md``), and with the
players in Python (compiled by mypyc in a regular install) that was most of ``make``'s CPU.
``_players.c`` plays the same five models on the C gravity search's board: each row's and
column's empty cells as a 64-bit mask, the link test of a few bit operations, no object made.
It makes the same choices with the same random numbers (:class:`~llkgen.analysis.players.PlayRng`,
written the same way in both), so a level's clear rates, score and tier do not depend on
whether it is built: ``tests/analysis/test_native_players.py`` holds the two to the same moves, model
by model, on thousands of boards.

It is optional, like the C gravity search: without a C compiler, or with ``LLKGEN_PURE=1``, it
is not built and the players run in Python, slower, with the same numbers.
"""

from __future__ import annotations

import importlib
from typing import Any, Callable

from llkgen.game.board import Cell, Gravity
from llkgen.game.playout import Playout


def _load() -> Any:
    try:
        return importlib.import_module("llkgen.analysis._players")
    except ImportError:  # not built: a pure Python install
        return None


_players = _load()

#: Whether the C players are built and importable here.
AVAILABLE = _players is not None

#: The largest board side they take: a padded row or column must fit in 64 bits.
MAX_SIDE = 62
#: The largest tile type they read (a C ``long long``).
MAX_TYPE = (1 << 63) - 1

_GRAVITY = {Gravity.NONE: 0, Gravity.DOWN: 1, Gravity.UP: 2, Gravity.LEFT: 3, Gravity.RIGHT: 4}


def _board(start: Playout) -> tuple[int, int, list[int], int, int] | None:
    """The arguments that describe ``start``'s current board to the C players, or ``None``
    when they do not take it."""
    grid = start.grid
    if not (1 <= grid.rows <= MAX_SIDE and 1 <= grid.cols <= MAX_SIDE):
        return None
    g = grid.g
    cells = [g[p] for p in grid.cells]
    if max(cells) > MAX_TYPE or min(cells) < -1:
        return None  # a board no check accepted: the Python players take it
    return grid.rows, grid.cols, cells, _GRAVITY[start.rules.gravity], int(start.rules.border)


def runner(start: Playout) -> Callable[[int, int, int, int], int] | None:
    """``run(model_index, base, k0, k1)``: how many of those playthroughs clear ``start``'s
    board, in C; ``None`` when the C players are not built or do not take the board."""
    if _players is None:
        return None
    board = _board(start)
    if board is None:
        return None
    module = _players

    def run(model: int, base: int, k0: int, k1: int) -> int:
        return int(module.playthroughs(*board, model, base, k0, k1))

    return run


def play(start: Playout, model: int, base: int, k: int) -> tuple[bool, list[tuple[Cell, Cell]]] | None:
    """Playthrough ``k`` of model number ``model`` in C: whether it cleared ``start``'s board, and
    the moves it played (``(row, col)`` pairs on the board at each move); ``None`` when the C
    players are not built or do not take the board."""
    board = _board(start) if _players is not None else None
    if board is None:
        return None
    cleared, moves = _players.play(*board, model, base, k)
    return bool(cleared), [(tuple(a), tuple(b)) for a, b in moves]


__all__ = ["AVAILABLE", "MAX_SIDE", "MAX_TYPE", "runner", "play"]
