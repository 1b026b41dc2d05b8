"""The fixed intelligence sub-paths whose capability is not built yet: unified, ask, ask/async and
consensus. They are routes, not modules: they never answer `unknown_module` and never spend
the per-key query budget. Each validates its parameters as the finished route will (422), then answers 501
`not_implemented`; another method is a 405 with `Allow`. Nothing is charged."""
from __future__ import annotations

from spectree import Response

from api.errors import APIError
from api.schemas import AskBody, ConsensusQuery, UnifiedQuery
from api.spec import api_spec

RESPONSES = Response("HTTP_401", "HTTP_422", "HTTP_501")


def not_built(req) -> APIError:
    return APIError(501, "not_implemented",
                    f"{req.method} {req.path} is part of this service's interface but is not built on this server "
                    "yet. Nothing was charged. The modules at /api/v1/intelligence/{module_name} and the batch "
                    "are available.", modules="/api/v1/modules")


class UnifiedResource:
    @api_spec.validate(query=UnifiedQuery, tags=["not yet built"], resp=RESPONSES)
    async def on_get(self, req, resp):
        """Aggregated context across modules (institutional). Not built yet: 501 after validation."""
        raise not_built(req)


class AskResource:
    @api_spec.validate(json=AskBody, tags=["not yet built"], resp=RESPONSES)
    async def on_post(self, req, resp):
        """A synthesis answering a question, priced by depth (see /api/v1/pricing `items`). Not built yet: 501
        after validation; nothing is charged."""
        raise not_built(req)


class AskAsyncResource:
    @api_spec.validate(json=AskBody, tags=["not yet built"], resp=RESPONSES)
    async def on_post(self, req, resp):
        """The same question, answered with a handle at once. Not built yet: 501 after validation."""
        raise not_built(req)




class ConsensusResource:
    @api_spec.validate(query=ConsensusQuery, tags=["not yet built"], resp=RESPONSES)
    async def on_get(self, req, resp):
        """Agent consensus over the last `hours`. Not built yet: 501 after validation."""
        raise not_built(req)


