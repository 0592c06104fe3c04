"""Calibration: how a level's measured features predict the clear rate of a studio's own players.

The ladder measures how machine players fare on a level; a studio's players are not those
machines. Given play data (attempts and clears per level), :func:`fit` learns the map from a
level's features to its players' clear rate, and :class:`Calibration` applies it to any level
measured the same way (``make``, ``grade``).

Features (:data:`FEATURES`), all read from what ``make`` stores in a level
(:func:`features_of`): each ladder model's clear rate and the random clear rate, on the logit
scale (``log((c + 1/2) / (n - c + 1/2))`` of ``c`` clears in ``n`` runs: finite at 0 and at
every run, with variance ``1/(c + 1/2) + 1/(n - c + 1/2)``), the length (``log pairs``) and the
starting choice (``log(1 + initial_moves)``). Left out: the ``difficulty`` score (a linear
function of the clear rates already in) and ``verify_nodes`` (the certifying search's effort,
which the construction order guides: it says how the verifier fared, not a player).

Two models, the one that predicts held-out levels better is kept (k-fold cross-validation on the
binomial log-likelihood per attempt, :data:`FOLDS` folds):

* ``logistic``: ``clears ~ Binomial(attempts, p)``, ``logit p = b0 + sum b_j z_j`` on the
  standardised features ``z_j = (x_j - mean_j) / sd_j``, fitted by Newton's method with a ridge
  penalty ``RIDGE / 2 * |b|^2`` (not on ``b0``): with a few dozen levels and collinear clear
  rates the plain maximum-likelihood coefficients swing; the penalty keeps them finite when the
  data separate.
* ``isotonic``: on the single feature whose one-feature logistic fit cross-validates best, the
  monotone map (pool-adjacent-violators, weighted by attempts, in whichever direction fits
  better) from the feature to the observed clear rate, interpolated linearly between the
  training levels and flat beyond them.

Error of a prediction (:meth:`Calibration.predict`), on the logit scale, three independent
parts added in variance: the fit's (``z' S z`` with ``S`` the penalised likelihood's inverse
Hessian, for the logistic model), the level's measurement (each feature's variance times the
square of its slope, the delta method) and what the features do not explain (``tau^2``, the
residual variance between levels, estimated from the cross-validated residuals by the method
of moments once their sampling, fit and measurement variances are taken out). The interval on
the clear rate is ``expit(eta +- z se)``: it covers the players' *true* clear rate on a level
(not the share they cleared in a finite number of attempts) about as often as it says;
``benchmarks/calibration_bench.py`` measures how often with simulated players.

Nothing here reads files: :mod:`llkgen.jobs.calibrate` reads plays and packs and writes the
``llkgen.calibration/1`` file this module's :meth:`Calibration.to_json` describes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np

from llkgen.analysis.ladder import MODELS
from llkgen.errors import LlkgenError

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
#: The ridge penalty on the standardised coefficients (a prior sd of 1/sqrt(RIDGE) per
#: standard deviation of a feature, on the logit scale). Small: it matters only when the data
#: nearly separate or features are collinear (the clear rates are).
RIDGE = 1.0
#: Bootstrap resamples behind every interval of a report.
BOOTSTRAP = 1000
#: Levels a rate is clipped to, away from 0 and 1, before taking its logit for an isotonic
#: prediction (a flat block at 0 would otherwise have an infinite logit).
CLIP = 1e-3
#: The interval a report's figures carry and a prediction's interval: 90%, two-sided.
LEVEL = 0.90
Z90 = 1.6448536269514722


class CalibrationError(LlkgenError):
    """Play data that cannot support a fit, or a calibration file that cannot be used."""


class Transform(StrEnum):
    """How a feature's stored value becomes the number the fit sees."""

    #: A clear rate measured in ``runs`` playthroughs: the empirical logit (module docstring).
    LOGIT = "logit"
    #: A count >= 1: its natural log.
    LOG = "log"
    #: A count >= 0: ``log(1 + x)``.
    LOG1P = "log1p"


class ModelKind(StrEnum):
    """The fitted map from features to a clear rate."""

    #: A ridge-penalised logistic regression on every feature.
    LOGISTIC = "logistic"
    #: A monotone map of one feature (pool-adjacent-violators).
    ISOTONIC = "isotonic"


@dataclass(frozen=True)
class Feature:
    """One input of the fit: its name (a key of :func:`features_of`) and transform."""

    name: str
    transform: Transform


