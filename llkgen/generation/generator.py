"""Level generators. Every level they return is certified solvable: the verifier said
``solvable`` within the spec's node budget and its witness replays through the referee.

Two strategies:

* ``shuffle`` deals the tile multiset onto the layout's tile cells at random and keeps the
  first deal that is certified and within the spec's difficulty targets.
* ``constructive`` is solvable by construction: it plays random removable pairs forward from a
  random deal and writes each removed pair's type back where its tiles started (see
  :mod:`llkgen.game.construct` for why the removal order then replays). The claim is still
  checked: the order must replay through :func:`llkgen.game.referee.replay`, and the board must
  then be certified by the verifier like any other.

Determinism: level ``i`` draws every random number from its own seed,
:func:`level_seed` ``(pack seed, i)`` (numpy ``SeedSequence`` spawn key ``(i,)``), so adding
levels leaves the earlier ones unchanged, and worker processes return identical levels in any
order. All limits are counts -- attempts, reshuffles, verifier nodes -- never seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Callable

import numpy as np

from llkgen.analysis.grading import difficulty_score, grade, score_bounds
from llkgen.analysis.metrics import clear_rate_within, initial_moves, verify_nodes
from llkgen.errors import GenerationError
from llkgen.execution.base import Executor, ProcessExecutor
from llkgen.game.board import EMPTY, WALL, Board, Rules
from llkgen.game.construct import play_forward
from llkgen.game.referee import replay
from llkgen.generation.spec import Spec
from llkgen.verifier import SOLVABLE, UNKNOWN, Budget, Verdict, verify

#: Exported seeds stay below 2**53 so that JavaScript game code reads them exactly.
SEED_BITS = 53


class InternalError(AssertionError):
    """A generator's own guarantee failed (e.g. a constructive order the referee refused): a
    bug in llkgen, never a problem with the spec."""


def level_seed(pack_seed: int, index: int) -> int:
    """The seed of level ``index`` (0-based) in a pack seeded ``pack_seed``: the first
    ``SEED_BITS`` bits of ``SeedSequence(pack_seed, spawn_key=(index,))``, which is the
    ``index``-th child that ``SeedSequence(pack_seed).spawn`` would produce."""
    state = np.random.SeedSequence(pack_seed, spawn_key=(index,)).generate_state(1, np.uint64)
    return int(state[0]) >> (64 - SEED_BITS)


@dataclass(frozen=True)
class GeneratedLevel:
    """A certified level and how it was found. ``solution`` is the verifier's witness as
    ``[[[r1, c1], [r2, c2]], ...]``, already accepted by the referee."""

    index: int
    seed: int
    board: Board
    rules: Rules
    metrics: dict
    certificate: dict
    solution: list
    attempts: int


@dataclass
class _Tally:
    """Why candidate boards were rejected, for the give-up message."""

    unsolvable: int = 0
    unknown: int = 0
    stuck: int = 0
    outside: dict = field(default_factory=dict)  # metric -> count
    scores: list = field(default_factory=list)  # difficulty scores graded and rejected

    def reject(self, metric: str) -> None:
        self.outside[metric] = self.outside.get(metric, 0) + 1

    def explain(self, spec: Spec, index: int) -> str:
        n_out = sum(self.outside.values())
        parts = [
            f"{self.unsolvable} proved unsolvable",
            f"{self.unknown} unknown (the verifier's {spec.verify.nodes}-node budget ran out)",
        ]
        if self.stuck:
            parts.append(f"{self.stuck} could not be built (stuck with no removable pair, even after reshuffling)")
        out = f"{n_out} outside the difficulty range"
        if n_out:
            targets = spec.targets(index)
            out += " (" + ", ".join(
                f"{m} not in {_fmt_range(targets[m])}: {n}" for m, n in self.outside.items()
            ) + ")"
        if self.scores:
            out += f"; the graded scores ranged {min(self.scores):g}..{max(self.scores):g}"
        parts.append(out)
        return ", ".join(parts)


def _fmt_range(r) -> str:
    return "[" + ", ".join("null" if v is None else f"{v:g}" for v in (r.low, r.high)) + "]"


def _template(spec: Spec) -> tuple[list[int], list[int], list[int]]:
    """``(base cells, tile cell indices, tile multiset)`` for ``spec``'s layout."""
    rows, cols = spec.board.rows, spec.board.cols
    tile_cells, walls = spec.layout_cells()
    base = [EMPTY] * (rows * cols)
    for r, c in walls:
        base[r * cols + c] = WALL
    return base, [r * cols + c for r, c in tile_cells], spec.tile_multiset()


def deal(spec: Spec, rng: np.random.Generator) -> Board:
    """The spec's tiles placed uniformly at random on the layout's tile cells."""
    base, cells, tiles = _template(spec)
    out = list(base)
    for i, k in zip(cells, rng.permutation(len(tiles))):
        out[i] = tiles[int(k)]
    return Board(spec.board.rows, spec.board.cols, tuple(out))


def construct(spec: Spec, rng: np.random.Generator) -> tuple[Board, list] | None:
    """A board built by forward play from a random deal (:func:`llkgen.game.construct.play_forward`)
    and its removal order as ``[((r1, c1), (r2, c2)), ...]``, or ``None`` when the deal's
    occupancy left tiles that no reshuffle could pair. The order is *claimed* to clear the
    board; callers replay it."""
    return play_forward(deal(spec, rng), spec.rules, rng)


