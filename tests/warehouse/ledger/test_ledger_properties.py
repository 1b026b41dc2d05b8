"""A property-based test of the whole money surface: hypothesis drives random sequences of registrations
(some referred), topups, tier upgrades, queries paid from whatever pool the order picks, refunds of failed
requests, commitment and subscription purchases, and time passing (tiers and pools ending). After every
step: every balance and pool equals the sum of its ledger entries (`check_consistency`), nothing is
negative, and a model kept beside the ledger agrees on the sats that came in and on each referrer's reward."""
from __future__ import annotations

import uuid
from datetime import datetime, timedelta

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, consumes, invariant, rule
from sqlalchemy import Engine, func, select

from tests.warehouse.ledger.conftest import COMMITMENTS, SUBSCRIPTIONS, Clock
from warehouse.ledger import (
    Agents,
    Invoices,
    Money,
    PlanRefused,
    Plans,
    Referrals,
    TierPrice,
    check_consistency,
    commitment_plans,
    subscription_plans,
)
from warehouse.ledger.tables import agent_pools, agents, ledger_entries

PRICES = {"premium": TierPrice(300, timedelta(days=30)), "institutional": TierPrice(900, timedelta(days=30))}
QUERY_PRICES = (50, 250, 55)  # 55: a price whose 10% referral reward leaves a fraction to carry


