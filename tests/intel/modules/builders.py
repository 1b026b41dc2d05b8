"""Builders for constructed series and the checks every module payload must pass (imported by the
module, regime and pulse tests)."""
from __future__ import annotations

import math
import re
from datetime import UTC, date, datetime, timedelta

import numpy as np
import orjson
import pandas as pd
import polars as pl

from intel.formats import FORMATS, flatten, render
from intel.frames import Frames

NOW = date(2024, 6, 28)  # a Friday


def bdays(n: int, end: date = NOW) -> list[date]:
    """The last n business days up to `end`."""
    days = np.busday_offset(np.datetime64(end, "D"), -np.arange(n)[::-1], roll="backward")
    return [d.astype(date) for d in days]


def cdays(n: int, end: date = NOW) -> list[date]:
    """The last n calendar days up to `end` (crypto trades every day)."""
    last = np.datetime64(end, "D")
    return [(last - np.timedelta64(int(k), "D")).astype(date) for k in range(n)][::-1]


def month_starts(n: int, last: date = date(2024, 5, 1)) -> list[date]:
    """The first days of the last n calendar months up to `last`'s month (monthly series are dated the 1st)."""
    index = last.year * 12 + last.month - 1
    return [date((index - k) // 12, (index - k) % 12 + 1, 1) for k in range(n)][::-1]


def weekly(n: int, end: date = NOW, weekday: int | None = None) -> list[date]:
    """n dates a week apart ending on `end`, or on the last `weekday` (Monday 0) up to `end`."""
    if weekday is not None:
        end = end - timedelta(days=(end.weekday() - weekday) % 7)
    return [end - timedelta(weeks=k) for k in range(n - 1, -1, -1)]


def series(dates, values) -> pl.DataFrame:
    return pl.DataFrame({"date": list(dates), "value": [float(v) for v in values]},
                        schema={"date": pl.Date, "value": pl.Float64})


def make_frames(parts: dict[str, pl.DataFrame], now: date = NOW) -> Frames:
    if not parts:
        return Frames(now=now, series={}, data_source="test")
    long = pl.concat([df.with_columns(pl.lit(sid).alias("series_id")) for sid, df in parts.items()])
    return Frames.from_long(long.select("series_id", "date", "value"), now, data_source="test")


def compounded(rates, start: float = 100.0) -> np.ndarray:
    """A level series growing by each period's rate (0.01 = 1%), from `start`."""
    return start * np.cumprod(1 + np.asarray(rates))


def to_pandas(frame: pl.DataFrame) -> pd.Series:
    """A `date, value` frame as a pandas series on a DatetimeIndex (for reference computations)."""
    return pd.Series(frame["value"].to_list(), index=pd.to_datetime(frame["date"].to_list()))


def ohlcv(dates, close, wiggle, volume, ranges: bool = True) -> pl.DataFrame:
    """Daily ticker bars: open at the close, high and low the close +/- wiggle. ranges=False blanks open,
    high, low and volume, as a closes-only source would."""
    frame = pl.DataFrame({"date": list(dates), "open": close, "high": close + wiggle, "low": close - wiggle,
                          "close": close, "volume": volume})
    if not ranges:
        frame = frame.with_columns([pl.lit(None, pl.Float64).alias(c) for c in ("open", "high", "low", "volume")])
    return frame


def random_walk(n: int, start: float, vol: float, seed: int, drift: float = 0.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    return start * np.exp(np.cumsum(rng.normal(drift, vol, n)))


def _finite_everywhere(value) -> None:
    if isinstance(value, float):
        assert math.isfinite(value), "non-finite number in payload"
    elif isinstance(value, dict):
        for item in value.values():
            _finite_everywhere(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            _finite_everywhere(item)


FIGURE = re.compile(r"(?<![A-Za-z0-9_.\-])-?\d+(?:\.\d+)?(?!\.?[A-Za-z0-9_\-])")
ISO = re.compile(r"\d{4}-\d{2}(?:-\d{2})?")
# a word right before a figure that states its sign: "down 2.1%" is a fall of 2.1, so a negative figure;
# "plus 100 bp costs 8.4%" is a shock of +100 and a P&L of -8.4
RISE_WORDS = frozenset({"up", "rose", "rises", "gained", "gains", "climbed", "increased", "widened", "plus"})
FALL_WORDS = frozenset({"down", "fell", "falls", "dropped", "declined", "decreased", "lost", "loses", "costs",
                        "narrowed", "minus"})


def stated_sign(text: str, start: int, figure: str) -> int:
    """+1 or -1 where the text gives the figure a sign (a minus or plus, or a rise or fall word right before
    it), 0 where it states only a magnitude ("3.4% from its high")."""
    if figure.startswith("-") or text[max(0, start - 1):start] == "+":
        return -1 if figure.startswith("-") else 1
    before = text[:start].split()
    word = before[-1].lower().lstrip("(") if before else ""
    return 1 if word in RISE_WORDS else -1 if word in FALL_WORDS else 0


def figures_of_text_in_data(text: str, data: dict, where: str = "summary") -> None:
    """Every number in `text` is a value of `data` at the same rounding, with the sign the text states (a
    figure the text gives no sign may be either); every ISO date is a string there."""
    flat = flatten(data)
    strings = " ".join(str(v) for v in flat.values() if isinstance(v, str))
    numbers = [float(v) for v in flat.values() if isinstance(v, (int, float)) and not isinstance(v, bool)]
    for found in ISO.findall(text):
        assert found in strings, f"{where}: date {found} not in data: {text}"
    text = ISO.sub(" ", text).replace("S&P 500", "S&P")
    for match in FIGURE.finditer(text):
        figure = match.group(0)
        digits = len(figure.split(".")[1]) if "." in figure else 0
        size, sign = abs(float(figure)), stated_sign(text, match.start(), figure)
        signed = [v for v in numbers if sign == 0 or (v < 0) == (sign < 0) or round(v, digits) == 0]
        assert any(round(abs(v), digits) == size for v in signed), \
            f"{where}: {figure} not in data{' with that sign' if sign else ''}: {text}"


def summary_figures_in_data(payload: dict) -> None:
    """Every figure in the summary is a value in `data` after the same rounding (dates as strings)."""
    figures_of_text_in_data(payload["summary"], payload["data"])


def check_payload(payload: dict) -> None:
    """Envelope shape, no NaN anywhere, summary figures in data, and every format renders to JSON."""
    for key in ("module", "as_of", "data", "signals", "summary", "data_sources", "related_modules", "full_data"):
        assert key in payload, key
    assert "_meta" not in payload and payload["full_data"] is True
    for s in payload["signals"]:
        assert s["direction"] in ("bullish", "bearish", "neutral") and 0 <= s["confidence"] <= 1
        assert s["urgency"] in ("low", "medium", "high", "critical") and s["reason"]
    for s in payload["data_sources"]["series"]:
        assert {"id", "last_observation", "observations_used", "stale"} <= s.keys()
    assert all({"name", "reason"} <= r.keys() for r in payload["related_modules"])
    _finite_everywhere(payload)
    summary_figures_in_data(payload)
    for fmt in FORMATS:
        for include in (False, True):
            out = render(payload, fmt, include_prompt=include, previous=payload["data"],
                         now=datetime(2024, 7, 1, tzinfo=UTC))
            _finite_everywhere(out)
            orjson.dumps(out)


def stepped_market(n: int = 300) -> dict[str, pl.DataFrame]:
    """Flat series with a step or two near the end, so every regime fact and asset-class score can be worked
    out by hand: the S&P 500 at 100, 98.5 on the last day (Nasdaq 4.2 times it); VIX 16, 22 over the last 9
    sessions and 24 over the last 4; high-yield OAS 4.0%, 4.6% over the last 10; 2s10s +0.5; the broad
    dollar 100, 106 from 50 sessions back and 107.06 (1% more) over the last 20; the 10y 4.0%, 4.3% over
    the last 10; the 2y 3.5%; bitcoin 20000, 21000 over the last 20 days; WTI 75; EUR/USD 1.1."""
    dates, days = bdays(n), cdays(400)
    step = lambda before, after, k, size=n: np.r_[np.full(size - k, before), np.full(k, after)]  # noqa: E731
    spx = step(100.0, 98.5, 1)
    vix = np.r_[step(16.0, 22.0, 9)[:-4], np.full(4, 24.0)]
    usd = np.r_[np.full(n - 50, 100.0), np.full(30, 106.0), np.full(20, 107.06)]
    return {"SP500": series(dates, spx), "NASDAQCOM": series(dates, spx * 4.2), "VIXCLS": series(dates, vix),
            "BAMLH0A0HYM2": series(dates, step(4.0, 4.6, 10)), "T10Y2Y": series(dates, np.full(n, 0.5)),
            "DGS10": series(dates, step(4.0, 4.3, 10)), "DGS2": series(dates, np.full(n, 3.5)),
            "DTWEXBGS": series(dates, usd), "DEXUSEU": series(dates, np.full(n, 1.1)),
            "CBBTCUSD": series(days, step(20000, 21000, 20, len(days))), "DCOILWTICO": series(dates, np.full(n, 75.0))}


def market(kind: str = "calm", n: int = 800, seed: int = 11) -> dict[str, pl.DataFrame]:
    """A whole constructed market: `calm` (uptrend, low VIX, tight credit) or `crisis` (a 30% equity
    fall over the last 60 days, VIX in the 40s, high-yield spreads blowing out, a surging dollar)."""
    dates, days = bdays(n), cdays(int(n * 1.45))
    rng = np.random.default_rng(seed)
    ramp = lambda a, b, k: np.concatenate([np.full(n - k, a), np.linspace(a, b, k)])  # noqa: E731
    spx = random_walk(n, 3000, 0.005, seed, drift=0.0012)
    btc = random_walk(len(days), 20000, 0.02, seed + 1, drift=0.002)
    vix = 13 + rng.normal(0, 0.5, n)
    hy, curve, usd = ramp(3.6, 3.1, 60), np.full(n, 0.6), random_walk(n, 110, 0.002, seed + 2)
    if kind == "crisis":
        spx = spx * ramp(1.0, 0.7, 60)
        btc = btc * np.concatenate([np.ones(len(days) - 90), np.linspace(1, 0.45, 90)])
        vix, hy, curve = ramp(14, 45, 40), ramp(4.0, 8.5, 40), np.full(n, -0.3)
        usd = usd * ramp(1.0, 1.08, 60)
    return {"SP500": series(dates, spx), "NASDAQCOM": series(dates, spx * 4.2), "VIXCLS": series(dates, vix),
            "BAMLH0A0HYM2": series(dates, hy), "BAMLC0A0CM": series(dates, hy / 3),
            "T10Y2Y": series(dates, curve), "DGS10": series(dates, 4.0 + curve - 0.6 + rng.normal(0, 0.02, n)),
            "DGS2": series(dates, np.full(n, 3.4)), "DGS3MO": series(dates, np.full(n, 3.6)),
            "DTWEXBGS": series(dates, usd), "DEXUSEU": series(dates, 120 / usd),
            "CBBTCUSD": series(days, btc), "DCOILWTICO": series(dates, random_walk(n, 75, 0.02, seed + 3))}
