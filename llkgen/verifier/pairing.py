"""Exact search without gravity: decide how tiles pair up; the order then follows.

The facts this search stands on (no gravity, where removing tiles never blocks a path):

* **Moving a move to the front.** If a solution from some board uses a pair ``m`` that is
  linkable on that board now, then playing ``m`` first and the rest of the solution in its
  order is also a solution: every later path only finds more empty cells.
* **Forced pairs are safe.** A pair that every admissible pairing of its type contains (for a
  type with two tiles left, its only pair) must be played some time; if it is linkable now,
  playing it now loses nothing.
* **Whole-type clearing is safe.** If every remaining tile of a type can be removed by that
  type's own moves available now, doing so first is safe: all other moves of a solution then
  happen on boards with more empty cells. (It may pair the type differently from the
  solution; that is fine, any pairing that clears the board will do.)
* **Branching: play it, or never.** Pick a linkable pair ``m``. Either some solution uses
  ``m`` (then, by the first fact, one plays ``m`` now: branch 1) or no solution uses it, and
  ``m`` can be forbidden for the rest of this subtree (branch 2). The two branches cover every
  solution, so the search is complete. Forbidding pairs is what keeps it from re-exploring
  the same pairings in a different move order.
* **Pruning.** Each node runs the lock test (:mod:`llkgen.verifier.lock`) where a tile may only
  pair with alive tiles of its type not forbidden to it, checks that every type still has an
  admissible perfect pairing, and consults a table of dead nodes keyed exactly by the board
  and the forbidden pairs among alive tiles.

``search`` returns the removal order (padded indices) or ``None`` when the search is
exhaustive and found nothing; a budget running out raises :class:`OutOfBudget`.
"""

from __future__ import annotations

import time
from array import array
from bisect import insort
from typing import Iterable, Iterator, Sequence

from llkgen.game.board import Board, Cell, Gravity, Rules
from llkgen.game.grid import Grid, Pair
from llkgen.verifier.lock import NO_PARTNERS, OrderWalk, PartnerTable, Relaxation, Step, locked_tiles
from llkgen.verifier.verdict import Budget, Limit, OutOfBudget

Pairing = tuple[Pair, ...]
#: Types with more tiles than this skip the exact pairing analysis (forced pairs, whole-type
#: clearing), which enumerates perfect matchings: 8 tiles have 105, 10 have 945. Skipping it
#: only weakens pruning; the branching alone is complete.
MAX_MATCHING_TILES = 8
#: Nodes after which every node is probed (see PairingSearch.__init__).
PROBE_AFTER = 200


def perfect_matchings(items: Sequence[int]) -> Iterator[Pairing]:
    """Every way to split ``items`` (even length) into pairs, in a fixed order."""
    if not items:
        yield ()
        return
    first = items[0]
    for i in range(1, len(items)):
        rest = list(items[1:i]) + list(items[i + 1 :])
        for tail in perfect_matchings(rest):
            yield ((first, items[i]),) + tail


_PATTERNS: dict[int, list[Pairing]] = {}


def _patterns(n: int) -> list[Pairing]:
    """Perfect matchings of ``range(n)`` as index pairs, computed once per size."""
    if n not in _PATTERNS:
        _PATTERNS[n] = list(perfect_matchings(list(range(n))))
    return _PATTERNS[n]


