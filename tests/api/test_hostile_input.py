"""Hostile text at the edge, on both ledgers: every text a request stores or forwards (to the ledger, Redis, an LLM
prompt, a Lightning memo or a webhook) is refused with a 422 naming its field when it holds NUL, another C0
control, DEL or a C1 control, a lone surrogate (raw JSON `\\ud800`), or is longer than its documented maximum;
never a 500 (PostgreSQL refuses NUL where SQLite stored it). Nothing is written by a refused request. Ordinary
Unicode (accents, CJK, emoji) is accepted and comes back as sent."""
from __future__ import annotations

import json

import pytest
from pydantic import BaseModel
from schemathesis.core.jsonschema.patterns import enforced_pattern
from sqlalchemy import func, select

from api import money_schemas, schemas
from api.resources.daytrade import ACCEPT_PATH
from api.text_fields import LINE_PATTERN, TEXT_PATTERN
from tests.api.agent_helpers import auth, register
from warehouse.ledger.tables import metadata

BOTH_LEDGERS = pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True)
PUBLIC_URL = "https://93.184.215.14/hook"  # a public address literal: never contacted here
HOSTILE = {"NUL": "nul \x00 here", "C0": "bell \x07 here", "DEL": "del \x7f here", "C1": "nel \x85 here"}
HOSTILE_IN_TEXT = {**HOSTILE, "vertical tab": "vt \x0b here"}  # tab and line breaks are allowed in safe_text
LONE_SURROGATE_JSON = '"bad \\ud800 here"'  # JSON text: the escape arrives as an unpaired surrogate
MARK = "__hostile__"
UNICODE = "Zoë · 東京 · 😀"

VIX_ALERT = {"name": "vix stress", "conditions": [{"field": "vix", "operator": ">", "value": 30}]}
STATE_ALERT = {"name": "crisis", "conditions": [{"field": "regime_state", "operator": "==", "value": "crisis"}]}

# (route, a valid body, the field's path inside it, its documented max_length, whether the caller needs a key)
BODY_FIELDS = [
    ("/api/v1/agents/register", {"name": "a"}, ["name"], 100, False),
    ("/api/v1/agents/register", {"name": "a", "referral_code": "abcd"}, ["referral_code"], 64, False),
    ("/api/v1/payments/create-invoice", {"amount_sats": 100, "memo": "m"}, ["memo"], 200, True),
    ("/api/v1/alerts/subscribe", VIX_ALERT, ["name"], 100, True),
    ("/api/v1/alerts/subscribe", {**VIX_ALERT, "callback_url": PUBLIC_URL}, ["callback_url"], 2000, True),
    ("/api/v1/alerts/subscribe", VIX_ALERT, ["conditions", 0, "field"], 60, True),
    ("/api/v1/alerts/subscribe", VIX_ALERT, ["conditions", 0, "operator"], 20, True),
    ("/api/v1/alerts/subscribe", STATE_ALERT, ["conditions", 0, "value"], 60, True),
    ("/api/v1/webhooks/subscribe", {"event_type": "market.vix_spike", "callback_url": PUBLIC_URL}, ["event_type"],
     60, True),
    ("/api/v1/webhooks/subscribe", {"event_type": "market.vix_spike", "callback_url": PUBLIC_URL}, ["callback_url"],
     2000, True),
    ("/api/v1/alert-packages/volatility_shock/subscribe",
     {"delivery_channels": ["webhook"], "callback_url": PUBLIC_URL}, ["callback_url"], 2000, True),
    ("/api/v1/alert-packages/volatility_shock/subscribe",
     {"delivery_channels": ["chat"], "chat_webhook_url": PUBLIC_URL}, ["chat_webhook_url"], 2000, True),
    ("/api/v1/intelligence/ask/async", {"question": "q", "depth": "quick"}, ["question"], 2000, True),
    ("/api/v1/content/generate/async", {"content_type": "daily_newsletter", "topic": "t"}, ["topic"], 200, True),
    ("/api/v1/content/generate/async", {"content_type": "daily_newsletter"}, ["content_type"], 64, True),
    (ACCEPT_PATH, {"version": "v"}, ["version"], 40, True),
]
# (method, route, a valid query, the parameter, its documented max_length)
QUERY_FIELDS = [
    ("GET", "/api/v1/intelligence/unified", {}, "topic", 200),
    ("DELETE", "/api/v1/webhooks/unsubscribe", {}, "subscription_id", 40),
    ("GET", "/api/v1/events/stream", {}, "types", 1000),
    ("GET", "/api/v1/events/stream", {}, "last_event_id", 40),
]


