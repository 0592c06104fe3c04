"""Exact search over removable pairs for boards with gravity.

Under gravity the monotonicity that the pairing search and the lock test rely on is gone: a
removal makes tiles slide, which can close a path that was open. This search branches on
removable pairs, and prunes with three sound rules.

**A table of dead boards.** A board from which the search has tried every move without
clearing it is recorded; meeting it again ends that line at once. Sound under any rules,
because the outcome of play depends only on the board, not on how it was reached. The table
stores the exact board bytes, so a hash collision can never prune a live board.

**Clearing a type from the top is safe.** Call the board *settled* when every run (a column
for ``down``/``up``, a row for ``left``/``right``, split by walls) has its tiles packed
against the gravity side; after any move the board is settled. On a settled board a run is
just a sequence of tiles, and a removal deletes tiles from their sequences: so *the board
after removing a set of tiles does not depend on the order of the removals* (nor on how the
tiles were paired). Now take a type ``t`` whose tiles are all at the far ends of their runs
(every tile farther from the gravity side than a ``t`` tile is a ``t`` tile), and suppose
the board can be cleared by some sequence ``S``. Tiles never enter a run from the far end,
so along ``S`` the ``t`` tiles stay at the far ends of their runs until ``S`` removes them;
deleting them from a sequence's end moves no other tile. So if we first clear ``t`` by its
own moves, every later board is the board of ``S`` at the same point minus some ``t`` tiles,
with every other tile in the same cell: each move of ``S`` that is not a ``t`` move finds the
same tiles and more empty cells, and stays legal. Hence clearing ``t`` first loses nothing.
The search does it without branching whenever it finds such a type and a sequence of its own
moves that clears it (played for real, with gravity: ``t`` tiles above a removed one may
slide, nothing else does). A type with two tiles left at the tops of their runs that link
now is the common case. ``tests/verifier/test_pruning.py`` checks the rule against brute force.

**Types that can never all pair up.** Given ``reach`` (a :class:`~llkgen.verifier.reach.Reach`
of the root board; the portfolio builds one when the board has walls), every node is asked
whether some type's tiles can no longer be paired, wherever gravity takes them
(:mod:`llkgen.verifier.reach` argues it, for every direction and border setting). Such a node
is dead and is recorded as such. A tile's span only shrinks as play goes on, so the test made
from the root holds at every later node.

**The table, and budgets.** The key is the padded board itself: under gravity a settled
board is fixed by which tiles remain (a run keeps its order for ever), and two different sets
of remaining tiles that leave the same board are one position, so no key can merge more
positions and still be exact. A board enters the table only when its frame is popped with
every move tried (or when the test above refutes it); a budget running out raises from
inside the frames, so an interrupted subtree is never recorded (``tests/verifier/test_gravity_pruning.py``
checks every recorded board against brute force, with the budget stopping the search).
A node is recorded under two keys: the board as the move left it, and the board after the
clearings from the top (when they played any). The two stand or fall together: the second is
reached from the first, so a clearing of it clears the first; and if the first can be cleared,
so can the second, by the argument above. So the first key is looked up before the closure
runs, and most nodes of a refutation end there: on random full 10x16 boards under gravity
about four nodes in five are boards met before, reached by the same moves in another order.
Better still, such a node is known before its move is played: on a settled board the board is
fixed by the set of root tiles removed (above), so the table also keeps each dead board's
removed set, one bit per root tile, and a move whose set (its node's set and the move's two
tiles, which each line tracks as tiles slide) is there is skipped without playing it. A set
enters only beside a board key, so the two tables refute the same boards.

**Move ordering, raced.** A good order finds a witness without backtracking; a bad one can be
thousands of times slower (on boards built by forward play under gravity, trying first the
tiles nearest the gravity side was the worst order there is). ``far`` tries first the moves
whose tiles lie farthest from the gravity side: their removal moves the fewest tiles, so the
rest of the board stays as it was. It clears boards built by forward play without
backtracking in all four directions (measured on 12x18, ``benchmarks/verify_bench.py``),
where the board order of the plain baseline does so only for ``down``. No order wins on every
random board, so :class:`MoveSearch` runs ``far`` alone for a short dive and then races it
with two other orders (``near``: the nearest first, types with two tiles left before all;
``board``: row-major), in turns of :data:`SLICE` nodes, all sharing the dead-board table.
Each is a complete search by itself, so whichever finishes first decides. A depth-first
search that makes one wrong move early can spend millions of nodes refuting it (a 12x18
board built by forward play, gravity left: every order above was still inside a subtree
rooted 63 moves deep after 100,000 nodes). So a fourth turn goes to *restarts*: ``far`` with
its ties broken by a seeded hash, run for a Luby sequence of allowances (1, 1, 2, 1, 1, 2,
4, ... dives) and then replaced by the next seed. On that board 9 of 12 seeds found a witness
within 120 nodes. Restarts share the dead-board table, so no refutation is lost; a restart
that runs to the end is a complete search too.

Orders are heuristics only: they change speed, never the verdict.
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Iterator
from typing import Callable

from llkgen.game.board import Board, Cell, Rules
from llkgen.game.grid import Grid, Pair
from llkgen.verifier import native as native_search
from llkgen.verifier.gravlock import gravity_locked
from llkgen.verifier.reach import Reach
from llkgen.verifier.verdict import Budget, Limit, OutOfBudget, Status

ORDERINGS = ("far", "near", "board")
#: Nodes each ordering runs before the next one's turn, once the race starts.
SLICE = 64
#: With ``lock``, the root's lock test (:mod:`llkgen.verifier.gravlock`) waits for this many
#: nodes, so that boards the search decides quickly never pay for it: it costs 1-2 ms on
#: KShisen's 8x18 boards (their median search is about 260 nodes and 6 ms; run right after the
#: dive it raised that median to 7.3 ms, compiled), 3-10 ms on random 10x16 and 12x18 boards,
#: 6 ms on 16x30 -- where it decides all ten random boards under gravity down, and 2,000 nodes
#: first add about 50 ms.
LOCK_AFTER = 2000
#: With ``native``, the search hands the board over to the C search of
#: :mod:`llkgen.verifier.native` once it has run this many nodes undecided (and the lock test
#: has had its turn): the boards this search decides quickly keep its witnesses and node counts,
#: whether or not the C search is built; on the others, 2,000 nodes are a few tens of ms.
NATIVE_AFTER = LOCK_AFTER


def _far_ends(grid: Grid) -> dict[int, list[int]]:
    """The tiles of each type, for the types all of whose tiles are at the far ends of their
    runs (see the module docstring): a tile qualifies when every tile of the unbroken block
    beyond it (away from the gravity side) is of its type. One pass over each line from its
    far end; types in the order of their first tile and tiles in board order, as a row-major
    scan would list them (the greedy clearing below depends on that order)."""
    g = grid.g
    found: dict[int, list[int]] = {}
    bad: set[int] = set()
    for line in grid.lines:
        top = 0  # the block's type so far, from the far end; -1 once it is mixed
        for i in range(len(line) - 1, -1, -1):
            p = line[i]
            t = g[p]
            if t <= 0:  # an empty cell or a wall ends the block
                top = 0
            elif top == 0 or top == t:
                top = t
                if t in found:
                    found[t].append(p)
                else:
                    found[t] = [p]
            else:
                top = -1
                bad.add(t)
    keep = [(min(tiles), t) for t, tiles in found.items() if t not in bad]
    keep.sort()
    return {t: sorted(found[t]) for _, t in keep}


def _clear_from_the_top(grid: Grid, tiles: list[int], ids: list[int] | None = None
                        ) -> tuple[list[tuple[Cell, Cell]], int] | None:
    """A sequence of the type's own moves that removes all of ``tiles``, played on ``grid``
    and returned as cells (each as on the board at that moment), with the identity bits of
    the tiles removed (see :func:`_play`; 0 without ``ids``); or None, with ``grid`` and
    ``ids`` unchanged. Greedy: the first linkable pair in board order at each step, gravity
    applied; failing only means no safe move was found."""
    snap = grid.snapshot()
    kept = None if ids is None else list(ids)
    played: list[tuple[Cell, Cell]] = []
    gone = 0
    left = list(tiles)
    while left:
        for i, p in enumerate(left):
            q = next((q for q in left[i + 1:] if grid.link(p, q)), None)
            if q is not None:
                break
        else:
            grid.restore(snap)
            if ids is not None and kept is not None:
                ids[:] = kept
            return None
        played.append((grid.cell(p), grid.cell(q)))
        fall = grid.remove(p, q)
        if ids is not None:
            gone |= _follow(ids, p, q, fall.moves)
        moved = dict(fall.moves)
        left = sorted(moved.get(x, x) for x in left if x != p and x != q)
    return played, gone


def _follow(ids: list[int], p: int, q: int, moves: list[tuple[int, int]]) -> int:
    """Carry the identity bits of ``ids`` (one bit per tile of the root board, at the cell the
    tile holds) through the removal of ``p`` and ``q`` and the slides ``moves`` it made (in
    the order made, each into a cell empty at that moment); return the removed tiles' bits."""
    gone = ids[p] | ids[q]
    ids[p] = ids[q] = 0
    for i, j in moves:
        ids[j] = ids[i]
        ids[i] = 0
    return gone


