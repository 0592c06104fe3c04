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
#: The stream ``make`` measures on first, and the fresh one it re-measures on.
FIRST_STREAM = 0
FRESH_STREAM = 1


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


def _settled_outside(score: float, se: float, window: tuple[float | None, float | None] | None) -> bool:
    if window is None:
        return False
    low, high = window
    margin = SETTLED_SE * se
    return (low is not None and score + margin < low) or (high is not None and score - margin > high)


def measure(board: Board | Playout, rules: Rules, seed: int, *, stream: int = FIRST_STREAM,
            precision: float = PRECISION, max_runs: int = MAX_RUNS,
            rate_se: dict[str, float] | None = None,
            window: tuple[float | None, float | None] | None = None,
            deadline: float | None = None) -> Difficulty:
    """The ladder's measurement of ``board`` (or a Playout of it, not changed) to a score
    standard error of at most ``precision`` points and, for each model in ``rate_se``, a clear
    rate standard error of at most its value -- or until the models that still need runs have
    ``max_runs``, the score is settled outside ``window``, or ``time.perf_counter()`` passes
    ``deadline`` (checked between batches; every model gets its first batch)."""
    check_precision(precision, max_runs)
    rate_se = dict(rate_se or {})
    for m, bound in rate_se.items():
        if m not in MODELS or not bound > 0:
            raise ValueError(f"rate_se: expected {{model: se > 0}} over {', '.join(MODELS)}, "
                             f"found {m!r}: {bound!r}")
    start = board if isinstance(board, Playout) else Playout(board, rules)
    runs = dict.fromkeys(MODELS, 0)
    cleared = dict.fromkeys(MODELS, 0)

    def batch(model: str) -> None:
        k0 = runs[model]
        k1 = min(k0 + BATCH, max_runs)
        cleared[model] += playthroughs(model, start, seed, stream, k0, k1)
        runs[model] = k1

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
        settled = _settled_outside(score, se, window)
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
           "Difficulty", "score_of", "measure", "check_precision"]
