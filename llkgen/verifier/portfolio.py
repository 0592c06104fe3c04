"""The solvability verifier: ``verify(board, rules, budget) -> Verdict``.

Guarantees:

* ``solvable`` only with a witness that :func:`llkgen.game.referee.replay` has accepted inside
  :func:`verify` itself;
* ``unsolvable`` only from a sound argument (the lock test) or a complete search;
* otherwise ``unknown``, naming the budget that ran out.

Stages, cheapest first (docs/verifier.md, "How a verdict is reached", explains each):

1. trivial: an empty board is solvable;
2. ``lock-test`` (no gravity): the relaxation of :mod:`llkgen.verifier.lock` proves locked tiles;
3. ``flow-pairing`` (no gravity, walls): :func:`llkgen.verifier.pairing_check.pairing_check`;
4. ``dive`` (no gravity): the pairing search with its lock test but no probing, briefly;
5. ``pairing-search`` (no gravity): :mod:`llkgen.verifier.pairing`;
6. ``cpsat`` (no gravity, only boards :func:`llkgen.verifier.cpsat.cpsat_suits` accepts): when
   the pairing search is undecided after :data:`HANDOVER_NODES` nodes, the CP-SAT model of
   :mod:`llkgen.verifier.cpsat` gets the rest of the budget;
7. ``components`` (gravity): :mod:`llkgen.verifier.components` splits the board into
   sub-games that can never interact; a type with an odd count in one proves the board
   unsolvable, and each sub-game is searched on its own below;
8. ``reach-pairing`` (gravity, walls): :mod:`llkgen.verifier.reach` proves a type's tiles can
   never all pair up, wherever gravity takes them;
9. ``move-search`` (gravity): :mod:`llkgen.verifier.movesearch`, with the test of step 8 at
   every node; once it has run 2,000 nodes undecided, the lock test of
   :mod:`llkgen.verifier.gravlock` (tiles that can never be removed, whatever order their
   stacks empty in) at its root, which decides the board as ``gravity-lock`` when it fires.

``engine="baseline"`` runs :mod:`llkgen.verifier.baseline` alone, ``engine="cpsat"`` the model of
:mod:`llkgen.verifier.cpsat` alone.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any

from llkgen.game.board import WALL, Board, Cell, Gravity, Rules
from llkgen.game.grid import Grid
from llkgen.game.path import Move
from llkgen.game.referee import replay
from llkgen.verifier import native
from llkgen.verifier.baseline import BaselineSearch
from llkgen.verifier.components import Component, components
from llkgen.verifier.cpsat import cpsat_suits
from llkgen.verifier.lock import locked_tiles, root_partners
from llkgen.verifier.movesearch import MoveSearch
from llkgen.verifier.pairing import PairingSearch
from llkgen.verifier.pairing_check import pairing_check
from llkgen.verifier.reach import Reach
from llkgen.verifier.verdict import (
    SOLVABLE,
    UNKNOWN,
    UNSOLVABLE,
    Argument,
    Budget,
    Engine,
    Limit,
    OutOfBudget,
    Proof,
    Verdict,
)

__all__ = ["verify", "Budget", "Verdict", "SOLVABLE", "UNSOLVABLE", "UNKNOWN", "ENGINES", "Engine"]

#: The engines' names, in :class:`Engine`'s order.
ENGINES = tuple(e.value for e in Engine)

#: The flow pairing check grows fast with board size (4 s on a full 20x20 board with walls);
#: above this many tiles it is skipped. It is a pruning stage only, so skipping it is sound.
PAIRING_CHECK_MAX_TILES = 200

#: On the boards :func:`~llkgen.verifier.cpsat.cpsat_suits` accepts, the pairing search hands
#: over to CP-SAT after this many nodes (or half the node budget, if that is smaller); CP-SAT
#: gets the nodes left and the same deadline. The search goes first because, on the boards
#: both decided, its median CPU time was 4-33x lower in every such class; CP-SAT decided 10
#: of the 13 boards it left unknown at 5 s. Every board the search decided in the benchmark
#: runs took it at most 320 nodes, so 1000 leaves it three times that. The handover counts
#: nodes, not seconds: handing over after 0.2 or 0.4 of the seconds lost boards the search
#: alone decided when other processes loaded the machine (auto 28 of 40 boards, the search
#: alone 32 and 29), as the search's slice of the wall clock then bought it little CPU; with
#: 1000 nodes auto decided 35 of the same 40, the search alone 32. Figures: docs/benchmarks.md,
#: "CP-SAT against the search".
#: Re-measure with benchmarks/cpsat_bench.py (``--auto``) when either engine changes.
HANDOVER_NODES = 1000

Order = list[tuple[Cell, Cell]]


class WitnessRejected(AssertionError):
    """A solver produced a removal order the referee refused: always a bug in llkgen."""


def root_lock(board: Board, rules: Rules, deadline: float | None = None) -> list[tuple[int, int]]:
    """Tiles the lock test proves can never be removed. Sound only without gravity (tiles that
    slide can open and close paths), so any other ``rules.gravity`` raises ``ValueError``."""
    if rules.gravity != Gravity.NONE:  # not an assert: python -O would strip it, and the proof would lie
        raise ValueError(f"the lock test is only sound without gravity, found gravity {rules.gravity!r}")
    grid = Grid(board, rules)
    alive, partners = root_partners(grid)
    return sorted(grid.cell(p) for p in locked_tiles(grid, alive, partners, deadline=deadline))


@contextmanager
def _deep_recursion(limit: int = 20_000) -> Iterator[None]:
    """The pairing search recurses once per pair played (at most 2048 on a 64x64 board)."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(old)


