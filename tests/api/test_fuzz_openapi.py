"""Schemathesis over the served /openapi.json: every documented operation, fuzzed with valid and invalid inputs against
the real app (embedded Redis, a migrated SQLite and then PostgreSQL ledger, the dev Lightning node, module payloads
computed on simulated data and published). On PostgreSQL only the operations that write what the caller sent (every
method but GET) are fuzzed: what PostgreSQL refuses and SQLite stores comes in through them, and a GET's charge
writes only what the route itself decides (tests/e2e/test_paid_load.py charges on PostgreSQL under load). Each case
is sent twice, anonymously and with a funded premium key, and every response must be no 5xx, a documented status with
the documented content type, and match its documented schema.

The cases come from each operation's Hypothesis strategy rather than `@schema.parametrize()`: schemathesis 4.32's
pytest plugin reads `request.node._nodeid`, which pytest 9 no longer has. Failures are gathered over every operation
and reported together, so one run names all that is wrong."""
from __future__ import annotations

import os
import time

import pytest
import redis
import schemathesis
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.core.failures import Failure, FailureGroup
from schemathesis.openapi.checks import RejectedPositiveData
from schemathesis.python import asgi

from assets.predictions import build_products
from intel.hash_chain import GENESIS
from intel.predictions.published import chained, in_chain_order
from marketintel.signing import load_or_create
from tests.api.agent_helpers import auth, fund, register, set_tier
from tests.api.test_foresight_routes import AS_OF, backtest, parallels_payload  # noqa: F401 (fixtures)
from tests.api.test_regime_route import regime_payload  # noqa: F401 (a fixture)
from tests.api.test_trading_signals_route import signals_payload  # noqa: F401 (a fixture)
from warehouse.cache import ServingCache
from warehouse.ledger.db import make_engine
from warehouse.ledger.records import Records, prediction_chain

# per operation and generation mode; FUZZ_EXAMPLES=200 digs deeper by hand. 10 since the auth checks run (each keyed
# case is sent again without its key and with a wrong one): the suite's fuzzing costs what 15 cost without them
EXAMPLES_PER_OPERATION = int(os.environ.get("FUZZ_EXAMPLES", "10"))
STREAMS = {"/api/v1/events/stream"}  # never ends; tests/api/test_event_stream.py holds it to its promises
# A valid request may still need payment: 402 is an acceptance of the request, not a refusal of its data
CONFIG = schemathesis.Config.from_dict({"checks": {"positive_data_acceptance": {
    "expected-statuses": ["2xx", "401", "402", "403", "404", "409", "429"]}}})
# `make test` draws the same cases every run (a failure there is a change in the code, not luck); a run by hand
# with FUZZ_EXAMPLES draws fresh ones each time
FUZZ = hypothesis_settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, database=None,
                           derandomize="FUZZ_EXAMPLES" not in os.environ,
                           phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))


@pytest.fixture
def settings(settings, monkeypatch):
    """Synthesis answers 202 at once (no worker runs here), rather than each ask holding its 25-55 s window."""
    for window in ("ask_window_quick_s", "ask_window_standard_s", "ask_window_deep_s", "content_window_s"):
        monkeypatch.setattr(settings, window, 0.0)
    return settings


@pytest.fixture
def every_product_published(client, settings, services, request, analyst_copy):
    """Besides the modules and the pulse (`client`) and the warehouse copy `as_of` reads, the products: the
    prediction record (the back-test's chain, signed), parallels, the regime and the trading signals, so their
    routes answer from data, not 503. The payloads are the module-scoped fixtures of those routes' own tests."""
    run = request.getfixturevalue("backtest")
    records = Records(make_engine(settings.sqlalchemy_url))
    chain = prediction_chain("backtest")
    entries = chained(in_chain_order(run.predictions, run.resolutions), GENESIS)
    records.append_entries(chain, entries)
    records.sign_heads(chain, entries[-1][2], load_or_create(settings.home))
    products, _ = build_products(records, [], {}, AS_OF, services.clock.now())
    extra = [(name, request.getfixturevalue(fixture)) for name, fixture in (
        ("parallels", "parallels_payload"), ("regime", "regime_payload"), ("trading_signals", "signals_payload"))]
    ServingCache(redis.Redis.from_url(settings.effective_redis_url)).publish_products(
        [(name, payload, "sim") for name, payload in [*products.items(), *extra]], True, time.time())
    return client


