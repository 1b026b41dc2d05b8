"""Paying MCP tool calls as REST is paid, from the call's own `_meta`: a payment-required result carries the L402 and
MPP challenges in `structuredContent`; the MPP credential object (as the MPP transport draft for MCP carries it) or
an L402 `authorization` pays the retry, once, with the receipt in the result's `_meta`; `max_cost_sats` bounds what
a call is charged; tools/list says each tool's price before it is called."""
from __future__ import annotations

import base64
import json

from api.mcp.server import PRICE_META
from tests.api.test_l402 import pay
from tests.api.test_mcp_endpoint import asgi, rpc, run  # noqa: F401 (a fixture)

TOOL = "market_intelligence"  # a tool every tier is listed


def call(conductor, meta: dict | None = None):
    return rpc(conductor, "tools/call", {"name": TOOL, "arguments": {}, **({"_meta": meta} if meta else {})})


def mpp_credential(challenge: dict, preimage: str) -> dict:
    """As the MPP transport draft for MCP sends it: the challenge with its `request` as the JSON object."""
    request = json.loads(base64.urlsafe_b64decode(challenge["request"] + "=" * (-len(challenge["request"]) % 4)))
    return {"challenge": {**challenge, "request": request}, "payload": {"preimage": preimage}}


def test_a_payment_required_result_is_paid_from_meta_once_with_a_receipt(asgi):  # noqa: F811
    async def scenario(conductor):
        await call(conductor)  # the address's free query of the tool
        required = (await call(conductor)).json["result"]
        error = required["structuredContent"]["error"]
        preimage = pay(error["l402"]["invoice"])
        credential = {"org.paymentauth/credential": mpp_credential(error["mpp"]["challenge"], preimage)}
        paid = (await call(conductor, credential)).json["result"]
        replayed = (await call(conductor, credential)).json["result"]
        return required, error, paid, replayed

    required, error, paid, replayed = run(asgi, scenario)
    assert required["isError"] and required["structuredContent"]["status"] == 402
    assert error["mpp"]["challenge"]["method"] == "lightning" and error["l402"]["macaroon"]
    assert "Payment id=" in error["www_authenticate"]
    assert not paid["isError"] and paid["structuredContent"]["_meta"]["paid_with"] == "mpp"
    receipt = paid["_meta"]["org.paymentauth/receipt"]
    assert receipt["reference"] == error["l402"]["payment_hash"] and receipt["status"] == "success"
    assert replayed["isError"] and replayed["structuredContent"]["error"]["code"] == "mpp_credential_spent"
    assert replayed["structuredContent"]["error"]["mpp"]["challenge"]["id"] != error["mpp"]["challenge"]["id"]


def test_an_l402_authorization_in_meta_pays_and_max_cost_bounds_the_call(asgi):  # noqa: F811
    async def scenario(conductor):
        await call(conductor)
        error = (await call(conductor)).json["result"]["structuredContent"]["error"]
        authorization = f"L402 {error['l402']['macaroon']}:{pay(error['l402']['invoice'])}"
        capped = (await call(conductor, {"authorization": authorization, "max_cost_sats": 1})).json["result"]
        paid = (await call(conductor, {"authorization": authorization})).json["result"]
        wrong = (await call(conductor, {"max_cost_sats": "lots"})).json["result"]
        malformed = (await call(conductor, {"authorization": "L402 nonsense"})).json["result"]
        return error, capped, paid, wrong, malformed

    error, capped, paid, wrong, malformed = run(asgi, scenario)
    assert capped["isError"] and capped["structuredContent"]["error"]["code"] == "max_cost_exceeded"
    assert capped["structuredContent"]["error"]["price_sats"] == error["price_sats"]
    assert not paid["isError"] and paid["structuredContent"]["_meta"]["paid_with"] == "l402"  # not spent by the cap
    assert "_meta" not in paid  # no MPP receipt for an L402 payment
    assert wrong["structuredContent"]["status"] == 422
    assert malformed["structuredContent"]["status"] == 401 and malformed["structuredContent"]["error"]["code"] == (
        "l402_malformed")


def test_tools_list_says_each_price_before_a_call(asgi):  # noqa: F811
    async def scenario(conductor):
        return (await rpc(conductor, "tools/list")).json["result"]["tools"]

    tools = {t["name"]: t for t in run(asgi, scenario)}
    assert tools[TOOL]["_meta"][PRICE_META]["price_sats"] > 0
    assert tools["get_pulse"]["_meta"][PRICE_META] == {"price_sats": 0, "currency": "sat", "min_tier": "free",
                                                         "pricing": "/api/v1/pricing"}
