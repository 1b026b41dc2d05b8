"""Agents: register, profile, balance, topup, key rotation, tier upgrade."""
from __future__ import annotations

import asyncio

from api import response_docs_routes as r
from api.errors import APIError, invalid
from api.middleware import api_key_from, require_agent
from api.money_schemas import UpgradeBody
from api.resources.plans import POOL_ORDER_TEXT, tier_prices
from api.schemas import RegisterBody, TopupBody
from api.services import Services
from api.spec import Documented, api_spec
from marketintel.lightning.proof import preimage_matches
from warehouse.ledger import KeyRevoked, TopupRefused, UnknownReferralCode, UpgradeRefused

NO_STORE = {"Cache-Control": "no-store"}  # responses that carry a key must not be kept by any cache


def public_agent(agent: dict) -> dict:
    return {"agent_id": agent["agent_id"], "name": agent["name"], "tier": agent["tier"],
            "tier_expires_at": agent["tier_expires_at"], "referral_code": agent["referral_code"],
            "balance_sats": agent["balance_sats"], "created_at": str(agent["created_at"])}


class RegisterResource:
    anonymous_methods = ("POST",)  # registering needs no key
    def __init__(self, services: Services):
        self.services = services

    @api_spec.validate(json=RegisterBody, tags=["agents"],
                       resp=Documented("HTTP_401", "HTTP_422", HTTP_200=r.Registered))
    async def on_post(self, req, resp):
        """Register an agent. The API key is shown once, here; only its hash is stored. An optional
        `referral_code` (another agent's) must exist (422 otherwise): that agent then earns 10% of your
        per-request sats as referral credits, at no cost to you. Other fields are accepted and ignored; the
        answer names them in `ignored_fields`."""
        body: RegisterBody = req.context.json
        sent = await req.get_media()
        ignored = sorted(set(sent) - set(RegisterBody.model_fields)) if isinstance(sent, dict) else []
        try:
            agent, key = await asyncio.to_thread(self.services.agents.register, body.name, body.referral_code)
        except UnknownReferralCode:
            raise invalid(["body", "referral_code"], "unknown referral code")
        await self.services.directory.added(key, agent)
        resp.status = 200  # interface.md: success is 200 unless a row states otherwise
        resp.set_headers(NO_STORE)
        resp.media = {
            **public_agent(agent),
            "api_key": key,
            "note": "Store the API key now: it is not shown again. Send it as X-API-Key or Authorization: Bearer.",
            "next": {"query": "/api/v1/intelligence/market_intelligence", "topup": "/api/v1/payments/create-invoice"},
            **({"ignored_fields": ignored} if ignored else {}),
        }


class MeResource:
    def __init__(self, services: Services):
        self.services = services

    @api_spec.validate(tags=["agents"], resp=Documented("HTTP_401", HTTP_200=r.AgentProfile))
    async def on_get(self, req, resp):
        """Profile of the calling agent: effective tier and when it ends (`null` for free), balance, every
        pool with what it holds and until when it is usable (in the order they pay), and usage statistics."""
        agent = await asyncio.to_thread(self.services.agents.get, require_agent(req)["id"])
        pools = await asyncio.to_thread(self.services.money.pools, agent["id"])
        usage = await asyncio.to_thread(self.services.agents.usage, agent["id"])
        resp.media = {**public_agent(agent), "balance_sats": pools[-1]["remaining_sats"], "pools": pools,
                      "pool_order": POOL_ORDER_TEXT, "usage": usage}


class BalanceResource:
    def __init__(self, services: Services):
        self.services = services

    @api_spec.validate(tags=["agents"], resp=Documented("HTTP_401", HTTP_200=r.Balance))
    async def on_get(self, req, resp):
        """Sats balance, what each credit pool holds now (0 when it is not usable), and a usage summary."""
        agent_id = require_agent(req)["id"]
        pools = await asyncio.to_thread(self.services.money.pools, agent_id)
        usage = await asyncio.to_thread(self.services.agents.usage, agent_id)
        resp.media = {
            "balance_sats": pools[-1]["remaining_sats"],
            "credits_sats": {p["pool"]: p["remaining_sats"] if p["usable"] else 0 for p in pools[:-1]},
            "usage": {k: usage.get(k) for k in ("queries_total", "queries_paid", "queries_free", "sats_spent",
                                                "sats_spent_by_pool", "sats_topped_up")}}


