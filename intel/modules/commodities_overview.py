"""commodities_overview: momentum across oil, copper, the IMF all-commodity index and US gasoline, each
on horizons that suit its cadence (daily, weekly or monthly), with breadth and an average across them; gold
beside them (PAX Gold on Coinbase, daily), kept out of the breadth: a haven, not a gauge of demand."""
from __future__ import annotations

import numpy as np

from intel import catalog, envelope, provenance
from intel.frames import Frames
from intel.modules._commodities import observed_monthly_change, percentile_of_last, realized_vol_pct
from intel.modules._common import observed_horizon_returns, pct_word
from intel.registry import Module, register

NAME = "commodities_overview"
SERIES = {"DCOILWTICO": "wti_oil", "PCOPPUSDM": "copper", "PALLFNFINDEXM": "all_commodities_index",
          "GASREGW": "us_gasoline"}
LABEL = {"wti_oil": "WTI oil", "copper": "copper", "all_commodities_index": "the IMF all-commodity index",
         "us_gasoline": "US gasoline"}
# observations per year by cadence: volatility windows span a year of the series' own observations
PER_YEAR = {"daily": 252, "weekly": 52, "monthly": 12}
GOLD = "CBPAXGUSD"
GOLD_INSTRUMENT = ("PAX Gold (PAXG-USD on Coinbase): a token each backed by one troy ounce of allocated London gold; "
                   "it tracks the metal but is a traded token, not a gold fix")
BROAD_MOVE_PCT, STRONG_MOVE_PCT = 2.0, 15.0  # average 3-month move that counts as a trend / a strong one


def cadence(series_id: str) -> str:
    return catalog.get(series_id).frequency


