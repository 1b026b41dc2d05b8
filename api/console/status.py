"""The public status page, no sign-in needed: the service levels /api/v1/sla measures (uptime, latency, errors,
freshness), where the data comes from, and each live source's state as the last ingest left it."""
from __future__ import annotations

from datetime import UTC, datetime

from api.console.pages import Page
from api.resources.sla import SLAResource
from warehouse import status


class StatusPage(Page):
    def __init__(self, services, sessions, sla: SLAResource):
        super().__init__(services, sessions)
        self.sla = sla

    async def on_get(self, req, resp):
        state = await status.read_all(self.services.redis)  # the sources' states, and the levels' freshness
        levels = await self.sla.levels(state)
        self.render(resp, "status.html", 200, await self.visitor(req), levels=levels,
                    sources=sorted(state["sources"].items()),
                    measured_at=datetime.fromtimestamp(levels["measured_at"], UTC).strftime("%Y-%m-%d %H:%M:%S"))
