"""A level's difficulty measured afresh, with its standard error: what ``llkgen grade``
reports, beside the values ``make`` stored in the level.

:func:`regrade` measures one level with the player ladder exactly as ``make`` does
(:func:`llkgen.analysis.difficulty.measure`, to the same default precision): the score with
its standard error, the tier, and every model's clear rate (the ``random`` model's is the
level's random clear rate, measured to the score's precision rather than over the few
playthroughs of make's filter).

Guarantees:

* **Seeded and reproducible.** Every random draw comes from :func:`audit_seed` ``(seed, key)``,
  where ``key`` is the level's id (its 0-based position in its pack when it has none): the same
  level and seed give the same numbers, in any process, at any ``--jobs``, wherever the level
  sits in its pack, and whether it is graded alone (``PACK.json#ID``) or with its pack.
* **Independent of make.** The seeds are derived under their own spawn key
  (:data:`AUDIT_KEY`), never from the seed stored in the level, so a re-measurement is an
  independent sample, not a replay of the one ``make`` took.
* **Limits are counts**, except ``deadline`` (a :func:`time.perf_counter` value): once it has
  passed, measuring stops between batches of playthroughs and the level reports what it got
  (``complete`` false, with the error it reached).

Drift: ``make`` stored its own measurement with its standard error (``difficulty_se``; packs
made before the ladder have none, and their score is another quantity: their drift is not
judged). :attr:`LevelAudit.drift` compares fresh and stored with the standard error of the
difference, ``hypot(fresh se, stored se)``; ``moved`` is a difference of more than
:data:`MOVED_SE` of those. The random clear rate's stored value came from
``metrics.random_clear_runs`` playthroughs of ``make`` (:data:`STORED_RUNS`, its default, for
levels that do not record it), whose error is estimated at the fresh rate.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field

import numpy as np

from llkgen.analysis.calibration import Calibration, Prediction
from llkgen.analysis.difficulty import MAX_RUNS, PRECISION, Difficulty, measure
from llkgen.analysis.estimate import Estimate, standard_error
from llkgen.analysis.ladder import Profile, profile
from llkgen.formats.level import Level
from llkgen.game.playout import Playout

#: The first spawn key of every seed :func:`audit_seed` derives: apart from ``make``'s levels
#: (spawn key ``(i,)``), its playthroughs and the gradings' (``1 << 20``) and the players'
#: (``2 << 20``).
AUDIT_KEY = 3 << 20

#: How many playthroughs a stored random clear rate is taken to come from when its level does
#: not say (``metrics.random_clear_runs``, written since that key was added): ``make``'s default.
STORED_RUNS = 32

#: A fresh value "moved" when it differs from the stored one by more than this many standard
#: errors of the difference.
MOVED_SE = 2.0


def audit_seed(seed: int, key: str) -> int:
    """The seed every measurement of one level draws from: ``SeedSequence(seed, spawn_key=
    (AUDIT_KEY, *sha256(key)))``, cut to 53 bits. ``key`` is the level's id, or its 0-based
    position as a string when it has none."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()
    words = tuple(int.from_bytes(digest[i:i + 4], "little") for i in range(0, 32, 4))
    state = np.random.SeedSequence(seed, spawn_key=(AUDIT_KEY, *words)).generate_state(1, np.uint64)
    return int(state[0]) >> 11


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
    the level's own values that are re-measured here (as the pack has them: ``difficulty``,
    ``difficulty_se``, ``random_clear_rate``, ``initial_moves`` and the ``tier``)."""

    label: str
    id: str | None
    index: int
    seed: int
    pairs: int
    initial_moves: int
    difficulty: Difficulty
    stored: dict = field(default_factory=dict)
    #: The players' clear rate a calibration predicts from the fresh clear rates and the
    #: level's stored metrics (``None`` without a calibration, or when the level lacks one).
    predicted: Prediction | None = None

    @property
    def complete(self) -> bool:
        return self.difficulty.complete

    @property
    def tier(self) -> str:
        return self.difficulty.tier

    @property
    def random_clear_rate(self) -> Estimate:
        return self.difficulty.rates["random"]

    @property
    def drift(self) -> dict[str, Drift]:
        """Fresh minus stored, for ``difficulty`` (when stored with its error) and
        ``random_clear_rate``."""
        out: dict[str, Drift] = {}
        rate = self.random_clear_rate
        old = self.stored.get("random_clear_rate")
        if isinstance(old, (int, float)):
            runs = self.stored.get("random_clear_runs")
            runs = runs if isinstance(runs, int) and not isinstance(runs, bool) and runs > 0 else STORED_RUNS
            out["random_clear_rate"] = Drift(rate.rate - old, math.hypot(rate.se, _make_rate_se(rate.rate, runs)))
        old, old_se = self.stored.get("difficulty"), self.stored.get("difficulty_se")
        if isinstance(old, (int, float)) and isinstance(old_se, (int, float)):
            out["difficulty"] = Drift(self.difficulty.score - old, math.hypot(self.difficulty.se, old_se))
        return out

    @property
    def moved(self) -> bool | None:
        """Whether the difficulty moved (:class:`Drift`); ``None`` when it cannot be told
        (no stored score with its error)."""
        d = self.drift.get("difficulty")
        return None if d is None else d.moved

    @property
    def profile(self) -> Profile:
        """The clear rates in the ladder's order of strength, and where they break it."""
        return profile({m: e.rate for m, e in self.difficulty.rates.items()})

    @property
    def tier_changed(self) -> bool | None:
        old = self.stored.get("tier")
        return None if not isinstance(old, str) else old != self.tier

    def to_json(self) -> dict:
        d = self.difficulty
        return {
            "label": self.label, "id": self.id, "index": self.index,
            "status": "measured" if self.complete else "partial",
            "seed": self.seed, "pairs": self.pairs, "initial_moves": self.initial_moves,
            "difficulty": {"value": round(d.score, 2), "se": round(d.se, 2), "runs": d.runs},
            "random_clear_rate": self.random_clear_rate.to_json(),
            "players": d.players_json(),
            "tier": self.tier,
            "profile": self.profile.to_json(),
            **({} if self.predicted is None else {"predicted_clear_rate": self.predicted.to_json()}),
            "stored": self.stored,
            "drift": {k: v.to_json() for k, v in self.drift.items()},
        }


