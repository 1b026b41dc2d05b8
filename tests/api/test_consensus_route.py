"""GET /api/v1/intelligence/consensus on real parts: agents query modules through the API, their usage events
go through the Redis queue into the SQLite ledger, and the consensus reads them back aggregated only."""
from __future__ import annotations

from charging.attempt import address_caller
from intel.consensus import MIN_CALLERS_FLOOR
from tests.api.agent_helpers import auth, register

URL = "/api/v1/intelligence/consensus"
SIGNALS = {"risk_on", "risk_off", "bullish", "bearish", "neutral", "uncertain"}


def _query(client, key: str, module: str, fmt: str = "full") -> None:
    resp = client.simulate_get(f"/api/v1/intelligence/{module}", headers=auth(key), params={"format": fmt})
    assert resp.status_code == 200, resp.text


def _topics(body: dict) -> set[str]:
    return {t["name"] for t in body["trending_topics"]}


def test_a_module_queried_by_two_agents_is_not_shown_and_by_three_it_is(client, settings):
    assert settings.consensus_min_agents == MIN_CALLERS_FLOOR == 3
    agents = [register(client, f"agent-{i}") for i in range(3)]
    for key, _ in agents[:2]:
        _query(client, key, "vix", "compact")
        _query(client, key, "credit_spreads")  # one free query a day each: the module is the topic
    reader, reader_agent = register(client, "reader")
    before = client.simulate_get(URL, headers=auth(reader), params={"hours": 6})
    assert before.status_code == 200, before.text
    body = before.json
    assert "vix" not in before.text and "credit_spreads" not in before.text
    assert body["consensus"]["signal"] == "uncertain" and body["consensus"]["modules"] == []
    assert body["totals"]["current"] == {"queries": None, "agents": None}  # two agents: withheld too
    assert body["query_patterns"] == {"by_hour_utc": [], "by_format": [], "by_category": []}
    assert body["window"]["hours"] == 6 and body["min_agents"] == 3
    assert body["_meta"]["paid_with"] == "free_allowance" and body["_meta"]["price_sats"] == 250

    _query(client, agents[2][0], "vix", "compact")
    key, _ = register(client, "second-reader")
    after = client.simulate_get(URL, headers=auth(key))
    assert after.status_code == 200, after.text
    body = after.json
    vix = next(t for t in body["trending_topics"] if t["name"] == "vix")
    assert (vix["kind"], vix["category"], vix["queries"], vix["agents"], vix["previous_share"]) == (
        "module", "volatility", 3, 3, 0.0)
    assert "credit_spreads" not in after.text  # still two agents
    assert "volatility" in _topics(body)
    # 3 vix + 2 credit_spreads + the first reader's consensus query: all queries count in the shares
    assert body["totals"]["current"] == {"queries": 6, "agents": 4} and vix["share"] == 0.5
    assert body["query_patterns"]["by_format"] == [{"format": "compact", "queries": 3, "share": 0.5, "agents": 3}]
    signal = body["consensus"]
    assert signal["signal"] in SIGNALS and signal["derivation"].startswith(signal["signal"])
    assert [m["module"] for m in signal["modules"]] == ["vix"] and signal["modules"][0]["attention_weight"] == 1.0
    published = client.simulate_get("/api/v1/intelligence/vix", headers=auth(reader)).json  # reader's free vix
    assert signal["modules"][0]["as_of"] == published["as_of"]


def test_the_answer_names_no_agent_key_or_address(client):
    agents = [register(client, f"private-{i}") for i in range(3)]
    for key, _ in agents:
        _query(client, key, "vix")
    addresses = ["10.9.8.7", "10.9.8.6", "10.9.8.5"]
    for address in addresses:  # callers without a key count by hashed address
        assert client.simulate_get("/api/v1/intelligence/vix", remote_addr=address).status_code == 200
    resp = client.simulate_get(URL, headers=auth(agents[0][0]))
    assert resp.status_code == 200, resp.text
    assert resp.json["totals"]["current"] == {"queries": 6, "agents": 6}
    secrets = [key for key, _ in agents] + [agent["agent_id"] for _, agent in agents]
    secrets += [f"a:{agent['agent_id']}" for _, agent in agents] + addresses + [address_caller(a) for a in addresses]
    secrets += [address_caller(a).partition(":")[2] for a in addresses]
    assert not [s for s in secrets if s in resp.text]


def test_consensus_is_charged_by_the_price_list(client):
    key, _ = register(client, "payer")
    first = client.simulate_get(URL, headers=auth(key))
    assert first.status_code == 200 and first.json["_meta"]["charged_sats"] == 0
    again = client.simulate_get(URL, headers=auth(key))
    assert again.status_code == 402 and again.json["error"]["item"] == "product:consensus"
    pricing = client.simulate_get("/api/v1/pricing").text
    assert "product:consensus" in pricing