class PairingSearch:
    def __init__(self, board: Board, rules: Rules, budget: Budget, start: float | None = None,
                 *, lock: bool = True, probe: bool = True, prefer: Sequence[Pair] = (),
                 dead: set[bytes] | None = None):
        if rules.gravity != Gravity.NONE:  # not an assert: python -O would strip it, and the search then lies
            raise ValueError(f"the pairing search is only sound without gravity, found gravity {rules.gravity!r}")
        self.grid = Grid(board, rules)
        self.w = self.grid.w
        self.g = self.grid.g  # the grid's own list: restores refill it in place
        self.types: dict[int, list[int]] = dict(sorted(self.grid.by_type().items()))
        # the tiles of each type still on the board, in board order, and how many forbidden
        # pairs each tile is in: kept up to date by _remove, _forbid and _undo, because
        # every node asks for them
        self.live: dict[int, list[int]] = {t: list(ps) for t, ps in self.types.items()}
        self.fb_count: dict[int, int] = {p: 0 for ps in self.types.values() for p in ps}
        self.left = board.tile_count
        self.forbidden: set[Pair] = set()
        self.moves: list[Pair] = []
        self.trail: list[tuple] = []  # undo log: ("rm", p, q, t) or ("fb", pair)
        # Keys of nodes proved dead, possibly by an earlier search on the same board (each is
        # a proof whatever found it: see key()).
        self.dead: set[bytes] = set() if dead is None else dead
        self.nodes = 0
        self.lock_prunes = 0
        self.budget = budget
        self.start = time.perf_counter() if start is None else start
        self.deadline = None if budget.seconds is None else self.start + budget.seconds
        self.lock = lock  # run the lock test at every node (pruning only; off for a quick dive)
        # Failed-pairing probing (see probe()) at the root, and at every node once the search
        # has spent PROBE_AFTER nodes. Measured on seeded 10x16 boards: at the root it proves
        # most unsolvable boards the root lock test misses within 4 nodes (before: up to 737
        # nodes); at every node from the start it keeps solvable boards backtrack-free but
        # costs ~5x the CPU, so it is kept for the boards the cheap search does not settle,
        # where it cut the hardest unsolvable boards from 1392 / 5551 / 10752 nodes (4 / 14 /
        # 31 CPU s) to 226 / 330 / 250 nodes (4 / 16 / 5 s).
        self.probe_root = probe
        # Pairs to branch on first, in this order (e.g. a generator's construction order):
        # a move-ordering hint only, it never changes the verdict.
        self.prefer_order = list(dict.fromkeys((min(p, q), max(p, q)) for p, q in prefer))

    # -- board changes with undo ----------------------------------------------------------------
    def _remove(self, p: int, q: int) -> None:
        t = self.g[p]
        self.grid.clear(p)
        self.grid.clear(q)
        live = self.live[t]
        live.remove(p)
        live.remove(q)
        self.left -= 2
        self.moves.append((p, q))
        self.trail.append(("rm", p, q, t))

    def _forbid(self, pair: Pair) -> None:
        self.forbidden.add(pair)
        self.fb_count[pair[0]] += 1
        self.fb_count[pair[1]] += 1
        self.trail.append(("fb", pair))

    def _mark(self) -> int:
        return len(self.trail)

    def _undo(self, mark: int) -> None:
        """Take back every removal and forbidding since ``mark``. Removals are refilled in
        reverse order, which restores the grid's run tables exactly."""
        grid = self.grid
        trail = self.trail
        while len(trail) > mark:
            entry = trail.pop()
            if entry[0] == "rm":
                _, p, q, t = entry
                grid.fill(q, t)
                grid.fill(p, t)
                insort(self.live[t], p)
                insort(self.live[t], q)
                self.left += 2
                self.moves.pop()
            else:
                pair = entry[1]
                self.forbidden.discard(pair)
                self.fb_count[pair[0]] -= 1
                self.fb_count[pair[1]] -= 1

    # -- queries --------------------------------------------------------------------------------
    def linkable(self, p: int, q: int) -> bool:
        return self.grid.link(p, q)

    def alive(self, t: int) -> list[int]:
        """The tiles of type ``t`` still on the board (the search's own list: read only)."""
        return self.live[t]

    def admissible(self, tiles: Sequence[int]) -> list[Pairing]:
        """Perfect pairings of ``tiles`` that use no forbidden pair."""
        fb = self.forbidden
        out = []
        for pattern in _patterns(len(tiles)):
            m = tuple((tiles[i], tiles[j]) for i, j in pattern)
            if not fb or not any(pr in fb for pr in m):
                out.append(m)
        return out

    def _clear_type_now(self, pairings: list[Pairing]) -> list[Pair] | None:
        """A removal order that clears a type with its own moves available now, or None.
        Trial removals go through the grid and are refilled, in reverse, before returning."""
        grid = self.grid
        for pairing in pairings:
            first = [pr for pr in pairing if grid.link(*pr)]
            if not first:
                continue
            if len(first) == len(pairing):
                return list(pairing)
            done = list(first)
            pending = [pr for pr in pairing if pr not in first]
            t = self.g[first[0][0]]
            cleared = [p for pr in first for p in pr]
            for p in cleared:
                grid.clear(p)
            progress = True
            while pending and progress:
                progress = False
                for pr in pending:
                    if grid.link(*pr):
                        grid.clear(pr[0])
                        grid.clear(pr[1])
                        cleared += pr
                        pending.remove(pr)
                        done.append(pr)
                        progress = True
                        break
            for p in reversed(cleared):
                grid.fill(p, t)
            if not pending:
                return done
        return None

    # -- propagation ----------------------------------------------------------------------------
    def _play(self, p: int, q: int) -> set[int]:
        """Remove the pair and return the types whose closure may have changed: its own, and
        every type with a tile seen from the two opened cells (:meth:`Grid.seen`: any pair
        that gains a path has an end seen from them; and so does any pair that gains a path
        once some tiles of its own type are gone, as the whole-type clearing asks, because the
        first tile such a path meets from an opened cell is of that type)."""
        t = self.g[p]
        self._remove(p, q)
        g = self.g
        dirty = {t}
        seen = self.grid.seen
        for c in (p, q):
            for x in seen(c)[0]:
                dirty.add(g[x])
        return dirty

    def closure(self, dirty: Iterable[int]) -> bool:
        """Play every safe move until none is left, looking only at the ``dirty`` types and
        those a move dirties (see :meth:`_play`): any other type was settled by the closure
        that led to this node and nothing it depends on has changed. False when some type
        has no admissible pairing left (the node is dead)."""
        queue = sorted(dirty)
        queued = set(queue)
        forbidden = self.forbidden
        linkable = self.grid.link
        at = 0
        while at < len(queue):
            t = queue[at]
            at += 1
            queued.discard(t)
            tiles = self.alive(t)
            n = len(tiles)
            if not n or n > MAX_MATCHING_TILES:
                continue
            moves: Sequence[Pair] = ()
            if n == 2:
                pr = (tiles[0], tiles[1])
                if pr in forbidden:
                    return False
                if linkable(*pr):
                    moves = (pr,)
            else:
                pairings = self.admissible(tiles)
                if not pairings:
                    return False
                if len(pairings) < len(_patterns(n)):  # only forbidding can force a pair
                    moves = [pr for pr in sorted(set(pairings[0]).intersection(*pairings[1:]))
                             if linkable(*pr)]
                if not moves:
                    moves = self._clear_type_now(pairings) or ()
            for p, q in moves:
                for d in self._play(p, q):
                    if d not in queued:
                        queue.append(d)
                        queued.add(d)
        return True

    def partner_map(self) -> tuple[list[int], PartnerTable]:
        """Alive tiles, and for each the alive tiles of its type it may still pair with (a
        table indexed by position, see :data:`~llkgen.verifier.lock.PartnerTable`)."""
        fb = self.forbidden
        fb_count = self.fb_count
        partners: PartnerTable = [NO_PARTNERS] * len(self.g)
        alive: list[int] = []
        for tiles in self.live.values():
            alive += tiles
            for p in tiles:
                if fb_count[p]:
                    partners[p] = [q for q in tiles if q != p and ((p, q) if p < q else (q, p)) not in fb]
                else:
                    partners[p] = [q for q in tiles if q != p]
        return alive, partners

    def locked(self, hint: Sequence[Step], order: list[Step]) -> list[int]:
        alive, partners = self.partner_map()
        return locked_tiles(self.grid, alive, partners, hint, order, self.deadline)

    def probe(self, hint: Sequence[Step]) -> set[int]:
        """Failed-pairing probing: for each undecided type and each admissible pairing of it,
        run the lock test with that type held to that pairing. A pairing that locks is
        impossible (the lock test is sound under any partner restriction), so a pair all of
        whose admissible pairings lock is forbidden. Returns the types it forbade pairs of
        (the caller re-runs propagation on them); a type left with no pairing is then caught
        by the closure."""
        fb = self.forbidden
        forbade: set[int] = set()
        used = {p: q for p, q, _ in hint}
        alive, partners = self.partner_map()
        todo: list[tuple[list[int], list[Pairing]]] = []
        wanted: dict[int, set[int]] = {}
        for t in self.types:
            tiles = self.alive(t)
            if len(tiles) < 4 or len(tiles) > MAX_MATCHING_TILES:
                continue
            pairings = self.admissible(tiles)
            if len(pairings) < 2:
                continue
            todo.append((tiles, pairings))
            for pairing in pairings:
                for p, q in pairing:
                    if used.get(p) != q:
                        wanted.setdefault(p, set()).add(q)
                    if used.get(q) != p:
                        wanted.setdefault(q, set()).add(p)
        if not todo:
            return forbade
        # A pairing whose tiles each link to their new partner where the node's own order
        # deleted them passes the lock test (see lock.links_along); only the others need one.
        # The node's own lock test deleted every tile, so a pairing every tile of which
        # already used is skipped the same way.
        walk = OrderWalk(self.grid, hint, {p: sorted(qs) for p, qs in wanted.items()})
        for tiles, pairings in todo:
            alive_pairings = []
            held: Relaxation | None = None
            for pairing in pairings:
                mate = {p: q for a, b in pairing for p, q in ((a, b), (b, a)) if used.get(p) != q}
                if walk.passes(mate):
                    alive_pairings.append(pairing)
                    continue
                self._tick_clock()
                saved = [partners[p] for p in tiles]
                if held is None:
                    # Relax once with this type's tiles held back; each pairing resumes
                    # from there (sound: the fixpoint is unique, see lock.Relaxation).
                    for p in tiles:
                        partners[p] = NO_PARTNERS
                    held = Relaxation(self.grid, self.deadline)
                    held_left = held.replay(hint, alive, partners)
                    rest = [p for p in alive if held.grid.g[p]]
                    if len(rest) > len(held_left):
                        held_left = held.settle(rest, partners)
                rel = held.copy()
                for a, b in pairing:
                    partners[a] = [b]
                    partners[b] = [a]
                dead = bool(rel.settle(held_left, partners))
                for p, qs in zip(tiles, saved):
                    partners[p] = qs
                if not dead:
                    alive_pairings.append(pairing)
            for i, p in enumerate(tiles):
                for q in tiles[i + 1 :]:
                    if (p, q) not in fb and not any((p, q) in pm for pm in alive_pairings):
                        self._forbid((p, q))
                        forbade.add(self.g[p])
        return forbade

    def key(self) -> bytes:
        g = self.g
        live = sorted(pr for pr in self.forbidden if g[pr[0]] > 0 and g[pr[1]] > 0)
        return array("h", g).tobytes() + repr(live).encode()

    def choose(self) -> Pair | None:
        """The linkable, non-forbidden pair to branch on, or None when there is none.

        Order (a heuristic: it changes speed, never the verdict): pairs of the ``prefer`` hint
        first, in its order; then types with the fewest tiles left, then with the fewest
        admissible pairings (a type already half decided by forbidden pairs is finished
        first), then board order. Within a type the first linkable pair in board order is the
        best, so the scan of a type stops there: a type of a thousand tiles costs one link
        test per pair before the first hit, not half a million."""
        fb = self.forbidden
        g = self.g
        link = self.grid.link
        for p, q in self.prefer_order:
            if g[p] > 0 and g[q] > 0 and (p, q) not in fb and link(p, q):
                return (p, q)
        best: tuple[int, int, int, int] | None = None
        tests = 0
        for tiles in self.live.values():
            n = len(tiles)
            if n < 2 or (best is not None and n > best[0]):
                continue  # more tiles can never win
            found = None
            for i in range(n - 1):
                p = tiles[i]
                for j in range(i + 1, n):
                    q = tiles[j]
                    if (p, q) not in fb and link(p, q):
                        found = (p, q)
                        break
                tests += n - i
                if found is not None:
                    break
                if tests > 4096:
                    tests = 0
                    self._tick_clock()
            if found is None:
                continue
            admissible = len(self.admissible(tiles)) if n <= MAX_MATCHING_TILES else 0
            score = (n, admissible, *found)
            if best is None or score < best:
                best = score
        return None if best is None else (best[2], best[3])

    # -- search ---------------------------------------------------------------------------------
    def _tick_clock(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfBudget(Limit.SECONDS)

    def _tick(self) -> None:
        # The check comes before the count: a budget of N nodes that runs out reports N.
        if self.budget.nodes is not None and self.nodes >= self.budget.nodes:
            raise OutOfBudget(Limit.NODES)
        self.nodes += 1
        # A node costs milliseconds here, so reading the clock at every node is free.
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfBudget(Limit.SECONDS)

    def cells(self, order: Sequence[Pair]) -> list[tuple[Cell, Cell]]:
        """A removal order of padded positions as board cells."""
        cell = self.grid.cell
        return [(cell(p), cell(q)) for p, q in order]

    def search(self) -> list[Pair] | None:
        if self._solve((), self.probe_root, self.types):
            return list(self.moves)
        return None

    def _solve(self, hint: Sequence, probe: bool, dirty: Iterable[int]) -> bool:
        """One node. Branch 1 (play the chosen pair) recurses; branch 2 (forbid it) and a
        successful probe change only the constraints, so they loop at this level: the
        recursion depth is bounded by the number of pairs, not by the node budget.
        ``dirty``: the types the closure must look at (see :meth:`closure`)."""
        mark = self._mark()
        keys: list[bytes] = []
        while True:
            self._tick()
            if not self.closure(dirty):
                break
            if self.left == 0:
                return True
            key = self.key()
            if key in self.dead:
                break
            keys.append(key)
            order: list = []
            if self.lock and self.locked(hint, order):
                self.lock_prunes += 1
                break
            hint = order
            if probe or (self.probe_root and self.nodes > PROBE_AFTER):
                probe = False
                dirty = self.probe(order)
                if dirty:
                    continue  # new forbidden pairs: propagate again at this node
            m = self.choose()
            if m is None:
                break
            inner = self._mark()
            if self._solve(order, False, self._play(*m)):
                return True
            self._undo(inner)
            self._forbid(m)
            dirty = (self.g[m[0]],)
        self.dead.update(keys)
        self._undo(mark)
        return False
