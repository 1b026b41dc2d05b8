"""Content: the catalog of content types (GET /api/v1/content/types) and long-form pieces generated on RQ (POST
/api/v1/content/generate and /generate/async), charged per type from the price list and handed back as ask is
(api/synthesis_queries.py): 200 within the wait window, else 202 with the request id to poll."""
from __future__ import annotations

from api import response_docs_routes as r
from api import response_docs_shapes as shapes
from api.errors import invalid
from api.middleware import require_tier
from api.resources.synthesis import QUEUED_TEXT, idempotency_key, send_answer
from api.schemas import ContentBody
from api.services import Services
from api.spec import Documented, api_spec
from api.synthesis_queries import SynthesisQueries
from charging.prices import CONTENT_PRICES, CONTENT_REASON
from intel.content.types import content_types

CONTENT_TIERS = ("premium", "institutional")  # content generation needs premium or higher (interface.md)


def tiers_for(tier: str) -> tuple[str, ...]:
    """The agent tiers that may generate a type of the given tier."""
    return CONTENT_TIERS[CONTENT_TIERS.index(tier):]


class ContentTypesResource:
    public = True  # interface.md: no credential needed

    def __init__(self, services: Services):
        self.prices = services.prices

    @api_spec.validate(tags=["content"], resp=Documented(HTTP_200=r.ContentTypes))
    async def on_get(self, req, resp):
        """The content types: each one's id, title, description, required tier, sections, target length, source
        modules, whether it needs a ticker, and its price in sats (paid from the key's credit or balance; no free
        allowance)."""
        resp.media = {"types": [{**t.to_dict(), "price_sats": self.prices.content(t.id).price_sats}
                                for t in content_types().values()],
                      "prices_by_tier": CONTENT_PRICES, "pricing": CONTENT_REASON}


class _Generate:
    wait_for_answer = True

    def __init__(self, queries: SynthesisQueries):
        self.queries = queries

    async def _generate(self, req, resp) -> None:
        body: ContentBody = req.context.json
        content_type = content_types()[body.content_type]
        require_tier(req, content_type.tier, f"'{content_type.id}' content")
        if content_type.needs_ticker and not body.ticker:
            raise invalid(["body", "ticker"], f"'{content_type.id}' needs a ticker, e.g. \"AAPL\"", "missing")
        params = {"content_type": content_type.id, "topic": body.topic,
                  "ticker": body.ticker.upper() if body.ticker else None}
        window = self.queries.services.settings.content_window_s if self.wait_for_answer else 0
        send_answer(resp, await self.queries.run(req.context.payer, req.context.request_id, "content",
                                                 self.queries.services.prices.content(content_type.id), params,
                                                 idempotency_key(req), window))


RESPONSES = Documented("HTTP_401", "HTTP_402", "HTTP_403", "HTTP_409", "HTTP_422", "HTTP_500", "HTTP_503",
                       HTTP_200=shapes.SynthesisResult, HTTP_202=shapes.SynthesisQueued)


class GenerateResource(_Generate):
    priced = {"POST": ("content:",)}
    @api_spec.validate(json=ContentBody, tags=["content"], resp=RESPONSES)
    async def on_post(self, req, resp):
        await self._generate(req, resp)


class GenerateAsyncResource(_Generate):
    priced = {"POST": ("content:",)}
    wait_for_answer = False

    @api_spec.validate(json=ContentBody, tags=["content"], resp=RESPONSES)
    async def on_post(self, req, resp):
        await self._generate(req, resp)


GenerateResource.on_post.__doc__ = f"""A long-form piece of one of the content types (GET /api/v1/content/types):
Markdown `text` in the type's sections, `title`, `summary`, `key_points`, `sources_used`, `sources_missing` (with
why), `key_data` (every figure in the text, with its module, field path, value and as-of date), `data_as_of` and
`charts` (PNG files under /charts/newsletter/, drawn from the published series). Premium tier or higher;
institutional for the institutional types (403 `tier_required` names the tier). `content_type` is one of the
types (422 lists them); `ticker` is required for a type with `needs_ticker`. Priced per type (`content:<id>` in
/api/v1/pricing `items`); the wait window is about 55 s. {QUEUED_TEXT}"""
GenerateAsyncResource.on_post.__doc__ = f"""The same piece, charged the same, answered 202 at once with the request
id to poll. {QUEUED_TEXT}"""
