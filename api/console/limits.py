"""The daily spending cap, set by the agent's owner: the charging service refuses a request that would take the
agent past it (402 `daily_cap_reached`, nothing charged), so a runaway agent cannot drain the balance."""
from __future__ import annotations

import asyncio

from api.console.pages import BASE, Page
from warehouse.ledger.spending import Spending, day_start
from warehouse.ledger.tables import utcnow

MAX_CAP_SATS = 100_000_000  # one bitcoin a day: above it a cap caps nothing


class LimitsPage(Page):
    def __init__(self, services, sessions):
        super().__init__(services, sessions)
        self.spending = Spending(services.engine)

    async def on_get(self, req, resp):
        visitor = await self.signed_in(req, resp)
        if visitor is None:
            return
        await self.show(resp, visitor)

    async def show(self, resp, visitor, status: int = 200, **values) -> None:
        agent = await asyncio.to_thread(self.services.agents.get, visitor.agent["id"])  # SQL: the cap in force
        spent = sum((await asyncio.to_thread(self.spending.by_day, agent["id"], day_start(utcnow().date()))).values())
        self.render(resp, "limits.html", status, visitor, cap_sats=agent["daily_cap_sats"], spent_today_sats=spent,
                    max_cap_sats=MAX_CAP_SATS, **values)

    async def on_post(self, req, resp):
        posted = await self.posted(req, resp)
        if posted is None:
            return
        visitor, form = posted
        cap = None if form.get("action") == "remove" else cap_of(form.get("daily_cap_sats", ""))
        if form.get("action") != "remove" and cap is None:
            return await self.show(resp, visitor, 422, error=f"A cap is a whole number of sats, 1 to {MAX_CAP_SATS:,}.")
        live = await asyncio.to_thread(self.services.agents.set_daily_cap, visitor.agent["id"], cap)
        for key_hash in live:  # every server's next request of the agent sees the new cap
            await self.services.directory.changed_hash(key_hash)
        self.redirect(resp, f"{BASE}/limits")


def cap_of(text: str) -> int | None:
    try:
        cap = int(text.strip())
    except ValueError:
        return None
    return cap if 1 <= cap <= MAX_CAP_SATS else None
