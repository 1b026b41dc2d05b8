"""Journal events from bars: which paper ideas close and open at a run, as declarative, subscriber-independent
statements (`ENTERED`, `EXITED`). No option prices, Greeks or sizing: an exit states its paper P&L percentage only.

What keeps the journal honest, beyond the hash chain that stores it:
- a bar is used only once it has closed by the market clock (ETFs at 16:00 New York, bitcoin's daily bar at the
  end of its UTC day), so every reference price is a bar dated at or before the clock;
- an idea opens only on an instrument's newest closed bar, and only while that bar is at most ENTRY_MAX_AGE old:
  a run never opens ideas on history it has already seen the outcome of (a missed run misses its ideas);
- an open idea closes at the close of the instrument's next bar, whenever the run that sees it comes: the exit
  price is fixed by the rule, not chosen.
Event ids are deterministic (`<track>:<instrument>:<bar date>:entered|exited`), so a second run the same day adds
nothing."""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from intel.daytrade.rules import TRACKS, decide, paper_pnl_pct
from intel.daytrade.terms import Terms

ENTRY_MAX_AGE = timedelta(days=4)  # a Friday close still opens an idea at a run on Monday night, no older bar does
NEW_YORK = ZoneInfo("America/New_York")


@dataclass(frozen=True)
class Instrument:
    symbol: str  # what the journal calls it
    ticker: str  # what the provider's `bars` is asked for
    name: str
    session: str  # "us_equity": closes 16:00 New York; "crypto_utc_day": the daily bar ends at 24:00 UTC

    def closed_at(self, day: date) -> datetime:
        if self.session == "us_equity":
            return datetime.combine(day, time(16, 0), NEW_YORK).astimezone(ZoneInfo("UTC"))
        return datetime.combine(day + timedelta(days=1), time(0, 0), ZoneInfo("UTC"))


# Liquid instruments the service has daily bars for; bitcoin from its daily bars (the hourly candles exist only
# on the live provider, and the rules are daily-bar rules).
INSTRUMENTS = {i.symbol: i for i in (
    Instrument("SPY", "SPY", "SPY (S&P 500 ETF)", "us_equity"),
    Instrument("QQQ", "QQQ", "QQQ (Nasdaq-100 ETF)", "us_equity"),
    Instrument("IWM", "IWM", "IWM (Russell 2000 ETF)", "us_equity"),
    Instrument("BTC-USD", "CBBTCUSD", "Bitcoin (BTC-USD, daily bars)", "crypto_utc_day"),
)}


@dataclass(frozen=True)
class Bar:
    day: date
    close: float
    closed_at: datetime


def closed_bars(instrument: Instrument, days: Iterable[date], closes: Iterable[float], now: datetime) -> list[Bar]:
    """The bars (oldest first) that have closed by `now`, without missing closes."""
    bars = [Bar(d, float(c), instrument.closed_at(d)) for d, c in zip(days, closes) if c is not None]
    return sorted((b for b in bars if b.closed_at <= now), key=lambda b: b.day)


def open_ideas(journal: Iterable[Mapping]) -> dict[str, Mapping]:
    """ENTERED bodies without their EXITED, by idea id."""
    opened: dict[str, Mapping] = {}
    for body in journal:
        if body["event"] == "ENTERED":
            opened[body["idea_id"]] = body
        else:
            opened.pop(body["idea_id"], None)
    return opened


def next_events(instrument: Instrument, bars: list[Bar], journal: list[Mapping], now: datetime, terms: Terms,
                provenance: Mapping) -> list[dict]:
    """The events a run at `now` appends for `instrument`: exits of its open ideas, then new entries on its newest
    closed bar. `journal`: the bodies recorded so far (any instruments); `provenance`: data_source, simulated."""
    known = {body["id"] for body in journal}
    common = {"recorded_at": now.isoformat(), **provenance, "disclosure": terms.disclosure()}
    events, still_open = [], set()
    for idea in open_ideas(journal).values():
        if idea["instrument"] != instrument.symbol:
            continue
        later = [b for b in bars if b.day > date.fromisoformat(idea["bar_date"])]
        if not later:
            still_open.add(idea["track"])
            continue
        events.append(_exited(idea, later[0], common))
    if not bars or now - bars[-1].closed_at > ENTRY_MAX_AGE:
        return events
    newest, closes = bars[-1], [b.close for b in bars]
    for track in TRACKS:
        decision = decide(track, instrument.name, closes)
        event_id = f"{track}:{instrument.symbol}:{newest.day.isoformat()}:entered"
        if decision is None or track in still_open or event_id in known:
            continue
        events.append({"id": event_id, "event": "ENTERED", "idea_id": event_id.removesuffix(":entered"),
                       "track": track, "instrument": instrument.symbol, "instrument_name": instrument.name,
                       "side": decision.side, "reference_price": round(newest.close, 6),
                       "time": newest.closed_at.isoformat(), "bar_date": newest.day.isoformat(),
                       "rule": decision.rule, "reason": decision.reason, **common})
    return events


def _exited(idea: Mapping, bar: Bar, common: dict) -> dict:
    return {"id": f"{idea['idea_id']}:exited", "event": "EXITED", "idea_id": idea["idea_id"], "track": idea["track"],
            "instrument": idea["instrument"], "side": idea["side"], "reference_price": round(bar.close, 6),
            "time": bar.closed_at.isoformat(), "bar_date": bar.day.isoformat(),
            "paper_pnl_pct": paper_pnl_pct(idea["side"], idea["reference_price"], bar.close), **common}
