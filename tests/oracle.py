"""Plain reference implementations that the library is checked against.

Nothing here imports llkgen: the oracle must not share a bug with the code it
judges.  Grids are lists of lists (or tuples of tuples) of ints: 0 empty,
-1 wall, k >= 1 a tile of type k.  Coordinates are (row, col); the one-cell
ring outside the board uses row -1 / rows and col -1 / cols.

The algorithms are chosen to be obviously right, not fast:

* ``iter_paths`` enumerates every simple orthogonal cell path with at most two
  direction changes by depth-first search over (cell, direction, turns).  It
  knows nothing about corners or line scans, the idea the library uses.
* ``min_cost_dijkstra`` computes the same (turns, length) minimum a second,
  unrelated way (Dijkstra over (cell, direction) states), so the enumerator
  itself is cross-checked in the tests.
* ``brute_solution`` tries every removable pair at every step.  Its only
  shortcut is remembering boards already proven dead, which cannot change the
  answer: a board's solvability depends on the board alone.
"""

from __future__ import annotations

import heapq
from typing import Iterator, Sequence

EMPTY = 0
WALL = -1
GRAVITIES = ("none", "down", "up", "left", "right")
DIRECTIONS = ((-1, 0), (1, 0), (0, -1), (0, 1))  # up, down, left, right

Cell = tuple[int, int]
Grid = Sequence[Sequence[int]]
State = tuple[tuple[int, ...], ...]


def freeze(grid: Grid) -> State:
    """The grid as a hashable tuple of row tuples."""
    return tuple(tuple(row) for row in grid)


def thaw(grid: Grid) -> list[list[int]]:
    """A mutable copy of the grid."""
    return [list(row) for row in grid]


def tile_cells(grid: Grid) -> list[Cell]:
    """Every tile cell, row-major."""
    return [(r, c) for r, row in enumerate(grid) for c, v in enumerate(row) if v > 0]


def is_cleared(grid: Grid) -> bool:
    return all(v <= 0 for row in grid for v in row)


def passable(grid: Grid, cell: Cell, border: bool) -> bool:
    """May a line run through ``cell``?  Empty board cells, and ring cells if border."""
    rows, cols = len(grid), len(grid[0])
    r, c = cell
    if 0 <= r < rows and 0 <= c < cols:
        return grid[r][c] == EMPTY
    return border and -1 <= r <= rows and -1 <= c <= cols


# --------------------------------------------------------------------------- paths


def iter_paths(grid: Grid, a: Cell, b: Cell, border: bool) -> Iterator[list[Cell]]:
    """Yield every simple cell path a -> b with at most 2 direction changes.

    Steps are orthogonal; every cell strictly between a and b must be passable.
    This is pure geometry: the values at a and b are not looked at.
    The one pruning is sound: once two turns are spent the line can only go
    straight on, so a branch whose ray cannot meet b is abandoned.
    """
    if a == b:
        return
    path = [a]
    seen = {a}

    def on_ray(cell: Cell, d: tuple[int, int]) -> bool:
        dr, dc = b[0] - cell[0], b[1] - cell[1]
        if d[0] == 0:
            return dr == 0 and dc * d[1] > 0
        return dc == 0 and dr * d[0] > 0

    def dfs(cell: Cell, d: tuple[int, int] | None, turns: int) -> Iterator[list[Cell]]:
        for nd in DIRECTIONS:
            nturns = turns if d is None or nd == d else turns + 1
            if nturns > 2:
                continue
            nxt = (cell[0] + nd[0], cell[1] + nd[1])
            if nxt == b:
                yield path + [b]
                continue
            if nxt in seen or not passable(grid, nxt, border):
                continue
            if nturns == 2 and not on_ray(nxt, nd):
                continue
            seen.add(nxt)
            path.append(nxt)
            yield from dfs(nxt, nd, nturns)
            path.pop()
            seen.discard(nxt)

    yield from dfs(a, None, 0)


def corners_of(path: Sequence[Cell]) -> list[Cell]:
    """Corner points of a cell path: both ends and every cell where it turns."""
    out = [path[0]]
    for i in range(1, len(path) - 1):
        before = (path[i][0] - path[i - 1][0], path[i][1] - path[i - 1][1])
        after = (path[i + 1][0] - path[i][0], path[i + 1][1] - path[i][1])
        if before != after:
            out.append(path[i])
    out.append(path[-1])
    return out


