"""Calibration: how a level's measured features predict the clear rate of a studio's own players.

The ladder measures how machine players fare on a level; a studio's players are not those
machines. Given play data (attempts and clears per level), :func:`fit` learns the map from a
level's features to its players' clear rate, and :class:`Calibration` applies it to any level
measured the same way (``make``, ``grade``).

Features (:data:`~llkgen.analysis.calibration_models.FEATURES`, read by
:func:`~llkgen.analysis.calibration_models.features_of` from what ``make`` stores in a level):
each ladder model's clear rate and the random clear rate, on the logit scale (``log((c + 1/2) /
(n - c + 1/2))`` of ``c`` clears in ``n`` runs: finite at 0 and at every run, with variance
``1/(c + 1/2) + 1/(n - c + 1/2)``), the length (``log pairs``) and the starting choice
(``log(1 + initial_moves)``). Left out: the ``difficulty`` score (a linear function of the
clear rates already in) and ``verify_nodes`` (the certifying search's effort, which the
construction order guides: it says how the verifier fared, not a player).

Two models (:mod:`llkgen.analysis.calibration_models`); the one that predicts held-out levels
better is kept (k-fold cross-validation on the binomial log-likelihood per attempt,
:data:`FOLDS` folds, :func:`choose`):

* ``logistic``: ``clears ~ Binomial(attempts, p)``, ``logit p = b0 + sum b_j z_j`` on the
  standardised features ``z_j = (x_j - mean_j) / sd_j`` that forward selection keeps
  (:func:`select`), fitted by Newton's method with a ridge penalty ``RIDGE / 2 * |b|^2`` (not
  on ``b0``): with a few dozen levels and collinear clear rates the plain maximum-likelihood
  coefficients swing; the penalty keeps them finite when the data separate.
* ``isotonic``: on the single feature whose one-feature logistic fit cross-validates best, the
  monotone map (pool-adjacent-violators, weighted by attempts, in whichever direction fits
  better) from the feature to the observed clear rate, interpolated linearly between the
  training levels and flat beyond them.

Error of a prediction (:meth:`Calibration.predict`), on the logit scale, three independent
parts added in variance: the fit's (``z' S z`` with ``S`` the penalised likelihood's inverse
Hessian times the Pearson dispersion, for the logistic model), the level's measurement (each
feature's variance times the square of its slope, the delta method) and what the features do
not explain (``a + b eta^2``, :func:`residual_variance`, from residuals held out from the whole
procedure). Their sum is multiplied by a factor ``k`` that makes the held-out levels' intervals
cover them at the nominal rate (split conformal prediction, :func:`interval_scale`). The
interval on the clear rate is ``expit(eta +- z se)``, meant to cover the players' *true* clear
rate on a level (not the share they cleared in a finite number of attempts) 90% of the time.
``benchmarks/calibration_bench.py`` measures it with simulated players (docs/calibration.md).

Files: :func:`load_calibration` reads a ``llkgen.calibration/1`` file (``make`` and ``grade``
use it); :mod:`llkgen.jobs.calibrate` reads plays and packs and writes the file that
:meth:`Calibration.to_json` describes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from llkgen.analysis.calibration_error import LEVEL, Z90, HeldOut, interval_scale, residual_variance
from llkgen.analysis.calibration_models import (
    BASELINE,
    CLIP,
    FEATURES,
    RIDGE,
    Feature,
    Isotonic,
    Logistic,
    Model,
    ModelKind,
    PlayData,
    Transform,
    expit,
    features_of,
    fit_isotonic,
    fit_logistic,
)
from llkgen.errors import LlkgenError
from llkgen.files import read_bounded
from llkgen.formats.level import MAX_FILE_BYTES, parse_json

#: The ``format`` of a calibration file.
CALIBRATION_FORMAT = "llkgen.calibration/1"

#: The fewest levels a fit takes: below this, 5-fold cross-validation holds out 3 levels a
#: fold, and a held-out Spearman rho has a 90% interval wider than +-0.4.
MIN_LEVELS = 20
#: The fewest attempts a level must have to be used: at 10 attempts the observed clear rate
#: alone has an se of up to 0.16, more than the spread of most packs.
MIN_ATTEMPTS = 10
#: Folds of the cross-validation (fewer when there are fewer levels).
FOLDS = 5
#: Bootstrap resamples behind every interval of a report.
BOOTSTRAP = 1000


class CalibrationError(LlkgenError):
    """Play data that cannot support a fit, or a calibration file that cannot be used."""


# -- the data ---------------------------------------------------------------------------------
def check_data(data: PlayData) -> None:
    """Raise :class:`CalibrationError` when ``data`` cannot support a fit: fewer than
    :data:`MIN_LEVELS` levels, or players who cleared every level every time, or never."""
    n = len(data)
    if n < MIN_LEVELS:
        raise CalibrationError(f"plays: expected at least {MIN_LEVELS} levels with at least {MIN_ATTEMPTS} "
                               f"attempts each, found {n}: a fit on fewer cannot be checked on held-out levels")
    total, cleared = int(data.attempts.sum()), int(data.clears.sum())
    if cleared == 0 or cleared == total:
        raise CalibrationError(f"plays: the players {'never' if cleared == 0 else 'always'} cleared a level "
                               f"({cleared} clears in {total} attempts): there is no clear rate to predict")


# -- cross-validation --------------------------------------------------------------------------

def folds(n: int, k: int, rng: np.random.Generator) -> list[np.ndarray]:
    """A random partition of ``range(n)`` into ``min(k, n)`` folds of near-equal size."""
    return [np.sort(f) for f in np.array_split(rng.permutation(n), min(k, n))]


def log_loss(data: PlayData, p: np.ndarray) -> float:
    """Minus the binomial log-likelihood per attempt (the choose term left out)."""
    p = np.clip(p, CLIP, 1 - CLIP)
    y, n = data.clears, data.attempts
    return float(-(y * np.log(p) + (n - y) * np.log(1 - p)).sum() / n.sum())


def _meas_var(model: Model, x: np.ndarray, var: np.ndarray) -> np.ndarray:
    if isinstance(model, Logistic):
        return var @ (model.slopes() ** 2)
    return np.sum(model.slopes_at(x) ** 2 * var, axis=1)


def cross_validate(data: PlayData, fit_one, parts: list[np.ndarray], name: str) -> HeldOut:
    """Fit ``fit_one(train)`` on all folds but one and predict that one, for every fold."""
    eta = np.zeros(len(data))
    fv = np.zeros(len(data))
    mv = np.zeros(len(data))
    everyone = np.arange(len(data))
    for test in parts:
        train = np.setdiff1d(everyone, test)
        model = fit_one(data.take(train))
        eta[test] = model.eta(data.x[test])
        fv[test] = model.fit_var(data.x[test])
        mv[test] = _meas_var(model, data.x[test], data.var[test])
    return HeldOut(name, eta, fv, mv)


# -- figures with intervals --------------------------------------------------------------------

def spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's rho (average ranks for ties); 0 when either is constant."""
    ra, rb = _ranks(a), _ranks(b)
    sa, sb = ra.std(), rb.std()
    if sa == 0 or sb == 0:
        return 0.0
    return float(np.mean((ra - ra.mean()) * (rb - rb.mean())) / (sa * sb))


