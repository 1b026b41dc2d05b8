"""GET /api/v1/sla: uptime, latency, error rates and data freshness, all measured (see api/metrics.py)."""
from __future__ import annotations

import time

from api import metrics
from api import response_docs_routes as r
from api.resources.discovery import ServingReport
from api.spec import Documented, api_spec
from warehouse import status

HOUR, DAY = 3600, 86400


def error_rates(totals: dict) -> dict:
    n = totals["n"]
    return {"requests": n, "4xx": totals["4xx"], "5xx": totals["5xx"],
            "rate_4xx": round(totals["4xx"] / n, 6) if n else None,
            "rate_5xx": round(totals["5xx"] / n, 6) if n else None}


def freshness_summary(freshness: dict[str, dict]) -> dict:
    """Share of series within their max age, and the stalest one (largest age over its max age)."""
    if not freshness:
        return {"series": 0, "fresh": 0, "fresh_share": None, "stale": [], "stalest": None}
    fresh = [s for s, f in freshness.items() if not f["stale"]]

    def overdue(item):
        sid, f = item
        return float("inf") if f["age_days"] is None else f["age_days"] / f["max_age_days"]

    sid, worst = max(freshness.items(), key=overdue)
    return {"series": len(freshness), "fresh": len(fresh), "fresh_share": round(len(fresh) / len(freshness), 4),
            "stale": sorted(s for s, f in freshness.items() if f["stale"]),
            "stalest": {"series_id": sid, **worst}}


class SLAResource(ServingReport):
    @api_spec.validate(tags=["discovery"], resp=Documented(HTTP_200=r.ServiceLevels))
    async def on_get(self, req, resp):
        """Service levels, measured: `uptime` (since the oldest live API worker started; workers record
        their OS start time in Redis), `latency_ms` p50/p95/p99 over the last hour (from every worker's
        recorded requests, histogram buckets of +25%), `error_rates` (4xx and 5xx shares) over the last
        hour and day, `data_freshness` (share of series within their catalog max age, the stalest, age of
        the last publish), `data_source` and `simulated`. Each worker flushes its request counts to Redis about
        once a second, so the answering worker's own requests are counted at once and other workers' within
        about a second. No credentials needed."""
        resp.media = await self.levels()

    async def levels(self, state: dict | None = None) -> dict:
        """The report above (the console's status page shows the same), from `state` (warehouse.status.read_all)
        when the caller has read it already."""
        now = time.time()
        r = self.services.redis
        hour = await metrics.window(r, HOUR, now)
        day = await metrics.window(r, DAY, now)
        live = await metrics.workers(r, now)
        state = await status.read_all(r) if state is None else state
        _, pulse_meta = await self.serving.get_pulse()
        oldest = live[0]["started_at"] if live else None
        published_at = pulse_meta["published_at"] if pulse_meta else None
        return {
            "measured_at": now,
            "uptime": {"seconds": round(now - oldest, 1) if oldest else None, "since": oldest,
                       "live_workers": len(live),
                       "method": "since the oldest live API worker's process start; workers record their start "
                                 "and last request in Redis, liveness by pid on this host, by a request in the "
                                 f"last {metrics.REMOTE_LIVE_S} s elsewhere"},
            "latency_ms": {"window_seconds": HOUR, "requests": hour["n"],
                           "p50": metrics.percentile_ms(hour["histogram"], 0.50),
                           "p95": metrics.percentile_ms(hour["histogram"], 0.95),
                           "p99": metrics.percentile_ms(hour["histogram"], 0.99),
                           "method": f"upper bound of the histogram bucket (x{metrics.GROWTH}) holding the "
                                     "percentile; time from request arrival to the built response"},
            "error_rates": {"last_hour": error_rates(hour), "last_day": error_rates(day)},
            "data_freshness": {**freshness_summary(state["freshness"]),
                               "last_publish_at": published_at,
                               "last_publish_age_seconds": round(now - published_at, 1) if published_at else None,
                               "last_ingest": state["ingest"]},
            "data_source": self.services.data_source,
            "simulated": self.services.simulated,
        }
