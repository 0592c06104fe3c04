"""The working board: one padded grid, its run tables as bitboards, and the link test.

Every engine works on this representation: forward play (:mod:`llkgen.game.playout`), the lock
test, the pairing and move searches, and the models in :mod:`llkgen.verifier`. The referee
draws its paths on the same padded grid (:func:`llkgen.game.path.best_link`).

**The padded grid.** A ``(rows + 4) x (cols + 4)`` flat list ``g``. The ring next to the board
is ``0`` (passable) when ``border`` is on and a wall when it is off; the outermost ring is always
a wall, a sentinel that stops every scan without bounds checks. Board cell ``(r, c)`` sits at
padded index ``(r + 2) * w + c + 2`` with ``w = cols + 4``.

**Run tables, as bitboards on Python ints** (python-chess style). ``rowbits[r]`` has bit ``c``
set when padded cell ``(r, c)`` is passable, ``colbits[c]`` bit ``r``. For every tile ``p``,
``H[p]`` is its own column bit together with the empty runs on either side of it in its row,
and ``V[p]`` the same in its column: every column ``H[p]`` names is one that ``p`` can reach
along its row through empty cells (or its own).

**The link test** (:meth:`Grid.link`). A path of at most two turns is ``a -> (ra, c) -> (rb, c)
-> b`` for some column ``c`` (horizontal, vertical, horizontal) or ``a -> (r, ca) -> (r, cb) ->
b`` for some row ``r``; straight and one-turn paths are the cases where a corner is an
endpoint. The first family exists exactly when some bit of ``H[a] & H[b]`` survives ANDing the
``rowbits`` of every row strictly between ``ra`` and ``rb``: ``c`` in ``H[a]`` says the first
corner is ``a`` or an empty cell that ``a`` sees, ``c`` in ``H[b]`` the same for the second
corner, and the AND says the middle segment is clear. The second family is the same with
``V`` and ``colbits``. Orthogonal neighbours link with no interior at all. So one test is a few
integer operations; on dense boards ``H[a] & H[b]`` is usually 0 at once. Measured with
``benchmarks/path_bench.py`` against the line-of-sight scan it replaced (which walked eight
lines of sight cell by cell), the two timed in alternating rounds: 4.1x the calls per second.

**Keeping the tables current.** Emptying a tile cell ``x`` merges the runs on either side of
it into ``H[x]`` itself, and only the two cells bounding that run (found from its lowest and
highest bits) see more: each gains ``H[x]``. The column is the same with ``V``. So removing a
tile costs a constant number of integer operations, where rebuilding line-of-sight pointers
costs the length of the runs. Filling a cell (gravity, undo) splits a run the same way. Only
tiles' masks are maintained: ``H`` of an empty cell is stale, and :meth:`Grid.run` computes the
run through an empty cell from ``rowbits`` when it is needed.

**Gravity.** On a settled board (every run compact towards the gravity side) removing tiles
from a run frees exactly the cells at its far end: occupancy changes in as many cells as
tiles left the run, however many tiles slide. :meth:`Grid.remove` compacts the lines of the two
removed tiles (every line, the first time, if the board was not settled) and updates the
tables only where occupancy changed.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Callable, NamedTuple, Sequence

from llkgen.game.board import WALL, Board, Cell, Gravity, Rules
from llkgen.game.gravity import compact

#: Two tiles by their padded indices: a move on a :class:`Grid`, or a pair a search considers.
Pair = tuple[int, int]

#: Width of the frame around a padded board: the border ring plus a sentinel wall ring.
PAD = 2


def padded(board: Board, rules: Rules) -> list[int]:
    """The board framed by its ring (``0`` if ``rules.border`` else a wall) and a sentinel
    wall ring outside that."""
    w = board.cols + PAD * 2
    g = [WALL] * (w * (board.rows + PAD * 2))
    if rules.border:
        for r in range(1, board.rows + 3):
            g[r * w + 1 : r * w + w - 1] = [0] * (w - 2)
    for r in range(board.rows):
        start = (r + PAD) * w + PAD
        g[start : start + board.cols] = board.cells[r * board.cols : (r + 1) * board.cols]
    return g


def to_padded(cell: Cell, w: int) -> int:
    return (cell[0] + PAD) * w + cell[1] + PAD


def from_padded(p: int, w: int) -> Cell:
    return (p // w - PAD, p % w - PAD)


def run(bits: int, i: int) -> int:
    """The maximal run of set bits in ``bits | 1 << i`` that contains bit ``i``. The frame's
    sentinel wall guarantees a clear bit on each side, so the run is always bounded."""
    x = bits | (1 << i)
    y = x >> i
    up = (~y & (y + 1)).bit_length() - 1  # set bits from i upwards
    below = ~x & ((1 << i) - 1)  # clear bits under i; the highest is the run's lower bound
    return (1 << (i + up)) - (1 << below.bit_length())


def crossing(rowbits: Sequence[int], colbits: Sequence[int], rp: int, cp: int, rq: int, cq: int,
             hp: int, hq: int, vp: int, vq: int) -> tuple[bool, int] | None:
    """The link test of the module docstring, for ends at padded ``(rp, cp)`` and ``(rq, cq)``
    with row masks ``hp``, ``hq`` and column masks ``vp``, ``vq`` (``H``/``V`` of a tile, the
    run through an empty cell). Returns ``(True, columns)`` when horizontal-vertical-
    horizontal paths exist, the bits of ``columns`` naming their middle columns, else
    ``(False, rows)`` for vertical-horizontal-vertical ones, else None. Neighbouring ends
    (no interior at all) are the caller's to test.

    When both ends share a row, the first family can only be the straight line, so its
    columns are kept to those between the ends: the run through an empty end reaches past
    it, and a middle column there would fold the path back on itself (a column in the same
    case likewise)."""
    m = hp & hq
    if m:
        if rp == rq:
            m &= (2 << max(cp, cq)) - (1 << min(cp, cq))
        lo, hi = (rp, rq) if rp < rq else (rq, rp)
        lo += 1
        while m and lo < hi:
            m &= rowbits[lo]
            lo += 1
        if m:
            return True, m
    m = vp & vq
    if m:
        if cp == cq:
            m &= (2 << max(rp, rq)) - (1 << min(rp, rq))
        lo, hi = (cp, cq) if cp < cq else (cq, cp)
        lo += 1
        while m and lo < hi:
            m &= colbits[lo]
            lo += 1
        if m:
            return False, m
    return None


@lru_cache(maxsize=64)
def _tables(rows: int, cols: int) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    """Row and column of every padded index, and the padded indices of the board's cells in
    row-major order. Shared by every grid of this size."""
    w, h = cols + 2 * PAD, rows + 2 * PAD
    R = tuple(p // w for p in range(w * h))
    C = tuple(p % w for p in range(w * h))
    cells = tuple((r + PAD) * w + c + PAD for r in range(rows) for c in range(cols))
    return R, C, cells


@lru_cache(maxsize=64)
def column_masks(rows: int, cols: int) -> tuple[int, ...]:
    """For each padded column, the bitmask over padded indices of all its cells: with a range
    mask it gives a vertical segment as one integer."""
    w, h = cols + 2 * PAD, rows + 2 * PAD
    return tuple(sum(1 << (r * w + c) for r in range(h)) for c in range(w))


@lru_cache(maxsize=64)
def gravity_lines(gravity: Gravity, rows: int, cols: int) -> tuple[tuple[int, ...], ...]:
    """:meth:`Gravity.lines` as padded indices."""
    w = cols + 2 * PAD
    return tuple(tuple((r + PAD) * w + c + PAD for r, c in line) for line in gravity.lines(rows, cols))


def _linker(grid: "Grid") -> Callable[[int, int], bool]:
    """``grid.link``: :func:`crossing` for two tiles, written out over the grid's own lists
    (they are refilled in place by :meth:`Grid.restore`, so the closure stays valid). Measured
    in ``benchmarks/path_bench.py``: a quarter faster than the same test as a method."""
    H, V, R, C = grid.H, grid.V, grid.R, grid.C
    rowbits, colbits, w = grid.rowbits, grid.colbits, grid.w

    def link(pa: int, pb: int) -> bool:
        d = pa - pb
        if d == 1 or d == -1 or d == w or d == -w:
            return True
        m = H[pa] & H[pb]
        if m:
            lo, hi = R[pa], R[pb]
            if lo > hi:
                lo, hi = hi, lo
            lo += 1
            while m and lo < hi:
                m &= rowbits[lo]
                lo += 1
            if m:
                return True
        m = V[pa] & V[pb]
        if m:
            lo, hi = C[pa], C[pb]
            if lo > hi:
                lo, hi = hi, lo
            lo += 1
            while m and lo < hi:
                m &= colbits[lo]
                lo += 1
            if m:
                return True
        return False

    return link


class Fall(NamedTuple):
    """What one removal did: tile moves ``(from, to)`` in the order gravity made them, and
    the cells that ended up empty / occupied having been the opposite before the move."""

    moves: list[tuple[int, int]]
    opened: list[int]
    closed: list[int]


class Grid:
    """A board being played: the padded cells ``g`` and their run tables, kept current by
    :meth:`clear`, :meth:`fill` and :meth:`remove`. Positions are padded indices."""

    __slots__ = ("rows", "cols", "w", "gravity", "g", "rowbits", "colbits", "H", "V", "R", "C",
                 "cells", "lines", "settled", "link")

    #: ``link(pa, pb)``: whether a path of at most two turns joins the tiles at ``pa`` and
    #: ``pb`` through empty cells (types are not looked at; ``pa != pb``). A closure over this
    #: grid's tables (see :func:`_linker`), not a method: the verifier's innermost call.
    link: Callable[[int, int], bool]

    def __init__(self, board: Board | None = None, rules: Rules | None = None):
        if board is None or rules is None:
            return  # an empty shell that copy() fills
        self.rows, self.cols = board.rows, board.cols
        self.w = board.cols + 2 * PAD
        self.gravity = rules.gravity
        self.g = padded(board, rules)
        self.R, self.C, self.cells = _tables(board.rows, board.cols)
        self.lines = gravity_lines(rules.gravity, board.rows, board.cols)
        self._build()
        self.settled = self.is_settled()
        self.link = _linker(self)

    def _build(self) -> None:
        """The run tables from scratch: one scan along every row and every column, each run
        handing its mask to its cells and to the two cells bounding it."""
        g, w = self.g, self.w
        h = len(g) // w
        self.rowbits = rowbits = [0] * h
        self.colbits = colbits = [0] * w
        self.H = H = [0] * len(g)
        self.V = V = [0] * len(g)
        for table, bits, lines, step, width in ((H, rowbits, range(0, w * h, w), 1, w),
                                                (V, colbits, range(w), w, h)):
            for k, start in enumerate(lines):
                i = 0
                while i < width:
                    p = start + i * step
                    if g[p]:
                        table[p] |= 1 << i  # its own bit; runs on either side are added below
                        i += 1
                        continue
                    j = i
                    while j < width and not g[start + j * step]:
                        j += 1
                    m = (1 << j) - (1 << i)  # the run i .. j-1
                    bits[k] |= m
                    for x in range(i, j):
                        table[start + x * step] = m
                    if i:
                        table[start + (i - 1) * step] |= m
                    if j < width:
                        table[start + j * step] |= m
                    i = j

    def copy(self) -> "Grid":
        """An independent copy (the static tables are shared)."""
        other = Grid()
        other.rows, other.cols, other.w, other.gravity = self.rows, self.cols, self.w, self.gravity
        other.R, other.C, other.cells, other.lines = self.R, self.C, self.cells, self.lines
        other.settled = self.settled
        other.g = list(self.g)
        other.rowbits, other.colbits = list(self.rowbits), list(self.colbits)
        other.H, other.V = list(self.H), list(self.V)
        other.link = _linker(other)
        return other

    def snapshot(self) -> tuple:
        """The mutable state, for :meth:`restore`."""
        return (list(self.g), list(self.rowbits), list(self.colbits), list(self.H), list(self.V),
                self.settled)

    def restore(self, snap: tuple) -> None:
        """Return to a :meth:`snapshot`. The lists are refilled in place, so code holding
        them (the searches bind them to locals) stays valid."""
        g, rows, cols, H, V, self.settled = snap
        self.g[:] = g
        self.rowbits[:] = rows
        self.colbits[:] = cols
        self.H[:] = H
        self.V[:] = V

    # -- queries ----------------------------------------------------------------------------
    def tiles(self) -> list[int]:
        """Tile positions in row-major order."""
        g = self.g
        return [p for p in self.cells if g[p] > 0]

    def by_type(self) -> dict[int, list[int]]:
        """Tile positions of each type, types in first-seen (row-major) order."""
        g = self.g
        out: dict[int, list[int]] = {}
        for p in self.cells:
            v = g[p]
            if v > 0:
                if v in out:
                    out[v].append(p)
                else:
                    out[v] = [p]
        return out

    def is_cleared(self) -> bool:
        g = self.g
        return not any(g[p] > 0 for p in self.cells)

    def cell(self, p: int) -> Cell:
        return (self.R[p] - PAD, self.C[p] - PAD)

    def pos(self, cell: Sequence[int]) -> int:
        return (cell[0] + PAD) * self.w + cell[1] + PAD

    def link_cell(self, pa: int, q: int) -> bool:
        """Whether a path of at most two turns joins the tile at ``pa`` to cell ``q``, which
        may hold a tile or be empty (the lock test asks this of deleted partners)."""
        d = pa - q
        w = self.w
        if d == 1 or d == -1 or d == w or d == -w:
            return True
        R, C = self.R, self.C
        return crossing(self.rowbits, self.colbits, R[pa], C[pa], R[q], C[q], self.H[pa],
                        self.run_h(q), self.V[pa], self.run_v(q)) is not None

    def run_h(self, p: int) -> int:
        """The columns ``p`` reaches along its row: ``H[p]`` for a tile, the empty run
        through ``p`` for an empty cell."""
        return self.H[p] if self.g[p] else run(self.rowbits[self.R[p]], self.C[p])

    def run_v(self, p: int) -> int:
        """The rows ``p`` reaches along its column (see :meth:`run_h`)."""
        return self.V[p] if self.g[p] else run(self.colbits[self.C[p]], self.R[p])

    def seen(self, c: int) -> tuple[list[int], int, int]:
        """What the passable cell ``c`` opens up: the tiles *seen* from its row run and its
        column run (the tiles bounding each run, and for every cell of a run the first tile
        on either side across it), then the row run as a mask of columns and the column run
        as a mask of rows.

        Why it matters: a path that passes through ``c`` has a segment through ``c`` inside
        one of these runs, and each end of the path either lies in that run (an empty end)
        or is seen from it: the end the segment starts from bounds the run, and a middle
        segment's corners are run cells whose first tile across is that end. So after ``c``
        opens, only those tiles, and ends lying in the runs, can have gained a path."""
        g, R, C, w = self.g, self.R, self.C, self.w
        r, col = R[c], C[c]
        rowbits, colbits = self.rowbits, self.colbits
        out = []
        hm = run(rowbits[r], col)
        base = c - col
        for e in (base + (hm & -hm).bit_length() - 2, base + hm.bit_length()):
            if g[e] > 0:
                out.append(e)
        m = hm
        while m:
            low = m & -m
            m ^= low
            k = low.bit_length() - 1
            vm = run(colbits[k], r)
            for e in (((vm & -vm).bit_length() - 2) * w + k, vm.bit_length() * w + k):
                if g[e] > 0:
                    out.append(e)
        vm = run(colbits[col], r)
        for e in (((vm & -vm).bit_length() - 2) * w + col, vm.bit_length() * w + col):
            if g[e] > 0:
                out.append(e)
        m = vm
        while m:
            low = m & -m
            m ^= low
            k = low.bit_length() - 1
            hm2 = run(rowbits[k], col)
            for e in (k * w + (hm2 & -hm2).bit_length() - 2, k * w + hm2.bit_length()):
                if g[e] > 0:
                    out.append(e)
        return out, hm, vm

    # -- changes ----------------------------------------------------------------------------
    def clear(self, p: int) -> None:
        """Empty the tile cell ``p`` (no gravity) and update the tables."""
        self.g[p] = 0
        self._opened(p)

    def _opened(self, p: int) -> None:
        """Cell ``p`` (a tile in the tables) has become passable: its runs merge into
        ``H[p]`` / ``V[p]``, and the cells bounding them see the merged run.

        Table entries are updated as ``t[i] = t[i] | m``, not ``t[i] |= m``: the compiled
        core does the second with boxed integers and Python's generic operator, the first
        with machine integers (here and in :meth:`_closed`)."""
        r, c = self.R[p], self.C[p]
        rowbits, colbits = self.rowbits, self.colbits
        rowbits[r] = rowbits[r] | 1 << c
        colbits[c] = colbits[c] | 1 << r
        H, V = self.H, self.V
        m = H[p]
        lo = p - c + (m & -m).bit_length() - 2
        hi = p - c + m.bit_length()
        H[lo] = H[lo] | m
        H[hi] = H[hi] | m
        m = V[p]
        w = self.w
        lo = ((m & -m).bit_length() - 2) * w + c
        hi = m.bit_length() * w + c
        V[lo] = V[lo] | m
        V[hi] = V[hi] | m

    def fill(self, p: int, v: int) -> None:
        """Put tile ``v`` on the empty cell ``p`` and update the tables."""
        self.g[p] = v
        self._closed(p)

    def _closed(self, p: int) -> None:
        """Cell ``p`` (passable in the tables) is now occupied: its runs split at ``p``."""
        r, c = self.R[p], self.C[p]
        rowbits, colbits = self.rowbits, self.colbits
        H, V = self.H, self.V
        m = run(rowbits[r], c)
        H[p] = m
        lo = p - c + (m & -m).bit_length() - 2
        hi = p - c + m.bit_length()
        H[lo] = H[lo] & ((1 << c) - 1)
        H[hi] = H[hi] & ~((2 << c) - 1)
        m = run(colbits[c], r)
        V[p] = m
        w = self.w
        lo = ((m & -m).bit_length() - 2) * w + c
        hi = m.bit_length() * w + c
        V[lo] = V[lo] & ((1 << r) - 1)
        V[hi] = V[hi] & ~((2 << r) - 1)
        rowbits[r] = rowbits[r] & ~(1 << c)
        colbits[c] = colbits[c] & ~(1 << r)

    def remove(self, p: int, q: int) -> "Fall":
        """Play the pair ``p``, ``q`` (not checked): empty both cells, then let tiles fall.
        Returns what gravity did (nothing without gravity)."""
        self.clear(p)
        self.clear(q)
        if not self.lines:
            return Fall([], [p, q], [])
        if self.settled:
            R, C = self.R, self.C
            if self.gravity in (Gravity.DOWN, Gravity.UP):
                idx = {C[p] - PAD, C[q] - PAD}
            else:
                idx = {R[p] - PAD, R[q] - PAD}
            lines: Sequence[Sequence[int]] = [self.lines[i] for i in sorted(idx)]
        else:
            lines = self.lines
            self.settled = True
        g = self.g
        moves = compact(g, lines)
        changed: dict[int, bool] = {p: True, q: True}  # cell -> occupied before the move
        for i, j in moves:
            changed.setdefault(j, False)
            changed.setdefault(i, True)
        # Bring the tables up to date one cell at a time, each change applied to tables that
        # describe the occupancy left by the changes before it. p and q are already open.
        opened, closed = [], []
        for x, was in changed.items():
            now = g[x] != 0
            if was and not now:
                if x != p and x != q:
                    self._opened(x)
                opened.append(x)
            elif now and not was:
                self._closed(x)
                closed.append(x)
            elif now and (x == p or x == q):
                self._closed(x)  # emptied by the pair, refilled by a falling tile
        return Fall(moves, opened, closed)

    def is_settled(self) -> bool:
        """Whether gravity would move nothing (always true without gravity)."""
        g = self.g
        for line in self.lines:
            gap = False
            for i in line:
                v = g[i]
                if v == WALL:
                    gap = False
                elif v == 0:
                    gap = True
                elif gap:
                    return False
        return True

    def to_board(self) -> Board:
        g = self.g
        return Board(self.rows, self.cols, tuple(g[p] for p in self.cells))