def verify(board: Board, rules: Rules = Rules(), budget: Budget = Budget(), *,
           engine: Engine | str = Engine.AUTO, hint: list | None = None) -> Verdict:
    """Decide whether ``board`` can be cleared under ``rules`` within ``budget``.

    Returns SOLVABLE only with a witness that ``replay`` accepts, UNSOLVABLE only with a sound
    proof, UNKNOWN naming the exhausted budget. ``engine`` (an :class:`Engine` or its value)
    is ``auto`` (the portfolio),
    ``search`` (the exact searches alone), ``cpsat`` (the CP-SAT model alone; it handles only
    gravity none, so under gravity the exact move search decides) or ``baseline`` (plain DFS
    with a dead-board table, the benchmark's yardstick).

    ``hint`` is an optional removal order ``[((r1, c1), (r2, c2)), ...]`` believed to clear
    the board (a generator's construction). The searches try its moves first, so a correct
    hint is found without backtracking; it is a move-ordering hint only: the verdict still
    comes from the search and the witness from the referee."""
    if engine not in ENGINES:
        raise ValueError(f"engine: expected one of {', '.join(ENGINES)}, found {engine!r}")
    run = _Run(board, rules, budget, Engine(engine), hint or [])
    with _deep_recursion():
        return run.verify()


