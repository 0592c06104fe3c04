"""Tiles that can never be removed, wherever gravity takes them: a lock test for gravity.

**The setting.** A *settled* board under gravity (every run -- a column for ``down``/``up``,
a row for ``left``/``right``, cut by walls -- has its tiles packed against the gravity side;
every board after a move is settled). A run's tiles keep their order for ever: if ``x`` is
the ``i``-th tile of its run from the gravity side now, then at any later time it holds the
run's ``j``-th cell, ``j`` the number of tiles below it (nearer the gravity side) still
there, and the run's cells from the number of its tiles still there outwards are empty.

**The relaxation.** For a set ``D`` of tiles (the tiles that *might* have been removed), and
two tiles ``x``, ``y`` of one type, let ``P`` be the tiles outside ``D``, with ``x`` and ``y``.
Call ``(x, y)`` *possible under D* when there are indices ``j`` for ``x`` and ``k`` for ``y``
in their runs such that:

* ``j`` lies between the number of ``P`` tiles below ``x`` (nearer the gravity side) and
  ``x``'s index now, and ``k`` likewise for ``y``; if they share a run, ``j`` and ``k``
  are in the order ``x`` and ``y`` are in now;
* the cells ``a`` (index ``j`` of ``x``'s run) and ``b`` (index ``k`` of ``y``'s) are
  neighbours, or are joined by a path of at most two turns whose every interior cell is
  *open*: a ring cell when ``border`` is on, or a run's cell at an index at least the number of
  that run's ``P`` tiles, and, in the run of ``x``, at least ``j + 1`` plus the number of its
  ``P`` tiles beyond ``x`` (the same for ``y`` with ``k``). Walls are never open.

Start from ``D`` empty, and add to ``D`` every tile that has a partner with which it is
possible under ``D``, until a pass over the tiles adds none. The tiles left outside ``D`` are
*locked*.

**Why it is sound.** Only the last pass matters: it shows that the final ``D`` is *closed*,
no tile outside it being possible with any partner under it. Take any sequence of legal moves
from the board, and suppose (induction) that every tile its first ``k - 1`` moves removed is in
``D``. The ``k``-th move removes ``x`` and ``y``; the tiles still there just before it include
every tile outside ``D``, and ``x`` and ``y``: all of ``P``. So ``x`` holds the cell whose
index is the number of tiles below it still there, at least the ``P`` tiles below it and at
most its index now, and its run then holds that many tiles, ``x`` and at least the ``P``
tiles beyond it, packed from the gravity side; the same for ``y``, in their order if they
share a run. Every interior cell of the move's path is empty: a ring cell (border on) or a
run's cell beyond the tiles the run holds then, which by the counts above is open. So
``(x, y)`` is possible under ``D``, and as ``D`` is closed, ``x`` and ``y`` are in ``D``. So
no move ever removes a locked tile, and a board with a locked tile can never be cleared. (A
pass tests every tile against the ``D`` of the pass's start. The test only gets easier as
``D`` grows -- ``P`` shrinks, so the ranges widen and more cells are open -- and the last
pass, which adds nothing, is made with the final ``D``.)

**Where it holds.** Every gravity direction and either border setting, walls or none; and
gravity ``none``, where each cell is a run of its own, so a tile never moves and the test is the
no-gravity lock test (:mod:`llkgen.verifier.lock`). It needs a settled board: on one that is
not, the first move makes tiles slide across the cells the ranges above describe, so
:func:`gravity_locked` refuses (``ValueError``) rather than answer.

**What it catches, and what it misses.** Tiles that are buried by tiles that are themselves
buried, with no partner that could ever be brought within reach: the crossing pairs
``16 17 / 17 16`` in a bottom corner under gravity down, which no path of two turns can join
before one of them goes, lock the real board ``italankin-fx-CreateSolvable-gravity-0-down``
(7x12, border on), which the move search did not refute in 10 s. On seeded small boards it
finds most unsolvable ones (``tests/verifier/test_gravlock.py``). On random full boards (10x16,
40 types x 4) it locks nothing at the root even where only a few tiles can ever be removed:
there a tile is possible with a partner whenever each could be brought into reach at *some*
time, and the relaxation cannot tell that no one sequence of moves brings both at once
(``docs/benchmarks.md``, "The verifier under gravity").
"""

from __future__ import annotations

import time

from llkgen.game.board import WALL, Board, Cell, Gravity, Rules
from llkgen.game.grid import Grid, crossing, run
from llkgen.verifier.verdict import Limit, OutOfBudget


