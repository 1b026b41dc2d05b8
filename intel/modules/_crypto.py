"""Helpers shared by the crypto modules (bitcoin, ethereum, crypto_market, crypto_momentum, crypto_volatility,
btc_macro_correlation, crypto_risk). Registers nothing (underscore file).

Crypto trades every calendar day (CBBTCUSD and CBETHUSD have weekend observations), so volatility is
annualised with 365 and windows count calendar days; against business-day series (equities, the dollar,
yields) levels are first joined on common dates and changes taken between those common dates."""
from __future__ import annotations

import numpy as np
import polars as pl

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import drawdown_profile, fig, observed_horizon_returns, pct_word, trend_profile

DAYS_PER_YEAR = 365
COINS = {"CBBTCUSD": ("BTC", "bitcoin"), "CBETHUSD": ("ETH", "ether")}  # every coin the catalog carries


def vol_op(n: int, per_year: int = DAYS_PER_YEAR) -> str:
    return f"annualized (x sqrt {per_year}) sample std of the last {n} daily log returns, percent"


# ---- figures from named closes (envelope.nth_obs, envelope.observed_level), which an agent can recompute ----


def exact_drawdown(frame: pl.DataFrame, series_id: str) -> dict:
    """_common.drawdown_profile with the high and the drawdown from it made from their named closes (call it
    inside a scope of the series: the days and the deepest drawdown rest on its history)."""
    out = drawdown_profile(frame)
    peak = envelope.nth_obs(frame, series_id, int(np.argmax(frame["value"].to_numpy())))
    out["high"] = envelope.observed_level(peak, 2, "highest close in the history used")
    out["drawdown_from_high_pct"] = envelope.pct_change(envelope.last_obs(frame, series_id), peak, 2,
                                                        op="percent change from the highest close to the last close")
    out["days_since_high"] = envelope.count(out["days_since_high"],
                                            "calendar days from the highest close to the last close")
    out["max_drawdown_pct"] = envelope.rnd(out["max_drawdown_pct"], 2, "deepest fall below a running high, percent")
    return out


def rolling_vol_pct(rets: np.ndarray, n: int, per_year: int = DAYS_PER_YEAR) -> np.ndarray:
    """Annualised rolling realized volatility in percent (365 periods a year unless told otherwise)."""
    return indicators.annualize(indicators.rolling_std(rets, n), per_year)


def rolling_beta(y: np.ndarray, x: np.ndarray, w: int) -> np.ndarray:
    """OLS slope of y on x (with intercept) over each trailing window of w points, NaN in warm-up."""
    out = np.full(len(x), np.nan)
    if len(x) < w or w < 3:
        return out
    x, y = x - x.mean(), y - y.mean()  # centring keeps the running sums well conditioned
    sx, sy, sxx, sxy = (indicators.window_sums(a, w) for a in (x, y, x * x, x * y))
    var = w * sxx - sx * sx
    with np.errstate(divide="ignore", invalid="ignore"):
        out[w - 1:] = np.where(var > 1e-18 * w * w, (w * sxy - sx * sy) / var, np.nan)
    return out


def aligned_changes(fa: pl.DataFrame, kind_a: str, fb: pl.DataFrame, kind_b: str):
    """(day numbers, changes of a, changes of b) between consecutive COMMON dates (indicators.common_changes),
    scaled by 100: `log` returns in percent, `bp` differences in basis points of a percent-quoted series.
    Empty under three common dates."""
    kinds = {"log": "log", "bp": "diff"}
    got = indicators.common_changes(fa, kinds[kind_a], fb, kinds[kind_b], min_dates=3)
    if got is None:
        return np.empty(0, dtype=np.int64), np.empty(0), np.empty(0)
    days, a, b = got
    return days, a * 100, b * 100


def covered_coins(frames: Frames, block, missing_key: str = "{}", needs: tuple[str, str] | None = None
                  ) -> tuple[dict, dict]:
    """({symbol: {"series": id, **block(frames, id)}} for the coins present, unavailable): an absent coin is
    noted under missing_key; with needs=(field, why), so is a coin whose block left that field None. Each
    block is computed in a scope of its coin's series alone."""
    coins, unavailable = {}, {}
    for sid, (symbol, _) in COINS.items():
        if frames.get(sid) is None:
            unavailable[missing_key.format(symbol)] = f"{sid} missing"
            continue
        with provenance.about(frames, sid):
            coins[symbol] = {"series": sid, **block(frames, sid)}
        if needs is not None and coins[symbol][needs[0]] is None:
            unavailable[f"{symbol}.{needs[0]}"] = needs[1]
    return coins, unavailable