def body_field_id(case) -> str:
    return f"{case[0].rsplit('/', 2)[-2]}/{case[0].rsplit('/', 1)[-1]}:{'.'.join(map(str, case[2]))}"


def query_field_id(case) -> str:
    return f"{case[1].rsplit('/', 1)[-1]}:{case[3]}"


def placed(body: dict, path: list, value):
    """A deep copy of `body` with `value` at `path`."""
    copy = json.loads(json.dumps(body))
    target = copy
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return copy


def row_counts(services) -> dict[str, int]:
    """Rows in every ledger table: a refused request changes none of them (no agent, no invoice, no charge)."""
    with services.engine.connect() as conn:
        return {t.name: conn.execute(select(func.count()).select_from(t)).scalar_one() for t in metadata.sorted_tables}


def refused_field(resp) -> list:
    assert resp.status_code == 422, resp.text
    assert set(resp.json) == {"detail"} and all(set(d) == {"loc", "msg", "type"} for d in resp.json["detail"])
    return resp.json["detail"][0]["loc"]


def refused_as(resp, loc: list, type_: str) -> bool:
    """A 422 in the standard shape, every entry in the field at `loc` (a value that may be a number or a text has
    an entry per alternative, its loc ending in the alternative's name), one of them of type `type_`."""
    refused_field(resp)
    detail = resp.json["detail"]
    return all(d["loc"][:len(loc)] == loc for d in detail) and any(d["type"] == type_ for d in detail)


@BOTH_LEDGERS
@pytest.mark.parametrize("case", BODY_FIELDS, ids=body_field_id)
def test_hostile_text_in_a_body_field_is_422_naming_it_and_writes_nothing(client, services, case):
    route, body, path, max_length, keyed = case
    headers = auth(register(client)[0]) if keyed else {}
    before = row_counts(services)
    hostile = HOSTILE_IN_TEXT if path == ["question"] else HOSTILE
    for what, value in {**hostile, "too long": "x" * (max_length + 1)}.items():
        resp = client.simulate_post(route, json=placed(body, path, value), headers=headers)
        expected = "string_too_long" if what == "too long" else "string_control_character"
        assert refused_as(resp, ["body", *path], expected), (what, resp.text)
    raw = json.dumps(placed(body, path, MARK)).replace(f'"{MARK}"', LONE_SURROGATE_JSON)
    resp = client.simulate_post(route, body=raw.encode(), headers={**headers, "Content-Type": "application/json"})
    assert refused_as(resp, ["body", *path], "string_unicode"), resp.text
    assert row_counts(services) == before


@BOTH_LEDGERS
@pytest.mark.parametrize("case", QUERY_FIELDS, ids=query_field_id)
def test_hostile_text_in_a_query_parameter_is_422_naming_it(client, services, case):
    method, route, query, name, max_length = case
    headers = auth(register(client)[0])
    before = row_counts(services)
    for what, value in {**HOSTILE, "too long": "x" * (max_length + 1)}.items():
        resp = client.simulate_request(method, route, params={**query, name: value}, headers=headers)
        assert refused_field(resp) == ["query", name], (what, resp.text)
    assert row_counts(services) == before


