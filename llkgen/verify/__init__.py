"""The solvability verifier: ``verify(board, rules, budget) -> Verdict``.

Guarantees:

* ``solvable`` only with a witness that :func:`llkgen.referee.replay` has accepted inside
  :func:`verify` itself;
* ``unsolvable`` only from a sound argument (the lock test) or a complete search;
* otherwise ``unknown``, naming the budget that ran out.

Stages, cheapest first (the README's "How a verdict is reached" explains each):

1. trivial: an empty board is solvable;
2. ``lock-test`` (no gravity): the relaxation of :mod:`llkgen.verify.lock` proves locked tiles;
3. ``flow-pairing`` (no gravity, walls): :func:`llkgen.verify.flow.pairing_check`;
4. ``dive`` (no gravity): the pairing search with its lock test but no probing, briefly;
5. ``pairing-search`` (no gravity): :mod:`llkgen.verify.pairing`;
6. ``move-search`` (gravity): :mod:`llkgen.verify.movesearch`.

``engine="baseline"`` runs :mod:`llkgen.verify.baseline` alone, ``engine="cpsat"`` the model of
:mod:`llkgen.verify.cpsat` alone.
"""

from __future__ import annotations

import sys
import time
from contextlib import contextmanager

from llkgen.board import WALL, Board, Rules
from llkgen.grid import Grid, from_padded
from llkgen.path import Move
from llkgen.referee import replay
from llkgen.verify.baseline import BaselineSearch
from llkgen.verify.cpsat import solve_cpsat
from llkgen.verify.flow import pairing_check
from llkgen.verify.lock import locked_tiles, root_partners
from llkgen.verify.movesearch import MoveSearch
from llkgen.verify.pairing import PairingSearch
from llkgen.verify.verdict import SOLVABLE, UNKNOWN, UNSOLVABLE, Budget, OutOfBudget, Verdict

__all__ = ["verify", "Budget", "Verdict", "SOLVABLE", "UNSOLVABLE", "UNKNOWN", "ENGINES"]

ENGINES = ("auto", "search", "cpsat", "baseline")


class WitnessRejected(AssertionError):
    """A solver produced a removal order the referee refused: always a bug in llkgen."""


def _finish(board: Board, rules: Rules, status: str, order, reason: str, proof, stats: dict,
            start: float) -> Verdict:
    stats["time_ms"] = round((time.perf_counter() - start) * 1000, 3)
    if status != SOLVABLE:
        return Verdict(status, [], reason, proof, stats)
    result = replay(board, rules, order)
    if not (result.ok and result.cleared):
        raise WitnessRejected(f"internal error: witness refused by the referee: {result.describe()}")
    moves = [Move(tuple(a), tuple(b), path) for (a, b), path in zip(order, result.paths)]
    return Verdict(SOLVABLE, moves, reason, None, stats)


def root_lock(board: Board, rules: Rules, deadline: float | None = None) -> list[tuple[int, int]]:
    """Tiles the lock test proves can never be removed (no gravity only)."""
    grid = Grid(board, rules)
    alive, partners = root_partners(grid)
    return sorted(grid.cell(p) for p in locked_tiles(grid, alive, partners, deadline=deadline))


#: The flow pairing check grows fast with board size (4 s on a full 20x20 board with walls);
#: above this many tiles it is skipped. It is a pruning stage only, so skipping it is sound.
PAIRING_CHECK_MAX_TILES = 200


