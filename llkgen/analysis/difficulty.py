"""A level's difficulty, measured by the player ladder with a known error.

The ladder (:data:`llkgen.analysis.players.MODELS`, weak to strong) plays the level; each
model's clear rate is an :class:`~llkgen.analysis.players.Estimate` with its standard error.
From those rates:

* ``score``: 100 x the mean fail rate of the five models, 0 (every model always clears it)
  to 100 (none ever does). Its standard error is ``100 / n x sqrt(sum se_i^2)``: the models'
  runs draw from disjoint seed streams, so their errors are independent.
* ``tier``: the weakest model whose clear rate is at least :data:`RELIABLY`, or ``hint`` when
  none is (:func:`llkgen.analysis.players.tier`).

Why this score and not the exact grading it replaced: measured on the shipped specs
(``scripts/player_ladder.py``, in the repository's history), the graded parts (fatal share, trap steps,
choices, link turns) added no signal once the random clear rate was known, re-measured with
an sd of 2.4 to 3.9 points, and cost most of ``make``'s time; the mean fail rate re-measured
with a median sd of 0.4 to 1.5 points and ordered held-out levels like the careful and nearest
players best of the candidates tried. Length (``pairs``) is reported beside the score, not
inside it.

How many runs: each model starts with one batch of :data:`BATCH` playthroughs; then, while the
score's standard error is above ``precision``, one more batch goes to the model whose next
batch cuts the variance most (its ``se^2 x BATCH / (runs + BATCH)``; ties to the weaker
model), up to ``max_runs`` per model. The choice uses counts only, never time, so the runs a
measurement takes -- and its result -- are a pure function of its arguments.

Early stop: given a ``window`` (an inclusive score range), the measurement stops as soon as
the score lies more than :data:`SETTLED_SE` standard errors outside it: such a level is
rejected whatever more runs would say, so they are not paid for. The result then says
``settled_outside``.

Seeds: run ``k`` of ``model`` on ``stream`` draws from ``PlayRng(model_base(seed, stream,
model), k)`` (:func:`llkgen.analysis.players.run_rng`): different ``stream`` values are
independent re-measurements of the same level; ``make`` measures on :data:`FIRST_STREAM` and,
when the level must lie in a window, re-measures on :data:`FRESH_STREAM` before keeping it.
The runs are played in C where that is built, with the same numbers
(:func:`llkgen.analysis.players.playthroughs`).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from enum import StrEnum

from llkgen.analysis.estimate import Estimate
from llkgen.analysis.ladder import BATCH, MODELS, RELIABLY, TIERS
from llkgen.analysis.players import playthroughs, tier
from llkgen.game.board import Board, Rules
from llkgen.game.playout import Playout

#: Default target standard error of the score, in points.
PRECISION = 1.5
#: Default most playthroughs per model.
MAX_RUNS = 1024
#: A score more than this many standard errors outside its window is settled outside it. This
#: only ends the measurement of a candidate early: a level never keeps a measurement that was
#: stopped so. The test is repeated after every batch, so it rejects more candidates that are
#: truly just inside the window than a single test at 2 se would (2.3%): 18 of 300 seeds (6%)
#: for a board whose true score sits 0.07 points inside its window, and 7-15% in a simulation
#: of boards at the window's edge; those candidates cost attempts, never a wrong number.
SETTLED_SE = 2.0
#: Whether ``make`` settles the fresh measurement of a screened candidate by :func:`measure`'s
#: ``predictive`` stop. What it costs, by ``python scripts/fresh_stop_sim.py`` (a measurement
#: modelled as a running mean looked at every 32 playthroughs from 160 to the 832 that reach an
#: se of 1.5; kept 1 se inside a window of +-5; 200,000 paths a true score): of levels whose
#: true score is the window's centre it keeps 96.9% (97.7% with the plain stop at 2 se, 98.0%
#: with none); 2 points from the centre, 82.0% (83.5%, 84.1%). What it conditions a kept score
#: on pulls it towards the centre by 0.02 to 0.03 points more than no stop at all (2 points
#: out: 0.46 against 0.43; 3 points: 0.93 against 0.90), beside the 0.4 to 0.9 that keeping
#: only scores inside the band already does. It shortens the measurements near an edge, most of
#: which are rejected: 4.5 points out, 616 playthroughs on average against 737. On the shipped
#: ramp (``benchmarks/ramp_bench.py``, 288 levels, with :data:`SCREEN_PRECISION`): 2.59 full
#: measurements a kept level against 2.68 with the plain stop.
PREDICTIVE_STOP = True
#: The stream ``make`` measures on first, and the fresh one it re-measures on.
FIRST_STREAM = 0
FRESH_STREAM = 1

#: A screening (:func:`screen`) settles a candidate once its score lies this many standard
#: errors outside its window, or inside it. One, not :data:`SETTLED_SE`'s two: a screening
#: decides only which candidate is measured again, never a number a level keeps, so a wrong
#: call costs a candidate (or a fresh measurement), not a biased level.
SCREEN_SE = 1.0
#: The screening's batches, per model: the first round plays every model this many times, and
#: each later batch is this many runs of one model. Two, not :data:`BATCH`'s 32: a ramp's
#: candidates mostly lie tens of points from their window (on the shipped ramp's board, 150
#: deals scored from 0 to 100, median 28), and ten playthroughs settle those; the looks after
#: each small batch stop the rest as soon as they can. Chosen on the shipped ramp (36 to 72
#: levels of 3 to 6 pack seeds, ladder playthroughs per kept level in full measurements):
#: batches of 8, 3.4; of 4, 2.7 to 3.2; of 2, 2.5 to 2.6 (``benchmarks/ramp_bench.py``
#: measures the method as shipped). Judging only when the runs had grown by half, or doubled,
#: instead of after every batch cost more (3.2 and 3.6 against 2.5): the looks are what stop
#: a candidate early.
SCREEN_BATCH = 2
#: A screening measures no finer than this standard error (or the caller's ``precision``, if
#: coarser): once there and still unsettled, it is judged as it stands against the window
#: narrowed by the fresh measurement's guard band (:func:`screen`'s ``band``). Such a
#: candidate lies near an edge of the window; measuring it on to the spec's 1.5 cost about as
#: much as the fresh measurement that must judge it anyway, and judging it against the whole
#: window sent on candidates the fresh measurement then rejected. Measured on the shipped ramp
#: (``benchmarks/ramp_bench.py``'s method, ladder playthroughs per kept level in full
#: measurements, each figure +-0.09 to 0.15): with :data:`PREDICTIVE_STOP`, 2.59 capped at 3
#: and 2.58 at 2.5 (288 levels); without it, 2.68 at 3 and 2.71 uncapped (288), and on 144
#: other levels 2.71 at 3, 2.89 at 4, 2.76 at 3 judged against the whole window, 3.06 uncapped.
#: The cap itself is a flat choice; with the predictive stop it saved 0.12 and 0.38 on two
#: draws of 24 pack seeds (2.71 to 2.59, 2.99 to 2.61).
SCREEN_PRECISION = 3.0


def score_of(rates: dict[str, Estimate]) -> tuple[float, float]:
    """``(score, se)`` of a full set of model estimates: 100 x the mean fail rate, and its
    standard error from the models' independent errors."""
    n = len(MODELS)
    fail = sum(1.0 - rates[m].rate for m in MODELS) / n
    se = math.sqrt(sum(rates[m].se ** 2 for m in MODELS)) / n
    return 100.0 * fail, 100.0 * se


