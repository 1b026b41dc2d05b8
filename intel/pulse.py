"""The free cross-market snapshot: regime, five asset-class signals with cross-market context,
correlation breaks, a composite score and premium teasers. The per-asset signals are shared with
market_intelligence."""
from __future__ import annotations

import re

import numpy as np

from intel import indicators, provenance
from intel.correlations import CORRELATION_ASSETS, correlation_breaks
from intel.envelope import (
    data_sources,
    dates,
    declared_inputs,
    degrade,
    difference,
    last_obs,
    level,
    obs_days_before,
    pct_change,
    rnd,
    series_status,
)
from intel.frames import Frames
from intel.regime import REGIME_INPUTS, risk_balance, traced_classify

ASSET_INPUTS = {"equities": ("SP500", "NASDAQCOM", "BAMLH0A0HYM2"), "bonds": ("DGS10", "DGS2"),
                "crypto": ("CBBTCUSD",), "volatility": ("VIXCLS", "SP500"), "fx": ("DTWEXBGS", "DEXUSEU")}
PULSE_INPUTS: tuple[str, ...] = tuple(dict.fromkeys(
    [*REGIME_INPUTS, *(s for ids in ASSET_INPUTS.values() for s in ids), *CORRELATION_ASSETS]))
# composite weights on risk-oriented scores (+1 = risk-on); the dollar counts inverted
PULSE_LOOKBACK_DAYS = 3700  # calendar days of history the pulse reads (its percentiles look back about ten years)
COMPOSITE_WEIGHTS = {"equities": 0.3, "volatility": 0.2, "credit": 0.2, "crypto": 0.1, "fx": 0.1, "regime": 0.1}
COMPOSITE_METHOD = ("100 x the weighted mean of risk-oriented scores in -1..+1: equities 0.3, volatility "
                    "0.2, credit (HY spread) 0.2, crypto 0.1, dollar (inverted) 0.1, regime balance "
                    "P(risk_on) - P(risk_off) - P(crisis) 0.1; weights of missing parts are redistributed.")


VS_SMA200 = "percent distance from the 200-observation average"
REALIZED_21D = "annualized realized volatility of 21 daily log returns, percent"


def _clip(x: float) -> float:
    return float(max(-1.0, min(1.0, x)))


def _trend(frame, sma_days: int = 200) -> dict:
    close = frame["value"].to_numpy()
    sma = indicators.sma(close, sma_days)[-1] if len(close) >= sma_days else np.nan
    return {"last": float(close[-1]), "vs_sma200_pct": (close[-1] / sma - 1) * 100 if np.isfinite(sma) else None,
            "change_1m_pct": indicators.change_since(frame, 30, "pct"),
            "drawdown_1y_pct": float(indicators.drawdown(indicators.window(frame, 365)["value"])[-1] * 100)}


def _finish(frames: Frames, ids: tuple[str, ...], name: str, score: float, direction_of: str, figures: dict,
            cross: str) -> dict:
    """An asset class's signal; its score and confidence rest on its lead series, `ids[0]` (`figures` come
    traced)."""
    direction = "bullish" if score > 0.15 else "bearish" if score < -0.15 else "neutral"
    sources = data_sources(frames, ids)
    confidence = degrade(0.4 + 0.5 * abs(score), sources, essential=ids[:1])
    with provenance.about(frames, ids[0]):
        return {"direction": direction, "confidence": rnd(confidence, 2, "confidence of the score"),
                "score": rnd(score, 3, f"{name} score, -1..+1 (see methodology)"),
                "direction_of": direction_of, "key_figures": figures, "cross_market": cross}


def _unavailable(what: str) -> dict:
    with provenance.about_inputs((), operation="no observations: no confidence"):
        confidence = rnd(0.0)
    return {"direction": "neutral", "confidence": confidence, "score": None, "key_figures": {},
            "cross_market": f"{what} unavailable: no observations yet", "unavailable": True}


def _scoped(frames: Frames, value, series_id: str, op: str | None = None):
    """A key figure computed from the series' history (not from named observations alone)."""
    with provenance.about(frames, series_id):
        return rnd(value, 2, op)


def _change(frames: Frames, series_id: str, days: int, kind: str, value):
    """A key figure that is the series' change since `days` earlier (`value` as indicators.change_since computed it,
    or 0.0 for none) from the two named observations; the value itself when there is no earlier one."""
    last, base = last_obs(frames, series_id), obs_days_before(frames, series_id, days)
    if kind == "pct":
        exact = pct_change(last, base, 2, f"percent change since {days} days earlier")
    else:
        exact = difference(last, base, 2, op=f"change since {days} days earlier, in bp")
    return exact if exact is not None else _scoped(frames, value, series_id)


def _drawdown(frames: Frames, series_id: str):
    """Percent below the highest close of the past year, from those two named observations."""
    year = indicators.window(frames.get(series_id), 365)
    top = int(np.argmax(year["value"].to_numpy()))
    return pct_change(last_obs(frames, series_id), (series_id, year["date"][top], float(year["value"][top])), 2,
                      "percent below the highest close of the past year")


