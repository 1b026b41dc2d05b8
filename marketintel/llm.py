"""The language-model engine: any OpenAI-compatible chat-completions endpoint (OpenAI, a vLLM, llama.cpp or Ollama
server, a gateway), reached through the `openai` SDK's sync client, used by ask when MI_LLM_BASE_URL and
MI_LLM_MODEL are set. The model sees only the brief (intel/synthesis/engines.py: the gathered figures and
signals); whatever it writes still goes through the number check. Any failure of the endpoint is an
EngineFailed, on which ask falls back to the built-in composer."""
from __future__ import annotations

import openai

from intel.synthesis.engines import SYSTEM_PROMPT, Brief, BuiltinComposer, Engine, EngineFailed, brief_prompt

NO_KEY = "unused"  # local servers (llama.cpp, Ollama, vLLM) take no key; the SDK insists on a non-empty one


class ChatCompletionsEngine:
    name = "openai_compatible"

    def __init__(self, base_url: str, model: str, api_key: str | None, timeout_s: float, max_retries: int,
                 temperature: float = 0.0):
        self.model = model
        self.base_url = base_url
        self.temperature = temperature
        self.client = openai.OpenAI(base_url=base_url, api_key=api_key or NO_KEY, timeout=timeout_s,
                                    max_retries=max_retries)

    def write(self, brief: Brief) -> str:
        try:
            response = self.client.chat.completions.create(
                model=self.model, temperature=self.temperature,
                messages=[{"role": "system", "content": SYSTEM_PROMPT},
                          {"role": "user", "content": brief_prompt(brief)}])
        except openai.APIStatusError as error:
            raise EngineFailed(f"{self.base_url} answered HTTP {error.status_code}") from error
        except openai.APITimeoutError as error:
            raise EngineFailed(f"{self.base_url} timed out") from error
        except openai.OpenAIError as error:  # connection refused or reset, an unreadable body
            raise EngineFailed(f"{self.base_url}: {type(error).__name__}") from error
        choices = getattr(response, "choices", None) or []
        text = choices[0].message.content if choices and choices[0].message else None
        if not text or not text.strip():
            raise EngineFailed(f"{self.base_url} returned no text")
        return text.strip()


def engine_from_settings(settings) -> Engine:
    """The chat-completions engine when the endpoint and model are configured, else the built-in composer."""
    if not (settings.llm_base_url and settings.llm_model):
        return BuiltinComposer()
    key = settings.llm_api_key.get_secret_value() if settings.llm_api_key else None
    return ChatCompletionsEngine(settings.llm_base_url, settings.llm_model, key, settings.llm_timeout_s,
                                 settings.llm_max_retries)
