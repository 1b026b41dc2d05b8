"""Money under contention: threads on both backends, separate processes on one SQLite file."""
from __future__ import annotations

import multiprocessing
import threading
import uuid
from concurrent.futures import ThreadPoolExecutor

from warehouse.ledger import Agents, Invoices, Money, check_consistency, make_engine, migrate

PRICE = 7


def test_concurrent_debits_never_overspend(engine, agent, fund):
    affordable = 137
    fund(agent["id"], affordable * PRICE)
    money = Money(engine)
    start = threading.Barrier(8)

    def spend(worker: int) -> int:
        start.wait()
        return sum(money.debit_for_query(agent["id"], PRICE, "regime", f"w{worker}-{i}") is not None
                   for i in range(50))

    with ThreadPoolExecutor(8) as pool:
        succeeded = sum(pool.map(spend, range(8)))
    assert succeeded == affordable
    assert money.balance(agent["id"]) == 0
    assert check_consistency(engine) == []


def test_concurrent_duplicate_topups_credit_once(engine, agent):
    invoices, money = Invoices(engine), Money(engine)
    for round_ in range(3):
        payment_hash = uuid.uuid4().hex * 2
        invoices.record(payment_hash, "lnbcrt1", 1000, "credit", expires_at=4_000_000_000, agent_pk=agent["id"])
        start = threading.Barrier(8)

        def credit(_):
            start.wait()
            return money.credit_topup(agent["id"], payment_hash)

        with ThreadPoolExecutor(8) as pool:
            results = list(pool.map(credit, range(8)))
        assert sum(r is not None for r in results) == 1
        assert money.balance(agent["id"]) == 1000 * (round_ + 1)
    assert check_consistency(engine) == []


def test_concurrent_duplicate_debits_charge_once(engine, agent, fund):
    fund(agent["id"], 1000)
    money = Money(engine)
    start = threading.Barrier(8)

    def debit(_):
        start.wait()
        return money.debit_for_query(agent["id"], 50, "regime", "one-request").balance_sats

    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(debit, range(8)))
    assert results == [950] * 8
    assert money.balance(agent["id"]) == 950 and check_consistency(engine) == []


def _debit_in_another_process(url: str, agent_pk: int, tag: str, attempts: int, start, out) -> None:
    engine = make_engine(url)
    money = Money(engine)
    start.wait()
    out.put(sum(money.debit_for_query(agent_pk, PRICE, "regime", f"{tag}-{i}") is not None
                for i in range(attempts)))
    engine.dispose()


def _topup_in_another_process(url: str, agent_pk: int, payment_hash: str, start, out) -> None:
    engine = make_engine(url)
    start.wait()
    out.put(Money(engine).credit_topup(agent_pk, payment_hash))
    engine.dispose()


def _run_processes(target, args_list) -> list:
    context = multiprocessing.get_context("spawn")  # no forked copies of open connections
    start, out = context.Barrier(len(args_list)), context.Queue()
    processes = [context.Process(target=target, args=(*args, start, out)) for args in args_list]
    for process in processes:
        process.start()
    results = [out.get(timeout=60) for _ in processes]
    for process in processes:
        process.join(timeout=30)
        assert process.exitcode == 0
    return results


def test_two_processes_on_one_sqlite_file_never_overspend(tmp_path):
    url = f"sqlite:///{tmp_path / 'shared.sqlite'}"
    migrate(url)
    engine = make_engine(url)
    agent, _ = Agents(engine).register("contended")
    affordable = 90
    Invoices(engine).record("ab" * 32, "lnbcrt1", affordable * PRICE, "credit", expires_at=4_000_000_000)
    Money(engine).credit_topup(agent["id"], "ab" * 32)

    succeeded = _run_processes(_debit_in_another_process,
                               [(url, agent["id"], "p1", 80), (url, agent["id"], "p2", 80)])
    assert sum(succeeded) == affordable and all(count > 0 for count in succeeded)
    assert Money(engine).balance(agent["id"]) == 0
    assert check_consistency(engine) == []

    Invoices(engine).record("cd" * 32, "lnbcrt1", 500, "credit", expires_at=4_000_000_000)
    credited = _run_processes(_topup_in_another_process, [(url, agent["id"], "cd" * 32)] * 3)
    assert sorted(credited, key=lambda r: r is None) == [500, None, None]
    assert Money(engine).balance(agent["id"]) == 500 and check_consistency(engine) == []
    engine.dispose()