def _ranks(a: np.ndarray) -> np.ndarray:
    order = np.argsort(a, kind="stable")
    ranks = np.empty(len(a))
    ranks[order] = np.arange(len(a), dtype=np.float64)
    _, inverse, counts = np.unique(a, return_inverse=True, return_counts=True)
    sums = np.bincount(inverse, weights=ranks)
    return (sums / counts)[inverse]


@dataclass(frozen=True)
class Figure:
    """A figure with its bootstrap interval (:data:`LEVEL`, percentile, over levels)."""

    value: float
    low: float
    high: float

    def to_json(self) -> dict:
        return {"value": round(self.value, 4), "low": round(self.low, 4), "high": round(self.high, 4)}

    def text(self) -> str:
        return f"{self.value:.3f} [{self.low:.3f}, {self.high:.3f}]"


def _figure(value: float, boot: list[float]) -> Figure:
    tail = (1 - LEVEL) / 2 * 100
    lo, hi = np.percentile(boot, [tail, 100 - tail]) if boot else (value, value)
    return Figure(value, float(lo), float(hi))


@dataclass(frozen=True)
class Decile:
    """One tenth of the held-out levels by predicted clear rate: the mean prediction and the
    players' pooled clear rate (with its bootstrap interval over the decile's levels)."""

    levels: int
    predicted: float
    observed: Figure

    def to_json(self) -> dict:
        return {"levels": self.levels, "predicted": round(self.predicted, 4), "observed": self.observed.to_json()}


