"""Tiles held in place by each other: a lock test that holds when tiles fall.

**The argument.** On a *settled* board (every run packed against its gravity side) a tile
moves only when a tile between it and the gravity end of its run is removed. Take a set
``S`` of tiles such that

1. ``S`` holds every tile of each type it contains (*closed under type*);
2. every tile between a tile of ``S`` and the gravity end of its run is in ``S`` (*grounded*);
3. no two tiles of one type in ``S`` link on the board that holds only the tiles of ``S`` (and
   the walls): every other cell empty.

Then the board can never be cleared. In a clearing, look at the first removal of a tile of
``S``. It removes two tiles of one type, both in ``S`` by (1). Until then every tile of ``S``
remains, so by (2) none of them has moved: they stand where they stand now. The removal's
path runs through cells empty at that moment; each of them holds no tile of ``S``, so it is
empty on the board of (3) too, and the ring is the same. So the same path joins the two tiles
on that board, against (3).

**Finding ``S``.** For each type, the smallest set that satisfies (1) and (2) and holds the
type: its tiles, the tiles below them (towards the gravity side), every tile of those tiles'
types, the tiles below those, and so on (:func:`closure`). It is capped at :data:`MAX_TILES`
tiles, because a tile high in a run pulls in the whole run beneath it. Condition (3) is then
one link test per pair of same-type tiles of the set, on a board built for it.

**Where it holds.** Every gravity direction and either border setting, on settled boards (an
unsettled board's first removal can move any floating tile, so the test declines it: it
returns None). Without gravity no tile ever moves and the argument holds as it stands; the
verifier has a stronger lock test there (:mod:`llkgen.verifier.lock`) and uses this one only
under gravity.

**What it catches.** The crossed pairs of a gravity game: ``A B`` over ``B A`` at the bottom
of two columns (gravity down), the last two tiles of each type. Neither pair can link while
the other stands, and neither can move. italankin's Shisen-Sho engine tests its solvable-board
builder on three boards built around such a block (``../shared/real-boards``,
``italankin-fx-CreateSolvable-gravity*``). The move search alone left two of them undecided
after 120 s and 5 million nodes; this test refutes them at the root in a millisecond. On random
full boards it never fired, at the root or at any node of the move search (10x16, down and
left), so the verifier runs it at the root only.
"""

from __future__ import annotations

import time

from llkgen.game.board import WALL, Board, Cell, Gravity, Rules
from llkgen.game.grid import PAD, Grid
from llkgen.verifier.verdict import OutOfBudget

#: The largest set :func:`grounded_lock` tests, in tiles: closures larger than this are skipped.
MAX_TILES = 32


def _step(grid: Grid) -> int:
    """The padded-index step of a falling tile."""
    return {Gravity.DOWN: grid.w, Gravity.UP: -grid.w, Gravity.LEFT: -1, Gravity.RIGHT: 1}[Gravity(grid.gravity)]


def closure(grid: Grid, t: int, by_type: dict[int, list[int]],
            limit: int = MAX_TILES) -> tuple[set[int], list[int]] | None:
    """The smallest set of tiles closed under type and grounded (conditions 1 and 2 of the
    module docstring) that holds the tiles of type ``t``: its types and its tiles (padded
    indices); None when it has more than ``limit`` tiles. ``grid`` is settled, under gravity."""
    g, step = grid.g, _step(grid)
    types, todo, tiles = {t}, [t], []
    while todo:
        for p in by_type[todo.pop()]:
            tiles.append(p)
            q = p + step
            while g[q] > 0:  # the tiles below p, down to the wall, ring or edge that ends the run
                v = g[q]
                if v not in types:
                    types.add(v)
                    todo.append(v)
                q += step
        if len(tiles) > limit:
            return None
    return types, tiles


def _unlinked(grid: Grid, rules: Rules, tiles: list[int]) -> bool:
    """Condition 3: no two tiles of one type among ``tiles`` link on the board holding only
    them (and the walls)."""
    g, w, cols = grid.g, grid.w, grid.cols
    cells = [WALL if g[(r + PAD) * w + c + PAD] == WALL else 0 for r in range(grid.rows) for c in range(cols)]
    for p in tiles:
        cells[(p // w - PAD) * cols + p % w - PAD] = g[p]
    link = Grid(Board(grid.rows, cols, tuple(cells)), rules).link
    for i, p in enumerate(tiles):
        for q in tiles[i + 1:]:
            if g[p] == g[q] and link(p, q):
                return False
    return True


def grounded_lock(grid: Grid, rules: Rules, limit: int = MAX_TILES, *,
                  deadline: float | None = None) -> tuple[list[int], list[Cell]] | None:
    """A set of tiles that proves ``grid`` can never be cleared (module docstring): its types,
    sorted, and its cells, row-major; None if no type's closure of at most ``limit`` tiles is
    one, or if the board is not settled. ``grid`` is a position of a game with ``rules``. Past
    ``deadline`` (a :func:`time.perf_counter` value, checked per type) it raises
    :class:`~llkgen.verifier.verdict.OutOfBudget`."""
    if rules.gravity == Gravity.NONE:
        raise ValueError("grounded_lock is for boards under gravity (without it, see llkgen.verifier.lock)")
    if not grid.is_settled():
        return None
    by_type = grid.by_type()
    tried: set[frozenset[int]] = set()
    for t in by_type:
        if deadline is not None and time.perf_counter() > deadline:
            raise OutOfBudget("seconds")
        found = closure(grid, t, by_type, limit)
        if found is None:
            continue
        types, tiles = found
        key = frozenset(types)
        if key in tried:
            continue
        tried.add(key)
        if _unlinked(grid, rules, tiles):
            return sorted(types), sorted(grid.cell(p) for p in tiles)
    return None
