"""Elo ratings from game results: maximum likelihood with normal-approximation
confidence intervals.

The model is Bradley–Terry on the Elo scale: agent ``i`` scores against ``j`` with
expectation ``1 / (1 + 10 ** (-(R_i - R_j) / 400))``; a win scores 1, a draw 0.5, a
loss 0 (a draw counts as half a win and half a loss). The ratings maximise the
likelihood of the observed scores plus a weak prior — every agent is given one
virtual draw against a reference rated 0 — which keeps them finite when an agent won
or lost every game (and pulls ratings from few games a little towards the mean).
The ratings are then shifted to average 0. The confidence intervals come from the
curvature of the log-likelihood at the maximum (the observed Fisher information):
``rating ± z · standard error``, ``z = 1.96`` for 95 %.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import numpy as np

__all__ = ["EloRating", "elo_ratings"]

_SCALE = 400.0 / math.log(10.0)
"""Elo points per unit of log-odds."""


@dataclass(frozen=True)
class EloRating:
    """One agent's rating, its standard error and confidence interval (Elo points)."""

    elo: float
    stderr: float
    low: float
    high: float


def elo_ratings(
    n: int, games: Sequence[tuple[int, int, float]], z: float = 1.96
) -> list[EloRating]:
    """Ratings of ``n`` agents from ``games``: ``(i, j, score of i)`` triples, the score
    1 (i won), 0.5 (draw) or 0 (j won)."""
    theta = np.zeros(n)
    if n == 0:
        return []
    ii = np.array([g[0] for g in games], dtype=np.int64)
    jj = np.array([g[1] for g in games], dtype=np.int64)
    ss = np.array([g[2] for g in games], dtype=np.float64)
    if np.any((ss < 0) | (ss > 1)):
        raise ValueError("a score must lie in [0, 1]")
    if np.any(ii == jj):
        raise ValueError("an agent cannot play itself")
    hess = np.zeros((n, n))
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-(theta[ii] - theta[jj])))
        w = p * (1.0 - p)
        grad = np.zeros(n)
        np.add.at(grad, ii, ss - p)
        np.add.at(grad, jj, p - ss)
        hess = np.zeros((n, n))
        np.add.at(hess, (ii, ii), -w)
        np.add.at(hess, (jj, jj), -w)
        np.add.at(hess, (ii, jj), w)
        np.add.at(hess, (jj, ii), w)
        # The prior: one draw against a reference rated 0.
        q = 1.0 / (1.0 + np.exp(-theta))
        grad += 0.5 - q
        hess[np.diag_indices(n)] -= q * (1.0 - q)
        step = np.linalg.solve(hess, grad)
        theta = theta - step
        if float(np.max(np.abs(step))) < 1e-10:
            break
    cov = np.linalg.inv(-hess)
    centre = np.eye(n) - np.full((n, n), 1.0 / n)
    cov = centre @ cov @ centre.T
    ratings = (theta - theta.mean()) * _SCALE
    errors = np.sqrt(np.clip(np.diag(cov), 0.0, None)) * _SCALE
    return [
        EloRating(float(r), float(e), float(r - z * e), float(r + z * e))
        for r, e in zip(ratings, errors)
    ]
