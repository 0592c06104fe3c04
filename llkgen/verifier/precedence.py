"""Tiles that wait for each other: a set of tiles none of which can go before another of them.

**The setting.** A *settled* board under gravity (every run -- a column for ``down``/``up``,
a row for ``left``/``right``, cut by walls -- packed against its gravity side; every board
after a move is settled). A run's tiles keep their order for ever, and a tile's cell is the
run's cell whose index (from the gravity side) is the number of tiles still below it (nearer
the gravity side) in its run.

**Covers.** Look at a tile ``x`` and its four neighbours now. ``x`` is *coverable* when none
of them is an empty cell (a board cell, or a ring cell with ``border`` on) and none holds a
tile of ``x``'s type. Its *cover* ``S(x)`` is the set of tiles that keep those neighbours as
they are:

* every tile below ``x`` in its run (they keep ``x`` in its cell) and the tile just beyond
  it, if any (with the tiles below ``x`` present it stays right beyond ``x``);
* for each neighbour across the run (the cells beside ``x`` in the two neighbouring lines)
  that holds a tile ``u``: the tiles of ``u``'s run from its gravity end up to ``u``
  (with them present, ``u`` stays in its cell, being the tile at that index).

Walls never move, and a ring cell with ``border`` off is a wall. So while every tile of
``S(x)`` is there, ``x`` holds its cell and each of its neighbours holds what it holds now:
a wall, or a tile that is not of ``x``'s type. A path of a removal leaves ``x`` through an
empty neighbour, or the move pairs ``x`` with a tile next to it; neither exists, so ``x``
cannot be removed while its whole cover is on the board.

**The set.** For a set ``Z`` of tiles call ``x`` *held* by ``Z`` when it is coverable and
``S(x)`` lies in ``Z``. Start from ``Z`` = every tile, and drop from ``Z`` every tile that is
neither held by ``Z`` nor of a type whose every other tile is held by ``Z``, until a pass
drops none. If ``Z`` is not empty, the board can never be cleared.

**Why it is sound.** Take any sequence of legal moves and its first move that removes a tile
of ``Z``, say ``x``, together with ``y``. Before it every tile of ``Z`` is still on the board.
If ``x`` is held by ``Z`` its whole cover is there, so ``x`` cannot be removed (above). Else
every other tile of ``x``'s type is held by ``Z``, ``y`` among them, and ``y`` cannot be
removed. Either way the move is not legal: no move ever removes a tile of ``Z``, and the
board is never cleared. (A type with a single tile left is held for free, as it should be:
it has no partner.) ``Z`` is in effect a cycle of precedences: each of its tiles waits for
some other tile of ``Z`` to go first (its cover, or its partners' covers), so none can go
first. The classic case is two stacks, ``X`` over ``Y`` beside ``Y`` over ``X``, boxed in.

**Where it holds.** Every gravity direction and either border setting, with or without
walls; nothing else about the rules is assumed (only that a path leaves a tile through an
empty neighbour, which the link rule of every setting keeps). It needs a settled board: on
one that is not, the first move makes tiles slide, so :func:`precedence_cycle` answers None
rather than argue. Without gravity a tile never moves and the lock test of
:mod:`llkgen.verifier.lock` is stronger, so it answers None there too.

**Why it is not a stage of the verifier.** The lock test for gravity
(:mod:`llkgen.verifier.gravlock`) proves at least as much: with ``Z`` among the tiles it keeps,
its relaxation finds no open cell beside a held tile (the cover keeps the tiles below it and
beside it counted) and no partner that could come next to it, so no tile of ``Z`` ever joins
its removable set (``tests/verifier/test_precedence.py`` checks every tile named here is one it calls
locked). This argument is only cheaper: 1.4 ms on a random 12x18 board in pure Python, against
25-50 ms. Measured, that bought nothing: it fired on none of the 141 real gravity boards, none
of 40 random 12x18 roots and none of the positions along random lines of play on the boards
the search leaves open (``benchmarks/gravity_profile.py``); on 400 random boards of 6-10 x 6-12
it fired on 40, all of which the verifier's stages decide with at most a few search nodes
(docs/verifier.md, "Not a stage: the precedence argument"; the figures in docs/benchmarks.md).
It is kept, held to the oracle, as a building block for a node test cheap enough for the C
search.
"""

from __future__ import annotations

from dataclasses import dataclass

from llkgen.game.board import WALL, Board, Cell, Gravity, Rules
from llkgen.game.grid import Grid
from llkgen.verifier.gravlock import grid_runs


@dataclass(frozen=True)
class PrecedenceCycle:
    """The evidence of the module docstring's argument: ``tiles``, the set ``Z`` (row-major
    cells), none of which can ever be removed, and ``types``, their types in increasing
    order."""

    tiles: list[Cell]
    types: list[int]


def covers(grid: Grid) -> dict[int, frozenset[int] | None]:
    """Each tile's cover (module docstring), keyed and valued by padded cells; None for a
    tile that is not coverable. ``grid`` must be settled and under gravity."""
    g = grid.g
    run_of: dict[int, list[int]] = {}
    index: dict[int, int] = {}
    for cells in grid_runs(grid):
        for i, p in enumerate(cells):
            run_of[p] = cells
            index[p] = i
    out: dict[int, frozenset[int] | None] = {}
    for p in grid.cells:
        t = g[p]
        if t <= 0:
            continue
        cells = run_of[p]
        i = index[p]
        along = {cells[i - 1] if i else -1, cells[i + 1] if i + 1 < len(cells) else -1}
        cover = set(cells[:i])
        coverable = True
        for q in _neighbours(grid, p):
            v = g[q]
            if v == 0 or v == t:  # an empty neighbour (a board or ring cell), or a partner beside it
                coverable = False
                break
            if v == WALL:
                continue
            if q in along:  # in x's own run: the tile below is in already, the one beyond is added
                cover.add(q)
            else:
                across = run_of[q]
                cover.update(across[:index[q] + 1])
        out[p] = frozenset(cover) if coverable else None
    return out


def _neighbours(grid: Grid, p: int) -> tuple[int, int, int, int]:
    w = grid.w
    return p - w, p + w, p - 1, p + 1


def precedence_cycle(board: Board, rules: Rules) -> PrecedenceCycle | None:
    """The set ``Z`` of the module docstring when it is not empty: a proof that ``board`` can
    never be cleared under ``rules``. None when it is empty, when the board is not settled,
    or without gravity (the argument is then not made)."""
    if rules.gravity == Gravity.NONE:
        return None
    grid = Grid(board, rules)
    if not grid.settled:
        return None
    g = grid.g
    cover = covers(grid)
    by_type = grid.by_type()
    zset = set(cover)
    while True:
        held = {p for p in zset if (c := cover[p]) is not None and c <= zset}
        keep = {p for p in zset if p in held or all(q in held for q in by_type[g[p]] if q != p)}
        if keep == zset:
            break
        zset = keep
    if not zset:
        return None
    return PrecedenceCycle(sorted(grid.cell(p) for p in zset), sorted({g[p] for p in zset}))
