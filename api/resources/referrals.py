"""Referrals: your code and how to share it, what it earned, and the credits it left you."""
from __future__ import annotations

import asyncio

from api import response_docs_routes as r
from api.middleware import require_agent
from api.spec import Documented, api_spec
from warehouse.ledger import REFERRAL_PERCENT, Referrals

RULES = (f"You earn {REFERRAL_PERCENT}% of the sats each agent you referred spends per request (from its balance, "
         "subscription, burst or commitment credits; not from its own referral credits), as referral credits, "
         "credited in the same transaction as its debit. Sats are whole: the fractions are carried, so your "
         f"total is always {REFERRAL_PERCENT}% of their spend rounded down once, never per request. A refunded "
         "request takes its reward back. Referral credits never expire and pay for your queries after your "
         "subscription, burst and commitment credits and before your balance.")


class ReferralCodeResource:
    @api_spec.validate(tags=["referrals"], resp=Documented("HTTP_401", HTTP_200=r.ReferralCode))
    async def on_get(self, req, resp):
        """Your referral code and how to share it."""
        agent = require_agent(req)
        code = agent["referral_code"]
        resp.media = {
            "referral_code": code,
            "share": {"instructions": "Give the code to another agent; it passes the code when it registers.",
                      "register": {"method": "POST", "path": "/api/v1/agents/register",
                                   "body": {"name": "their-agent", "referral_code": code}}},
            "reward_percent": REFERRAL_PERCENT, "rules": RULES,
        }


class ReferralStatsResource:
    def __init__(self, referrals: Referrals):
        self.referrals = referrals

    @api_spec.validate(tags=["referrals"], resp=Documented("HTTP_401", HTTP_200=r.ReferralStats))
    async def on_get(self, req, resp):
        """Agents you referred, sats earned (net of rewards taken back by refunds), their rewarded spend, and
        the referral credits you have available."""
        agent = require_agent(req)
        resp.media = {**await asyncio.to_thread(self.referrals.stats, agent["id"]), "rules": RULES}


class ReferralCreditsResource:
    def __init__(self, referrals: Referrals):
        self.referrals = referrals

    @api_spec.validate(tags=["referrals"], resp=Documented("HTTP_401", HTTP_200=r.ReferralCredits))
    async def on_get(self, req, resp):
        """Your available referral credits in sats (they pay for queries, see /api/v1/pricing `pool_order`)."""
        agent = require_agent(req)
        stats = await asyncio.to_thread(self.referrals.stats, agent["id"])
        resp.media = {"credits_available_sats": stats["credits_available_sats"], "sats_earned": stats["sats_earned"]}