@contextmanager
def _deep_recursion(limit: int = 20_000):
    """The searches recurse once per pair played (at most 2048 on a 64x64 board)."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def verify(board: Board, rules: Rules = Rules(), budget: Budget = Budget(), *,
           engine: str = "auto", hint: list | None = None) -> Verdict:
    """Decide whether ``board`` can be cleared under ``rules`` within ``budget``.

    Returns SOLVABLE only with a witness that ``replay`` accepts, UNSOLVABLE only with a sound
    proof, UNKNOWN naming the exhausted budget. ``engine`` is ``auto`` (the portfolio),
    ``search`` (the exact searches alone), ``cpsat`` (the CP-SAT model alone; it handles only
    gravity none, so under gravity the exact move search decides) or ``baseline`` (plain DFS
    with a dead-board table, the benchmark's yardstick).

    ``hint`` is an optional removal order ``[((r1, c1), (r2, c2)), ...]`` believed to clear
    the board (a generator's construction). The searches try its moves first, so a correct
    hint is found without backtracking; it is a move-ordering hint only: the verdict still
    comes from the search and the witness from the referee."""
    if engine not in ENGINES:
        raise ValueError(f"engine: expected one of {', '.join(ENGINES)}, found {engine!r}")
    start = time.perf_counter()
    with _deep_recursion():
        return _verify(board, rules, budget, engine, hint or [], start)


def _verify(board: Board, rules: Rules, budget: Budget, engine: str, hint: list, start: float) -> Verdict:
    stats: dict = {"nodes": 0}
    if board.is_cleared():
        stats["stage"] = "trivial"
        return _finish(board, rules, SOLVABLE, [], "the board has no tiles", None, stats, start)
    w = board.cols + 4
    prefer = [((a[0] + 2) * w + a[1] + 2, (b[0] + 2) * w + b[1] + 2) for a, b in hint
              if board.in_bounds(tuple(a)) and board.in_bounds(tuple(b))]
    no_gravity = rules.gravity == "none"
    ours = engine in ("auto", "search")  # the cpsat and baseline engines run alone

    if ours and no_gravity:
        deadline = None if budget.seconds is None else start + budget.seconds
        try:
            locked = root_lock(board, rules, deadline)
        except OutOfBudget:
            return _unknown(board, rules, budget, "seconds", "lock-test", 0, stats, start)
        if locked:
            stats["stage"] = "lock-test"
            proof = {"argument": "lock-test", "locked": [list(c) for c in locked]}
            return _finish(board, rules, UNSOLVABLE, None,
                           f"{len(locked)} tiles can never be removed, even if every other "
                           "tile that could ever link were gone (lock test)", proof, stats, start)

    if (ours and no_gravity and WALL in board.cells
            and board.tile_count <= PAIRING_CHECK_MAX_TILES):
        # Walls never go away, so some pairs can never link at all; the flow-based pairing
        # check proves a type unpairable. Without walls it never fired on 10x16 boards (and
        # costs ~35 ms there), so it only runs when the board has walls.
        proof = pairing_check(board, rules)
        if proof is not None:
            stats["stage"] = "flow-pairing"
            return _finish(board, rules, UNSOLVABLE, None, proof.reason,
                           {"argument": "pairing-check", **proof.to_json()}, stats, start)

    if engine == "cpsat" and no_gravity:
        return _verify_cpsat(board, rules, budget, hint, stats, start)

    remaining = budget
    dead: set[bytes] = set()
    if ours and no_gravity:
        # A quick dive: the same exact search, lock test at every node but no probing, under
        # a small node budget. Most solvable boards fall to it before probing would have
        # paid for itself; if it finishes without a witness, that is an exhaustive search
        # too. Its table of dead nodes carries over to the full search (each entry is a
        # proof). Measured on 40 seeded 10x16 boards, CPU time, dives interleaved: no dive
        # p50 86 ms; a dive without the lock test, a quarter of the tiles long, or half
        # p50 64-65 ms; a tenth too short (p50 134 ms).
        dive_nodes = board.tile_count // 4 + 8
        if budget.nodes is not None:
            dive_nodes = min(dive_nodes, budget.nodes)
        dive = PairingSearch(board, rules, Budget(nodes=dive_nodes, seconds=budget.seconds), start=start,
                             probe=False, prefer=prefer)
        try:
            order = dive.search()
            finished = True
        except OutOfBudget as e:
            order, finished = None, False
            if e.which == "seconds":
                return _unknown(board, rules, budget, e.which, "quick dive", dive.nodes, stats, start)
        stats["dive_nodes"] = dive.nodes
        if finished:
            return _decided(board, rules, dive, order, "dive", dive.nodes, stats, start)
        dead = dive.dead
        if budget.nodes is not None:
            remaining = Budget(nodes=max(0, budget.nodes - dive.nodes), seconds=budget.seconds)

    solver: BaselineSearch | PairingSearch | MoveSearch
    if engine == "baseline":
        solver = BaselineSearch(board, rules, remaining, start=start)
        stage = "baseline-search"
    elif no_gravity:
        solver = PairingSearch(board, rules, remaining, start=start, prefer=prefer, dead=dead)
        stage = "pairing-search"
    else:
        solver = MoveSearch(board, rules, remaining, start=start, prefer=hint)
        stage = "move-search"
    spent = stats.get("dive_nodes", 0)
    try:
        order = solver.search()
    except OutOfBudget as e:
        return _unknown(board, rules, budget, e.which, stage, spent + solver.nodes, stats, start)
    stats["dead_boards"] = len(solver.dead)
    if isinstance(solver, PairingSearch):
        stats["lock_prunes"] = solver.lock_prunes
    return _decided(board, rules, solver, order, stage, spent + solver.nodes, stats, start)


def _verify_cpsat(board: Board, rules: Rules, budget: Budget, hint: list, stats: dict,
                  start: float) -> Verdict:
    """The CP-SAT model alone (gravity none). Its solution is replayed like any witness;
    INFEASIBLE of the exact model is the proof; a limit reached is unknown."""
    status, order, cstats = solve_cpsat(board, rules, budget, hint=hint or None)
    stats.update(stage="cpsat", nodes=int(cstats.get("branches", 0)), cpsat=cstats)
    if status == SOLVABLE:
        return _finish(board, rules, SOLVABLE, order,
                       f"cleared in {len(order)} moves (CP-SAT model, {cstats.get('cpsat_status')}); "
                       "the witness replays", None, stats, start)
    if status == UNSOLVABLE:
        proof = {"argument": "cpsat-infeasible",
                 "model": {k: cstats[k] for k in ("vars", "constraints") if k in cstats}}
        return _finish(board, rules, UNSOLVABLE, None,
                       "the CP-SAT model of the elimination order is infeasible: no pairing, path "
                       "choice and removal order clears the board", proof, stats, start)
    which = "seconds" if budget.seconds is not None and cstats.get("stopped_by") == "time" else "nodes"
    return _unknown(board, rules, budget, which, "cpsat", stats["nodes"], stats, start)


def _unknown(board, rules, budget: Budget, which: str, stage: str, nodes: int, stats: dict,
             start: float) -> Verdict:
    stats.update(stage=stage, nodes=nodes)
    limit = f"node budget ({budget.nodes})" if which == "nodes" else f"time budget ({budget.seconds} s)"
    return _finish(board, rules, UNKNOWN, None, f"undecided: the {limit} ran out during the {stage}",
                   {"budget": which}, stats, start)


def _decided(board, rules, solver, order, stage: str, nodes: int, stats: dict, start: float) -> Verdict:
    """Turn a finished search into a verdict: its order (replayed in _finish) or, when it was
    exhaustive and found none, an unsolvable proof."""
    stats.update(stage=stage, nodes=nodes)
    if order is not None and isinstance(solver, PairingSearch):
        order = [(from_padded(p, solver.w), from_padded(q, solver.w)) for p, q in order]
    if order is None:
        proof = {"argument": "exhaustive-search", "engine": stage, "nodes": nodes}
        return _finish(board, rules, UNSOLVABLE, None,
                       f"every line of play was explored ({stage}, {nodes} nodes) and none clears the board",
                       proof, stats, start)
    return _finish(board, rules, SOLVABLE, order,
                   f"cleared in {len(order)} moves ({stage}, {nodes} nodes); the witness replays",
                   None, stats, start)