def _luby() -> Iterator[int]:
    """The Luby sequence 1, 1, 2, 1, 1, 2, 4, 1, 1, 2, ...: restart allowances, in dives,
    that waste at most a logarithmic factor against the best fixed allowance."""
    k = 1
    while True:
        i = k
        while True:  # the k-th term: 2**(j-1) if k == 2**j - 1, else the (k - 2**(j-1) + 1)-th
            j = i.bit_length()
            if i == (1 << j) - 1:
                yield 1 << (j - 1)
                break
            i -= (1 << (j - 1)) - 1
        k += 1


class _Line:
    """One depth-first search in one move order, run a node at a time (:meth:`step`), so
    several can take turns."""

    def __init__(self, search: "MoveSearch", order: Callable[[list[tuple[int, int, int]]], None]):
        self.search = search
        self.grid = search.root.copy()
        self.ids = list(search.ids)  # each tile's identity bit, at the cell it holds now
        self.order = order
        # frames: [snapshot, board keys (as the move left it, and after the closure), moves to
        # try, next index, cell pairs played to get here, ids, the removed set after the
        # closure, removed-set keys (as the move left it, and after the closure)]
        self.stack: list[list] = []
        self.started = False

    def _expand(self, played: list[tuple[Cell, Cell]], removed: int) -> bool | None:
        """Enter the node the grid is at, reached by removing the tiles ``removed`` (identity
        bits): True if cleared; None if dead or the table says so; else push its frame."""
        s = self.search
        grid = self.grid
        dead, dead_sets = s.dead, s.dead_sets
        # The board as the move left it: known dead, it is dead after the closure too (module
        # docstring, "the table"), and the closure need not run.
        first = array("h", grid.g).tobytes()
        if first in dead:
            dead_sets.add(removed)
            return None
        closed, gone = s._closure(grid, self.ids)
        played += closed
        if grid.is_cleared():
            self.stack.append([None, (), [], 0, played, None, 0, ()])
            return True
        key = array("h", grid.g).tobytes() if closed else first
        keys = (first,) if key == first else (first, key)
        after = removed | gone
        sets = (removed,) if after == removed else (removed, after)
        if key in dead:
            dead.add(first)
            dead_sets.update(sets)
            return None
        if s.reach is not None and s.reach.stranded(grid, s.deadline) is not None:
            dead.update(keys)
            dead_sets.update(sets)
            s.reach_prunes += 1
            return None
        self.stack.append([grid.snapshot(), keys, s.moves(grid, self.order), 0, played, list(self.ids),
                           after, sets])
        return False

    def step(self) -> bool | None:
        """Expand one node. True: a witness is on the stack; False: this line is exhausted
        (the board is dead); None: not finished."""
        s = self.search
        if not self.started:
            self.started = True
            s.tick()
            done = self._expand([], 0)
            return True if done else (False if done is None else None)
        while self.stack:
            frame = self.stack[-1]
            snap, keys, moves, i, _, ids, removed, sets = frame
            if i < len(moves):
                frame[3] = i + 1
                p, q = moves[i]
                child = removed | ids[p] | ids[q]
                if child in s.dead_sets:
                    # a set of removals met before and refuted: its board is known dead,
                    # without playing the move (module docstring, "the table")
                    s.skipped += 1
                    s.tick()
                    return None
                grid = self.grid
                grid.restore(snap)
                self.ids[:] = ids
                cells = (grid.cell(p), grid.cell(q))
                _follow(self.ids, p, q, grid.remove(p, q).moves)
                s.tick()
                if self._expand([cells], child):
                    return True
                return None
            s.dead.update(keys)
            s.dead_sets.update(sets)
            self.stack.pop()
        return False

    def witness(self) -> list[tuple[Cell, Cell]]:
        return [pair for frame in self.stack for pair in frame[4]]


