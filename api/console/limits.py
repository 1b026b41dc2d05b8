"""What the owner allows the agent: a daily spending cap (the charging service refuses a request that would take
the agent past it: 402 `daily_cap_reached`, nothing charged, so a runaway agent cannot drain the balance) and a
low-balance level (a debit that takes the balance below it sends the agent one `account.balance_low` event)."""
from __future__ import annotations

import asyncio

from api.console.pages import BASE, FormPage
from warehouse.ledger.low_balance import MAX_LEVEL_SATS, LowBalance
from warehouse.ledger.spending import Spending, day_start
from warehouse.ledger.tables import utcnow

MAX_CAP_SATS = 100_000_000  # one bitcoin a day: above it a cap caps nothing


class LimitsPage(FormPage):
    def __init__(self, services, sessions):
        super().__init__(services, sessions)
        self.spending, self.low_balance = Spending(services.engine), LowBalance(services.engine)

    async def show(self, resp, visitor, status: int = 200, **values) -> None:
        agent = await asyncio.to_thread(self.services.agents.get, visitor.agent["id"])  # SQL: the limits in force
        spent = sum((await asyncio.to_thread(self.spending.by_day, agent["id"], day_start(utcnow().date()))).values())
        self.render(resp, "limits.html", status, visitor, cap_sats=agent["daily_cap_sats"], spent_today_sats=spent,
                    max_cap_sats=MAX_CAP_SATS, level_sats=agent["low_balance_sats"], max_level_sats=MAX_LEVEL_SATS,
                    balance_sats=agent["balance_sats"], warned=agent["low_balance_warned_at"] is not None,
                    **{"level_error": None, **values})

    async def on_post(self, req, resp):
        posted = await self.posted(req, resp)
        if posted is None:
            return
        visitor, form = posted
        action = form.get("action", "set")
        if action in ("set", "remove"):
            cap = None if action == "remove" else whole_sats(form.get("daily_cap_sats", ""), MAX_CAP_SATS)
            if action == "set" and cap is None:
                return await self.show(resp, visitor, 422,
                                       error=f"A cap is a whole number of sats, 1 to {MAX_CAP_SATS:,}.")
            live = await asyncio.to_thread(self.services.agents.set_daily_cap, visitor.agent["id"], cap)
        elif action in ("set_level", "remove_level"):
            level = None if action == "remove_level" else whole_sats(form.get("low_balance_sats", ""), MAX_LEVEL_SATS)
            if action == "set_level" and level is None:
                return await self.show(resp, visitor, 422, level_error="A level is a whole number of sats, 1 to "
                                                                       f"{MAX_LEVEL_SATS:,}.")
            live = await asyncio.to_thread(self.low_balance.set_level, visitor.agent["id"], level)
            if level is not None:  # a balance already below the new level is warned now, not at the next sweep
                await asyncio.to_thread(self.services.jobs.enqueue, "jobs.balance.warn", visitor.agent["id"],
                                        result_ttl=0, description="a low-balance warning")
        else:
            return await self.show(resp, visitor, 422, error="Unknown action.")
        for key_hash in live:  # every server's next request of the agent sees the new limits
            await self.services.directory.changed_hash(key_hash)
        self.redirect(resp, f"{BASE}/limits")


def whole_sats(text: str, most: int) -> int | None:
    try:
        sats = int(text.strip())
    except ValueError:
        return None
    return sats if 1 <= sats <= most else None
