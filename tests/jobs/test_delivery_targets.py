"""Deliveries to targets other than webhook subscriptions, through the same outbox and sender, to real receivers on
loopback: an alert's callback (signed with the alert's secret, its owner's alone), an alert package's webhook
(signed with the package secret) and chat channel (a Slack/Discord body, unsigned), `min_urgency`, cancelled and
ended packages, one URL per agent per event; and a batch job whose one failing row is retried alone."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import orjson
from standardwebhooks import Webhook

from intel.events.packages import PACKAGES
from jobs.webhooks import BACKOFF_FIRST, QUEUE_LEASE, WebhookSender
from tests.jobs.webhook_receiver import Answer, Receiver, sample_event
from warehouse.ledger import Agents
from warehouse.ledger.alert_packages import PackageSubscriptions
from warehouse.ledger.alerts import Alerts

VOLATILITY = PACKAGES["volatility_shock"]  # market.vix_spike among its types





def sender(hooks) -> WebhookSender:
    return WebhookSender(hooks, timeout_s=2.0, allow_private=True)  # jobs run inline: no queue


def deliver_all(hooks, events: list[dict]) -> dict[str, str]:
    return sender(hooks).deliver_batch(hooks.create_deliveries(events, QUEUE_LEASE))


def package(hooks, clock, agent: dict, min_urgency: str = "low", webhook: str | None = None,
            chat: str | None = None) -> dict:
    channels = [name for name, url in (("webhook", webhook), ("chat", chat)) if url]
    return PackageSubscriptions(hooks.engine, now=clock).subscribe(
        agent["id"], VOLATILITY, {"delivery_channels": channels, "callback_url": webhook, "chat_webhook_url": chat,
                                  "min_urgency": min_urgency}, reference="req_test")


def roomy(receiver: Receiver) -> Receiver:
    """http.server listens with a backlog of 5: a batch's concurrent connections would overflow it (resets)."""
    receiver.server.socket.listen(128)
    return receiver


def triggered(seq: int, alert_id: str, owner: str) -> dict:
    return sample_event(seq, "alert.triggered", audience=owner) | {"alert_id": alert_id, "urgency": "medium",
                                                                    "summary": "Simulated: your alert fired."}


def test_an_alert_trigger_reaches_its_callback_signed_with_the_alerts_secret_and_no_one_else(hooks):
    agents = Agents(hooks.engine)
    owner, _ = agents.register("owner")
    other, _ = agents.register("other")
    with Receiver() as receiver:
        alert = Alerts(hooks.engine).create(owner["id"], "free", {
            "name": "vix high", "conditions": [{"field": "vix", "operator": ">", "value": 30}], "logic": "AND",
            "cooldown": 3600, "max_triggers": 3, "expires_in_seconds": 0, "callback_url": receiver.url},
            datetime.now(UTC))
        statuses = deliver_all(hooks, [triggered(1, alert["alert_id"], owner["agent_id"]),
                                       triggered(2, alert["alert_id"], other["agent_id"])])  # not its owner's
        assert list(statuses.values()) == ["delivered"]
        [payload] = receiver.verified(alert["secret"])
    assert payload["type"] == "alert.triggered" and payload["data"]["alert_id"] == alert["alert_id"]
    [row] = hooks.deliveries(owner["id"])
    assert (row["kind"], row["target_id"], row["event_id"], row["status"]) == (
        "alert", alert["alert_id"], "1-0", "delivered")
    assert hooks.deliveries(other["id"]) == []


def test_a_package_event_goes_signed_to_its_webhook_and_as_text_to_its_chat(hooks, clock):
    owner, _ = Agents(hooks.engine).register("subscriber")
    with Receiver() as webhook, Receiver() as chat:
        sub = package(hooks, clock, owner, webhook=webhook.url, chat=chat.url)
        assert set(deliver_all(hooks, [sample_event(1)]).values()) == {"delivered"}
        [payload] = webhook.verified(sub["secret"])
        [message] = chat.received
    assert payload["data"]["id"] == "1-0" and payload["data"]["type"] == "market.vix_spike"
    assert orjson.loads(message.body) == {"text": "high market.vix_spike: Simulated: VIX closed at 31.2.",
                                          "content": "high market.vix_spike: Simulated: VIX closed at 31.2."}
    assert "webhook-signature" not in message.headers  # chat endpoints verify no signature
    assert {(d["kind"], d["status"]) for d in hooks.deliveries(owner["id"])} == {
        ("package_webhook", "delivered"), ("package_chat", "delivered")}


