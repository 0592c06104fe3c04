"""The spec's difficulty targets and how precisely they are measured: the ``difficulty``,
``grading`` and ``ramp`` sections of a spec, checked into their values
(:mod:`llkgen.generation.spec_model`), and the rule that a target window is no tighter than
its measurement can resolve (:func:`check_measurable`)."""

from __future__ import annotations

import math
from typing import Any

from llkgen.analysis.calibration import Calibration, load_calibration
from llkgen.analysis.ladder import BATCH, MODELS, TIERS
from llkgen.errors import LlkgenError
from llkgen.generation.checker import Checker, check_range
from llkgen.generation.spec_model import (
    METRICS,
    RAMP_PREDICTED,
    RAMP_SCORE,
    RAMP_TIER,
    DifficultySpec,
    GradingSpec,
    MetricRange,
    RampSpec,
    asks_ladder,
)
from llkgen.generation.strictyaml import KeyPath, ListIndex

MAX_PLAYTHROUGHS = 100_000
#: The finest precisions a spec may ask for (the score's in points, a clear rate's), and the
#: most playthroughs per model.
MIN_PRECISION = 0.25
MIN_RATE_PRECISION = 0.005
MAX_RUNS_LIMIT = 1 << 20
#: A target window's half-width must be at least this many standard errors of its measurement.
WINDOW_SE = 2.0


def _check_tiers(ck: Checker, m: dict, path: KeyPath) -> tuple[str, ...] | None:
    """``tier``: one tier name, or a list of them (any of which is accepted)."""
    raw = m.get("tier")
    if raw is None:
        return None
    values = raw if isinstance(raw, list) else [raw]
    if not values:
        ck.expected(path + ("tier",), "a tier name or a non-empty list of them", raw)
    for i, v in enumerate(values):
        where = path + (("tier", ListIndex(i)) if isinstance(raw, list) else ("tier",))
        if not isinstance(v, str) or v not in TIERS:
            ck.expected(where, "a tier: one of " + ", ".join(TIERS), v)
    return tuple(t for t in TIERS if t in values)


def _check_clear_rates(ck: Checker, m: dict, path: KeyPath) -> tuple[tuple[str, MetricRange], ...]:
    """``clear_rate``: ``{model: [min, max]}``, rates in 0..1, kept in ladder order."""
    raw = m.get("clear_rate")
    if raw is None:
        return ()
    cpath = path + ("clear_rate",)
    cm = ck.section(raw, cpath, MODELS)
    out = []
    for model in MODELS:
        if model in cm:
            r = check_range(ck, cm, cpath, model, top=1)
            if r is not None:
                out.append((model, r))
    return tuple(out)


def _check_calibration(ck: Checker, m: dict, path: KeyPath) -> tuple[str | None, Calibration | None]:
    """``calibration``: the path of a ``llkgen.calibration/1`` file, read now, so that a bad
    file is reported with the spec."""
    raw = m.get("calibration")
    if raw is None:
        return None, None
    if not isinstance(raw, str) or not raw:
        ck.expected(path + ("calibration",), "the path of a calibration file (llkgen calibrate writes one)", raw)
    try:
        return raw, load_calibration(raw)
    except LlkgenError as e:
        ck.fail_at(path + ("calibration",), f"difficulty.calibration: {e}")


def check_difficulty(ck: Checker, value: Any) -> DifficultySpec:
    path = ("difficulty",)
    m = ck.section(value, path, METRICS + ("score", "playthroughs", "tier", "clear_rate", "calibration"))
    ranges = {metric: check_range(ck, m, path, metric) for metric in METRICS + ("score",)}
    playthroughs = ck.integer(m, path, "playthroughs", 1, MAX_PLAYTHROUGHS, default=32)
    calibration, model = _check_calibration(ck, m, path)
    predicted = None
    if isinstance(m.get("clear_rate"), list):  # a window on the predicted clear rate
        if calibration is None:
            ck.fail_at(path + ("clear_rate",), "difficulty.clear_rate: a [min, max] window is on the players' "
                       "predicted clear rate and needs difficulty.calibration; windows on model players' clear "
                       "rates are {model: [min, max]}")
        predicted = check_range(ck, m, path, "clear_rate", top=1)
        rates: tuple[tuple[str, MetricRange], ...] = ()
    else:
        rates = _check_clear_rates(ck, m, path)
    return DifficultySpec(**ranges, playthroughs=playthroughs, tier=_check_tiers(ck, m, path),
                          clear_rate=rates, calibration=calibration, predicted=predicted, model=model)


#: Keys of the exact grading the player ladder replaced, and what to write instead.
_RETIRED_GRADING = {
    "playthroughs": "the score is now measured by model players to a set error: use grading.precision "
                    "(points, default 1.5), or grading.enabled: false to skip it",
    "nodes": "the score no longer labels moves with the verifier: remove it (grading.precision sets "
             "how precisely the score is measured)",
}


def check_grading(ck: Checker, value: Any) -> GradingSpec:
    path = ("grading",)
    if isinstance(value, dict):
        for key, why in _RETIRED_GRADING.items():
            if key in value:
                ck.fail_at(path + (key,), f"grading.{key}: no longer a spec key: {why}")
    m = ck.section(value, path, ("enabled", "precision", "rate_precision", "max_runs"))
    return GradingSpec(enabled=ck.boolean(m, path, "enabled", True),
                       precision=ck.number(m, path, "precision", MIN_PRECISION, 50, 1.5),
                       rate_precision=ck.number(m, path, "rate_precision", MIN_RATE_PRECISION, 0.5, 0.03),
                       max_runs=ck.integer(m, path, "max_runs", BATCH, MAX_RUNS_LIMIT, default=1024))


