"""GET /charts/newsletter/{filename}: the chart files content pieces link to (marketintel/chart_files.py keeps
them under MI_HOME/charts/newsletter and prunes old ones)."""
from __future__ import annotations

import asyncio
import re

from spectree import Response

from api.errors import APIError
from api.schemas import CHART_FILENAME_PATTERN
from api.spec import api_spec
from marketintel.chart_files import ChartFiles

CHART_NAME = re.compile(CHART_FILENAME_PATTERN)
# a chart's name is new for every drawing (never rewritten), so a copy never goes stale while the file exists
CACHE_CONTROL = "public, max-age=31536000, immutable"


class ChartResource:
    public = True  # interface.md: chart files need no credential

    def __init__(self, files: ChartFiles):
        self.files = files

    @api_spec.validate(tags=["content"], resp=Response("HTTP_200", "HTTP_404"))
    async def on_get(self, req, resp, filename: str):
        """A chart image (`image/png`) a content piece links to. Names are lower-case letters, digits, `_` and `-`
        ending in `.png`; each drawing gets a new name, so the file is cached as immutable. An unknown name, one
        that fails that pattern, or anything reaching outside the chart folder is 404 (the same answer: nothing
        tells an invalid name from a pruned one). Charts are kept for MI_CHART_RETENTION_HOURS."""
        path = self.files.path_for(filename) if CHART_NAME.match(filename) else None
        if path is None:
            raise APIError(404, "unknown_chart", "No chart by that name (charts are pruned after a while; generate "
                           "the piece again for fresh ones).")
        resp.data = await asyncio.to_thread(path.read_bytes)
        resp.content_type = "image/png"
        resp.set_header("Cache-Control", CACHE_CONTROL)
