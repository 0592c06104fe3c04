"""Fast forward play: the engine behind random playthroughs and the constructive generator.

A :class:`Playout` holds a padded board (see :mod:`llkgen.path`) and the set of pairs that are
removable right now. :meth:`Playout.moves` lists them in exactly the order of
:func:`llkgen.path.removable_pairs` (``(a, b)`` row-major with ``a < b``; padded indices keep
row-major order), so choosing ``moves()[i]`` is the same choice a plain loop over
``removable_pairs`` would make. ``tests/test_generate.py`` checks that equivalence move by
move, on random boards under every gravity, against ``removable_pairs`` and the referee.

Representation. Besides the padded cells ``g`` we keep, for every cell, the nearest
non-empty cell to its left, right, above and below (``left``, ``right``, ``up``, ``down``).
They turn the path rule's line scans into lookups: a segment between two cells of a row is
clear exactly when ``right[first] >= last``. Emptying cell ``x`` only changes these pointers
along the row run and column run through ``x``, so a removal costs time proportional to those
runs, not to the board. Measured on constructed boards of the shipped specs (a busy 2-core
machine, so read the ratios, not the times): a random playthrough costs 27 ms against 190 ms
calling ``removable_pairs`` at every step on hard.yaml (10x16, no gravity, 7x), and 28 ms
against 94 ms on gravity.yaml (8x12, gravity down, 3.4x). Re-measure after changing the path
rule or this module.

Why the pair set can be updated without gravity: removing tiles never blocks a path, so a pair
removable now stays removable until one of its tiles goes. After removing ``a`` and ``b`` we
keep the old pairs and look only for *new* ones, whose paths must pass through ``a`` or ``b``
(a path avoiding both was already legal). Let ``x`` be one of them and take the segment of
such a path through ``x``; say it is horizontal, inside the empty run ``H`` of ``x``'s row
(the vertical case is symmetric). Either

* both ends of that segment lie in ``H`` or on the tiles bounding it: then both tiles are
  *seen* from ``H`` -- each bounds ``H`` in its row or is the first tile straight up or down
  from a cell of ``H`` -- and conversely any two same-type tiles seen from ``H`` link through
  ``H`` with at most two turns, so all such pairs are added; or
* the segment starts at a tile bounding ``H`` (it is the path's first or last segment), turns
  at a cell of ``H``, crosses to the partner's row and turns into it: then we test that
  bounding tile against each of its partners for exactly that shape
  (:meth:`Playout._link_via_run`).

With gravity, tiles move after every removal and paths can close again; see
:meth:`Playout._remove_with_gravity` for what is rechecked.
"""

from __future__ import annotations

from llkgen.board import WALL, Board, Cell, Rules
from llkgen.path import PAD, from_padded, padded, to_padded

Pair = tuple[int, int]


