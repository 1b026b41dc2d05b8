"""Agents: register, profile, balance, topup."""
from __future__ import annotations

import asyncio

from spectree import Response

from api.errors import APIError, invalid
from api.middleware import require_agent
from api.schemas import RegisterBody, TopupBody
from api.services import Services
from api.spec import api_spec
from marketintel.lightning.proof import preimage_matches
from warehouse.ledger import TopupRefused, UnknownReferralCode


def public_agent(agent: dict) -> dict:
    return {"agent_id": agent["agent_id"], "name": agent["name"], "tier": agent["tier"],
            "referral_code": agent["referral_code"], "balance_sats": agent["balance_sats"],
            "created_at": str(agent["created_at"])}


class RegisterResource:
    def __init__(self, services: Services):
        self.s = services

    @api_spec.validate(json=RegisterBody, tags=["agents"], resp=Response("HTTP_201", "HTTP_422"))
    async def on_post(self, req, resp):
        """Register an agent. The API key is shown once, here; only its hash is stored."""
        body: RegisterBody = req.context.json
        try:
            agent, key = await asyncio.to_thread(self.s.agents.register, body.name, body.referral_code)
        except UnknownReferralCode:
            raise invalid(["body", "referral_code"], "unknown referral code")
        resp.status = 201
        resp.media = {
            **public_agent(agent),
            "api_key": key,
            "note": "Store the API key now: it is not shown again. Send it as X-API-Key or Authorization: Bearer.",
            "next": {"query": "/api/v1/intelligence/market_intelligence", "topup": "/api/v1/payments/create-invoice"},
        }


class MeResource:
    def __init__(self, services: Services):
        self.s = services

    @api_spec.validate(tags=["agents"], resp=Response("HTTP_200", "HTTP_401"))
    async def on_get(self, req, resp):
        """Profile, balance and usage statistics of the calling agent."""
        agent = await asyncio.to_thread(self.s.agents.get, require_agent(req)["id"])
        usage = await asyncio.to_thread(self.s.agents.usage, agent["id"])
        resp.media = {**public_agent(agent), "usage": usage}


class BalanceResource:
    def __init__(self, services: Services):
        self.s = services

    @api_spec.validate(tags=["agents"], resp=Response("HTTP_200", "HTTP_401"))
    async def on_get(self, req, resp):
        """Sats balance and a usage summary."""
        agent_id = require_agent(req)["id"]
        balance = await asyncio.to_thread(self.s.money.balance, agent_id)
        usage = await asyncio.to_thread(self.s.agents.usage, agent_id)
        resp.media = {"balance_sats": balance, "usage": {
            k: usage.get(k) for k in ("queries_total", "queries_paid", "queries_free", "sats_spent", "sats_topped_up")}}


class TopupResource:
    def __init__(self, services: Services):
        self.s = services

    @api_spec.validate(json=TopupBody, tags=["agents"],
                       resp=Response("HTTP_200", "HTTP_401", "HTTP_403", "HTTP_404", "HTTP_409", "HTTP_422"))
    async def on_post(self, req, resp):
        """Credit a paid invoice to the balance. The proof is the invoice's `payment_hash` with the `preimage`
        the wallet returned on payment. An invoice credits once: a second topup with the same proof is 409."""
        agent = require_agent(req)
        body: TopupBody = req.context.json
        payment_hash = body.payment_hash.lower()
        invoice = await asyncio.to_thread(self.s.invoices.get, payment_hash)
        if invoice is None:
            raise APIError(404, "unknown_invoice", "No invoice with that payment_hash was issued here.")
        if invoice["agent_id"] not in (None, agent["id"]):
            raise APIError(403, "invoice_of_another_agent", "That invoice was issued to another agent.")
        if not preimage_matches(payment_hash, body.preimage):
            raise invalid(["body", "preimage"], "the preimage does not hash to payment_hash", "invalid_proof")
        if invoice["status"] == "credited":
            raise already_credited(payment_hash)
        status = await asyncio.to_thread(self.s.lightning.lookup, payment_hash)
        if status is None or not status.settled:
            raise APIError(409, "invoice_not_settled", "The Lightning backend does not report this invoice as paid.")
        try:
            balance = await asyncio.to_thread(self.s.money.credit_topup, agent["id"], payment_hash)
        except TopupRefused as exc:
            raise APIError(403, "topup_refused", str(exc)) from exc
        if balance is None:
            raise already_credited(payment_hash)
        resp.media = {"balance_sats": balance, "credited_sats": invoice["amount_sats"], "payment_hash": payment_hash}


def already_credited(payment_hash: str) -> APIError:
    return APIError(409, "already_credited", "This payment was already credited; a proof credits once.",
                    payment_hash=payment_hash)
