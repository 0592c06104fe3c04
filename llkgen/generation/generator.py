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

Each attempt is one :class:`Candidate` through a line of stages, as in the verifier's portfolio:
build it (deal or construct), the cheap filters (``initial_moves``, the random clear rate, the
bounds of the difficulty score), certification (replay the construction, verify), the
``verify_nodes`` filter, then grading. The first stage to reject the candidate ends the
attempt and says why; a candidate that no stage rejects is the level.
"""

from __future__ import annotations

from contextlib import closing
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
from llkgen.game.playout import Playout
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


@dataclass
class Candidate:
    """One board on its way through the stages of :func:`generate_level`: the board, the
    constructive order it was built with (``None`` for a deal), its working board (a
    :class:`Playout` of the starting position, built once and never played: the metrics read
    it or copy it), the metrics measured so far, in the order a level's metrics are written,
    and the verifier's verdict once certified."""

    board: Board
    order: list | None
    play: Playout
    metrics: dict = field(default_factory=dict)
    verdict: Verdict | None = None


class _Attempts:
    """The attempts of one :func:`generate_level` call: its inputs, the one random generator
    every candidate draws from, the tally of rejections, and the current candidate.

    Each stage returns why it rejects the candidate (already counted in the tally), or
    ``None`` to go on; :func:`generate_level` chains them cheapest first, like the verifier's
    portfolio: :meth:`build` a candidate, the cheap filters, certification, grading.
    The stages draw random numbers only through :meth:`build` (the deal or construction) and
    the seeded playthroughs of the metrics, so the draws are those of the attempt loop this
    replaced, in the same order."""

    def __init__(self, spec: Spec, index: int):
        self.spec, self.index = spec, index
        self.seed = level_seed(spec.seed, index)
        self.rng = np.random.default_rng(np.random.SeedSequence(self.seed))
        self.rules = spec.rules
        self.targets = spec.targets(index)
        self.window = self.targets.get("difficulty")
        self.nodes = spec.verify.nodes
        self.budget = Budget(nodes=self.nodes)
        self.tally = _Tally()
        self.candidate: Candidate  # set by build(), the first stage of every attempt

    def level(self, attempt: int) -> GeneratedLevel:
        """The current candidate as a level, once every stage has passed it."""
        c = self.candidate
        assert c.verdict is not None  # certify() passed it, so it holds a solvable verdict
        return GeneratedLevel(self.index, self.seed, c.board, self.rules, c.metrics,
                              _certificate(c.verdict, self.nodes), c.verdict.solution, attempt)

    def where(self) -> str:
        return f"level {self.index + 1} (seed {self.seed})"

    def outside(self, metric: str) -> str | None:
        """Reject (and count) the candidate if ``metrics[metric]`` misses its target range."""
        target = self.targets.get(metric)
        if target is None or target.contains(self.candidate.metrics[metric]):
            return None
        self.tally.reject(metric)
        return metric

    # -- stages, cheapest first ---------------------------------------------------------------
    def build(self) -> str | None:
        """A new candidate: constructed or dealt, per the spec's strategy."""
        order = None
        if self.spec.generator.strategy == "constructive":
            built = construct(self.spec, self.rng)
            if built is None:
                self.tally.stuck += 1
                return "stuck"
            board, order = built
        else:
            board = deal(self.spec, self.rng)
        # play_forward's own Playout has played the *start* board to empty, so the rewritten
        # board needs its own; it is built once here and shared by the metrics.
        self.candidate = Candidate(board, order, Playout(board, self.rules))
        return None

    # The cheap metrics filter first: a board that misses them is rejected without paying for a
    # verification (unsolvable proofs on big boards can take thousands of nodes).
    def initial_moves(self) -> str | None:
        """Measure ``initial_moves`` on the working board; reject it outside its target."""
        c = self.candidate
        c.metrics["initial_moves"] = initial_moves(c.play, self.rules)
        return self.outside("initial_moves")

    def clear_rate(self) -> str | None:
        """Measure ``random_clear_rate``, stopping early once it is settled outside its target."""
        c, rate_range = self.candidate, self.targets.get("random_clear_rate")
        rate = clear_rate_within(c.play, self.rules, self.spec.difficulty.playthroughs, self.seed,
                                 rate_range.low if rate_range else None, rate_range.high if rate_range else None)
        if rate is None:
            self.tally.reject("random_clear_rate")
            return "random_clear_rate"
        c.metrics["random_clear_rate"] = rate
        return None

    def score_bound(self) -> str | None:
        """Reject a candidate whose score bounds miss the difficulty window: no grading can
        bring it into the window."""
        window = self.window
        if window is None:
            return None
        low, high = score_bounds(self.candidate.metrics["random_clear_rate"], self.candidate.board.tile_count // 2)
        if (window.high is not None and low > window.high) or (window.low is not None and high < window.low):
            self.tally.reject("difficulty")
            return "difficulty"
        return None

    def certify(self) -> str | None:
        """Replay the constructive order (if any), then verify; only a solvable verdict goes on.
        Raises :class:`InternalError` if the construction's claim fails."""
        c = self.candidate
        if c.order is not None:
            # The construction claims this order clears the board; the referee decides. Only
            # boards that survived the filters are checked, since only those can be kept.
            check = replay(c.board, self.rules, c.order)
            if not (check.ok and check.cleared):
                raise InternalError(f"{self.where()}: the constructive order does not replay: {check.describe()}")
        # The construction order only steers the search (it tries those moves first); the
        # verdict and the exported witness are still the verifier's own, replayed.
        c.verdict = verify(c.board, self.rules, self.budget, hint=c.order)
        if c.verdict.status == SOLVABLE:
            return None
        if c.verdict.status == UNKNOWN:
            self.tally.unknown += 1
            return "unknown"
        if c.order is not None:
            raise InternalError(f"{self.where()}: the verifier calls a constructed board unsolvable: "
                                f"{c.verdict.reason}")
        self.tally.unsolvable += 1
        return "unsolvable"

    def verify_nodes(self) -> str | None:
        """Record the certifying search's nodes; reject them outside their target."""
        c = self.candidate
        assert c.verdict is not None  # certify() ran first
        c.metrics["verify_nodes"] = verify_nodes(c.verdict)
        return self.outside("verify_nodes")

    def grade(self) -> str | None:
        """The graded metrics and the difficulty score (only when the spec grades), which must
        lie in the difficulty window."""
        spec, c = self.spec, self.candidate
        if not spec.grading.playthroughs:
            return None
        assert c.verdict is not None  # certify() ran first
        graded = grade(c.board, self.rules, playthroughs=spec.grading.playthroughs, nodes=spec.grading.nodes,
                       seed=self.seed, witness=[(m.a, m.b) for m in c.verdict.moves])
        c.metrics.update(graded.metrics())
        score = difficulty_score(c.metrics, c.board.tile_count // 2)
        c.metrics["difficulty"] = score
        if self.window is not None and not self.window.contains(score):
            self.tally.reject("difficulty")
            self.tally.scores.append(score)
            return "difficulty"
        return None


def generate_level(spec: Spec, index: int) -> GeneratedLevel:
    """Level ``index`` of the pack described by ``spec``: a function of ``(spec, index)`` only.

    Raises :class:`GenerationError` (an :class:`LlkgenError`) after
    ``spec.generator.max_attempts`` rejected candidates, saying why they were rejected."""
    run = _Attempts(spec, index)
    for attempt in range(1, spec.generator.max_attempts + 1):
        rejected = (run.build() or run.initial_moves() or run.clear_rate() or run.score_bound() or run.certify()
                    or run.verify_nodes() or run.grade())
        if not rejected:
            return run.level(attempt)
    raise GenerationError(
        f"{spec.source}: level {index + 1} of {spec.count} (seed {run.seed}): no {spec.generator.strategy} "
        f"board was accepted in {spec.generator.max_attempts} attempts: {run.tally.explain(spec, index)}. "
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
    # closing(): if on_level raises, the generator is closed at once and its workers with it.
    with closing(executor.imap_ordered(partial(generate_level, spec), range(spec.count))) as made:
        for lv in made:
            levels.append(lv)
            if on_level is not None:
                on_level(lv)
    return levels
