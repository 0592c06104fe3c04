"""A level's metrics measured afresh, each with its standard error: what ``llkgen grade``
reports, beside the values ``make`` stored in the level.

:func:`regrade` measures one level:

* ``random_clear_rate``: :func:`llkgen.analysis.players.clear_rate` of the ``random`` model
  (the uniform player of :func:`llkgen.analysis.metrics.random_clear_rate`), in batches of 32
  playthroughs until its standard error is at most ``target_se`` (at most 1,024 runs);
* the player ladder: every model of :data:`llkgen.analysis.players.MODELS` the same way, and
  the :func:`~llkgen.analysis.players.tier` they give;
* the graded metrics and the ``difficulty`` score: ``gradings`` independent gradings
  (:func:`llkgen.analysis.grading.grade`, :data:`~llkgen.analysis.grading.PLAYTHROUGHS`
  playthroughs and :data:`~llkgen.analysis.grading.GRADE_NODES` nodes each, as ``make``
  grades by default), each scored by :func:`~llkgen.analysis.grading.difficulty_score` with
  the fresh random clear rate. A metric's value is the mean over the gradings and its
  standard error ``sd / sqrt(K)``; the score's adds the random clear rate's share in
  quadrature, ``35 x se(random_clear_rate)`` (its weight in the score), since every grading
  is scored with the same rate.

Guarantees:

* **Seeded and reproducible.** Every random draw comes from :func:`audit_seed` ``(seed, key)``,
  where ``key`` is the level's id (its 0-based position in its pack when it has none): the same
  level and seed give the same numbers, in any process, at any ``--jobs``, wherever the level
  sits in its pack, and whether it is graded alone (``PACK.json#ID``) or with its pack.
* **Independent of make.** The seeds are derived under their own spawn key
  (:data:`AUDIT_KEY`), never from the seed stored in the level, so a re-measurement is an
  independent sample, not a replay of the one ``make`` took.
* **Limits are counts**, except ``deadline`` (a :func:`time.perf_counter` value): once it has
  passed, measuring stops between batches of playthroughs and between gradings, and the level
  reports what it got (``complete`` false; a standard error needs two gradings, else it is
  ``None``). A grading already running is not interrupted; the caller's executor stops it.

Drift: the stored values were measured once, by ``make`` (32 random playthroughs, one grading),
so they carry an error of their own. :attr:`LevelAudit.drift` compares fresh and stored with
the standard error of the *difference*: the fresh error and the one a ``make`` measurement
has, estimated from the fresh data (``se`` of a 32-run rate at the fresh rate; for the score,
one grading's sd and 35 times that rate error). ``moved`` is a difference of more than
:data:`MOVED_SE` of those.
"""

from __future__ import annotations

import hashlib
import math
import statistics
import time
from dataclasses import dataclass, field

import numpy as np

from llkgen.analysis.grading import GRADE_NODES, PLAYTHROUGHS, WEIGHTS, Grade, difficulty_score, grade
from llkgen.analysis.players import MODELS, Estimate, clear_rate, clear_rates, standard_error, tier
from llkgen.formats.level import Level
from llkgen.game.playout import Playout
from llkgen.game.referee import replay

#: The first spawn key of every seed :func:`audit_seed` derives: apart from ``make``'s levels
#: (spawn key ``(i,)``), its playthroughs and the gradings' (``1 << 20``) and the players'
#: (``2 << 20``).
AUDIT_KEY = 3 << 20

#: Gradings per level by default, and the fewest the command accepts: four give an error
#: estimate worth reading.
GRADINGS = 4

#: The standard error the random clear rate (and each model of the ladder) is measured to by
#: default, and the most runs any of them gets.
TARGET_SE = 0.03
MAX_RUNS = 1024
#: Playthroughs per batch: make's count, so the first batch is the size of its measurement.
BATCH = 32

#: The graded metrics, in the order ``make`` writes them.
GRADED = ("fatal_share", "trap_steps", "choices", "link_turns", "unknown_share")

#: How ``make`` measured what it stored (its defaults): the random clear rate over this many
#: playthroughs, and one grading.
STORED_RUNS = 32

#: A fresh value "moved" when it differs from the stored one by more than this many standard
#: errors of the difference.
MOVED_SE = 2.0

