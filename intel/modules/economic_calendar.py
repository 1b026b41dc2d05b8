"""economic_calendar: upcoming US releases (rule-based dates) and the next FOMC decision (published
dates), each with the last and prior values of its series, plus what the last week's releases printed."""
from __future__ import annotations

from datetime import date, timedelta

import polars as pl

from intel import catalog, econ_calendar, envelope, provenance
from intel.frames import Frames
from intel.registry import Module, register

NAME = "economic_calendar"
WANTED = ("PAYEMS", "UNRATE", "CPIAUCSL", "CPILFESL", "PPIFIS", "ICSA", "RSXFS", "GDPC1", "PCEPILFE", "JTSJOL",
          "UMCSENT", "HOUST", "INDPRO", "DGORDER", "FEDFUNDS")
SERIES = tuple(s for s in WANTED if catalog.get(s) is not None)
WINDOW_DAYS, PAST_DAYS, URGENT_DAYS, SOON_DAYS = 14, 7, 2, 7
LOOKAHEAD_DAYS = 120  # how far to look for each series' next release
# how much a date can be trusted: the Fed's published calendar vs an approximate agency rule
DATE_CONFIDENCE = {econ_calendar.PUBLISHED: 0.85, econ_calendar.RULE_BASED: 0.6}
RANK = {"high": 0, "medium": 1, "low": 2}


def _is_rate(series_id: str) -> bool:
    return catalog.get(series_id).unit == "percent"


def _level(obs: tuple[str, date, float] | None, digits: int, op: str):
    """One named observation's value, rounded, attributed to that observation."""
    if obs is None:
        return None
    value = envelope.rnd(obs[2], digits)
    return None if value is None else provenance.observed(value, [obs[:2]], "level", op, digits)


def snapshot(frames: Frames, series_id: str) -> dict:
    """Last and prior observation of a series with their dates and the change between them."""
    last, prior = envelope.last_obs(frames, series_id), envelope.nth_obs(frames, series_id, -2)
    out = {"last": _level(last, 3, "latest observation"), "last_date": last[1].isoformat(),
           "prior": _level(prior, 3, "observation before the latest"),
           "prior_date": prior[1].isoformat() if prior else None, "unit": catalog.get(series_id).unit}
    change = envelope.difference(last, prior, 3, scale=1.0, op="latest minus prior observation") if prior else None
    if _is_rate(series_id):
        out["change_pp"] = change
    else:
        out["change"] = change
        out["change_pct"] = envelope.pct_change(last, prior, 2, op="percent change from the prior observation") \
            if prior else None
    return out


def printed(frame: pl.DataFrame | None, observation: str | None, series_id: str = "") -> dict | None:
    """The observation a release published (matched by its FRED date) and the one before it."""
    if frame is None or observation is None:
        return None
    day = date.fromisoformat(observation)
    idx = frame["date"].search_sorted(day, side="left")
    if idx >= frame.height or frame["date"][idx] != day:
        return None
    value = (series_id, day, float(frame["value"][idx]))
    prior = (series_id, frame["date"][idx - 1], float(frame["value"][idx - 1])) if idx > 0 else None
    return {"value": _level(value, 3, "observation the release published"), "observation_date": observation,
            "prior_value": _level(prior, 3, "observation before the one published"),
            "prior_date": prior[1].isoformat() if prior else None,
            "change": envelope.difference(value, prior, 3, scale=1.0, op="published minus prior observation")
            if prior else None}


def _base(event: dict) -> dict:
    keep = ("event", "date", "time_et", "importance", "reference_period", "date_basis", "rule", "source",
            "status", "with_projections")
    out = {k: event[k] for k in keep if k in event}
    out["series_ids"] = list(event["series_ids"])
    return out


