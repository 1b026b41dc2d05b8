"""Usage tallied over two adjacent windows in SQL: counts and distinct callers, never the callers themselves."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from intel.consensus import Tally
from warehouse.ledger import Usage

END = datetime(2026, 11, 20, 15, 30, tzinfo=UTC)


def _event(n: int, module: str, client: str, at: datetime, fmt: str | None = "full") -> dict:
    return {"request_id": f"r{n}", "module": module, "charged_sats": 0, "free": True, "agent_id": None,
            "client": client, "created_at": at, "format": fmt}


def test_attention_counts_queries_and_distinct_callers_per_window(engine):
    split = END - timedelta(hours=2)
    events = [
        # current window: vix from 3 callers (one twice), curve from 1, an ask (no format) from 2
        _event(1, "vix", "a:1", END - timedelta(minutes=5)),
        _event(2, "vix", "a:1", END - timedelta(minutes=65), "compact"),
        _event(3, "vix", "a:2", END - timedelta(minutes=10)),
        _event(4, "vix", "ip:abc", END - timedelta(minutes=20), "agent"),
        _event(5, "yield_curve", "a:1", END - timedelta(minutes=30)),
        _event(6, "ask:deep", "a:2", END - timedelta(minutes=40), None),
        _event(7, "ask:deep", "a:3", END - timedelta(minutes=41), None),
        _event(8, "vix", "a:9", END),  # the end is in the window
        # previous window: yield_curve from 3 callers
        _event(9, "yield_curve", "a:1", split - timedelta(minutes=1)),
        _event(10, "yield_curve", "a:2", split - timedelta(minutes=50)),
        _event(11, "yield_curve", "a:3", split - timedelta(hours=2)),  # the start is in the previous window
        # outside both: too old, and after the end
        _event(12, "vix", "a:4", split - timedelta(hours=2, seconds=1)),
        _event(13, "vix", "a:5", END + timedelta(seconds=1)),
    ]
    usage = Usage(engine)
    usage.record_many(events)
    seen = usage.attention(split, END, {"vix": "volatility", "yield_curve": "rates_credit"})

    assert (seen.start, seen.split, seen.end) == (split - timedelta(hours=2), split, END)
    assert seen.totals == {"current": Tally(8, 5), "previous": Tally(3, 3)}
    assert seen.topics == {("current", "vix"): Tally(5, 4), ("current", "yield_curve"): Tally(1, 1),
                           ("current", "ask:deep"): Tally(2, 2), ("previous", "yield_curve"): Tally(3, 3)}
    assert seen.categories == {("current", "volatility"): Tally(5, 4), ("current", "rates_credit"): Tally(1, 1),
                               ("current", "other"): Tally(2, 2), ("previous", "rates_credit"): Tally(3, 3)}
    # 14:25, 14:49, 14:50 and 15:00 to 15:30 UTC, whatever the database session's time zone
    assert seen.hours == {14: Tally(3, 3), 15: Tally(5, 4)}
    assert seen.formats == {"full": Tally(4, 3), "compact": Tally(1, 1), "agent": Tally(1, 1), "none": Tally(2, 2)}


def test_attention_of_an_empty_ledger_is_empty(engine):
    seen = Usage(engine).attention(END - timedelta(hours=24), END, {})
    assert (seen.totals, seen.topics, seen.categories, seen.hours, seen.formats) == ({}, {}, {}, {}, {})


def test_a_recorded_query_keeps_its_format(engine):
    usage = Usage(engine)
    usage.record("q1", "vix", 0, True, client="a:1", created_at=END, fmt="prompt")
    assert usage.attention(END - timedelta(hours=1), END, {}).formats == {"prompt": Tally(1, 1)}
