"""Lines through tiles, for play without gravity: which tiles stand on each line a pair could
ever use.

The flow pairing check (:mod:`llkgen.verifier.pairing_check`) and the CP-SAT model
(:mod:`llkgen.verifier.cpsat`) both reason about these sets; this module is their one
enumeration. It reads a :class:`llkgen.game.grid.Grid` once and reuses its run helpers, but keeps
no link with it afterwards: the searches never need it.
"""

from __future__ import annotations

from llkgen.game.board import WALL
from llkgen.game.grid import Grid, column_masks, run

__all__ = ["Lines"]


def _span(i: int, j: int) -> int:
    """Bits ``min(i, j)`` to ``max(i, j)``, both included."""
    if i > j:
        i, j = j, i
    return (2 << j) - (1 << i)


class Lines:
    """The wall-free lines of a board, every tile treated as passable: the static geometry of
    play without gravity, where walls (and the ring when ``border`` is off) stay forever and a
    tile only ever leaves its cell.

    Built once from a :class:`Grid` (its walls and the tiles on it at that moment; later
    changes to the grid are not seen). Its one query is :meth:`tile_sets`."""

    __slots__ = ("w", "open_rows", "open_cols", "tiles", "col_tiles")

    def __init__(self, grid: Grid):
        g, w, R, C = grid.g, grid.w, grid.R, grid.C
        self.w = w
        #: per padded row, bit c when (row, c) is not a wall; per padded column, bit r
        self.open_rows = open_rows = [0] * (len(g) // w)
        self.open_cols = open_cols = [0] * w
        tiles = 0
        for p, v in enumerate(g):
            if v != WALL:
                open_rows[R[p]] |= 1 << C[p]
                open_cols[C[p]] |= 1 << R[p]
                if v > 0:
                    tiles |= 1 << p
        #: the tiles as a bitmask over padded indices, and the same split by column
        self.tiles = tiles
        self.col_tiles = [m & tiles for m in column_masks(grid.rows, grid.cols)]

    def tile_sets(self, pa: int, pb: int) -> list[int]:
        """The distinct sets of tiles crossed by the lines of at most two turns joining the
        padded cells ``pa`` and ``pb`` (``pa != pb``) whose interior holds no wall, each set a
        bitmask over padded indices, in increasing order. The ends themselves are never in a
        set; ``0`` means a line crossing no tile; ``[]`` means walls alone keep the two cells
        apart forever.

        Why it is what the engines need: without gravity the two tiles can link at some moment
        exactly when one of these lines has every tile of its set removed by then (the other
        interior cells are empty from the start and stay empty).

        How: as in :func:`crossing`, with the wall masks in place of the passable ones. A
        horizontal-vertical-horizontal line through column ``c`` is wall-free exactly when
        ``c`` lies in both ends' wall-free row runs and column ``c`` is wall-free on every row
        strictly between; the vertical-horizontal-vertical family is the same on columns.
        Ends on one row (column) keep only the straight line from the family that would fold
        back on itself. The tile set of a line is then three range masks ANDed with the tiles.
        ``tests/game/test_lines.py`` holds this to an independent path enumerator."""
        w, tiles, col_tiles = self.w, self.tiles, self.col_tiles
        ra, ca = divmod(pa, w)
        rb, cb = divmod(pb, w)
        out: set[int] = set()
        open_rows, open_cols = self.open_rows, self.open_cols
        # Horizontal, vertical, horizontal: a -> (ra, c) -> (rb, c) -> b.
        m = run(open_rows[ra], ca) & run(open_rows[rb], cb)
        lo, hi = (ra, rb) if ra < rb else (rb, ra)
        if ra == rb:
            m &= _span(ca, cb)
            m &= -m  # every column between gives the same straight line
        for r in range(lo + 1, hi):
            if not m:
                break
            m &= open_rows[r]
        band = _band(w, lo, hi)
        base_a, base_b = ra * w, rb * w
        while m:
            low = m & -m
            m ^= low
            c = low.bit_length() - 1
            out.add((tiles & (_span(base_a + ca, base_a + c) | _span(base_b + c, base_b + cb)))
                    | (col_tiles[c] & band))
        # Vertical, horizontal, vertical: a -> (r, ca) -> (r, cb) -> b.
        m = run(open_cols[ca], ra) & run(open_cols[cb], rb)
        lo, hi = (ca, cb) if ca < cb else (cb, ca)
        if ca == cb:
            m &= _span(ra, rb)
            m &= -m
        for c in range(lo + 1, hi):
            if not m:
                break
            m &= open_cols[c]
        col_a, col_b = col_tiles[ca], col_tiles[cb]
        while m:
            low = m & -m
            m ^= low
            r = low.bit_length() - 1
            base = r * w
            out.add((col_a & _band(w, ra, r)) | (col_b & _band(w, r, rb))
                    | (tiles & _span(base + ca, base + cb)))
        ends = (1 << pa) | (1 << pb)
        return sorted({s & ~ends for s in out})


def _band(w: int, r1: int, r2: int) -> int:
    """Padded indices of rows ``min(r1, r2)`` to ``max(r1, r2)``, every column."""
    if r1 > r2:
        r1, r2 = r2, r1
    return (1 << ((r2 + 1) * w)) - (1 << (r1 * w))
