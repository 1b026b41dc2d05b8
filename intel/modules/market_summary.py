"""market_summary: one cross-asset table of 1d/1w/1m/YTD moves, the biggest movers (in standard
deviations of each asset's own moves) and notable records (52-week highs and lows, outsized days)."""
from __future__ import annotations

from datetime import date, timedelta

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import HORIZONS
from intel.registry import Module, register

NAME = "market_summary"
# series -> (row key, label, change kind, risk sign: +1 when a rise is risk-on, -1 when risk-off, 0 neither)
ASSETS = {
    "SP500": ("sp500", "S&P 500", "pct", 1),
    "NASDAQCOM": ("nasdaq", "Nasdaq", "pct", 1),
    "DGS10": ("treasury_10y_yield", "the Treasury 10y yield", "bp", 0),
    "VIXCLS": ("vix", "the VIX", "pct", -1),
    "DTWEXBGS": ("dollar_broad", "the broad dollar", "pct", -1),
    "DCOILWTICO": ("wti_oil", "WTI oil", "pct", 0),
    "CBBTCUSD": ("bitcoin", "bitcoin", "pct", 1),
}
UNIT = {"pct": "pct", "bp": "bp"}
MIN_STD_OBS = 60  # daily changes needed before a move is measured in standard deviations


def _changes(values: np.ndarray, kind: str) -> np.ndarray:
    """Daily changes in the row's unit: percent for prices, basis points for a yield."""
    return np.diff(values) * 100 if kind == "bp" else (values[1:] / values[:-1] - 1) * 100


def _change(frame, base_day: date, kind: str) -> tuple[float | None, int, tuple | None]:
    """(change since the last close on or before base_day, observations since then, that close as
    (date, value))."""
    dates, values = frame["date"], frame["value"].to_numpy()
    idx = dates.search_sorted(base_day, side="right") - 1
    if idx < 0 or (kind == "pct" and values[idx] == 0):
        return None, 0, None
    change = (values[-1] - values[idx]) * 100 if kind == "bp" else (values[-1] / values[idx] - 1) * 100
    return float(change), int(len(values) - 1 - idx), (dates[idx], float(values[idx]))


def row(frames: Frames, sid: str, kind: str) -> dict:
    """The row of one asset: level, changes and range from named closes, moves in standard deviations from
    its past year of daily changes."""
    with provenance.about(frames, sid):
        return _row(frames, sid, kind)