class Playout:
    """A board being played forward. Positions are padded indices.

    ``ident`` (optional bookkeeping for the constructive generator) follows each tile through
    gravity: ``ident[p]`` is the board cell, row-major index, where the tile now at ``p``
    started."""

    def __init__(self, board: Board, rules: Rules, track: bool = False):
        self.rules = rules
        self.w = w = board.cols + 2 * PAD
        self.h = board.rows + 2 * PAD
        self.g = padded(board, rules)
        self.left = board.tile_count
        self.gravity_lines = _padded_lines(board.rows, board.cols, rules.gravity)
        self.ident: list[int] | None = None
        if track:
            self.ident = [-1] * len(self.g)
            for i in range(board.rows * board.cols):
                self.ident[to_padded(divmod(i, board.cols), w)] = i
        self._rebuild()

    def copy(self) -> "Playout":
        """An independent copy; cheaper than building a new one (nothing is recomputed)."""
        other = object.__new__(Playout)
        other.__dict__.update(self.__dict__)
        other.g = list(self.g)
        other.lt, other.rt, other.up, other.dn = list(self.lt), list(self.rt), list(self.up), list(self.dn)
        other.by_type = {t: list(ps) for t, ps in self.by_type.items()}
        other.links = set(self.links)
        other.ident = None if self.ident is None else list(self.ident)
        return other

    # -- pointers ----------------------------------------------------------------------------
    def _pointers(self) -> None:
        """Nearest non-empty cell in each direction, for every cell inside the sentinel ring.
        The sentinel ring is a wall, so every pointer lands inside the padded grid."""
        g, w, h = self.g, self.w, self.h
        n = len(g)
        lt, rt, up, dn = [0] * n, [0] * n, [0] * n, [0] * n
        for r in range(1, h - 1):
            row = r * w
            last = row
            for p in range(row + 1, row + w - 1):
                lt[p] = last
                if g[p]:
                    last = p
            last = row + w - 1
            for p in range(row + w - 2, row, -1):
                rt[p] = last
                if g[p]:
                    last = p
        for c in range(1, w - 1):
            last = c
            for p in range(c + w, c + (h - 1) * w, w):
                up[p] = last
                if g[p]:
                    last = p
            last = c + (h - 1) * w
            for p in range(c + (h - 2) * w, c, -w):
                dn[p] = last
                if g[p]:
                    last = p
        self.lt, self.rt, self.up, self.dn = lt, rt, up, dn

    def _open(self, x: int) -> None:
        """Cell ``x`` has just become empty: repoint the row run and column run through it."""
        lt, rt, up, dn = self.lt, self.rt, self.up, self.dn
        lo, hi = lt[x], rt[x]
        for p in range(lo + 1, hi + 1):
            lt[p] = lo
        for p in range(lo, hi):
            rt[p] = hi
        w = self.w
        lo, hi = up[x], dn[x]
        for p in range(lo + w, hi + w, w):
            up[p] = lo
        for p in range(lo, hi, w):
            dn[p] = hi

    def link(self, pa: int, pb: int) -> bool:
        """Whether some path with at most two turns joins padded cells ``pa`` and ``pb``
        (types ignored): :func:`llkgen.path.find_link` with lookups instead of scans."""
        w, lt, rt, up, dn = self.w, self.lt, self.rt, self.up, self.dn
        if pa > pb:
            pa, pb = pb, pa
        ra, ca = divmod(pa, w)
        rb, cb = divmod(pb, w)
        if ra == rb:
            if rt[pa] >= pb:
                return True
        elif ca == cb and dn[pa] >= pb:
            return True
        aL, aR = lt[pa] - ra * w + 1, rt[pa] - ra * w - 1
        aU, aD = up[pa] // w + 1, dn[pa] // w - 1
        bL, bR = lt[pb] - rb * w + 1, rt[pb] - rb * w - 1
        bU, bD = up[pb] // w + 1, dn[pb] // w - 1
        if ca != cb and ra != rb:
            if aL <= cb <= aR and bU <= ra <= bD:
                return True
            if aU <= rb <= aD and bL <= ca <= bR:
                return True
        if ra != rb:  # ra < rb: a vertical middle segment in column c, from row ra down to rb
            top, bot = ra * w, rb * w
            for c in range(max(aL, bL), min(aR, bR) + 1):
                if c != ca and c != cb and dn[top + c] >= bot + c:
                    return True
        if ca != cb:  # a horizontal middle segment in row r, between columns ca and cb
            c0, c1 = (ca, cb) if ca < cb else (cb, ca)
            for r in range(max(aU, bU), min(aD, bD) + 1):
                if r != ra and r != rb and rt[r * w + c0] >= r * w + c1:
                    return True
        return False

    # -- the set of removable pairs ----------------------------------------------------------
    def _rebuild(self) -> None:
        self._pointers()
        g = self.g
        self.by_type: dict[int, list[int]] = {}
        for p, v in enumerate(g):
            if v > 0:
                self.by_type.setdefault(v, []).append(p)
        link = self.link
        self.links: set[Pair] = {
            (p, q)
            for ps in self.by_type.values()
            for i, p in enumerate(ps)
            for q in ps[i + 1 :]
            if link(p, q)
        }

    def moves(self) -> list[Pair]:
        """Removable pairs ``(p, q)``, ``p < q``, sorted: the order of ``removable_pairs``."""
        return sorted(self.links)

    def cells(self, pair: Pair) -> tuple[Cell, Cell]:
        return from_padded(pair[0], self.w), from_padded(pair[1], self.w)

    # -- playing ----------------------------------------------------------------------------
    def remove(self, p: int, q: int) -> None:
        """Play the removable pair ``(p, q)`` (the caller takes it from :meth:`moves`)."""
        g = self.g
        t = g[p]
        g[p] = g[q] = 0
        self.left -= 2
        if self.gravity_lines is not None:
            self._remove_with_gravity(p, q, t)
            return
        self._open(p)
        self._open(q)
        ps = self.by_type[t]
        ps.remove(p)
        ps.remove(q)
        if not ps:
            del self.by_type[t]
        links = self.links
        links.discard((p, q) if p < q else (q, p))
        for r in ps:
            for x in (p, q):
                links.discard((x, r) if x < r else (r, x))
        for x in (p, q):
            self._new_links_through(x, True)
            self._new_links_through(x, False)

    def _new_links_through(self, x: int, horizontal: bool) -> None:
        """Add the pairs that became removable through the empty run containing ``x`` (its row
        run if ``horizontal``, else its column run). The module docstring argues why this
        finds every new pair."""
        g, links, by_type = self.g, self.links, self.by_type
        if horizontal:
            lo, hi, step, near, far = self.lt[x], self.rt[x], 1, self.up, self.dn
        else:
            lo, hi, step, near, far = self.up[x], self.dn[x], self.w, self.lt, self.rt
        ends = [e for e in (lo, hi) if g[e] > 0]
        run = range(lo + step, hi, step)
        found = [u for u in [near[c] for c in run] + [far[c] for c in run] if g[u] > 0]
        seen: dict[int, list[int]] = {}
        for u in ends + found:
            t = g[u]
            if t in seen:
                seen[t].append(u)
            else:
                seen[t] = [u]
        for ps in seen.values():
            if len(ps) > 1:
                for i, a in enumerate(ps):
                    for b in ps[i + 1 :]:
                        links.add((a, b) if a < b else (b, a))
        for e in ends:
            for r in by_type[g[e]]:
                if r != e:
                    pair = (e, r) if e < r else (r, e)
                    if pair not in links and self._link_via_run(e, r, lo, hi, horizontal):
                        links.add(pair)

    def _link_via_run(self, e: int, r: int, lo: int, hi: int, horizontal: bool) -> bool:
        """Whether tile ``e``, which bounds the empty run strictly between ``lo`` and ``hi``,
        links tile ``r`` by a path that leaves ``e`` along the run, turns at a cell of the run,
        crosses to ``r``'s row (column) and turns into ``r``. The paths that turn straight into
        ``r`` (one turn, or none) are found as pairs seen from the run."""
        w = self.w
        rr, cr = divmod(r, w)
        if horizontal:
            rx = e // w
            if rr == rx:
                return False
            c_lo = max(lo - rx * w + 1, self.lt[r] - rr * w + 1)
            c_hi = min(hi - rx * w - 1, self.rt[r] - rr * w - 1)
            top, bot = (rx * w, rr * w) if rx < rr else (rr * w, rx * w)
            dn = self.dn
            for c in range(c_lo, c_hi + 1):
                if dn[top + c] >= bot + c:
                    return True
            return False
        cx = e % w
        if cr == cx:
            return False
        r_lo = max(lo // w + 1, self.up[r] // w + 1)
        r_hi = min(hi // w - 1, self.dn[r] // w - 1)
        c0, c1 = (cx, cr) if cx < cr else (cr, cx)
        rt = self.rt
        for row in range(r_lo * w, r_hi * w + 1, w):
            if rt[row + c0] >= row + c1:
                return True
        return False

    def _remove_with_gravity(self, p: int, q: int, t: int) -> None:
        """Update after removing ``p`` and ``q`` (already emptied) and letting tiles fall.

        Only three kinds of pair can change: pairs of a tile that moved (rechecked in full),
        pairs whose path ran through a cell that became occupied (every remaining pair is
        rechecked if there is one -- after the first move of a settled board there never is),
        and new pairs through a cell that became empty (found as without gravity: a path that
        avoids every newly empty cell was legal before)."""
        g = self.g
        before = {p: True, q: True}
        moves = self._fall(before)
        ps = self.by_type[t]
        ps.remove(p)
        ps.remove(q)
        if not ps:
            del self.by_type[t]
        by_type = self.by_type
        for i, j in moves:
            lst = by_type[g[j]]
            lst[lst.index(i)] = j
        emptied, filled = [], []
        for x in sorted(before):
            was, now = before[x], g[x] != 0
            if was and not now:
                self._open(x)
                emptied.append(x)
            elif now and not was:
                self._close(x)
                filled.append(x)
        gone = {p, q}
        gone.update(i for i, _ in moves)
        links = {pr for pr in self.links if pr[0] not in gone and pr[1] not in gone}
        if filled:
            links = {pr for pr in links if self.link(*pr)}
        self.links = links
        for _, j in moves:
            for r in by_type[g[j]]:
                if r != j:
                    pair = (j, r) if j < r else (r, j)
                    if pair not in links and self.link(j, r):
                        links.add(pair)
        for x in emptied:
            self._new_links_through(x, True)
            self._new_links_through(x, False)

    def _close(self, x: int) -> None:
        """Cell ``x`` has just become occupied: the runs through it are cut in two."""
        lt, rt, up, dn = self.lt, self.rt, self.up, self.dn
        lo, hi = lt[x], rt[x]
        for i in range(x + 1, hi + 1):
            lt[i] = x
        for i in range(lo, x):
            rt[i] = x
        w = self.w
        lo, hi = up[x], dn[x]
        for i in range(x + w, hi + w, w):
            up[i] = x
        for i in range(lo, x, w):
            dn[i] = x

    def _fall(self, before: dict[int, bool]) -> list[tuple[int, int]]:
        """Compact every line towards the gravity side. Returns the tile moves ``(from, to)``
        and records in ``before`` the previous occupancy of every cell that changed."""
        g, ident = self.g, self.ident
        moves = []
        for line in self.gravity_lines:
            dest = 0
            for k, i in enumerate(line):
                v = g[i]
                if v == WALL:
                    dest = k + 1
                elif v > 0:
                    if k != dest:
                        j = line[dest]
                        before.setdefault(j, g[j] != 0)
                        before.setdefault(i, True)
                        g[j] = v
                        g[i] = 0
                        moves.append((i, j))
                        if ident is not None:
                            ident[j] = ident[i]
                            ident[i] = -1
                    dest += 1
        return moves

    def reshuffle(self, rng) -> None:
        """Permute the types of the remaining tiles among the cells they occupy (``rng`` is a
        numpy Generator). Occupancy, and so ``ident``, is unchanged."""
        g = self.g
        cells = [p for p, v in enumerate(g) if v > 0]
        values = [g[p] for p in cells]
        order = rng.permutation(len(values))
        for p, k in zip(cells, order):
            g[p] = values[int(k)]
        self._rebuild()

    def any_cells_link(self) -> bool:
        """Whether some two remaining tiles could link if they had the same type. If not, no
        reshuffle can ever produce a move."""
        cells = [p for p, v in enumerate(self.g) if v > 0]
        return any(self.link(p, q) for i, p in enumerate(cells) for q in cells[i + 1 :])


def _padded_lines(rows: int, cols: int, gravity: str) -> list[list[int]] | None:
    """Padded indices of each column or row, listed from the gravity side outwards."""
    w = cols + 2 * PAD

    def at(r: int, c: int) -> int:
        return (r + PAD) * w + c + PAD

    if gravity == "none":
        return None
    if gravity == "down":
        return [[at(r, c) for r in range(rows - 1, -1, -1)] for c in range(cols)]
    if gravity == "up":
        return [[at(r, c) for r in range(rows)] for c in range(cols)]
    if gravity == "right":
        return [[at(r, c) for c in range(cols - 1, -1, -1)] for r in range(rows)]
    if gravity == "left":
        return [[at(r, c) for c in range(cols)] for r in range(rows)]
    raise ValueError(f"gravity: expected one of none, down, up, left, right, found {gravity!r}")


def random_playthrough(board: Board | Playout, rules: Rules, rng, record: bool = True,
                       ) -> tuple[bool, list[tuple[Cell, Cell]]]:
    """Play uniformly random removable pairs until the board is cleared or no pair is left.

    Returns ``(cleared, moves)``. Each step draws ``rng.integers(n)`` once, ``n`` being the
    number of removable pairs, and takes that index in ``removable_pairs`` order. ``board``
    may be a :class:`Playout` of the starting board (it is copied, not changed), which saves
    rebuilding the pair set for every playthrough. With ``record=False`` the move list stays
    empty (it is only wanted by tests and callers that replay it)."""
    play = board.copy() if isinstance(board, Playout) else Playout(board, rules)
    moves: list[tuple[Cell, Cell]] = []
    while play.left:
        options = play.moves()
        if not options:
            return False, moves
        p, q = options[int(rng.integers(len(options)))]
        if record:
            moves.append(play.cells((p, q)))
        play.remove(p, q)
    return True, moves
