"""Independent sub-games: the parts of a board whose removals can never affect each other.

**The argument.** Call two cells *joined* when both are non-wall cells of the padded grid
(board cells, and the ring outside the board when ``border`` is on) and they are orthogonal
neighbours; a *component* is a class of the transitive closure (union-find below). Walls
never move and are never passable, so:

* every path of a removal runs through orthogonally adjacent non-wall cells from one tile to
  the other, so the two tiles of every move lie in one component;
* under gravity a tile only slides along its run, a line of non-wall cells between walls,
  so it never leaves its component.

So every move pairs two tiles of one component, and a type with an odd number of tiles in
one component can never be cleared there: that proves the board unsolvable without any
search, on any board, settled or not.

On a *settled* board (no tile would slide; every board after a move under gravity is
settled) more holds: a removal empties cells of its own component only, and the tiles it
makes slide are in the runs of the removed tiles, so in that component too. So the cells of
a component change only through its own moves, and whether a move in it is legal depends
only on its own cells. The game is a product of independent games: the board can be cleared
if and only if every component's tiles can be cleared on their own. (If: play the
components' clearings one after another; each move finds its component exactly as in its
own game. Only if: the moves of a clearing that fall in one component, in their order,
clear that component on its own, since no other move touched it.) On a board that is not
settled the first removal makes every run settle, in every component at once, so the
components are not independent there: :func:`components` says whether they are
(``Split.independent``).

**Where it holds.** Every gravity direction, ``none`` included, and either border setting:
``border`` is read from the padded grid, whose ring is passable exactly when it is on.
Nothing else about the rules is assumed, so there is no rule setting for which it must
refuse to answer.

**Where it is used, and what it buys.** Only under gravity (:mod:`llkgen.verifier.portfolio`):
without gravity the board's own stages already refute an odd component -- the lock test when
some tile of it can never link, the flow pairing check (:mod:`llkgen.verifier.pairing_check`)
when its tiles can all link among themselves, e.g. ``1 1 # 1 1 / 1 . # 1 .`` with the border
off -- and the pairing search gains little from a split. A component's sub-board is the board
with every cell outside the component made a wall, which changes nothing inside it (its paths
and runs never reach those cells). Walls are what split a board, so boards without walls (the
real boards, the random full boards of ``benchmarks/verify_bench.py``) always have one
component and the split costs one union-find pass over the cells. Measured on 600 seeded small
gravity boards (``benchmarks/gravity_pruning_bench.py --sets small``: 4-6 rows, 5-7 columns,
walls on half of them, border on and off, every direction), the parity proof alone decided 26
of the 57 unsolvable boards with no search; with :mod:`llkgen.verifier.reach` and the split
search the set took 8,125 nodes instead of 157,012 (``docs/benchmarks.md``, "The verifier
under gravity").
"""

from __future__ import annotations

from dataclasses import dataclass

from llkgen.game.board import WALL, Board, Cell, Rules
from llkgen.game.grid import Grid


@dataclass(frozen=True)
class Component:
    """One independent sub-game: its tiles (board cells, row-major) and the sub-board on
    which it is played alone (every cell outside the component a wall)."""

    tiles: list[Cell]
    board: Board

    def odd_types(self) -> dict[int, list[Cell]]:
        """The types with an odd number of tiles here, each with its tiles: each is a proof
        that the whole board can never be cleared (module docstring)."""
        counts: dict[int, list[Cell]] = {}
        cols = self.board.cols
        for r, c in self.tiles:
            counts.setdefault(self.board.cells[r * cols + c], []).append((r, c))
        return {t: cells for t, cells in sorted(counts.items()) if len(cells) % 2}


@dataclass(frozen=True)
class Split:
    """The components of a board that hold tiles, and whether they are independent games
    (the board is settled: module docstring). Parity holds either way."""

    parts: list[Component]
    independent: bool

    def odd_type(self) -> tuple[int, list[Cell]] | None:
        """A type with an odd number of tiles in one component, with those tiles: a proof
        that the board can never be cleared; None if there is none."""
        for part in self.parts:
            odd = part.odd_types()
            if odd:
                return next(iter(odd.items()))
        return None


def _find(parent: list[int], x: int) -> int:
    while parent[x] != x:
        parent[x] = parent[parent[x]]  # path halving
        x = parent[x]
    return x


def components(board: Board, rules: Rules) -> Split:
    """The components of ``board`` that hold tiles, in order of their first tile (row-major).
    Their tiles partition the board's tiles. When the split is ``independent`` the board can
    be cleared under ``rules`` if and only if every component's ``board`` can (module
    docstring)."""
    grid = Grid(board, rules)
    g, w = grid.g, grid.w
    parent = list(range(len(g)))
    # The sentinel ring is a wall, so p + 1 and p + w stay inside g for every non-wall p.
    for p, v in enumerate(g):
        if v == WALL:
            continue
        for q in (p + 1, p + w):
            if g[q] != WALL:
                a, b = _find(parent, p), _find(parent, q)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    groups: dict[int, list[int]] = {}
    for p in grid.cells:
        if g[p] > 0:
            groups.setdefault(_find(parent, p), []).append(p)
    if len(groups) == 1:
        (tiles,) = groups.values()
        return Split([Component([grid.cell(p) for p in tiles], board)], grid.settled)
    out = []
    for root in groups:  # dict order: the order of each group's first tile
        cells = [WALL] * len(board.cells)
        for p in grid.cells:
            if g[p] != WALL and _find(parent, p) == root:
                r, c = grid.cell(p)
                cells[r * board.cols + c] = g[p]
        out.append(Component([grid.cell(p) for p in groups[root]],
                             Board(board.rows, board.cols, tuple(cells))))
    return Split(out, grid.settled)