@dataclass(frozen=True)
class Difficulty:
    """One measurement of a level by the whole ladder (see the module docstring). ``rates``
    holds every model of :data:`MODELS`; ``score`` and ``se`` are in points; ``complete`` is
    false when a deadline or an early stop ended it while some model still needed runs (and
    ``settled_outside`` says it was the early stop); it is true when the precision was
    reached, or every model that needed runs reached ``max_runs``. A measurement settled
    outside during the first round counts the models that had not played yet as failing
    every time: its ``score`` is a bound, not a measurement of the level."""

    rates: dict[str, Estimate]
    score: float
    se: float
    tier: str
    stream: int
    complete: bool = True
    settled_outside: bool = False

    @property
    def runs(self) -> int:
        return sum(e.runs for e in self.rates.values())

    def rate(self, model: str) -> float:
        return self.rates[model].rate

    def metrics(self) -> dict:
        """The numbers a level's ``metrics`` store: the score and its standard error."""
        return {"difficulty": round(self.score, 2), "difficulty_se": round(self.se, 2)}

    def players_json(self) -> dict:
        """A level's ``players`` object: the tier, every model's clear rate, and the stream."""
        return {"tier": self.tier, "clear_rates": {m: self.rates[m].to_json() for m in MODELS},
                "stream": self.stream}