class TopupResource:
    def __init__(self, services: Services):
        self.services = services

    @api_spec.validate(json=TopupBody, tags=["agents"],
                       resp=Documented("HTTP_401", "HTTP_403", "HTTP_404", "HTTP_409", "HTTP_422", HTTP_200=r.ToppedUp))
    async def on_post(self, req, resp):
        """Credit a paid invoice to the balance. The proof is the invoice's `payment_hash` with the `preimage`
        the wallet returned on payment. An invoice credits once: a second topup with the same proof is 409."""
        agent = require_agent(req)
        body: TopupBody = req.context.json
        payment_hash, invoice = await self._paid_invoice(agent, body.payment_hash, body.preimage)
        try:
            balance = await asyncio.to_thread(self.services.money.credit_topup, agent["id"], payment_hash)
        except TopupRefused as exc:
            raise APIError(403, "topup_refused", str(exc)) from exc
        if balance is None:
            raise already_credited(payment_hash)
        resp.media = {"balance_sats": balance, "credited_sats": invoice["amount_sats"], "payment_hash": payment_hash}

    async def _paid_invoice(self, agent: dict, payment_hash: str, preimage: str) -> tuple[str, dict]:
        """The checks a payment proof passes before any sats move: our invoice, the caller's, the preimage
        hashes to it (constant-time compare), not used yet, and the node says it is paid."""
        payment_hash = payment_hash.lower()
        invoice = await asyncio.to_thread(self.services.invoices.get, payment_hash)
        if invoice is None:
            raise APIError(404, "unknown_invoice", "No invoice with that payment_hash was issued here.")
        if invoice["agent_id"] not in (None, agent["id"]):
            raise APIError(403, "invoice_of_another_agent", "That invoice was issued to another agent.")
        if not preimage_matches(payment_hash, preimage):
            raise invalid(["body", "preimage"], "the preimage does not hash to payment_hash", "invalid_proof")
        if invoice["status"] == "credited":
            raise already_credited(payment_hash)
        status = await asyncio.to_thread(self.services.lightning.lookup, payment_hash)
        if status is None or not status.settled:
            raise APIError(409, "invoice_not_settled", "The Lightning backend does not report this invoice as paid.")
        return payment_hash, invoice


class UpgradeResource(TopupResource):
    @api_spec.validate(json=UpgradeBody, tags=["agents"],
                       resp=Documented("HTTP_401", "HTTP_403", "HTTP_404", "HTTP_409", "HTTP_422", HTTP_200=r.Upgraded))
    async def on_post(self, req, resp):
        """Apply a paid tier upgrade. First `POST /api/v1/payments/create-invoice` with
        `{"purpose": "upgrade", "tier": "premium"}` (or `institutional`), pay the invoice, then send its
        `payment_hash` and the `preimage` here. Each proof applies once (a replay is 409 `already_credited`).

        The tier runs for its duration (see /api/v1/pricing `tiers`) from now; paying for the tier you have
        extends it from its current end; a higher tier starts now and keeps the unused value of the lower one
        as extra time (converted at the two prices); a lower tier than the one running is credited to your
        balance instead. When the tier ends you are `free` again. In the ledger the payment is a credit and an
        equal debit on the balance (kinds `upgrade_payment` and `upgrade`), so the balance does not change."""
        agent = require_agent(req)
        body: UpgradeBody = req.context.json
        payment_hash, invoice = await self._paid_invoice(agent, body.payment_hash, body.preimage)
        if invoice["purpose"] != "upgrade":
            raise APIError(409, "not_an_upgrade_invoice", "That invoice buys balance credit: use /api/v1/agents/topup.")
        try:
            result = await asyncio.to_thread(self.services.money.claim_upgrade, agent["id"], payment_hash,
                                             tier_prices(self.services.settings))
        except UpgradeRefused as exc:
            raise APIError(403, "upgrade_refused", str(exc)) from exc
        if result is None:
            raise already_credited(payment_hash)
        await self.services.directory.changed(api_key_from(req))  # the new tier holds from the next request
        resp.media = {**result, "payment_hash": payment_hash}


class RotateKeyResource:
    def __init__(self, services: Services):
        self.services = services

    @api_spec.validate(tags=["agents"], resp=Documented("HTTP_401", HTTP_200=r.KeyRotated))
    async def on_post(self, req, resp):
        """Replace your API key. The new key is shown once, here. The old key stops working at once, on every
        server: the rotation marks it revoked in the key directory every server reads before this answer."""
        agent = require_agent(req)
        try:
            key, revoked = await asyncio.to_thread(self.services.agents.rotate, agent["id"], api_key_from(req))
        except KeyRevoked as exc:
            raise APIError(401, "invalid_api_key", "The API key is unknown or was rotated.",
                           headers={"WWW-Authenticate": 'Bearer realm="marketintel"'}) from exc
        # the rotation has committed: a client hanging up now must not leave the old key live in Redis
        await asyncio.shield(self.services.directory.revoked(revoked))
        await self.services.directory.fill(key)
        resp.set_headers(NO_STORE)
        resp.media = {"agent_id": agent["agent_id"], "api_key": key,
                      "note": "Store the new API key now: it is not shown again. The previous key no longer works."}


def already_credited(payment_hash: str) -> APIError:
    return APIError(409, "already_credited", "This payment was already credited; a proof credits once.",
                    payment_hash=payment_hash)