class LedgerRules(RuleBasedStateMachine):
    """The rules and invariants; `ledger_machine` binds them to a database and a clock."""

    engine: Engine
    clock: Clock
    agents_: Agents
    invoices: Invoices
    money: Money
    plans: Plans

    accounts = Bundle("accounts")
    debits = Bundle("debits")

    def __init__(self):
        super().__init__()
        self.topped_up = 0  # sats received for balances
        self.upgrades_paid = 0
        self.referred_spend: dict[int, int] = {}  # referred agent pk -> sats it paid with non-referral pools
        self.referrer_of: dict[int, int] = {}
        self.created: list[int] = []
        self.subscribed: dict[int, tuple[str, datetime]] = {}  # agent pk -> (plan, end) of its latest subscription

    @rule(target=accounts, referred=st.booleans(), data=st.data())
    def register(self, referred, data):
        code = None
        if referred and self.created:
            referrer = data.draw(st.sampled_from(self.created))
            code = self.agents_.get(referrer)["referral_code"]
        agent, _key = self.agents_.register(f"a{len(self.created)}", referral_code=code)
        self.created.append(agent["id"])
        if code:
            self.referrer_of[agent["id"]] = referrer
        return agent["id"]

    @rule(agent=accounts, sats=st.integers(1, 3000))
    def topup(self, agent, sats):
        payment_hash = uuid.uuid4().hex * 2
        self.invoices.record(payment_hash, "lnbcrt-test", sats, "credit", expires_at=4_000_000_000, agent_pk=agent)
        assert self.money.credit_topup(agent, payment_hash) is not None
        assert self.money.credit_topup(agent, payment_hash) is None  # a proof credits once
        self.topped_up += sats

    @rule(agent=accounts, tier=st.sampled_from(sorted(PRICES)))
    def upgrade(self, agent, tier):
        payment_hash = uuid.uuid4().hex * 2
        self.invoices.record(payment_hash, "lnbcrt-test", PRICES[tier].price_sats, "upgrade",
                             expires_at=4_000_000_000, agent_pk=agent, tier=tier)
        result = self.money.claim_upgrade(agent, payment_hash, PRICES)
        assert result is not None and self.money.claim_upgrade(agent, payment_hash, PRICES) is None
        if result["credited_to_balance_sats"]:  # a lower tier than the running one: the sats go to the balance
            self.topped_up += result["credited_to_balance_sats"]
        else:
            self.upgrades_paid += PRICES[tier].price_sats

    @rule(target=debits, agent=accounts, price=st.sampled_from(QUERY_PRICES))
    def query(self, agent, price):
        request_id = uuid.uuid4().hex
        before = self._total(agent)
        debit = self.money.debit_for_query(agent, price, "vix", request_id)
        if debit is None:
            assert self._total(agent) == before  # refused: nothing written
            return (agent, None, None)
        if debit.pool != "referral":
            self.referred_spend[agent] = self.referred_spend.get(agent, 0) + price
        assert self.money.debit_for_query(agent, price, "vix", request_id) is not None  # a repeat charges nothing
        return (agent, request_id, (price, debit.pool))

    @rule(debit=consumes(debits))
    def refund_failed_request(self, debit):
        agent, request_id, paid = debit
        if request_id is None:
            return
        assert self.money.refund(agent, request_id) is True
        assert self.money.refund(agent, request_id) is False  # once
        price, pool = paid
        if pool != "referral":
            self.referred_spend[agent] -= price

    @rule(agent=accounts, plan=st.sampled_from(sorted(COMMITMENTS)))
    def commit(self, agent, plan):
        terms = COMMITMENTS[plan]
        price = terms["credits_sats"] * (100 - terms["discount_percent"]) // 100  # rounded down for the agent
        balance = self.money.balance(agent)
        if balance < price:
            self._refused(lambda: self.plans.activate_commitment(agent, plan, uuid.uuid4().hex), agent,
                          "insufficient_balance", {"price_sats": price, "balance_sats": balance})
            return
        result = self.plans.activate_commitment(agent, plan, uuid.uuid4().hex)
        assert (result["paid_sats"], result["balance_sats"]) == (price, balance - price)

    @rule(agent=accounts, plan=st.sampled_from(sorted(SUBSCRIPTIONS)))
    def subscribe(self, agent, plan):
        price, period = SUBSCRIPTIONS[plan]["price_sats"], timedelta(days=SUBSCRIPTIONS[plan]["period_days"])
        balance, (running, ends) = self.money.balance(agent), self.subscribed.get(agent, (None, None))
        active = running is not None and ends > self.clock()
        if active and running != plan:  # a running plan is renewed, never swapped
            self._refused(lambda: self.plans.subscribe(agent, plan, uuid.uuid4().hex), agent,
                          "plan_change_not_allowed", {"ends_at": ends.isoformat()})
        elif balance < price:
            self._refused(lambda: self.plans.subscribe(agent, plan, uuid.uuid4().hex), agent,
                          "insufficient_balance", {"price_sats": price, "balance_sats": balance})
        else:
            ends = (ends if active else self.clock()) + period
            result = self.plans.subscribe(agent, plan, uuid.uuid4().hex)
            assert (result["renewed"], result["balance_sats"]) == (active, balance - price)
            assert result["ends_at"] == ends
            self.subscribed[agent] = (plan, ends)

    def _refused(self, buy, agent: int, code: str, details: dict) -> None:
        """`buy` raises PlanRefused with this code and details, and writes nothing."""
        before = self._total(agent)
        with pytest.raises(PlanRefused) as refused:
            buy()
        assert (refused.value.code, refused.value.details) == (code, details)
        assert self._total(agent) == before

    @rule(days=st.sampled_from([1, 10, 31, 95, 200]))
    def time_passes(self, days):
        self.clock.advance(days=days)

    @rule(agent=accounts)
    def read_pools(self, agent):
        self.money.pools(agent)  # writes ended pools off: must keep the ledger consistent

    def _total(self, agent: int) -> int:
        with self.engine.connect() as conn:
            return int(conn.scalar(select(func.coalesce(func.sum(ledger_entries.c.amount_sats), 0))
                                   .where(ledger_entries.c.agent_id == agent)))

    @invariant()
    def entries_sum_to_every_balance_and_pool(self):
        assert check_consistency(self.engine) == []
        with self.engine.connect() as conn:
            assert (conn.scalar(select(func.min(agents.c.balance_sats))) or 0) >= 0
            assert (conn.scalar(select(func.min(agent_pools.c.remaining_sats))) or 0) >= 0

    @invariant()
    def sats_in_match_the_model(self):
        e = ledger_entries.c
        mine = e.agent_id.in_(self.created)  # the database outlives one example; the model does not
        with self.engine.connect() as conn:
            topups = conn.scalar(select(func.coalesce(func.sum(e.amount_sats), 0)).where(mine, e.kind == "topup"))
            upgrades = conn.scalar(select(func.coalesce(func.sum(e.amount_sats), 0))
                                   .where(mine, e.kind == "upgrade_payment"))
        assert (int(topups), int(upgrades)) == (self.topped_up, self.upgrades_paid)

    @invariant()
    def referrers_earn_the_floor_of_ten_percent(self):
        """Per link: the referred spend is what the model saw, and the reward at least its floor of 10%
        (more only where a refund's reward had already been spent and could not be taken back)."""
        for referrer in set(self.referrer_of.values()):
            referred = [a for a, r in self.referrer_of.items() if r == referrer]
            stats = Referrals(self.engine).stats(referrer)
            assert stats["referred_spend_sats"] == sum(self.referred_spend.get(a, 0) for a in referred)
            assert stats["sats_earned"] >= sum(self.referred_spend.get(a, 0) * 10 // 100 for a in referred)


def ledger_machine(engine, clock: Clock) -> type[LedgerRules]:
    """LedgerRules bound to this database and clock, in a class of its own: hypothesis builds the machine with
    no arguments and keeps a TestCase (and its settings) per class."""
    plans = Plans(engine, commitment_plans(COMMITMENTS), subscription_plans(SUBSCRIPTIONS), now=clock)
    services = {"engine": engine, "clock": clock, "agents_": Agents(engine), "invoices": Invoices(engine),
                "money": Money(engine, now=clock), "plans": plans}
    return type("Ledger", (LedgerRules,), services)


@pytest.mark.parametrize("ledger_url", ["sqlite", "postgresql"], indirect=True)
def test_random_money_sequences_keep_the_ledger_exact(engine, clock):
    machine = ledger_machine(engine, clock)
    machine.TestCase.settings = settings(max_examples=25, stateful_step_count=30, deadline=None,
                                         suppress_health_check=list(HealthCheck))
    machine.TestCase().runTest()