def check_precision(precision: float, max_runs: int) -> None:
    if not (isinstance(precision, (int, float)) and not isinstance(precision, bool) and precision > 0):
        raise ValueError(f"precision: expected a number > 0, found {precision!r}")
    if type(max_runs) is not int or max_runs < BATCH:
        raise ValueError(f"max_runs: expected an integer >= {BATCH}, found {max_runs!r}")


def _settled_outside(score: float, spread: float, window: tuple[float | None, float | None] | None) -> bool:
    """Whether ``score`` lies more than :data:`SETTLED_SE` times ``spread`` outside ``window``."""
    if window is None:
        return False
    low, high = window
    margin = SETTLED_SE * spread
    return (low is not None and score + margin < low) or (high is not None and score - margin > high)


class _Runs:
    """The playthroughs of each model played so far on one board and stream: ``runs`` of them,
    ``cleared`` cleared. :meth:`play` plays the next ones, so runs ``0 .. runs - 1`` of a model
    are always the ones played, whatever the batches were."""

    def __init__(self, board: Board | Playout, rules: Rules, seed: int, stream: int, max_runs: int):
        self.start = board if isinstance(board, Playout) else Playout(board, rules)
        self.seed, self.stream, self.max_runs = seed, stream, max_runs
        self.runs = dict.fromkeys(MODELS, 0)
        self.cleared = dict.fromkeys(MODELS, 0)

    def play(self, model: str, size: int) -> None:
        """``size`` more playthroughs of ``model``, at most up to ``max_runs``."""
        k0 = self.runs[model]
        k1 = min(k0 + size, self.max_runs)
        self.cleared[model] += playthroughs(model, self.start, self.seed, self.stream, k0, k1)
        self.runs[model] = k1


class Settled(StrEnum):
    """How a :func:`screen` ended."""

    #: The score lies more than :data:`SCREEN_SE` standard errors outside the window.
    OUTSIDE = "outside"
    #: The score lies at least :data:`SCREEN_SE` standard errors inside the window.
    INSIDE = "inside"
    #: Neither before the screening's precision (:data:`SCREEN_PRECISION`, or ``max_runs``) was
    #: reached: judged as it stands against the window narrowed by the guard band.
    MEASURED = "measured"


@dataclass(frozen=True)
class Screening:
    """A :func:`screen` of one candidate: how it ended and the measurement so far (whole when
    ``settled`` is :attr:`Settled.MEASURED` -- to the screening's precision, not the spec's --
    else stopped early: ``complete`` false)."""

    settled: Settled
    difficulty: Difficulty
    #: A whole screening's score lies inside the window narrowed by the guard band.
    within: bool = False

    @property
    def inside(self) -> bool:
        """Whether the candidate goes on to be measured precisely: settled inside, or measured
        whole and inside the window narrowed by the guard band."""
        return self.settled == Settled.INSIDE or (self.settled == Settled.MEASURED and self.within)


