"""The fixed intelligence sub-path whose capability is not built yet: consensus. It is a route, not a module: it
never answers `unknown_module` and never spends the per-key query budget. It validates its parameters as the
finished route will (422), then answers 501 `not_implemented`; another method is a 405 with `Allow`. Nothing is
charged."""
from __future__ import annotations

from spectree import Response

from api.errors import APIError
from api.schemas import ConsensusQuery
from api.spec import api_spec

RESPONSES = Response("HTTP_401", "HTTP_422", "HTTP_501")


def not_built(req) -> APIError:
    return APIError(501, "not_implemented",
                    f"{req.method} {req.path} is part of this service's interface but is not built on this server "
                    "yet. Nothing was charged. The modules at /api/v1/intelligence/{module_name} and the batch "
                    "are available.", modules="/api/v1/modules")


class ConsensusResource:
    @api_spec.validate(query=ConsensusQuery, tags=["not yet built"], resp=RESPONSES)
    async def on_get(self, req, resp):
        """Agent consensus over the last `hours`. Not built yet: 501 after validation."""
        raise not_built(req)