def enumerate_paths(grid: Grid, a: Cell, b: Cell, border: bool) -> tuple[int, int] | None:
    """Minimal (turns, length) over all linking paths, or None when none exists.

    length counts unit steps, so adjacent cells have length 1.
    """
    best = best_path(grid, a, b, border)
    return None if best is None else (best[0], best[1])


def best_path(grid: Grid, a: Cell, b: Cell, border: bool) -> tuple[int, int, list[Cell]] | None:
    """(turns, length, corners) of the preferred path, or None.

    Preference is the contract's: fewest turns, then shortest, then the
    lexicographically smallest corner list.
    """
    best = None
    for path in iter_paths(grid, a, b, border):
        corners = corners_of(path)
        key = (len(corners) - 2, len(path) - 1, corners)
        if best is None or key < best:
            best = key
    return best


def linkable(grid: Grid, a: Cell, b: Cell, border: bool) -> bool:
    """Is there any linking path a -> b (geometry only)?"""
    return next(iter_paths(grid, a, b, border), None) is not None


def min_cost_dijkstra(grid: Grid, a: Cell, b: Cell, border: bool) -> tuple[int, int] | None:
    """Minimal (turns, length) by Dijkstra over (cell, direction); a second opinion.

    Reversing is forbidden; with no reversal and at most two turns a walk can
    never revisit a cell, so walks and simple paths coincide here.
    """
    if a == b:
        return None
    heap: list[tuple[int, int, Cell, tuple[int, int]]] = []
    for d in DIRECTIONS:
        heapq.heappush(heap, (0, 1, (a[0] + d[0], a[1] + d[1]), d))
    done = set()
    while heap:
        turns, length, cell, d = heapq.heappop(heap)
        if cell == b:
            return turns, length
        if (cell, d) in done or not passable(grid, cell, border):
            continue
        done.add((cell, d))
        for nd in DIRECTIONS:
            if nd == (-d[0], -d[1]):
                continue
            nturns = turns + (nd != d)
            if nturns <= 2:
                heapq.heappush(heap, (nturns, length + 1, (cell[0] + nd[0], cell[1] + nd[1]), nd))
    return None


def check_polyline(grid: Grid, corners: Sequence[Cell], a: Cell, b: Cell, border: bool) -> str | None:
    """Why ``corners`` is not a legal link from a to b, or None if it is.

    Legal: starts at a, ends at b, consecutive corners share a row or column and
    differ, no three consecutive corners are collinear, at most 2 turns, and
    every cell passed strictly between a and b is passable and visited once.
    """
    corners = [tuple(p) for p in corners]
    if len(corners) < 2:
        return f"fewer than 2 corners: {corners}"
    if corners[0] != tuple(a) or corners[-1] != tuple(b):
        return f"endpoints {corners[0]}..{corners[-1]} are not {a}..{b}"
    if len(corners) > 4:
        return f"{len(corners) - 2} turns"
    cells = [corners[0]]
    dirs = []
    for p, q in zip(corners, corners[1:]):
        if p == q or (p[0] != q[0] and p[1] != q[1]):
            return f"segment {p}->{q} is not axis-aligned and non-empty"
        d = ((q[0] > p[0]) - (q[0] < p[0]), (q[1] > p[1]) - (q[1] < p[1]))
        dirs.append(d)
        cur = p
        while cur != q:
            cur = (cur[0] + d[0], cur[1] + d[1])
            cells.append(cur)
    for d, e in zip(dirs, dirs[1:]):
        if d == e or d == (-e[0], -e[1]):
            return f"consecutive collinear segments {dirs}"
    interior = cells[1:-1]
    if len(set(cells)) != len(cells):
        return "path revisits a cell"
    for cell in interior:
        if not passable(grid, cell, border):
            return f"blocked at {cell}"
    return None


def polyline_cost(corners: Sequence[Cell]) -> tuple[int, int]:
    """(turns, length) of a corner list."""
    length = sum(abs(p[0] - q[0]) + abs(p[1] - q[1]) for p, q in zip(corners, corners[1:]))
    return len(corners) - 2, length


