"""Pairs that can never link, wherever gravity takes their tiles: a proof without search.

**The argument.** A tile's *span* is the part of its run (its column for ``down``/``up``, its
row for ``left``/``right``, cut by walls) from the cell it holds to the run's end on the
gravity side; without gravity, just its cell. Gravity only moves a tile along its run, and
only towards the gravity side, so every cell it will ever hold lies in its span. When two
tiles are removed together, at cells ``x`` and ``y``, a path of at most two turns joins them
through cells that are empty at that moment; those cells are not walls, so the same path
joins ``x`` and ``y`` on the *open board*: the board with the same walls and border and every
other cell empty. So two tiles can only ever be removed together if some cell of one's span
and some other cell of the other's span link on the open board; call them *partners*. Every
clearing removes each type's tiles in pairs of partners, a perfect matching of that type's
partner graph. A type whose partner graph has no perfect matching proves the board can never
be cleared. Two cheap witnesses of that are tried: a connected component of the partner
graph with an odd number of tiles, and, for types of at most
:data:`MATCHING_MAX` tiles, an exhaustive matching search that finds none.

The spans only shrink as play goes on (a tile's cell only moves towards the gravity side), so
the test gets stronger deeper in the search: :class:`MoveSearch` runs it at every node, and a
node it refutes is dead.

**Where it holds.** Every gravity direction (``none`` included, where spans are single cells)
and either border setting (the open board keeps the ring passable exactly when ``border`` is
on). It needs no other rule, so there is none it must refuse.

**Where it can fire.** Without walls every two cells link on the open board (border off:
``x -> (row of x, column of y) -> y``; border on as well), so the verifier builds the test
only for boards with walls. Building it is linear in the cells (each cell's links follow from
its two runs, see :class:`Reach`); the per-node test costs one AND per pair of same-type
tiles.

Measured on 600 seeded small gravity boards (``benchmarks/gravity_pruning_bench.py --sets
small``), it decided 7 of the 57 unsolvable ones at the root; with it at every node and the
split of :mod:`llkgen.verifier.components`, the 57 took 2,347 nodes where the move search
alone took 149,335 (and left one undecided at 60,000).
"""

from __future__ import annotations

import time

from llkgen.game.board import WALL, Board, Cell, Rules
from llkgen.game.grid import Grid
from llkgen.verifier.verdict import Limit, OutOfBudget

#: Largest type, in tiles, whose partner graph is searched for a perfect matching; larger
#: types get the odd-component test only (the search is exponential in the worst case).
MATCHING_MAX = 16


