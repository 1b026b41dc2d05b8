"""The tools, framework configs and templates built from the real registry, request models and price list: 75 tools
with valid Draft 2020-12 schemas that accept what the REST models accept, the one visibility rule, code that
compiles, and template usage figures from the price list."""
from __future__ import annotations

import re

import pytest
from jsonschema import Draft202012Validator
from pydantic import ValidationError

from api.schemas import AskBody, IntelligenceQuery, ParallelsQuery
from api.tools import service_tools
from charging.prices import MODULE_PRICES, price_list
from intel.integrations import frameworks
from intel.integrations.templates import TEMPLATES, estimated_usage, template_listing
from intel.integrations.tools import FREE_TOOLS, TIERS, chat_completions_tools, visible_tools
from intel.registry import modules

FUNCTION_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # what chat-completions APIs accept as a function name
BASE = "http://127.0.0.1:8000"


@pytest.fixture(scope="module")
def registry():
    return modules()


@pytest.fixture(scope="module")
def prices(registry):
    return price_list(registry, 1, 100, 5.0)


@pytest.fixture(scope="module")
def tools(prices, registry):
    return service_tools(prices, registry)


def test_75_tools_one_per_module_plus_four(tools, registry):
    names = [t.name for t in tools]
    assert len(registry) == 71 and len(tools) == 75 and len(set(names)) == 75
    assert set(names) == set(registry) | {"get_pulse", "list_modules", "ask", "historical_parallels"}
    assert all(FUNCTION_NAME.match(n) for n in names)


def test_descriptions_state_the_price_from_the_price_list(tools, prices):
    for tool in tools:
        assert len(tool.description) <= 1024, tool.name  # the chat-completions limit on a function description
        if tool.category != "service":
            assert f"{prices.module(tool.name).price_sats} sats" in tool.description
    by_name = {t.name: t for t in tools}
    assert "quick 200, standard 500, deep 1000" in by_name["ask"].description
    assert f"{prices.product('parallels').price_sats} sats" in by_name["historical_parallels"].description
    assert by_name["get_pulse"].price_sats == by_name["list_modules"].price_sats == 0


def test_visibility_by_tier(registry):
    assert visible_tools("free", registry) == visible_tools(None, registry) == [
        "get_pulse", "list_modules", "economic_calendar", "market_intelligence"]
    assert set(visible_tools("free", registry)) == set(FREE_TOOLS)
    premium = visible_tools("premium", registry)
    assert len(premium) == 73 and set(premium) == set(registry) | {"get_pulse", "list_modules"}
    assert len(visible_tools("institutional", registry)) == 75
    assert visible_tools("free") == visible_tools("free", registry)  # the registry is the default


def test_every_parameter_schema_is_draft_2020_12(tools):
    for definition in chat_completions_tools(tools):
        assert definition["type"] == "function"
        Draft202012Validator.check_schema(definition["function"]["parameters"])


def test_schemas_accept_what_the_rest_models_accept(tools, registry):
    by_name = {t.name: Draft202012Validator(t.parameters) for t in tools}
    ticker = by_name["technical_analysis"]
    assert ticker.is_valid({"ticker": "AAPL", "format": "compact"})
    IntelligenceQuery.model_validate({"ticker": "AAPL", "format": "compact"})
    for bad in ({}, {"ticker": "AAPL;DROP"}, {"ticker": "TOOLONGTICKER"}, {"ticker": "AAPL", "format": "xml"}):
        assert not ticker.is_valid(bad), bad
    with pytest.raises(ValidationError):
        IntelligenceQuery.model_validate({"ticker": "AAPL;DROP"})
    vix = by_name["vix"]
    assert vix.is_valid({}) and vix.is_valid({"format": "agent", "include_prompt": True})
    assert not vix.is_valid({"ticker": "AAPL"})  # not a ticker module: no ticker argument
    assert by_name["ask"].is_valid({"question": "Is a recession priced in?", "depth": "quick"})
    AskBody.model_validate({"question": "Is a recession priced in?", "depth": "quick"})
    assert not by_name["ask"].is_valid({"question": "", "depth": "quick"})
    assert by_name["historical_parallels"].is_valid({"top_n": 3})
    ParallelsQuery.model_validate({"top_n": 3})
    assert not by_name["historical_parallels"].is_valid({"top_n": 16})
    assert by_name["get_pulse"].is_valid({}) and not by_name["get_pulse"].is_valid({"x": 1})


@pytest.mark.parametrize("tier", TIERS)
def test_framework_configs_compile_and_validate(tools, registry, tier):
    visible = [t for t in tools if t.name in set(visible_tools(tier, registry))]
    configs = [frameworks.function_calling_config(visible, tier, BASE), frameworks.chain_config(visible, tier, BASE),
               frameworks.crew_config(visible, tier, BASE)]
    for config in configs:
        compile(config["example_code"]["python"], f"<{tier} example>", "exec")
        assert BASE in config["example_code"]["python"]
    function_calling, chain, crew = configs
    assert function_calling["count"] == len(visible) and function_calling["system_prompt"]
    for spec in chain["toolkit"]["tools"]:
        Draft202012Validator.check_schema(spec["args_schema"])
    for tool in crew["tools"]:
        Draft202012Validator.check_schema(tool["parameters"])
    crew_tools = {t["name"] for t in crew["tools"]}
    assert crew["agents"] and all(set(a["tools"]) <= crew_tools for a in crew["agents"])
    assert {t["agent"] for t in crew["tasks"]} <= {a["id"] for a in crew["agents"]}


def test_templates_read_existing_modules_and_compile(registry, prices):
    module_prices = {n: prices.module(n).price_sats for n in registry}
    listing = template_listing(registry, module_prices, 1, BASE)
    assert [t["id"] for t in listing] == [t.id for t in TEMPLATES]  # every template's modules exist
    assert {"macro_risk_monitor", "rates_watcher", "crypto_desk", "daily_briefing_bot", "ticker_analyst"} == {
        t["id"] for t in listing}
    for template in listing:
        assert set(template["modules"]) <= set(registry)
        compile(template["code"]["python"], f"<{template['id']}>", "exec")
        assert template["instructions"]


def test_template_usage_from_the_price_list(registry, prices):
    """The macro risk monitor by hand: 4 checks of risk_dashboard and credit_stress (proprietary), vix and
    financial_conditions (standard), one recession_probability (proprietary) a day; one free query per module."""
    module_prices = {n: prices.module(n).price_sats for n in registry}
    monitor = next(t for t in TEMPLATES if t.id == "macro_risk_monitor")
    usage = estimated_usage(monitor, module_prices, 1)
    p, s = MODULE_PRICES["P"], MODULE_PRICES["S"]
    assert usage["module_queries_per_day"] == 17
    assert usage["sats_per_day_list_price"] == 4 * p + 4 * p + 4 * s + 4 * s + 1 * p == 2650
    assert usage["sats_per_day"] == 3 * p + 3 * p + 3 * s + 3 * s == 1800
    analyst = next(t for t in TEMPLATES if t.id == "ticker_analyst")
    usage = estimated_usage(analyst, module_prices, 1)  # 5 tickers x 4 standard modules, 1 free per module
    assert usage["module_queries_per_day"] == 20 and usage["sats_per_day"] == 4 * 4 * s
