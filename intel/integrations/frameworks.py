"""Configurations for agent frameworks, built from the tools (tools.py): chat-completions function calling (the
tools, a system prompt, Python that runs the loop with `openai` and `httpx`), an agent toolkit of LangChain-style
structured tools, and CrewAI-style crew agents with their tools. Example code is plain Python text that compiles;
the base URL is the one the caller reached."""
from __future__ import annotations

from intel.integrations.tools import Tool, chat_completions_tools

SYSTEM_PROMPT = (
    "You are a market analyst with tools from a market intelligence service. Call get_pulse first for the "
    "cross-market picture, then the modules that answer the question (list_modules names them all). Quote figures "
    "only from tool results, with their as_of date and module; if a result has `_meta.simulated: true`, say the data "
    "is simulated. A tool result with an `error` of code `payment_required` carries a Lightning invoice: tell the "
    "user what it costs instead of retrying. Each module answers one free query per day, then costs the sats its "
    "description states. This is information, not financial advice.")

# The loop every example shares: the service hands over the tools and how to call each; the model picks tools.
FUNCTION_CALLING_CODE = '''"""Function calling against marketintel: the model picks tools; this runs them."""
import json
import os

import httpx
from openai import OpenAI

BASE_URL = os.environ.get("MARKETINTEL_URL", "{BASE_URL}")


def service_client(api_key=None):
    headers = {"X-API-Key": api_key} if api_key else {}
    return httpx.Client(base_url=BASE_URL, headers=headers, timeout=90)


def call_tool(service, routes, name, arguments):
    """Run one tool call on its REST route; the JSON answer (or error) goes back to the model as text."""
    route = routes[name]
    arguments = {k: v for k, v in arguments.items() if v is not None}
    if route["arguments_in"] == "json":
        response = service.request(route["method"], route["path"], json=arguments)
    else:
        response = service.request(route["method"], route["path"], params=arguments)
    return response.text


def run(llm, service, question, model):
    config = service.get("/api/v1/integrations/functioncalling/config").json()
    messages = [{"role": "system", "content": config["system_prompt"]}, {"role": "user", "content": question}]
    for _ in range(8):  # a few rounds of tool calls at most
        reply = llm.chat.completions.create(model=model, messages=messages, tools=config["tools"])
        message = reply.choices[0].message
        messages.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content, messages
        for call in message.tool_calls:
            arguments = json.loads(call.function.arguments or "{}")
            result = call_tool(service, config["routes"], call.function.name, arguments)
            messages.append({"role": "tool", "tool_call_id": call.id, "content": result})
    raise RuntimeError("the model kept calling tools")


if __name__ == "__main__":
    answer, _ = run(OpenAI(), service_client(os.environ.get("MARKETINTEL_API_KEY")),
                    "How stressed are credit markets today?", os.environ.get("MODEL", "gpt-4o-mini"))
    print(answer)
'''

CHAIN_CODE = '''"""An agent toolkit of structured tools for marketintel (LangChain-style)."""
import os

import httpx
from langchain_core.tools import StructuredTool

BASE_URL = os.environ.get("MARKETINTEL_URL", "{BASE_URL}")
service = httpx.Client(base_url=BASE_URL, headers={"X-API-Key": os.environ["MARKETINTEL_API_KEY"]}, timeout=90)
config = service.get("/api/v1/integrations/chain/config").json()


def make_tool(spec):
    def run(**arguments):
        arguments = {k: v for k, v in arguments.items() if v is not None}
        where = "json" if spec["arguments_in"] == "json" else "params"
        return service.request(spec["method"], spec["path"], **{where: arguments}).text

    return StructuredTool.from_function(func=run, name=spec["name"], description=spec["description"],
                                        args_schema=spec["args_schema"])


tools = [make_tool(spec) for spec in config["toolkit"]["tools"]]
'''

