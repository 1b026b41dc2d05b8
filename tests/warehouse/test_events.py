"""The event log on a real migrated ledger (SQLite and PostgreSQL) and the embedded Redis: ids follow the SQL
order, a reader resumes exactly after any id, from the stream or, where the stream no longer reaches (trimmed,
or lost with a Redis restart), from SQL; a lost stream is refilled before the next append."""
from __future__ import annotations

import pytest
import redis

from warehouse import keys
from warehouse.events import EventLog, seq_of
from warehouse.ledger import make_engine


def event(n: int, type_: str = "market.vix_spike") -> dict:
    return {"type": type_, "urgency": "high", "occurred_at": f"2020-03-{n % 28 + 1:02d}T21:00:00+00:00",
            "data_as_of": "2020-03-16", "summary": f"event {n}", "figures": [{"module": "vix", "field": "level",
                                                                               "value": 30.0 + n}],
            "simulated": False, "data_source": "replay", "audience": None}


@pytest.fixture
def log(settings):
    return EventLog(make_engine(settings.sqlalchemy_url), redis.Redis.from_url(settings.effective_redis_url))


@pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True)
def test_ids_follow_the_sql_order_and_readers_resume_exactly(log):
    first = log.append([event(1), event(2)])
    second = log.append([event(3)])
    assert [e["id"] for e in first + second] == ["1-0", "2-0", "3-0"]
    assert [e["summary"] for e in log.since(None)] == ["event 1", "event 2", "event 3"]
    assert [e["id"] for e in log.since("1-0")] == ["2-0", "3-0"]
    assert log.since("3-0") == [] and log.since("2-0")[0] == second[0]


def test_a_lost_stream_is_read_from_sql_and_refilled(log):
    log.append([event(n) for n in range(1, 6)])
    log.r.delete(keys.EVENTS_STREAM)  # what a Redis restart without persistence leaves
    assert [e["id"] for e in log.since("2-0")] == ["3-0", "4-0", "5-0"]  # from SQL
    appended = log.append([event(6)])
    assert appended[0]["id"] == "6-0"
    assert [seq_of(i.decode()) for i, _ in log.r.xrange(keys.EVENTS_STREAM)] == [1, 2, 3, 4, 5, 6]


def test_a_trimmed_stream_sends_older_readers_to_sql(log):
    log.append([event(n) for n in range(1, 9)])
    log.r.xtrim(keys.EVENTS_STREAM, minid="6-0")
    assert [e["id"] for e in log.since("2-0")] == ["3-0", "4-0", "5-0", "6-0", "7-0", "8-0"]
    assert [e["id"] for e in log.since("6-0")] == ["7-0", "8-0"]  # still in the stream


def test_event_ids_are_checked():
    with pytest.raises(ValueError):
        seq_of("abc")
    with pytest.raises(ValueError):
        seq_of("5-1")
    assert seq_of("12-0") == 12 and seq_of("12") == 12