#: The weight of the random clear rate in the score (points per unit of rate).
RATE_WEIGHT = dict(WEIGHTS)["random_clear_rate"]


def audit_seed(seed: int, key: str) -> int:
    """The seed every measurement of one level draws from: ``SeedSequence(seed, spawn_key=
    (AUDIT_KEY, *sha256(key)))``, cut to 53 bits. ``key`` is the level's id, or its 0-based
    position as a string when it has none."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()
    words = tuple(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 32, 4))
    state = np.random.SeedSequence(seed, spawn_key=(AUDIT_KEY, *words)).generate_state(1, np.uint64)
    return int(state[0]) >> 11


def grading_seed(level_seed: int, j: int) -> int:
    """The seed of grading ``j`` of a level whose :func:`audit_seed` is ``level_seed``."""
    state = np.random.SeedSequence(level_seed, spawn_key=(AUDIT_KEY, j)).generate_state(1, np.uint64)
    return int(state[0]) >> 11


@dataclass(frozen=True)
class Mean:
    """The mean of ``samples`` independent measurements, with its standard error (``None``
    with fewer than two samples)."""

    value: float
    se: float | None
    samples: int

    @classmethod
    def of(cls, xs: list[float], extra_se: float = 0.0) -> "Mean | None":
        """The mean of ``xs`` (``None`` for none), its error ``sd / sqrt(n)`` plus ``extra_se``
        in quadrature."""
        if not xs:
            return None
        se = None if len(xs) < 2 else math.sqrt(statistics.variance(xs) / len(xs) + extra_se ** 2)
        return cls(statistics.fmean(xs), se, len(xs))

    def to_json(self) -> dict:
        return {"value": round(self.value, 4), "se": None if self.se is None else round(self.se, 4),
                "samples": self.samples}


@dataclass(frozen=True)
class Drift:
    """A fresh value minus the stored one, the standard error of that difference (``None`` if
    unknown), and whether it is more than :data:`MOVED_SE` of them."""

    value: float
    se: float | None

    @property
    def moved(self) -> bool:
        return self.se is not None and abs(self.value) > MOVED_SE * self.se

    def to_json(self) -> dict:
        return {"value": round(self.value, 4), "se": None if self.se is None else round(self.se, 4),
                "moved": self.moved}


@dataclass(frozen=True)
class LevelAudit:
    """One level measured afresh by :func:`regrade` (see the module docstring). ``stored`` are
    the level's own ``metrics`` that are re-measured here (as the pack has them);
    ``complete`` is false when a deadline cut a measurement short."""

    label: str
    id: str | None
    index: int
    seed: int
    pairs: int
    initial_moves: int
    random_clear_rate: Estimate
    players: dict[str, Estimate]
    tier: str
    gradings: int
    graded: dict[str, Mean] = field(default_factory=dict)
    difficulty: Mean | None = None
    #: The sample standard deviation of the gradings' scores (``None`` with fewer than two).
    score_sd: float | None = None
    stalled: int = 0
    stored: dict = field(default_factory=dict)
    complete: bool = True

    @property
    def drift(self) -> dict[str, Drift]:
        """Fresh minus stored, for ``difficulty`` and ``random_clear_rate`` (those stored)."""
        out: dict[str, Drift] = {}
        rate = self.random_clear_rate
        make_rate_se = _make_rate_se(rate.rate)
        old = self.stored.get("random_clear_rate")
        if isinstance(old, (int, float)):
            out["random_clear_rate"] = Drift(rate.rate - old, math.hypot(rate.se, make_rate_se))
        old = self.stored.get("difficulty")
        d = self.difficulty
        if isinstance(old, (int, float)) and d is not None:
            se = None
            if d.se is not None and self.score_sd is not None:
                # make graded once: one grading's sd, and the error of its 32-run rate.
                se = math.hypot(d.se, self.score_sd, RATE_WEIGHT * make_rate_se)
            out["difficulty"] = Drift(d.value - old, se)
        return out

    @property
    def moved(self) -> bool | None:
        """Whether the difficulty moved (:class:`Drift`); ``None`` when it cannot be told."""
        d = self.drift.get("difficulty")
        return None if d is None or d.se is None else d.moved

    def to_json(self) -> dict:
        return {
            "label": self.label, "id": self.id, "index": self.index,
            "status": "measured" if self.complete else "partial",
            "seed": self.seed, "pairs": self.pairs, "initial_moves": self.initial_moves,
            "difficulty": None if self.difficulty is None else self.difficulty.to_json(),
            "random_clear_rate": self.random_clear_rate.to_json(),
            "graded": {k: m.to_json() for k, m in self.graded.items()},
            "gradings": {"done": self.difficulty.samples if self.difficulty else 0, "wanted": self.gradings,
                         "playthroughs": PLAYTHROUGHS, "nodes": GRADE_NODES, "stalled": self.stalled},
            "players": {m: e.to_json() for m, e in self.players.items()},
            "tier": self.tier,
            "stored": self.stored,
            "drift": {k: d.to_json() for k, d in self.drift.items()},
        }


def _make_rate_se(rate: float) -> float:
    """The standard error a ``make`` measurement of the random clear rate has, at ``rate``."""
    return standard_error(round(rate * STORED_RUNS), STORED_RUNS)


def _witness(level: Level) -> list | None:
    """The level's stored solution as a removal order, if the referee replays it to a cleared
    board (a grading starts with its pairs known safe); else ``None``: nothing stored is
    believed."""
    moves = level.solution
    if not isinstance(moves, list):
        return None
    try:
        done = replay(level.board, level.rules, moves)
    except (ValueError, TypeError, IndexError):
        return None
    if not (done.ok and done.cleared):
        return None
    return [((m[0][0], m[0][1]), (m[1][0], m[1][1])) for m in moves]


def regrade(level: Level, seed: int, *, target_se: float = TARGET_SE, gradings: int = GRADINGS,
            deadline: float | None = None, label: str | None = None, index: int = 0) -> LevelAudit:
    """Measure ``level`` afresh (see the module docstring): a pure function of ``(level,
    seed, target_se, gradings)`` and of ``index`` for a level without an id, unless
    ``deadline`` stops it early. ``label`` names the level in reports (default: its id)."""
    if type(gradings) is not int or gradings < 1:
        raise ValueError(f"gradings: expected an integer >= 1, found {gradings!r}")
    board, rules = level.board, level.rules
    key = level.id if level.id is not None else str(index)
    lseed = audit_seed(seed, key)
    play = Playout(board, rules)
    rate = clear_rate("random", play, rules, lseed, target_se=target_se, min_runs=BATCH, max_runs=MAX_RUNS,
                      deadline=deadline)
    ladder = {"random": rate, **clear_rates(play, rules, lseed, target_se=target_se, min_runs=BATCH,
                                            max_runs=MAX_RUNS, deadline=deadline, models=MODELS[1:])}
    complete = all(e.se <= target_se or e.runs >= MAX_RUNS for e in ladder.values())
    pairs = board.tile_count // 2
    witness = _witness(level)
    grades: list[Grade] = []
    scores: list[float] = []
    took = 0.0
    for j in range(gradings):
        # Between gradings: none starts past the deadline, nor one the last took longer than is left.
        if deadline is not None and time.perf_counter() + took > deadline:
            complete = False
            break
        started = time.perf_counter()
        g = grade(board, rules, playthroughs=PLAYTHROUGHS, nodes=GRADE_NODES, seed=grading_seed(lseed, j),
                  witness=witness)
        took = time.perf_counter() - started
        grades.append(g)
        scores.append(difficulty_score({**g.metrics(), "random_clear_rate": rate.rate}, pairs))
    graded = {k: m for k in GRADED if (m := Mean.of([g.metrics()[k] for g in grades])) is not None}
    metrics = level.extra.get("metrics")
    stored = ({k: metrics[k] for k in ("difficulty", "random_clear_rate", "initial_moves", *GRADED) if k in metrics}
              if isinstance(metrics, dict) else {})
    return LevelAudit(
        label=label if label is not None else key, id=level.id, index=index, seed=lseed, pairs=pairs,
        initial_moves=len(play.links), random_clear_rate=rate, players=ladder, tier=tier(ladder),
        gradings=gradings, graded=graded, difficulty=Mean.of(scores, RATE_WEIGHT * rate.se),
        score_sd=statistics.stdev(scores) if len(scores) > 1 else None,
        stalled=sum(g.stalled for g in grades), stored=stored, complete=complete)
