"""Where the move search under gravity spends itself on the boards it leaves undecided.

Issue 31's profile: random full boards (4 copies a type, border on) that the C search
(:mod:`llkgen.verifier.native`) does not decide within the budget, and what keeps it alive.
For each set it draws fresh boards (a new seed each run, printed; ``--seed`` repeats one),
runs the C search for ``--c-nodes`` nodes (12 million: about 10 s of its CPU on these boards,
and the same on a loaded machine as on an idle one), and on each board left open:

* the C search's speed and its table: nodes, nodes per CPU second, dead positions recorded;
* one depth-first line of the Python move search (the same algorithm, order "far", no race),
  for ``--nodes`` nodes: how deep its nodes are (depth = moves played, the safe clearings
  included in the move that triggered them), how many of its moves the dead table skipped,
  how deep its dead ends (positions with no move) lie and how many tiles they still hold;
* ``--lines`` random lines of play to their end: how many moves they last, how many tiles
  are left, and the first move after which the lock test of :mod:`llkgen.verifier.gravlock`
  proves the position dead (what a lock test at every node would buy), with the size of the
  locked set; and how often the precedence argument of :mod:`llkgen.verifier.precedence`
  fires on those positions.

    python benchmarks/gravity_profile.py --boards 4
    python benchmarks/gravity_profile.py --sets 12x18-left --boards 4 --c-nodes 3000000 --seed 1

It reads private parts of :class:`~llkgen.verifier.movesearch.MoveSearch` (a line, its
stack, its counters): a diagnostic, not an interface.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time

from llkgen.game.board import Board, Rules
from llkgen.game.grid import Grid
from llkgen.verifier import Budget, native
from llkgen.verifier.gravlock import gravity_locked
from llkgen.verifier.movesearch import MoveSearch, _Line
from llkgen.verifier.precedence import precedence_cycle
from llkgen.verifier.verdict import OutOfBudget

SETS = {f"12x18-{d}": (12, 18, d) for d in ("down", "up", "left", "right")}
SETS.update({f"10x16-{d}": (10, 16, d) for d in ("left", "right")})


def full_board(rng: random.Random, rows: int, cols: int) -> Board:
    flat = [1 + k // 4 for k in range(rows * cols)]
    rng.shuffle(flat)
    return Board(rows, cols, tuple(flat))


def line_profile(board: Board, rules: Rules, nodes: int) -> dict:
    """One line of the Python move search for ``nodes`` nodes: depths, table skips, dead ends."""
    search = MoveSearch(board, rules, Budget(nodes=nodes, seconds=None), orderings=("far",), safe=True)
    line = _Line(search, search._order("far"))
    depths: list[int] = []
    ends: list[tuple[int, int]] = []  # (depth, tiles left) of positions with no move
    try:
        while True:
            before = len(line.stack)
            done = line.step()
            if done is not None:
                break
            depths.append(len(line.stack))
            top = line.stack[-1] if line.stack else None
            if top is not None and len(line.stack) > before and not top[2]:
                ends.append((len(line.stack) - 1, len(line.grid.tiles())))
    except OutOfBudget:
        pass
    return {"nodes": search.nodes, "skipped": search.skipped, "depths": depths, "ends": ends}


def random_lines(board: Board, rules: Rules, rng: random.Random, n: int) -> list[tuple[int, int, int | None, int, int]]:
    """``n`` random lines to their end: (moves, tiles left, first move after which the lock
    test fires or None, its locked tiles, precedence fires along the line)."""
    out = []
    for _ in range(n):
        grid = Grid(board, rules)
        moves, first, locked, cycles = 0, None, 0, 0
        while True:
            legal = [(p, q) for tiles in grid.by_type().values() for i, p in enumerate(tiles)
                     for q in tiles[i + 1:] if grid.link(p, q)]
            if not legal:
                break
            grid.remove(*rng.choice(legal))
            moves += 1
            position = grid.to_board()
            cycles += precedence_cycle(position, rules) is not None
            if first is None:
                lock = gravity_locked(position, rules)
                if lock:
                    first, locked = moves, len(lock)
        out.append((moves, len(grid.tiles()), first, locked, cycles))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--boards", type=int, default=4, help="boards drawn per set")
    ap.add_argument("--c-nodes", type=int, default=12_000_000, help="nodes of the C search per board")
    ap.add_argument("--nodes", type=int, default=20_000, help="nodes of the Python line per open board")
    ap.add_argument("--lines", type=int, default=5, help="random lines per open board")
    ap.add_argument("--seed", type=int, default=None, help="default: drawn from the clock, printed")
    args = ap.parse_args()
    seed = args.seed if args.seed is not None else time.time_ns() % 1_000_000_007
    print(f"seed {seed}; C search built: {native.AVAILABLE}")
    rng = random.Random(seed)
    for name in args.sets.split(","):
        rows, cols, gravity = SETS[name]
        rules = Rules(border=True, gravity=gravity)
        for i in range(args.boards):
            board = full_board(rng, rows, cols)
            t0 = time.process_time()
            res = native.search(board, rules, args.c_nodes, None)
            cpu = time.process_time() - t0
            head = (f"{name} #{i}: C {res.status}, {res.nodes:,} nodes in {cpu:.1f} s CPU "
                    f"({res.nodes / max(cpu, 1e-9) / 1e6:.2f} M/s), {res.recorded:,} dead positions")
            if res.status in ("solvable", "unsolvable"):
                print(head, flush=True)
                continue
            prof = line_profile(board, rules, args.nodes)
            d = prof["depths"]
            ends = prof["ends"]
            lines = random_lines(board, rules, rng, args.lines)
            fires = [ln[2] for ln in lines if ln[2] is not None]
            print(head, flush=True)
            print(f"  python line: {prof['nodes']:,} nodes, depth p50 {statistics.median(d):.0f} max {max(d)}, "
                  f"table skips {prof['skipped'] / max(prof['nodes'], 1):.0%}, dead ends {len(ends)} "
                  f"(depth p50 {statistics.median(e[0] for e in ends) if ends else '-'}, tiles left p50 "
                  f"{statistics.median(e[1] for e in ends) if ends else '-'} of {board.tile_count})")
            print(f"  random lines: moves {[ln[0] for ln in lines]}, tiles left {[ln[1] for ln in lines]}, "
                  f"lock test first fires after {[ln[2] for ln in lines]} moves "
                  f"(locked {[ln[3] for ln in lines]}), precedence fires {sum(ln[4] for ln in lines)} times"
                  + (f"; lock fires {statistics.median(ln[0] - ln[2] for ln in lines if ln[2] is not None):.0f} "
                     "moves before the end (p50)" if fires else ""), flush=True)


if __name__ == "__main__":
    main()
