"""The gravity proofs (:mod:`llkgen.verifier.components`, :mod:`llkgen.verifier.reach`) on
board shapes that ``tests/test_gravity_pruning.py`` does not draw: walls along the board's
edge (where the border ring runs around them), one-row and one-column boards, walls making up
half the board, walled pockets that the ring cannot reach, a single type of four to six tiles,
and types above :data:`~llkgen.verifier.reach.MATCHING_MAX` tiles.

* the partner test's tables are recomputed here cell by cell from the oracle's path
  enumerator (a span walked by hand, every link of every span cell), for every gravity
  direction and both border settings, and must be equal bit for bit;
* its matching helpers are compared with a plain memoised matching search;
* ``verify`` must agree with brute force on each family, and its witnesses must replay in
  the oracle's own referee.
"""

from __future__ import annotations

import random
from functools import lru_cache

import pytest

from llkgen.game.board import Board, Gravity, Rules
from llkgen.game.grid import PAD
from llkgen.verifier import Budget, verify
from llkgen.verifier.components import components
from llkgen.verifier.reach import MATCHING_MAX, Reach, _matchable, _odd_component

from oracle import brute_solution, linkable, oracle_gravity, oracle_replay

WALL = -1
GRAVITIES = ("none", "down", "up", "left", "right")
FALL = {"none": (0, 0), "down": (1, 0), "up": (-1, 0), "left": (0, -1), "right": (0, 1)}


# --------------------------------------------------------------------------- boards


def _place(rng: random.Random, grid: list[list[int]], counts: list[int], cap: int = 14) -> list[list[int]]:
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


def _counts(rng: random.Random) -> list[int]:
    return [rng.choice((2, 2, 4, 4, 6)) for _ in range(5)]


def edge_walled(rng: random.Random) -> list[list[int]]:
    """Walls mostly on the board's edge cells: the ring runs around them."""
    rows, cols = rng.randint(2, 5), rng.randint(2, 6)
    p = rng.uniform(0.3, 0.9)
    grid = [[WALL if (r in (0, rows - 1) or c in (0, cols - 1)) and rng.random() < p
             or rng.random() < 0.1 else 0 for c in range(cols)] for r in range(rows)]
    return _place(rng, grid, _counts(rng))


def thin(rng: random.Random) -> list[list[int]]:
    """1 x N or N x 1, some walls."""
    n = rng.randint(2, 14)
    line = [WALL if rng.random() < 0.2 else 0 for _ in range(n)]
    (line,) = _place(rng, [line], _counts(rng), cap=12)
    return [line] if rng.random() < 0.5 else [[v] for v in line]


def dense_walls(rng: random.Random) -> list[list[int]]:
    rows, cols = rng.randint(2, 6), rng.randint(2, 6)
    p = rng.uniform(0.35, 0.65)
    grid = [[WALL if rng.random() < p else 0 for _ in range(cols)] for _ in range(rows)]
    return _place(rng, grid, _counts(rng))