#: The features, in the order a calibration file lists them.
FEATURES: tuple[Feature, ...] = (
    *(Feature(f"clear_rate.{m}", Transform.LOGIT) for m in MODELS),
    Feature("random_clear_rate", Transform.LOGIT),
    Feature("pairs", Transform.LOG),
    Feature("initial_moves", Transform.LOG1P),
)
#: The feature the baseline uses alone.
BASELINE = "random_clear_rate"


def empirical_logit(cleared: float, runs: float) -> tuple[float, float]:
    """``(log((c + 1/2) / (n - c + 1/2)), its variance 1/(c + 1/2) + 1/(n - c + 1/2))``."""
    a, b = cleared + 0.5, runs - cleared + 0.5
    return math.log(a / b), 1.0 / a + 1.0 / b


def features_of(metrics: Mapping, players: Mapping | None) -> tuple[np.ndarray, np.ndarray] | None:
    """``(values, variances)`` of :data:`FEATURES`, transformed, from a level's ``metrics`` and
    ``players`` objects (as ``make`` writes them), or ``None`` when any is missing (a level made
    with grading disabled, or without a random clear rate)."""
    rates = (players or {}).get("clear_rates") or {}
    values, variances = [], []
    for f in FEATURES:
        if f.name.startswith("clear_rate."):
            r = rates.get(f.name.removeprefix("clear_rate."))
            if not isinstance(r, Mapping) or not _number(r.get("rate")) or not _number(r.get("runs")):
                return None
            runs = float(r["runs"])
            if runs < 1:
                return None
            v, var = empirical_logit(round(r["rate"] * runs), runs)
        elif f.name == "random_clear_rate":
            rate, runs = metrics.get("random_clear_rate"), metrics.get("random_clear_runs", 32)
            if not _number(rate) or not _number(runs) or runs < 1:
                return None
            v, var = empirical_logit(round(rate * runs), runs)
        else:
            raw: Any = metrics.get(f.name)
            if not _number(raw):
                return None
            x = float(raw)
            if x < (1 if f.transform is Transform.LOG else 0):
                return None
            v, var = (math.log(x) if f.transform is Transform.LOG else math.log1p(x)), 0.0
        values.append(v)
        variances.append(var)
    return np.array(values), np.array(variances)


def _number(x: object) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


# -- the data ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class PlayData:
    """Levels with their players' attempts and clears and their features: row ``i`` of ``x``
    (transformed, :data:`FEATURES` order) and ``var`` (their measurement variances) belongs to
    ``labels[i]``."""

    labels: tuple[str, ...]
    attempts: np.ndarray
    clears: np.ndarray
    x: np.ndarray
    var: np.ndarray

    def __len__(self) -> int:
        return len(self.labels)

    def take(self, idx: np.ndarray) -> "PlayData":
        return PlayData(tuple(self.labels[i] for i in idx), self.attempts[idx], self.clears[idx],
                        self.x[idx], self.var[idx])

    @property
    def observed(self) -> np.ndarray:
        return self.clears / self.attempts


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


# -- the models -------------------------------------------------------------------------------

def _expit(eta: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(eta, -30, 30)))


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(p, CLIP, 1 - CLIP)
    return np.log(p / (1 - p))


@dataclass(frozen=True)
class Logistic:
    """``logit p = intercept + coef . (x - mean) / sd``; ``cov`` is the covariance of
    ``(intercept, coef)`` (the penalised likelihood's inverse Hessian)."""

    columns: tuple[int, ...]
    mean: np.ndarray
    sd: np.ndarray
    intercept: float
    coef: np.ndarray
    cov: np.ndarray

    def design(self, x: np.ndarray) -> np.ndarray:
        z = (x[:, self.columns] - self.mean) / self.sd
        return np.column_stack([np.ones(len(x)), z])

    def eta(self, x: np.ndarray) -> np.ndarray:
        return self.design(x) @ np.concatenate([[self.intercept], self.coef])

    def fit_var(self, x: np.ndarray) -> np.ndarray:
        """The variance of ``eta`` from the coefficients' error, per row."""
        d = self.design(x)
        return np.einsum("ij,jk,ik->i", d, self.cov, d)

    def slopes(self) -> np.ndarray:
        """d eta / d x for every feature (0 for those not used)."""
        out = np.zeros(len(FEATURES))
        out[list(self.columns)] = self.coef / self.sd
        return out


