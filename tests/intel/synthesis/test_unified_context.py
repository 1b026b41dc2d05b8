"""unified_context on payloads the real modules computed on simulated data: every category without a topic,
every key figure the published value, disagreements that really oppose, the calendar from the published
economic_calendar module, and a prompt block whose every number is one of the context's figures."""
from __future__ import annotations

import pytest

from intel.registry import modules
from intel.synthesis.number_check import unsupported
from intel.synthesis.published import Figure, value_at
from intel.synthesis.unified import unified_context
from tests.sim_published import NOW, reader_of


def all_figures(context: dict) -> list[dict]:
    out = [f for view in context["categories"].values() for f in view["key_figures"]]
    out += [f for event in context["calendar"]["upcoming"] for f in event["figures"]]
    return out + (context["regime"]["probabilities"] if context["regime"] else [])


@pytest.mark.parametrize("depth", ["quick", "standard", "deep"])
def test_without_a_topic_every_category_with_published_figures(reader, depth):
    context = unified_context(None, depth, reader, True, NOW)
    categories = {m.category for m in modules().values() if m.category != "ticker"}
    assert set(context["categories"]) == categories
    for item in all_figures(context):
        assert value_at(reader.module(item["module"])["data"], item["field"]) == item["value"], item
    cited = [Figure(f["module"], f["field"], f["value"], f["as_of"]) for f in all_figures(context)]
    assert unsupported(context["prompt"], cited) == [], context["prompt"]
    assert context["simulated"] is True and "SIMULATED" in context["prompt"]
    assert any(c.startswith("Simulated data") for c in context["caveats"])


def test_depth_decides_breadth(reader):
    counts = {d: unified_context(None, d, reader, False, NOW)["figures_count"] for d in ("quick", "standard", "deep")}
    assert counts["quick"] < counts["standard"] < counts["deep"]


def test_a_topic_narrows_to_its_modules(reader):
    context = unified_context("yield curve inversion", "quick", reader, False, NOW)
    names = [m["module"] for view in context["categories"].values() for m in view["modules"]]
    assert names[0] == "yield_curve" or "yield_curve" in names
    assert len(names) == 3 and "prompt" not in context


def test_a_topic_matching_nothing_falls_back_to_every_category(reader):
    context = unified_context("hello there", "quick", reader, False, NOW)
    assert len(context["categories"]) > 5 and any("matched no module" in c for c in context["caveats"])


def test_disagreements_are_modules_leaning_opposite_ways(reader):
    context = unified_context(None, "deep", reader, False, NOW)
    assert context["disagreements"]
    for conflict in context["disagreements"]:
        assert set(conflict["directions"].values()) == {"bullish", "bearish"}
        assert conflict["where"].startswith("within ") or conflict["where"] == "related modules"
        assert {s["direction"] for s in conflict["signals"]} == {"bullish", "bearish"}


def test_the_calendar_comes_from_the_published_economic_calendar(reader, sim_published):
    context = unified_context(None, "standard", reader, False, NOW)
    published = reader.module("economic_calendar")["data"]["upcoming"]
    events = context["calendar"]["upcoming"]
    assert events and [e["event"] for e in events] == [e["event"] for e in published[: len(events)]]
    assert all(e["date"] >= "2026-11-20" for e in events)
    bare = unified_context(None, "quick", reader_of(sim_published, drop=("economic_calendar",)), False, NOW)
    assert bare["calendar"]["upcoming"] == [] and any("economic_calendar" in c for c in bare["caveats"])