CREW_CODE = '''"""A crew of market agents over marketintel's tools (CrewAI-style)."""
import os

import httpx
from crewai import Agent, Crew, Task
from crewai.tools import BaseTool

BASE_URL = os.environ.get("MARKETINTEL_URL", "{BASE_URL}")
service = httpx.Client(base_url=BASE_URL, headers={"X-API-Key": os.environ["MARKETINTEL_API_KEY"]}, timeout=90)
config = service.get("/api/v1/integrations/crew/config").json()


class ServiceTool(BaseTool):
    name: str
    description: str
    route: dict

    def _run(self, **arguments):
        arguments = {k: v for k, v in arguments.items() if v is not None}
        where = "json" if self.route["arguments_in"] == "json" else "params"
        return service.request(self.route["method"], self.route["path"], **{where: arguments}).text


tools = {t["name"]: ServiceTool(name=t["name"], description=t["description"], route=t["route"])
         for t in config["tools"]}
agents = {a["id"]: Agent(role=a["role"], goal=a["goal"], backstory=a["backstory"],
                         tools=[tools[n] for n in a["tools"] if n in tools]) for a in config["agents"]}
tasks = [Task(description=t["description"], expected_output=t["expected_output"], agent=agents[t["agent"]])
         for t in config["tasks"]]
print(Crew(agents=list(agents.values()), tasks=tasks).kickoff())
'''

# crew members: (id, role, goal, backstory, tool names)
CREW_AGENTS = (
    ("macro_strategist", "Macro strategist", "Judge where the cycle stands and what the rates market prices",
     "A former central-bank economist who trusts data over narratives.",
     ("get_pulse", "market_intelligence", "economic_calendar", "growth", "inflation", "labor_market",
      "yield_curve", "fed_policy", "recession_probability")),
    ("risk_manager", "Risk manager", "Spot stress early: volatility, credit and tail risk",
     "Runs the risk desk; asks what could go wrong before what could go right.",
     ("get_pulse", "vix", "credit_spreads", "credit_stress", "tail_risk", "crash_risk", "risk_dashboard",
      "financial_conditions")),
    ("crypto_analyst", "Crypto analyst", "Read the crypto market against macro liquidity",
     "Trades digital assets and watches how they move with the dollar and liquidity.",
     ("get_pulse", "bitcoin", "ethereum", "crypto_market", "crypto_risk", "btc_macro_correlation", "liquidity")),
)
CREW_TASKS = (
    ("macro_strategist", "Summarise the macro picture and what the curve and the Fed path imply.",
     "Five bullet points, each with a figure, its module and its as_of date."),
    ("risk_manager", "List the three largest risks today, each with the figure that shows it.",
     "A ranked list of three risks with figures, modules and dates."),
    ("crypto_analyst", "Say whether crypto is trading on liquidity or on its own story this week.",
     "One paragraph citing at least two modules."),
)


def routes(tools: list[Tool]) -> dict:
    return {t.name: t.route() for t in tools}


def function_calling_config(tools: list[Tool], tier: str, base_url: str) -> dict:
    return {"tier": tier, "count": len(tools), "tools": chat_completions_tools(tools), "routes": routes(tools),
            "system_prompt": SYSTEM_PROMPT, "base_url": base_url,
            "auth": {"header": "X-API-Key", "register": "POST /api/v1/agents/register"},
            "example_code": {"python": FUNCTION_CALLING_CODE.replace("{BASE_URL}", base_url)}}


def chain_config(tools: list[Tool], tier: str, base_url: str) -> dict:
    specs = [{"name": t.name, "description": t.description, "args_schema": t.parameters, **t.route()} for t in tools]
    return {"tier": tier, "base_url": base_url, "framework": "agent toolkit of structured tools (LangChain-style)",
            "toolkit": {"name": "marketintel", "count": len(specs), "tools": specs},
            "system_prompt": SYSTEM_PROMPT, "requirements": ["httpx", "langchain-core"],
            "example_code": {"python": CHAIN_CODE.replace("{BASE_URL}", base_url)}}


def crew_config(tools: list[Tool], tier: str, base_url: str) -> dict:
    """Crew agents keep only the tools the tier sees; an agent left without its own tools is dropped."""
    by_name = {t.name: t for t in tools}
    agents = [{"id": i, "role": role, "goal": goal, "backstory": story, "tools": [n for n in names if n in by_name]}
              for i, role, goal, story, names in CREW_AGENTS]
    agents = [a for a in agents if set(a["tools"]) - {"get_pulse"}]
    kept = {a["id"] for a in agents}
    used = sorted({n for a in agents for n in a["tools"]}, key=list(by_name).index)
    return {"tier": tier, "base_url": base_url, "framework": "crew of role-playing agents (CrewAI-style)",
            "agents": agents,
            "tasks": [{"agent": a, "description": d, "expected_output": o} for a, d, o in CREW_TASKS if a in kept],
            "tools": [{"name": n, "description": by_name[n].description, "parameters": by_name[n].parameters,
                       "route": by_name[n].route()} for n in used],
            "requirements": ["httpx", "crewai"],
            "example_code": {"python": CREW_CODE.replace("{BASE_URL}", base_url)}}
