"""Random small boards for the oracle tests: Hypothesis strategies and seeded generators.

A *case* is ``(grid, border, gravity)`` with ``grid`` a list of row lists
(0 empty, -1 wall, k >= 1 tile type k; every type occurs an even number of
times).  Turn one into library objects with ``Board.from_grid(grid)`` and
``Rules(border=border, gravity=gravity)``.

Two flavours of the same distribution:

* ``grids()`` / ``cases()`` are Hypothesis strategies (they shrink well:
  fewer rows, fewer walls, fewer tiles);
* ``random_grid(rng)`` / ``random_case(rng)`` / ``seeded_cases(seed, n)`` use
  an explicit ``random.Random`` so sweeps are deterministic and cheap.

``drawn(generator)`` turns a seeded generator into a strategy (Hypothesis draws every number the
generator asks of its ``rng``, so the board shrinks with them), and ``equivalence(n)`` is the
settings of every test that holds a C port or a shortcut to the plain code or to the oracle.

Tile types are drawn from a small alphabet and get 2, 4 or 6 copies each, so a
type may hold several interchangeable pairs, the case that trips up solvers.
"""

from __future__ import annotations

import random

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from oracle import GRAVITIES, oracle_gravity

MAX_ROWS = 5
MAX_COLS = 6
COPIES = (2, 4, 6)


def _layout(rows: int, cols: int, order: list[int], walls: int, tiles: list[int]) -> list[list[int]]:
    """Place ``walls`` walls then ``tiles`` on the cells in ``order``; the rest stay empty."""
    flat = [0] * (rows * cols)
    for cell in order[:walls]:
        flat[cell] = -1
    for cell, value in zip(order[walls:], tiles):
        flat[cell] = value
    return [flat[r * cols:(r + 1) * cols] for r in range(rows)]


def _tile_multiset(type_copies: list[tuple[int, int]], room: int) -> list[int]:
    """Tiles for (type, copies) requests, dropping requests that no longer fit in ``room``."""
    tiles: list[int] = []
    for kind, copies in type_copies:
        if len(tiles) + copies <= room:
            tiles.extend([kind] * copies)
    return tiles


# --------------------------------------------------------------------------- hypothesis


