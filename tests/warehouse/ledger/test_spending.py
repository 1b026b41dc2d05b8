"""What an agent spent, as the console's usage page reads it from the ledger: net of refunds, by UTC day whatever
the database session's time zone, by item, and the latest charges with their request ids."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import create_engine, update

from warehouse.ledger import Money
from warehouse.ledger.spending import Spending
from warehouse.ledger.tables import ledger_entries


def at(engine, request_id: str, moment: datetime) -> None:
    """Move a request's entries (its debit and any refund) to `moment`."""
    with engine.begin() as conn:
        conn.execute(update(ledger_entries).where(ledger_entries.c.reference == request_id).values(created_at=moment))


def test_spend_is_net_of_refunds_by_utc_day_and_item(engine, ledger_url, agent, fund):
    fund(agent["id"], 1000)
    money, pk = Money(engine), agent["id"]
    for request_id, price, item in (("r1", 10, "vix"), ("r2", 10, "vix"), ("r3", 25, "ask:quick"), ("r4", 5, "vix")):
        assert money.debit_for_query(pk, price, item, request_id) is not None
    assert money.refund(pk, "r2")
    today = datetime.now(UTC).replace(hour=12, minute=0, second=0, microsecond=0)
    yesterday_late = today.replace(hour=23, minute=30) - timedelta(days=1)  # 23:30 UTC: still yesterday in UTC
    for request_id in ("r1", "r2", "r3"):
        at(engine, request_id, today)
    at(engine, "r4", yesterday_late)
    # a session in a time zone far from UTC must not move a day's spend into another day
    elsewhere = create_engine(ledger_url, connect_args={"options": "-c timezone=Pacific/Auckland"}
                              if ledger_url.startswith("postgresql") else {})
    try:
        spending = Spending(elsewhere)
        since = today - timedelta(days=30)
        assert spending.by_day(pk, since) == {today.date(): 35, yesterday_late.date(): 5}
        assert spending.by_item(pk, since) == {"vix": 15, "ask:quick": 25}
        latest = spending.latest(pk, 3)
        assert [(c["request_id"], c["kind"], c["sats"]) for c in latest] == [
            ("r2", "refund", 10), ("r4", "query", -5), ("r3", "query", -25)]
        assert spending.by_day(pk, today) == {today.date(): 35}  # `since` bounds it
    finally:
        elsewhere.dispose()