def _fmt(x, digits=1):
    # from the 2-digit figure the payload shows, so the text never rounds differently from the data
    return "n/a" if x is None else f"{abs(rnd(x, 2)):.{digits}f}"


def _move(x, up="up", down="down", digits=1):
    return "unchanged" if x is None or round(x, digits) == 0 else f"{up if x > 0 else down} {_fmt(x, digits)}"


def asset_signals(frames: Frames) -> dict[str, dict]:
    """Per asset class: direction, confidence, score (-1..+1), key figures and a cross-market line."""
    out: dict[str, dict] = {}
    hy = frames.get("BAMLH0A0HYM2")
    hy_1m = indicators.change_since(hy, 30, "bp") if hy is not None else None
    eq_id = "SP500" if frames.get("SP500") is not None else "NASDAQCOM"
    eq = frames.get(eq_id)
    if eq is None:
        out["equities"] = _unavailable("equities")
    else:
        t = _trend(eq)
        score = _clip(np.mean([v for v in ((t["vs_sma200_pct"] or 0) / 10, (t["change_1m_pct"] or 0) / 5)]))
        score = _clip(score - (0.5 if t["drawdown_1y_pct"] < -10 else 0))
        credit = "no credit data" if hy_1m is None else (
            f"HY spread {_move(hy_1m, 'widened', 'narrowed', 0)} bp over 1m: credit "
            + ("confirms" if (hy_1m <= 0) == (score >= 0) else "diverges"))
        out["equities"] = _finish(frames, (eq_id, "BAMLH0A0HYM2"), "equities", score, f"{eq_id} price", {
            "level": level(frames, eq_id, 2), "change_1m_pct": _change(frames, eq_id, 30, "pct", t["change_1m_pct"]),
            "vs_sma200_pct": _scoped(frames, t["vs_sma200_pct"], eq_id, VS_SMA200),
            "drawdown_1y_pct": _drawdown(frames, eq_id)}, f"{eq_id} {_move(t['change_1m_pct'])}% over 1m; {credit}")
    ten = frames.get("DGS10")
    if ten is None:
        out["bonds"] = _unavailable("Treasury yields")
    else:
        change = indicators.change_since(ten, 30, "bp") or 0.0
        two = frames.get("DGS2")
        slope = (float(ten["value"][-1]) - float(two["value"][-1])) * 100 if two is not None else None
        eq_move = indicators.change_since(eq, 30, "pct") if eq is not None else None
        cross = "no equity data" if eq_move is None else (
            f"10y yield {_move(change, digits=0)} bp while equities {_move(eq_move)}%: "
            + ("stocks and bonds moving together" if change * eq_move < 0 else "stocks and bonds diverging"))
        out["bonds"] = _finish(frames, ("DGS10", "DGS2"), "bonds", _clip(-change / 30),
                               "Treasury prices (falling yields = bullish)",
                               {"yield_10y_pct": level(frames, "DGS10", 2),
                                "change_1m_bp": _change(frames, "DGS10", 30, "bp", change),
                                "slope_2s10s_bp": None if slope is None else difference(
                                    last_obs(frames, "DGS10"), last_obs(frames, "DGS2"), 2)}, cross)
    btc = frames.get("CBBTCUSD")
    if btc is None:
        out["crypto"] = _unavailable("bitcoin")
    else:
        t = _trend(btc)
        score = _clip(np.mean([(t["vs_sma200_pct"] or 0) / 20, (t["change_1m_pct"] or 0) / 15]))
        nasdaq = frames.get("NASDAQCOM")
        nq = indicators.change_since(nasdaq, 30, "pct") if nasdaq is not None else None
        cross = ("no Nasdaq data" if nq is None
                 else f"bitcoin {_move(t['change_1m_pct'])}% vs Nasdaq {_move(nq)}% over 1m")
        out["crypto"] = _finish(frames, ("CBBTCUSD",), "crypto", score, "bitcoin price", {
            "btc_usd": level(frames, "CBBTCUSD", 2),
            "change_1m_pct": _change(frames, "CBBTCUSD", 30, "pct", t["change_1m_pct"]),
            "vs_sma200_pct": _scoped(frames, t["vs_sma200_pct"], "CBBTCUSD", VS_SMA200),
            "drawdown_1y_pct": _drawdown(frames, "CBBTCUSD")}, cross)
    vix = frames.get("VIXCLS")
    if vix is None:
        out["volatility"] = _unavailable("VIX")
    else:
        level_figure = level(frames, "VIXCLS", 2)
        level_value, week = float(vix["value"][-1]), indicators.change_since(vix, 7, "pct") or 0.0
        pct = indicators.percentile_rank(indicators.window(vix, 365)["value"], level_value)
        realized = indicators.realized_vol(eq["value"].to_numpy(), 21) if eq is not None else None
        cross = "no equity data for realized volatility" if realized is None else (
            f"VIX {_fmt(level_value)} vs 21-day realized S&P volatility {_fmt(realized)}%: implied "
            + ("above" if level_value > realized else "below") + " realized")
        out["volatility"] = _finish(frames, ("VIXCLS", eq_id), "volatility",
                                    _clip(np.mean([(20 - level_value) / 10, -week / 25])),
                                    "risk assets (calm or falling VIX = bullish)",
                                    {"vix": level_figure,
                                     "percentile_1y": _scoped(frames, pct, "VIXCLS", "percentile rank within the "
                                                                                     "past year"),
                                     "change_1w_pct": _change(frames, "VIXCLS", 7, "pct", week),
                                     "sp500_realized_vol_21d_pct": _scoped(frames, realized, eq_id, REALIZED_21D)},
                                    cross)
    out["fx"] = _fx_signal(frames)
    return out