@dataclass
class _Run:
    """One call of :func:`verify`: its inputs, the clock, and the stats it counts. Each
    verdict it returns carries a copy of the stats as they stood then (:meth:`done`); a
    stage that counts more after a verdict was built builds a new one (:meth:`restamped`)."""

    board: Board
    rules: Rules
    budget: Budget
    engine: Engine
    hint: list
    start: float = field(default_factory=time.perf_counter)
    stats: dict[str, Any] = field(default_factory=lambda: {"nodes": 0})

    @property
    def deadline(self) -> float | None:
        return None if self.budget.seconds is None else self.start + self.budget.seconds

    def verify(self) -> Verdict:
        board, rules, engine = self.board, self.rules, self.engine
        if board.is_cleared():
            self.stats["stage"] = "trivial"
            return self.solvable([], "the board has no tiles")
        if self.deadline is not None and time.perf_counter() >= self.deadline:
            # No time at all (``seconds=0``, or a caller's deadline already past): nothing is
            # searched, so the verdict cannot depend on how far a stage got before its first
            # look at the clock.
            return self.unknown(Limit.SECONDS, "start", 0)
        if engine == Engine.BASELINE:
            return self.search(BaselineSearch(board, rules, self.budget, start=self.start), "baseline-search")
        if rules.gravity != Gravity.NONE:
            return self.gravity()
        if engine == Engine.CPSAT:
            return self.cpsat()
        return self.lock_test() or self.flow_check() or self.search_then_cpsat() or self.pairing_search()

    # -- stages (gravity) ---------------------------------------------------------------------
    def gravity(self) -> Verdict:
        """The sub-games of :func:`components`: a stranded type proves the board unsolvable;
        else, if they are independent (a settled board), each is searched alone, fewest tiles
        first. The board is solvable when every one
        is (their witnesses, one after the other, clear it: no move changes another sub-game's
        cells); unsolvable as soon as one is proved unsolvable; else unknown."""
        split = components(self.board, self.rules)
        parts = split.parts
        odd = split.odd_type()
        if odd is not None:
            t, cells = odd
            self.stats.update(stage="components", nodes=0, components=len(parts))
            return self.unsolvable(
                f"type {t} has {len(cells)} tiles in a part of the board that walls cut off "
                "from the rest, an odd number: they can never all be paired (components)",
                Proof(Argument.COMPONENT_PARITY, type=t, tiles=tuple(cells)))
        if len(parts) == 1 or not split.independent:
            return self.sub_game(Component(self.board.tiles(), self.board), self.budget)
        self.stats["components"] = len(parts)
        order: Order = []
        spent = 0
        for part in sorted(parts, key=lambda part: len(part.tiles)):
            budget = self.budget
            if budget.nodes is not None:
                budget = Budget(nodes=max(0, budget.nodes - spent), seconds=budget.seconds)
            verdict = self.sub_game(part, budget, spent)
            spent = self.nodes
            if verdict.proof is not None:  # unsolvable (a verdict carries a proof only then)
                return self.unsolvable(
                    f"the {len(part.tiles)} tiles of a part of the board that walls cut off from "
                    f"the rest can never be cleared: {verdict.reason}",
                    replace(verdict.proof, component=tuple(part.tiles)))
            if verdict.status != SOLVABLE:
                return verdict
            order += [(m.a, m.b) for m in verdict.moves]
        return self.decided(order, "move-search", spent)

    def sub_game(self, part: Component, budget: Budget, spent: int = 0) -> Verdict:
        """One sub-game (or the whole board): the partner test of :mod:`llkgen.verifier.reach`
        at its root, then the move search with that test at every node and the lock test of
        :mod:`llkgen.verifier.gravlock` once it has run a while. Its verdict is
        about ``part.board``: solvable with a witness the referee replayed there."""
        board, rules = part.board, self.rules
        reach = None
        if WALL in board.cells:  # without walls it can never fire (llkgen.verifier.reach)
            reach = Reach(board, rules)
            try:
                stranded = reach.stranded(Grid(board, rules), self.deadline)
            except OutOfBudget:
                return self.unknown(Limit.SECONDS, "reach-pairing", spent)
            if stranded is not None:
                t, cells = stranded
                self.stats.update(stage="reach-pairing", nodes=spent)
                return self.unsolvable(
                    f"the {len(cells)} tiles of type {t} can never all be paired: wherever gravity "
                    "takes them, no pairing joins each with a tile it could ever link to (reach-pairing)",
                    Proof(Argument.REACH_PAIRING, type=t, tiles=tuple(cells)))
        inside = set(part.tiles)
        hint = [m for m in self.hint if tuple(m[0]) in inside and tuple(m[1]) in inside]
        search = MoveSearch(board, rules, budget, start=self.start, prefer=hint, reach=reach, lock=True,
                            native=native.suits(board, rules))
        sub = _Run(board, rules, budget, self.engine, hint, self.start, self.stats)
        verdict = sub.search(search, "move-search", spent)
        if search.locked_root is not None:
            locked = search.locked_root
            self.stats.update(stage="gravity-lock", nodes=spent + search.nodes)
            return sub.unsolvable(
                f"{len(locked)} tiles can never be removed: wherever gravity takes them and "
                "whichever other tiles go first, none can ever reach a partner (gravity lock test)",
                Proof(Argument.GRAVITY_LOCK, locked=tuple(locked)))
        return verdict

    # -- stages (no gravity) ------------------------------------------------------------------
    def lock_test(self) -> Verdict | None:
        try:
            locked = root_lock(self.board, self.rules, self.deadline)
        except OutOfBudget:
            return self.unknown(Limit.SECONDS, "lock-test", 0)
        if not locked:
            return None
        self.stats["stage"] = "lock-test"
        return self.unsolvable(f"{len(locked)} tiles can never be removed, even if every other tile "
                               "that could ever link were gone (lock test)",
                               Proof(Argument.LOCK_TEST, locked=tuple(locked)))

    def flow_check(self) -> Verdict | None:
        # Walls never go away, so some pairs can never link at all; the flow-based pairing
        # check proves a type unpairable. Without walls it never fired on 10x16 boards (and
        # costs ~35 ms there), so it only runs when the board has walls.
        if WALL not in self.board.cells or self.board.tile_count > PAIRING_CHECK_MAX_TILES:
            return None
        proof = pairing_check(self.board, self.rules, deadline=self.deadline)
        if proof is None:
            if self.deadline is not None and time.perf_counter() > self.deadline:
                return self.unknown(Limit.SECONDS, "flow-pairing", 0)
            return None
        self.stats["stage"] = "flow-pairing"
        return self.unsolvable(proof.reason, Proof(Argument.PAIRING_CHECK, pairing=proof))

    def pairing_search(self, budget: Budget | None = None) -> Verdict:
        # A quick dive: the same exact search, lock test at every node but no probing, under a
        # small node budget. Most solvable boards fall to it before probing would have paid for
        # itself; if it finishes without a witness, that is an exhaustive search too. Its table
        # of dead nodes carries over to the full search (each entry is a proof). Measured on 40
        # seeded 10x16 boards, CPU time, interleaved: no dive p50 86 ms; a dive without the
        # lock test 109 ms; with it, a quarter or half of the tiles long, 64-65 ms; a tenth,
        # too short, 134 ms.
        board, rules = self.board, self.rules
        budget = self.budget if budget is None else budget
        w = board.cols + 4
        prefer = [((a[0] + 2) * w + a[1] + 2, (b[0] + 2) * w + b[1] + 2) for a, b in self.hint
                  if board.in_bounds(tuple(a)) and board.in_bounds(tuple(b))]
        dive_nodes = board.tile_count // 4 + 8
        if budget.nodes is not None:
            dive_nodes = min(dive_nodes, budget.nodes)
        dive = PairingSearch(board, rules, Budget(nodes=dive_nodes, seconds=budget.seconds),
                             start=self.start, probe=False, prefer=prefer)
        try:
            found = dive.search()
        except OutOfBudget as e:
            if e.which == Limit.SECONDS:
                return self.unknown(Limit.SECONDS, "quick dive", dive.nodes)
        else:
            return self.decided(dive.cells(found) if found is not None else None, "dive", dive.nodes)
        self.stats["dive_nodes"] = dive.nodes
        rest = budget if budget.nodes is None else Budget(nodes=max(0, budget.nodes - dive.nodes),
                                                         seconds=budget.seconds)
        search = PairingSearch(board, rules, rest, start=self.start, prefer=prefer, dead=dive.dead)
        verdict = self.search(search, "pairing-search", spent=dive.nodes)
        self.stats["lock_prunes"] = search.lock_prunes
        return self.restamped(verdict)

    def search_then_cpsat(self) -> Verdict | None:
        """On a board :func:`cpsat_suits` accepts (``auto`` only; None on any other): the
        pairing search for :data:`HANDOVER_NODES` nodes (at most half the node budget), then,
        if it is undecided and time is left, CP-SAT with the rest. Both are exact, so
        whichever decides gives the verdict."""
        if self.engine != Engine.AUTO or not cpsat_suits(self.board, self.rules):
            return None
        budget = self.budget
        first = HANDOVER_NODES if budget.nodes is None else min(HANDOVER_NODES, budget.nodes // 2)
        verdict = self.pairing_search(Budget(nodes=first, seconds=budget.seconds))
        if verdict.status != UNKNOWN or verdict.limit == Limit.SECONDS:
            return verdict  # decided, or the whole time budget is gone
        spent = self.nodes
        self.stats["search_nodes"] = spent
        if budget.nodes is not None and spent >= budget.nodes:
            # Nothing left: CP-SAT's presolve alone can decide a small model even with a zero
            # deterministic limit, and a node budget of 0 must not buy a verdict.
            return self.unknown(Limit.NODES, "pairing-search", spent)
        rest = Budget(nodes=None if budget.nodes is None else budget.nodes - spent, seconds=None)
        return self.cpsat(rest, spent)

    def cpsat(self, budget: Budget | None = None, spent: int = 0) -> Verdict:
        """The CP-SAT model, with ``budget`` (default: the whole budget) and this run's
        deadline. Its solution is replayed like any witness; INFEASIBLE of the exact model is
        the proof; a limit reached is unknown. ortools is imported here and nowhere else on
        the way: it costs a fraction of a second to load. ``spent`` is the search nodes
        already used, counted in the verdict's nodes."""
        from llkgen.verifier.cpsat import solve_cpsat

        status, order, cstats = solve_cpsat(self.board, self.rules, self.budget if budget is None else budget,
                                            hint=self.hint or None, deadline=self.deadline)
        nodes = spent + int(cstats.get("branches", 0))
        self.stats.update(stage="cpsat", nodes=nodes, cpsat=cstats)
        if status == SOLVABLE and order is not None:
            return self.solvable(order, f"cleared in {len(order)} moves (CP-SAT model, "
                                        f"{cstats.get('cpsat_status')}); the witness replays")
        if status == UNSOLVABLE:
            model = {k: cstats[k] for k in ("vars", "constraints") if k in cstats}
            return self.unsolvable("the CP-SAT model of the elimination order is infeasible: no pairing, "
                                   "path choice and removal order clears the board",
                                   Proof(Argument.CPSAT_INFEASIBLE, model=model))
        return self.unknown(Limit.SECONDS if cstats.get("stopped_by") == "time" else Limit.NODES, "cpsat", nodes)

    # -- verdicts -----------------------------------------------------------------------------
    def search(self, solver: BaselineSearch | PairingSearch | MoveSearch, stage: str, spent: int = 0) -> Verdict:
        """Run an exact search to a verdict: its witness, an exhaustive failure, or unknown."""
        order: Order | None
        try:
            if isinstance(solver, PairingSearch):
                pairs = solver.search()
                order = None if pairs is None else solver.cells(pairs)
            else:
                order = solver.search()
        except OutOfBudget as e:
            return self.unknown(e.which, self._stage(solver, stage), spent + solver.nodes)
        self.stats["dead_boards"] = len(solver.dead)
        stage = self._stage(solver, stage)
        return self.decided(order, stage, spent + solver.nodes)

    def _stage(self, solver: BaselineSearch | PairingSearch | MoveSearch, stage: str) -> str:
        """``native-search`` when a move search's verdict is the C search's, with its counters
        (also kept when its node budget ran out and the move search went on)."""
        result = solver.native_result if isinstance(solver, MoveSearch) else None
        if result is None:
            return stage
        self.stats.update(native_nodes=result.nodes, native_dead_boards=result.recorded)
        return "native-search" if result.status in (SOLVABLE, UNSOLVABLE) else stage

    def decided(self, order: Order | None, stage: str, nodes: int) -> Verdict:
        """A finished search: its witness (replayed) or, exhaustive and empty-handed, a proof."""
        self.stats.update(stage=stage, nodes=nodes)
        if order is None:
            return self.unsolvable(f"every line of play was explored ({stage}, {nodes} nodes) and none "
                                   "clears the board",
                                   Proof(Argument.EXHAUSTIVE_SEARCH, engine=stage, nodes=nodes))
        return self.solvable(order, f"cleared in {len(order)} moves ({stage}, {nodes} nodes); "
                                    "the witness replays")

    def unknown(self, which: Limit, stage: str, nodes: int) -> Verdict:
        self.stats.update(stage=stage, nodes=nodes)
        budget = self.budget
        limit = f"node budget ({budget.nodes})" if which == Limit.NODES else f"time budget ({budget.seconds} s)"
        when = "before the search started" if stage == "start" else f"during the {stage}"
        return self.done(Verdict(UNKNOWN, reason=f"the {limit} ran out {when}", limit=which))

    def unsolvable(self, reason: str, proof: Proof) -> Verdict:
        return self.done(Verdict(UNSOLVABLE, reason=reason, proof=proof))

    def solvable(self, order: Order, reason: str) -> Verdict:
        """The witness becomes a verdict only once the referee has replayed it."""
        result = replay(self.board, self.rules, order)
        if not (result.ok and result.cleared):
            raise WitnessRejected(f"internal error: witness refused by the referee: {result.describe()}")
        moves = [Move(a, b, path) for (a, b), path in zip(order, result.paths)]
        return self.done(Verdict(SOLVABLE, moves, reason))

    def done(self, verdict: Verdict) -> Verdict:
        """``verdict`` with the time so far and a copy of the stats."""
        self.stats["time_ms"] = round((time.perf_counter() - self.start) * 1000, 3)
        return self.restamped(verdict)

    def restamped(self, verdict: Verdict) -> Verdict:
        """``verdict`` with a copy of the stats as they stand now (the time is its own)."""
        return replace(verdict, stats=dict(self.stats))

    @property
    def nodes(self) -> int:
        """The nodes counted so far (a sub-game's run shares the stats of the whole board's)."""
        return int(self.stats.get("nodes", 0))

