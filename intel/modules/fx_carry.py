"""fx_carry: the US short-rate leg of FX carry, realized volatility and trailing spot returns of holding
each currency against the dollar, the foreign rate each currency would have needed to match US bills,
and carry and carry-to-vol where the currency's foreign 3-month rate has observations (the catalog's OECD
series, monthly: the carry uses the latest one at or before the clock and names its date). Pairs without
one (a data source that lacks the series, such as the replay history) are listed as such."""
from __future__ import annotations

import numpy as np

from intel import envelope, provenance
from intel.catalog import FOREIGN_SHORT_RATES
from intel.envelope import InsufficientData
from intel.frames import Frames
from intel.indicators import DECADE_DAYS, day_numbers, in_window, index_days_ago, rolling_std
from intel.modules._common import fig
from intel.modules._fx import PAIRS, YEAR_OBS, annualised_pct, quote_of, standing, usd_index, usd_log_returns
from intel.registry import Module, register

NAME = "fx_carry"
BILL, FUNDS = "DGS3MO", "FEDFUNDS"
# Foreign 3-month rates (catalog series ids) of the pairs' currencies
FOREIGN_RATES: dict[str, str] = {ccy: FOREIGN_SHORT_RATES[ccy] for _, ccy, _ in PAIRS.values()
                                 if ccy in FOREIGN_SHORT_RATES}
INPUTS = (*PAIRS, BILL, FUNDS, *FOREIGN_RATES.values())
VOL_OBS = 63  # realized vol window for carry-to-vol and the carry environment
CALM_PCT, STORMY_PCT = 30.0, 70.0  # average vol percentile that is good / bad for carry trades
RATE_MOVE_BP = 25.0  # 3-month change in the US bill yield that counts as a move in the rate leg


def us_leg(frames: Frames) -> tuple[dict, float | None]:
    """US bill and fed funds levels, changes, and the bill return of the past year (mean yield)."""
    out, bill_return = {}, None
    bill = frames.get(BILL)
    if bill is not None:
        days, values = day_numbers(bill), bill["value"].to_numpy().astype(float)
        ago = index_days_ago(days, 91)
        out["bill_3m_yield_pct"] = envelope.level(frames, BILL, 2)
        out["bill_3m_change_3m_bp"] = envelope.difference(
            envelope.last_obs(frames, BILL), envelope.nth_obs(frames, BILL, ago - bill.height), 1,
            op="change of DGS3MO since the last quote 91 or more days earlier, bp") if ago is not None else None
        if days[-1] - 365 >= days[0]:
            bill_return = float(values[in_window(days, 365)].mean())
        with provenance.about(frames, BILL):
            out["bill_return_1y_pct"] = envelope.rnd(bill_return, 2, "mean 3-month bill yield of the past year")
    funds = frames.get(FUNDS)
    if funds is not None:
        out["fed_funds_pct"] = envelope.level(frames, FUNDS, 2)
        out["fed_funds_month"] = funds["date"][-1].isoformat()[:7]
        if bill is not None:
            out["bill_minus_fed_funds_bp"] = envelope.difference(envelope.last_obs(frames, BILL),
                                                                 envelope.last_obs(frames, FUNDS), 1)
    return out, bill_return