class Reach:
    """The partner test of the module docstring for one board and its rules. ``stranded``
    takes any position of that board (a :class:`Grid` of the same size, in play); positions
    are padded indices, as in :class:`Grid`."""

    def __init__(self, board: Board, rules: Rules):
        open_cells = tuple(0 if v != WALL else WALL for v in board.cells)
        grid = Grid(Board(board.rows, board.cols, open_cells), rules)
        g, w = grid.g, grid.w
        # Runs of the open board, as bitmasks over padded indices (the ring included when it
        # is passable). A path of at most two turns from x is row-column-row or
        # column-row-column: x's row run, a column run through one of its cells, a row run
        # through one of those. Every cell reached so links x (the path may fold back over
        # itself, but cutting it at the first visit of the end leaves a path of no more turns),
        # and every path is found so; so what x links depends only on its two runs.
        row_of: dict[int, int] = {}  # cell -> the mask of its row run
        col_of: dict[int, int] = {}
        for by, step, starts, length in ((row_of, 1, range(0, len(g), w), w),
                                         (col_of, w, range(w), len(g) // w)):
            for start in starts:
                cells: list[int] = []
                for i in range(length + 1):
                    p = start + i * step
                    if i < length and g[p] != WALL:
                        cells.append(p)
                    elif cells:
                        mask = sum(1 << q for q in cells)
                        for q in cells:
                            by[q] = mask
                        cells = []
        col_row: dict[int, int] = {}  # column run -> the cells one row run further
        row_col: dict[int, int] = {}
        for p in row_of:
            col_row[col_of[p]] = col_row.get(col_of[p], 0) | row_of[p]
            row_col[row_of[p]] = row_col.get(row_of[p], 0) | col_of[p]
        hvh: dict[int, int] = {}  # row run -> cells reached row-column-row
        vhv: dict[int, int] = {}
        for p in row_of:
            hvh[row_of[p]] = hvh.get(row_of[p], 0) | col_row[col_of[p]]
            vhv[col_of[p]] = vhv.get(col_of[p], 0) | row_col[row_of[p]]
        # span[p]: p and every cell between it and the gravity side of its run; reach[p]: the
        # cells other than itself that some cell of span[p] links. Built from the gravity side
        # outwards.
        self.span: dict[int, int] = {}
        self.reach: dict[int, int] = {}
        board_cells = [p for p in grid.cells if g[p] != WALL]
        for line in (grid.lines or [[p] for p in board_cells]):
            below_span, below_reach = 0, 0
            for p in line:
                if g[p] == WALL:
                    below_span, below_reach = 0, 0
                    continue
                below_span |= 1 << p
                below_reach |= (hvh[row_of[p]] | vhv[col_of[p]]) & ~(1 << p)
                self.span[p] = below_span
                self.reach[p] = below_reach

    def stranded(self, grid: Grid, deadline: float | None = None) -> tuple[int, list[Cell]] | None:
        """A type whose partner graph has no perfect matching, with the tiles that prove it
        (an odd component, or all the type's tiles); None if every type passed. The graph
        costs a test per pair of same-type tiles, on bit masks as wide as the board (seconds on
        a 64x64 board of two types): past ``deadline`` (a :func:`time.perf_counter` value),
        checked per tile, it raises :class:`~llkgen.verifier.verdict.OutOfBudget`."""
        span, reach = self.span, self.reach
        for t, tiles in grid.by_type().items():
            n = len(tiles)
            nbrs = [0] * n
            for i in range(n):
                if deadline is not None and time.perf_counter() > deadline:
                    raise OutOfBudget(Limit.SECONDS)
                ri = reach[tiles[i]]
                for j in range(i + 1, n):
                    if ri & span[tiles[j]]:
                        nbrs[i] = nbrs[i] | 1 << j  # not |=: mypyc compiles that to the generic operator
                        nbrs[j] = nbrs[j] | 1 << i
            odd = _odd_component(nbrs)
            if odd:
                return t, [grid.cell(tiles[i]) for i in range(n) if odd >> i & 1]
            if n <= MATCHING_MAX and not _matchable((1 << n) - 1, nbrs, set()):
                return t, [grid.cell(p) for p in tiles]
        return None


def _odd_component(nbrs: list[int]) -> int:
    """A connected component with an odd number of vertices, as a bitmask; 0 if none."""
    left = (1 << len(nbrs)) - 1
    while left:
        comp = frontier = left & -left
        while frontier:
            low = frontier & -frontier
            frontier ^= low
            new = nbrs[low.bit_length() - 1] & ~comp
            comp |= new
            frontier |= new
        if comp.bit_count() % 2:
            return comp
        left &= ~comp
    return 0


def _matchable(left: int, nbrs: list[int], failed: set[int]) -> bool:
    """Whether the vertices in ``left`` can be perfectly matched along ``nbrs``: the lowest
    one takes each of its neighbours in turn. ``failed`` remembers the sets proved
    unmatchable."""
    if not left:
        return True
    if left in failed:
        return False
    low = left & -left
    rest = left ^ low
    options = nbrs[low.bit_length() - 1] & rest
    while options:
        b = options & -options
        options ^= b
        if _matchable(rest ^ b, nbrs, failed):
            return True
    failed.add(left)
    return False
