"""What the agent spent and what it has left: 30 days of spend by day and by item as charts, today's free queries,
the latest 100 charges with their request ids, its plans, credits and referrals. Every sat figure is the ledger's."""
from __future__ import annotations

import asyncio
from datetime import timedelta

from api.console.charts import bar_chart
from api.console.pages import Page
from charging.attempt import Payer
from intel.registry import modules
from warehouse.ledger import Plans, Referrals
from warehouse.ledger.spending import Spending, day_start
from warehouse.ledger.tables import utcnow

DAYS = 30
TOP_ITEMS = 12  # the items the chart shows; the table below it lists them all


class UsagePage(Page):
    def __init__(self, services, sessions, plans: Plans):
        super().__init__(services, sessions)
        self.spending, self.referrals, self.plans = Spending(services.engine), Referrals(services.engine), plans

    async def on_get(self, req, resp):
        visitor = await self.signed_in(req, resp)
        if visitor is None:
            return
        agent_pk, today = visitor.agent["id"], utcnow().date()
        first = today - timedelta(days=DAYS - 1)
        since = day_start(first)
        by_day = await asyncio.to_thread(self.spending.by_day, agent_pk, since)
        by_item = await asyncio.to_thread(self.spending.by_item, agent_pk, since)
        latest = await asyncio.to_thread(self.spending.latest, agent_pk, 100)
        pools = await asyncio.to_thread(self.services.money.pools, agent_pk)
        referrals = await asyncio.to_thread(self.referrals.stats, agent_pk)
        subscription = await asyncio.to_thread(self.plans.subscription_status, agent_pk)
        commitment = await asyncio.to_thread(self.plans.commitment_status, agent_pk)
        days = [first + timedelta(days=i) for i in range(DAYS)]
        items = sorted(by_item.items(), key=lambda kv: (-kv[1], kv[0]))
        self.render(resp, "usage.html", 200, visitor, days=[(d, by_day.get(d, 0)) for d in days], items=items,
                    day_chart=bar_chart("Sats spent per day, last 30 days (UTC)",
                                        [(d.strftime("%b %d"), by_day.get(d, 0)) for d in days]),
                    item_chart=bar_chart(f"Sats spent per item, top {TOP_ITEMS}", items[:TOP_ITEMS]),
                    total_sats=sum(by_day.values()), free=await self.free_today(visitor), latest=latest,
                    pools=pools, referrals=referrals, subscription=subscription, commitment=commitment)

    async def free_today(self, visitor) -> dict:
        """How many modules still have a free query today, of how many have one at all."""
        items = [self.services.prices.module(name) for name in sorted(modules())]
        caller = Payer.of(visitor.agent, "").caller_id  # an agent's allowance is its own, wherever it calls from
        left = await self.services.charging.allowance.left(caller, items)
        return {"modules_left": sum(1 for n in left.values() if n > 0), "modules": len(items),
                "queries_left": sum(left.values())}