def pair_block(frames: Frames, sid: str, bill_now: float | None, bill_return: float | None) -> dict | None:
    frame = frames.get(sid)
    if frame is None or frame.height < 22:
        return None
    label, ccy, usd_per_foreign = PAIRS[sid]
    days = day_numbers(frame)
    foreign_per_usd = usd_index(frame, usd_per_foreign)
    holder = 1.0 / foreign_per_usd  # dollars per foreign unit: the value of holding the currency
    rdays, rets = usd_log_returns(frame, usd_per_foreign)
    row = {"currency": ccy, "series": sid, "quote": quote_of(sid), "level": envelope.level(frames, sid, 4)}
    vol = annualised_pct(rolling_std(rets, VOL_OBS)) if len(rets) >= VOL_OBS else None
    with provenance.about(frames, sid):
        row["realized_vol_63d_pct"] = envelope.rnd(vol[-1], 2) if vol is not None else None
        row["realized_vol_1y_pct"] = envelope.rnd(annualised_pct(np.std(rets[-YEAR_OBS:], ddof=1)), 2) \
            if len(rets) >= YEAR_OBS else None
        if vol is not None:
            row["vol_63d_percentile_10y"] = envelope.rnd(
                standing(vol[in_window(rdays, DECADE_DAYS)], float(vol[-1]))[0], 1,
                "percentile rank of the 63-day vol within its 10-year history")
    for label_h, cal in (("3m", 91), ("1y", 365)):
        row[f"spot_return_{label_h}_pct"] = spot_return(frames, sid, index_days_ago(days, cal), holder)
    spot_1y = row["spot_return_1y_pct"]
    if spot_1y is not None and bill_return is not None:
        # holding the currency uninvested lost (or gained) this much against US bills; a foreign deposit
        # rate of this size would have closed the gap (1-year simple approximation)
        with provenance.about(frames, BILL, sid):
            row["breakeven_foreign_rate_1y_pct"] = envelope.rnd(bill_return - spot_1y, 2,
                                                                "mean bill yield of the past year minus the 1-year "
                                                                "spot return")
    if foreign_rate(frames, ccy) is not None and bill_now is not None and row["realized_vol_63d_pct"]:
        with provenance.about(frames, FOREIGN_RATES[ccy], BILL, sid):
            _carry(frames, row, FOREIGN_RATES[ccy], spot_1y)
    return row


def spot_return(frames: Frames, sid: str, idx: int | None, holder: np.ndarray):
    """Percent change of the dollar value of one unit of the currency since observation `idx`, from the two
    named quotes (a quote in foreign units per dollar is inverted: then it is the earlier quote over the last)."""
    if idx is None or not holder[idx]:
        return None
    frame = frames.get(sid)
    then, last = envelope.nth_obs(frames, sid, idx - frame.height), envelope.last_obs(frames, sid)
    ccy, usd_per_foreign = PAIRS[sid][1], PAIRS[sid][2]
    if usd_per_foreign:
        return envelope.pct_change(last, then, 2,
                                   f"percent change of {sid} (USD per {ccy}) from {then[1]} to {last[1]}")
    return envelope.pct_change(then, last, 2, f"return of holding {ccy}: {sid} ({ccy} per USD) on {then[1]} over "
                                              f"{sid} on {last[1]}, minus 1, percent")


def _carry(frames: Frames, row: dict, foreign_id: str, spot_1y) -> None:
    """Carry against the US bill, carry-to-vol and total return, where a foreign short rate exists: the rate
    and the carry from named observations, the rest scoped to the rate, the bill and the pair. The rate is a
    monthly average published weeks later: its latest observation (at or before the clock, like every frame's)
    is used, with its date."""
    rate, foreign, bill = frames.get(foreign_id), envelope.last_obs(frames, foreign_id), envelope.last_obs(frames, BILL)
    row["foreign_rate_series"] = foreign_id
    row["foreign_rate_date"] = foreign[1].isoformat()  # the 1st of the month the rate averages
    row["foreign_rate_pct"] = envelope.level(frames, foreign_id, 2, op=f"{foreign_id}, average of the month of "
                                                                       f"{foreign[1].isoformat()}")
    # long the currency, funded in dollars
    row["carry_pct"] = envelope.difference(foreign, bill, 2, scale=1.0, op=f"{foreign_id} ({foreign[1].isoformat()}) "
                                                                          f"- {BILL} ({bill[1].isoformat()}), percent")
    carry = foreign[2] - bill[2]
    row["carry_to_vol"] = envelope.rnd(carry / row["realized_vol_63d_pct"], 3, "carry over 63-day realized vol")
    if spot_1y is not None:
        rdays_f, rvals = day_numbers(rate), rate["value"].to_numpy().astype(float)
        row["total_return_1y_pct"] = envelope.rnd(spot_1y + rvals[in_window(rdays_f, 365)].mean(), 2,
                                                  "1-year spot return plus the mean foreign rate of the past year")


def foreign_rate(frames: Frames, ccy: str):
    """The frame of the currency's foreign 3-month rate, None without a catalog series or observations."""
    foreign_id = FOREIGN_RATES.get(ccy)
    return frames.get(foreign_id) if foreign_id else None