def _row(frames: Frames, sid: str, kind: str) -> dict:
    frame = frames.get(sid)
    values, last_day = frame["value"].to_numpy(), frame["date"][-1]
    unit = UNIT[kind]
    year = indicators.window(frame, 365)
    last = envelope.last_obs(frames, sid)
    out = {"level": envelope.level(frames, sid, 2), "date": last_day.isoformat()}
    daily = _changes(year["value"].to_numpy(), kind) if year.height > 1 else np.empty(0)
    std = float(np.std(daily, ddof=1)) if len(daily) >= MIN_STD_OBS else None
    bases = {"1d": frame["date"][-2] if frame.height > 1 else None,
             **{h: last_day - timedelta(days=HORIZONS[h]) for h in ("1w", "1m")},
             "ytd": date(last_day.year - 1, 12, 31)}
    since = {"1d": "the previous close", "1w": "the close a week earlier", "1m": "the close 30 days earlier",
             "ytd": "the last close of the previous year"}
    for h, base in bases.items():
        change, n_obs, then = (None, 0, None) if base is None or base < frame["date"][0] else \
            _change(frame, base, kind)
        what = ("percent change" if kind == "pct" else "change in bp") + f" since {since[h]}"
        out[f"change_{h}_{unit}"] = envelope.change_obs(last, (sid, *then) if then else None, kind, 2, what)
        # a move in standard deviations: the change over the daily std scaled by the square root of days
        z = change / (std * np.sqrt(n_obs)) if change is not None and std and n_obs else None
        if h in ("1d", "1w", "1m"):
            out[f"move_{h}_sd"] = envelope.rnd(z, 2, f"change since {since[h]} over the past year's daily standard "
                                                     "deviation times the square root of the observations it spans")
    full_year = frame["date"][0] <= last_day - timedelta(days=360)  # records only against a whole year
    hi, lo = float(year["value"].max()), float(year["value"].min())
    top, bottom = (year.row(int(f(year["value"].to_numpy())), named=True) for f in (np.argmax, np.argmin))
    high = (sid, top["date"], float(top["value"]))
    low = (sid, bottom["date"], float(bottom["value"]))
    out.update({"high_52w": provenance.observed(envelope.rnd(hi, 2), [high[:2]], "level",
                                                "highest close of the past year", 2),
                "low_52w": provenance.observed(envelope.rnd(lo, 2), [low[:2]], "level",
                                               "lowest close of the past year", 2)})
    if kind == "bp":  # a yield's distance from its range in basis points, a price's in percent
        out.update({"from_52w_high_bp": envelope.difference(last, high, 1, op="distance from the 52-week high, in bp"),
                    "from_52w_low_bp": envelope.difference(last, low, 1, op="distance from the 52-week low, in bp")})
    else:
        out.update({"from_52w_high_pct": envelope.pct_change(last, high, 2, "percent from the 52-week high") if hi
                    else None,
                    "from_52w_low_pct": envelope.pct_change(last, low, 2, "percent from the 52-week low") if lo > 0
                    else None})
    records = []
    if full_year:
        if values[-1] >= hi:
            records.append("new_52w_high")
        if values[-1] <= lo:
            records.append("new_52w_low")
        if len(daily) >= MIN_STD_OBS and abs(daily[-1]) >= np.abs(daily).max():
            records.append("largest_daily_move_52w")
    out["records"] = records
    return out


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, ASSETS)
    sources = envelope.data_sources(frames, ASSETS)
    table = {ASSETS[sid][0]: {"series": sid, **row(frames, sid, ASSETS[sid][2])}
             for sid in ASSETS if frames.get(sid) is not None}
    labels = {ASSETS[sid][0]: ASSETS[sid][1] for sid in ASSETS}
    signs = {ASSETS[sid][0]: ASSETS[sid][3] for sid in ASSETS}
    unit = {ASSETS[sid][0]: UNIT[ASSETS[sid][2]] for sid in ASSETS}

    movers = {}
    for h in ("1d", "1m"):
        ranked = sorted((k for k in table if table[k][f"move_{h}_sd"] is not None),
                        key=lambda k: -abs(table[k][f"move_{h}_sd"]))
        # a mover's place reads every asset's move: its figures rest on all the ranked series
        every = [table[k]["series"] for k in ranked]
        movers[h] = [{"asset": k, f"move_{h}_sd": envelope.retag(frames, table[k][f"move_{h}_sd"], every,
                                                                 "move in standard deviations of the asset ranked "
                                                                 f"{i + 1}"),
                      f"change_{h}_{unit[k]}": envelope.retag(frames, table[k][f"change_{h}_{unit[k]}"], every,
                                                              f"change of the asset ranked {i + 1} by its move")}
                     for i, k in enumerate(ranked[:3])]
    # a record's place in the list reads the records of the assets listed before it
    records, before = [], []
    for k in table:
        before.append(table[k]["series"])
        records += [{"asset": k, "record": r, "level": envelope.retag(frames, table[k]["level"], before,
                                                                      "latest value of the asset holding the record")}
                    for r in table[k]["records"]]
    # risk tone: the mean of the 1-month moves in standard deviations, signed so that risk-on is positive
    toned = [k for k in table if signs[k] and table[k]["move_1m_sd"] is not None]
    tone_parts = [signs[k] * table[k]["move_1m_sd"] for k in toned]
    with provenance.about(frames, *(table[k]["series"] for k in toned)):
        tone = envelope.rnd(np.mean(tone_parts), 2, "mean of the risk-signed 1-month moves in standard deviations") \
            if tone_parts else None
        tone_inputs = envelope.count(len(tone_parts), "count of risk assets in the tone")
    data = {"assets": table, "biggest_movers": movers, "notable_records": records,
            "risk_tone_1m_sd": tone, "risk_tone_inputs": tone_inputs}

    signals = []
    if tone is not None:
        direction = "bullish" if tone >= 0.5 else "bearish" if tone <= -0.5 else "neutral"
        urgency = "high" if tone <= -2 else "medium" if tone <= -1 else "low"
        confidence = envelope.degrade((0.4 + min(0.4, abs(tone) / 4)) * (0.6 + 0.4 * len(tone_parts) / 5), sources)
        signals.append(envelope.signal("cross_asset_tone", direction, confidence, urgency,
                                       f"risk-signed mean 1-month move of {tone} standard deviations across "
                                       f"{len(tone_parts)} risk assets"))
    top = movers["1d"][0] if movers["1d"] else None
    if top is not None and abs(top["move_1d_sd"]) >= 3:
        k, z = top["asset"], top["move_1d_sd"]
        direction = "neutral" if not signs[k] else "bullish" if signs[k] * z > 0 else "bearish"
        signals.append(envelope.signal("outsized_move", direction, envelope.degrade(0.6, sources), "high" if abs(z) >= 4
                                       else "medium", f"{labels[k]} moved {z} standard deviations on the day"))
    # a record counts as stress when a risk asset hits a 52-week low or a risk-off gauge a 52-week high
    stress = [r["asset"] for r in records if (r["record"], signs[r["asset"]]) in (("new_52w_low", 1),
                                                                                 ("new_52w_high", -1))]
    calm = [r["asset"] for r in records if (r["record"], signs[r["asset"]]) in (("new_52w_high", 1),
                                                                               ("new_52w_low", -1))]
    if stress or calm:
        signals.append(envelope.signal("records", "bearish" if stress else "bullish",
                                       envelope.degrade(0.5 + 0.1 * len(stress or calm), sources),
                                       "medium" if stress else "low",
                                       ("52-week stress records: " if stress else "52-week risk-on records: ")
                                       + ", ".join(labels[k] for k in stress or calm)))

    def move(k: str, h: str) -> str:
        value, u = table[k][f"change_{h}_{unit[k]}"], unit[k]
        return "n/a" if value is None else f"{value}{'%' if u == 'pct' else ' bp'}"

    sentences = ["Moves on the day / week / month / year to date: " + "; ".join(
        f"{labels[k]} {move(k, '1d')} / {move(k, '1w')} / {move(k, '1m')} / {move(k, 'ytd')}" for k in table) + "."]
    if movers["1d"]:
        sentences.append("Biggest moves on the day relative to each asset's own volatility: " + ", ".join(
            f"{labels[m['asset']]} ({m['move_1d_sd']} sd)" for m in movers["1d"]) + ".")
    if records:
        sentences.append("Records: " + ", ".join(f"{labels[r['asset']]} {r['record'].replace('_', ' ')}"
                                                 for r in records) + ".")
    else:
        sentences.append("No asset set a 52-week high or low today.")
    if tone is not None:
        sentences.append(f"The risk-signed 1-month tone is {tone} standard deviations.")
    summary = (" ".join(sentences) + envelope.staleness_note(sources)).replace("52w", "52-week")
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("market_intelligence", "the regime and composite score behind these moves"),
                              ("equity_indices", "index trend and moving averages"),
                              ("treasury_yields", "the whole Treasury curve"),
                              ("vix", "volatility in detail"),
                              ("bitcoin", "bitcoin trend and volatility"),
                              ("risk_dashboard", "risk gauges against their history")),
                          methodology="Changes compare the last close with the last close on or before the date one "
                                      "week, one month (30 days) or the end of last year earlier; the yield moves in "
                                      "basis points, the rest in percent. A move in standard deviations is the change "
                                      "over the sample standard deviation of the past year's daily changes times the "
                                      "square root of the observations it spans. The risk tone averages the 1-month "
                                      "moves of equities, bitcoin (rising is risk-on), the VIX and the dollar (rising "
                                      "is risk-off); records need a full year of history.")


register(Module(name=NAME, category="overview", tier="S", inputs=tuple(ASSETS),
                description="Cross-asset 1d/1w/1m/YTD moves, biggest movers, notable records",
                compute=compute, lookback_days=800))
