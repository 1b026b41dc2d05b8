"""What an MCP tool call runs: the same queries as the REST routes (ModuleQueries, SynthesisQueries,
ProductQueries), charged through the one charging service with the caller's `Payer`, answered as a tool result:
`structuredContent` is the JSON body with `_meta`, the first text block its prompt rendering. A refusal (payment
required, a rate limit, data not yet published, invalid arguments) is a result with `isError`, carrying the same
error body as the REST answer, so an agent can act on it (pay the invoice, top up, wait)."""
from __future__ import annotations

from dataclasses import dataclass

import mcp_types as types
import orjson
from pydantic import ValidationError

from api.catalog_queries import CatalogQueries
from api.errors import APIError, ValidationFailed
from api.mcp.tools import ToolSpec
from api.module_queries import ModuleQueries
from api.product_queries import ProductQueries
from api.pulse_queries import PulseQueries
from api.refusals import Refusals
from api.schemas import AskBody, IntelligenceQuery, ParallelsQuery, PulseQuery
from api.synthesis_queries import SynthesisQueries
from charging.attempt import Payer
from intel.formats import prompt_text
from intel.parallels import select

# structuredContent arrived with 2025-06-18: an older session gets the JSON body as a second text block instead
LEGACY_VERSIONS = ("2024-11-05", "2025-03-26")
PROMPTS_KEPT = 512  # prompt renderings kept per process (a few per module and format between publications)


@dataclass(frozen=True)
class Caller:
    """Who calls, as the REST API's middleware resolved it for POST /mcp (api/resources/mcp_endpoint.py): the
    payer, the client address that keys the pulse's per-address budget (shared with GET /api/v1/pulse), and the
    request's id (`X-Request-ID`), the ledger reference of what the call charges (one call per POST: the
    transport takes no JSON-RPC batches)."""

    payer: Payer
    client_ip: str
    request_id: str

    @property
    def tier(self) -> str:
        return self.payer.agent["tier"] if self.payer.agent is not None else "free"


class ToolCalls:
    def __init__(self, modules: ModuleQueries, synthesis: SynthesisQueries, products: ProductQueries,
                 pulse: PulseQueries, catalog: CatalogQueries, refusals: Refusals):
        self.modules, self.synthesis, self.products = modules, synthesis, products
        self.pulse, self.catalog, self.refusals = pulse, catalog, refusals
        self.services = modules.services
        self.prompts: dict[tuple, str] = {}

    async def call(self, caller: Caller, tool: ToolSpec, arguments: dict | None, protocol_version: str
                   ) -> types.CallToolResult | dict:
        """Run the tool for the caller; every refusal the REST route would answer comes back as an error result."""
        request_id = caller.request_id
        try:
            parsed = tool.arguments.model_validate(arguments or {}) if tool.arguments else None
            body = await getattr(self, f"_{tool.kind}")(caller, request_id, tool, parsed)
        except ValidationError as invalid:
            return error_result({"detail": [{"loc": ["arguments", *e["loc"]], "msg": e["msg"], "type": e["type"]}
                                            for e in invalid.errors()]}, 422)
        except ValidationFailed as invalid:
            return error_result({"detail": invalid.within("arguments").detail}, 422)
        except Exception as failed:  # noqa: BLE001  (as REST answers it: a result, never a trace)
            return api_error_result(self.refusals.of(failed, request_id, f"MCP {tool.name}"))
        payload = orjson.loads(body)
        return success_result(payload, self._prompt(tool, payload, arguments), protocol_version)

    def _prompt(self, tool: ToolSpec, payload: dict, arguments: dict | None) -> str:
        """The text block: the payload's own prompt, else its prompt rendering, made once per published copy of a
        module or the pulse (named by its module, ticker, dates and the format asked; `_meta`, which differs per
        call, is not rendered). Answers made per request (ask, parallels, the listing) are rendered each time."""
        if isinstance(payload.get("prompt"), str):
            return payload["prompt"]
        copy = (tool.name, payload.get("ticker"), payload.get("as_of"), payload.get("generated_at"),
                (arguments or {}).get("format"))
        if tool.kind not in ("module", "pulse") or copy[3] is None:
            return prompt_text(payload)
        text = self.prompts.get(copy)
        if text is None:
            if len(self.prompts) >= PROMPTS_KEPT:
                self.prompts.clear()
            text = self.prompts[copy] = prompt_text(payload)
        return text

    async def _module(self, caller: Caller, request_id: str, tool: ToolSpec, query: IntelligenceQuery) -> bytes:
        payer = caller.payer
        served = await self.modules.serve(payer, request_id, tool.module, query, self.modules.budgets.window(payer))
        await self.modules.usage.gate_taken(served.gate_taken)
        return served.body

    async def _pulse(self, caller: Caller, request_id: str, tool: ToolSpec, query: PulseQuery) -> bytes:
        return await self.pulse.serve(caller.client_ip, request_id, query.as_of)  # as GET /api/v1/pulse answers it

    async def _list_modules(self, caller: Caller, request_id: str, tool: ToolSpec, _) -> bytes:
        return orjson.dumps(await self.catalog.listing(caller.payer, request_id))  # as GET /api/v1/modules

    async def _ask(self, caller: Caller, request_id: str, tool: ToolSpec, body: AskBody) -> bytes:
        answer = await self.synthesis.ask(caller.payer, request_id, body)
        if answer.status >= 400:  # failed for good, its charge refunded: the body says so
            raise APIError(answer.status, "synthesis_failed", orjson.loads(answer.body)["error"]["message"],
                           meta=orjson.loads(answer.body).get("_meta"), request_id=request_id)
        return answer.body  # 200: the answer; 202: its request id and the REST path to poll with the same key

    async def _parallels(self, caller: Caller, request_id: str, tool: ToolSpec, query: ParallelsQuery) -> bytes:
        await self.modules.budgets.take(caller.payer)  # the per-key budget, as the REST route's guard takes it
        item = self.services.prices.product("parallels")
        served = await self.products.serve(caller.payer, request_id, "parallels", item,
                                           lambda payload: select(payload, query.tags, query.top_n), query.as_of)
        await self.products.usage.gate_taken(served.gate_taken)
        return served.body


def success_result(payload: dict, text: str, protocol_version: str) -> dict:
    """The result as the SDK dumps a `CallToolResult` (it shapes that dump to the caller's version, dropping
    `resultType` before 2026-07-28): a model would cost one more walk of the payload per call (~0.1 ms for 15 KB)."""
    content = [{"type": "text", "text": text}]
    if protocol_version in LEGACY_VERSIONS:
        content.append({"type": "text", "text": orjson.dumps(payload).decode()})
    return {"content": content, "structuredContent": payload, "isError": False, "resultType": "complete"}


def error_result(body: dict, status: int) -> types.CallToolResult:
    """`structuredContent` is the REST answer's body with its HTTP status; the text says what to do next."""
    body = {**body, "status": status}
    error = body.get("error") or {}
    text = error.get("message") or "; ".join(f"{'.'.join(map(str, d['loc']))}: {d['msg']}"
                                            for d in body.get("detail", []))
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], structured_content=body,
                                is_error=True)


def api_error_result(error: APIError) -> types.CallToolResult:
    body = error.body()
    challenge = error.headers.get("WWW-Authenticate")
    if challenge:  # the L402 challenge as the REST answer's header carries it, for a client that pays per call
        body["error"]["www_authenticate"] = challenge
    if "Retry-After" in error.headers:
        body["error"].setdefault("retry_after_seconds", int(error.headers["Retry-After"]))
    return error_result(body, error.status)