def check_ramp(ck: Checker, value: Any) -> RampSpec | None:
    if value is None:
        return None
    path = ("ramp",)
    m = ck.section(value, path, ("over", "from", "to", "tolerance"), required=("from", "to"))
    overs = (RAMP_SCORE, RAMP_TIER) + tuple(f"clear_rate.{model}" for model in MODELS) + (RAMP_PREDICTED,)
    over = ck.choice(m, path, "over", overs, RAMP_SCORE)
    if over == RAMP_TIER:
        if "tolerance" in m:
            ck.fail_at(path + ("tolerance",), "ramp.tolerance: not allowed with over: tier: each level's "
                       "tier is the ramp's, exactly")
        ends = []
        for key in ("from", "to"):
            v = m[key]
            if not isinstance(v, str) or v not in TIERS:
                ck.expected(path + (key,), "a tier: one of " + ", ".join(TIERS), v)
            ends.append(float(TIERS.index(v)))
        return RampSpec(ends[0], ends[1], 0.0, over)
    top, low_tol, default_tol = (100.0, 0.5, 5.0) if over == RAMP_SCORE else (1.0, 0.005, 0.1)
    bounds = [ck.number(m, path, key, 0, top, default_tol) for key in ("from", "to")]
    tolerance = ck.number(m, path, "tolerance", low_tol, top, default_tol)
    return RampSpec(bounds[0], bounds[1], tolerance, over)


def check_measurable(ck: Checker, difficulty: DifficultySpec, grading: GradingSpec,
                      ramp: RampSpec | None) -> None:
    """Targets on the ladder need it enabled, and windows no tighter than it can measure:
    a window's half-width (a ramp's tolerance) must be at least :data:`WINDOW_SE` standard
    errors, so that one measurement of a level whose true value is in the middle lands in it
    about 95% of the time (``make`` takes two, which both land in it about 90% of the time).

    The error is the precision asked for, or, when ``grading.max_runs`` caps the runs before
    that precision can be reached at every clear rate, the error those runs leave in the worst
    case (:func:`run_capped_se`)."""
    if difficulty.calibration is not None and not grading.enabled:
        ck.fail_at(("grading", "enabled"), "grading.enabled: expected true, found false: difficulty.calibration "
                   "predicts from the player ladder's clear rates")
    if asks_ladder(difficulty, ramp) and not grading.enabled:
        ck.fail_at(("grading", "enabled"), "grading.enabled: expected true, found false: the spec sets "
                   "difficulty targets (score, tier, clear_rate or ramp), which the player ladder measures")
    score_se, score_key = _error(grading.precision, run_capped_se(grading.max_runs, score=True), "precision")
    rate_se, rate_key = _error(grading.rate_precision, run_capped_se(grading.max_runs, score=False), "rate_precision")
    if ramp is not None and ramp.over == RAMP_PREDICTED and difficulty.calibration is None:
        ck.fail_at(("ramp", "over"), f"ramp.over: {RAMP_PREDICTED} needs difficulty.calibration, the file "
                   "llkgen calibrate writes")
    if ramp is not None and ramp.over not in (RAMP_TIER, RAMP_PREDICTED):
        se, key = (score_se, score_key) if ramp.over == RAMP_SCORE else (rate_se, rate_key)
        if ramp.tolerance < WINDOW_SE * se:
            ck.fail_at(("ramp", "tolerance"),
                       f"ramp.tolerance: expected at least {WINDOW_SE:g} x {key} = {WINDOW_SE * se:.3g}, "
                       f"found {ramp.tolerance:g}: a window tighter than the measurement's error rejects "
                       "levels that are on target; widen it, or measure more precisely")
    windows = [("difficulty.score", difficulty.score, score_se, score_key)]
    windows += [(f"difficulty.clear_rate.{mdl}", r, rate_se, rate_key) for mdl, r in difficulty.clear_rate]
    for where, r, se, key in windows:
        if r is not None and r.low is not None and r.high is not None and (r.high - r.low) / 2 < WINDOW_SE * se:
            ck.fail_at(tuple(where.split(".")),
                       f"{where}: expected a window at least {2 * WINDOW_SE * se:.3g} wide (2 x {WINDOW_SE:g} "
                       f"x {key}), found [{r.low:g}, {r.high:g}]: it is tighter than the "
                       "measurement's error; widen it, or measure more precisely")


def run_capped_se(max_runs: int, *, score: bool) -> float:
    """The largest standard error ``max_runs`` playthroughs per model can leave: a clear rate's
    Agresti-Coull error at rate 1/2, ``0.5 / sqrt(max_runs + 4)``, and for the score
    (``score=True``, 100 x the mean fail rate of the models) that of every model at once,
    ``100 / n x sqrt(n) x`` that."""
    rate = 0.5 / math.sqrt(max_runs + 4)
    return 100 * math.sqrt(len(MODELS)) * rate / len(MODELS) if score else rate


def _error(precision: float, capped: float, key: str) -> tuple[float, str]:
    """The error a window must allow for, and how a message names it."""
    if capped > precision:
        return capped, f"the {capped:.3g} that grading.max_runs leaves at worst (grading.{key} is {precision:g})"
    return precision, f"grading.{key}"


__all__ = ["check_difficulty", "check_grading", "check_ramp", "check_measurable", "MAX_PLAYTHROUGHS",
           "MIN_PRECISION", "MIN_RATE_PRECISION", "MAX_RUNS_LIMIT", "WINDOW_SE"]