def _certificate(verdict: Verdict, nodes: int) -> dict:
    """What the verifier proved, without timings (they would make packs differ run to run)."""
    stats = {k: v for k, v in verdict.stats.items() if not _is_timing(k)}
    return {"verdict": verdict.status, "method": verdict.stats.get("stage", ""),
            "budget": {"nodes": nodes}, "stats": stats}


def _is_timing(key: str) -> bool:
    return key.startswith("time") or key.endswith(("_ms", "_s", "_seconds"))


def generate_level(spec: Spec, index: int) -> GeneratedLevel:
    """Level ``index`` of the pack described by ``spec``: a function of ``(spec, index)`` only.

    Raises :class:`GenerationError` (an :class:`LlkgenError`) after
    ``spec.generator.max_attempts`` rejected candidates, saying why they were rejected."""
    seed = level_seed(spec.seed, index)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    rules = spec.rules
    targets = spec.targets(index)
    nodes = spec.verify.nodes
    budget = Budget(nodes=nodes)
    tally = _Tally()
    for attempt in range(1, spec.generator.max_attempts + 1):
        order = None
        if spec.generator.strategy == "constructive":
            built = construct(spec, rng)
            if built is None:
                tally.stuck += 1
                continue
            board, order = built
        else:
            board = deal(spec, rng)
        # Cheap metrics filter first: a deal that misses them is rejected without paying for a
        # verification (unsolvable proofs on big boards can take thousands of nodes).
        metrics: dict = {"initial_moves": initial_moves(board, rules)}
        if "initial_moves" in targets and not targets["initial_moves"].contains(metrics["initial_moves"]):
            tally.reject("initial_moves")
            continue
        rate_range = targets.get("random_clear_rate")
        rate = clear_rate_within(board, rules, spec.difficulty.playthroughs, seed,
                                 rate_range.low if rate_range else None,
                                 rate_range.high if rate_range else None)
        if rate is None:
            tally.reject("random_clear_rate")
            continue
        metrics["random_clear_rate"] = rate
        window = targets.get("difficulty")
        if window is not None:
            low, high = score_bounds(rate, board.tile_count // 2)
            if (window.high is not None and low > window.high) or (window.low is not None and high < window.low):
                tally.reject("difficulty")  # no grading can bring it into the window
                continue
        if order is not None:
            # The construction claims this order clears the board; the referee decides. Only
            # boards that survived the filters are checked, since only those can be kept.
            check = replay(board, rules, order)
            if not (check.ok and check.cleared):
                raise InternalError(
                    f"level {index + 1} (seed {seed}): the constructive order does not replay: {check.describe()}"
                )
        # The construction order only steers the search (it tries those moves first); the
        # verdict and the exported witness are still the verifier's own, replayed.
        verdict = verify(board, rules, budget, hint=order)
        if verdict.status != SOLVABLE:
            if order is not None and verdict.status != UNKNOWN:
                raise InternalError(
                    f"level {index + 1} (seed {seed}): the verifier calls a constructed board unsolvable: "
                    f"{verdict.reason}"
                )
            if verdict.status == UNKNOWN:
                tally.unknown += 1
            else:
                tally.unsolvable += 1
            continue
        metrics["verify_nodes"] = verify_nodes(verdict)
        if "verify_nodes" in targets and not targets["verify_nodes"].contains(metrics["verify_nodes"]):
            tally.reject("verify_nodes")
            continue
        if spec.grading.playthroughs:
            graded = grade(board, rules, playthroughs=spec.grading.playthroughs, nodes=spec.grading.nodes,
                           seed=seed, witness=[(m.a, m.b) for m in verdict.moves])
            metrics.update(graded.metrics())
            metrics["difficulty"] = difficulty_score(metrics, board.tile_count // 2)
            if window is not None and not window.contains(metrics["difficulty"]):
                tally.reject("difficulty")
                tally.scores.append(metrics["difficulty"])
                continue
        return GeneratedLevel(index, seed, board, rules, metrics, _certificate(verdict, nodes),
                              verdict.solution, attempt)
    raise GenerationError(
        f"{spec.source}: level {index + 1} of {spec.count} (seed {seed}): no {spec.generator.strategy} "
        f"board was accepted in {spec.generator.max_attempts} attempts: {tally.explain(spec, index)}. "
        "Try widening the difficulty ranges, raising generator.max_attempts or verify.nodes"
        + (", or strategy: constructive" if spec.generator.strategy == "shuffle" else "")
    )


def generate_pack(spec: Spec, jobs: int = 1,
                  on_level: Callable[[GeneratedLevel], None] | None = None,
                  executor: Executor | None = None) -> list[GeneratedLevel]:
    """All ``spec.count`` levels, in order, made on ``executor`` (default: a process pool of
    ``jobs`` workers, see :mod:`llkgen.execution.base`). Each level depends only on
    ``(spec, index)``, so the result is the same on every executor. ``on_level`` is called
    with each level in index order as it is made, e.g. to advance a progress bar. A
    :class:`GenerationError` stops the run and is raised: the first failing level's, as with
    ``jobs=1``; the workers are then ended at once."""
    if executor is None:
        if type(jobs) is not int or jobs < 1:
            raise ValueError(f"jobs: expected an integer >= 1, found {jobs!r}")
        executor = ProcessExecutor(min(jobs, spec.count))
    levels: list[GeneratedLevel] = []

    def keep(pos: int, lv: GeneratedLevel) -> None:
        levels.append(lv)
        if on_level is not None:
            on_level(lv)

    executor.run_ordered(partial(generate_level, spec), range(spec.count), keep)
    return levels