def single_type(rng: random.Random) -> list[list[int]]:
    rows, cols = rng.randint(2, 5), rng.randint(2, 6)
    p = rng.uniform(0.1, 0.5)
    grid = [[WALL if rng.random() < p else 0 for _ in range(cols)] for _ in range(rows)]
    return _place(rng, grid, [rng.choice((4, 6)), 2][: rng.randint(1, 2)])


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
    """One type above MATCHING_MAX tiles: only the odd-component test applies to it."""
    rows, cols = rng.randint(4, 5), rng.randint(4, 5)
    p = rng.uniform(0.1, 0.3)
    grid = [[WALL if rng.random() < p else 0 for _ in range(cols)] for _ in range(rows)]
    free = sum(row.count(0) for row in grid)
    return _place(rng, grid, [min(free // 2 * 2, MATCHING_MAX + 2)], cap=MATCHING_MAX + 2)


FAMILIES = {"edge": edge_walled, "thin": thin, "dense": dense_walls, "single": single_type,
            "pocket": pocket}


def _cases(family: str, seed: int, n: int, settle: float = 0.5):
    rng = random.Random(seed)
    out: list[tuple[list[list[int]], bool, str]] = []
    while len(out) < n:
        grid = FAMILIES[family](rng) if family in FAMILIES else big_type(rng)
        if not any(v > 0 for row in grid for v in row):
            continue
        gravity, border = rng.choice(GRAVITIES), rng.random() < 0.5
        if gravity != "none" and rng.random() < settle:
            grid = oracle_gravity(grid, gravity)
        out.append((grid, border, gravity))
    return out


# --------------------------------------------------------------------------- reach tables


def _expected_tables(grid, border: bool, gravity: str) -> tuple[dict[int, int], dict[int, int]]:
    """``Reach.span`` and ``Reach.reach`` recomputed by hand: each span walked cell by cell
    towards the gravity side, each link asked of the oracle's path enumerator on the open
    board (ring cells included as ends when ``border``)."""
    rows, cols = len(grid), len(grid[0])
    w = cols + 2 * PAD
    open_grid = [[WALL if v == WALL else 0 for v in row] for row in grid]
    dr, dc = FALL[gravity]

    def pid(cell):
        return (cell[0] + PAD) * w + cell[1] + PAD

    ends = [(r, c) for r in range(rows) for c in range(cols) if grid[r][c] != WALL]
    if border:
        ends += [(r, c) for r in range(-1, rows + 1) for c in range(-1, cols + 1)
                 if not (0 <= r < rows and 0 <= c < cols)]
    span, reach = {}, {}
    for r, c in ends:
        if not (0 <= r < rows and 0 <= c < cols):
            continue
        cells = [(r, c)]
        while gravity != "none":
            nr, nc = cells[-1][0] + dr, cells[-1][1] + dc
            if not (0 <= nr < rows and 0 <= nc < cols) or grid[nr][nc] == WALL:
                break
            cells.append((nr, nc))
        span[pid((r, c))] = sum(1 << pid(x) for x in cells)
        reach[pid((r, c))] = sum(1 << pid(y) for y in ends
                                 if any(y != x and linkable(open_grid, x, y, border) for x in cells))
    return span, reach


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_reach_tables_equal_a_cell_by_cell_recomputation(family):
    """Every direction and border setting: the index arithmetic of runs, spans and the
    two-turn closure, bit for bit."""
    for grid, border, gravity in _cases(family, 20261220 + len(family), 40):
        if len(grid) * len(grid[0]) > 24:
            continue
        board = Board.from_grid(grid)
        reach = Reach(board, Rules(border=border, gravity=Gravity(gravity)))
        span, linked = _expected_tables(grid, border, gravity)
        assert set(reach.span) == set(span)
        for p in span:
            assert (reach.span[p], reach.reach[p]) == (span[p], linked[p]), (grid, border, gravity, p)


def _perfect_matching(nbrs: tuple[int, ...]) -> bool:
    """Whether the graph has a perfect matching: the lowest vertex left tries every
    neighbour, memoised on the set of vertices left."""

    @lru_cache(None)
    def perfect(left: int) -> bool:
        if not left:
            return True
        i = (left & -left).bit_length() - 1
        rest = left & ~(1 << i)
        return any(perfect(rest & ~(1 << j)) for j in range(len(nbrs)) if rest >> j & 1 and nbrs[i] >> j & 1)

    return perfect((1 << len(nbrs)) - 1)


def test_matching_helpers_agree_with_a_plain_matching_search():
    rng = random.Random(20261221)
    for _ in range(3000):
        n, p = rng.randint(1, 10), rng.random()
        nbrs = [0] * n
        for i in range(n):
            for j in range(i + 1, n):
                if rng.random() < p:
                    nbrs[i] |= 1 << j
                    nbrs[j] |= 1 << i
        truth = _perfect_matching(tuple(nbrs))
        assert _matchable((1 << n) - 1, nbrs, set()) == truth
        odd = _odd_component(nbrs)
        if odd:
            assert not truth and odd.bit_count() % 2
            closed = 0  # the mask is a union of whole components: no edge leaves it
            for i in range(n):
                if odd >> i & 1:
                    closed |= nbrs[i]
            assert closed & ~odd == 0


# --------------------------------------------------------------------------- verify


def _check(grid, border: bool, gravity: str) -> str:
    board, rules = Board.from_grid(grid), Rules(border=border, gravity=Gravity(gravity))
    solution = brute_solution(grid, border, gravity)
    verdict = verify(board, rules, Budget(nodes=300_000))
    expected = "unsolvable" if solution is None else "solvable"
    assert verdict.status == expected, (
        f"{verdict.status} ({verdict.stats.get('stage')}: {verdict.reason}) but brute force "
        f"says {expected} {solution}\n{board}\nborder={border} gravity={gravity}")
    if solution is not None:
        ok, final, _ = oracle_replay(grid, border, gravity, [(m.a, m.b) for m in verdict.moves])
        assert ok and not any(v > 0 for row in final for v in row)
    split = components(board, rules)
    if split.odd_type() is None and split.independent and len(split.parts) > 1:
        parts = [brute_solution(part.board.grid(), border, gravity) is not None for part in split.parts]
        assert all(parts) == (solution is not None)
    return str(verdict.stats.get("stage"))


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_verify_matches_brute_force_on_unusual_shapes(family):
    stages: dict[str, int] = {}
    for grid, border, gravity in _cases(family, 20261230 + len(family), 60):
        stage = _check(grid, border, gravity)
        stages[stage] = stages.get(stage, 0) + 1
    assert len(stages) > 1, stages


def test_pocket_boards_split_with_the_border_on():
    """The ring joins every part touching the board's edge, never a walled pocket: such
    boards still split when settled, and a tile swapped across is caught by parity."""
    split_seen = odd_seen = 0
    for grid, border, gravity in _cases("pocket", 20261240, 80, settle=1.0):
        if not border or gravity == "none":
            continue
        board, rules = Board.from_grid(grid), Rules(border=True, gravity=Gravity(gravity))
        split = components(board, rules)
        odd_seen += split.odd_type() is not None
        split_seen += split.odd_type() is None and len(split.parts) > 1
        _check(grid, True, gravity)
    assert split_seen > 3 and odd_seen > 1, (split_seen, odd_seen)


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_verify_matches_brute_force_on_unusual_shapes_sweep(family):
    for settle in (0.0, 1.0):
        for grid, border, gravity in _cases(family, 20261250 + len(family) + int(settle), 600, settle):
            _check(grid, border, gravity)


@pytest.mark.slow
def test_types_above_the_matching_limit():
    for grid, border, gravity in _cases("big", 20261260, 40):
        _check(grid, border, gravity)
