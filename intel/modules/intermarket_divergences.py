"""intermarket_divergences (proprietary): where other markets disagree with equities (stocks up while credit
widens, the VIX rises, yields fall, bitcoin or the dollar turns), how strongly, since when, and what the
S&P 500 did after such divergences in the past."""
from __future__ import annotations

import numpy as np

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import pct_word
from intel.registry import Module, register

NAME = "intermarket_divergences"
LEAD = "SP500"
# pair -> (series, move kind, sign making a move risk-on, label, risk-on verb, risk-off verb)
PAIRS = {
    "credit": ("BAMLH0A0HYM2", "bp", -1, "high-yield spreads", "tighten", "widen"),
    "volatility": ("VIXCLS", "pct", -1, "the VIX", "falls", "rises"),
    "yields": ("DGS10", "bp", 1, "10-year yields", "rise", "fall"),
    "bitcoin": ("CBBTCUSD", "pct", 1, "bitcoin", "rises", "falls"),
    "dollar": ("DTWEXBGS", "pct", -1, "the broad dollar", "weakens", "strengthens"),
}
INPUTS = (LEAD, *(p[0] for p in PAIRS.values()))
HORIZONS = {"1m": 30, "3m": 91}  # calendar days
MIN_STRENGTH = 0.5  # both sides must have moved at least half a typical move
SCALE_YEARS = 5
DECLUSTER = 21  # trading days between two back-test events of the same pair and type


def moves(frame, kind: str, cal_days: int) -> tuple[np.ndarray, np.ndarray]:
    """(days, change over the previous cal_days calendar days) in percent or basis points (NaN: too early)."""
    days, v = indicators.day_numbers(frame), frame["value"].to_numpy().astype(np.float64)
    lag = indicators.lagged_index(days, cal_days)
    ok = lag >= 0
    out = np.full(len(v), np.nan)
    with np.errstate(divide="ignore", invalid="ignore"):
        base = v[np.where(ok, lag, 0)]
        out[ok] = ((v / base - 1) * 100 if kind == "pct" else (v - base) * 100)[ok]
    return days, out


def latest_move(frames: Frames, sid: str, kind: str, cal_days: int):
    """The last value of `moves` as a figure of the two named observations it compares (None: too early)."""
    frame = frames.get(sid)
    lag = int(indicators.lagged_index(indicators.day_numbers(frame), cal_days)[-1])
    if lag < 0:
        return None
    a, b = envelope.last_obs(frames, sid), (sid, frame["date"][lag], float(frame["value"][lag]))
    if kind == "pct":
        return envelope.pct_change(a, b, 2)
    return envelope.difference(a, b, 2, scale=100.0, op=f"change of {sid} from {b[1].isoformat()} to "
                                                        f"{a[1].isoformat()} in bp")


def scaled(days: np.ndarray, m: np.ndarray) -> np.ndarray:
    """Moves divided by their root-mean-square over the last SCALE_YEARS (a typical move of that horizon)."""
    recent = m[indicators.in_window(days, 365 * SCALE_YEARS)]
    recent = recent[np.isfinite(recent)]
    scale = float(np.sqrt(np.mean(recent ** 2))) if len(recent) >= 20 else 0.0
    return m / scale if scale > 0 else np.full(len(m), np.nan)


def state(z_eq: np.ndarray, z_o: np.ndarray) -> np.ndarray:
    """+1 bullish divergence (equities down, other risk-on), -1 bearish (equities up, other risk-off), 0 none."""
    strong = (np.minimum(np.abs(z_eq), np.abs(z_o)) >= MIN_STRENGTH) & (np.sign(z_eq) != np.sign(z_o))
    return np.where(strong, -np.sign(z_eq), 0.0)