def compute(frames: Frames) -> dict:
    # the dates need no data, but a calendar without a single value to put them in context is not this
    # module's product (and every module answers 503 on an empty warehouse)
    envelope.require(frames, NAME, SERIES)
    now = frames.now
    sources = envelope.data_sources(frames, SERIES)
    series = {sid: snapshot(frames, sid) for sid in SERIES if frames.get(sid) is not None}
    unavailable = {sid: "no observations in the warehouse" for sid in SERIES if sid not in series}

    # each series' next and last release by the calendar
    ahead = econ_calendar.events_between(now, now + timedelta(days=LOOKAHEAD_DAYS))
    behind = econ_calendar.events_between(now - timedelta(days=LOOKAHEAD_DAYS), now - timedelta(days=1))
    for sid, snap in series.items():
        nxt = next((e for e in ahead if sid in e["series_ids"]), None)
        prev = next((e for e in reversed(behind) if sid in e["series_ids"]), None)
        snap["next_release"] = nxt["date"] if nxt else None
        snap["next_release_basis"] = nxt["date_basis"] if nxt else None
        snap["last_release"] = prev["date"] if prev else None

    def values_of(event):
        return {sid: ({k: series[sid][k] for k in ("last", "last_date", "prior", "prior_date")}
                      if sid in series else None) for sid in event["series_ids"]}

    upcoming = []
    for e in econ_calendar.upcoming(now, WINDOW_DAYS, SERIES):
        row = _base(e)
        row["days_until"] = envelope.constant((date.fromisoformat(e["date"]) - now).days,
                                              "days from today to the release")
        row["last_values"] = values_of(e)
        upcoming.append(row)

    recent = []
    for e in econ_calendar.events_between(now - timedelta(days=PAST_DAYS), now - timedelta(days=1)):
        if not set(e["series_ids"]) & set(SERIES):
            continue
        row = _base(e)
        row["days_ago"] = envelope.constant((now - date.fromisoformat(e["date"])).days, "days since the release")
        if e["observation_date"] is not None:
            prints = {sid: printed(frames.get(sid), e["observation_date"], sid) for sid in e["series_ids"]}
            row["printed"] = prints
            if not any(prints.values()):
                row["printed_note"] = "the published observation is not in the warehouse yet"
        else:
            row["last_values"] = values_of(e)
        recent.append(row)

    fomc = econ_calendar.next_fomc(now)
    data = {"window_days": envelope.constant(WINDOW_DAYS, "fixed parameter: days ahead the calendar covers"),
            "window_end": (now + timedelta(days=WINDOW_DAYS)).isoformat(),
            "past_days": envelope.constant(PAST_DAYS, "fixed parameter: days back the recent releases cover"),
            "upcoming_count": envelope.constant(len(upcoming), "count of calendar events in the window"),
            "upcoming_high_importance_count": envelope.constant(sum(r["importance"] == "high" for r in upcoming),
                                                                "count of high-importance calendar events in the "
                                                                "window"),
            "upcoming": upcoming, "recent": recent, "series": series}
    if fomc is not None:
        days = (date.fromisoformat(fomc["date"]) - now).days
        data["next_fomc"] = {**_base(fomc),
                             "days_until": envelope.constant(days, "days from today to the FOMC decision"),
                             "fed_funds": values_of(fomc)["FEDFUNDS"] if "FEDFUNDS" in SERIES else None}
    else:
        covered = f"{econ_calendar.FOMC_COVERAGE[0].year}-{econ_calendar.FOMC_COVERAGE[1].year}"
        unavailable["next_fomc"] = (f"only the Federal Reserve's published FOMC calendar for {covered} is stored; "
                                    f"no meeting date is known for {now.isoformat()}")

    signals = [_release_signal(upcoming, series, sources)]
    if fomc is not None:
        signals.append(_fomc_signal(data["next_fomc"], sources))

    summary = _summary(data, fomc is not None) + envelope.staleness_note(sources)
    return envelope.build(NAME, frames, data=data, signals=signals, summary=summary, sources=sources,
                          related_modules=envelope.related(
                              ("inflation", "the CPI, PCE and PPI trend behind the next prints"),
                              ("labor_market", "payrolls, unemployment and claims in context"),
                              ("fed_policy", "what the market prices for the next FOMC decision"),
                              ("growth", "the activity data behind GDP, retail sales and production"),
                              ("economic_surprise", "how recent prints compared with their trend")),
                          methodology="Release dates follow fixed approximations of the agencies' schedules "
                                      "(e.g. payrolls on the third Friday after the week containing the 12th, CPI on "
                                      "the 8th business day, federal holidays shifted) and are marked rule-based; "
                                      "FOMC dates are the Federal Reserve's published calendar. Values are the last "
                                      "and prior observations in the warehouse; a past release's print is the "
                                      "observation dated for its reference period.",
                          unavailable=unavailable or None)


