"""liquidity: the Fed balance sheet, overnight reverse repo, net liquidity and M2 growth."""
from __future__ import annotations

import numpy as np
import polars as pl

from intel import envelope, indicators, provenance
from intel.frames import Frames
from intel.modules._common import fig, growth, move_word, signed
from intel.modules._monthly import asof_values, month_obs, monthly
from intel.registry import Module, register

NAME = "liquidity"
INPUTS = ("WALCL", "RRPONTSYD", "M2SL", "WM2NS")
# WALCL is published in millions of dollars, RRPONTSYD, M2SL and WM2NS in billions (intel/catalog.py)
WALCL_TO_BN = 1 / 1000
# net liquidity moves of more than this share of its level over thirteen weeks count as an impulse
IMPULSE_13W_PCT = 1.0


def _change_bn(frames: Frames, sid: str, days: int, scale: float = 1.0):
    """The change since the observation `days` calendar days before the last, in billions, from those two."""
    return envelope.change_obs(envelope.last_obs(frames, sid), envelope.obs_days_before(frames, sid, days), "diff", 1,
                               f"change since the value {days} days earlier"
                               + (", in billions" if scale != 1.0 else ""), scale)


def balance_sheet(frames: Frames) -> dict:
    frame = frames.get("WALCL")
    values = frame["value"].to_numpy() * WALCL_TO_BN
    peak = int(np.argmax(values))
    top = ("WALCL", frame["date"][peak], float(frame["value"][peak]))
    last = envelope.last_obs(frames, "WALCL")
    with provenance.about(frames, "WALCL"):
        return {"as_of": frame["date"][-1].isoformat(),
                "total_assets_bn": envelope.level(frames, "WALCL", 1, WALCL_TO_BN, "latest value, in billions"),
                "change_4w_bn": _change_bn(frames, "WALCL", 28, WALCL_TO_BN),
                "change_13w_bn": _change_bn(frames, "WALCL", 91, WALCL_TO_BN),
                "change_52w_bn": _change_bn(frames, "WALCL", 364, WALCL_TO_BN),
                "change_52w_pct": envelope.change_obs(last, envelope.obs_days_before(frames, "WALCL", 364), "pct", 2,
                                                  "percent change since the value 364 days earlier"),
                "peak_bn": provenance.observed(envelope.rnd(values[peak], 1), [top[:2]], "level",
                                               "highest value in the window, in billions", 1, WALCL_TO_BN),
                "peak_date": frame["date"][peak].isoformat(),
                "below_peak_pct": envelope.pct_change(last, top, 2, "percent change from the peak")}


def reverse_repo(frames: Frames) -> dict:
    frame = frames.get("RRPONTSYD")
    recent = indicators.window(frame, 1826)["value"].to_numpy()
    with provenance.about(frames, "RRPONTSYD"):
        return {"as_of": frame["date"][-1].isoformat(), "level_bn": envelope.level(frames, "RRPONTSYD", 1),
                "change_1m_bn": _change_bn(frames, "RRPONTSYD", 30),
                "change_3m_bn": _change_bn(frames, "RRPONTSYD", 91),
                "change_1y_bn": _change_bn(frames, "RRPONTSYD", 365),
                "max_5y_bn": envelope.rnd(recent.max(), 1, "highest value of the past five years")}


def net_liquidity(frames: Frames) -> dict | None:
    """Balance sheet (in billions) minus reverse repo as of each Wednesday of the balance sheet."""
    walcl, rrp = frames.get("WALCL"), frames.get("RRPONTSYD")
    rrp_then = asof_values(rrp, walcl["date"])
    ok = np.isfinite(rrp_then)
    if not ok.any():
        return None
    dates = walcl["date"].filter(pl.Series(ok))
    net = walcl["value"].to_numpy()[ok] * WALCL_TO_BN - rrp_then[ok]
    frame = pl.DataFrame({"date": dates, "value": net})
    change_13w = indicators.change_since(frame, 91, "diff")
    change_13w_pct = indicators.change_since(frame, 91, "pct")
    # the current 13-week change against the 13-week changes of the past five years (weekly steps)
    recent = indicators.window(frame, 1826)["value"].to_numpy()
    history = recent[13:] - recent[:-13] if len(recent) > 13 else np.array([])
    used_day, used = indicators.value_on_or_before(rrp, dates[-1])  # the reverse repo reading the last Wednesday took
    with provenance.about(frames, "WALCL", "RRPONTSYD"):
        return {"as_of": dates[-1].isoformat(),
                "level_bn": envelope.rnd(net[-1], 1, "WALCL in billions minus RRPONTSYD on or before its date"),
                "reverse_repo_used_bn": provenance.observed(envelope.rnd(used, 1), [("RRPONTSYD", used_day)], "level",
                                                            "RRPONTSYD on or before the last WALCL date", 1),
                "change_4w_bn": envelope.rnd(indicators.change_since(frame, 28, "diff"), 1,
                                             "change of net liquidity since 28 days earlier"),
                "change_13w_bn": envelope.rnd(change_13w, 1, "change of net liquidity since 91 days earlier"),
                "change_13w_pct": envelope.rnd(change_13w_pct, 2,
                                               "percent change of net liquidity since 91 days earlier"),
                "change_52w_bn": envelope.rnd(indicators.change_since(frame, 364, "diff"), 1,
                                              "change of net liquidity since 364 days earlier"),
                "change_13w_zscore_5y": envelope.rnd(indicators.zscore_of(history, change_13w, min_obs=26), 2,
                                                     "z-score of the 13-week change against five years of 13-week "
                                                     "changes")}


