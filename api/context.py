"""What the middleware learns about a request, with a default for every field, so that code running before a
field is set (an error raised in an earlier middleware) reads None rather than probing with getattr."""
from __future__ import annotations

import falcon
import falcon.asgi

from charging.attempt import Payer


class RequestState(falcon.Context):
    metrics_started: float | None = None  # RequestMetrics
    request_id: str | None = None  # RequestContext: the server's id, the ledger reference of a charge
    client_ip: str | None = None  # RequestContext
    payer: Payer | None = None  # Authentication: who is calling, and who pays for what this request is charged
    # Authentication, on a resource that checks the key in its one round trip: (directory key, entry expected)
    key_check: tuple[str, bytes] | None = None
    # spectree puts the validated `query` and `json` models here

    @property
    def agent(self) -> dict | None:
        """The key's agent (ledger row, effective tier), or None for a caller without a valid key."""
        return self.payer.agent if self.payer is not None else None


class Request(falcon.asgi.Request):
    context_type = RequestState
