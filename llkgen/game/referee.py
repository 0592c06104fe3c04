"""The referee: the one function that decides whether a sequence of moves is legal.

Every solution llkgen trusts (a verifier witness, a generator's removal order, a solution
stored in a pack) is accepted only after :func:`replay` has replayed it move by move.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Sequence

from llkgen.game.board import Board, Cell, Rules
from llkgen.game.gravity import apply_gravity, compact
from llkgen.game.grid import gravity_lines, padded
from llkgen.game.path import drawn_path


@dataclass(frozen=True)
class ReplayResult:
    """What happened when a move list was replayed.

    ``ok`` is true when every move was legal; ``cleared`` when, in addition, no tile is left.
    On failure ``error_index`` is the 0-based index of the first bad move and ``reason`` says
    why; ``final`` is the board before that move."""

    ok: bool
    cleared: bool
    applied: int
    final: Board
    paths: list[list[Cell]] = field(default_factory=list)
    error_index: int | None = None
    reason: str | None = None

    def describe(self) -> str:
        if not self.ok:
            return f"move {self.error_index}: {self.reason}"
        if self.cleared:
            return f"all {self.applied} moves are legal and the board is cleared"
        return f"all {self.applied} moves are legal but {self.final.tile_count} tiles remain"

    def to_json(self) -> dict:
        """The result as data (``llkgen replay --json`` adds its format and the moves given):
        ``tiles_left`` counts the tiles of ``final``; ``error_index`` and ``reason`` are null
        when every move was legal."""
        return {"ok": self.ok, "cleared": self.cleared, "applied": self.applied,
                "tiles_left": self.final.tile_count, "error_index": self.error_index, "reason": self.reason}


def _as_cell(x: object) -> Cell | None:
    if isinstance(x, (list, tuple)) and len(x) == 2 and all(type(v) is int for v in x):
        return (x[0], x[1])
    return None


class Table:
    """The board being replayed, as the padded cells of :mod:`llkgen.game.grid` updated in place:
    a replay of a 2,048-move solution does not build 2,048 boards."""

    def __init__(self, board: Board, rules: Rules):
        self.rows, self.cols = board.rows, board.cols
        self.w = board.cols + 4
        self.g = padded(board, rules)
        self.lines = gravity_lines(rules.gravity, board.rows, board.cols)

    def pos(self, cell: Cell) -> int:
        return (cell[0] + 2) * self.w + cell[1] + 2

    def board(self) -> Board:
        g, w = self.g, self.w
        return Board(self.rows, self.cols,
                     tuple(g[(r + 2) * w + c + 2] for r in range(self.rows) for c in range(self.cols)))

    def check(self, move: object) -> tuple[list[Cell] | None, str | None]:
        """``(path, None)`` when ``move`` may be played now, else ``(None, reason)``."""
        if not isinstance(move, (list, tuple)) or len(move) != 2:
            return None, f"expected a pair of cells [[r1, c1], [r2, c2]], found {move!r}"
        a, b = _as_cell(move[0]), _as_cell(move[1])
        if a is None or b is None:
            return None, f"expected a pair of cells [[r1, c1], [r2, c2]], found {move!r}"
        for name, p in (("first", a), ("second", b)):
            if not (0 <= p[0] < self.rows and 0 <= p[1] < self.cols):
                return None, f"{name} cell {list(p)} is outside the {self.rows}x{self.cols} board"
        if a == b:
            return None, f"both cells are {list(a)}: a move needs two distinct tiles"
        va, vb = self.g[self.pos(a)], self.g[self.pos(b)]
        for p, v in ((a, va), (b, vb)):
            if v == 0:
                return None, f"cell {list(p)} is empty"
            if v < 0:
                return None, f"cell {list(p)} is a wall"
        if va != vb:
            return None, f"cells {list(a)} and {list(b)} hold different types ({va} and {vb})"
        path = drawn_path(self.g, self.w, a, b)
        if path is None:
            return None, f"no path with at most two turns joins {list(a)} and {list(b)} (type {va})"
        return path, None

    def play(self, a: Cell, b: Cell) -> None:
        """Remove the pair (checked) and apply gravity, as :func:`play` does."""
        g = self.g
        g[self.pos(a)] = g[self.pos(b)] = 0
        if self.lines:
            compact(g, self.lines)


def check_move(board: Board, rules: Rules, move: object) -> tuple[list[Cell] | None, str | None]:
    """``(path, None)`` when ``move`` may be played on ``board`` now, else ``(None, reason)``."""
    return Table(board, rules).check(move)


def play(board: Board, rules: Rules, a: Cell, b: Cell) -> Board:
    """Remove the pair ``a``, ``b`` (assumed legal) and apply gravity."""
    return apply_gravity(board.set_cells({a: 0, b: 0}), rules.gravity)


def replay(board: Board, rules: Rules, moves: Iterable[Sequence[Sequence[int]]]) -> ReplayResult:
    """Apply ``moves`` one at a time, checking each: two distinct cells holding the same type,
    a legal path at that moment, then gravity. Stops at the first bad move."""
    table = Table(board, rules)
    paths: list[list[Cell]] = []
    applied = 0
    for i, move in enumerate(moves):
        path, reason = table.check(move)
        if path is None:
            return ReplayResult(False, False, applied, table.board(), paths, i, reason)
        table.play(path[0], path[-1])
        paths.append(path)
        applied += 1
    final = table.board()
    return ReplayResult(True, final.is_cleared(), applied, final, paths)
