"""The chat-completions engine (marketintel/llm.py) as production runs it, the `openai` SDK's client, against a
local HTTP server speaking the protocol (POST /v1/chat/completions, the real response JSON): what the model
writes goes through the number check (an invented number is taken out), the model sees only the brief, and a
failing endpoint hands the answer to the built-in composer with a caveat."""
from __future__ import annotations

import pytest

from intel.synthesis.answer import answer_question
from intel.synthesis.engines import BuiltinComposer
from marketintel.llm import ChatCompletionsEngine, engine_from_settings
from marketintel.settings import Settings
from tests.chat_server import ChatServer
from tests.sim_published import NOW, compute_published, reader_of

MODEL = "local-test-model"


@pytest.fixture(scope="module")
def sim_published():
    return compute_published()


@pytest.fixture
def chat():
    with ChatServer(reply=None) as server:
        yield server


def engine(chat, retries=0):
    return ChatCompletionsEngine(chat.url, MODEL, "sk-test", timeout_s=5.0, max_retries=retries)


def test_the_model_writes_and_an_invented_number_is_taken_out(chat, sim_published):
    reader = reader_of(sim_published)
    curve = reader.module("yield_curve")["data"]
    chat.reply = (f"According to yield_curve, the 10-year yields {curve['curve_pct']['10y']}% and the 2s10s slope "
                  f"is {curve['slopes']['2s10s_bp']} bp. The data is simulated.\n"
                  "We expect the 10-year to reach 7.77% by spring.")
    answer = answer_question("yield curve inversion", "quick", reader, engine(chat), NOW)
    assert answer["engine"] == {"name": "openai_compatible", "model": MODEL, "fallback": False}
    assert "4.33%" in answer["answer"] and "7.77" not in answer["answer"]
    assert answer["number_check"]["removed"] == [{"numbers": ["7.77%"], "sentence": chat.reply.splitlines()[1],
                                                  "reason": "not one of the supporting figures"}]
    assert any("number check took out 1 sentence" in c for c in answer["caveats"])
    request = chat.requests[0]
    assert request["path"] == "/v1/chat/completions" and request["model"] == MODEL
    assert request["auth"] == "Bearer sk-test"
    prompt = request["messages"][1]["content"]
    assert "yield_curve.curve_pct.10y = 4.33" in prompt and "SIMULATED" in prompt
    assert request["messages"][0]["role"] == "system" and "ONLY the figures" in request["messages"][0]["content"]


@pytest.mark.parametrize("status", [500, 429, 401])
def test_a_failing_endpoint_falls_back_to_the_built_in_composer(chat, sim_published, status):
    chat.status = status
    reader = reader_of(sim_published)
    answer = answer_question("credit spreads", "quick", reader, engine(chat), NOW)
    builtin = answer_question("credit spreads", "quick", reader, BuiltinComposer(), NOW)
    assert answer["engine"] == {"name": "builtin", "model": MODEL, "fallback": True, "failed": "openai_compatible"}
    assert answer["answer"] == builtin["answer"]
    assert any(f"HTTP {status}" in c and "built-in composer" in c for c in answer["caveats"])


def test_an_unreachable_endpoint_or_an_empty_reply_falls_back(chat, sim_published):
    reader = reader_of(sim_published)
    chat.reply = ""
    empty = answer_question("oil", "quick", reader, engine(chat), NOW)
    assert empty["engine"]["fallback"] and any("returned no text" in c for c in empty["caveats"])
    gone = ChatCompletionsEngine("http://127.0.0.1:9/v1", MODEL, None, timeout_s=2.0, max_retries=0)
    down = answer_question("oil", "quick", reader, gone, NOW)
    assert down["engine"]["fallback"] and any("APIConnectionError" in c for c in down["caveats"])


def test_retries_come_from_settings(chat, sim_published):
    chat.status = 503
    answer_question("oil", "quick", reader_of(sim_published), engine(chat, retries=1), NOW)
    assert len(chat.requests) == 2


def test_the_engine_is_chosen_by_settings(chat):
    assert isinstance(engine_from_settings(Settings()), BuiltinComposer)
    assert isinstance(engine_from_settings(Settings(llm_base_url=chat.url)), BuiltinComposer)
    chosen = engine_from_settings(Settings(llm_base_url=chat.url, llm_model=MODEL, llm_api_key="k",
                                           llm_timeout_s=3, llm_max_retries=0))
    assert isinstance(chosen, ChatCompletionsEngine) and chosen.model == MODEL
    assert chosen.client.max_retries == 0 and chosen.client.timeout == 3
