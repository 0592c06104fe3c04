"""What a calibration is made of: a level's features (:data:`FEATURES`, read by
:func:`features_of` from what ``make`` stores), the play data they are fitted to
(:class:`PlayData`), and the two models (:class:`Logistic`, :class:`Isotonic`) with their fits.
:mod:`llkgen.analysis.calibration` chooses between them, cross-validates, and says how far a
prediction can be trusted; its docstring argues each choice made here."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import numpy as np

from llkgen.analysis.ladder import MODELS

#: The ridge penalty on the standardised coefficients (a prior sd of 1/sqrt(RIDGE) per
#: standard deviation of a feature, on the logit scale). Small: it matters only when the data
#: nearly separate or features are collinear (the clear rates are).
RIDGE = 1.0
#: Levels a rate is clipped to, away from 0 and 1, before taking its logit for an isotonic
#: prediction (a flat block at 0 would otherwise have an infinite logit).
CLIP = 1e-3

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


def empirical_logit(cleared: Any, runs: Any) -> tuple[Any, Any]:
    """``(log((c + 1/2) / (n - c + 1/2)), its variance 1/(c + 1/2) + 1/(n - c + 1/2))`` of
    ``c`` clears in ``n`` runs: numbers, or arrays element by element."""
    a, b = np.add(cleared, 0.5), np.subtract(runs, cleared) + 0.5
    return np.log(a / b), 1.0 / a + 1.0 / b


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


# -- the models -------------------------------------------------------------------------------

def expit(eta: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-np.clip(eta, -30, 30)))


def logit(p: np.ndarray) -> np.ndarray:
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
        p = expit(d @ beta)
        grad = d.T @ (y - n * p) - pen * beta
        hess = (d * (n * p * (1 - p))[:, None]).T @ d + np.diag(pen) + 1e-9 * np.eye(len(beta))
        step = np.linalg.solve(hess, grad)
        beta = beta + step
        if np.max(np.abs(step)) < 1e-9:
            break
    p = expit(d @ beta)
    hess = (d * (n * p * (1 - p))[:, None]).T @ d + np.diag(pen) + 1e-9 * np.eye(len(beta))
    # Quasi-binomial: levels differ by more than their attempts' binomial noise (tau^2), so the
    # coefficients are less certain than the binomial Hessian says, by the Pearson dispersion.
    # Without it the fit's error was 10-20 times too small at 200 attempts a level.
    pearson = float(np.sum((y - n * p) ** 2 / np.maximum(n * p * (1 - p), 1e-12)))
    dispersion = max(1.0, pearson / max(1, len(y) - d.shape[1]))
    return Logistic(cols, mean, sd, float(beta[0]), beta[1:].copy(), dispersion * np.linalg.inv(hess))


@dataclass(frozen=True)
class Isotonic:
    """A monotone map of feature ``column``: clear rate ``np.interp(x, knots, rates)``."""

    column: int
    knots: np.ndarray
    rates: np.ndarray

    def rate(self, x: np.ndarray) -> np.ndarray:
        return np.interp(x[:, self.column], self.knots, self.rates)

    def eta(self, x: np.ndarray) -> np.ndarray:
        return logit(self.rate(x))

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


__all__ = ["RIDGE", "CLIP", "Transform", "ModelKind", "Feature", "FEATURES", "BASELINE", "empirical_logit",
           "features_of", "PlayData", "Logistic", "Isotonic", "Model", "fit_logistic", "fit_isotonic", "pava",
           "expit", "logit"]
