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
build it (deal or construct), the cheap filters (``initial_moves``, the random clear rate),
the replay of the construction's order, certification, the ``verify_nodes`` filter, then the player
ladder (:mod:`llkgen.analysis.difficulty`: the score with its error, the tier, the models'
clear rates). The first stage to reject the candidate ends the attempt and says why; a
candidate that no stage rejects is the level. When the ladder has a target (a score window, a
ramp, a tier or a clear-rate window), it goes before certification instead: it then rejects
most candidates (a ramp's, about 23 of 24), most of them after a model or two, and certifying
each of them first was about a quarter of a ramp's ``make``. The level is the same in either
order: every stage is a function of the candidate alone, so the first candidate that passes
them all does not depend on their order; only the tally of reasons does.

Less winner's curse: a level that must meet a target on the ladder (a score window, a ramp, a
tier or a clear-rate window) is measured once to be selected, then measured again on a fresh,
independent seed stream; the kept numbers are the fresh ones, and they must meet the target
too. Keeping the first measurement would keep the candidates whose noise happened to land in
the window, and a re-measurement would scatter out of it. The fresh measurement keeps fewer
such candidates, but since it must meet the target too, the kept value is still pulled
towards the window: about 0.3 standard errors on average in a simulation, against 0.5 when
the first is kept (docs/difficulty.md, "Less winner's curse"). Only an unconditional third measurement
would be unbiased, and a kept level could then show a score outside its window.

A guard band: the fresh measurement must lie at least :data:`GUARD_SE` of its own standard
errors inside each bound of a score or clear-rate window (the way a measurement shows
conformance to a tolerance in metrology, ISO 14253-1), not merely inside it. The levels kept
are then further inside their windows, so re-measurements land inside more often. Simulated
with candidates spread evenly around a ramp window of +-5 points at a standard error of 1.5:
90% of re-measurements of kept levels land inside without the guard, 94% with a guard of one
standard error, at 1.3 times the candidates (``docs/difficulty.md`` has what the shipped ramp
measured). A screened candidate's score window is judged by :data:`AIMED_GUARD_SE`, 1 as
well: the guard is what trades an aimed ramp's cost against its re-grades.

Aiming (a score window: a score ramp or ``difficulty.score``; :data:`AIM`): blind drawing spent
most of a ramp's playthroughs on candidates it then rejected (about 20 candidates and 5 to 8
full measurements a kept level). Three things cut that:

* **Screening** (:meth:`_Attempts.screen`, :func:`llkgen.analysis.difficulty.screen`): a
  coarse first measurement, small batches of every model, stopped as soon as the score is one
  standard error outside the window (rejected) or inside it (measured again, fresh), and at
  the latest at a standard error of :data:`~llkgen.analysis.difficulty.SCREEN_PRECISION` (3),
  when it is sent on only if its score lies inside the guard band the fresh measurement must
  land in. It takes the place of the first whole measurement.
* **A predictive stop** on that fresh measurement
  (:data:`~llkgen.analysis.difficulty.PREDICTIVE_STOP`): it is rejected once its score lies 2
  of ``sqrt(se^2 - precision^2)`` outside the guard band -- the spread of where it can still
  end -- rather than 2 se. Near the band's edges a fresh measurement that will be rejected
  stops before its last batches; the pull this puts on a kept score is 0.02 to 0.03 points.
* **Steering** (:mod:`llkgen.generation.steer`, shuffled deals only): the next candidate is
  the closest one so far with a few tiles swapped, as many as the run's own fit of how far a
  swap moves the score says, or a new deal when none is close.

Why the kept numbers stay unbiased: the screening decides only which candidates are measured
fresh. Each attempt screens and measures fresh on seed streams of its own
(:func:`candidate_streams`), so no selection among candidates -- neither the screening's nor
the steering's, which makes near-copies of earlier candidates and would otherwise measure them
on the very numbers that judged their parents -- reuses the numbers a kept level stores. The
kept numbers are the fresh measurement, whole, with the guard band, as without aiming
(``tests/generation/test_screening.py``; ``tests/analysis/test_difficulty.py``'s winner's-curse test holds with
it). What screening does change is which boards reach the fresh measurement: its repeated
looks reject more candidates near the window's edges than a whole measurement would.
``benchmarks/ramp_bench.py`` measures the cost against blind drawing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

