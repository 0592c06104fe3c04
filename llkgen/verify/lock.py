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

import time
from typing import Mapping, Sequence

from llkgen.path import find_link
from llkgen.verify.regions import Regions
from llkgen.verify.verdict import OutOfBudget


def locked_tiles(g: Sequence[int], w: int, alive: Sequence[int],
                 partners: Mapping[int, Sequence[int]], regions: Regions | None = None,
                 hint: Sequence[tuple[int, int, tuple[int, ...]]] = (), order: list | None = None,
                 deadline: float | None = None) -> list[int]:
    """Padded indices of the tiles the relaxation cannot delete (empty list: no proof).

    ``regions``, if given, must describe the empty regions of ``g``; it is copied, not changed
    (and only used when there is no hint).
    The region filter (see :mod:`llkgen.verify.regions`) skips the path test for tiles that
    share no empty region with any partner, which is most of a full board.

    ``hint`` is the deletion order ``[(tile, partner, path corners), ...]`` of the parent node in the search,
    whose board had a subset of this board's empty cells and whose tiles could pair with a
    superset of partners. It is replayed first (see the comment there); whatever it fails to
    delete falls through to the ordinary passes. The fixpoint is unique, so the result is the
    same as without a hint; only the cost changes: most children need no path test at all.
    ``order``, if given, receives this run's deletion order for the children. Past
    ``deadline`` (a ``time.perf_counter()`` value) it raises ``OutOfBudget("seconds")``."""
    rg = list(g)
    uf: Regions | None = None  # the relaxed board's regions, built only for the passes below

    def delete(p: int) -> None:
        rg[p] = 0
        if uf is not None:
            uf.open(rg, p)

    if order is None:
        order = []
    if hint:
        # Replay the parent's deletions, each stored with the path it used. The parent's
        # board had a subset of this board's real removals, so a step is still valid here
        # when its partner is still allowed and its path crosses none of the parent-deleted
        # tiles that this replay has failed to delete so far (``missing``): every other cell
        # on it is empty here too. Only the other steps need a path test.
        alive_set = set(alive)
        miss_rows: dict[int, list[int]] = {}  # row -> columns of missing tiles
        miss_cols: dict[int, list[int]] = {}  # column -> rows of missing tiles

        def blocked(corners: tuple[int, ...]) -> bool:
            for a, b in zip(corners, corners[1:]):
                ra, ca = divmod(a, w)
                rb, cb = divmod(b, w)
                if ra == rb:
                    lo, hi = (ca, cb) if ca < cb else (cb, ca)
                    if any(lo < c < hi for c in miss_rows.get(ra, ())):
                        return True
                else:
                    lo, hi = (ra, rb) if ra < rb else (rb, ra)
                    if any(lo < r < hi for r in miss_cols.get(ca, ())):
                        return True
            # interior corners lie on two segments but strictly inside neither
            return any(c in missing for c in corners[1:-1])

        missing: set[int] = set()

        def retry(m: int) -> None:
            for q2 in partners[m]:
                found = find_link(rg, w, m, q2)
                if found:
                    delete(m)
                    order.append((m, q2, found))
                    missing.discard(m)
                    r, c = divmod(m, w)
                    miss_rows[r].remove(c)
                    miss_cols[c].remove(r)
                    return

        since_retry = 0
        for p, q, corners in hint:
            if p not in alive_set or rg[p] == 0:
                continue
            allowed = partners[p]
            if q in allowed and not (missing and blocked(corners)):
                delete(p)
                order.append((p, q, corners))
            else:
                for q2 in allowed:
                    found = find_link(rg, w, p, q2)
                    if found:
                        delete(p)
                        order.append((p, q2, found))
                        break
                else:
                    missing.add(p)
                    r, c = divmod(p, w)
                    miss_rows.setdefault(r, []).append(c)
                    miss_cols.setdefault(c, []).append(r)
                    continue
            # A missing tile may become deletable as the board opens; every few deletions,
            # try again, so that one failed step does not force path tests on all later ones.
            # (Retrying only when the emptied cell lies in the tile's row or column band with
            # a partner was measured: it retried more often, as those bands are wide.)
            since_retry += 1
            if missing and since_retry >= 4:
                since_retry = 0
                for m in sorted(missing):
                    retry(m)
        remaining = [p for p in alive if rg[p] > 0]
    else:
        remaining = list(alive)
    if remaining:
        # The passes need the empty regions of the relaxed board. The replay above does not,
        # so they are built only now: most hinted runs delete everything and never get here.
        uf = Regions(rg, w) if regions is None or hint else regions.copy()
    changed = True
    while changed and remaining:
        changed = False
        keep = []
        if deadline is not None and time.perf_counter() > deadline:
            raise OutOfBudget("seconds")
        for p in remaining:
            near = uf.touching(rg, p)
            for q in partners[p]:
                d = p - q
                if d == 1 or d == -1 or d == w or d == -w:
                    found = (p, q)  # orthogonal neighbours always link
                    break
                if not near:
                    continue
                if rg[q] == 0:
                    if uf.find(q) not in near:
                        continue
                elif near.isdisjoint(uf.touching(rg, q)):
                    continue
                found = find_link(rg, w, p, q)
                if found:
                    break
            else:
                keep.append(p)
                continue
            delete(p)
            order.append((p, q, found))
            changed = True
        remaining = keep
    return remaining