def profile(frames: Frames, series_id: str) -> dict:
    """One series' level, momentum over horizons that suit its cadence (each from two named observations),
    volatility and standing (scoped to the series)."""
    frame = frames.get(series_id)
    kind = cadence(series_id)
    values = frame["value"].to_numpy()
    out = {"level": envelope.level(frames, series_id, 3), "unit": catalog.get(series_id).unit, "cadence": kind,
           "date": frame["date"][-1].isoformat()}
    if kind == "monthly":
        # monthly averages dated the 1st: changes match calendar months, horizons in months
        out["period"] = out["date"][:7]
        for n in (1, 3, 6, 12):
            out[f"change_{n}m_pct"] = observed_monthly_change(frames, series_id, n)
        momentum_3m, momentum_12m = out["change_3m_pct"], out["change_12m_pct"]
    else:
        horizons = ("1w", "1m", "3m", "6m", "1y") if kind == "daily" else ("1m", "3m", "6m", "1y")
        out.update(observed_horizon_returns(frames, series_id, horizons, ytd=False))
        momentum_3m, momentum_12m = out["change_3m_pct"], out["change_1y_pct"]
    per_year = PER_YEAR[kind]
    with provenance.about(frames, series_id):
        out["realized_vol_1y_pct"] = envelope.rnd(realized_vol_pct(values, per_year, per_year), 2,
                                                  f"annualized volatility of the last {per_year} simple returns, "
                                                  "percent")
        out["percentile_5y"] = envelope.rnd(percentile_of_last(values, 5 * per_year), 1,
                                            f"percentile rank within the last {5 * per_year} observations")
    out["momentum_3m_pct"], out["momentum_12m_pct"] = momentum_3m, momentum_12m
    return out


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, SERIES)
    sources = envelope.data_sources(frames, SERIES)  # the breadth's inputs: what its signal's confidence rests on
    items = {key: profile(frames, sid) for sid, key in SERIES.items() if frames.get(sid) is not None}
    unavailable = {key: f"no {sid} observations in the warehouse" for sid, key in SERIES.items() if key not in items}
    m3 = {k: p["momentum_3m_pct"] for k, p in items.items() if p["momentum_3m_pct"] is not None}
    m12 = [p["momentum_12m_pct"] for p in items.values() if p["momentum_12m_pct"] is not None]
    ids = {key: sid for sid, key in SERIES.items()}
    with provenance.about(frames, *(ids[k] for k in items)):
        data = {**items, "series_with_3m_momentum": envelope.count(len(m3), "count of series with a 3-month change")}
    if m3:
        ranked = sorted(m3, key=lambda k: -m3[k])
        with provenance.about(frames, *(ids[k] for k in m3)):
            breadth = envelope.rnd(sum(v > 0 for v in m3.values()) / len(m3) * 100, 1,
                                   "share of the series with a positive 3-month change, percent")
            average_3m = envelope.rnd(np.mean(list(m3.values())), 2, "mean 3-month change of the series, percent")
        with provenance.about(frames, *(ids[k] for k, p in items.items() if p["momentum_12m_pct"] is not None)):
            average_12m = envelope.rnd(np.mean(m12), 2, "mean 12-month change of the series, percent") if m12 else None
        data.update({"breadth_3m_pct": breadth, "average_momentum_3m_pct": average_3m,
                     "average_momentum_12m_pct": average_12m, "leader_3m": ranked[0], "laggard_3m": ranked[-1]})
    else:
        unavailable["breadth_3m_pct"] = "no series has three months of history"
    if frames.get(GOLD) is not None:
        data["gold"] = {"instrument": GOLD_INSTRUMENT, **profile(frames, GOLD)}
    else:
        unavailable["gold"] = f"no {GOLD} observations in the warehouse"

    signals = []
    if m3:
        breadth, avg = data["breadth_3m_pct"], data["average_momentum_3m_pct"]
        if avg > BROAD_MOVE_PCT and breadth >= 75:
            direction = "bullish"
        elif avg < -BROAD_MOVE_PCT and breadth <= 25:
            direction = "bearish"
        else:
            direction = "neutral"
        # agreement across the series and how many of the four are covered drive the confidence
        confidence = (0.4 + 0.4 * abs(breadth - 50) / 50) * (0.6 + 0.4 * len(m3) / len(SERIES))
        urgency = "high" if abs(avg) >= 2 * STRONG_MOVE_PCT else "medium" if abs(avg) >= STRONG_MOVE_PCT else "low"
        signals.append(envelope.signal("broad_commodity_momentum", direction, envelope.degrade(confidence, sources),
                                       urgency,
                                       f"{breadth}% of {len(m3)} commodity series rose over three months, average "
                                       f"{avg}% (direction refers to commodity prices)"))
        oil, copper = m3.get("wti_oil"), m3.get("copper")
        if oil is not None and copper is not None and oil * copper < 0 and min(abs(oil), abs(copper)) >= 5:
            signals.append(envelope.signal("energy_metals_divergence", "neutral",
                                           envelope.degrade(0.45, sources, ["DCOILWTICO", "PCOPPUSDM"]), "low",
                                           f"oil {pct_word(oil)} and copper {pct_word(copper)} over three months"))

    parts = []
    for key, p in items.items():
        when = p.get("period", p["date"])
        parts.append(f"{LABEL[key]} ({p['cadence']}, {when}) {pct_word(p['momentum_3m_pct'])} over three months")
    text = "Three-month momentum: " + "; ".join(parts) + "."
    if m3:
        text += (f" {data['breadth_3m_pct']}% of the series with data rose, an average of "
                 f"{data['average_momentum_3m_pct']}%; {LABEL[data['leader_3m']]} leads and "
                 f"{LABEL[data['laggard_3m']]} lags.")
    if "gold" in data:
        g = data["gold"]
        text += (f" Gold (PAX Gold token) {g['level']} USD per troy ounce on {g['date']}, "
                 f"{pct_word(g['change_3m_pct'])} over three months and {pct_word(g['change_1y_pct'])} over a year.")
    missing = [LABEL[k] for k in unavailable if k in LABEL]
    if missing:
        text += " Not covered (no data): " + ", ".join(missing) + "."
    everything = envelope.data_sources(frames, [*SERIES, GOLD])
    return envelope.build(NAME, frames, data=data, signals=signals, summary=text + envelope.staleness_note(everything),
                          sources=everything,
                          related_modules=envelope.related(
                              ("oil", "WTI and Brent in detail"),
                              ("copper_gold_ratio", "copper against the 10-year yield"),
                              ("inflation", "how commodity prices feed inflation"),
                              ("dollar_strength", "the dollar behind commodity prices"),
                              ("growth", "the activity data commodities respond to")),
                          methodology="Momentum is the percent change over each horizon: by calendar lookback for "
                                      "daily and weekly series, by matched calendar months for the monthly IMF "
                                      "averages (so monthly series get 1/3/6/12-month horizons). Breadth is the share "
                                      "of series with a positive three-month change; volatility is the annualized "
                                      "standard deviation of a year of each series' own simple returns. Gold is shown "
                                      "with the same figures but left out of the breadth and averages.",
                          unavailable=unavailable or None)


register(Module(name=NAME, category="commodities", tier="S", inputs=(*SERIES, GOLD),
                description="Broad commodity momentum",
                compute=compute, lookback_days=3700))
