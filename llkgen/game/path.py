"""The path rule: two tiles link when a line of at most three straight segments (two turns)
joins them through empty cells, optionally via the one-cell ring outside the board.

Method: every path with at most two turns is a polyline ``a -> p -> q -> b`` whose first and
last segments share an axis (some segments may have length zero). So either ``p`` and ``q``
share a column ``c`` ("horizontal-vertical-horizontal") or share a row ``r``
("vertical-horizontal-vertical"). We compute how far each endpoint can see along its row and
column through empty cells, and scan the candidate columns and rows inside both reaches; each
candidate costs one straight-segment check. This scan is exhaustive over corner positions, so,
unlike a breadth-first search that keeps only the fewest turns per cell and forgets the
direction of arrival, it cannot miss a path.

Among all legal paths we return the one a player expects to see drawn: the fewest turns, then
the shortest length, then the lexicographically smallest list of corner points (``(row, col)``
tuples, starting at ``a``).

Paths are drawn on the padded grid of :mod:`llkgen.game.grid`; :func:`removable_pairs` asks the
grid's bitboard link test first and draws only the pairs that link.
"""

from __future__ import annotations

from typing import NamedTuple, Sequence

from llkgen.game.board import Board, Cell, Rules
from llkgen.game.grid import Grid, from_padded, padded, to_padded


class Move(NamedTuple):
    """A removable pair and the path drawn between its tiles (corner points, both ends). As
    JSON (:func:`llkgen.outputs.drawn_json`) it is the move ``[[r1, c1], [r2, c2]]``
    with its ``path`` beside it."""

    a: Cell
    b: Cell
    path: list[Cell]


def _reach(g: Sequence[int], w: int, p: int) -> tuple[int, int, int, int]:
    """Padded (left col, right col, top row, bottom row) that ``p`` sees through empty cells,
    its own position included."""
    r, c = divmod(p, w)
    lo = p - 1
    while g[lo] == 0:
        lo -= 1
    hi = p + 1
    while g[hi] == 0:
        hi += 1
    up = p - w
    while g[up] == 0:
        up -= w
    down = p + w
    while g[down] == 0:
        down += w
    return lo - r * w + 1, hi - r * w - 1, up // w + 1, down // w - 1


def _clear(g: Sequence[int], start: int, stop: int, step: int) -> bool:
    """True when every cell strictly between flat indices start and stop (same line) is 0."""
    if start > stop:
        start, stop = stop, start
    for i in range(start + step, stop, step):
        if g[i]:
            return False
    return True


def best_link(g: Sequence[int], w: int, pa: int, pb: int) -> tuple[int, ...] | None:
    """The preferred path between padded cells ``pa`` and ``pb`` as padded corner indices
    (fewest turns, then shortest, then smallest corners), or ``None``. Ignores cell types."""
    ra, ca = divmod(pa, w)
    rb, cb = divmod(pb, w)
    if ra == rb and _clear(g, pa, pb, 1):
        return (pa, pb)
    if ca == cb and _clear(g, pa, pb, w):
        return (pa, pb)
    aL, aR, aU, aD = _reach(g, w, pa)
    bL, bR, bU, bD = _reach(g, w, pb)
    # One turn: the corner is (ra, cb) or (rb, ca); both have the same length, so the smaller
    # corner index is the lexicographically smaller corner.
    one = []
    if ca != cb and ra != rb:
        if aL <= cb <= aR and bU <= ra <= bD:
            one.append(ra * w + cb)
        if aU <= rb <= aD and bL <= ca <= bR:
            one.append(rb * w + ca)
    if one:
        return (pa, min(one), pb)
    # Two turns. Candidates compare as (length, corners); padded indices order like (row, col).
    best: tuple[int, tuple[int, ...]] | None = None
    if ra != rb:  # horizontal-vertical-horizontal through column c
        span = abs(ra - rb)
        for c in range(max(aL, bL), min(aR, bR) + 1):
            if c != ca and c != cb and _clear(g, ra * w + c, rb * w + c, w):
                cand = (abs(ca - c) + span + abs(c - cb), (pa, ra * w + c, rb * w + c, pb))
                if best is None or cand < best:
                    best = cand
    if ca != cb:  # vertical-horizontal-vertical through row r
        span = abs(ca - cb)
        for r in range(max(aU, bU), min(aD, bD) + 1):
            if r != ra and r != rb and _clear(g, r * w + ca, r * w + cb, 1):
                cand = (abs(ra - r) + span + abs(r - rb), (pa, r * w + ca, r * w + cb, pb))
                if best is None or cand < best:
                    best = cand
    return None if best is None else best[1]


def _check_cell(board: Board, p: object, name: str) -> Cell:
    if (
        not isinstance(p, (tuple, list))
        or len(p) != 2
        or not all(type(x) is int for x in p)
        or not board.in_bounds((p[0], p[1]))
    ):
        raise ValueError(f"{name}: expected a [row, col] cell on the {board.rows}x{board.cols} board, found {p!r}")
    return (p[0], p[1])


def find_path(board: Board, a: Cell, b: Cell, rules: Rules) -> list[Cell] | None:
    """The polyline (corner points, both endpoints included, ring coordinates allowed when
    ``rules.border``) along which tiles ``a`` and ``b`` link, or ``None``.

    Returns ``None`` when ``a == b``, either cell is not a tile, or the types differ. Among
    legal paths: fewest turns, then shortest length, then smallest corner list."""
    a = _check_cell(board, a, "a")
    b = _check_cell(board, b, "b")
    va, vb = board[a], board[b]
    if a == b or va <= 0 or va != vb:
        return None
    g = padded(board, rules)
    return drawn_path(g, board.cols + 4, a, b)


def drawn_path(g: Sequence[int], w: int, a: Cell, b: Cell) -> list[Cell] | None:
    """:func:`find_path` on a padded grid ``g`` of width ``w`` (see :mod:`llkgen.game.grid`): the
    corner points, in board coordinates, of the path a player expects to see, or None. The
    cells' values are not looked at."""
    corners = best_link(g, w, to_padded(a, w), to_padded(b, w))
    if corners is None:
        return None
    return [from_padded(p, w) for p in corners]


def removable_pairs(board: Board, rules: Rules) -> list[Move]:
    """Every pair removable right now, each with its drawn path, sorted by ``(a, b)`` in
    row-major order with ``a < b``."""
    grid = Grid(board, rules)
    g, w = grid.g, grid.w
    moves: list[Move] = []
    for cells in board.types().values():
        ps = [grid.pos(c) for c in cells]
        for i, a in enumerate(cells):
            for j in range(i + 1, len(cells)):
                if grid.link(ps[i], ps[j]):
                    path = drawn_path(g, w, a, cells[j])
                    assert path is not None, "the link test and the path drawing disagree"
                    moves.append(Move(a, cells[j], path))
    moves.sort(key=lambda m: (m.a, m.b))
    return moves



def turns(path: Sequence[Cell]) -> int:
    """Number of turns of a corner list."""
    return max(0, len(path) - 2)


def length(path: Sequence[Cell]) -> int:
    """Number of unit steps along a corner list."""
    return sum(abs(p[0] - q[0]) + abs(p[1] - q[1]) for p, q in zip(path, path[1:]))