def gravity_locked(board: Board, rules: Rules, deadline: float | None = None) -> list[Cell]:
    """The tiles of ``board`` that can never be removed under ``rules`` (module docstring),
    row-major; empty when the relaxation removes every tile. ``board`` must be settled under
    ``rules.gravity`` (``ValueError`` otherwise). Past ``deadline`` (a
    :func:`time.perf_counter` value), checked once a tile, it raises
    :class:`~llkgen.verifier.verdict.OutOfBudget`."""
    grid = Grid(board, rules)
    if not grid.settled:
        raise ValueError("the gravity lock test needs a settled board: tiles would slide at the first move")
    g, w = grid.g, grid.w
    R, C = grid.R, grid.C
    runs = grid_runs(grid)
    # Tiles: run, index in it; the run's tiles in order (settled: they fill its first cells).
    tile_run: list[int] = []
    tile_idx: list[int] = []
    tile_cell: list[int] = []
    run_tiles: list[list[int]] = []
    for k, cells in enumerate(runs):
        ids = []
        for i, p in enumerate(cells):
            if g[p] > 0:
                ids.append(len(tile_cell))
                tile_run.append(k)
                tile_idx.append(i)
                tile_cell.append(p)
        run_tiles.append(ids)
    n = len(tile_cell)
    by_type: dict[int, list[int]] = {}
    for x in range(n):
        by_type.setdefault(g[tile_cell[x]], []).append(x)
    # The ring: open exactly when border is on (the padded grid holds 0 there, else a wall).
    h = len(g) // w
    ring_rows = [0] * h
    ring_cols = [0] * w
    for p in range(len(g)):
        if g[p] == 0 and not (2 <= R[p] < h - 2 and 2 <= C[p] < w - 2):
            ring_rows[R[p]] |= 1 << C[p]
            ring_cols[C[p]] |= 1 << R[p]

    gone = [False] * n
    while True:
        # This pass's D: counts of tiles outside it, per run and below each tile, and the
        # open cells as row and column masks.
        count = [0] * len(runs)
        below = [0] * n
        for k, ids in enumerate(run_tiles):
            c = 0
            for x in ids:
                below[x] = c
                if not gone[x]:
                    c += 1
            count[k] = c
        rowbits = list(ring_rows)
        colbits = list(ring_cols)
        for k, cells in enumerate(runs):
            for p in cells[count[k]:]:
                rowbits[R[p]] |= 1 << C[p]
                colbits[C[p]] |= 1 << R[p]
        start = list(gone)  # the D the counts and masks above describe
        added = False
        for x in range(n):
            if gone[x]:
                continue
            if deadline is not None and time.perf_counter() > deadline:
                raise OutOfBudget(Limit.SECONDS)
            for y in by_type[g[tile_cell[x]]]:
                if y != x and _possible(x, y, start, tile_run, tile_idx, below, count, runs, rowbits, colbits, R, C):
                    gone[x] = True
                    added = True
                    break
        if not added:
            break
    return sorted(grid.cell(tile_cell[x]) for x in range(n) if not gone[x])


def grid_runs(grid: Grid) -> list[list[int]]:
    """The runs of ``grid``'s board, each a list of padded cells from its gravity side (walls
    cut them); without gravity every non-wall cell is a run of its own."""
    g = grid.g
    if grid.gravity == Gravity.NONE:
        return [[p] for p in grid.cells if g[p] != WALL]
    runs: list[list[int]] = []
    for line in grid.lines:
        cur: list[int] = []
        for p in line:
            if g[p] == WALL:
                if cur:
                    runs.append(cur)
                cur = []
            else:
                cur.append(p)
        if cur:
            runs.append(cur)
    return runs


def _possible(x: int, y: int, gone: list[bool], tile_run: list[int], tile_idx: list[int], below: list[int],
              count: list[int], runs: list[list[int]], rowbits: list[int], colbits: list[int],
              R: tuple[int, ...], C: tuple[int, ...]) -> bool:
    """Whether ``(x, y)`` is possible under the pass's D, ``gone`` (module docstring): ``x``
    outside D, ``y`` in it or not (present either way). For each index ``j`` of ``x`` and
    ``k`` of ``y`` in their ranges, the run of ``x`` holds at least ``j + 1`` plus its ``P``
    tiles beyond ``x`` tiles at that moment, so its cells up to there are closed whatever the
    counts say; likewise for ``y``; and two tiles of one run keep their order."""
    rx, ry = tile_run[x], tile_run[y]
    ix, iy = tile_idx[x], tile_idx[y]
    same = rx == ry
    y_in_d = 1 if gone[y] else 0
    # P tiles below and beyond each (x is outside D, so below[y] already counts it if below y)
    lo_x = below[x] + (y_in_d if same and iy < ix else 0)
    beyond_x = count[rx] - below[x] - 1 + (y_in_d if same and iy > ix else 0)
    lo_y = below[y]
    beyond_y = count[ry] - below[y] - 1 + y_in_d
    run_x, run_y = runs[rx], runs[ry]
    for j in range(lo_x, ix + 1):
        a = run_x[j]
        ext_x = j + 1 + beyond_x  # the run of x is full below this index
        ra, ca = R[a], C[a]
        for k in range(lo_y, iy + 1):
            if same and (k - j) * (iy - ix) <= 0:
                continue  # order kept, cells distinct
            b = run_y[k]
            rb, cb = R[b], C[b]
            if (ra == rb and (ca - cb == 1 or cb - ca == 1)) or (ca == cb and (ra - rb == 1 or rb - ra == 1)):
                return True
            ext_y = k + 1 + beyond_y
            rows, cols = list(rowbits), list(colbits)
            if same:
                _close(run_x, count[rx], max(ext_x, ext_y), rows, cols, R, C)
            else:
                _close(run_x, count[rx], ext_x, rows, cols, R, C)
                _close(run_y, count[ry], ext_y, rows, cols, R, C)
            if crossing(rows, cols, ra, ca, rb, cb, run(rows[ra], ca), run(rows[rb], cb), run(cols[ca], ra),
                        run(cols[cb], rb)) is not None:
                return True
    return False


def _close(cells: list[int], start: int, stop: int, rows: list[int], cols: list[int],
           R: tuple[int, ...], C: tuple[int, ...]) -> None:
    """Clear the run's cells ``start`` to ``stop - 1`` from the open masks."""
    for p in cells[start:stop]:
        rows[R[p]] &= ~(1 << C[p])
        cols[C[p]] &= ~(1 << R[p])
