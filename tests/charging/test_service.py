"""The charging service outside HTTP: charged from a real RQ worker, undone from an attempt's record, raced,
and refusing with a top-up invoice and an L402 challenge. The API's own money tests (tests/api, tests/e2e)
exercise the same service through the routes."""
from __future__ import annotations

import asyncio
import uuid

import pytest
import redis
from rq import Queue, SimpleWorker
from sqlalchemy import select

from charging.attempt import Attempt, Payer
from charging.errors import PaymentRequired
from charging.service import Charging
from tests.charging import charge_jobs
from warehouse.ledger import Agents, Invoices, Money, check_consistency, make_engine
from warehouse.ledger.tables import ledger_entries

pytestmark = pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True)


@pytest.fixture
def engine(settings):
    engine = make_engine(settings.sqlalchemy_url)
    yield engine
    engine.dispose()


def funded_agent(engine, sats: int) -> dict:
    agent, _key = Agents(engine).register("job-agent")
    payment_hash = uuid.uuid4().hex * 2
    Invoices(engine).record(payment_hash, "lnbcrt-test", sats, "credit", expires_at=4_000_000_000,
                            agent_pk=agent["id"])
    Money(engine).credit_topup(agent["id"], payment_hash)
    return agent


def run_jobs(settings, *jobs: tuple) -> list:
    connection = redis.Redis.from_url(settings.effective_redis_url)
    queue = Queue("charging-tests", connection=connection)
    enqueued = [queue.enqueue(func, *args) for func, *args in jobs]
    SimpleWorker([queue], connection=connection).work(burst=True)
    return enqueued


def query_entries(engine, reference: str) -> list:
    with engine.connect() as conn:
        return list(conn.execute(select(ledger_entries.c.kind, ledger_entries.c.amount_sats)
                                 .where(ledger_entries.c.reference == reference)))


def test_a_job_charges_once_per_request_id_whatever_the_retries(settings, engine):
    agent = funded_agent(engine, 1000)
    first, retry = run_jobs(settings, (charge_jobs.charge, agent["id"], "ask:standard", "job-1"),
                            (charge_jobs.charge, agent["id"], "ask:standard", "job-1"))
    assert first.return_value() == {"charged_sats": 500, "paid_with": "balance", "balance_sats": 500}
    assert retry.return_value()["balance_sats"] == 500  # the repeat reports the first charge, takes nothing
    assert query_entries(engine, "job-1") == [("query", -500)]
    assert Money(engine).balance(agent["id"]) == 500 and check_consistency(engine) == []


def test_undo_from_the_record_after_a_crash_leaves_the_balance_whole(settings, engine):
    agent = funded_agent(engine, 1000)
    (job,) = run_jobs(settings, (charge_jobs.charge_then_crash, agent["id"], "ask:deep", "job-2"))
    assert job.get_status() == "failed" and Money(engine).balance(agent["id"]) == 0
    job.refresh()

    async def undo_twice() -> None:  # whoever notices the failure undoes it; a second undo changes nothing
        charging = Charging.from_settings(settings)
        for _ in range(2):
            await charging.undo(Attempt.from_record(job.meta["charge"], charging.prices))

    asyncio.run(undo_twice())
    assert Money(engine).balance(agent["id"]) == 1000
    assert sorted(query_entries(engine, "job-2")) == [("query", -1000), ("refund", 1000)]
    assert check_consistency(engine) == []


def test_concurrent_attempts_never_overspend(settings, engine):
    agent = funded_agent(engine, 2000)  # four standard asks

    async def burst() -> list:
        charging = Charging.from_settings(settings)
        payer = Payer.of(Agents(engine).get(agent["id"]), "unused")
        attempts = [Attempt(payer, charging.prices.ask("standard"), f"burst-{i}") for i in range(10)]
        return await asyncio.gather(*(charging.charge(a) for a in attempts), return_exceptions=True)

    outcomes = asyncio.run(burst())
    assert sum(not isinstance(o, Exception) for o in outcomes) == 4
    assert all(isinstance(o, PaymentRequired) for o in outcomes if isinstance(o, Exception))
    assert Money(engine).balance(agent["id"]) == 0 and check_consistency(engine) == []


