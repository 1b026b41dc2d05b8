"""The referrer earns 10% of the referred agent's per-request sats, in whole sats, with nothing lost or made
up by rounding, in the same transaction as the debit; refunds take the reward back."""
from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import select

from warehouse.ledger import Agents, Referrals, check_consistency
from warehouse.ledger.tables import ledger_entries, referrals


def referral_credits(money, agent_pk: int) -> int:
    return next(p["remaining_sats"] for p in money.pools(agent_pk) if p["pool"] == "referral")


def referred_by(engine, referrer: dict, name: str = "newcomer") -> dict:
    return Agents(engine).register(name, referral_code=referrer["referral_code"])[0]


def test_rounding_carries_the_fraction_so_the_total_is_exactly_the_floor(engine, agent, fund, money):
    newcomer = referred_by(engine, agent)
    fund(newcomer["id"], 1000)
    earned = []
    for i in range(5):
        money.debit_for_query(newcomer["id"], 55, "vix", f"q{i}")
        earned.append(referral_credits(money, agent["id"]))
    # 5.5 per request: 5, then 11 (not 10), 16, 22, 27; always floor(10% of the total spent)
    assert earned == [5, 11, 16, 22, 27] == [55 * (i + 1) // 10 for i in range(5)]
    with engine.connect() as conn:
        rewards = conn.execute(select(ledger_entries.c.amount_sats, ledger_entries.c.reference)
                               .where(ledger_entries.c.kind == "referral")).all()
    assert rewards == [(5, "q0"), (6, "q1"), (5, "q2"), (6, "q3"), (5, "q4")]  # keyed by the paying request
    assert Referrals(engine).stats(agent["id"]) == {
        "agents_referred": 1, "sats_earned": 27, "credits_available_sats": 27, "referred_spend_sats": 275,
        "reward_percent": 10}
    assert check_consistency(engine) == []


def test_an_agent_without_a_referrer_rewards_nobody(engine, agent, fund, money):
    fund(agent["id"], 100)
    money.debit_for_query(agent["id"], 50, "vix", "q")
    with engine.connect() as conn:
        assert conn.execute(select(ledger_entries).where(ledger_entries.c.kind == "referral")).first() is None


def test_spending_referral_credits_earns_the_referrer_nothing(engine, agent, fund, money):
    middle = referred_by(engine, agent, "middle")
    leaf = referred_by(engine, middle, "leaf")
    fund(leaf["id"], 500)
    money.debit_for_query(leaf["id"], 500, "regime", "leaf-spend")  # middle earns 50
    assert referral_credits(money, middle["id"]) == 50
    debit = money.debit_for_query(middle["id"], 50, "vix", "middle-spend")
    assert debit.pool == "referral"
    assert referral_credits(money, agent["id"]) == 0  # rewards are not spend
    assert check_consistency(engine) == []


def test_a_refund_reverses_the_reward_it_caused(engine, agent, fund, money):
    newcomer = referred_by(engine, agent)
    fund(newcomer["id"], 200)
    money.debit_for_query(newcomer["id"], 50, "vix", "kept")
    money.debit_for_query(newcomer["id"], 55, "vix", "failed")
    assert referral_credits(money, agent["id"]) == 10  # floor(10.5)
    assert money.refund(newcomer["id"], "failed") is True
    assert referral_credits(money, agent["id"]) == 5  # floor(10% of 50)
    with engine.connect() as conn:
        link = conn.execute(select(referrals)).mappings().one()
    assert (link["basis_sats"], link["rewarded_sats"]) == (50, 5)
    assert check_consistency(engine) == []


def test_a_reward_spent_before_the_refund_is_made_up_from_later_rewards(engine, agent, fund, money):
    newcomer = referred_by(engine, agent)
    fund(newcomer["id"], 500)
    money.debit_for_query(newcomer["id"], 50, "vix", "failed")
    assert money.debit_for_query(agent["id"], 5, "vix", "referrer-spends").pool == "referral"
    assert money.refund(newcomer["id"], "failed") is True  # nothing left to take back now
    money.debit_for_query(newcomer["id"], 50, "vix", "n1")  # would earn 5: makes up the 5 already spent
    assert referral_credits(money, agent["id"]) == 0
    money.debit_for_query(newcomer["id"], 50, "vix", "n2")
    assert referral_credits(money, agent["id"]) == 5
    # in all: the referrer got 10 sats for 100 sats kept by the service, exactly 10%
    with engine.connect() as conn:
        net = sum(conn.execute(select(ledger_entries.c.amount_sats).where(
            ledger_entries.c.kind.in_(("referral", "referral_reversal")))).scalars())
    assert net == 10
    assert check_consistency(engine) == []


def test_concurrent_debits_of_many_referred_agents_reward_exactly(engine, agent, fund, money):
    newcomers = [referred_by(engine, agent, f"n{i}") for i in range(4)]
    for newcomer in newcomers:
        fund(newcomer["id"], 33 * 40)
    start = threading.Barrier(8)

    def spend(worker: int) -> int:
        newcomer = newcomers[worker % 4]
        start.wait()
        return sum(money.debit_for_query(newcomer["id"], 33, "vix", f"w{worker}-{i}") is not None
                   for i in range(20))

    with ThreadPoolExecutor(8) as pool:
        assert sum(pool.map(spend, range(8))) == 160
    # each newcomer spent 33 * 40 = 1320: floor(132.0) each
    assert referral_credits(money, agent["id"]) == 4 * 132
    assert check_consistency(engine) == []
