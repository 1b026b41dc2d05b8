"""Module retrieval: a BM25 index over the registry's names, categories, descriptions and the published field
names (no keyword table), built once per process; and what a question names (tickers, dates)."""
from __future__ import annotations

import pytest

from intel.registry import modules
from intel.synthesis.module_index import field_words, module_index, tokens
from intel.synthesis.question import dates_in, read_question
from intel.tickers import TICKER_PATTERN, extract_tickers


def ranked(reader, question):
    index = module_index(modules(), reader.published(), reader.module)
    return index.rank(question, lambda d: d.category != "ticker")


@pytest.mark.parametrize(("question", "first"), [
    ("yield curve inversion", "yield_curve"), ("is bitcoin overheating", "bitcoin"), ("oil prices", "oil"),
    ("recession risk", "recession_probability"), ("credit spreads widening", "credit_spreads"),
    ("the VIX term structure", "vix_term_structure"), ("sahm rule", "sahm_rule"),
])
def test_questions_reach_the_module_they_name(reader, question, first):
    assert ranked(reader, question)[0].name == first


def test_yield_curve_inversion_ranks_rates_modules_first(reader):
    top = ranked(reader, "yield curve inversion")
    assert top[0].category == "rates_credit"
    assert {"yield_curve", "curve_dynamics"} <= {r.name for r in top[:3]}


def test_published_field_names_are_in_the_index(reader):
    # "barrel" is a field of oil's published data (`price_usd_per_barrel`), not a word of its description
    assert "barrel" not in modules()["oil"].description
    assert "barrel" in field_words(reader.module("oil")["data"])
    assert ranked(reader, "price per barrel")[0].name == "oil"


def test_the_index_is_built_once_per_registry_and_published_set(reader):
    first = module_index(modules(), reader.published(), reader.module)
    assert module_index(modules(), reader.published(), lambda name: None) is first


def test_words_with_no_module_rank_nothing(reader):
    assert ranked(reader, "hello there") == []
    assert tokens("What are the yields today?") == ["yield"]


def test_tickers_are_read_with_the_module_routes_pattern():
    assert TICKER_PATTERN == r"^[A-Za-z0-9.^=-]{1,10}$"
    assert extract_tickers("Is AAPL above BRK.B, ^GSPC and $msft vs the S&P 500? I like XLK.") == [
        "AAPL", "BRK.B", "^GSPC", "MSFT", "XLK"]
    assert extract_tickers("What do CPI, the FOMC and the VIX say about the USD in Q3?") == []
    assert extract_tickers("$TOOLONGTICKER1") == []


def test_series_ids_and_description_acronyms_are_not_tickers():
    read = read_question("What do DGS10 and UNRATE say, and TSLA?", modules())
    assert read.tickers == ["TSLA"]


def test_dates_in_a_question():
    assert dates_in("between 2026-03-02 and March 2025, or 2019, not 2026-13-01") == [
        "2026-03-02", "2025-03", "2019"]