def coin_profile(frames: Frames, series_id: str) -> dict:
    """The bitcoin module's figures for any coin: price, returns, trend vs averages, vol and drawdown. The
    price, returns and drawdown from the high come from named closes; the rest rests on the coin's series."""
    frame = frames.get(series_id)
    close = frame["value"].to_numpy()
    with provenance.about(frames, series_id):
        data = {"price_usd": envelope.level(frames, series_id, 2, op="latest close"),
                "date": frame["date"][-1].isoformat()}
        data.update(observed_horizon_returns(frame, series_id))
        data.update(trend_profile(frame))
        for n in (30, 90):
            data[f"realized_vol_{n}d_pct"] = envelope.rnd(indicators.realized_vol(close, n, DAYS_PER_YEAR), 2,
                                                          vol_op(n))
        data.update(exact_drawdown(frame, series_id))
    data["history_start"] = frame["date"][0].isoformat()
    return data


def coin_signals(data: dict, sources: dict, series_id: str, prefix: str, name: str, severe_dd: float) -> list[dict]:
    """From a coin_profile: the trend signal and, 20% or more below the high, a drawdown signal (high
    urgency from `severe_dd`, a coin's own threshold)."""
    state, dist, dd = data["trend_state"], data["distance_to_sma200_pct"], data["drawdown_from_high_pct"]
    direction = {"uptrend": "bullish", "downtrend": "bearish"}.get(state, "neutral")
    confidence = envelope.degrade(0.5 + min(0.4, abs(dist or 0) / 50), sources, [series_id])
    out = [envelope.signal(f"{prefix}_trend", direction, confidence, "low",
                           f"{name} in {trend_word(state)}, {fig(dist, '%')} from its 200-day average")]
    if dd <= -20:
        out.append(envelope.signal(f"{prefix}_drawdown", "bearish", envelope.degrade(0.6, sources, [series_id]),
                                   "high" if dd <= severe_dd else "medium",
                                   f"{name} {abs(dd)}% below its high of {data['high_date']}"))
    return out


def coin_summary(name: str, data: dict) -> str:
    """The opening sentences of a coin's summary, from its coin_profile."""
    dist, dd = data["distance_to_sma200_pct"], data["drawdown_from_high_pct"]
    return (f"{name} trades at {data['price_usd']} USD, {pct_word(data['change_1d_pct'])} on the day, "
            f"{pct_word(data['change_1m_pct'])} over a month and {pct_word(data['change_1y_pct'])} over a year. "
            f"It is {fig(data['distance_to_sma50_pct'], '%')} from its 50-day and {fig(dist, '%')} from its "
            f"200-day average ({trend_word(data['trend_state'])}), with 30-day realized volatility of "
            f"{fig(data['realized_vol_30d_pct'], '%')} and a drawdown of {abs(dd)}% from the {data['high']} high "
            f"of {data['high_date']}.")


def ratio_frame(num: pl.DataFrame, den: pl.DataFrame) -> pl.DataFrame:
    """num / den on common dates (a price ratio), as a `date, value` frame; `num` and `den` keep both legs."""
    joined = num.join(den, on="date", how="inner", suffix="_den").sort("date")
    return joined.select("date", (pl.col("value") / pl.col("value_den")).alias("value"),
                         pl.col("value").alias("num"), pl.col("value_den").alias("den")) \
        .filter(pl.col("value").is_finite())


def last_ratio(ratio: pl.DataFrame, num_id: str, den_id: str, digits: int, op: str):
    """The last value of a ratio_frame, from the two named closes of its last common date."""
    day = ratio["date"][-1]
    return envelope.ratio((num_id, day, float(ratio["num"][-1])), (den_id, day, float(ratio["den"][-1])), digits, op=op)


def trend_word(state: str) -> str:
    return state.replace("_", " ")
