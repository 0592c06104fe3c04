"""The board model: an immutable grid of cells, plus the rules it is played under.

Cells are stored flat, row-major, in a tuple. ``0`` is empty, ``-1`` is a wall (never removed,
never passable) and ``k >= 1`` is a tile of type ``k``. Coordinates are ``(row, col)``.

Parsing and validation live here so that a ``Board`` that exists is always well formed:
rectangular, within :data:`MAX_SIDE`, with values ``>= -1`` and an even count of every type.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from enum import StrEnum
from typing import Iterable, Mapping

from llkgen.errors import LevelFormatError
from llkgen.text import describe_value, int_text

EMPTY = 0
WALL = -1
#: Largest supported side. A 64x64 board has 4096 cells: far beyond any real level, and small
#: enough that every algorithm in llkgen stays responsive on it.
MAX_SIDE = 64
#: Largest tile type id; keeps hashing tables and labels bounded.
MAX_TYPE = 9999

Cell = tuple[int, int]


class Gravity(StrEnum):
    """The side tiles slide towards after each removal. A ``str``, so ``Gravity.DOWN ==
    "down"`` and JSON, YAML and messages show the plain word."""

    NONE = "none"
    DOWN = "down"
    UP = "up"
    LEFT = "left"
    RIGHT = "right"

    @property
    def fall(self) -> tuple[int, int]:
        """The ``(row, col)`` step of a falling tile; ``(0, 0)`` for ``none``."""
        return _FALL[self]

    def lines(self, rows: int, cols: int) -> list[list[Cell]]:
        """The board's columns (``down``/``up``) or rows (``left``/``right``), each listed
        from the gravity side outwards: the order in which a line's tiles settle. Empty for
        ``none``."""
        dr, dc = self.fall
        if dr:
            order = range(rows - 1, -1, -1) if dr > 0 else range(rows)
            return [[(r, c) for r in order] for c in range(cols)]
        if dc:
            order = range(cols - 1, -1, -1) if dc > 0 else range(cols)
            return [[(r, c) for c in order] for r in range(rows)]
        return []

    def depth(self, cell: Cell, rows: int, cols: int) -> int:
        """How far ``cell`` lies from the side tiles fall towards (0: on that side). For
        ``none``, the distance from the nearest edge."""
        r, c = cell
        dr, dc = self.fall
        if dr:
            return rows - 1 - r if dr > 0 else r
        if dc:
            return cols - 1 - c if dc > 0 else c
        return min(r, c, rows - 1 - r, cols - 1 - c)


#: The one direction table: where each gravity sends a falling tile.
_FALL = {Gravity.NONE: (0, 0), Gravity.DOWN: (1, 0), Gravity.UP: (-1, 0),
         Gravity.LEFT: (0, -1), Gravity.RIGHT: (0, 1)}

GRAVITIES = tuple(g.value for g in Gravity)


@dataclass(frozen=True)
class Rules:
    """How a board is played: ``border`` lets paths use the ring outside the board;
    ``gravity`` is the direction tiles slide after each removal (a :class:`Gravity`; a plain
    string such as ``"down"`` is accepted and converted)."""

    border: bool = True
    gravity: Gravity = Gravity.NONE

    def __post_init__(self) -> None:
        if not isinstance(self.border, bool):
            raise LevelFormatError(f"rules.border: expected true or false, found {self.border!r}")
        if not isinstance(self.gravity, str) or self.gravity not in GRAVITIES:
            raise LevelFormatError(
                f"rules.gravity: expected one of {', '.join(GRAVITIES)}, found {self.gravity!r}"
            )
        object.__setattr__(self, "gravity", Gravity(self.gravity))

    def to_json(self) -> dict:
        return {"border": self.border, "gravity": self.gravity.value}

    def describe(self) -> str:
        return f"border={'on' if self.border else 'off'}, gravity={self.gravity}"


@dataclass(frozen=True)
class Board:
    """An immutable ``rows x cols`` grid. Build one with :meth:`from_grid` or :meth:`from_text`,
    which validate; the constructor trusts its arguments."""

    rows: int
    cols: int
    cells: tuple[int, ...]

    # -- construction -------------------------------------------------------------------------
    @classmethod
    def from_grid(cls, grid: object, where: str = "grid") -> "Board":
        """Validate a list of rows of ints and build a board.

        Raises :class:`LevelFormatError` naming the row and column of the first problem."""
        if not isinstance(grid, list):
            raise LevelFormatError(f"{where}: expected a list of rows, found {describe_value(grid)}")
        if not grid:
            raise LevelFormatError(f"{where}: expected at least one row, found none")
        rows = len(grid)
        cells: list[int] = []
        cols = -1
        for r, row in enumerate(grid):
            if not isinstance(row, list):
                raise LevelFormatError(f"{where} row {r}: expected a list of cells, found {describe_value(row)}")
            if cols < 0:
                cols = len(row)
                if cols == 0:
                    raise LevelFormatError(f"{where} row 0: expected at least one cell, found none")
            elif len(row) != cols:
                raise LevelFormatError(
                    f"{where} row {r}: ragged rows: expected {cols} cells like row 0, found {len(row)}"
                )
            for c, v in enumerate(row):
                if type(v) is not int:
                    raise LevelFormatError(
                        f"{where} row {r} col {c}: expected an integer cell value, found {describe_value(v)}"
                    )
                if v < WALL:
                    raise LevelFormatError(
                        f"{where} row {r} col {c}: expected -1 (wall), 0 (empty) or a tile type >= 1, "
                        f"found {int_text(v)}"
                    )
                if v > MAX_TYPE:
                    raise LevelFormatError(
                        f"{where} row {r} col {c}: expected a tile type <= {MAX_TYPE}, found {int_text(v)}"
                    )
                cells.append(v)
        return cls.checked(rows, cols, cells, where)

    @classmethod
    def checked(cls, rows: int, cols: int, cells: Iterable[int], where: str = "grid") -> "Board":
        """Build a board after checking its size cap and that every type occurs evenly."""
        cells = tuple(cells)
        if rows > MAX_SIDE or cols > MAX_SIDE:
            raise LevelFormatError(
                f"{where}: board too large: the cap is {MAX_SIDE}x{MAX_SIDE}, found {rows}x{cols}"
            )
        odd = sorted(t for t, n in Counter(v for v in cells if v > 0).items() if n % 2)
        if odd:
            counts = Counter(cells)
            detail = ", ".join(f"type {t} occurs {counts[t]} times" for t in odd[:5])
            raise LevelFormatError(
                f"{where}: every tile type must occur an even number of times, but {detail}"
            )
        return cls(rows, cols, cells)

    @classmethod
    def from_text(cls, text: str, where: str = "text") -> "Board":
        """Parse the compact text form: one line per row, whitespace-separated tokens,
        ``.`` for empty, ``#`` for a wall and a decimal number for a tile type. Blank lines are
        ignored."""
        grid: list[list[int]] = []
        for lineno, line in enumerate(text.splitlines(), start=1):
            tokens = line.split()
            if not tokens:
                continue
            row = []
            for tok in tokens:
                if tok == ".":
                    row.append(EMPTY)
                elif tok == "#":
                    row.append(WALL)
                elif tok.isascii() and tok.isdigit() and len(tok) <= len(str(MAX_TYPE)) and int(tok) >= 1:
                    row.append(int(tok))
                else:
                    raise LevelFormatError(
                        f"{where} line {lineno}: expected '.', '#' or a tile type from 1 to "
                        f"{MAX_TYPE}, found {tok[:20]!r}"
                    )
            grid.append(row)
        return cls.from_grid(grid, where)

    # -- views --------------------------------------------------------------------------------
    def __getitem__(self, rc: Cell) -> int:
        r, c = rc
        if not (0 <= r < self.rows and 0 <= c < self.cols):
            raise IndexError(f"cell {rc} is outside a {self.rows}x{self.cols} board")
        return self.cells[r * self.cols + c]

    def in_bounds(self, rc: Cell) -> bool:
        return 0 <= rc[0] < self.rows and 0 <= rc[1] < self.cols

    def grid(self) -> list[list[int]]:
        c = self.cols
        return [list(self.cells[r * c : (r + 1) * c]) for r in range(self.rows)]

    def tiles(self) -> list[Cell]:
        """Tile cells in row-major order."""
        c = self.cols
        return [divmod(i, c) for i, v in enumerate(self.cells) if v > 0]

    @property
    def tile_count(self) -> int:
        return sum(1 for v in self.cells if v > 0)

    def is_cleared(self) -> bool:
        return all(v <= 0 for v in self.cells)

    def types(self) -> dict[int, list[Cell]]:
        """Map each type to its cells, types ascending, cells row-major."""
        out: dict[int, list[Cell]] = {}
        c = self.cols
        for i, v in enumerate(self.cells):
            if v > 0:
                out.setdefault(v, []).append(divmod(i, c))
        return dict(sorted(out.items()))

    def set_cells(self, changes: Mapping[Cell, int]) -> "Board":
        """A copy with the given cells replaced (no parity check: callers keep pairs whole)."""
        cells = list(self.cells)
        for (r, c), v in changes.items():
            cells[r * self.cols + c] = v
        return Board(self.rows, self.cols, tuple(cells))

    def to_text(self) -> str:
        """The compact text form; :meth:`from_text` reads it back to an equal board."""
        toks = ["." if v == EMPTY else "#" if v == WALL else str(v) for v in self.cells]
        width = max(len(t) for t in toks)
        c = self.cols
        return "\n".join(
            " ".join(t.rjust(width) for t in toks[r * c : (r + 1) * c]) for r in range(self.rows)
        )

    def __str__(self) -> str:
        return self.to_text()