def m2_monthly(frames: Frames) -> dict:
    m = monthly(frames.get("M2SL"))
    at = lambda i: month_obs(frames, "M2SL", m, i)  # noqa: E731
    with provenance.about(frames, "M2SL"):
        return {"period": m.period(), "level_bn": envelope.level(frames, "M2SL", 1),
                "yoy_pct": envelope.change_obs(at(-1), at(-13), "pct", 2,
                                               "percent change from the same month a year earlier"),
                "annualized_3m_pct": envelope.rnd(growth(m.values, 3, annualize=True)[-1], 2,
                                                  "3-month growth, annualized, percent"),
                "annualized_6m_pct": envelope.rnd(growth(m.values, 6, annualize=True)[-1], 2,
                                                  "6-month growth, annualized, percent"),
                "yoy_12m_ago_pct": envelope.change_obs(at(-13), at(-25), "pct", 2,
                                                       "year-over-year change a year earlier, percent")}


def m2_weekly(frames: Frames) -> dict:
    # not seasonally adjusted: only the year-on-year comparison (same week a year earlier) is meaningful
    frame = frames.get("WM2NS")
    return {"week_of": frame["date"][-1].isoformat(), "level_bn": envelope.level(frames, "WM2NS", 1),
            "yoy_pct": envelope.change_obs(envelope.last_obs(frames, "WM2NS"),
                                           envelope.obs_days_before(frames, "WM2NS", 364),
                                           "pct", 2, "percent change since the week 364 days earlier")}


def compute(frames: Frames) -> dict:
    envelope.require(frames, NAME, INPUTS)
    sources = envelope.data_sources(frames, INPUTS)
    data, unavailable = _figures(frames)
    return envelope.build(NAME, frames, data=data, signals=_signals(data, sources),
                          summary=_summary(data) + envelope.staleness_note(sources), sources=sources,
                          related_modules=envelope.related(
                              ("financial_conditions", "whether liquidity shows up in financial conditions"),
                              ("fed_policy", "the policy rate beside the balance sheet"),
                              ("risk_dashboard", "liquidity beside volatility, credit and the curve"),
                              ("bitcoin", "an asset often said to track liquidity"),
                              ("macro_regime", "the growth x inflation backdrop")),
                          methodology="Net liquidity = WALCL (millions of dollars, divided by 1000) minus RRPONTSYD "
                                      "(billions) as of each Wednesday, in billions; it leaves out the Treasury "
                                      "General Account, which is not an input. The 13-week change is z-scored against "
                                      "the 13-week changes of the past five years. M2 growth compares calendar months "
                                      "(M2SL) or the same week a year earlier (WM2NS, not seasonally adjusted). "
                                      "Signal: an impulse beyond 1% over thirteen weeks is bullish if M2 grows, any "
                                      "contraction of net liquidity or of M2 is bearish.",
                          unavailable=unavailable or None)