def equivalence(examples: int) -> settings:
    """The settings of an equivalence test (C against the Python it replaces, a shortcut against
    the plain search or the oracle): ``examples`` cases, the same ones on every run.

    ``derandomize=True`` draws them from a hash of the test, so a failure is the same shrunk
    board on every machine and every rerun; Hypothesis then keeps no example database (it
    refuses one beside ``derandomize``), so nothing on disk changes what runs. No deadline: the
    machine's load is not the test's business. ``print_blob`` prints the
    ``@reproduce_failure`` line of a failure."""
    return settings(max_examples=examples, derandomize=True, database=None, deadline=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def drawn(generator, *args, **kw) -> st.SearchStrategy:
    """``generator(rng, *args, **kw)`` as a strategy: every number it asks of ``rng`` is a
    Hypothesis draw, so a failing case shrinks (fewer rows, fewer tiles, the first choices) the
    way its draws do, whatever the generator builds."""
    return st.randoms(use_true_random=False).map(lambda rng: generator(rng, *args, **kw))


@st.composite
def grids(draw, max_rows: int = MAX_ROWS, max_cols: int = MAX_COLS, max_tiles: int = 12,
          max_types: int = 4, max_copies: int = 6, max_spare: int = 4,
          settle: bool | None = None, gravity: str = "none"):
    """A random small grid.

    Each cell draws a code: 0 empty, 1..max_types a tile type, max_types + 1 a
    wall, and up to ``max_spare`` further codes that also mean empty (how many
    is drawn per board, so some boards are sparse).  Then, scanning row-major,
    tiles past ``max_tiles`` or past ``max_copies`` of their type become empty,
    and so does the last tile of any type left with an odd count.  Small codes
    are simple, so failures shrink toward empty boards.

    ``settle``: True applies ``gravity`` once so the board is already at rest,
    False leaves it as drawn, None lets Hypothesis choose.
    """
    rows = draw(st.integers(1, max_rows), label="rows")
    cols = draw(st.integers(1, max_cols), label="cols")
    spare = draw(st.integers(0, max_spare), label="spare")
    wall = max_types + 1
    codes = draw(st.lists(st.integers(0, wall + spare), min_size=rows * cols,
                          max_size=rows * cols), label="codes")
    flat = [-1 if v == wall else v if v < wall else 0 for v in codes]
    count: dict[int, int] = {}
    total = 0
    for i, v in enumerate(flat):
        if v > 0:
            if total >= max_tiles or count.get(v, 0) >= max_copies:
                flat[i] = 0
            else:
                count[v] = count.get(v, 0) + 1
                total += 1
    for i in range(len(flat) - 1, -1, -1):
        v = flat[i]
        if v > 0 and count[v] % 2:
            flat[i] = 0
            count[v] -= 1
    grid = [flat[r * cols:(r + 1) * cols] for r in range(rows)]
    if settle is None:
        settle = draw(st.booleans(), label="settle")
    return oracle_gravity(grid, gravity) if settle else grid


@st.composite
def cases(draw, gravities: tuple[str, ...] = GRAVITIES, borders: tuple[bool, ...] = (True, False),
          **grid_kw):
    """(grid, border, gravity) with any rule combination."""
    border = draw(st.sampled_from(borders), label="border")
    gravity = draw(st.sampled_from(gravities), label="gravity")
    grid = draw(grids(gravity=gravity, **grid_kw), label="grid")
    return grid, border, gravity


# --------------------------------------------------------------------------- seeded


def random_grid(rng: random.Random, max_rows: int = MAX_ROWS, max_cols: int = MAX_COLS,
                max_tiles: int = 12, max_types: int = 6, copies: tuple[int, ...] = COPIES,
                wall_prob: float = 0.5, max_wall_fraction: float = 0.34,
                min_fill: float = 0.5) -> list[list[int]]:
    """A random small grid drawn only from ``rng``.

    A ``wall_prob`` share of boards get walls; the tiles fill at least
    ``min_fill`` of the free room (capped by ``max_tiles``), so most boards are
    crowded enough to be interesting.
    """
    rows = rng.randint(1, max_rows)
    cols = rng.randint(1, max_cols)
    n = rows * cols
    walls = rng.randint(1, int(n * max_wall_fraction)) if rng.random() < wall_prob and n >= 3 else 0
    room = min(n - walls, max_tiles)
    target = rng.randint(int(room * min_fill), room)
    kinds = list(range(1, max_types + 1))
    rng.shuffle(kinds)
    requests = []
    total = 0
    for kind in kinds:  # each type once, so it has exactly one of ``copies`` copies
        fitting = [k for k in copies if total + k <= target]
        if not fitting:
            break
        copies_now = rng.choice(fitting)
        requests.append((kind, copies_now))
        total += copies_now
    tiles = _tile_multiset(requests, room)
    order = list(range(n))
    rng.shuffle(order)
    return _layout(rows, cols, order, walls, tiles)


def random_case(rng: random.Random, settle_prob: float = 0.5, border_prob: float = 0.5, **grid_kw):
    """(grid, border, gravity); with probability ``settle_prob`` the grid is already at rest."""
    border = rng.random() < border_prob
    gravity = rng.choice(GRAVITIES)
    grid = random_grid(rng, **grid_kw)
    if rng.random() < settle_prob:
        grid = oracle_gravity(grid, gravity)
    return grid, border, gravity


def seeded_cases(seed: int, n: int, **kw) -> list[tuple[list[list[int]], bool, str]]:
    """``n`` deterministic cases from ``seed`` (same seed, same list)."""
    rng = random.Random(seed)
    return [random_case(rng, **kw) for _ in range(n)]


def grid_text(grid) -> str:
    """Readable rendering for failure messages ('.' empty, '#' wall)."""
    names = {0: ".", -1: "#"}
    return "\n".join(" ".join(names.get(v, str(v)) for v in row) for row in grid)


def drop_odd_tiles(cells: list[int]) -> list[int]:
    """``cells`` (a flat board) with the last tile of every type that occurs an odd number of
    times made empty, so every type's count is even."""
    counts: dict[int, int] = {}
    for v in cells:
        if v > 0:
            counts[v] = counts.get(v, 0) + 1
    out = list(cells)
    for i in reversed(range(len(out))):
        if out[i] > 0 and counts[out[i]] % 2:
            counts[out[i]] -= 1
            out[i] = 0
    return out


def positions_in_play(board, rules, rng: random.Random, moves: int) -> list:
    """``board`` and up to ``moves`` positions after random legal moves from it, as boards
    (fewer if play gets stuck): where the gravity proofs are checked beyond the root."""
    from llkgen.game.grid import Grid

    out = [board]
    for _ in range(moves):
        grid = Grid(out[-1], rules)
        legal = [(p, q) for tiles in grid.by_type().values() for i, p in enumerate(tiles)
                 for q in tiles[i + 1:] if grid.link(p, q)]
        if not legal:
            break
        grid.remove(*rng.choice(legal))
        out.append(grid.to_board())
    return out


def dropped_board(rng: random.Random, max_rows: int = 5, max_cols: int = 6, gravities=None,
                  odd: float = 0.0, scales: tuple[int, ...] = (1,), more_types: bool = False):
    """A board with tiles dropped on random cells (so most gravity starts are unsettled):
    walls sometimes, half to fully filled, 1 to many types, any rules; as ``(Board, Rules)``.
    ``gravities`` defaults to the four directions. The rest widen it for the C players' tests:
    ``odd``, the chance that one tile is dropped (a type with an odd count, never cleared);
    ``scales``, what type numbers are multiplied by (types need not be small or dense);
    ``more_types``, a third choice of type count. With the defaults it draws exactly what the C
    gravity search's tests have always drawn."""
    from llkgen.game.board import Board, Rules

    rows, cols = rng.randint(1, max_rows), rng.randint(1, max_cols)
    cells = [0] * (rows * cols)
    room = list(range(rows * cols))
    rng.shuffle(room)
    if rng.random() < 0.35:
        walls = rng.randint(1, max(1, rows * cols // 5))
        for i in room[:walls]:
            cells[i] = -1
        room = room[walls:]
    pairs = len(room) // 2
    if rng.random() < 0.4:
        pairs = rng.randint(0, pairs)
    choices = (pairs, max(1, pairs // 2), *((max(1, pairs // 3),) if more_types else ()),
               rng.randint(1, max(1, pairs)))
    types = max(1, rng.choice(choices))
    tiles = [1 + k % types for k in range(pairs) for _ in range(2)]
    if odd and tiles and rng.random() < odd:
        tiles.pop()
    rng.shuffle(tiles)
    scale = rng.choice(scales) if len(scales) > 1 else scales[0]
    for i, v in zip(room, tiles):
        cells[i] = v * scale
    gravity = rng.choice(gravities or ("down", "up", "left", "right"))
    return Board(rows, cols, tuple(cells)), Rules(border=rng.random() < 0.45, gravity=gravity)


# --------------------------------------------------------------------------- unusual shapes
# Board shapes the walled sweeps rarely draw, for the gravity proofs (tests/verifier/
# test_gravity_pruning.py): walls along the edge, one row or column, walls on half the board,
# walled pockets, a single type, and one type above the reach test's matching limit.

WALL = -1


def _place_types(rng: random.Random, grid: list[list[int]], counts: list[int], cap: int = 14) -> list[list[int]]:
    """Tiles of types 1, 2, ... with ``counts`` copies each on random free cells (at most
    ``cap`` tiles, whole types only)."""
    free = [(r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v == 0]
    rng.shuffle(free)
    tiles: list[int] = []
    for t, k in enumerate(counts, 1):
        if len(tiles) + k > min(cap, len(free)):
            break
        tiles += [t] * k
    for (r, c), t in zip(free, tiles):
        grid[r][c] = t
    return grid


def _shape_counts(rng: random.Random) -> list[int]:
    return [rng.choice((2, 2, 4, 4, 6)) for _ in range(5)]


def edge_walled(rng: random.Random) -> list[list[int]]:
    """Walls mostly on the board's edge cells: the ring runs around them."""
    rows, cols = rng.randint(2, 5), rng.randint(2, 6)
    p = rng.uniform(0.3, 0.9)
    grid = [[WALL if (r in (0, rows - 1) or c in (0, cols - 1)) and rng.random() < p
             or rng.random() < 0.1 else 0 for c in range(cols)] for r in range(rows)]
    return _place_types(rng, grid, _shape_counts(rng))


def thin(rng: random.Random) -> list[list[int]]:
    """1 x N or N x 1, some walls."""
    n = rng.randint(2, 14)
    line = [WALL if rng.random() < 0.2 else 0 for _ in range(n)]
    (line,) = _place_types(rng, [line], _shape_counts(rng), cap=12)
    return [line] if rng.random() < 0.5 else [[v] for v in line]


def dense_walls(rng: random.Random) -> list[list[int]]:
    rows, cols = rng.randint(2, 6), rng.randint(2, 6)
    p = rng.uniform(0.35, 0.65)
    grid = [[WALL if rng.random() < p else 0 for _ in range(cols)] for _ in range(rows)]
    return _place_types(rng, grid, _shape_counts(rng))


def single_type(rng: random.Random) -> list[list[int]]:
    rows, cols = rng.randint(2, 5), rng.randint(2, 6)
    p = rng.uniform(0.1, 0.5)
    grid = [[WALL if rng.random() < p else 0 for _ in range(cols)] for _ in range(rows)]
    return _place_types(rng, grid, [rng.choice((4, 6)), 2][: rng.randint(1, 2)])


def pocket(rng: random.Random) -> list[list[int]]:
    """A walled rectangle inside the board: its inside is a component of its own even with
    the border ring on. Pairs on each side; sometimes one tile swapped across, so each side
    is odd in two types while the board's counts stay even."""
    rows, cols = rng.randint(4, 6), rng.randint(4, 7)
    grid = [[0] * cols for _ in range(rows)]
    r0, c0 = rng.randint(0, rows - 3), rng.randint(0, cols - 3)
    h, w = rng.randint(3, min(4, rows - r0)), rng.randint(3, min(5, cols - c0))
    for r in range(r0, r0 + h):
        for c in range(c0, c0 + w):
            if r in (r0, r0 + h - 1) or c in (c0, c0 + w - 1):
                grid[r][c] = WALL
    inside = [(r, c) for r in range(r0 + 1, r0 + h - 1) for c in range(c0 + 1, c0 + w - 1)]
    outside = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] == 0 and (r, c) not in inside]
    for cells, pairs in ((inside, rng.randint(1, 3)), (outside, rng.randint(1, 5))):
        rng.shuffle(cells)
        for i in range(min(pairs, len(cells) // 2)):
            t = rng.randint(1, 3)
            for r, c in cells[2 * i: 2 * i + 2]:
                grid[r][c] = t
    a = [x for x in inside if grid[x[0]][x[1]] > 0]
    b = [x for x in outside if grid[x[0]][x[1]] > 0]
    if a and b and rng.random() < 0.3:
        (ra, ca), (rb, cb) = rng.choice(a), rng.choice(b)
        grid[ra][ca], grid[rb][cb] = grid[rb][cb], grid[ra][ca]
    return grid


def big_type(rng: random.Random) -> list[list[int]]:
    """One type above the reach test's MATCHING_MAX tiles: only the odd-component test applies to it."""
    from llkgen.verifier.reach import MATCHING_MAX

    rows, cols = rng.randint(4, 5), rng.randint(4, 5)
    p = rng.uniform(0.1, 0.3)
    grid = [[WALL if rng.random() < p else 0 for _ in range(cols)] for _ in range(rows)]
    free = sum(row.count(0) for row in grid)
    return _place_types(rng, grid, [min(free // 2 * 2, MATCHING_MAX + 2)], cap=MATCHING_MAX + 2)


SHAPES = {"edge": edge_walled, "thin": thin, "dense": dense_walls, "single": single_type,
            "pocket": pocket}


def shape_cases(family: str, seed: int, n: int, settle: float = 0.5) -> list[tuple[list[list[int]], bool, str]]:
    """``n`` seeded ``(grid, border, gravity)`` of one of :data:`SHAPES` (or ``"big"``, :func:`big_type`),
    a ``settle`` share of them settled under their gravity."""
    rng = random.Random(seed)
    out: list[tuple[list[list[int]], bool, str]] = []
    while len(out) < n:
        grid = SHAPES[family](rng) if family in SHAPES else big_type(rng)
        if not any(v > 0 for row in grid for v in row):
            continue
        gravity, border = rng.choice(GRAVITIES), rng.random() < 0.5
        if gravity != "none" and rng.random() < settle:
            grid = oracle_gravity(grid, gravity)
        out.append((grid, border, gravity))
    return out