def screening_se(cleared: dict[str, int], runs: dict[str, int]) -> float:
    """The score's standard error as a screening judges it: each model's Agresti-Coull centre
    ``p~ = (cleared + 2) / (runs + 4)``, but its variance over the ``runs`` actually played,
    ``p~ (1 - p~) / runs``. :class:`Estimate`'s ``runs + 4`` is honest from 32 runs (the
    scatter of re-measurements matches it, docs/difficulty.md) but not at a screening's 2 or 4:
    at a rate of 0.5 it gives 0.18 for 4 runs where the true sd is 0.25, and a screening judged
    by it threw out 42% of boards whose true score sat at the centre of a 10-point window (30
    boards of the shipped ramp, 20 screenings each, in batches of 4); by this one, 30%."""
    var = 0.0
    for m in MODELS:
        p = (cleared[m] + 2) / (runs[m] + 4)
        var += p * (1 - p) / runs[m]
    return 100.0 * math.sqrt(var) / len(MODELS)


def screen(board: Board | Playout, rules: Rules, seed: int, window: tuple[float | None, float | None], *,
           stream: int = FIRST_STREAM, precision: float = PRECISION, max_runs: int = MAX_RUNS,
           band: float = 0.0) -> Screening:
    """A coarse, sequential measurement of ``board``'s score against ``window``, to decide
    whether a candidate is worth a precise one.

    Every model plays :data:`SCREEN_BATCH` runs first (so the score is judged on all five
    models from the start: an unplayed model is not counted as failing anywhere from 0 to 100%),
    then batches of :data:`SCREEN_BATCH` go, one at a time, to the model whose batch cuts the
    score's variance most (as :func:`measure` does). After every batch the score is
    :attr:`Settled.OUTSIDE` when it lies more than :data:`SCREEN_SE` standard errors outside
    the window, :attr:`Settled.INSIDE` when it lies that far inside, and once its standard
    error reaches :data:`SCREEN_PRECISION` (or ``precision`` if coarser, or the models reach
    ``max_runs``) it is :attr:`Settled.MEASURED`, judged inside only if its score lies inside
    the window narrowed by ``band`` points on each side: the guard band the fresh measurement
    must land inside to be kept (:data:`llkgen.generation.generator.AIMED_GUARD_SE`).

    Why stopping early cannot bias a kept level: the screening's runs are on ``stream``, and a
    level ``make`` keeps is measured again, whole, on a stream of its own
    (:mod:`llkgen.generation.generator`); the kept numbers are those. The screening's repeated
    looks do reject more candidates whose true score is near the window's edge, and pass some
    that lie just outside it -- both only move cost (``tests/generation/test_screening.py`` holds it).
    The runs are the same numbers :func:`measure` plays on ``stream``: the screening's
    ``rates`` are :func:`measure`'s at the same run counts."""
    check_precision(precision, max_runs)
    low, high = window
    played = _Runs(board, rules, seed, stream, max_runs)
    runs, cleared = played.runs, played.cleared

    def batch(model: str) -> None:
        played.play(model, SCREEN_BATCH)

    for m in MODELS:
        batch(m)
    while True:
        rates = {m: Estimate.of(cleared[m], runs[m]) for m in MODELS}
        score, se = score_of(rates)
        needy = [m for m in MODELS if runs[m] < max_runs] if se > max(precision, SCREEN_PRECISION) else []
        margin = SCREEN_SE * screening_se(cleared, runs)
        settled = None
        if (low is not None and score + margin < low) or (high is not None and score - margin > high):
            settled = Settled.OUTSIDE
        elif (low is None or score - margin >= low) and (high is None or score + margin <= high):
            settled = Settled.INSIDE
        if settled is not None:
            return Screening(settled, Difficulty(rates, score, se, tier(rates, RELIABLY), stream,
                                                 complete=not needy, settled_outside=settled == Settled.OUTSIDE))
        if not needy:
            within = (low is None or score >= low + band) and (high is None or score <= high - band)
            return Screening(Settled.MEASURED, Difficulty(rates, score, se, tier(rates, RELIABLY), stream),
                             within=within)
        batch(max(needy, key=lambda m: rates[m].se ** 2 * SCREEN_BATCH / (runs[m] + SCREEN_BATCH)))


