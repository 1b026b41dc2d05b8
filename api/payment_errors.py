"""The charging service's refusals as HTTP answers: PaymentRequired and L402Rejected are 402s, each with the L402
challenge in `WWW-Authenticate` and the same fields in the body (error.l402). A credential that no longer pays (spent,
expired, for another resource, unpaid) gets a 402 with a fresh challenge, not a bare refusal: clients cache L402
tokens per path and resend them (l402-requests does), and pay again on a 402."""
from __future__ import annotations

from api.errors import APIError
from charging import mpp
from charging.errors import L402Rejected, MaxCostExceeded, PaymentRequired, SpendingCapReached
from charging.l402 import format_challenge

TOPUP = {"method": "POST", "path": "/api/v1/agents/topup", "body": ["payment_hash", "preimage"]}
MPP_AUTHORIZATION = mpp.HOW_TO_PAY.removeprefix("Send Authorization: ")
REGISTER = {"method": "POST", "path": "/api/v1/agents/register", "body": {"name": "string"}}


def per_request(l402: dict, mpp_too: bool = True) -> tuple[dict, dict]:
    """A 402's per-request ways to pay one invoice: its WWW-Authenticate header (the L402 challenge, then the MPP
    `Payment` one) and the body's fields (`l402`, and `mpp` with its challenge's parameters). `mpp_too` False: L402
    alone (a pass pays for its window, an MPP credential for one request)."""
    ways = {"l402": l402}
    if mpp_too:
        ways["mpp"] = {"challenge": mpp.challenge_for(l402), "authorization": MPP_AUTHORIZATION}
    return {"WWW-Authenticate": www_authenticate(ways)}, ways


def www_authenticate(ways: dict, offered: tuple[str, ...] = ("l402", "mpp")) -> str:
    """The challenges of `ways` (per_request's body fields) that are `offered`, in that order, as one header."""
    parts = {"l402": lambda: format_challenge(ways["l402"]["macaroon"], ways["l402"]["invoice"]),
             "mpp": lambda: mpp.format_challenge(ways["mpp"]["challenge"])}
    return ", ".join(parts[name]() for name in offered if name in ways)


def negotiated(header: str | None, extra: dict) -> str | None:
    """The WWW-Authenticate of a 402 offering both protocols, for a client that sent `Accept-Payment` (the MPP
    draft's preference header, e.g. `lightning/charge`): the `Payment` challenge alone unless it also names
    `l402`; None (both, as built) when it sent none or named neither."""
    if not header or "mpp" not in extra:
        return None
    wanted = {part.split(";")[0].strip().lower() for part in header.split(",")}
    if not wanted & {"lightning/charge", "lightning/*", "*/*", "*"}:
        return None
    return www_authenticate(extra, ("l402", "mpp") if "l402" in wanted else ("mpp",))


def uncharged_meta(data_source: str, simulated: bool, price_sats: int, request_id: str) -> dict:
    """The `_meta` of an answer that charged nothing (a 402, a free listing): what it costs, and that nothing was
    charged."""
    return {"data_source": data_source, "simulated": simulated, "price_sats": price_sats, "charged_sats": 0,
            "request_id": request_id}


def payment_required(exc: PaymentRequired, data_source: str, simulated: bool) -> APIError:
    item, agent = exc.item, exc.payer.agent
    extra: dict = {"item": item.key, "price_sats": item.price_sats, "invoice": exc.invoice, "topup": TOPUP}
    if item.kind == "module":
        extra["module"] = item.ledger_name
    headers = {}
    if exc.l402 is not None:
        headers, ways = per_request(exc.l402)
        extra.update(ways)
    meta = {**uncharged_meta(data_source, simulated, item.price_sats, exc.request_id), "free_queries_left": 0}
    if item.free_with_key:
        if item.key == "catalog":
            extra["preview"] = "/api/v1/catalog/preview"
        return APIError(402, "registration_required", _registration_message(item), headers, meta, **extra,
                        register=REGISTER)
    return APIError(402, "payment_required", _payment_message(item, agent is not None), headers, meta, **extra)


