"""The day-trade paper journal: its events (access per interface.md Authentication 7), acceptance of its terms, and
its free track record. The events are the journal's hash-chain records in SQL (assets/daytrade.py appends them),
read as stored, each with its chain fields, so a reader can re-hash what it was served.

Access to the events, in this order:
  1. an L402 day-trade pass (`Authorization: L402 <macaroon>:<preimage>`) valid now on the market clock: never spent;
  2. a premium or institutional key that accepted the terms version in force (POST .../accept-terms);
  3. such a key that has not: 403 `terms_not_accepted` with the terms, their version and how to accept;
  4. anyone else (no key, or a free key): 402 with a pass's L402 challenge, its USD price, the BTC/USD rate used and
     the sats, and the terms (paying accepts them), plus how a premium key reads the feed instead.
"""
from __future__ import annotations

import asyncio

import orjson

from api import response_docs_routes as r
from api.errors import APIError
from api.middleware import require_agent
from api.payment_errors import TOPUP, per_request, uncharged_meta
from api.schemas import AcceptTermsBody, DayTradeQuery
from api.services import Services
from api.spec import Documented, api_spec
from charging.attempt import Payer
from charging.errors import L402Rejected
from charging.l402 import L402Refused
from intel.daytrade import terms
from intel.daytrade.track_record import track_record
from intel.hash_chain import HASH_RULE
from warehouse import keys
from warehouse.ledger.daytrade import DAYTRADE_CHAIN, Journal, TermsAcceptances

BASE = "/api/v1/trading/day-trade-ideas"
ACCEPT_PATH = f"{BASE}/accept-terms"
TERMS_TIERS = ("premium", "institutional")  # keys that read the feed once they accepted the terms
RATE_MODULE = "bitcoin"  # the published module whose latest close is the BTC/USD rate a pass is priced at


def how_to_accept(version: str) -> dict:
    return {"method": "POST", "path": ACCEPT_PATH, "body": {"version": version}, "tiers": list(TERMS_TIERS)}


async def published_btc_usd(services: Services) -> dict:
    """The warehouse's current BTC/USD: the published bitcoin module's latest close, with its date and source.
    503 before the module is published (a pass cannot be priced without it)."""
    raw = await services.redis.get(keys.module(RATE_MODULE, "full"))
    data = orjson.loads(raw).get("data", {}) if raw is not None else {}
    if not isinstance(data.get("price_usd"), int | float) or data["price_usd"] <= 0:
        raise APIError(503, "data_not_ready", "The day-trade pass is priced at the published BTC/USD, which is not "
                       "published yet; try again after the next refresh.",
                       headers={"Retry-After": str(services.settings.refresh_minutes * 60)})
    return {"btc_usd": float(data["price_usd"]), "as_of": data.get("date"),
            "source": f"the published '{RATE_MODULE}' module's latest close"}


class DayTradeAccess:
    """Who may read the events, decided from plain values (the payer), never the request."""

    def __init__(self, services: Services, acceptances: TermsAcceptances):
        self.services, self.acceptances = services, acceptances

    async def grant(self, payer: Payer, request_id: str) -> dict:
        """How the payer reads the feed now, or the APIError / L402Rejected that says how it could."""
        current = terms.current()
        pass_ = self.services.prices.daytrade_pass
        if payer.l402 is not None:
            try:
                row = await self.services.charging.passes.admit(payer, pass_)
            except L402Refused as refused:
                offer = await self.offer(payer)
                priced = pass_.priced(offer["btc_usd"])
                invoice = await self.services.charging.challenges.topup_invoice(payer, priced)
                raise L402Rejected(refused.code, refused.message, priced, offer, invoice, request_id) from None
            return {"via": "l402_pass", "valid_until": row["expires_at"].isoformat(),
                    "terms_version": current.version}
        agent = payer.agent
        if agent is not None and agent["tier"] in TERMS_TIERS:
            accepted = await asyncio.to_thread(self.acceptances.accepted_at, agent["id"], current.version)
            if accepted is not None:
                return {"via": "accepted_terms", "terms_version": current.version, "accepted_at": accepted.isoformat()}
            raise APIError(403, "terms_not_accepted",
                           f"The day-trade journal needs acceptance of its terms, version {current.version}, "
                           f"first: POST {ACCEPT_PATH} with {{\"version\": \"{current.version}\"}}.",
                           terms_version=current.version, terms=current.text, accept=how_to_accept(current.version))
        offer = await self.offer(payer)
        # as every 402 (api/spec.py PROMISES 4): also a top-up invoice for the same sats, which credits a balance
        invoice = await self.services.charging.challenges.topup_invoice(payer, pass_.priced(offer["btc_usd"]))
        meta = uncharged_meta(self.services.data_source, self.services.simulated, offer["amount_sats"], request_id)
        headers, ways = per_request(offer, mpp_too=False)
        raise APIError(402, "payment_required",
                       f"The day-trade journal is read with a {pass_.valid_s // 3600}-hour pass: pay the L402 invoice "
                       f"in WWW-Authenticate ({offer['amount_sats']} sats: USD {pass_.usd_price:.2f} at "
                       f"{offer['btc_usd']:,.2f} USD/BTC) and send Authorization: L402 <macaroon>:<preimage hex>. "
                       f"Paying accepts the terms (version {current.version}) below. A premium or institutional key "
                       f"reads it instead after POST {ACCEPT_PATH}.",
                       headers=headers, meta=meta, invoice=invoice, topup=TOPUP, item=pass_.key,
                       price_sats=offer["amount_sats"], usd_price=pass_.usd_price, btc_usd=offer["btc_usd"],
                       rate=offer["rate"], **ways, terms_version=current.version,
                       terms=current.text, accept=how_to_accept(current.version))

    async def offer(self, payer: Payer) -> dict:
        rate = await published_btc_usd(self.services)
        offer = await self.services.charging.passes.offer(payer, self.services.prices.daytrade_pass, rate["btc_usd"])
        return {**offer, "rate": rate}


