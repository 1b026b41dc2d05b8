"""Agent consensus from usage tallies: only topics seen from enough distinct agents, shares against the previous
window, and a signal from the attended modules' published signals weighted by attention."""
from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from intel.consensus import Attention, Tally, consensus, module_stance, topic_categories, visible

END = datetime(2026, 11, 20, 12, tzinfo=UTC)
CATEGORIES = {"vix": "volatility", "market_regime": "regime", "bitcoin": "crypto", "inflation": "macro"}


def _attention(topics: dict[tuple[str, str], Tally], hours=None, formats=None) -> Attention:
    categories: dict[tuple[str, str], Tally] = {}
    totals: dict[str, Tally] = {}
    for (window, name), t in topics.items():  # callers overlap nowhere here: the sums are exact
        key = (window, CATEGORIES.get(name, "item:ask"))
        old = categories.get(key, Tally(0, 0))
        categories[key] = Tally(old.queries + t.queries, old.callers + t.callers)
        old = totals.get(window, Tally(0, 0))
        totals[window] = Tally(old.queries + t.queries, old.callers + t.callers)
    return Attention(END - timedelta(hours=48), END - timedelta(hours=24), END, totals, topics, categories,
                     hours or {}, formats or {})


def _payload(*directions: tuple[str, float]) -> dict:
    return {"as_of": "2026-11-19", "signals": [{"name": f"s{i}", "direction": d, "confidence": c, "urgency": "low",
                                                  "reason": "r"} for i, (d, c) in enumerate(directions)]}


def test_a_topic_from_two_agents_is_not_shown_and_from_three_it_is():
    two = _attention({("current", "vix"): Tally(40, 2), ("current", "bitcoin"): Tally(6, 3)},
                     hours={9: Tally(40, 2), 10: Tally(6, 3)}, formats={"full": Tally(40, 2)})
    out = consensus(two, {"vix": _payload(("bearish", 0.9)), "bitcoin": _payload(("bullish", 0.6))}, CATEGORIES, 3)
    assert "vix" not in str(out)  # nowhere: trends, shifts, patterns, signal or summary
    assert "volatility" not in str([out["trending_topics"], out["attention_shifts"], out["query_patterns"]])
    assert [t["name"] for t in out["trending_topics"]] == ["crypto", "bitcoin"]
    assert out["query_patterns"]["by_hour_utc"] == [{"hour": 10, "queries": 6, "share": 0.1304, "agents": 3}]
    assert out["query_patterns"]["by_format"] == []
    assert out["consensus"]["signal"] == "bullish" and [m["module"] for m in out["consensus"]["modules"]] == ["bitcoin"]

    three = _attention({("current", "vix"): Tally(40, 3), ("current", "bitcoin"): Tally(6, 3)})
    out = consensus(three, {"vix": _payload(("bearish", 0.9)), "bitcoin": _payload(("bullish", 0.6))}, CATEGORIES, 3)
    assert {t["name"] for t in out["trending_topics"]} == {"vix", "volatility", "bitcoin", "crypto"}
    assert [m["module"] for m in out["consensus"]["modules"]] == ["vix", "bitcoin"]
    assert out["totals"]["current"] == {"queries": 46, "agents": 6}


def test_trending_is_a_rising_share_and_shifts_go_both_ways():
    seen = _attention({("previous", "vix"): Tally(30, 3), ("previous", "bitcoin"): Tally(10, 3),
                       ("current", "vix"): Tally(10, 3), ("current", "bitcoin"): Tally(30, 4)})
    out = consensus(seen, {}, CATEGORIES, 3)
    assert [(t["name"], t["kind"], t["change"]) for t in out["trending_topics"]] == [
        ("crypto", "category", 0.5), ("bitcoin", "module", 0.5)]
    assert out["trending_topics"][1] | {} == {"name": "bitcoin", "kind": "module", "category": "crypto",
                                              "share": 0.75, "previous_share": 0.25, "change": 0.5, "queries": 30,
                                              "previous_queries": 10, "agents": 4}
    assert [(s["category"], s["direction"], s["from_share"], s["to_share"]) for s in out["attention_shifts"]] == [
        ("crypto", "toward", 0.25, 0.75), ("volatility", "away", 0.75, 0.25)]


def test_a_figure_from_too_few_agents_in_either_window_hides_the_topic():
    assert not visible(Tally(9, 2), Tally(50, 10), 3)  # its previous share would describe two agents
    assert visible(None, Tally(5, 3), 3) and visible(Tally(0, 0), Tally(5, 3), 3)
    assert not visible(None, None, 3) and visible(Tally(4, 3), None, 3)
    with pytest.raises(ValueError, match="at least 3"):
        consensus(_attention({}), {}, CATEGORIES, 2)


def test_totals_below_the_floor_are_withheld():
    out = consensus(_attention({("current", "vix"): Tally(5, 2)}), {}, CATEGORIES, 3)
    assert out["totals"] == {"current": {"queries": None, "agents": None},
                             "previous": {"queries": None, "agents": None}}
    assert out["consensus"]["signal"] == "uncertain" and "no module" in out["consensus"]["derivation"]


def test_module_stance_is_the_confidence_weighted_direction():
    assert module_stance([]) == (0.0, 0.0, 0.0)
    stance, bull, bear = module_stance(_payload(("bullish", 0.6), ("bearish", 0.2), ("neutral", 0.2))["signals"])
    assert (round(stance, 6), round(bull, 6), round(bear, 6)) == (0.4, 0.6, 0.2)


@pytest.mark.parametrize(("payloads", "queries", "label"), [
    # risk gauges carry the weight: their lean is risk_on / risk_off
    ({"vix": _payload(("bullish", 0.8)), "market_regime": _payload(("bullish", 0.5))}, (10, 10), "risk_on"),
    ({"vix": _payload(("bearish", 0.8)), "bitcoin": _payload(("bullish", 0.5))}, (30, 10), "risk_off"),
    # asset-class modules carry it: bullish / bearish
    ({"bitcoin": _payload(("bearish", 0.7)), "vix": _payload(("bullish", 0.9))}, (30, 10), "bearish"),
    # equal attention to opposite convictions: the attended disagree
    ({"bitcoin": _payload(("bearish", 0.7)), "inflation": _payload(("bullish", 0.7))}, (10, 10), "uncertain"),
    # weak leans only: neutral
    ({"bitcoin": _payload(("neutral", 0.7), ("bullish", 0.1)), "inflation": _payload(("neutral", 0.5))},
     (10, 10), "neutral"),
])
def test_the_signal_is_weighted_by_attention(payloads, queries, label):
    names = list(payloads)
    seen = _attention({("current", names[0]): Tally(queries[0], 3), ("current", names[1]): Tally(queries[1], 3)})
    signal = consensus(seen, payloads, CATEGORIES, 3)["consensus"]
    assert signal["signal"] == label, signal["derivation"]
    weights = {m["module"]: m["attention_weight"] for m in signal["modules"]}
    assert weights == {names[0]: round(queries[0] / sum(queries), 4), names[1]: round(queries[1] / sum(queries), 4)}
    assert signal["derivation"].startswith(label)


def test_items_other_than_modules_get_their_kind_as_category():
    assert topic_categories({"vix": "volatility"}, ["ask:deep", "product:regime", "catalog", "module:vix"]) == {
        "ask:deep": "item:ask", "product:regime": "item:product", "catalog": "item:catalog",
        "module:vix": "item:module", "vix": "volatility"}