def _registration_message(item) -> str:
    return (f"The {item.title} is for registered agents (registration is free: POST /api/v1/agents/register, then "
            "send the key as X-API-Key), or paid per request with L402: pay the invoice in WWW-Authenticate "
            f"({item.price_sats} sats) and repeat the request with Authorization: L402 <macaroon>:<preimage hex>."
            + (" /api/v1/catalog/preview shows a part without either." if item.key == "catalog" else ""))


def _payment_message(item, keyed: bool) -> str:
    if item.free_per_day:
        spent = f"The free query for '{item.ledger_name}' is used up today"
    else:
        spent = f"The {item.title} costs {item.price_sats} sats"
    l402 = ("pay the L402 invoice in WWW-Authenticate and retry with Authorization: L402 <macaroon>:<preimage hex>"
            if item.l402 else "")
    if keyed:
        text = (f"{spent} and the balance is below {item.price_sats} sats. Pay the invoice, then POST "
                "/api/v1/agents/topup with the payment_hash and preimage; the sats are credited to your balance.")
        return text + (f" Or pay for this one request: {l402} beside your X-API-Key." if l402 else "")
    text = (f"{spent}. Pay the invoice, register (POST /api/v1/agents/register) and top up with its payment_hash "
            "and preimage; queries with your key are then debited from that balance.")
    return text + (f" Or, without registering, {l402}." if l402 else "")


def cap_reached(exc: SpendingCapReached, data_source: str, simulated: bool) -> APIError:
    """A 402 that no payment of the balance's can answer: the owner's daily cap, until it resets (or is raised)."""
    reached, item = exc.reached, exc.item
    meta = {**uncharged_meta(data_source, simulated, item.price_sats, exc.request_id), "free_queries_left": 0}
    return APIError(402, "daily_cap_reached",
                    f"Your owner capped this agent's spending at {reached.cap_sats} sats a day (UTC); "
                    f"{reached.spent_sats} are spent today and the {item.title} costs {item.price_sats}. Nothing "
                    f"was charged. The cap resets at {reached.resets_at.isoformat()}; the owner can raise it in "
                    "the console (/console/limits).", {}, meta, item=item.key, price_sats=item.price_sats,
                    daily_cap_sats=reached.cap_sats, spent_today_sats=reached.spent_sats,
                    resets_at=reached.resets_at.isoformat())


def l402_rejected(exc: L402Rejected, data_source: str, simulated: bool) -> APIError:
    item = exc.item
    meta = uncharged_meta(data_source, simulated, item.price_sats, exc.request_id)
    headers, ways = per_request(exc.challenge, mpp_too=item.kind != "pass")
    return APIError(402, exc.code, f"{exc.message} Nothing was charged. A new challenge for '{item.key}' "
                    f"({item.price_sats} sats) is in WWW-Authenticate.", headers, meta,
                    item=item.key, price_sats=item.price_sats, invoice=exc.invoice, topup=TOPUP, **ways)


def max_cost_exceeded(exc: MaxCostExceeded, data_source: str, simulated: bool) -> APIError:
    """A 402 the caller asked for: the price would take the request past its X-Max-Cost-Sats."""
    item, ceiling = exc.item, exc.max_cost
    meta = uncharged_meta(data_source, simulated, item.price_sats, exc.request_id)
    return APIError(402, "max_cost_exceeded",
                    f"The {item.title} costs {item.price_sats} sats; with the {ceiling.charged_sats} sats this request "
                    f"was already charged that passes the {ceiling.limit_sats} sats X-Max-Cost-Sats allows. Nothing "
                    "was charged for it; send a higher maximum to pay it.", {}, meta, item=item.key,
                    price_sats=item.price_sats, max_cost_sats=ceiling.limit_sats,
                    charged_in_request_sats=ceiling.charged_sats)