def fit_logistic(data: PlayData, columns: Sequence[int], ridge: float = RIDGE) -> Logistic:
    """The ridge-penalised maximum-likelihood logistic fit (module docstring) on ``columns`` of
    the features, by Newton's method (the penalised log-likelihood is strictly concave, so it
    converges from zero)."""
    cols = tuple(columns)
    xs = data.x[:, cols]
    mean = xs.mean(axis=0)
    sd = xs.std(axis=0)
    sd = np.where(sd > 1e-9, sd, 1.0)  # a constant feature (one board size) gets coefficient 0
    d = np.column_stack([np.ones(len(xs)), (xs - mean) / sd])
    n, y = data.attempts.astype(float), data.clears.astype(float)
    pen = np.full(d.shape[1], ridge)
    pen[0] = 0.0
    beta = np.zeros(d.shape[1])
    beta[0] = math.log((y.sum() + 0.5) / (n.sum() - y.sum() + 0.5))
    for _ in range(100):
        p = _expit(d @ beta)
        grad = d.T @ (y - n * p) - pen * beta
        hess = (d * (n * p * (1 - p))[:, None]).T @ d + np.diag(pen) + 1e-9 * np.eye(len(beta))
        step = np.linalg.solve(hess, grad)
        beta = beta + step
        if np.max(np.abs(step)) < 1e-9:
            break
    p = _expit(d @ beta)
    hess = (d * (n * p * (1 - p))[:, None]).T @ d + np.diag(pen) + 1e-9 * np.eye(len(beta))
    return Logistic(cols, mean, sd, float(beta[0]), beta[1:].copy(), np.linalg.inv(hess))


@dataclass(frozen=True)
class Isotonic:
    """A monotone map of feature ``column``: clear rate ``np.interp(x, knots, rates)``."""

    column: int
    knots: np.ndarray
    rates: np.ndarray

    def rate(self, x: np.ndarray) -> np.ndarray:
        return np.interp(x[:, self.column], self.knots, self.rates)

    def eta(self, x: np.ndarray) -> np.ndarray:
        return _logit(self.rate(x))

    def fit_var(self, x: np.ndarray) -> np.ndarray:
        return np.zeros(len(x))  # in tau^2: the cross-validated residuals carry it

    def slopes_at(self, x: np.ndarray) -> np.ndarray:
        """d eta / d x per row and feature, by central differences of one feature sd."""
        out = np.zeros(x.shape)
        h = max(float(np.std(self.knots)) * 0.05, 1e-6)
        up, down = x.copy(), x.copy()
        up[:, self.column] += h
        down[:, self.column] -= h
        out[:, self.column] = (self.eta(up) - self.eta(down)) / (2 * h)
        return out


