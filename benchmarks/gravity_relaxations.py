"""Why the open gravity boards stay open: more search, and two relaxations, measured.

The open sets of ``gravity_pruning_bench.py`` (random full boards, 4 copies a type, border on:
12x18 in every direction, 10x16 sideways) hold boards that the C search leaves ``unknown`` in
10 s. This script asks three questions of them, one study each:

* ``budget``: would more search decide them? The C search alone (one line, far order, no
  race: the fewest nodes to a refutation) runs each board to ``--nodes``, then the boards it
  left open to ``--factor`` times as many. ``table full`` counts the open boards whose table of
  dead positions reached its memory cap (``native.TABLE_MIB``), past which it stops recording.
* ``matching``: does a relaxation that keeps the link rule and the pairing of every type, and
  drops only the order of play, refute them? The *monotone game* (below) is decided exactly,
  up to ``--relaxed-nodes`` nodes of its own search, and set beside the C search's verdict.
* ``exposure``: does a relaxation that keeps the order and the pairing, and drops the path
  rule, refute them? A pair is removable when both tiles have an empty neighbour (a board cell
  or the ring) or touch. ``--playouts`` random greedy plays; one that clears shows the
  relaxation cannot refute the board.
* ``pools``: where does the number of positions grow? Every position within ``--depth`` moves
  of the board, by a breadth-first search of the real game (Python, so keep the depth small),
  and the tiles ever removed in them by *pool*, the ring side a tile starts beside: the line
  along the gravity side, the two lines across it, and the rest (tiles reached from the far
  side and through the cells the far side empties). ``projections`` counts the different
  removed sets each pool sees; ``independent`` counts the combinations of one removed set of
  each pool that remove at most ``2 * depth`` tiles in all: what the positions would number
  were the pools played independently of each other.
* ``patterns``: would a table of deadlock patterns fire on them, and before the lock test?
  Along ``--lines`` random lines of play of each board, at every position, each tile's
  *pattern*: the least set of tiles holding it, every remaining tile of each type in the set,
  and every tile below one of them in its run (nearer the gravity side). Such a set, searched
  alone (the C search, every other tile deleted), is a sound deadlock pattern: no tile below
  one of its tiles lies outside it, so the rest of the board never moves its tiles, and
  deleting the rest only empties cells, which never closes a path; so if the set cannot be
  cleared alone, the board cannot be cleared. Sets of at most ``--pattern-tiles`` tiles are
  searched. Beside it, the gravity lock test at the same positions.

**The monotone game.** Its positions are the sets ``D`` of tiles removed so far. A pair
``(x, y)`` of one type, both outside ``D``, may be removed when it is *possible under D* in the
sense of the gravity lock test (:mod:`llkgen.verifier.gravlock`): some positions ``x`` and
``y`` have held or could hold, between where the tiles outside ``D`` below them put them and
where they stand now, are joined by a path through cells open under ``D``. Every legal move
of the real game, made with ``D`` removed, is possible under ``D`` (the lock test's argument,
with ``D`` exactly the removed set), so every clearing of the board clears the monotone game,
and a board whose monotone game cannot be cleared is unsolvable. Possibility only grows with
``D`` (the lock test's docstring), so once the pairing of each type is fixed the order of play
does not matter: the tiles a pairing clears are its greedy closure. The study's search
branches only on pairings: a type with two tiles left, or whose two pairs of one pairing are
both possible, is removed at once (fixing that pairing loses no clearing: everything else stays
possible as ``D`` grows); otherwise it branches between a pairing with a possible pair (played)
and ruling that pairing out.

    python benchmarks/gravity_relaxations.py --study budget --seed 555001 --nodes 12000000 --factor 5
    python benchmarks/gravity_relaxations.py --study matching --seed 78 --sets 10x16-left
    python benchmarks/gravity_relaxations.py --study exposure --seed 78 --sets 10x16-left
    python benchmarks/gravity_relaxations.py --study pools --seed 78 --sets 10x16-left --boards 1 --depth 8
    python benchmarks/gravity_relaxations.py --study patterns --seed 78 --boards 2 --lines 5

Used for "Relaxations and budgets measured" in ``docs/benchmarks.md``. Neither relaxation is
in the verifier.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import time
from multiprocessing import Pool
from pathlib import Path

if importlib.util.find_spec("llkgen") is None:  # not installed: use the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from gravity_pruning_bench import full_boards  # noqa: E402

from llkgen.game.board import Board, Rules  # noqa: E402
from llkgen.game.gravity import compact, flat_lines  # noqa: E402
from llkgen.game.grid import PAD, Grid  # noqa: E402
from llkgen.game.playout import Playout  # noqa: E402
from llkgen.verifier import native  # noqa: E402
from llkgen.verifier.gravlock import _possible, gravity_locked, grid_runs  # noqa: E402

DIRECTIONS = ("down", "up", "left", "right")
#: The three pairings of a type's four tiles, as index pairs into its tiles.
PAIRINGS = (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2)))


def open_sets(seed: int, boards: int | None) -> dict[str, list[tuple[str, Board, Rules]]]:
    """The open sets of ``gravity_pruning_bench.py --sets open --seed SEED``, the same boards."""
    sets = {f"12x18-{d}": full_boards(seed + k, boards or 10, d, 12, 18) for k, d in enumerate(DIRECTIONS)}
    for k, d in enumerate(("left", "right")):
        sets[f"10x16-{d}"] = full_boards(seed + 4 + k, boards or 15, d)
    return sets


def c_search(job: tuple[str, Board, Rules, int]) -> tuple[str, str, int, int, float]:
    """(name, status, nodes, dead positions recorded, CPU s) of the C search alone, one line."""
    name, board, rules, nodes = job
    t0 = time.process_time()
    res = native.search(board, rules, nodes, None, dive=2**31 - 1)
    return name, str(res.status), res.nodes, res.recorded, time.process_time() - t0


def table_limit(tiles: int) -> int:
    """The dead positions the C search's table holds when it stops growing: a key is a bit a
    tile in 64-bit words, the table doubles from 1,024 slots while it fits ``TABLE_MIB``, and
    it doubles at 70% full (``_gravity_search.c``, ``table_add``)."""
    words = tiles // 64 + 1
    cap = 1024
    while cap * 2 * words * 8 <= native.TABLE_MIB << 20:
        cap *= 2
    return cap * 7 // 10


class MonotoneGame:
    """The monotone game of the module docstring on one settled board: the lock test's
    bookkeeping (runs, tiles, the ring), with :meth:`possible_under` for a set ``D``."""

    def __init__(self, board: Board, rules: Rules):
        grid = Grid(board, rules)
        if not grid.settled:
            raise ValueError("the monotone game needs a settled board")
        g, w = grid.g, grid.w
        self.R, self.C = grid.R, grid.C
        self.runs = grid_runs(grid)
        self.tile_run: list[int] = []
        self.tile_idx: list[int] = []
        self.run_tiles: list[list[int]] = []
        types: list[int] = []
        for k, cells in enumerate(self.runs):
            ids = []
            for i, p in enumerate(cells):
                if g[p] > 0:
                    ids.append(len(types))
                    self.tile_run.append(k)
                    self.tile_idx.append(i)
                    types.append(g[p])
            self.run_tiles.append(ids)
        self.n = len(types)
        self.by_type: dict[int, list[int]] = {}
        for x, t in enumerate(types):
            self.by_type.setdefault(t, []).append(x)
        h = len(g) // w
        self.ring_rows, self.ring_cols = [0] * h, [0] * w
        for p in range(len(g)):
            if g[p] == 0 and not (2 <= self.R[p] < h - 2 and 2 <= self.C[p] < w - 2):
                self.ring_rows[self.R[p]] |= 1 << self.C[p]
                self.ring_cols[self.C[p]] |= 1 << self.R[p]

    def possible_under(self, gone: list[bool]):
        """A test ``(x, y) -> bool``: possible under the set ``gone`` (both outside it)."""
        count = [0] * len(self.runs)
        below = [0] * self.n
        for k, ids in enumerate(self.run_tiles):
            c = 0
            for x in ids:
                below[x] = c
                c += not gone[x]
            count[k] = c
        rows, cols = list(self.ring_rows), list(self.ring_cols)
        for k, cells in enumerate(self.runs):
            for p in cells[count[k]:]:
                rows[self.R[p]] |= 1 << self.C[p]
                cols[self.C[p]] |= 1 << self.R[p]
        return lambda x, y: _possible(x, y, gone, self.tile_run, self.tile_idx, below, count, self.runs,
                                      rows, cols, self.R, self.C)

    def decide(self, max_nodes: int) -> tuple[str, int]:
        """("clearable" | "refuted" | "unknown", nodes): whether some pairing clears the game."""
        if any(len(xs) not in (2, 4) for xs in self.by_type.values()):
            raise ValueError("the study takes boards with two or four tiles a type")
        fours = frozenset(range(3))
        stack = [(tuple([False] * self.n), tuple(sorted((t, fours) for t, xs in self.by_type.items()
                                                        if len(xs) == 4)))]
        seen = set()
        nodes = 0
        while stack:
            state = stack.pop()
            if state in seen:
                continue
            seen.add(state)
            nodes += 1
            if nodes > max_nodes:
                return "unknown", nodes - 1
            gone, allowed = list(state[0]), dict(state[1])
            branch = self._close(gone, allowed)
            if all(gone):
                return "clearable", nodes
            if branch is None:
                continue  # no possible pair in any pairing still allowed: this branch is dead
            t, tiles, pairing, (a, b) = branch
            ruled_out = dict(allowed)
            ruled_out[t] = allowed[t] - {pairing}
            stack.append((tuple(gone), tuple(sorted(ruled_out.items()))))
            played = list(gone)
            played[tiles[a]] = played[tiles[b]] = True
            fixed = dict(allowed)
            del fixed[t]  # two tiles left: the pairing's other pair, removed when possible
            stack.append((tuple(played), tuple(sorted(fixed.items()))))
        return "refuted", nodes

    def _close(self, gone: list[bool], allowed: dict[int, frozenset[int]]):
        """Remove every pair the module docstring removes at once, until none is left; return
        a branch (type, its tiles, a pairing, its possible pair) or None."""
        while True:
            possible = self.possible_under(gone)
            progress = False
            branch = None
            for t, xs in self.by_type.items():
                tiles = [x for x in xs if not gone[x]]
                if len(tiles) == 2:
                    if possible(tiles[0], tiles[1]):
                        gone[tiles[0]] = gone[tiles[1]] = True
                        progress = True
                    continue
                if not tiles:
                    continue
                half = []
                for m in sorted(allowed[t]):
                    (a, b), (c, d) = PAIRINGS[m]
                    first, second = possible(tiles[a], tiles[b]), possible(tiles[c], tiles[d])
                    if first and second:
                        for x in tiles:
                            gone[x] = True
                        del allowed[t]
                        progress = True
                        break
                    if first or second:
                        half.append((m, (a, b) if first else (c, d)))
                else:
                    if len(allowed[t]) == 1 and half:
                        m, (a, b) = half[0]
                        gone[tiles[a]] = gone[tiles[b]] = True
                        del allowed[t]
                        progress = True
                    elif half and branch is None:
                        branch = (t, tiles, *half[0])
            if not progress:
                return branch


def exposure_clears(board: Board, rules: Rules, rng: random.Random) -> int:
    """Tiles removed by one random greedy play of the exposure relaxation (border on)."""
    R, C = board.rows, board.cols
    cells = list(board.cells)
    lines = flat_lines(rules.gravity, R, C)
    removed = 0

    def open_(p: int) -> bool:
        r, c = divmod(p, C)
        return any(not (0 <= r + dr < R and 0 <= c + dc < C) or cells[(r + dr) * C + c + dc] == 0
                   for dr, dc in ((1, 0), (-1, 0), (0, 1), (0, -1)))

    while True:
        by: dict[int, list[int]] = {}
        for p, v in enumerate(cells):
            if v > 0:
                by.setdefault(v, []).append(p)
        moves = [(p, q) for ps in by.values() for i, p in enumerate(ps) for q in ps[i + 1:]
                 if (open_(p) and open_(q)) or (p // C == q // C and abs(p - q) == 1) or abs(p - q) == C]
        if not moves:
            return removed
        p, q = rng.choice(moves)
        cells[p] = cells[q] = 0
        compact(cells, lines)
        removed += 2


def pool_of(cell: int, board: Board, gravity: str) -> str:
    """The pool of the module docstring of a tile starting at row-major ``cell``."""
    r, c = divmod(cell, board.cols)
    last_r, last_c = board.rows - 1, board.cols - 1
    side = {"down": r == last_r, "up": r == 0, "left": c == 0, "right": c == last_c}[gravity]
    across = (c in (0, last_c)) if gravity in ("down", "up") else (r in (0, last_r))
    return "gravity side" if side else "across" if across else "far side"


def study_pools(sets, depth: int) -> None:
    print(f"every position within {depth} moves, by breadth-first search of the real game")
    print("| board | positions | tiles ever removed | far side: tiles, projections "
          "| across: tiles, projections | gravity side: tiles, projections | independent |")
    print("|---|---:|---:|---|---|---|---:|")
    for boards in sets.values():
        for name, board, rules in boards:
            level = {frozenset(): Playout(board, rules, track=True)}
            seen = [frozenset()]
            known = {frozenset()}
            for _ in range(depth):
                nxt = {}
                for key, play in level.items():
                    for p, q in play.moves():
                        child = key | {play.ident[p], play.ident[q]}
                        if child not in known:
                            known.add(child)
                            seen.append(child)
                            nxt[child] = play.copy()
                            nxt[child].remove(p, q)
                level = nxt
            ever = frozenset().union(*seen)
            pools = {k: frozenset(x for x in ever if pool_of(x, board, rules.gravity) == k)
                     for k in ("far side", "across", "gravity side")}
            seen_by = {k: {s & v for s in seen} for k, v in pools.items()}
            combos = [1]  # combos[n]: combinations removing n tiles, pool by pool
            for sets_k in seen_by.values():
                sizes = [0] * (2 * depth + 1)
                for s in sets_k:
                    sizes[len(s)] += 1
                combos = [sum(combos[i] * sizes[n - i] for i in range(len(combos)) if 0 <= n - i < len(sizes))
                          for n in range(2 * depth + 1)]
            cols = " | ".join(f"{len(pools[k])}, {len(seen_by[k]):,}" for k in pools)
            print(f"| {name} | {len(seen):,} | {len(ever)} | {cols} | {sum(combos):,} |", flush=True)


def board_of(play: Playout, board: Board) -> Board:
    """The board a playout stands at."""
    w = play.w
    return Board(board.rows, board.cols, tuple(play.g[(r + PAD) * w + c + PAD] for r in range(board.rows)
                                               for c in range(board.cols)))


def patterns_fire(board: Board, rules: Rules, max_tiles: int) -> tuple[bool, int]:
    """Whether some tile's pattern (module docstring) of at most ``max_tiles`` tiles cannot be
    cleared alone, and how many different patterns that small were searched."""
    cells = board.cells
    below: dict[int, list[int]] = {}
    for line in flat_lines(rules.gravity, board.rows, board.cols):
        tiles = [i for i in line if cells[i] > 0]
        for k, i in enumerate(tiles):
            below[i] = tiles[:k]
    by_type: dict[int, list[int]] = {}
    for i, t in enumerate(cells):
        if t > 0:
            by_type.setdefault(t, []).append(i)
    tried: set[frozenset[int]] = set()
    for start in below:
        pattern = {start}
        todo = [start]
        while todo and len(pattern) <= max_tiles:
            i = todo.pop()
            for j in by_type[cells[i]] + below[i]:
                if j not in pattern:
                    pattern.add(j)
                    todo.append(j)
        key = frozenset(pattern)
        if len(pattern) > max_tiles or key in tried:
            continue
        tried.add(key)
        alone = Board(board.rows, board.cols, tuple(t if i in key else 0 for i, t in enumerate(cells)))
        if str(native.search(alone, rules, 1_000_000, None).status) == "unsolvable":
            return True, len(tried)
    return False, len(tried)


def study_patterns(sets, lines: int, max_tiles: int) -> None:
    print(f"{lines} random lines of play a board; patterns of at most {max_tiles} tiles, and the lock test")
    print("| set | lines | positions | patterns searched | a pattern fires | the lock test fires "
          "| pattern, not lock test | moves before a line's end, first firing (pattern / lock test), median |")
    print("|---|---:|---:|---:|---:|---:|---:|---|")
    for name, boards in sets.items():
        rng = random.Random(20261204)
        positions = fired = locked = only = searched = 0
        first_pattern: list[int] = []
        first_lock: list[int] = []
        line_count = 0
        for _, board, rules in boards:
            for _ in range(lines):
                line_count += 1
                play = Playout(board, rules)
                marks = []
                while True:
                    now = board_of(play, board)
                    pat, count = patterns_fire(now, rules, max_tiles)
                    searched += count
                    lock = bool(gravity_locked(now, rules))
                    marks.append((pat, lock))
                    moves = play.moves()
                    if not moves:
                        break
                    play.remove(*rng.choice(moves))
                positions += len(marks)
                fired += sum(1 for p, _ in marks if p)
                locked += sum(1 for _, q in marks if q)
                only += sum(1 for p, q in marks if p and not q)
                end = len(marks) - 1
                for flag, out in ((0, first_pattern), (1, first_lock)):
                    hits = [k for k, m in enumerate(marks) if m[flag]]
                    if hits:
                        out.append(end - hits[0])

        def med(xs: list[int]) -> str:
            return str(sorted(xs)[len(xs) // 2]) if xs else "-"

        print(f"| {name} | {line_count} | {positions} | {searched} | {fired} | {locked} | {only} | "
              f"{med(first_pattern)} / {med(first_lock)} |", flush=True)


def study_budget(sets, nodes: int, factor: int, jobs: int) -> None:
    print(f"C search alone, one line; {nodes:,} nodes, then {factor} times as many on the boards left open")
    print("| set | boards | decided at N | open at N | decided at K N (solvable / unsolvable) "
          "| still open | table full | CPU s at K N, median |")
    print("|---|---:|---:|---:|---|---:|---:|---:|")
    with Pool(jobs) as pool:
        for name, boards in sets.items():
            first = pool.map(c_search, [(n, b, r, nodes) for n, b, r in boards], chunksize=1)
            left = [(n, b, r) for (n, b, r), res in zip(boards, first) if res[1] == "nodes"]
            second = pool.map(c_search, [(n, b, r, nodes * factor) for n, b, r in left], chunksize=1)
            solv = sum(1 for res in second if res[1] == "solvable")
            unsolv = sum(1 for res in second if res[1] == "unsolvable")
            still = [res for res in second if res[1] == "nodes"]
            full = sum(1 for (_, b, _), res in zip(left, second)
                       if res[1] == "nodes" and res[3] >= table_limit(b.tile_count))
            cpu = sorted(res[4] for res in second)
            med = f"{cpu[len(cpu) // 2]:.1f}" if cpu else "-"
            print(f"| {name} | {len(boards)} | {len(boards) - len(left)} | {len(left)} | "
                  f"{solv + unsolv} ({solv} / {unsolv}) | {len(still)} | {full} | {med} |", flush=True)


def study_matching(sets, nodes: int, relaxed_nodes: int) -> None:
    print(f"C search alone at {nodes:,} nodes against the monotone game's search at {relaxed_nodes:,} nodes")
    print("| set | C search | boards | monotone game: refuted | clearable | unknown | its CPU s, median |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for name, boards in sets.items():
        rows: dict[str, list] = {}
        for n, b, r in boards:
            status = c_search((n, b, r, nodes))[1]
            t0 = time.process_time()
            verdict, _ = MonotoneGame(b, r).decide(relaxed_nodes)
            rows.setdefault(status, []).append((verdict, time.process_time() - t0))
        for status, res in sorted(rows.items()):
            cpu = sorted(c for _, c in res)
            count = {v: sum(1 for x, _ in res if x == v) for v in ("refuted", "clearable", "unknown")}
            print(f"| {name} | {status} | {len(res)} | {count['refuted']} | {count['clearable']} | "
                  f"{count['unknown']} | {cpu[len(cpu) // 2]:.2f} |", flush=True)


def study_exposure(sets, playouts: int) -> None:
    print(f"exposure relaxation: {playouts} random greedy plays a board")
    print("| set | boards | cleared by some play | tiles left, worst board |")
    print("|---|---:|---:|---:|")
    for name, boards in sets.items():
        rng = random.Random(1)
        best = [max(exposure_clears(b, r, rng) for _ in range(playouts)) for _, b, r in boards]
        worst = min(b.tile_count - x for (_, b, _), x in zip(boards, best))
        print(f"| {name} | {len(boards)} | {sum(1 for (_, b, _), x in zip(boards, best) if x == b.tile_count)} "
              f"| {worst} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--study", choices=("budget", "matching", "exposure", "pools", "patterns"), required=True)
    ap.add_argument("--seed", type=int, default=None, help="seed of the open sets (default: drawn, printed)")
    ap.add_argument("--sets", default=None, help="a comma-separated subset of the open sets (default: all)")
    ap.add_argument("--boards", type=int, default=None, help="boards a set (default: 10 for 12x18, 15 for 10x16)")
    ap.add_argument("--nodes", type=int, default=3_000_000, help="the C search's node budget")
    ap.add_argument("--factor", type=int, default=5, help="budget study: the second budget's multiple")
    ap.add_argument("--relaxed-nodes", type=int, default=3000, help="matching study: the monotone game's nodes")
    ap.add_argument("--playouts", type=int, default=5, help="exposure study: greedy plays a board")
    ap.add_argument("--jobs", type=int, default=2, help="budget study: processes")
    ap.add_argument("--depth", type=int, default=8, help="pools study: moves from the board")
    ap.add_argument("--lines", type=int, default=5, help="patterns study: random lines of play a board")
    ap.add_argument("--pattern-tiles", type=int, default=24, help="patterns study: the largest pattern searched")
    args = ap.parse_args()
    if not native.AVAILABLE:
        raise SystemExit("the C gravity search is not built here (pip install -e . with a C compiler)")
    seed = args.seed if args.seed is not None else time.time_ns() % 1_000_000_007
    print(f"open sets: seed {seed}")
    sets = open_sets(seed, args.boards)
    if args.sets:
        wanted = args.sets.split(",")
        unknown = [s for s in wanted if s not in sets]
        if unknown:
            raise SystemExit(f"--sets: unknown set {unknown[0]!r} (expected some of {', '.join(sets)})")
        sets = {s: sets[s] for s in wanted}
    if args.study == "budget":
        study_budget(sets, args.nodes, args.factor, args.jobs)
    elif args.study == "matching":
        study_matching(sets, args.nodes, args.relaxed_nodes)
    elif args.study == "exposure":
        study_exposure(sets, args.playouts)
    elif args.study == "pools":
        study_pools(sets, args.depth)
    else:
        study_patterns(sets, args.lines, args.pattern_tiles)


if __name__ == "__main__":
    main()