def _figures(frames: Frames) -> tuple[dict, dict]:
    """The blocks of the inputs present, net liquidity, the headline M2 growth, and what is missing."""
    walcl, rrp, m2, m2w = (frames.get(s) for s in INPUTS)
    data: dict = {}
    unavailable = {}
    if walcl is not None:
        data["fed_balance_sheet"] = balance_sheet(frames)
    if rrp is not None:
        data["reverse_repo"] = reverse_repo(frames)
    net = net_liquidity(frames) if walcl is not None and rrp is not None else None
    if net is not None:
        data["net_liquidity"] = net
    else:
        unavailable["net_liquidity"] = "needs both WALCL and RRPONTSYD observations"
    if m2 is not None:
        data["m2"] = m2_monthly(frames)
    if m2w is not None:
        data["m2_weekly_nsa"] = m2_weekly(frames)
    # headline M2 growth: the seasonally adjusted monthly series, the weekly NSA series when it is absent
    m2_yoy = (data.get("m2") or {}).get("yoy_pct")
    if m2_yoy is None:
        m2_yoy = (data.get("m2_weekly_nsa") or {}).get("yoy_pct")
    data["m2_growth_yoy_pct"] = m2_yoy
    if m2_yoy is None:
        unavailable["m2_growth_yoy_pct"] = "no M2 series with a year of history"
    # the impulse the signal reads is net liquidity's 13-week change, else the balance sheet's
    if (net or {}).get("change_13w_pct") is None and walcl is not None:
        data["fed_balance_sheet"]["change_13w_pct"] = envelope.change_obs(
            envelope.last_obs(frames, "WALCL"), envelope.obs_days_before(frames, "WALCL", 91), "pct", 2,
            "percent change since the value 91 days earlier")
    return data, unavailable


def _signals(data: dict, sources: dict) -> list[dict]:
    signals = []
    m2_yoy = data["m2_growth_yoy_pct"]
    impulse = (data.get("net_liquidity") or {}).get("change_13w_pct")
    label = "net liquidity"
    if impulse is None and "fed_balance_sheet" in data:
        impulse, label = data["fed_balance_sheet"]["change_13w_pct"], "the Fed balance sheet"
    if impulse is not None or m2_yoy is not None:
        up = impulse is not None and impulse > IMPULSE_13W_PCT
        down = impulse is not None and impulse < -IMPULSE_13W_PCT
        m2_shrinking = m2_yoy is not None and m2_yoy < 0
        if down or m2_shrinking:
            direction = "bearish"
        elif up and (m2_yoy is None or m2_yoy > 0):
            direction = "bullish"
        else:
            direction = "neutral"
        urgency = ("high" if (impulse or 0) < -5 or (m2_yoy or 0) < -2 else
                   "medium" if direction == "bearish" or abs(impulse or 0) > 5 else "low")
        parts = []
        if impulse is not None:
            parts.append(f"{label} {signed(impulse)}% over thirteen weeks")
        if m2_yoy is not None:
            parts.append(f"M2 {signed(m2_yoy)}% year on year")
        confidence = 0.45 + min(0.25, abs(impulse or 0) / 12) + min(0.2, abs(m2_yoy or 0) / 30)
        confidence = envelope.degrade(confidence, sources, essential=["WALCL", "RRPONTSYD"])
        signals.append(envelope.signal("liquidity_impulse", direction, confidence, urgency,
                                       ", ".join(parts) + " (direction refers to risk assets)"))
    return signals


def _summary(data: dict) -> str:
    sentences = []
    if "fed_balance_sheet" in data:
        b = data["fed_balance_sheet"]
        sentences.append(f"The Fed balance sheet stood at {b['total_assets_bn']} bn on {b['as_of']}, "
                         f"{signed(b['change_13w_bn'])} bn over thirteen weeks, "
                         + ("at its peak." if b["below_peak_pct"] == 0 else
                            f"{abs(b['below_peak_pct'])}% below its peak of {b['peak_bn']} bn."))
    if "reverse_repo" in data:
        r = data["reverse_repo"]
        sentences.append(f"Overnight reverse repo usage is {r['level_bn']} bn ({signed(r['change_3m_bn'])} bn "
                         "over three months).")
    net = data.get("net_liquidity")
    if net is not None:
        sentences.append(f"Net liquidity (balance sheet minus reverse repo) is {net['level_bn']} bn, "
                         f"{signed(net['change_13w_bn'])} bn or {signed(net['change_13w_pct'])}% over thirteen weeks.")
    else:
        sentences.append("Net liquidity could not be computed without both the balance sheet and reverse repo.")
    if "m2" in data:
        # a move word, not "grew": M2 can shrink, or be flat to the rounding
        yoy = move_word(data["m2"]["yoy_pct"], "%", missing="n/a", zero="flat")
        sentences.append(f"M2 is {yoy} year on year to {data['m2']['period']} "
                         f"({fig(data['m2']['annualized_3m_pct'], '%')} annualized over three months).")
    if "m2_weekly_nsa" in data:
        sentences.append(f"Weekly M2 (not seasonally adjusted) is {fig(data['m2_weekly_nsa']['yoy_pct'], '%')} "
                         "on a year earlier.")
    return " ".join(sentences)


register(Module(name=NAME, category="macro", tier="S", inputs=INPUTS,
                description="Fed balance sheet, reverse repo, net liquidity, M2 growth",
                compute=compute, lookback_days=3700))