def backtest(days, spx, st, z_eq, z_o) -> dict:
    """Forward 1-month S&P 500 return after each new divergence of each type (events at least DECLUSTER
    trading days apart), against all days of the same sample."""
    ahead = np.searchsorted(days, days + 30, side="right") - 1
    complete = days + 30 <= days[-1]
    fwd = np.where(complete, spx[ahead] / spx - 1, np.nan) * 100
    valid = np.isfinite(z_eq) & np.isfinite(z_o)
    out = {"sample_start": indicators.iso_day(days[valid][0]) if valid.any() else None,
           "all_days_forward_1m_return_avg_pct": envelope.rnd(np.nanmean(fwd[valid & complete]), 2, "mean S&P 500 "
                                                              "return over the month after each day of the sample")
           if (valid & complete).any() else None}
    for kind, code in (("bearish", -1.0), ("bullish", 1.0)):
        starts = np.flatnonzero((st == code) & np.concatenate([[False], st[:-1] != code]) & valid)
        events, last = [], -DECLUSTER
        for i in starts:  # a handful of starts per pair: a short loop
            if i - last >= DECLUSTER:
                events.append(i)
                last = i
        done = [i for i in events if complete[i]]
        f = fwd[done]
        out[kind] = {"events": envelope.count(len(events), f"count of new {kind} one-month divergences "
                                                           f"({DECLUSTER} or more trading days apart)"),
                     "events_with_outcome": envelope.count(len(done),
                                                           f"count of those {kind} divergences followed by a "
                                                           "full month"),
                     "forward_1m_return_avg_pct": envelope.rnd(f.mean(), 2, f"mean S&P 500 return over the month after "
                                                                            f"a {kind} divergence") if len(f) else None,
                     "forward_1m_negative_share_pct": envelope.rnd((f < 0).mean() * 100, 1,
                                                                   "percent of those months with a negative S&P 500 "
                                                                   "return") if len(f) else None}
    return out