def no_carry_reason(frames: Frames, sid: str, ccy: str) -> str:
    foreign_id = FOREIGN_RATES.get(ccy)
    if foreign_id is None:
        return f"no {ccy} short-rate series in the catalog"
    if frames.get(foreign_id) is None:
        return f"no observations of {foreign_id} (the {ccy} 3-month interbank rate) in this data source"
    if frames.get(BILL) is None:
        return f"{BILL} missing"
    return f"no 63-day realized vol of {sid} (fewer than {VOL_OBS + 1} observations, or zero)"


def carry_sentences(data: dict, with_carry: dict, lacking: list[str], source: str) -> str:
    out = ""
    if with_carry:
        best = data["pairs"][data["best_carry_to_vol_pair"]]
        out += (f"Carry-to-vol is computed for {len(with_carry)} pairs, best {data['best_carry_to_vol_pair']} at "
                f"{best['carry_to_vol']} (carry {fig(best['carry_pct'], '%')} with the {best['currency']} 3-month "
                f"rate of the month of {best['foreign_rate_date']}). ")
    if lacking:
        out += (f"The {source} data has no foreign short rate for {', '.join(lacking)}, so carry-to-vol "
                "could not be computed for " + ("any pair" if not with_carry else "them") + "; realized vols, "
                "spot returns and the foreign rate that would have matched US bills are given instead. ")
    return out