import numpy as np

from llkgen.analysis.calibration import Prediction
from llkgen.analysis.difficulty import (
    FIRST_STREAM,
    FRESH_STREAM,
    PREDICTIVE_STOP,
    SCREEN_SE,
    SETTLED_SE,
    TIERS,
    Difficulty,
    Settled,
    measure,
    screen,
)
from llkgen.analysis.metrics import clear_rate_within, initial_moves, verify_nodes
from llkgen.errors import GenerationError
from llkgen.game.board import EMPTY, WALL, Board, Rules
from llkgen.game.construct import play_forward
from llkgen.game.playout import Playout
from llkgen.game.referee import replay
from llkgen.generation.spec import Spec
from llkgen.generation.spec_model import RAMP_PREDICTED
from llkgen.generation.steer import Steering, aim
from llkgen.verifier import SOLVABLE, UNKNOWN, Budget, Verdict, verify

#: Exported seeds stay below 2**53 so that JavaScript game code reads them exactly.
SEED_BITS = 53


class InternalError(AssertionError):
    """A generator's own guarantee failed (e.g. a constructive order the referee refused): a
    bug in llkgen, never a problem with the spec."""


#: The guard band of a fresh measurement, in its standard errors (module docstring).
GUARD_SE = 1.0
#: The guard band of the score window when the candidate was screened (a score ramp or
#: ``difficulty.score``, aimed), in the fresh measurement's standard errors: 1, as
#: :data:`GUARD_SE`. It is its own constant because it is the one setting that moves both of an
#: aimed ramp's figures: ladder playthroughs a kept level, in full measurements (target 2.5),
#: and the share of re-grades within the ramp's tolerance (target 90%). Every other setting
#: tried (the screening's batches and thresholds, the fresh measurement's early stop, the
#: steering's parent and children) moved along the same line as this one, about 0.1
#: measurement for each point of "within" (docs/difficulty.md, "The ramp's cost").
#: ``benchmarks/ramp_bench.py --guards 0.75,0.5``, over draws of 288 to 1,152 levels: at 1,
#: 2.55 to 2.73 measurements and 92.1% to 94.8% within; at 0.75, 2.38 to 2.52 and 89.6% to
#: 93.8% (pooled, about 2.45 and 92%); at 0.5, 2.21 to 2.36 and 89.2% to 91.5%. It stays at 1:
#: at 0.75 the two targets hold only on the pool, each is missed on some draws, and levels
#: kept 0.75 se inside their window re-grade outside it more often (the shipped ramp, pack seed
#: 5: one level kept at 57.5 for a target of 53.6 re-grades at 59 to 63) for 7% less CPU.
AIMED_GUARD_SE = 1.0

#: The first seed stream of a screened level's candidates (module docstring, "Aiming"): far
#: from the small stream numbers that :data:`FIRST_STREAM`, :data:`FRESH_STREAM` and the
#: scripts' independent re-measurements use (5 to 7, 99, 100 and up).
CANDIDATE_STREAMS = 1 << 20


def candidate_streams(attempt: int) -> tuple[int, int]:
    """The seed streams of attempt ``attempt`` (1-based) of a level with a score window: its
    screening's and its fresh measurement's, each used by that attempt alone."""
    first = CANDIDATE_STREAMS + 2 * (attempt - 1)
    return first, first + 1


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
    #: The ladder's tier and clear rates (:meth:`Difficulty.players_json`); ``None`` when the
    #: spec's grading is off.
    players: dict | None = None


@dataclass
class _Tally:
    """Why candidate boards were rejected, for the give-up message."""

    unsolvable: int = 0
    unknown: int = 0
    stuck: int = 0
    outside: dict = field(default_factory=dict)  # metric -> count
    scores: list = field(default_factory=list)  # difficulty scores measured and rejected
    fresh: int = 0  # selected by the first measurement, rejected by the fresh one
    settled: int = 0  # measurements stopped early, settled outside the score window
    screened: int = 0  # screenings stopped early, settled outside the score window

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
            tiers = spec.tiers(index, TIERS)
            out += " (" + ", ".join(
                (f"tier not {' or '.join(tiers or ())}" if m == "tier" else f"{m} not in {_fmt_range(targets[m])}")
                + f": {n}" for m, n in self.outside.items()
            ) + ")"
        if self.fresh:
            out += f", of which {self.fresh} passed a first measurement but not the fresh re-measurement"
        if self.scores:
            out += f"; the measured scores ranged {min(self.scores):.1f}..{max(self.scores):.1f}"
        if self.screened:
            out += (f"; {self.screened} screened out early, settled more than {SCREEN_SE:g} standard error "
                    "outside the score window")
        if self.settled:
            out += (f"; {self.settled} stopped early, settled more than {SETTLED_SE:g} standard errors "
                    "outside the score window")
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
    difficulty: Difficulty | None = None
    #: Whether :meth:`_Attempts.screen` passed it (it then skips the first measurement).
    screened: bool = False