def test_min_urgency_is_honoured_and_ended_or_cancelled_packages_deliver_nothing(hooks, clock):
    agents = Agents(hooks.engine)
    picky, _ = agents.register("picky")
    cancelled, _ = agents.register("cancelled")
    lapsed, _ = agents.register("lapsed")
    with Receiver() as receiver:
        package(hooks, clock, lapsed, webhook=receiver.url + "?lapsed")
        clock.advance(timedelta(days=VOLATILITY.period_days, seconds=1))  # its period is over
        package(hooks, clock, picky, min_urgency="critical", webhook=receiver.url + "?picky")
        package(hooks, clock, cancelled, webhook=receiver.url + "?cancelled")
        assert PackageSubscriptions(hooks.engine, now=clock).unsubscribe(cancelled["id"], VOLATILITY.package_id)
        assert hooks.create_deliveries([sample_event(1)], QUEUE_LEASE) == []  # high < critical; the others over
        assert len(deliver_all(hooks, [sample_event(2) | {"urgency": "critical"}])) == 1
        assert [r.path for r in receiver.received] == ["/hook?picky"]


def test_cancelling_abandons_the_packages_pending_deliveries(hooks, clock):
    owner, _ = Agents(hooks.engine).register("quitter")
    package(hooks, clock, owner, chat="http://127.0.0.1:9/chat")
    [(delivery_id, _)] = hooks.create_deliveries([sample_event(1)], QUEUE_LEASE)
    PackageSubscriptions(hooks.engine, now=clock).unsubscribe(owner["id"], VOLATILITY.package_id)
    assert hooks.delivery(delivery_id)["status"] == "abandoned"
    assert sender(hooks).deliver(delivery_id, 0) == "skipped"


def test_one_event_reaches_one_url_of_an_agent_once(hooks, clock):
    owner, _ = Agents(hooks.engine).register("everywhere")
    with Receiver() as receiver:
        sub = hooks.subscribe(owner["id"], "premium", "market.vix_spike", receiver.url)
        package(hooks, clock, owner, webhook=receiver.url, chat=receiver.url)  # the same URL, twice more
        assert list(deliver_all(hooks, [sample_event(1)]).values()) == ["delivered"]
        assert len(receiver.verified(sub["secret"])) == 1  # the subscription, first in order, took it
        assert hooks.create_deliveries([sample_event(1)], QUEUE_LEASE) == []  # and again: nothing twice
    [row] = hooks.deliveries(owner["id"])
    assert row["kind"] == "subscription"


def test_a_batch_delivers_many_rows_and_its_one_failing_row_is_retried_alone(hooks, clock):
    owner, _ = Agents(hooks.engine).register("many")
    with roomy(Receiver()) as good, Receiver([Answer(503), Answer(200)]) as flaky:
        subs = [hooks.subscribe(owner["id"], "institutional", "market.vix_spike", f"{good.url}?n={n}")
                for n in range(40)]
        broken = hooks.subscribe(owner["id"], "institutional", "market.vix_spike", flaky.url)
        statuses = deliver_all(hooks, [sample_event(1)])
        assert len(statuses) == 41 and sorted(statuses.values()) == ["delivered"] * 40 + ["pending"]
        assert len(good.received) == 40 and len(good.unique_ids()) == 40
        assert hooks.take_due(QUEUE_LEASE) == []  # the failed row waits for its backoff
        clock.advance(BACKOFF_FIRST)
        due = hooks.take_due(QUEUE_LEASE)
        assert len(due) == 1 and hooks.delivery(due[0][0])["subscription_id"] == broken["subscription_id"]
        assert sender(hooks).deliver_batch(due) == {due[0][0]: "delivered"}
        assert len(good.received) == 40 and len(flaky.verified(broken["secret"])) == 2
        for sub, request in zip(subs, sorted(good.received, key=lambda r: int(r.path.split("=")[1]))):
            Webhook(sub["secret"]).verify(request.body, request.headers)  # each signed with its own secret
    assert {d["status"] for d in hooks.deliveries(owner["id"], 100)} == {"delivered"}
