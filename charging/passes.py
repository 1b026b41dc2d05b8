"""Time passes paid with L402 (the day-trade journal's 24-hour pass): offered at a USD price converted to sats at the
BTC/USD rate the caller hands in, and checked, never spent, on every request while the market clock is inside the
window the macaroon's `valid_until` caveat names. The window runs from the challenge (its invoice expires within
MI_INVOICE_EXPIRY_S), on the market clock, so replayed and simulated time advance it as they advance everything."""
from __future__ import annotations

import asyncio

from charging.attempt import Payer
from charging.invoices import Challenges
from charging.prices import PricedPass
from charging.tokens import TokenSpender
from intel.clock import MarketClock


class Passes:
    def __init__(self, challenges: Challenges, spender: TokenSpender, clock: MarketClock):
        self.challenges, self.spender, self.clock = challenges, spender, clock
        self._settled: set[str] = set()  # payment hashes this process has marked settled: one write per pass

    async def offer(self, payer: Payer, pass_: PricedPass, btc_usd: float) -> dict:
        """An L402 challenge for the pass at `btc_usd`: the invoice, the macaroon, the sats, the USD price and the
        rate used. A caller asking again while its open challenge is for the same sats gets that one back."""
        item = pass_.priced(btc_usd)
        valid_until = int(self.clock.now().timestamp()) + pass_.valid_s
        challenge = await self.challenges.l402(payer, item, valid_until)
        return {**challenge, "usd_price": pass_.usd_price, "btc_usd": btc_usd, "valid_hours": pass_.valid_s / 3600,
                "window": "from the challenge, on the market clock"}

    async def admit(self, payer: Payer, pass_: PricedPass) -> dict:
        """The pass's token row when the payer's L402 credential is a paid pass valid now on the market clock;
        L402Refused otherwise. Nothing is spent: a pass pays for its whole window."""
        row = await self.spender.verify(payer.l402, pass_.key, self.clock.now().timestamp())
        if row["payment_hash"] not in self._settled:  # the preimage proved payment: the ledger's invoice says so
            await asyncio.to_thread(self.spender.tokens.settle_invoice, row["payment_hash"])
            self._settled.add(row["payment_hash"])
        return row