def compute(frames: Frames) -> dict:
    # the bill leads the summary and a signal: it counts toward data_as_of (no pair at all still raises below)
    envelope.require(frames, NAME, (*PAIRS, BILL))
    sources = envelope.data_sources(frames, INPUTS)
    # the signals rest on the pairs and the US rates: a data source without foreign rates costs them nothing
    signal_sources = envelope.data_sources(frames, (*PAIRS, BILL, FUNDS))
    us, bill_return = us_leg(frames)
    bill_now = float(frames.get(BILL)["value"][-1]) if frames.get(BILL) is not None else None
    pairs, unavailable = {}, {}
    for sid in PAIRS:
        row = pair_block(frames, sid, bill_now, bill_return)
        if row is None:
            unavailable[PAIRS[sid][0]] = f"{sid} missing or shorter than 22 observations"
            continue
        pairs[PAIRS[sid][0]] = row
        if "carry_to_vol" not in row:
            unavailable[f"carry_to_vol_{PAIRS[sid][0]}"] = no_carry_reason(frames, sid, row["currency"])
    if not pairs:
        raise InsufficientData(f"{NAME}: no pair has 22 observations")
    if not us:
        unavailable["us_rate_leg"] = f"{BILL} and {FUNDS} missing"
    elif bill_return is None:
        unavailable["breakeven_foreign_rate_1y_pct"] = f"{BILL} missing or shorter than a year"

    with_carry = {k: v["carry_to_vol"] for k, v in pairs.items() if "carry_to_vol" in v}
    lacking = [k for k, v in pairs.items() if foreign_rate(frames, v["currency"]) is None]
    spots = {v["currency"]: v["spot_return_1y_pct"] for v in pairs.values() if v["spot_return_1y_pct"] is not None}
    pcts = [v["vol_63d_percentile_10y"] for v in pairs.values() if v.get("vol_63d_percentile_10y") is not None]
    # counts rest on which pairs, foreign rates and bills have quotes; the average on the pairs it averages
    with provenance.about(frames, *(v["series"] for v in pairs.values()), BILL, *FOREIGN_RATES.values()):
        counts = {"pairs_with_carry_to_vol": envelope.count(len(with_carry), "count of pairs with carry-to-vol"),
                  "pairs_without_foreign_rate": envelope.count(len(lacking), "count of pairs without observations of "
                                                                             "a foreign short rate")}
    with provenance.about(frames,
                          *(v["series"] for v in pairs.values() if v.get("vol_63d_percentile_10y") is not None)):
        average = envelope.rnd(np.mean(pcts), 1, "mean of the pairs' 63-day vol percentiles (10-year history)") \
            if pcts else None
    data = {"us_leg": us, "pairs": pairs, **counts, "pairs_lacking_foreign_rate": lacking,
            "average_vol_63d_percentile_10y": average}
    if with_carry:
        data["best_carry_to_vol_pair"] = max(with_carry, key=with_carry.get)
    if spots:
        # the best and the worst rest on every pair they were chosen among
        best, worst = max(spots, key=spots.get), min(spots, key=spots.get)
        with provenance.about(frames, *(v["series"] for v in pairs.values() if v["currency"] in spots)):
            data.update({"best_spot_1y_currency": best,
                         "best_spot_1y_pct": envelope.rnd(spots[best], 2, "highest 1-year spot return of the pairs"),
                         "worst_spot_1y_currency": worst,
                         "worst_spot_1y_pct": envelope.rnd(spots[worst], 2, "lowest 1-year spot return of the pairs")})

    signals = []
    change = us.get("bill_3m_change_3m_bp")
    if change is not None:
        direction = "bullish" if change >= RATE_MOVE_BP else "bearish" if change <= -RATE_MOVE_BP else "neutral"
        signals.append(envelope.signal(
            "usd_rate_leg", direction,
            envelope.degrade(0.35 + min(0.35, abs(change) / 200), signal_sources, essential=[BILL]),
            "medium" if abs(change) >= 75 else "low",
            f"US 3-month bill yield {us['bill_3m_yield_pct']}%, {change} bp over three months "
            "(direction refers to the dollar's carry appeal)"))
    avg = data["average_vol_63d_percentile_10y"]
    if avg is not None:
        direction = "bullish" if avg <= CALM_PCT else "bearish" if avg >= STORMY_PCT else "neutral"
        signals.append(envelope.signal(
            "carry_environment", direction, envelope.degrade(0.3 + min(0.4, abs(avg - 50) / 100), signal_sources,
                                                             essential=["DEXJPUS", "DEXUSEU"]),
            "medium" if avg >= 90 else "low",
            f"average 63-day FX vol percentile {avg} (low vol favours carry trades; direction refers to carry)"))

    summary = ""
    if us:
        summary += (f"The US leg of carry: 3-month bills yield {fig(us.get('bill_3m_yield_pct'), '%')}"
                    f" ({fig(us.get('bill_3m_change_3m_bp'))} bp over three months) and fed funds "
                    f"{fig(us.get('fed_funds_pct'), '%')}. ")
    summary += carry_sentences(data, with_carry, lacking, frames.data_source)
    if spots:
        summary += (f"Over a year, holding {data['best_spot_1y_currency']} against the dollar returned "
                    f"{data['best_spot_1y_pct']}% in spot terms, the best, and {data['worst_spot_1y_currency']} "
                    f"{data['worst_spot_1y_pct']}%, the worst. ")
    summary += f"FX volatility sits at the {fig(avg)} percentile of its history on average."
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary + envelope.staleness_note(sources),
                          sources=sources, unavailable=unavailable or None,
                          related_modules=envelope.related(
                              ("fx_volatility", "realized vol per pair in more detail"),
                              ("fed_policy", "where the US short rate is heading"),
                              ("dollar_strength", "the broad dollar trend"),
                              ("fx_overview", "levels and moves of the majors"),
                              ("treasury_yields", "the US bill yield in the whole curve")),
                          methodology="Spot returns are the change in the dollar value of one unit of the currency "
                                      "(quotes in foreign units per dollar are inverted). Breakeven foreign rate = "
                                      "mean 3-month bill yield of the past year minus the 1-year spot return: the "
                                      "deposit rate the currency needed to match US bills. Carry = foreign 3-month "
                                      "rate minus the US bill yield; carry-to-vol divides it by 63-day realized vol "
                                      "(annualised daily log changes). The foreign rate is the OECD's 3-month "
                                      "interbank rate (FRED's IR3TIB01 series), a monthly average published about two "
                                      "months later: the latest month out by the clock is used and its date given, so "
                                      "the two legs can be weeks apart. Pairs whose rate has no observations in the "
                                      "data source are listed without carry. The carry environment averages each "
                                      "pair's 63-day vol percentile against its own history of up to 10 years.")


register(Module(name=NAME, category="fx", tier="P", inputs=INPUTS,
                description="Rate differentials, carry-to-vol; says which pairs lack foreign rates",
                compute=compute, lookback_days=3700))