def listed(records: list[dict], track: str, limit: int) -> list[dict]:
    """Events of the track, newest first, each with its chain fields and the canonical body that was hashed."""
    chosen = [r for r in reversed(records) if track == "all" or r["event"]["track"] == track][:limit]
    return [{**r["event"], "chain": {"seq": r["seq"], "hash": r["hash"], "prev_hash": r["prev_hash"],
                                     "recorded_on": r["recorded_on"], "body": r["body"]}} for r in chosen]


class DayTradeIdeasResource:
    priced = {"GET": ("pass:daytrade",)}
    accepts_l402 = True  # the Authentication middleware lets a pass through to this route

    def __init__(self, services: Services, access: DayTradeAccess, journal: Journal):
        self.services, self.access, self.journal = services, access, journal

    @api_spec.validate(query=DayTradeQuery, tags=["trading"],
                       resp=Documented("HTTP_401", "HTTP_402", "HTTP_403", "HTTP_422", "HTTP_503",
                                       HTTP_200=r.DayTradeIdeas))
    async def on_get(self, req, resp):
        """The day-trade paper journal, newest first: ENTERED (instrument, side, reference price, time, the reason in
        a sentence) and EXITED (reference price, time, paper P&L percentage only) events of the `track` (main, other
        or all), identical for every subscriber, each with its `disclosure` (terms and version) and its place in the
        journal's hash chain (seq, hash, prev_hash, the canonical body hashed). No option prices, Greeks or sizing.
        Read with an L402 24-hour pass (USD-priced, in sats at the published BTC/USD; paying accepts the terms) or a
        premium or institutional key that accepted the terms version in force (POST .../accept-terms); otherwise 402
        with the pass's challenge, or 403 for such a key before it accepts."""
        query: DayTradeQuery = req.context.query
        access = await self.access.grant(req.context.payer, req.context.request_id)
        records = await asyncio.to_thread(self.journal.all_records)
        current = terms.current()
        resp.media = {"track": query.track, "limit": query.limit, "events": listed(records, query.track, query.limit),
                      "journal_events": len(records), "terms_version": current.version,
                      "disclosure": current.disclosure(), "access": access,
                      "chain": {"name": DAYTRADE_CHAIN, "hashing": HASH_RULE,
                                "signing_key": "/.well-known/marketintel-signing-key.json"},
                      "_meta": {"data_source": self.services.data_source, "simulated": self.services.simulated,
                                "charged_sats": 0, "request_id": req.context.request_id}}


class AcceptTermsResource:
    def __init__(self, services: Services, acceptances: TermsAcceptances):
        self.services, self.acceptances = services, acceptances

    @api_spec.validate(json=AcceptTermsBody, tags=["trading"],
                       resp=Documented("HTTP_401", "HTTP_409", "HTTP_422", HTTP_200=r.TermsAccepted))
    async def on_post(self, req, resp):
        """Accept the day-trade journal's terms: `{"version": "<the version in force>"}`. Stored with the version and
        the market clock's time; accepting again keeps the first time. A version other than the one in force is a
        409 naming it. Premium and institutional keys then read the feed; a new terms version needs a new
        acceptance."""
        agent, body = require_agent(req), req.context.json
        current = terms.current()
        if body.version != current.version:
            raise APIError(409, "terms_version_mismatch",
                           f"The terms in force are version {current.version}, not {body.version!r}: read them and "
                           "accept that version.", terms_version=current.version, terms=current.text)
        accepted = await asyncio.to_thread(self.acceptances.accept, agent["id"], current.version,
                                           self.services.clock.now())
        resp.media = {"accepted": True, "terms_version": current.version, "accepted_at": accepted.isoformat(),
                      "feed_access": agent["tier"] in TERMS_TIERS, "tiers": list(TERMS_TIERS)}


class TrackRecordResource:
    public = True  # interface.md: the day-trade track record needs no credential, and it is free

    def __init__(self, services: Services, journal: Journal):
        self.services, self.journal = services, journal

    @api_spec.validate(tags=["trading"], resp=Documented(HTTP_200=r.DayTradeTrackRecord))
    async def on_get(self, req, resp):
        """Whole-journal aggregates of the hypothetical paper trading, overall and by track: ideas, closed and open,
        win rate, mean and median paper P&L, worst loss, the maximum drawdown of the compounded paper curve, with the
        method and the chain head they were computed over. Free; no credential."""
        records = await asyncio.to_thread(self.journal.all_records)
        head = records[-1] if records else None
        resp.media = {**track_record([r["event"] for r in records], head),
                      "_meta": {"data_source": self.services.data_source, "simulated": self.services.simulated,
                                "charged_sats": 0, "request_id": req.context.request_id}}
