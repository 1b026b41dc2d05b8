"""Probabilities from features: a ridge-regularised logistic regression fitted by Newton steps (numpy only),
on (features, outcome) pairs whose outcome was published before the fit's cutoff.

Why this much shrinkage: consecutive daily statements overlap (21 trading days share 20), so a fit on n daily
pairs carries about n / horizon independent outcomes. The penalty is a Gaussian prior of sd 0.5 on each
standardised coefficient with the likelihood counted at that effective size (lambda = 4 * horizon); the
intercept is not penalised, so an empty signal falls back to the base rate of the fit window."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

P_MIN, P_MAX = 0.01, 0.99
MIN_FIT_CASES = 250  # fewer resolved pairs than this: no prediction that day
MIN_CLASS_CASES = 20  # each outcome must have been seen at least this often
PRIOR_SD = 0.5


@dataclass(frozen=True)
class Fit:
    question: str
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    intercept: float
    coef: tuple[float, ...]
    fitted_on: tuple[str, str]  # first and last issue date of the pairs fitted
    n_fit: int
    cutoff: str  # every fitted outcome was published before this day

    @property
    def name(self) -> str:
        return f"logit({', '.join(self.features)}) ridge sd {PRIOR_SD}, outcomes published before {self.cutoff}"

    def model_record(self) -> dict:
        return {"name": self.name, "fitted_on": list(self.fitted_on), "n_fit": self.n_fit}

    def probability(self, x) -> float:
        return float(predict(self, np.asarray(x, dtype=np.float64)[None, :])[0])


def predict(fit: Fit, x: np.ndarray) -> np.ndarray:
    z = (x - np.asarray(fit.mean)) / np.asarray(fit.scale)
    p = 1.0 / (1.0 + np.exp(-np.clip(fit.intercept + z @ np.asarray(fit.coef), -50.0, 50.0)))
    return np.clip(p, P_MIN, P_MAX)


def logit_newton(z: np.ndarray, y: np.ndarray, lam: float, steps: int = 50,
                 intercept_prior: float | None = None) -> np.ndarray:
    """Weights [intercept, coef...] minimising the log loss + lam/2 * |coef|^2 on standardised z; with
    `intercept_prior` (a logit), also + lam/2 * (intercept - intercept_prior)^2."""
    design = np.column_stack([np.ones(len(z)), z])
    penalty = np.full(design.shape[1], lam)
    prior = np.zeros(design.shape[1])
    penalty[0] = 0.0 if intercept_prior is None else lam
    prior[0] = intercept_prior or 0.0
    w = np.zeros(design.shape[1])
    rate = np.clip(y.mean(), 1e-6, 1 - 1e-6)
    w[0] = np.log(rate / (1 - rate))
    for _ in range(steps):
        p = 1.0 / (1.0 + np.exp(-(design @ w)))
        grad = design.T @ (p - y) + penalty * (w - prior)
        hess = (design * (p * (1 - p))[:, None]).T @ design + np.diag(penalty) + 1e-9 * np.eye(len(w))
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.max(np.abs(step)) < 1e-8:
            break
    return w


def fit_question(question: str, names: tuple[str, ...], x: np.ndarray, y: np.ndarray, issued: list[str],
                 horizon_obs: int, cutoff: str) -> Fit | None:
    """The fit on pairs (x row, outcome y) issued from issued[0] to issued[-1] (ISO dates), or None when the sample
    is too small (fewer than MIN_FIT_CASES pairs, or fewer than MIN_CLASS_CASES of either outcome)."""
    y = np.asarray(y, dtype=np.float64)
    positives = int(y.sum())
    if len(y) < MIN_FIT_CASES or min(positives, len(y) - positives) < MIN_CLASS_CASES:
        return None
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    lam = max(horizon_obs, 1) / PRIOR_SD ** 2  # 4 * horizon at sd 0.5 (see the module docstring)
    w = logit_newton((x - mean) / scale, y, lam)
    return Fit(question, names, tuple(map(float, mean)), tuple(map(float, scale)), float(w[0]),
               tuple(map(float, w[1:])), (issued[0], issued[-1]), len(y), cutoff)