@dataclass(frozen=True)
class Scores:
    """How one way of predicting fares on held-out levels."""

    name: str
    spearman: Figure
    mae: Figure
    log_loss: float
    deciles: tuple[Decile, ...]

    def to_json(self) -> dict:
        return {"predictor": self.name, "spearman": self.spearman.to_json(), "mae": self.mae.to_json(),
                "log_loss": round(self.log_loss, 5), "deciles": [d.to_json() for d in self.deciles]}


def score(data: PlayData, held: HeldOut, rng: np.random.Generator, boot: int = BOOTSTRAP) -> Scores:
    """Spearman's rho and the mean absolute error of ``held``'s predicted clear rate against the
    observed one, the table by decile, each with bootstrap intervals over levels."""
    pred, obs = held.rate, data.observed
    n = len(data)
    rho_b, mae_b = [], []
    for _ in range(boot):
        i = rng.integers(n, size=n)
        rho_b.append(spearman(pred[i], obs[i]))
        mae_b.append(float(np.mean(np.abs(pred[i] - obs[i]))))
    deciles = []
    for part in np.array_split(np.argsort(pred, kind="stable"), min(10, n)):
        a, c = data.attempts[part], data.clears[part]
        b = []
        for _ in range(boot // 4):
            j = rng.choice(part, size=len(part))
            b.append(float(data.clears[j].sum() / data.attempts[j].sum()))
        deciles.append(Decile(len(part), float(pred[part].mean()), _figure(float(c.sum() / a.sum()), b)))
    return Scores(held.name, _figure(spearman(pred, obs), rho_b),
                  _figure(float(np.mean(np.abs(pred - obs))), mae_b), log_loss(data, pred), tuple(deciles))


# -- the calibration --------------------------------------------------------------------------

@dataclass(frozen=True)
class Prediction:
    """A predicted clear rate, its standard error on the logit scale (``eta_se``: the fit's, the
    level's measurement's and the residual between levels, combined), the part of it that is
    the level's measurement alone (``measurement_se``: what a re-measurement of the level
    would move), and its :data:`LEVEL` interval on the clear rate."""

    rate: float
    eta_se: float
    measurement_se: float
    low: float
    high: float

    @property
    def se(self) -> float:
        """The combined standard error on the clear rate's own scale (delta method)."""
        return self.rate * (1 - self.rate) * self.eta_se

    @property
    def rate_measurement_se(self) -> float:
        """:attr:`measurement_se` on the clear rate's own scale (delta method)."""
        return self.rate * (1 - self.rate) * self.measurement_se

    def to_json(self) -> dict:
        return {"rate": round(self.rate, 4), "se": round(self.se, 4),
                "measurement_se": round(self.rate_measurement_se, 4),
                "interval": [round(self.low, 4), round(self.high, 4)]}


@dataclass(frozen=True)
class Calibration:
    """A fitted map from a level's features to its players' clear rate (module docstring),
    and how it fared on held-out levels. ``source`` holds the pack's and the plays'
    descriptions as the calibration file records them."""

    model: Model
    tau2: float
    #: The residual variance's growth with ``eta^2`` (:func:`residual_variance`).
    tau2_slope: float
    chosen_by: dict
    held_out: tuple[Scores, ...]
    levels: int
    attempts: int
    source: dict = field(default_factory=dict)
    #: The factor on a prediction's variance that makes its interval cover held-out levels
    #: at :data:`LEVEL` (:func:`interval_scale`); 1 in files written without it.
    interval_scale: float = 1.0

    @property
    def kind(self) -> ModelKind:
        return ModelKind.LOGISTIC if isinstance(self.model, Logistic) else ModelKind.ISOTONIC

    def predict_x(self, x: np.ndarray, var: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(eta, its variance, the measurement's part of it)`` for rows of transformed
        features and their variances."""
        eta = self.model.eta(x)
        meas = _meas_var(self.model, x, var)
        var = self.tau2 + self.tau2_slope * eta ** 2 + self.model.fit_var(x) + meas
        return eta, self.interval_scale * var, meas

    def predict(self, metrics: Mapping, players: Mapping | None) -> Prediction | None:
        """The prediction for a level's ``metrics`` and ``players`` (``None`` when a feature is
        missing: :func:`features_of`)."""
        feats = features_of(metrics, players)
        if feats is None:
            return None
        eta, v, meas = self.predict_x(feats[0][None, :], feats[1][None, :])
        low, high = self.bounds(eta, v)
        return Prediction(_expit1(float(eta[0])), math.sqrt(float(v[0])), math.sqrt(float(meas[0])),
                          float(low[0]), float(high[0]))

    @property
    def resolution(self) -> float:
        """``3 / n`` for the mean attempts ``n`` a level the fit saw: rates closer than this to 0
        (or 1) are ones the plays cannot tell apart (a level never cleared in ``n`` attempts is,
        at 95%, anywhere below it: the rule of three). 0 when the file does not say."""
        return 3 * self.levels / self.attempts if self.levels and self.attempts > 3 * self.levels else 0.0

    def bounds(self, eta: np.ndarray, var: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The :data:`LEVEL` interval on the clear rate for logits ``eta`` of variance ``var``:
        ``expit(eta +- z sqrt(var))``, opened to 0 (or 1) where it reaches within
        :attr:`resolution` of it. The fit learned from plays that cannot tell a rate of 0.999
        from one of 0.99999, so an interval that reaches that zone cannot honestly end inside
        it: on ``benchmarks/calibration_bench.py``'s levels, ``slip`` clears many easy levels
        1,998 or 1,999 times in 2,000, and intervals ending at 0.997 missed them."""
        sd = np.sqrt(var)
        low, high = expit(eta - Z90 * sd), expit(eta + Z90 * sd)
        edge = self.resolution
        return np.where(low <= edge, 0.0, low), np.where(high >= 1 - edge, 1.0, high)

    def to_json(self) -> dict:
        m = self.model
        model: dict = {"kind": str(self.kind), "residual_sd": round(math.sqrt(self.tau2), 6),
                       "residual_slope": round(self.tau2_slope, 6),
                       "interval_scale": round(self.interval_scale, 6)}
        if isinstance(m, Logistic):
            model |= {"features": [FEATURES[c].name for c in m.columns],
                      "transforms": [str(FEATURES[c].transform) for c in m.columns],
                      "mean": _floats(m.mean), "sd": _floats(m.sd), "intercept": round(m.intercept, 8),
                      "coefficients": _floats(m.coef), "covariance": [_floats(r) for r in m.cov],
                      "ridge": RIDGE}
        else:
            model |= {"features": [FEATURES[m.column].name], "transforms": [str(FEATURES[m.column].transform)],
                      "knots": _floats(m.knots), "rates": _floats(m.rates)}
        return {"format": CALIBRATION_FORMAT, **self.source, "levels": self.levels, "attempts": self.attempts,
                "model": model, "cross_validation": self.chosen_by,
                "held_out": [s.to_json() for s in self.held_out]}

    @classmethod
    def from_json(cls, obj: object, where: str) -> "Calibration":
        """The calibration a ``llkgen.calibration/1`` document describes (only what prediction
        needs is rebuilt: the held-out scores stay in the file). Raises
        :class:`CalibrationError` naming the key that is wrong: every number a prediction uses
        must be finite, so that none comes out NaN (:func:`_read_model`)."""
        if not isinstance(obj, dict) or obj.get("format") != CALIBRATION_FORMAT:
            found = obj.get("format") if isinstance(obj, dict) else type(obj).__name__
            raise CalibrationError(f"{where}: format: expected {CALIBRATION_FORMAT!r}, found {found!r}")
        model, tau2, slope, scale = _read_model(obj.get("model"), where)
        cv = obj.get("cross_validation", {})
        if not isinstance(cv, dict):
            raise CalibrationError(f"{where}: cross_validation: expected an object, found {cv!r}")
        levels, attempts = (_file_count(obj, key, where) for key in ("levels", "attempts"))
        return cls(model, tau2, slope, dict(cv), (), levels, attempts,
                   {k: obj[k] for k in ("pack", "plays") if k in obj}, scale)


def _file_count(obj: dict, key: str, where: str) -> int:
    value = obj.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise CalibrationError(f"{where}: {key}: expected an integer >= 0, found {value!r}")
    return value


def _numbers(m: dict, key: str, shape: tuple[int, ...] | None) -> np.ndarray:
    """``m[key]`` as finite floats of ``shape`` (``None``: a list of any length); ValueError
    naming the key otherwise."""
    value = m[key]
    try:
        if not isinstance(value, (int, float, list)) or isinstance(value, bool):
            raise TypeError
        a = np.array(value, dtype=np.float64)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{key}: expected numbers, found {value!r}") from None
    if shape is None and a.ndim != 1:
        raise ValueError(f"{key}: expected a list of numbers, found {value!r}")
    if shape is not None and a.shape != shape:
        raise ValueError(f"{key}: expected shape {list(shape)} to match the features, found {list(a.shape)}")
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{key}: expected finite numbers, found {value!r}")
    return a


def _read_model(m: Any, where: str) -> tuple[Model, float, float, float]:
    """The model of a calibration file, its residual variance ``(a, b)`` and its interval
    scale (1 when the file has none), checked for what
    prediction relies on: finite numbers throughout; ``sd > 0`` (features are divided by it);
    a covariance that is symmetric with no negative variance (the fit's error is ``z' S z``
    under a square root); knots in increasing order (``np.interp`` assumes it) and rates in
    [0, 1]. Raises :class:`CalibrationError` naming the key."""
    try:
        if not isinstance(m, dict):
            raise ValueError(f"expected an object, found {m!r}")
        if not isinstance(m["features"], list) or not isinstance(m["transforms"], list) \
                or len(m["features"]) != len(m["transforms"]) or not m["features"]:
            raise ValueError(f"features and transforms: expected two lists of one length, found "
                             f"{m['features']!r} and {m['transforms']!r}")
        names = [FEATURES.index(Feature(n, Transform(t))) for n, t in zip(m["features"], m["transforms"])]
        sd_r, slope = (float(_numbers(m, key, ())) for key in ("residual_sd", "residual_slope"))
        if sd_r < 0 or slope < 0:
            raise ValueError(f"residual_sd and residual_slope: expected numbers >= 0, found {sd_r} and {slope}")
        scale = float(_numbers(m, "interval_scale", ())) if "interval_scale" in m else 1.0
        if scale < 0:
            raise ValueError(f"interval_scale: expected a number >= 0, found {scale}")
        model: Model
        if m["kind"] == ModelKind.LOGISTIC:
            k = len(names)
            mean, sd, coef = (_numbers(m, key, (k,)) for key in ("mean", "sd", "coefficients"))
            cov = _numbers(m, "covariance", (k + 1, k + 1))
            if not np.all(sd > 0):
                raise ValueError(f"sd: expected numbers > 0, found {m['sd']!r}")
            # The file rounds to 8 decimals: a symmetric covariance stays within that of symmetric.
            if not np.allclose(cov, cov.T, rtol=0, atol=1e-7) or np.linalg.eigvalsh(cov).min() < -1e-7:
                raise ValueError("covariance: expected a symmetric matrix with no negative variance")
            model = Logistic(tuple(names), mean, sd, float(_numbers(m, "intercept", ())), coef, cov)
        elif m["kind"] == ModelKind.ISOTONIC:
            if len(names) != 1:
                raise ValueError(f"features: expected one for an isotonic model, found {len(names)}")
            knots = _numbers(m, "knots", None)
            rates = _numbers(m, "rates", knots.shape)
            if len(knots) < 1 or np.any(np.diff(knots) < 0):
                raise ValueError(f"knots: expected at least one, in increasing order, found {m['knots']!r}")
            if np.any((rates < 0) | (rates > 1)):
                raise ValueError(f"rates: expected clear rates from 0 to 1, found {m['rates']!r}")
            model = Isotonic(names[0], knots, rates)
        else:
            raise ValueError(f"kind: expected logistic or isotonic, found {m['kind']!r}")
    except (KeyError, TypeError, ValueError) as e:
        why = f"no key {e}" if isinstance(e, KeyError) else str(e)
        raise CalibrationError(f"{where}: model: {why} (expected a logistic or isotonic model over "
                               f"{', '.join(f.name for f in FEATURES)}, as llkgen calibrate writes)") from None
    return model, sd_r ** 2, slope, scale


def _expit1(eta: float) -> float:
    return float(expit(np.array(eta)))


def load_calibration(path: str) -> Calibration:
    """The ``llkgen.calibration/1`` file at ``path``; :class:`CalibrationError` (or a JSON
    format error) naming the file and key otherwise."""
    data = read_bounded(path, MAX_FILE_BYTES, "a calibration file", CalibrationError)
    return Calibration.from_json(parse_json(data, path), path)


def _floats(a: np.ndarray) -> list[float]:
    return [round(float(v), 8) for v in a]


def _one_feature(column: int):
    return lambda d: fit_logistic(d, [column])


def select(data: PlayData, parts: list[np.ndarray], singles: dict[int, HeldOut]) -> tuple[list[int], HeldOut]:
    """Forward selection for the logistic model: from the best single feature, add the feature
    that lowers the cross-validated log-loss most, while one does. With a few dozen levels
    every feature at once costs more in variance than it gains (measured on the benchmark's
    simulated players); two random-model measurements on independent streams, averaged, is
    the typical pick beyond the first."""
    loss = {c: log_loss(data, h.rate) for c, h in singles.items()}
    first = min(loss, key=lambda c: loss[c])
    chosen, held, best = [first], singles[first], loss[first]
    while len(chosen) < len(FEATURES):
        trials = {}
        for c in range(len(FEATURES)):
            if c not in chosen:
                cols = [*chosen, c]
                trials[c] = cross_validate(data, lambda d, cols=cols: fit_logistic(d, cols), parts, "logistic")
        c = min(trials, key=lambda k: log_loss(data, trials[k].rate))
        if log_loss(data, trials[c].rate) >= best:
            break
        chosen.append(c)
        held, best = trials[c], log_loss(data, trials[c].rate)
    return chosen, held


@dataclass(frozen=True)
class Choice:
    """What the fitting procedure chose on some levels: the model kind, the logistic model's
    features, the best single feature, and the cross-validated log-loss of each kind."""

    kind: ModelKind
    columns: tuple[int, ...]
    best_col: int
    losses: dict[ModelKind, float]
    singles: dict[int, HeldOut]

    def fit(self, data: PlayData) -> Model:
        if self.kind is ModelKind.LOGISTIC:
            return fit_logistic(data, self.columns)
        return fit_isotonic(data, self.best_col)


def choose(data: PlayData, parts: list[np.ndarray]) -> Choice:
    """The procedure's choices on ``data`` with cross-validation folds ``parts``: the logistic
    model on the features :func:`select` picks, or the isotonic one on the best single
    feature, whichever has the lower held-out log-loss."""
    singles = {c: cross_validate(data, _one_feature(c), parts, FEATURES[c].name) for c in range(len(FEATURES))}
    best_col = min(singles, key=lambda c: log_loss(data, singles[c].rate))
    columns, logistic = select(data, parts, singles)
    isotonic = cross_validate(data, lambda d: fit_isotonic(d, best_col), parts, "isotonic")
    losses = {ModelKind.LOGISTIC: log_loss(data, logistic.rate), ModelKind.ISOTONIC: log_loss(data, isotonic.rate)}
    return Choice(min(losses, key=lambda k: losses[k]), tuple(columns), best_col, losses, singles)


def fit(data: PlayData, seed: int = 0, folds_k: int = FOLDS, boot: int = BOOTSTRAP) -> Calibration:
    """The calibration of ``data``: :func:`choose`'s model fitted on every level, its held-out
    figures beside the best single feature's and the random clear rate's alone, and ``tau^2``
    (module docstring). Raises :class:`CalibrationError` when :func:`check_data` does. A pure
    function of its arguments.

    Held out means held out from the whole procedure: for each of the outer folds, the
    features and the model kind are chosen again (:func:`choose`, on inner folds of the other
    levels) and fitted there, then the fold is predicted. Choosing on the same folds that are
    reported made the held-out residuals about half as large as on new levels (the
    benchmark's coverage was 0.75 instead of 0.90), and ``tau^2`` comes from them."""
    check_data(data)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    parts = folds(len(data), folds_k, rng)
    chosen = choose(data, parts)
    everyone = np.arange(len(data))
    eta, fv, mv = np.zeros(len(data)), np.zeros(len(data)), np.zeros(len(data))
    for test in parts:
        train = data.take(np.setdiff1d(everyone, test))
        inner = choose(train, folds(len(train), folds_k, rng))
        model = inner.fit(train)
        eta[test] = model.eta(data.x[test])
        fv[test] = model.fit_var(data.x[test])
        mv[test] = _meas_var(model, data.x[test], data.var[test])
    held = HeldOut("calibrated", eta, fv, mv)
    tau2, slope = residual_variance(data, held)
    scale = interval_scale(data, held, tau2, slope)
    best, singles = chosen.best_col, chosen.singles
    base_col = next(i for i, f in enumerate(FEATURES) if f.name == BASELINE)
    scores = (score(data, held, rng, boot),
              score(data, HeldOut(f"best single feature: {FEATURES[best].name}", singles[best].eta,
                                  singles[best].fit_var, singles[best].meas_var), rng, boot),
              score(data, HeldOut(f"baseline: {BASELINE} alone", singles[base_col].eta,
                                  singles[base_col].fit_var, singles[base_col].meas_var), rng, boot))
    record = {"folds": len(parts), "seed": seed, "chosen": str(chosen.kind),
              "log_loss": {str(k): round(v, 6) for k, v in chosen.losses.items()}}
    return Calibration(chosen.fit(data), tau2, slope, record, scores, len(data), int(data.attempts.sum()),
                       interval_scale=scale)


__all__ = ["CALIBRATION_FORMAT", "MIN_LEVELS", "MIN_ATTEMPTS", "FOLDS", "BOOTSTRAP", "LEVEL", "Z90",
           "CalibrationError", "Prediction", "Calibration", "Scores", "Figure", "Decile", "HeldOut", "Choice",
           "check_data", "fit", "load_calibration", "select", "choose", "spearman", "cross_validate",
           "residual_variance", "interval_scale", "log_loss", "folds", "score"]
