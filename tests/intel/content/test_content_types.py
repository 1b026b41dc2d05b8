"""Every content type holds to the catalog's contract: its source modules exist, its tier is one the interface
names (institutional exactly for the briefing, regime, risk, alpha and cross-market types), its sections are
non-empty, a type that reads a ticker module says it needs a ticker, its charts are drawable kinds, and each
key figure it declares is a number the module publishes."""
from __future__ import annotations

import orjson
import pytest

from intel.charts import CHART_KINDS
from intel.content.types import CONTENT_TYPES, TIERS, catalog, content_types
from intel.registry import modules
from intel.synthesis.published import figure

INSTITUTIONAL = {"institutional_briefing", "regime_report", "risk_report", "alpha_ideas", "cross_market"}
IDS = [t.id for t in CONTENT_TYPES]


def test_ids_are_unique_and_the_tiers_are_the_interfaces():
    assert len(IDS) == len(set(IDS)) == len(content_types())
    assert {t.id for t in CONTENT_TYPES if t.tier == "institutional"} == INSTITUTIONAL
    assert {t.tier for t in CONTENT_TYPES} == set(TIERS)


@pytest.mark.parametrize("type_id", IDS)
def test_each_type_holds_to_the_contract(type_id, published):
    ctype, registry = content_types()[type_id], modules()
    payloads, _, _, tickers = published
    assert ctype.title and ctype.description and ctype.target_words >= 200
    assert ctype.sections and all(s.modules and s.heading for s in ctype.sections)
    assert len({s.id for s in ctype.sections}) == len(ctype.sections)
    unknown = [m for m in ctype.source_modules if m not in registry]
    assert not unknown, unknown
    reads_ticker = any(registry[m].takes_ticker for m in ctype.source_modules)
    assert ctype.needs_ticker == reads_ticker
    assert set(ctype.charts) <= set(CHART_KINDS)
    for section in ctype.sections:
        for declared in section.figures:
            payload = tickers[(declared.module, "AAPL")] if registry[declared.module].takes_ticker \
                else payloads[declared.module]
            assert figure(declared.module, payload, declared.field) is not None, declared


def test_catalog_is_the_route_body():
    body = orjson.loads(orjson.dumps(catalog()))
    assert [t["id"] for t in body] == IDS
    for entry in body:
        assert {"id", "title", "description", "required_tier", "sections", "target_length_words",
                "source_modules", "needs_ticker", "charts"} <= entry.keys()
        assert all(s["heading"] and s["modules"] for s in entry["sections"])
