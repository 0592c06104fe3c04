"""The lock test: a sound proof that some tiles can never be removed (no gravity only).

Relaxation: repeatedly delete any single tile that has a legal path, on the current relaxed
board, to the cell of a tile it may pair with, whether that tile is still there or already
deleted. When nothing more can be deleted, the tiles left are *locked*.

Why it is sound: without gravity tiles never move, and emptying cells never blocks a path.
Take any real sequence of moves and assume (induction) that every cell it has emptied so far
is also empty on the relaxed fixpoint board. The next real move removes ``a`` and ``b`` along a
path whose interior cells are empty in the real board, hence in the relaxed one; so on the
relaxed board ``a`` links to ``b``'s cell and ``b`` to ``a``'s, and both are deleted by the
fixpoint. So every tile real play can ever remove is deleted by the relaxation, and a tile the
relaxation keeps can never be removed: the board (or the branch of the search with those
partner constraints) is unsolvable.

``partners`` restricts whom a tile may pair with. At the root every other tile of its type is
allowed; inside the pairing search a tile whose type's pairing is fixed may only use its fixed
partner, which makes the test stronger while staying sound for that branch.
"""

from __future__ import annotations

from typing import Mapping, Sequence

from llkgen.path import can_link
from llkgen.verify.regions import Regions


def locked_tiles(g: Sequence[int], w: int, alive: Sequence[int],
                 partners: Mapping[int, Sequence[int]], regions: Regions | None = None,
                 hint: Sequence[tuple[int, int]] = (), order: list | None = None) -> list[int]:
    """Padded indices of the tiles the relaxation cannot delete (empty list: no proof).

    ``regions``, if given, must describe the empty regions of ``g``; it is copied, not changed.
    The region filter (see :mod:`llkgen.verify.regions`) skips the path test for tiles that
    share no empty region with any partner, which is most of a full board.

    ``hint`` is a deletion order ``[(tile, partner), ...]`` from a similar board (the parent
    node in the search). It is replayed first, one path test per tile, and whatever it fails
    to delete falls through to the ordinary passes, so the result is the same fixpoint; it
    only saves the repeated passes over undeletable tiles (on 10x16 boards about 4x fewer
    path tests). ``order``, if given, receives this run's deletion order for the children."""
    rg = list(g)
    if regions is None:
        regions = Regions(rg, w)
    parent = list(regions.parent)
    size = list(regions.size)

    def find(p: int) -> int:
        while parent[p] != p:
            p = parent[p]
        return p

    def touching(p: int) -> set[int]:
        return {find(q) for q in (p - 1, p + 1, p - w, p + w) if rg[q] == 0}

    def delete(p: int) -> None:
        rg[p] = 0
        for q in (p - 1, p + 1, p - w, p + w):
            if rg[q] == 0:
                a, b = find(p), find(q)
                if a != b:
                    if size[a] < size[b]:
                        a, b = b, a
                    parent[b] = a
                    size[a] += size[b]

    if order is None:
        order = []
    if hint:
        alive_set = set(alive)
        for p, q in hint:
            if p in alive_set and rg[p] > 0 and q in partners[p] and can_link(rg, w, p, q):
                delete(p)
                order.append((p, q))
        remaining = [p for p in alive if rg[p] > 0]
    else:
        remaining = list(alive)
    changed = True
    while changed and remaining:
        changed = False
        keep = []
        for p in remaining:
            near = touching(p)
            for q in partners[p]:
                d = p - q
                if d == 1 or d == -1 or d == w or d == -w:
                    break  # orthogonal neighbours always link
                if not near:
                    continue
                if rg[q] == 0:
                    if find(q) not in near:
                        continue
                elif near.isdisjoint(touching(q)):
                    continue
                if can_link(rg, w, p, q):
                    break
            else:
                keep.append(p)
                continue
            delete(p)
            order.append((p, q))
            changed = True
        remaining = keep
    return remaining
