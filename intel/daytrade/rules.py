"""The rules that open a paper idea at a bar's close, one per track, and the one rule that closes it.

Both read only the closes up to and including the decision bar. Each idea is held one session: it exits at the close
of the instrument's next bar (a day trade on daily bars, close to close).
- `main`, pullback in a trend: the previous close is above its 20-bar average and today's return falls more than one
  standard deviation of the previous 20 daily returns: long (mirror: below the average and a rally: short).
- `other`, 20-bar breakout: the close above the highest of the previous 20 closes: long (below the lowest: short).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

WINDOW = 20
TRACKS = ("main", "other")
RULES = {"main": "pullback_in_trend", "other": "breakout_20"}


@dataclass(frozen=True)
class Decision:
    side: str  # "long" | "short"
    rule: str
    reason: str  # one sentence, every figure computed from the closes


def _pct(x: float) -> str:
    return f"{x * 100:+.2f}%"


def pullback_in_trend(name: str, closes: np.ndarray) -> Decision | None:
    if len(closes) < WINDOW + 2:
        return None
    prev, last = closes[-2], closes[-1]
    average = float(np.mean(closes[-WINDOW - 1:-1]))
    returns = closes[-WINDOW - 1:-1] / closes[-WINDOW - 2:-2] - 1
    sigma, move = float(np.std(returns, ddof=1)), float(last / prev - 1)
    if prev > average and move < -sigma:
        side, trend, word = "long", "above", "pullback in an uptrend, bought"
    elif prev < average and move > sigma:
        side, trend, word = "short", "below", "rally in a downtrend, sold short"
    else:
        return None
    return Decision(side, RULES["main"],
                    f"{name} moved {_pct(move)} on the day to close at {last:.2f}, beyond its 20-day "
                    f"daily volatility of {sigma * 100:.2f}%, after closing {trend} its 20-day average of "
                    f"{average:.2f}: a {word} for one session.")


def breakout_20(name: str, closes: np.ndarray) -> Decision | None:
    if len(closes) < WINDOW + 1:
        return None
    last, prior = closes[-1], closes[-WINDOW - 1:-1]
    high, low = float(np.max(prior)), float(np.min(prior))
    if last > high:
        side, text = "long", f"above the highest of its previous 20 closes ({high:.2f})"
    elif last < low:
        side, text = "short", f"below the lowest of its previous 20 closes ({low:.2f})"
    else:
        return None
    return Decision(side, RULES["other"], f"{name} closed at {last:.2f}, {text}: a 20-day breakout taken "
                                          f"{'long' if side == 'long' else 'short'} for one session.")


DECIDE = {"main": pullback_in_trend, "other": breakout_20}


def decide(track: str, name: str, closes: np.ndarray) -> Decision | None:
    """The track's rule at the last of `closes` (oldest first), or None when it does not fire."""
    return DECIDE[track](name, np.asarray(closes, dtype=float))


def paper_pnl_pct(side: str, entry: float, exit_: float) -> float:
    """Close-to-close percentage change in the idea's direction, before costs."""
    change = exit_ / entry - 1
    return round((change if side == "long" else -change) * 100, 4)
