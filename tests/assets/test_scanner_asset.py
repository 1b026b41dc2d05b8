"""The `scanner` asset in a real refresh (pipelines.materialize.materialize_all) replaying March 2020 from the real
history: a first refresh with the clock at 2020-03-09 and a second at 2020-03-16 in the same home emit a VIX spike
(a level, so already at the first scan) and a regime change (risk_off to crisis, a change, so only at the second),
stored in SQL and in the Redis stream, with the status published for the route and the state surviving in SQL."""
from __future__ import annotations

from datetime import UTC, date, datetime

import orjson
import redis

from assets.scanner import load_state
from pipelines.materialize import materialize_all
from tests.replays import replay_settings
from warehouse import keys
from warehouse.events import EventLog
from warehouse.ledger import Agents, make_engine
from warehouse.ledger.alerts import Alerts
from warehouse.ledger.webhooks import Webhooks

FIRST, SECOND = date(2020, 3, 9), date(2020, 3, 16)


def refresh(clock: date, redis_url: str, monkeypatch):
    settings = replay_settings(clock, redis_url, monkeypatch)
    out = materialize_all(settings)
    assert out["success"] and out["failed_steps"] == [], out
    assert "scanner" not in out["module_errors"], out  # its checks passed
    return settings


def test_a_replay_of_march_2020_emits_a_vix_spike_and_a_regime_change(mi_home, redis_url, monkeypatch):
    monkeypatch.setenv("MI_WEBHOOK_ALLOW_PRIVATE", "true")  # the callback below is on loopback
    settings = refresh(FIRST, redis_url, monkeypatch)
    engine = make_engine(settings.sqlalchemy_url)
    owner, _ = Agents(engine).register("watcher")  # an alert on VIX and a webhook for its triggers
    Alerts(engine).create(owner["id"], "free", {"name": "vix above 50", "logic": "AND", "cooldown": 3600,
                                                "max_triggers": 5, "expires_in_seconds": 0, "callback_url": None,
                                                "conditions": [{"field": "vix", "operator": ">", "value": 50}]},
                          datetime(2020, 3, 9, tzinfo=UTC))
    hook = Webhooks(engine).subscribe(owner["id"], "free", "alert.triggered", "http://127.0.0.1:9/hook")
    refresh(SECOND, redis_url, monkeypatch)
    client = redis.Redis.from_url(redis_url)
    log = EventLog(engine, client)
    stored = log.since(None)  # from the stream, which holds them all
    assert stored == [{"id": i.decode(), **orjson.loads(f[b"e"])} for i, f in client.xrange(keys.EVENTS_STREAM)]
    first = [e for e in stored if e["occurred_at"].startswith(FIRST.isoformat())]
    second = [e for e in stored if e["occurred_at"].startswith(SECOND.isoformat())]
    assert len(first) + len(second) == len(stored)

    # 2020-03-09 (closes of March 6): VIX 41.94, a level, fires at the first scan; no change can be judged yet
    vix = [e for e in first if e["type"] == "market.vix_spike"]
    assert len(vix) == 1 and vix[0]["urgency"] == "critical" and vix[0]["data_as_of"] == "2020-03-06"
    assert {"module": "vix", "field": "level", "value": 41.94} in vix[0]["figures"]
    assert not {e["type"] for e in first} & {"market.regime_change", "market.tail_risk_rise",
                                              "market.composite_shift", "economic.release"}
    # 2020-03-16 (closes of March 13): risk_off -> crisis, and VIX still above 40 a week later
    regime = [e for e in second if e["type"] == "market.regime_change"]
    assert len(regime) == 1 and regime[0]["urgency"] == "critical"
    assert "from risk_off to crisis" in regime[0]["summary"]
    assert any(e["type"] == "market.vix_spike" and e["data_as_of"] == "2020-03-13" for e in second)
    # the alert (VIX 57.83 on the March 13 close > 50) fired at the second scan, for its owner alone, and its
    # delivery to the owner's alert.triggered webhook is in the outbox
    [fired] = [e for e in stored if e["type"] == "alert.triggered"]
    assert fired["audience"] == owner["agent_id"] and fired["occurred_at"].startswith(SECOND.isoformat())
    assert {"module": "vix", "field": "level", "value": 57.83} in fired["figures"]
    [delivery] = Webhooks(engine).deliveries(owner["id"], 10)
    assert delivery["event_id"] == fired["id"] and delivery["subscription_id"] == hook["subscription_id"]
    for event in stored:
        assert event["simulated"] is False and event["data_source"] == "replay"
        assert event["audience"] is None or event["type"] == "alert.triggered"
        assert event["data_as_of"] <= event["occurred_at"][:10]

    # SQL holds them too: a reader beyond the stream's reach resumes from there exactly
    client.delete(keys.EVENTS_STREAM)
    assert [e["id"] for e in log.since(stored[0]["id"])] == [e["id"] for e in stored[1:]]

    state = load_state(engine)
    status = orjson.loads(client.get(keys.SCANNER_STATUS))
    assert state["scans"] == status["scans"] == 2 and status["last_scan_at"].startswith(SECOND.isoformat())
    assert sum(status["events_emitted"].values()) == len(stored) - 1  # all but the alert trigger
    assert status["detected"]["regime"]["state"] == "crisis" and status["detected"]["vix"]["level"] >= 40
    print(f"events: {[(e['occurred_at'][:10], e['type'], e['urgency']) for e in stored]}; "
          f"second scan {status['last_scan_seconds']} s")
    engine.dispose()
