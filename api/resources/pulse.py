"""GET /api/v1/pulse: the free cross-market snapshot, rebuilt by the pipeline about every 2 minutes."""
from __future__ import annotations

from api import response_docs_routes as r
from api.errors import ValidationFailed
from api.pulse_queries import PulseQueries
from api.responses import send_json
from api.schemas import PulseQuery
from api.spec import Documented, api_spec


class PulseResource:
    public = True  # interface.md: no credential needed

    def __init__(self, pulse: PulseQueries):
        self.pulse = pulse

    @api_spec.validate(query=PulseQuery, tags=["discovery"],
                       resp=Documented("HTTP_404", "HTTP_422", "HTTP_429", "HTTP_503", HTTP_200=r.Pulse))
    async def on_get(self, req, resp):
        """Free cross-market pulse: regime with rationale, signals for equities, bonds, crypto, volatility and
        FX with cross-market context, breaking-correlation alerts, composite score (-100..+100), premium
        teasers. 10 requests per minute per client address, then 429 with Retry-After. `as_of`: the pulse as it
        stood at a past moment (`time_travel: true`), still free."""
        try:
            body = await self.pulse.serve(req.context.client_ip, req.context.request_id, req.context.query.as_of)
        except ValidationFailed as invalid:
            raise invalid.within("query") from None
        send_json(resp, body)
