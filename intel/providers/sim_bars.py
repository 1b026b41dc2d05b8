"""Daily OHLCV bars for any ticker in the simulation.

A ticker the catalog prices (SP500, the sector ETFs, bitcoin...) gets bars around its simulated close;
any other ticker gets its own path with a beta to the equity factor, its parameters drawn from a stable
hash of the ticker so every process and every run agrees on them.
"""
from __future__ import annotations

import hashlib
import re

import numpy as np

from intel.providers.sim_noise import Draws

VALID_TICKER = re.compile(r"^[A-Za-z0-9.^=-]+$")


def valid_ticker(ticker: str) -> bool:
    return bool(ticker) and VALID_TICKER.match(ticker) is not None


def ticker_profile(ticker: str) -> dict[str, float]:
    """Beta, idiosyncratic vol, first price, drift and typical volume, fixed by the ticker's name."""
    digest = hashlib.sha256(ticker.upper().encode()).digest()
    u = [int.from_bytes(digest[i:i + 4], "big") / 2**32 for i in range(0, 20, 4)]
    return {
        "beta": 0.6 + 1.0 * u[0],
        "idio": 0.008 + 0.017 * u[1],
        "first": 10.0 * 40.0 ** u[2],  # 10 to 400
        "drift": (u[3] - 0.4) * 0.0006,
        "volume": 1e5 * 500.0 ** u[4],  # 100 thousand to 50 million shares a day
    }


def synthetic_closes(draws: Draws, ticker: str, days: np.ndarray, market_returns: np.ndarray) -> np.ndarray:
    profile = ticker_profile(ticker)
    shocks = draws.fat(f"ticker.{ticker.upper()}", days)
    daily = profile["drift"] + profile["beta"] * market_returns + profile["idio"] * shocks
    return profile["first"] * np.exp(np.cumsum(daily))


def ohlcv(draws: Draws, ticker: str, days: np.ndarray, closes: np.ndarray) -> dict[str, np.ndarray]:
    """Open, high, low and volume around given closes; prices rounded to the cent, ranges kept valid."""
    key = f"bars.{ticker.upper()}"
    returns = np.diff(np.log(closes), prepend=np.log(closes[0]))
    vol = np.sqrt(np.convolve(returns**2, np.ones(21) / 21, mode="full")[: len(returns)]) + 0.004
    prior = np.concatenate([[closes[0]], closes[:-1]])
    opens = prior * np.exp(0.3 * vol * draws.normal(f"{key}.gap", days))
    highs = np.maximum(opens, closes) * np.exp(0.6 * vol * np.abs(draws.normal(f"{key}.up", days)))
    lows = np.minimum(opens, closes) * np.exp(-0.6 * vol * np.abs(draws.normal(f"{key}.down", days)))
    opens, closes, highs, lows = (np.maximum(np.round(a, 2), 0.01) for a in (opens, closes, highs, lows))
    highs = np.maximum.reduce([highs, opens, closes])
    lows = np.minimum.reduce([lows, opens, closes])
    surprise = np.abs(returns) / vol
    volume = np.round(ticker_profile(ticker)["volume"] * np.exp(0.3 * draws.normal(f"{key}.volume", days))
                      * (1 + 0.8 * surprise))
    return {"open": opens, "high": highs, "low": lows, "close": closes, "volume": np.maximum(volume, 1.0)}