class MoveSearch:
    """``search()`` returns a removal order (cells, each as on the board at that moment) or
    ``None`` after an exhaustive search; a budget running out raises :class:`OutOfBudget`.

    ``orderings`` (default: all of :data:`ORDERINGS`) are raced as described in the module
    docstring; ``dive`` is the first order's head start in nodes (default: half the tiles,
    plus 8); ``safe=False`` turns the clear-from-the-top rule off. The last two are for the
    tests, which reach the race and the restarts on small boards with them. ``reach``, built
    from this board and rules, refutes nodes whose types can no longer pair up (counted in
    ``reach_prunes``). ``lock=True`` runs the lock test of :mod:`llkgen.verifier.gravlock`
    on the root once the search has run :data:`LOCK_AFTER` nodes undecided: a hit ends the
    search, with the locked tiles in ``locked_root``. Not at the nodes: there it cost more
    than it saved on every set measured (a test costs as much as a few hundred nodes -- 3-4
    ms on a random 10x16 board against about 12 us a node, compiled -- and the nodes it
    refutes are mostly a few moves from stuck: on 10x16-left #1 it cut 3,339 nodes to 1,330
    at 14 times the CPU).

    ``native=True`` hands the board over to the C search of :mod:`llkgen.verifier.native` once
    :data:`NATIVE_AFTER` nodes have passed undecided (after the lock test, with ``lock``): it
    searches the board again from its start, 20 times faster a node, with the whole budget
    (``native_result`` holds its result). If it decides, its verdict and its node count are this
    search's. If a node budget runs out there, this search goes on where it paused, with its own
    count, to the same budget: so a build with the C search decides every board this search
    decides alone under the same node budget (the boards either search decides), for at most
    a twentieth more CPU (the C search's nodes). Splitting the budget instead (the C search with
    what was left of it) lost boards: the C search is not this search node for node (its
    restarts break ties with another hash), so on a board that this search decides in P nodes it
    may need more than P - :data:`NATIVE_AFTER` -- ``benchmarks/handover_bench.py`` measures
    both on the real boards. A node count never exceeds the budget: it is one search's count.
    The caller checks :func:`llkgen.verifier.native.suits` first."""

    def __init__(self, board: Board, rules: Rules, budget: Budget, *, start: float | None = None,
                 prefer: list | None = None, orderings: tuple[str, ...] = ORDERINGS,
                 safe: bool = True, dive: int | None = None, reach: Reach | None = None,
                 lock: bool = False, native: bool = False):
        self.root = Grid(board, rules)
        self.native = native
        self.native_result: native_search.NativeResult | None = None
        self.board, self.rules = board, rules
        self.lock = lock
        self.locked_root: list[Cell] | None = None
        self.safe = safe
        self.reach = reach
        self.reach_prunes = 0
        self.dead: set[bytes] = set()
        #: the same dead boards, as the sets of root tiles removed to reach them (bitmasks over
        #: the root's tiles in board order): looked up before a move is played
        self.dead_sets: set[int] = set()
        self.skipped = 0  # moves not played because their removed set was known dead
        self.nodes = 0
        self.budget = budget
        self.start = time.perf_counter() if start is None else start
        self.deadline = None if budget.seconds is None else self.start + budget.seconds
        root = self.root
        rows, cols = board.rows, board.cols
        self.ids = [0] * len(root.g)
        for k, p in enumerate(root.tiles()):
            self.ids[p] = 1 << k
        self.depth = [0] * len(root.g)
        for p in root.cells:
            self.depth[p] = rules.gravity.depth(root.cell(p), rows, cols)
        self.orderings = orderings
        self.dive = board.tile_count // 2 + 8 if dive is None else dive
        # A removal order to try first (a generator's construction; cells as at each step),
        # in the first ordering's line: followed while that line's path is a prefix of it.
        self.prefer = [tuple(sorted((root.pos(a), root.pos(b)))) for a, b in (prefer or [])]

    # -- the parts a line uses --------------------------------------------------------------
    def tick(self) -> None:
        # The check comes before the count: a budget of N nodes that runs out reports N.
        if self.budget.nodes is not None and self.nodes >= self.budget.nodes:
            raise OutOfBudget(Limit.NODES)
        self.nodes += 1
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise OutOfBudget(Limit.SECONDS)

    def closure(self, grid: Grid) -> list[tuple[Cell, Cell]]:
        """Clear every type that can be cleared from the top (module docstring), until none
        is left; return the moves played, as cells."""
        return self._closure(grid, None)[0]

    def _closure(self, grid: Grid, ids: list[int] | None) -> tuple[list[tuple[Cell, Cell]], int]:
        """:meth:`closure`, carrying tile identities along in ``ids`` (see :func:`_follow`);
        also returns the bits of the tiles it removed."""
        played: list[tuple[Cell, Cell]] = []
        gone = 0
        if not self.safe or not grid.lines or not grid.settled:
            return played, gone
        progress = True
        while progress:
            progress = False
            for tiles in _far_ends(grid).values():
                cleared = _clear_from_the_top(grid, tiles, ids)
                if cleared is not None:
                    played += cleared[0]
                    gone |= cleared[1]
                    progress = True
        return played, gone

    def moves(self, grid: Grid, order: Callable[[list[tuple[int, int, int]]], None]) -> list[Pair]:
        """Every removable pair, ordered. Reads the clock as it goes: a type of a thousand
        tiles has half a million pairs to test."""
        link = grid.link
        out = []
        for tiles in grid.by_type().values():
            n = len(tiles)
            for i in range(n):
                p = tiles[i]
                for j in range(i + 1, n):
                    if link(p, tiles[j]):
                        out.append((n, p, tiles[j]))
                if n > 64 and self.deadline is not None and time.perf_counter() > self.deadline:
                    raise OutOfBudget(Limit.SECONDS)
        order(out)
        return [(p, q) for _, p, q in out]

    def _order(self, name: str, seed: int | None = None) -> Callable[[list[tuple[int, int, int]]], None]:
        depth = self.depth
        if name == "far" and seed is not None:
            # ties broken by a hash of the seed and the move: a different order per seed, the
            # same on every run (ints hash the same in every process)
            return lambda ms: ms.sort(key=lambda m: (-depth[m[1]] - depth[m[2]], hash((seed, m[1], m[2]))))
        if name == "far":
            return lambda ms: ms.sort(key=lambda m: (-depth[m[1]] - depth[m[2]], m[1], m[2]))
        if name == "near":
            return lambda ms: ms.sort(key=lambda m: (m[0] != 2, depth[m[1]] + depth[m[2]], m[1], m[2]))
        if name == "board":
            return lambda ms: ms.sort(key=lambda m: (m[1], m[2]))
        raise ValueError(f"ordering: expected one of {', '.join(ORDERINGS)}, found {name!r}")

    def _preferring(self, base: Callable) -> Callable:
        """``base``, with the hint's next move first while the line follows the hint."""
        prefer = self.prefer
        line_of: list[_Line] = []

        def order(ms: list[tuple[int, int, int]]) -> None:
            base(ms)
            line = line_of[0]
            played = [(min(a, b), max(a, b)) for a, b in
                      ((line.grid.pos(x), line.grid.pos(y)) for x, y in line.witness())]
            k = len(played)
            if k < len(prefer) and played == prefer[:k]:
                for i, m in enumerate(ms):
                    if (m[1], m[2]) == prefer[k]:
                        ms.insert(0, ms.pop(i))
                        break
        order.line_of = line_of  # type: ignore[attr-defined]
        return order

    def _hand_over(self) -> native_search.NativeResult:
        """The C search's verdict on the whole board, from its root, with the whole budget (class
        docstring). A verdict replaces this search's node count with the C search's own (it
        started over, so its count is the verdict's); a node budget run out returns the result
        and leaves this search to go on where it paused; a time budget run out raises."""
        result = native_search.search(self.board, self.rules, self.budget.nodes, self.deadline)
        self.native_result = result
        if isinstance(result.status, Status):
            self.nodes = result.nodes
        elif result.status == Limit.SECONDS:
            raise OutOfBudget(result.status)
        return result

    # -- the search -------------------------------------------------------------------------
    def search(self) -> list[tuple[Cell, Cell]] | None:
        first = self._order(self.orderings[0])
        if self.prefer:
            first = self._preferring(first)
        lines = [_Line(self, first)]
        if self.prefer:
            first.line_of.append(lines[0])  # type: ignore[attr-defined]
        lines += [_Line(self, self._order(name)) for name in self.orderings[1:]]
        # The first order alone for a dive as long as a clearing without backtracking.
        dive = self.dive
        for _ in range(dive):
            done = lines[0].step()
            if done is not None:
                return lines[0].witness() if done else None
        # Then the race, with a fourth turn for restarts (module docstring).
        restart: _Line | None = None
        allowance = 0
        luby = _luby()
        seed = 0
        lock = self.lock and self.root.settled
        while True:
            if lock and self.nodes >= LOCK_AFTER:
                # Still undecided: the board may well be dead, and the lock test gets its turn.
                lock = False
                locked = gravity_locked(self.board, self.rules, self.deadline)
                if locked:
                    self.locked_root = locked
                    return None
            if self.native and self.nodes >= NATIVE_AFTER:
                self.native = False  # once: after a node budget ran out there, this search goes on
                result = self._hand_over()
                if result.status == Status.SOLVABLE:
                    return result.moves
                if result.status == Status.UNSOLVABLE:
                    return None
            for line in lines:
                for _ in range(SLICE):
                    done = line.step()
                    if done is not None:
                        return line.witness() if done else None
            if restart is None or allowance <= 0:
                seed += 1
                restart = _Line(self, self._order(self.orderings[0], seed))
                allowance = max(dive, 1) * next(luby)
            for _ in range(min(SLICE, allowance)):
                allowance -= 1
                done = restart.step()
                if done is not None:
                    return restart.witness() if done else None
