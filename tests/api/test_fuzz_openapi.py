"""Schemathesis over the served /openapi.json: every documented operation, fuzzed with valid and invalid inputs
against the real app (embedded Redis, a migrated SQLite ledger, the dev Lightning node, module payloads computed
on simulated data and published). Each case is sent twice, anonymously and with a funded premium key, and every
response must be no 5xx, a documented status with the documented content type, and match its documented schema.

The cases come from each operation's Hypothesis strategy rather than `@schema.parametrize()`: schemathesis 4.32's
pytest plugin reads `request.node._nodeid`, which pytest 9 no longer has. Failures are gathered over every
operation and reported together, so one run names all that is wrong."""
from __future__ import annotations

import time

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, given
from hypothesis import settings as hypothesis_settings
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.core.failures import Failure, FailureGroup

from tests.api.agent_helpers import auth, fund, register, set_tier

EXAMPLES_PER_OPERATION = 6  # per generation mode; 64 operations, two callers: about a minute here
STREAMS = {"/api/v1/events/stream"}  # never ends; tests/api/test_event_stream.py holds it to its promises
FUZZ = hypothesis_settings(max_examples=EXAMPLES_PER_OPERATION, deadline=None, database=None,
                           phases=[Phase.explicit, Phase.generate], suppress_health_check=list(HealthCheck))


@pytest.fixture
def settings(settings, monkeypatch):
    """Synthesis answers 202 at once (no worker runs here), rather than each ask holding its 25-55 s window."""
    for window in ("ask_window_quick_s", "ask_window_standard_s", "ask_window_deep_s", "content_window_s"):
        monkeypatch.setattr(settings, window, 0.0)
    return settings


@pytest.fixture
def premium_key(client, services) -> str:
    key, agent = register(client, "fuzzer")
    set_tier(services, agent["agent_id"], "premium")
    fund(client, key, 100_000)
    return key


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
                    kind = f"{operation.label} {who}: {one.title}, got {response.status_code}"
                    found.setdefault(kind, f"{one.message[:200]}\n    sent {sent_what}\n    got {response.text[:200]}")

    try:
        run()
    except Unsatisfiable:  # nothing to make invalid: an operation without parameters or body has no negative case
        assert mode is GenerationMode.NEGATIVE and sent == 0, operation.label
    return sent


def test_every_operation_keeps_its_documented_promises(client, app, premium_key):
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    began, sent, found = time.monotonic(), 0, {}
    for operation in operations:
        if operation.path in STREAMS:
            continue
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):
            sent += fuzz_operation(operation, mode, [{}, auth(premium_key)], found)
    print(f"\nschemathesis: {len(operations)} operations ({len(STREAMS)} stream skipped), {sent} requests, "
          f"{len(found)} kinds of failure in {time.monotonic() - began:.0f} s")
    assert not found, "\n".join(f"{kind}\n    {example}" for kind, example in sorted(found.items()))
