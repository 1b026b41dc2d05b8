"""GET /metrics: Prometheus' text format for an operator's scraper (marketintel/prometheus.py, api/prometheus_state.py).
With MI_METRICS_TOKEN set it answers a scraper sending `Authorization: Bearer <token>`; without, only a client on this
machine's loopback (a scraper beside it, or one that reaches it through a tunnel)."""
from __future__ import annotations

import asyncio
import hmac
import os

from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, generate_latest, multiprocess

from api.errors import APIError
from api.prometheus_state import SharedState
from api.spec import Documented, api_spec
from marketintel.prometheus import MULTIPROC_ENV

LOOPBACK = {"127.0.0.1", "::1"}


class MetricsResource:
    public = True  # not an agent's route: the token or the address below decides

    def __init__(self, settings, engine, modules: list[str]):
        self.token = settings.metrics_token
        self.state = CollectorRegistry()
        self.state.register(SharedState(settings.effective_redis_url, engine, modules))

    @api_spec.validate(tags=["discovery"], resp=Documented("HTTP_200", "HTTP_401", "HTTP_403"))
    async def on_get(self, req, resp):
        """Prometheus' text format (version 0.0.4), for the operator's scraper: request counts and latencies by
        route template, charges and refunds by pool, 402s, L402 tokens spent, published copies' ages, sources, queues,
        deliveries and open streams (docs/operations.md lists every metric). Answers loopback clients only, unless
        the server sets MI_METRICS_TOKEN: then `Authorization: Bearer <token>` from anywhere (401 without it, 403
        from another address without a token set)."""
        if self.token is not None:
            sent = (req.get_header("Authorization") or "").removeprefix("Bearer ").strip()
            if not hmac.compare_digest(sent.encode(), self.token.get_secret_value().encode()):
                raise APIError(401, "metrics_token_required", "Send the scrape token: Authorization: Bearer <token>.")
        elif req.context.client_ip not in LOOPBACK:
            raise APIError(403, "metrics_loopback_only", "Metrics answer the local machine only; set "
                           "MI_METRICS_TOKEN to scrape from elsewhere.")
        resp.content_type = CONTENT_TYPE_LATEST
        resp.data = await asyncio.to_thread(self._exposition)

    def _exposition(self) -> bytes:
        if os.environ.get(MULTIPROC_ENV):  # every process's files, added up
            counted = CollectorRegistry()
            multiprocess.MultiProcessCollector(counted)
        else:
            counted = REGISTRY
        return generate_latest(counted) + generate_latest(self.state)