def _make_rate_se(rate: float, runs: int) -> float:
    """The standard error a ``make`` measurement of the random clear rate over ``runs``
    playthroughs has, at ``rate``."""
    return standard_error(round(rate * runs), runs)


def regrade(level: Level, seed: int, *, precision: float = PRECISION, max_runs: int = MAX_RUNS,
            deadline: float | None = None, label: str | None = None, index: int = 0,
            calibration: Calibration | None = None) -> LevelAudit:
    """Measure ``level`` afresh (see the module docstring): a pure function of ``(level,
    seed, precision, max_runs)`` and of ``index`` for a level without an id, unless
    ``deadline`` stops it early. ``label`` names the level in reports (default: its id). With
    a ``calibration``, the audit carries its prediction from the fresh clear rates and the
    level's stored random clear rate, initial moves and length."""
    board, rules = level.board, level.rules
    key = level.id if level.id is not None else str(index)
    lseed = audit_seed(seed, key)
    play = Playout(board, rules)
    d = measure(play, rules, lseed, precision=precision, max_runs=max_runs, deadline=deadline)
    metrics = level.extra.get("metrics")
    stored = ({k: metrics[k] for k in ("difficulty", "difficulty_se", "random_clear_rate", "random_clear_runs",
                                       "initial_moves") if k in metrics} if isinstance(metrics, dict) else {})
    players = level.extra.get("players")
    if isinstance(players, dict) and isinstance(players.get("tier"), str):
        stored["tier"] = players["tier"]
    predicted = None
    if calibration is not None:
        known = {k: metrics[k] for k in ("random_clear_rate", "random_clear_runs") if isinstance(metrics, dict)
                 and k in metrics}
        predicted = calibration.predict(known | {"pairs": board.tile_count // 2, "initial_moves": len(play.links)},
                                        d.players_json())
    return LevelAudit(label=label if label is not None else key, id=level.id, index=index, seed=lseed,
                      pairs=board.tile_count // 2, initial_moves=len(play.links), difficulty=d, stored=stored,
                      predicted=predicted)