def measure(board: Board | Playout, rules: Rules, seed: int, *, stream: int = FIRST_STREAM,
            precision: float = PRECISION, max_runs: int = MAX_RUNS,
            rate_se: dict[str, float] | None = None,
            window: tuple[float | None, float | None] | None = None,
            deadline: float | None = None, predictive: bool = False) -> Difficulty:
    """The ladder's measurement of ``board`` (or a Playout of it, not changed) to a score
    standard error of at most ``precision`` points and, for each model in ``rate_se``, a clear
    rate standard error of at most its value -- or until the models that still need runs have
    ``max_runs``, the score is settled outside ``window``, or ``time.perf_counter()`` passes
    ``deadline`` (checked between batches; every model gets its first batch).

    Settled outside means :data:`SETTLED_SE` standard errors outside; ``predictive`` settles it
    by where the measurement can still end instead: :data:`SETTLED_SE` times ``sqrt(se^2 -
    precision^2)`` outside, the spread of the final score around the current one when the
    measurement runs on to ``precision`` (with a flat prior on the level's true score: the
    final score is the current one averaged with runs still to come, and its variance is the
    current ``se^2`` less the final ``precision^2``). Early on the two are alike; near the end
    the predictive margin shrinks to nothing, so a measurement that is about to end outside
    stops rather than pays for its last batches. :data:`PREDICTIVE_STOP` says what it costs a
    kept score."""
    check_precision(precision, max_runs)
    rate_se = dict(rate_se or {})
    for m, bound in rate_se.items():
        if m not in MODELS or not bound > 0:
            raise ValueError(f"rate_se: expected {{model: se > 0}} over {', '.join(MODELS)}, "
                             f"found {m!r}: {bound!r}")
    played = _Runs(board, rules, seed, stream, max_runs)
    runs, cleared = played.runs, played.cleared

    def batch(model: str) -> None:
        played.play(model, BATCH)

    for i, m in enumerate(MODELS):
        batch(m)
        # Settled outside the window before the other models play? Each of them can add a
        # fail rate of 0 to 1; stopping here only saves runs on a level that will be rejected.
        if window is not None and i + 1 < len(MODELS):
            part = {x: Estimate.of(cleared[x], runs[x]) for x in MODELS[:i + 1]}
            known = sum(1.0 - e.rate for e in part.values())
            margin = SETTLED_SE * math.sqrt(sum(e.se ** 2 for e in part.values()))
            low = 100.0 * (known - margin) / len(MODELS)
            high = 100.0 * (known + margin + len(MODELS) - i - 1) / len(MODELS)
            if (window[0] is not None and high < window[0]) or (window[1] is not None and low > window[1]):
                rates = {x: Estimate.of(cleared[x], runs[x]) for x in MODELS}
                score, se = score_of(rates)
                return Difficulty(rates, score, se, tier(rates, RELIABLY), stream, complete=False,
                                  settled_outside=True)
    while True:
        rates = {m: Estimate.of(cleared[m], runs[m]) for m in MODELS}
        score, se = score_of(rates)
        spread = math.sqrt(max(se * se - precision * precision, 0.0)) if predictive else se
        settled = _settled_outside(score, spread, window)
        out_of_time = deadline is not None and time.perf_counter() > deadline
        if se > precision:
            needy = [m for m in MODELS if runs[m] < max_runs]
        else:
            needy = [m for m in MODELS if m in rate_se and rates[m].se > rate_se[m] and runs[m] < max_runs]
        if not needy or settled or out_of_time:
            return Difficulty(rates, score, se, tier(rates, RELIABLY), stream,
                              complete=not needy, settled_outside=settled)
        # The next batch where it cuts the variance most; max() keeps the first (weakest) on ties.
        batch(max(needy, key=lambda m: rates[m].se ** 2 * BATCH / (runs[m] + BATCH)))


__all__ = ["PRECISION", "MAX_RUNS", "BATCH", "RELIABLY", "SETTLED_SE", "FIRST_STREAM", "FRESH_STREAM", "TIERS",
           "SCREEN_SE", "SCREEN_BATCH", "SCREEN_PRECISION", "PREDICTIVE_STOP",
           "Difficulty", "Settled", "Screening", "score_of", "measure", "screen",
           "check_precision"]