@BOTH_LEDGERS
def test_a_key_or_idempotency_key_with_a_control_character_is_refused_before_any_lookup(client, services):
    key, _ = register(client)
    before = row_counts(services)
    for value in (*HOSTILE.values(), f"{key[:6]}\n{key[6:]}"):
        resp = client.simulate_get("/api/v1/agents/me", headers={"X-API-Key": value})
        assert resp.status_code == 401 and resp.json["error"]["code"] == "malformed_api_key", resp.text
        resp = client.simulate_get("/api/v1/agents/me", headers={"Authorization": f"Bearer {value}"})
        assert resp.status_code == 401 and resp.json["error"]["code"] == "malformed_api_key", resp.text
        public = client.simulate_get("/api/v1/pulse", headers={"X-API-Key": value})
        assert public.status_code == 200 and public.headers["X-Credentials-Ignored"] == "malformed_api_key"
        resp = client.simulate_post("/api/v1/intelligence/ask/async", json={"question": "q", "depth": "quick"},
                                    headers={**auth(key), "Idempotency-Key": f"k-{value}"})
        assert refused_field(resp) == ["header", "Idempotency-Key"], resp.text
    assert row_counts(services) == before


@BOTH_LEDGERS
def test_an_alert_id_with_nul_in_the_path_is_404_not_500(client):
    key, _ = register(client)
    for alert_id in ("al_%00x", "al_%07x", "al_%C2%85x"):
        resp = client.simulate_delete(f"/api/v1/alerts/{alert_id}", headers=auth(key))
        assert resp.status_code == 404 and resp.json["error"]["code"] == "unknown_alert", resp.text


@BOTH_LEDGERS
def test_unicode_text_is_accepted_and_comes_back_as_sent(client):
    key, agent = register(client, f"agent {UNICODE}")
    assert agent["name"] == f"agent {UNICODE}"
    assert client.simulate_get("/api/v1/agents/me", headers=auth(key)).json["name"] == f"agent {UNICODE}"
    made = client.simulate_post("/api/v1/alerts/subscribe", json={**VIX_ALERT, "name": UNICODE}, headers=auth(key))
    assert made.status_code == 200, made.text
    assert client.simulate_get("/api/v1/alerts", headers=auth(key)).json["alerts"][0]["name"] == UNICODE
    invoice = client.simulate_post("/api/v1/payments/create-invoice", headers=auth(key),
                                   json={"amount_sats": 100, "memo": UNICODE})
    assert invoice.status_code == 200, invoice.text
    # multi-line text: tab and line breaks pass validation (the unfunded ask then asks for payment)
    asked = client.simulate_post("/api/v1/intelligence/ask/async", headers=auth(key),
                                 json={"question": f"Où va le marché ?\n\t{UNICODE}\r\n", "depth": "quick"})
    assert asked.status_code == 402, asked.text


def request_models() -> list[type[BaseModel]]:
    found = [m for module in (schemas, money_schemas) for m in vars(module).values()
             if isinstance(m, type) and issubclass(m, BaseModel) and m is not BaseModel]
    return sorted(set(found), key=lambda m: m.__name__)


def string_schemas(schema: dict, where: str):
    """(where, schema) of every string schema inside a model's JSON Schema."""
    if schema.get("type") == "string" and "enum" not in schema and "const" not in schema:
        yield where, schema
    for key, value in schema.items():
        if isinstance(value, dict):
            yield from string_schemas(value, f"{where}.{key}")
        elif isinstance(value, list):
            for n, item in enumerate(value):
                if isinstance(item, dict):
                    yield from string_schemas(item, f"{where}.{key}[{n}]")


@pytest.mark.parametrize("model", request_models(), ids=lambda m: m.__name__)
def test_every_string_a_request_model_takes_has_a_documented_maximum_and_pattern(model):
    """The OpenAPI document (and the fuzz reading it) says what is accepted: a maxLength, and a pattern that
    excludes control characters (safe_line/safe_text) or a narrower one of the field's own. The fuzz drops a
    pattern its validator cannot compile (and then sends anything as valid data): each one here compiles."""
    for where, schema in string_schemas(model.model_json_schema(), model.__name__):
        if where.endswith(("if.properties.module", "then.properties.ticker", "then.properties.tier",
                           "if.properties.content_type")):
            continue  # the conditional parts of a schema name fields declared (and checked) above
        assert "pattern" in schema, where
        assert enforced_pattern(schema["pattern"]) is not None, (where, schema["pattern"])
        assert "maxLength" in schema or "{" in schema["pattern"], where
        if schema["pattern"] in (LINE_PATTERN, TEXT_PATTERN):
            assert "maxLength" in schema, where
