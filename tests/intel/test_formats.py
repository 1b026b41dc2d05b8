import sys
from datetime import UTC, datetime
from pathlib import Path

import orjson
import pytest

sys.path.insert(0, str(Path(__file__).parent / "modules"))
from builders import make_frames, market  # noqa: E402

from intel.formats import DELTA_BASES, flatten, prompt_text, render  # noqa: E402
from intel.modules import credit_spreads, market_intelligence  # noqa: E402
from intel.pulse import compute_pulse  # noqa: E402

NOW = datetime(2024, 7, 3, 12, tzinfo=UTC)


@pytest.fixture(scope="module")
def payload():
    return credit_spreads.compute(make_frames(market("calm")))


def test_full_is_the_payload_and_prompt_is_optional(payload):
    assert render(payload, "full") == payload
    with_prompt = render(payload, "full", include_prompt=True)
    assert with_prompt["prompt"] == prompt_text(payload) and "prompt" not in payload


def test_compact_is_flat(payload):
    out = render(payload, "compact")
    assert out["module"] == "credit_spreads" and out["as_of"] == payload["as_of"]
    assert out["high_yield.oas_bp"] == payload["data"]["high_yield"]["oas_bp"]
    assert out["signal_direction"] == payload["signals"][0]["direction"]
    assert not any(isinstance(v, (dict, list)) and v for v in out.values())


def test_prompt_carries_the_same_figures(payload):
    out = render(payload, "prompt")
    assert set(out) == {"module", "as_of", "data_as_of", "prompt"}
    for key, value in flatten(payload["data"]).items():
        if isinstance(value, float):
            assert f"{key}: {value}" in out["prompt"]
    assert payload["summary"] in out["prompt"]


def test_agent_deltas_context_and_actions(payload):
    first = render(payload, "agent", now=NOW)
    assert first["deltas"] == {"first_query": True, "since": DELTA_BASES["agent"]}
    assert {k: first[k] for k in payload} == payload  # the full payload, with the agent's additions beside it
    anonymous = render(payload, "agent", now=NOW, deltas_for="client_address")
    assert anonymous["deltas"]["since"] == DELTA_BASES["client_address"]
    previous = orjson.loads(orjson.dumps(payload["data"]))
    previous["high_yield"]["oas_bp"] -= 25
    out = render(payload, "agent", previous=previous, now=NOW)
    change = out["deltas"]["changed"]["high_yield.oas_bp"]
    assert change["new"] - change["old"] == change["change"] == 25
    assert out["deltas"]["unchanged_count"] > 0
    ctx = out["temporal_context"]
    assert ctx["data_age_days"]["BAMLH0A0HYM2"] == 5  # last observation Friday 2024-06-28
    assert ctx["next_expected_update"]["BAMLH0A0HYM2"] == "overdue since 2024-07-01"
    assert out["follow_up_actions"][0]["path"] == f"/api/v1/intelligence/{payload['related_modules'][0]['name']}"
    assert "prompt" in render(payload, "agent", include_prompt=True, now=NOW)


def test_every_format_serializes():
    big = market_intelligence.compute(make_frames(market("crisis")))
    pulse = compute_pulse(make_frames(market("calm")), [("market_regime", 250)])
    for p in (big, pulse):
        for fmt in ("full", "compact", "prompt", "agent"):
            orjson.dumps(render(p, fmt, include_prompt=True, previous=p.get("data"), now=NOW))
    with pytest.raises(ValueError):
        render(big, "xml")


def test_agent_format_names_upcoming_calendar_events():
    from intel.econ_calendar import upcoming

    payload = {"module": "labor_market", "as_of": "2026-11-20", "signals": [], "data": {"x": 1.0},
               "data_sources": {"series": [{"id": "ICSA", "last_observation": "2026-11-14", "cadence": "weekly"}]}}
    now = datetime(2026, 11, 22, 12, tzinfo=UTC)
    events = render(payload, "agent", now=now)["temporal_context"]["upcoming_events"]
    claims = [e for e in events if e["why"] == "releases an input of this module"]
    # initial claims come out every Thursday: 26 Nov and 3 Dec fall within the two weeks
    assert [e["date"] for e in claims] == [e["date"] for e in upcoming(now.date(), 14, ["ICSA"])]
    assert len(claims) >= 2 and all(e["days_until"] >= 0 for e in events)
    others = [e for e in events if e not in claims]
    assert all(e["importance"] == "high" and e["days_until"] <= 7 for e in others)