@pytest.fixture
def premium_key(client, services) -> str:
    key, agent = register(client, "fuzzer")
    set_tier(services, agent["agent_id"], "premium")
    fund(client, key, 100_000)
    return key


def refused_on_purpose(case, response) -> bool:
    """A 422 to a schema-valid request that the route means and JSON Schema cannot say, every error in it being
    one of: an integral float (`10.0`) for an integer, since amounts, counts and seconds are strict integers
    (api/money_schemas.py) and JSON Schema counts 10.0 an integer; a referral code no agent was given, since
    which codes exist is the ledger's state, not a pattern; an `as_of` after the market clock (which moves) or
    for a ticker module."""
    errors = response.json().get("detail", []) if response.status_code == 422 else []
    return bool(errors) and all(_meant(case.body, error) for error in errors)


def _meant(body, error: dict) -> bool:
    location = error["loc"]
    if location[-1] == "as_of":  # after the market clock, or a ticker module: no schema can say either
        return "after the market clock" in error["msg"] or "as_of is offered" in error["msg"]
    if error["type"] == "int_type" and location[0] == "body":
        value = body
        for step in location[1:]:
            value = value[step] if isinstance(value, (dict, list)) else None
        return isinstance(value, float) and value.is_integer()
    return location == ["body", "referral_code"] and error["msg"] == "unknown referral code"


def fuzz_operation(operation, mode: GenerationMode, callers: list[dict], found: dict[str, str]) -> int:
    """Send the operation's generated cases as each caller; `found` keeps one example of each kind of failure."""
    sent = 0

    @FUZZ
    @given(case=operation.as_strategy(generation_mode=mode))
    def run(case):
        nonlocal sent
        for headers in callers:
            sent += 1
            response = case.call(headers=headers)
            try:
                case.validate_response(response, headers=headers)
            except (Failure, FailureGroup) as failed:
                who = "keyed" if headers else "anonymous"
                sent_what = f"path {case.path_parameters} query {case.query} body {case.body!r}"[:300]
                for one in getattr(failed, "exceptions", (failed,)):
                    if isinstance(one, RejectedPositiveData) and refused_on_purpose(case, response):
                        continue
                    kind = f"{operation.label} {who}: {one.title}, got {response.status_code}"
                    found.setdefault(kind, f"{one.message[:200]}\n    sent {sent_what}\n    got {response.text[:200]}")

    try:
        run()
    except Unsatisfiable:  # nothing to make invalid: an operation without parameters or body has no negative case
        assert mode is GenerationMode.NEGATIVE and sent == 0, operation.label
    return sent


@pytest.fixture
def served_app(app):
    """The app as schemathesis serves it: its ASGI lifespan, which schemathesis otherwise keeps running until the
    process exits (past this test's Redis and ledger), ends with the test."""
    yield app
    asgi.shutdown_lifespans()


@pytest.mark.parametrize("ledger", ["sqlite", "postgresql"], indirect=True)  # PostgreSQL refuses what SQLite stores
def test_every_operation_keeps_its_documented_promises(every_product_published, served_app, premium_key, ledger):
    schema = schemathesis.openapi.from_asgi("/openapi.json", served_app, config=CONFIG)
    operations = [result.ok() for result in schema.get_all_operations()]
    began, sent, found = time.monotonic(), 0, {}
    for operation in operations:
        if operation.path in STREAMS or (ledger == "postgresql" and operation.method.upper() == "GET"):
            continue
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            sent += fuzz_operation(operation, mode, [{}, auth(premium_key)], found)
    print(f"\nschemathesis ({ledger}): {len(operations)} operations ({len(STREAMS)} stream skipped, on PostgreSQL "
          f"the GETs too), {sent} requests, "
          f"{len(found)} kinds of failure in {time.monotonic() - began:.0f} s")
    assert not found, "\n".join(f"{kind}\n    {example}" for kind, example in sorted(found.items()))
