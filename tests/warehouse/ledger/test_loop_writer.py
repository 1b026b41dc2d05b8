"""Debits and refunds run by a coroutine without a thread (warehouse/ledger/loop_writer.py): the same money
rules as the synchronous calls, under contention from other processes and other writers, on both backends."""
from __future__ import annotations

import asyncio
import multiprocessing
import threading
import time
from contextlib import contextmanager

from sqlalchemy import func, select, text

from warehouse.ledger import Money, check_consistency, make_engine
from warehouse.ledger import loop_writer as ledger_db
from warehouse.ledger.tables import agents, ledger_entries

PRICE = 7


def _debits_in_a_process(url: str, agent_pk: int, request_ids: list[str], tasks: int, start, out) -> None:
    """One worker process: `tasks` coroutines on one event loop debit the given request ids between them."""
    engine = make_engine(url)
    money = Money(engine)

    async def run() -> list[str]:
        queue = list(request_ids)
        paid: list[str] = []

        async def worker() -> None:
            while queue:
                request_id = queue.pop()
                if await money.debit_for_query_async(agent_pk, PRICE, "regime", request_id) is not None:
                    paid.append(request_id)

        await asyncio.gather(*(worker() for _ in range(tasks)))
        await money.aclose()
        return paid

    start.wait()
    out.put(asyncio.run(run()))
    engine.dispose()


def _sync_debits_in_a_process(url: str, agent_pk: int, request_ids: list[str], start, out) -> None:
    """Another writer, the way an RQ job or a thread writes: synchronous calls with the busy timeout."""
    engine = make_engine(url)
    money = Money(engine)
    start.wait()
    out.put([r for r in request_ids if money.debit_for_query(agent_pk, PRICE, "regime", r) is not None])
    engine.dispose()


def test_coroutine_debits_from_several_processes_never_overspend_and_charge_each_request_once(
        ledger_url, engine, agent, fund):
    affordable = 150
    fund(agent["id"], affordable * PRICE)
    request_ids = [f"req-{i}" for i in range(240)]  # more than the balance pays for
    context = multiprocessing.get_context("spawn")
    start, out = context.Barrier(3), context.Queue()
    processes = [  # the two loops try every request id (each is a duplicate of the other's), the third half
        context.Process(target=_debits_in_a_process, args=(ledger_url, agent["id"], request_ids, 8, start, out)),
        context.Process(target=_debits_in_a_process,
                        args=(ledger_url, agent["id"], request_ids[::-1], 8, start, out)),
        context.Process(target=_sync_debits_in_a_process,
                        args=(ledger_url, agent["id"], request_ids[::2], start, out)),
    ]
    for process in processes:
        process.start()
    reported = [out.get(timeout=120) for _ in processes]
    for process in processes:
        process.join(timeout=30)
        assert process.exitcode == 0

    with engine.connect() as conn:
        charged = conn.execute(select(ledger_entries.c.reference, func.count()).where(ledger_entries.c.kind == "query")
                               .group_by(ledger_entries.c.reference)).all()
    assert len(charged) == affordable and {count for _, count in charged} == {1}
    # every request id reported paid was charged (a repeat reports the first charge), and nothing else was
    assert set().union(*map(set, reported)) == {reference for reference, _ in charged}
    assert Money(engine).balance(agent["id"]) == 0
    assert check_consistency(engine) == []


@contextmanager
def another_writer_holding(engine, agent_pk: int):
    """A transaction of another connection that has the agent's row (PostgreSQL) or the database's write lock
    (SQLite), held until the block ends. Taking it does not block: the caller's event loop keeps running."""
    with engine.begin() as conn:
        conn.execute(agents.update().where(agents.c.id == agent_pk).values(name=agents.c.name))
        yield


def test_a_coroutine_debit_waits_for_another_writer_without_blocking_its_loop(engine, agent, fund):
    fund(agent["id"], 100)
    money = Money(engine)

    async def scenario() -> tuple[int, object]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.005)

        ticking = asyncio.ensure_future(ticker())
        with another_writer_holding(engine, agent["id"]):
            debit = asyncio.ensure_future(money.debit_for_query_async(agent["id"], 30, "regime", "waits"))
            # 20 ticks of the loop while the debit waits on the lock (a blocked loop makes none); counted, not timed:
            # on a busy machine (parallel workers) 0.3 s once held 5 ticks
            started, deadline = ticks, time.monotonic() + 10
            while ticks < started + 20 and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            assert not debit.done()
            ticks_while_held = ticks - started
        paid = await asyncio.wait_for(debit, 5)
        ticking.cancel()
        await money.aclose()
        return ticks_while_held, paid

    ticks_while_held, paid = asyncio.run(scenario())
    assert ticks_while_held >= 20  # the loop was not blocked while the debit waited
    assert paid.balance_sats == 70 and money.balance(agent["id"]) == 70
    assert check_consistency(engine) == []


def test_coroutine_refunds_give_back_once(engine, agent, fund):
    fund(agent["id"], 100)
    money = Money(engine)

    async def scenario() -> list[bool]:
        assert (await money.debit_for_query_async(agent["id"], 40, "regime", "back")).balance_sats == 60
        refunds = await asyncio.gather(*(money.refund_async(agent["id"], "back") for _ in range(5)))
        await money.aclose()
        return refunds

    assert sorted(asyncio.run(scenario())) == [False] * 4 + [True]
    assert money.balance(agent["id"]) == 100 and check_consistency(engine) == []


def test_a_coroutine_on_another_event_loop_gets_connections_of_its_own(engine, agent, fund):
    """The API's loop, a test's `asyncio.run`, an RQ job's: each loop debits on connections it opened."""
    fund(agent["id"], 100)
    money = Money(engine)
    for i in range(3):
        assert asyncio.run(money.debit_for_query_async(agent["id"], 10, "regime", f"loop-{i}")) is not None
    other = threading.Thread(target=lambda: asyncio.run(money.debit_for_query_async(agent["id"], 10, "regime", "t")))
    other.start()
    other.join(10)
    assert money.balance(agent["id"]) == 60 and check_consistency(engine) == []


def test_a_dead_idle_connection_is_replaced_before_a_debit_uses_it(engine, agent, fund, monkeypatch):
    if engine.dialect.name != "postgresql":
        return  # SQLite has no server to lose
    fund(agent["id"], 100)
    money = Money(engine)
    monkeypatch.setattr(ledger_db, "PING_AFTER_IDLE_S", 0.0)

    async def scenario() -> object:
        await money.debit_for_query_async(agent["id"], 10, "regime", "before")
        with engine.connect() as conn:  # the server drops every other connection to this database
            conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                              "WHERE datname = current_database() AND pid <> pg_backend_pid()"))
        await asyncio.sleep(0.1)
        paid = await money.debit_for_query_async(agent["id"], 10, "regime", "after")
        await money.aclose()
        return paid

    assert asyncio.run(scenario()).balance_sats == 80
    assert check_consistency(engine) == []