def _pair(frames: Frames, name: str, eq_z: dict, spx_days, spx_v, unavailable: dict) -> dict:
    """Equities against one market (inside the scope of both series): moves, divergences, the back-test."""
    sid, kind, sign, label, _, _ = PAIRS[name]
    frame = frames.get(sid)
    out = {"series": sid, "compares": f"equities vs {label}"}
    for h, d in HORIZONS.items():
        o_days, o_m = moves(frame, kind, d)
        o_z = sign * scaled(o_days, o_m)
        common, ie, io = np.intersect1d(spx_days, o_days, return_indices=True)
        ze, zo = eq_z[h][ie], o_z[io]
        with provenance.about(frames, sid):  # the other market's own move and z rest on it alone
            out[f"move_{h}_{kind}"] = latest_move(frames, sid, kind, d)
            out[f"zscore_{h}"] = envelope.rnd(o_z[-1], 2,
                                              f"{sid} move over {provenance.HORIZONS[h]} over its root-mean-square "
                                              "over 5 years, signed so positive is risk-on")
        if not np.isfinite(o_z[-1]) or not np.isfinite(eq_z[h][-1]) or not len(common):
            out[f"divergence_{h}"], out[f"strength_{h}"] = None, None
            unavailable[f"{name}.{h}"] = "history too short"
            continue
        # today's reading: the equity move now against the other market's latest move
        now = state(eq_z[h][-1:], o_z[-1:])[0]
        strength = min(abs(eq_z[h][-1]), abs(o_z[-1]))
        out[f"divergence_{h}"] = {1.0: "bullish", -1.0: "bearish"}.get(now, "none")
        out[f"strength_{h}"] = envelope.rnd(strength, 2, f"smaller |z| of the {LEAD} and {sid} moves over "
                                                         f"{provenance.HORIZONS[h]}")
        if h != "1m":
            continue
        st = state(ze, zo)
        ok = np.isfinite(ze) & np.isfinite(zo)
        out["agreement_share_pct"] = envelope.rnd(float(np.mean(np.sign(ze[ok]) == np.sign(zo[ok]))) * 100, 1,
                                                  "percent of common days whose one-month moves point the same way "
                                                  "(risk-on sign)") if ok.any() else None
        start = indicators.run_start(st == now) if now != 0 else None
        out["since"] = indicators.iso_day(common[start]) if start is not None else None
        out["backtest_1m"] = backtest(common, spx_v[ie], st, ze, zo)
    return out


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, [LEAD], need="all")
    sources = envelope.data_sources(frames, INPUTS)
    spx = frames.get(LEAD)
    eq = {h: moves(spx, "pct", d) for h, d in HORIZONS.items()}
    eq_z = {h: scaled(*eq[h]) for h in HORIZONS}
    spx_days, spx_v = indicators.day_numbers(spx), spx["value"].to_numpy()
    if not np.isfinite(eq_z["1m"][-1]):
        raise envelope.InsufficientData(f"{NAME}: the S&P 500 has less than a month of history")
    data: dict = {"min_strength": envelope.constant(MIN_STRENGTH,
                                                    "fixed parameter: typical moves both sides need for a divergence"),
                  "equities": {}}
    with provenance.about(frames, LEAD):
        for h, d in HORIZONS.items():
            data["equities"][f"move_{h}_pct"] = latest_move(frames, LEAD, "pct", d)
            data["equities"][f"zscore_{h}"] = envelope.rnd(eq_z[h][-1], 2,
                                                           f"{LEAD} move over {provenance.HORIZONS[h]} over "
                                                           "its root-mean-square over 5 years")
    pairs, divergences, unavailable = {}, [], {}
    for name, (sid, kind, sign, label, on_verb, off_verb) in PAIRS.items():
        frame = frames.get(sid)
        if frame is None:
            unavailable[name] = f"{sid} missing"
            continue
        with provenance.about(frames, LEAD, sid):
            out = _pair(frames, name, eq_z, spx_days, spx_v, unavailable)
        pairs[name] = out
        for h in HORIZONS:
            kind_h = out.get(f"divergence_{h}")
            if kind_h in ("bearish", "bullish"):
                what = (f"equities up while {label} {off_verb}" if kind_h == "bearish"
                        else f"equities down while {label} {on_verb}")
                divergences.append({"pair": name, "horizon": h, "type": kind_h, "strength": out[f"strength_{h}"],
                                    "description": what, "since": out.get("since") if h == "1m" else None})
    if not pairs:
        raise envelope.InsufficientData(f"{NAME}: no market to compare equities with")
    divergences.sort(key=lambda r: -r["strength"])
    compared = (LEAD, *(p["series"] for p in pairs.values()))
    # a place in the ranked list depends on every pair compared; each pair's own entry names its two series
    for d in divergences:
        with provenance.about(frames, *compared, operation=f"strength of the {d['pair']} divergence over "
                                                           f"{provenance.HORIZONS[d['horizon']]}, divergences ranked "
                                                           "by strength"):
            d["strength"] = envelope.rnd(d["strength"], 2)
    with provenance.about(frames, *compared):
        # markets, not horizons: a pair diverging over one and three months counts once
        counts = {kind: envelope.count(len({d["pair"] for d in divergences if d["type"] == kind}),
                                       f"count of markets diverging {kind}ly from equities")
                  for kind in ("bearish", "bullish")}
    with provenance.about(frames, *INPUTS):  # which markets compare depends on every input
        compared_count = envelope.count(len(pairs), "count of markets compared with equities")
    data.update({"pairs": pairs, "divergences": divergences, "bearish_count": counts["bearish"],
                 "bullish_count": counts["bullish"], "pairs_compared": compared_count})
    signals = _signals(data, sources)
    if divergences:
        top = divergences[0]
        bear, bull = data["bearish_count"], data["bullish_count"]
        summary = (f"Of {len(pairs)} {_markets(len(pairs))} compared with equities, {bear} "
                   f"{_diverge(bear)} bearishly and {bull} bullishly. The strongest: "
                   f"{top['description']} over {'one month' if top['horizon'] == '1m' else 'three months'} "
                   f"(strength {top['strength']}" + (f", since {top['since']})." if top["since"] else ")."))
        bt = pairs[top["pair"]].get("backtest_1m", {}).get(top["type"]) if top["horizon"] == "1m" else None
        if bt and bt["events_with_outcome"]:
            summary += (f" After {int(bt['events_with_outcome'])} such episodes since "
                        f"{pairs[top['pair']]['backtest_1m']['sample_start']} the S&P 500 returned "
                        f"{bt['forward_1m_return_avg_pct']}% on average over the next month, against "
                        f"{pairs[top['pair']]['backtest_1m']['all_days_forward_1m_return_avg_pct']}% on all days.")
    else:
        summary = (f"No divergences: none of the {len(pairs)} {_markets(len(pairs))} compared moves against "
                   f"equities by at least {MIN_STRENGTH} typical moves "
                   f"(S&P 500 {pct_word(data['equities']['move_1m_pct'])} over one month).")
    if unavailable:
        summary += f" Not compared: {', '.join(unavailable)}."
    summary += envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("credit_spreads", "the credit side of a divergence"),
                              ("vix", "the volatility side of a divergence"),
                              ("risk_appetite", "the same markets combined into one score"),
                              ("correlation_breaks", "relationships that broke statistically"),
                              ("btc_macro_correlation", "bitcoin's links to macro drivers"),
                              ("dollar_strength", "the dollar trend")),
                          methodology=("Moves over one and three calendar months (percent for the S&P 500, VIX, "
                                       "bitcoin and dollar; basis points for the high-yield OAS and 10-year yield) are "
                                       "divided by their root-mean-square over the last five years and signed so that "
                                       "positive means risk-on. A divergence is equities and the other market pointing "
                                       f"opposite ways with both at least {MIN_STRENGTH} typical moves; its strength "
                                       "is the smaller of the two. The back-test dates each new one-month divergence "
                                       f"on common dates (events at least {DECLUSTER} trading days apart) and averages "
                                       "the S&P 500 return over the following month, against all days of the same "
                                       "sample; the scales use the whole five-year window."),
                          unavailable=unavailable or None)