def oracle_pairs(grid: Grid, border: bool) -> list[tuple[Cell, Cell]]:
    """Every removable pair (a, b), a < b row-major, sorted."""
    by_type: dict[int, list[Cell]] = {}
    for cell in tile_cells(grid):
        by_type.setdefault(grid[cell[0]][cell[1]], []).append(cell)
    out = []
    for cells in by_type.values():
        for i, a in enumerate(cells):
            for b in cells[i + 1:]:
                if linkable(grid, a, b, border):
                    out.append((a, b))
    return sorted(out)


# --------------------------------------------------------------------------- gravity


def _compact(values: list[int], toward_end: bool) -> list[int]:
    """Slide the tiles of one line toward its start or end, walls splitting runs."""
    out = list(values)
    start = 0
    n = len(values)
    while start < n:
        if values[start] == WALL:
            start += 1
            continue
        stop = start
        while stop < n and values[stop] != WALL:
            stop += 1
        tiles = [v for v in values[start:stop] if v > 0]
        gap = [EMPTY] * (stop - start - len(tiles))
        out[start:stop] = gap + tiles if toward_end else tiles + gap
        start = stop
    return out


def oracle_gravity(grid: Grid, gravity: str) -> list[list[int]]:
    """The grid after tiles slide in direction ``gravity`` (walls stay put)."""
    if gravity not in GRAVITIES:
        raise ValueError(gravity)
    g = thaw(grid)
    rows, cols = len(g), len(g[0])
    if gravity in ("down", "up"):
        for c in range(cols):
            column = _compact([g[r][c] for r in range(rows)], toward_end=gravity == "down")
            for r in range(rows):
                g[r][c] = column[r]
    elif gravity in ("left", "right"):
        for r in range(rows):
            g[r] = _compact(g[r], toward_end=gravity == "right")
    return g


def apply_move(grid: Grid, a: Cell, b: Cell, gravity: str) -> list[list[int]]:
    """Remove a and b, then let gravity act."""
    g = thaw(grid)
    g[a[0]][a[1]] = EMPTY
    g[b[0]][b[1]] = EMPTY
    return oracle_gravity(g, gravity)


def is_legal(grid: Grid, a: Cell, b: Cell, border: bool) -> bool:
    """Two distinct on-board tiles of one type joined by a legal line."""
    rows, cols = len(grid), len(grid[0])
    for r, c in (a, b):
        if not (0 <= r < rows and 0 <= c < cols):
            return False
    if a == b or grid[a[0]][a[1]] <= 0 or grid[a[0]][a[1]] != grid[b[0]][b[1]]:
        return False
    return linkable(grid, a, b, border)


def oracle_replay(grid: Grid, border: bool, gravity: str, moves) -> tuple[bool, list[list[int]], int | None]:
    """(all legal, final grid, index of first illegal move or None)."""
    g = thaw(grid)
    for i, move in enumerate(moves):
        a, b = tuple(move[0]), tuple(move[1])
        if not is_legal(g, a, b, border):
            return False, g, i
        g = apply_move(g, a, b, gravity)
    return True, g, None


# --------------------------------------------------------------------------- solving


def brute_solution(grid: Grid, border: bool, gravity: str) -> list[tuple[Cell, Cell]] | None:
    """A clearing sequence of moves, or None if no removal order clears the board.

    Exhaustive: every removable pair is tried at every step, in sorted order.
    """
    dead: set[State] = set()
    moves: list[tuple[Cell, Cell]] = []

    def solve(state: State) -> bool:
        if is_cleared(state):
            return True
        if state in dead:
            return False
        for a, b in oracle_pairs(state, border):
            moves.append((a, b))
            if solve(freeze(apply_move(state, a, b, gravity))):
                return True
            moves.pop()
        dead.add(state)
        return False

    return list(moves) if solve(freeze(grid)) else None


def brute_solve(grid: Grid, border: bool, gravity: str) -> bool:
    """Can some order of legal removals clear every tile?"""
    return brute_solution(grid, border, gravity) is not None


def parse(text: str) -> list[list[int]]:
    """Grid from rows of whitespace-separated tokens: '.' empty, '#' wall, ints types."""
    table = {".": EMPTY, "#": WALL}
    return [[table[t] if t in table else int(t) for t in line.split()]
            for line in text.strip().splitlines()]