#: With a ladder target, grade a candidate before certifying it (module docstring). The levels
#: are the same either way; tests turn it off to show that.
GRADE_FIRST = True

#: Aim at a score window: screen candidates and steer them (module docstring, "Aiming"). Off,
#: ``make`` draws candidates blindly and measures each in full, as it did before;
#: ``benchmarks/ramp_bench.py`` turns it off to compare.
AIM = True

#: The metrics a level writes first, in this order; the ladder's and ``pairs`` follow.
FIRST_METRICS = ("initial_moves", "random_clear_rate", "random_clear_runs", "verify_nodes")


class _Attempts:
    """The attempts of one :func:`generate_level` call: its inputs, the one random generator
    every candidate draws from, the tally of rejections, and the current candidate.

    Each stage returns why it rejects the candidate (already counted in the tally), or
    ``None`` to go on; :func:`generate_level` chains them cheapest first, like the verifier's
    portfolio: :meth:`build` a candidate, the cheap filters, the construction's replay,
    certification, grading (grading before certification when it has a target: module
    docstring).
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
        self.tiers = spec.tiers(index, TIERS)
        self.graded = spec.graded()
        #: Each targeted model's clear-rate precision, so its window is judged at that error.
        self.rate_se = {k.removeprefix("clear_rate."): spec.grading.rate_precision
                        for k in self.targets if k.startswith("clear_rate.")}
        #: The calibration whose predicted clear rate every level records (and a window may judge).
        self.calibration = spec.difficulty.model
        self.nodes = spec.verify.nodes
        self.budget = Budget(nodes=self.nodes)
        self.tally = _Tally()
        self.candidate: Candidate  # set by build(), the first stage of every attempt
        self.attempt = 0  # the current candidate's, 1-based
        #: Steering towards a score window (module docstring, "Aiming"); deals only.
        self.aims = AIM and self.window is not None and spec.grading.enabled
        self.steering = (Steering(aim(self.window.low, self.window.high))
                         if self.aims and self.window is not None and spec.generator.strategy == "shuffle" else None)

    def level(self, attempt: int) -> GeneratedLevel:
        """The current candidate as a level, once every stage has passed it."""
        c = self.candidate
        assert c.verdict is not None  # certify() passed it, so it holds a solvable verdict
        if "random_clear_rate" not in c.metrics:  # no target on it: measured for the kept level only
            self._clear_rate()
        # the order they are written in, whichever order the stages ran in
        first = [k for k in FIRST_METRICS if k in c.metrics]
        c.metrics = {k: c.metrics[k] for k in first} | {k: v for k, v in c.metrics.items() if k not in first}
        c.metrics["pairs"] = c.board.tile_count // 2  # the level's length, beside its difficulty
        return GeneratedLevel(self.index, self.seed, c.board, self.rules, c.metrics,
                              _certificate(c.verdict, self.nodes), c.verdict.solution, attempt,
                              None if c.difficulty is None else c.difficulty.players_json())

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
        self.attempt += 1
        if self.spec.generator.strategy == "constructive":
            built = construct(self.spec, self.rng)
            if built is None:
                self.tally.stuck += 1
                return "stuck"
            board, order = built
        elif self.steering is not None:
            board = self.steering.next_board(partial(deal, self.spec, self.rng), self.rng)
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
        """Measure ``random_clear_rate``, stopping early once it is settled outside its target.
        Without a target it cannot reject a candidate, and is only a metric of the level kept:
        :meth:`level` measures it then, once, instead of on every candidate (a ramp rejects
        about twenty a level)."""
        if "random_clear_rate" not in self.targets:
            return None
        return self._clear_rate()

    def _clear_rate(self) -> str | None:
        c, rate_range = self.candidate, self.targets.get("random_clear_rate")
        rate = clear_rate_within(c.play, self.rules, self.spec.difficulty.playthroughs, self.seed,
                                 rate_range.low if rate_range else None, rate_range.high if rate_range else None)
        if rate is None:
            self.tally.reject("random_clear_rate")
            return "random_clear_rate"
        c.metrics["random_clear_rate"] = rate
        c.metrics["random_clear_runs"] = self.spec.difficulty.playthroughs  # its error, for llkgen grade
        return None

    def replay_construction(self) -> str | None:
        """The construction claims its order clears the board; the referee decides. Raises
        :class:`InternalError` if it does not, else goes on (``None``): it never rejects. Only
        boards that passed the cheap filters are checked, since only those can be kept; it runs
        before the ladder, so that a faulty construction is caught whichever order the later
        stages take."""
        c = self.candidate
        if c.order is not None:
            check = replay(c.board, self.rules, c.order)
            if not (check.ok and check.cleared):
                raise InternalError(f"{self.where()}: the constructive order does not replay: {check.describe()}")
        return None

    def certify(self) -> str | None:
        """Verify; only a solvable verdict goes on. Raises :class:`InternalError` if the
        verifier calls a constructed board unsolvable."""
        c = self.candidate
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

    def screen(self) -> str | None:
        """With a score window: a coarse, sequential first measurement
        (:func:`llkgen.analysis.difficulty.screen`) on the attempt's own stream, which rejects
        the candidate once its score is settled outside the window and sends it on to the
        fresh measurement once it is settled inside (module docstring, "Aiming"). Its score
        steers the next candidate. It runs before certification in either stage order, so the
        steering, and the level, do not depend on it."""
        if not self.aims or self.window is None:
            return None
        g, c = self.spec.grading, self.candidate
        s = screen(c.play, self.rules, self.seed, (self.window.low, self.window.high),
                   stream=candidate_streams(self.attempt)[0], precision=g.precision, max_runs=g.max_runs,
                   band=AIMED_GUARD_SE * g.precision)
        if self.steering is not None:
            self.steering.record(c.board, s.difficulty.score)
        if s.inside:
            c.screened = True
            return None
        self.tally.reject("difficulty")
        if s.settled == Settled.OUTSIDE:
            self.tally.screened += 1
        else:  # a whole measurement: its score is one
            self.tally.scores.append(s.difficulty.score)
        return "difficulty"

    def ladder(self) -> str | None:
        """The player ladder's measurement (when the spec grades): the score with its error,
        the tier and the clear rates, which must meet the spec's targets on them. With such a
        target, a candidate that meets it is measured again on a fresh seed stream, and only
        the fresh numbers are kept, if they meet it too (see the module docstring). A screened
        candidate (:meth:`screen`) skips the first measurement: the screening was it."""
        if not self.spec.grading.enabled:
            return None
        if self.calibration is not None and "random_clear_rate" not in self.candidate.metrics:
            self._clear_rate()  # a feature of the prediction; with no target on it, it rejects nothing
        if self.candidate.screened:
            fresh_stream = candidate_streams(self.attempt)[1]
        else:
            first = self._measure(FIRST_STREAM)
            rejected = self._judge(first)
            if rejected or not self.graded:
                self._keep(first)
                return rejected
            fresh_stream = FRESH_STREAM
        # A screened candidate's fresh measurement stops early once it is settled outside the
        # guard band rather than the window: it can be kept only inside the band (``_judge``).
        # The stop rejects and never shortens a kept measurement; it conditions a kept score
        # on never having been settled outside the band by the predictive stop (PREDICTIVE_STOP
        # measures it: 0.02 to 0.03 points towards the window's centre, beside the guard's own
        # 0.4 to 0.9; tests/analysis/test_difficulty.py, the winner's curse).
        screened = self.candidate.screened
        window_guard = AIMED_GUARD_SE if screened else GUARD_SE
        band = window_guard * self.spec.grading.precision if screened else 0.0
        fresh = self._measure(fresh_stream, band, predictive=screened and PREDICTIVE_STOP)
        if self.steering is not None and self.candidate.screened and fresh.complete:
            self.steering.remeasured(self.candidate.board, fresh.score)
        rejected = self._judge(fresh, guard=GUARD_SE, window_guard=window_guard)
        if rejected:
            self.tally.fresh += 1
        self._keep(fresh)
        return rejected

    def _measure(self, stream: int, band: float = 0.0, predictive: bool = False) -> Difficulty:
        """The ladder's measurement on ``stream``, stopped early once settled outside the score
        window narrowed by ``band`` points on each side (by :func:`measure`'s ``predictive``
        stop if asked)."""
        g, window = self.spec.grading, self.window
        low = None if window is None or window.low is None else window.low + band
        high = None if window is None or window.high is None else window.high - band
        return measure(self.candidate.play, self.rules, self.seed, stream=stream, precision=g.precision,
                       max_runs=g.max_runs, rate_se=self.rate_se,
                       window=None if window is None else (low, high), predictive=predictive)

    def _keep(self, d: Difficulty) -> None:
        c = self.candidate
        c.difficulty = d
        c.metrics.update(d.metrics())
        p = self._predict(d)
        if p is not None:
            c.metrics["predicted_clear_rate"] = round(p.rate, 4)
            c.metrics["predicted_clear_rate_se"] = round(p.se, 4)

    def _predict(self, d: Difficulty) -> Prediction | None:
        """The calibration's prediction from ``d`` and the candidate's metrics, if there is one."""
        if self.calibration is None:
            return None
        c = self.candidate
        return self.calibration.predict(c.metrics | {"pairs": c.board.tile_count // 2}, d.players_json())

    def _judge(self, d: Difficulty, guard: float = 0.0, window_guard: float | None = None) -> str | None:
        """Why ``d`` misses a target (counted in the tally), or ``None``. With a ``guard``, a
        score or clear rate must lie that many of its standard errors inside its window; the
        score window by ``window_guard`` instead, if given (:data:`AIMED_GUARD_SE`)."""
        score_guard = guard if window_guard is None else window_guard
        if self.window is not None and not self.window.contains(d.score, score_guard * d.se):
            self.tally.reject("difficulty")
            if d.settled_outside:
                self.tally.settled += 1
            else:  # a whole measurement: its score is one (an early stop's is only a bound)
                self.tally.scores.append(d.score)
            return "difficulty"
        if self.tiers is not None and d.tier not in self.tiers:
            self.tally.reject("tier")
            return "tier"
        for key, r in self.targets.items():
            rate = d.rates[key.removeprefix("clear_rate.")] if key.startswith("clear_rate.") else None
            if rate is not None and not r.contains(rate.rate, guard * rate.se):
                self.tally.reject(key)
                return key
        predicted = self.targets.get(RAMP_PREDICTED)
        if predicted is not None:
            # The guard is in the measurement's error alone: a re-measurement moves only that
            # part; the fit's and the residual's are the same for every candidate.
            p = self._predict(d)
            if p is None or not predicted.contains(p.rate, guard * p.rate_measurement_se):
                self.tally.reject(RAMP_PREDICTED)
                return RAMP_PREDICTED
        return None


def generate_level(spec: Spec, index: int) -> GeneratedLevel:
    """Level ``index`` of the pack described by ``spec``: a function of ``(spec, index)`` only.

    Raises :class:`GenerationError` (an :class:`LlkgenError`) after
    ``spec.generator.max_attempts`` rejected candidates, saying why they were rejected."""
    run = _Attempts(spec, index)
    ladder_first = run.graded and GRADE_FIRST  # a ladder target: measure before paying for a certificate
    for attempt in range(1, spec.generator.max_attempts + 1):
        rejected = (run.build() or run.initial_moves() or run.clear_rate() or run.replay_construction()
                    or run.screen() or (ladder_first and run.ladder()) or run.certify() or run.verify_nodes()
                    or (not ladder_first and run.ladder()))
        if not rejected:
            return run.level(attempt)
    raise GenerationError(
        f"{spec.source}: level {index + 1} of {spec.count} (seed {run.seed}): no {spec.generator.strategy} "
        f"board was accepted in {spec.generator.max_attempts} attempts: {run.tally.explain(spec, index)}. "
        "Try widening the difficulty ranges, raising generator.max_attempts or verify.nodes"
        + (", or strategy: constructive" if spec.generator.strategy == "shuffle" else "")
    )