def pava(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The non-decreasing sequence closest to ``y`` in ``w``-weighted least squares
    (pool-adjacent-violators)."""
    blocks: list[list[float]] = []  # [weighted mean, weight, length]
    for yi, wi in zip(y, w):
        blocks.append([float(yi), float(wi), 1])
        while len(blocks) > 1 and blocks[-2][0] > blocks[-1][0]:
            m2, w2, n2 = blocks.pop()
            m1, w1, n1 = blocks.pop()
            blocks.append([(m1 * w1 + m2 * w2) / (w1 + w2), w1 + w2, n1 + n2])
    return np.concatenate([np.full(int(n), m) for m, _, n in blocks])


def fit_isotonic(data: PlayData, column: int) -> Isotonic:
    """The monotone map of ``column`` to the observed clear rate, increasing or decreasing,
    whichever leaves the smaller weighted squared error."""
    x = data.x[:, column]
    order = np.argsort(x, kind="stable")
    xs, ys, ws = x[order], data.observed[order], data.attempts[order].astype(float)
    best: tuple[float, np.ndarray] | None = None
    for sign in (1.0, -1.0):
        fitted = sign * pava(sign * ys, ws)
        sse = float(np.sum(ws * (fitted - ys) ** 2))
        if best is None or sse < best[0]:
            best = (sse, fitted)
    assert best is not None
    # Equal x values must map to one rate: average the fitted rates of ties (still monotone).
    knots, inverse = np.unique(xs, return_inverse=True)
    rates = np.bincount(inverse, weights=best[1] * ws) / np.bincount(inverse, weights=ws)
    return Isotonic(column, knots, rates)


Model = Logistic | Isotonic


# -- cross-validation --------------------------------------------------------------------------

def folds(n: int, k: int, rng: np.random.Generator) -> list[np.ndarray]:
    """A random partition of ``range(n)`` into ``min(k, n)`` folds of near-equal size."""
    return [np.sort(f) for f in np.array_split(rng.permutation(n), min(k, n))]


def log_loss(data: PlayData, p: np.ndarray) -> float:
    """Minus the binomial log-likelihood per attempt (the choose term left out)."""
    p = np.clip(p, CLIP, 1 - CLIP)
    y, n = data.clears, data.attempts
    return float(-(y * np.log(p) + (n - y) * np.log(1 - p)).sum() / n.sum())


@dataclass(frozen=True)
class HeldOut:
    """Out-of-fold predictions of one way of predicting: ``eta`` and its fit and measurement
    variances per level, in the data's order."""

    name: str
    eta: np.ndarray
    fit_var: np.ndarray
    meas_var: np.ndarray

    @property
    def rate(self) -> np.ndarray:
        return _expit(self.eta)


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


def residual_variance(data: PlayData, held: HeldOut) -> float:
    """``tau^2``: the between-level variance on the logit scale that the features leave
    unexplained, from held-out residuals ``r_i`` of the empirical logits by the method of
    moments: ``sum w_i (r_i^2 - v_i - tau^2) = 0`` with ``v_i`` the sampling, fit and
    measurement variances and ``w_i = 1 / (v_i + tau^2)^2``, solved by fixed-point iteration."""
    el = np.log((data.clears + 0.5) / (data.attempts - data.clears + 0.5))
    samp = 1 / (data.clears + 0.5) + 1 / (data.attempts - data.clears + 0.5)
    r2 = (el - held.eta) ** 2
    v = samp + held.fit_var + held.meas_var
    tau2 = max(0.0, float(np.mean(r2 - v)))
    for _ in range(50):
        # E[r_i^2 - v_i] = tau^2 for every level, and Var[r_i^2] grows as (v_i + tau^2)^2.
        w = 1 / (v + tau2) ** 2
        new = max(0.0, float(np.sum(w * (r2 - v)) / np.sum(w)))
        if abs(new - tau2) < 1e-10:
            break
        tau2 = new
    return tau2


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
    """A predicted clear rate, its standard error on the logit scale (``eta_se``) and its
    :data:`LEVEL` interval on the clear rate."""

    rate: float
    eta_se: float
    low: float
    high: float

    @property
    def se(self) -> float:
        """The standard error on the clear rate's own scale (delta method)."""
        return self.rate * (1 - self.rate) * self.eta_se

    def to_json(self) -> dict:
        return {"rate": round(self.rate, 4), "se": round(self.se, 4),
                "interval": [round(self.low, 4), round(self.high, 4)]}


@dataclass(frozen=True)
class Calibration:
    """A fitted map from a level's features to its players' clear rate (module docstring),
    and how it fared on held-out levels. ``source`` holds the pack's and the plays'
    descriptions as the calibration file records them."""

    model: Model
    tau2: float
    chosen_by: dict
    held_out: tuple[Scores, ...]
    levels: int
    attempts: int
    source: dict = field(default_factory=dict)

    @property
    def kind(self) -> ModelKind:
        return ModelKind.LOGISTIC if isinstance(self.model, Logistic) else ModelKind.ISOTONIC

    def predict_x(self, x: np.ndarray, var: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(eta, its variance)`` for rows of transformed features and their variances."""
        eta = self.model.eta(x)
        total = self.tau2 + self.model.fit_var(x) + _meas_var(self.model, x, var)
        return eta, total

    def predict(self, metrics: Mapping, players: Mapping | None) -> Prediction | None:
        """The prediction for a level's ``metrics`` and ``players`` (``None`` when a feature is
        missing: :func:`features_of`)."""
        feats = features_of(metrics, players)
        if feats is None:
            return None
        eta, v = self.predict_x(feats[0][None, :], feats[1][None, :])
        se = math.sqrt(float(v[0]))
        e = float(eta[0])
        return Prediction(float(_expit(np.array(e))), se, float(_expit(np.array(e - Z90 * se))),
                          float(_expit(np.array(e + Z90 * se))))

    def to_json(self) -> dict:
        m = self.model
        model: dict = {"kind": str(self.kind), "residual_sd": round(math.sqrt(self.tau2), 6)}
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
        :class:`CalibrationError` naming the key that is wrong."""
        if not isinstance(obj, dict) or obj.get("format") != CALIBRATION_FORMAT:
            found = obj.get("format") if isinstance(obj, dict) else type(obj).__name__
            raise CalibrationError(f"{where}: format: expected {CALIBRATION_FORMAT!r}, found {found!r}")
        m: Any = obj.get("model")
        try:
            names = [FEATURES.index(Feature(n, Transform(t))) for n, t in zip(m["features"], m["transforms"])]
            tau2 = float(m["residual_sd"]) ** 2
            model: Model
            if m["kind"] == ModelKind.LOGISTIC:
                k = len(names)
                mean, sd, coef = (np.array(m[key], dtype=np.float64) for key in ("mean", "sd", "coefficients"))
                cov = np.array(m["covariance"], dtype=np.float64)
                if mean.shape != (k,) or sd.shape != (k,) or coef.shape != (k,) or cov.shape != (k + 1, k + 1):
                    raise ValueError("mean, sd, coefficients and covariance must match the features")
                model = Logistic(tuple(names), mean, sd, float(m["intercept"]), coef, cov)
            elif m["kind"] == ModelKind.ISOTONIC:
                knots, rates = np.array(m["knots"], dtype=np.float64), np.array(m["rates"], dtype=np.float64)
                if len(names) != 1 or knots.shape != rates.shape or len(knots) < 1:
                    raise ValueError("an isotonic model has one feature and as many rates as knots")
                model = Isotonic(names[0], knots, rates)
            else:
                raise ValueError(f"kind must be logistic or isotonic, not {m['kind']!r}")
        except (KeyError, TypeError, ValueError) as e:
            raise CalibrationError(f"{where}: model: expected a logistic or isotonic model over "
                                   f"{', '.join(f.name for f in FEATURES)}: {e}") from None
        return cls(model, tau2, dict(obj.get("cross_validation") or {}), (), int(obj.get("levels", 0)),
                   int(obj.get("attempts", 0)), {k: obj[k] for k in ("pack", "plays") if k in obj})


def _floats(a: np.ndarray) -> list[float]:
    return [round(float(v), 8) for v in a]


def _one_feature(column: int):
    return lambda d: fit_logistic(d, [column])


def fit(data: PlayData, seed: int = 0, folds_k: int = FOLDS, boot: int = BOOTSTRAP) -> Calibration:
    """Fit both models, keep the one whose held-out log-loss is lower, and score it, the best
    single feature and the random clear rate alone on held-out levels (module docstring).
    Raises :class:`CalibrationError` when :func:`check_data` does. A pure function of its
    arguments."""
    check_data(data)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    parts = folds(len(data), folds_k, rng)
    singles = {c: cross_validate(data, _one_feature(c), parts, FEATURES[c].name) for c in range(len(FEATURES))}
    best_col = min(singles, key=lambda c: log_loss(data, singles[c].rate))
    everything = list(range(len(FEATURES)))
    candidates = {
        ModelKind.LOGISTIC: cross_validate(data, lambda d: fit_logistic(d, everything), parts, "logistic"),
        ModelKind.ISOTONIC: cross_validate(data, lambda d: fit_isotonic(d, best_col), parts,
                                           f"isotonic on {FEATURES[best_col].name}"),
    }
    losses = {k: log_loss(data, h.rate) for k, h in candidates.items()}
    kind = min(losses, key=lambda k: losses[k])
    held = candidates[kind]
    model: Model = fit_logistic(data, everything) if kind is ModelKind.LOGISTIC else fit_isotonic(data, best_col)
    tau2 = residual_variance(data, held)
    base_col = next(i for i, f in enumerate(FEATURES) if f.name == BASELINE)
    scores = (score(data, HeldOut("calibrated", held.eta, held.fit_var, held.meas_var), rng, boot),
              score(data, HeldOut(f"best single feature: {FEATURES[best_col].name}", singles[best_col].eta,
                                  singles[best_col].fit_var, singles[best_col].meas_var), rng, boot),
              score(data, HeldOut(f"baseline: {BASELINE} alone", singles[base_col].eta,
                                  singles[base_col].fit_var, singles[base_col].meas_var), rng, boot))
    chosen = {"folds": len(parts), "seed": seed, "chosen": str(kind),
              "log_loss": {str(k): round(v, 6) for k, v in losses.items()}}
    return Calibration(model, tau2, chosen, scores, len(data), int(data.attempts.sum()))


__all__ = ["CALIBRATION_FORMAT", "MIN_LEVELS", "MIN_ATTEMPTS", "FOLDS", "RIDGE", "BOOTSTRAP", "LEVEL", "Z90",
           "FEATURES", "BASELINE", "CalibrationError", "Transform", "ModelKind", "Feature", "PlayData",
           "Prediction", "Calibration", "Scores", "Figure", "Decile", "Logistic", "Isotonic", "features_of",
           "empirical_logit", "check_data", "fit", "fit_logistic", "fit_isotonic", "pava", "spearman",
           "cross_validate", "residual_variance", "log_loss", "folds", "score"]