def _markets(n: int) -> str:
    return "market" if n == 1 else "markets"


def _diverge(n: int) -> str:
    return "diverges" if n == 1 else "diverge"


def _signals(data: dict, sources: dict) -> list[dict]:
    bear, bull, divs = data["bearish_count"], data["bullish_count"], data["divergences"]
    n = data["pairs_compared"]
    # a verdict needs two diverging markets, or half of those compared when few are available
    if bear > bull and (bear >= 2 or bear / n >= 0.5):
        direction, urgency = "bearish", "high" if bear >= 3 else "medium"
    elif bull > bear and (bull >= 2 or bull / n >= 0.5):
        direction, urgency = "bullish", "medium"
    else:
        direction, urgency = "neutral", "low"
    reason = (f"{bear} of {n} {_markets(n)} {_diverge(bear)} bearishly from equities, {bull} bullishly"
              if divs else f"none of {n} {_markets(n)} diverges from equities")
    out = [envelope.signal("intermarket_confirmation", direction,
                           envelope.degrade(0.4 + min(0.4, 0.1 * abs(bear - bull)), sources, essential=[LEAD]), urgency,
                           reason)]
    for d in divs[:3]:
        pair = data["pairs"][d["pair"]]
        bt = pair.get("backtest_1m", {}).get(d["type"]) if d["horizon"] == "1m" else None
        support = 0.0
        if bt and bt["events_with_outcome"] >= 5 and bt["forward_1m_negative_share_pct"] is not None:
            neg = bt["forward_1m_negative_share_pct"]
            support = 0.1 if (d["type"] == "bearish" and neg > 55) or (d["type"] == "bullish" and neg < 45) else -0.05
        conf = envelope.degrade(0.35 + min(0.3, d["strength"] / 5) + support, sources, essential=[LEAD, pair["series"]])
        urgency = "high" if d["strength"] >= 2 else "medium" if d["strength"] >= 1 else "low"
        out.append(envelope.signal(f"{d['pair']}_{d['horizon']}", d["type"], conf, urgency,
                                   f"{d['description']} (strength {d['strength']})"))
    return out


register(Module(name=NAME, category="cross_asset", tier="P", inputs=INPUTS,
                description="Divergences between equities and credit, volatility, yields, bitcoin, the dollar",
                compute=compute, lookback_days=3700))