def test_nothing_to_pay_with_raises_payment_required_with_both_ways_to_pay(settings, engine):
    async def refused() -> PaymentRequired:
        charging = Charging.from_settings(settings)
        attempt = Attempt(Payer.of(None, "10.1.1.1"), charging.prices.ask("quick"), "anon-1")
        with pytest.raises(PaymentRequired) as caught:
            await charging.charge(attempt)
        again = await charging.payment_required(attempt)
        assert again.invoice == caught.value.invoice and again.l402 == caught.value.l402  # reused, not reissued
        return caught.value

    exc = asyncio.run(refused())
    assert exc.invoice["amount_sats"] == 200 and exc.invoice["purpose"] == "credit"
    assert exc.l402["amount_sats"] == 200 and exc.l402["capability"] == "ask:quick"
    assert check_consistency(engine) == []


def test_an_attempt_cancelled_while_its_debit_waits_for_the_ledger_is_refunded_after_the_commit(settings, engine):
    """No thread: the debit is a task on the caller's loop. Cancelled while another writer holds the agent's
    row (PostgreSQL) or the write lock (SQLite), the attempt's undo waits for the debit, then refunds it."""
    from warehouse.ledger.tables import agents

    agent = funded_agent(engine, 1000)

    async def scenario() -> None:
        charging = Charging.from_settings(settings)
        attempt = Attempt(Payer.of(Agents(engine).get(agent["id"]), "unused"), charging.prices.ask("standard"),
                          "held-1")
        with engine.begin() as holder:
            holder.execute(agents.update().where(agents.c.id == agent["id"]).values(name=agents.c.name))
            charged = asyncio.ensure_future(charging.charge(attempt))
            await asyncio.sleep(0.2)
            assert not charged.done()
            charged.cancel()
            undo = asyncio.ensure_future(charging.undo(attempt))  # what a cancelled route does
            await asyncio.sleep(0.2)
            assert not undo.done()  # it waits for the debit, which waits for the lock
        await asyncio.wait_for(undo, 10)
        assert charged.cancelled()
        await charging.money.aclose()

    asyncio.run(scenario())
    assert sorted(query_entries(engine, "held-1")) == [("query", -500), ("refund", 500)]
    assert Money(engine).balance(agent["id"]) == 1000 and check_consistency(engine) == []


class LostAfterCommit:
    """The ledger's money as a lost connection leaves it: the debit commits, then the caller gets an error (what a
    PostgreSQL fast restart does to a statement in flight), the first `away` refunds failing as the server is."""

    def __init__(self, money: Money, away: int):
        self.money, self.away = money, away

    async def debit_for_query_async(self, *args, **kwargs):
        await self.money.debit_for_query_async(*args, **kwargs)
        raise ConnectionResetError("terminating connection due to administrator command")

    async def refund_async(self, agent_pk: int, request_id: str) -> bool:
        if self.away:
            self.away -= 1
            raise ConnectionRefusedError("the database system is starting up")
        return await self.money.refund_async(agent_pk, request_id)


def charge_then_undo(settings, agent: dict, money, request_id: str, raised: type[Exception]) -> None:
    """A standard ask charged through `money` (raising `raised`) and undone, then the in-doubt refunds finished."""
    async def run() -> None:
        charging = Charging.from_settings(settings)
        charging.money = money(charging.money)
        attempt = Attempt(Payer.of(agent, "127.0.0.1"), charging.prices.ask("standard"), request_id)
        with pytest.raises(raised):
            await charging.charge(attempt)
        await charging.undo(attempt)  # answers at once; a refund in doubt follows when the ledger is back
        await asyncio.gather(*charging._in_doubt)

    asyncio.run(run())


def test_a_debit_whose_commit_is_in_doubt_is_refunded_once_the_ledger_answers(settings, engine, monkeypatch):
    monkeypatch.setattr("charging.service.IN_DOUBT_FIRST_WAIT_S", 0.01)
    agent = funded_agent(engine, 1000)
    charge_then_undo(settings, agent, lambda money: LostAfterCommit(money, away=2), "in-doubt-1", ConnectionResetError)
    assert sorted(query_entries(engine, "in-doubt-1")) == [("query", -500), ("refund", 500)]
    assert Money(engine).balance(agent["id"]) == 1000 and check_consistency(engine) == []


def test_a_debit_that_never_committed_is_not_refunded(settings, engine):
    agent = funded_agent(engine, 1000)

    class Refused(LostAfterCommit):
        async def debit_for_query_async(self, *args, **kwargs):
            raise ConnectionRefusedError("the database system is shutting down")

    charge_then_undo(settings, agent, lambda money: Refused(money, away=0), "in-doubt-2", ConnectionRefusedError)
    assert query_entries(engine, "in-doubt-2") == [] and Money(engine).balance(agent["id"]) == 1000