def credit_score(frames: Frames) -> float | None:
    """-1..+1 risk-oriented: tight (below 4.5%) and narrowing high-yield spreads score positive."""
    hy = frames.get("BAMLH0A0HYM2")
    if hy is None:
        return None
    return _clip(np.mean([(4.5 - float(hy["value"][-1])) / 2, -(indicators.change_since(hy, 30, "bp") or 0) / 50]))


def _fx_signal(frames: Frames) -> dict:
    usd, eur = frames.get("DTWEXBGS"), frames.get("DEXUSEU")
    if usd is None and eur is None:
        return _unavailable("dollar")
    # DEXUSEU is dollars per euro: a rising quote is a falling dollar, by the exact inverse 1 / (1 + r) - 1
    if usd is not None:
        change = indicators.change_since(usd, 30, "pct")
    else:
        eur_change = indicators.change_since(eur, 30, "pct")
        change = None if eur_change is None else (1.0 / (1.0 + eur_change / 100.0) - 1.0) * 100.0
    change = change or 0.0
    ten = frames.get("DGS10")
    rates = indicators.change_since(ten, 30, "bp") if ten is not None else None
    cross = "no yield data" if rates is None else (
        f"dollar {_move(change)}% with the 10y yield {_move(rates, digits=0)} bp over 1m: "
        + ("rate-driven" if change * rates > 0 else "not following rates"))
    ids = ("DTWEXBGS",) if usd is not None else ("DEXUSEU",)
    figures = {"dollar_change_1m_pct": _change(frames, "DTWEXBGS", 30, "pct", change) if usd is not None
               else _scoped(frames, change, "DEXUSEU", "percent change of the dollar over 30 days (inverse of "
                                                       "EUR/USD's)")}
    if usd is not None:
        figures["broad_dollar_index"] = level(frames, "DTWEXBGS", 2)
    eur_status = series_status(frames, "DEXUSEU")
    if eur is not None and (usd is None or not eur_status["stale"]):  # a stale quote adds nothing here
        figures["eurusd"] = level(frames, "DEXUSEU", 4)
    return _finish(frames, ids, "fx", _clip(change / 2), "US dollar", figures, cross)


def composite_score(signals: dict, probabilities: dict, credit: float | None) -> float | None:
    parts = {"equities": signals["equities"]["score"], "volatility": signals["volatility"]["score"],
             "credit": credit, "crypto": signals["crypto"]["score"],
             "fx": None if signals["fx"]["score"] is None else -signals["fx"]["score"],
             "regime": risk_balance(probabilities)}
    present = {k: v for k, v in parts.items() if v is not None}
    weight = sum(COMPOSITE_WEIGHTS[k] for k in present)
    return rnd(100 * sum(COMPOSITE_WEIGHTS[k] * v for k, v in present.items()) / weight, 1) if weight else None


def teaser(name: str, state: str) -> str:
    """One line that names what the premium module adds, with no figures in it."""
    words = re.sub(r"[\d_]+", " ", name).strip()
    return re.sub(r"\d", "", f"Full {words} analysis behind today's {state.replace('_', ' ')} reading.")


def compute_pulse(frames: Frames, premium_modules: list[tuple[str, int]]) -> dict:
    regime = traced_classify(frames)
    signals = asset_signals(frames)
    with provenance.about(frames, *PULSE_INPUTS, operation="composite score (see composite_method)"):
        composite = composite_score(signals, regime["probabilities"], credit_score(frames))
    with provenance.about(frames, *CORRELATION_ASSETS):
        breaks = correlation_breaks(frames)
    sources = data_sources(frames, PULSE_INPUTS)
    # the market figures are traced; the teasers' prices are the price list's, not market data
    market, provenance_by_path = provenance.attach(
        {"regime": {k: regime[k] for k in ("state", "probabilities", "rationale")}, "signals": signals,
         "correlation_alerts": breaks["alerts"], "composite_score": composite}, declared_inputs(sources))
    return {
        **dates(frames, sources),
        "regime": market["regime"],
        "signals": market["signals"],
        "correlation_alerts": market["correlation_alerts"],
        "correlation_method": breaks["method"],
        "composite_score": market["composite_score"], "composite_method": COMPOSITE_METHOD,
        "premium_teasers": [{"module": n, "teaser": teaser(n, regime["state"]), "price_sats": p}
                            for n, p in premium_modules],
        "data_sources": sources,
        "provenance": provenance_by_path,
    }