def _urgency(days: int) -> str:
    return "high" if days <= URGENT_DAYS else "medium" if days <= SOON_DAYS else "low"


def _release_signal(upcoming: list[dict], series: dict, sources: dict) -> dict:
    high = [r for r in upcoming if r["importance"] == "high" and r["event"] != "FOMC rate decision"]
    if not high:
        return envelope.signal("release_risk", "neutral", envelope.degrade(0.6, sources), "low",
                               f"no high-importance release in the next {WINDOW_DAYS} days")
    first = high[0]
    ids = first["series_ids"]
    confidence = DATE_CONFIDENCE[first["date_basis"]]
    # a release whose series is missing from the warehouse cannot be put in context
    confidence = envelope.degrade(confidence, sources, essential=ids)
    return envelope.signal("release_risk", "neutral", confidence, _urgency(first["days_until"]),
                           f"{first['event']} for {first['reference_period']} on {first['date']} "
                           f"({first['date_basis']}), {first['days_until']} days away")


def _fomc_signal(fomc: dict, sources: dict) -> dict:
    confidence = DATE_CONFIDENCE[econ_calendar.PUBLISHED] * (0.8 if fomc["status"] == "tentative" else 1.0)
    return envelope.signal("fomc_proximity", "neutral", envelope.degrade(confidence, sources, essential=["FEDFUNDS"]),
                           _urgency(fomc["days_until"]),
                           f"FOMC decision on {fomc['date']} ({fomc['status']}), {fomc['days_until']} days away")


def _summary(data: dict, has_fomc: bool) -> str:
    up = data["upcoming"]
    high = [r for r in up if r["importance"] == "high" and r["event"] != "FOMC rate decision"]
    parts = [f"{data['upcoming_count']} events are on the calendar from today through {data['window_end']}, "
             f"{data['upcoming_high_importance_count']} of high importance"]
    if high:
        parts[0] += ": " + "; ".join(f"{r['event']} for {r['reference_period']} on {r['date']} "
                                     f"({r['date_basis']})" for r in high[:5])
    text = parts[0] + "."
    if has_fomc:
        f = data["next_fomc"]
        text += (f" The next FOMC decision is on {f['date']} ({f['date_basis']}, {f['status']}), "
                 f"{f['days_until']} days away.")
    else:
        text += " The next FOMC date is not known here (the stored Federal Reserve calendar does not cover today)."
    prints = []
    for r in sorted(data["recent"], key=lambda r: (RANK[r["importance"]], r["days_ago"])):
        for sid, p in (r.get("printed") or {}).items():
            if p is not None and len(prints) < 4:
                prior = f", prior {p['prior_value']}" if p["prior_value"] is not None else ""
                prints.append(f"{sid} for {r['reference_period']} printed {p['value']}{prior}")
    if prints:
        text += f" Printed in the past {data['past_days']} days: " + "; ".join(prints) + "."
    elif data["recent"]:
        text += f" The releases of the past {data['past_days']} days are not in the warehouse yet."
    return text


register(Module(name=NAME, category="macro", tier="S", inputs=SERIES,
                description="Upcoming releases (CPI, payrolls, claims, GDP, PCE, retail sales, FOMC...) with date, "
                            "importance, last and prior value",
                compute=compute, lookback_days=800))
