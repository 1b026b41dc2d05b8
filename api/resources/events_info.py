"""What the event system says about itself: GET /api/v1/events/scanner (the scanner's status) and
GET /api/v1/webhooks/events (the event type registry). Neither needs a credential nor charges."""
from __future__ import annotations

import orjson

from api import response_docs_routes as r
from api.services import Services
from api.spec import Documented, api_spec
from intel.events.scanner import RULES, cooldowns
from intel.events.types import EVENT_TYPES, OWNER_ONLY, TIERS, URGENCIES
from warehouse import keys


def not_yet_scanned(data_source: str, simulated: bool) -> dict:
    """The status before the first scan: nothing counted, nothing detected, nothing cooling down."""
    return {"scans": 0, "last_scan_at": None, "last_scan_seconds": None, "events_emitted": dict.fromkeys(RULES, 0),
            "last_fired": {}, "detected": {}, "data_source": data_source, "simulated": simulated}


class ScannerStatusResource:
    public = True  # interface.md: the event scanner needs no credential

    def __init__(self, services: Services):
        self.services = services

    @api_spec.validate(tags=["events"], resp=Documented(HTTP_200=r.ScannerStatus))
    async def on_get(self, req, resp):
        """The event scanner's state: scans, events emitted, detected state, cooldown timers.

        As its last scan published it (the scanner runs after every data refresh):
        `scans` (how many so far), `last_scan_at` (market clock), `last_scan_seconds`, `events_emitted` per event
        type since the first scan, `detected` (what the last scan read: regime, VIX, tail risk, credit, curve,
        composite score, correlations, fast moves, with each reading's `data_as_of`), and `cooldowns`: per type,
        its cooldown, when it last fired and the seconds left at the market clock's `market_time` (0: free to
        fire). Before the first scan `scans` is 0 and `status` says `not_yet_run`. No credential needed."""
        raw = await self.services.redis.get(keys.SCANNER_STATUS)
        status = orjson.loads(raw) if raw else not_yet_scanned(self.services.data_source, self.services.simulated)
        now = self.services.clock.now()
        left = cooldowns(status, now)
        fired = status["last_fired"]
        resp.media = {
            "status": "scanning" if status["scans"] else "not_yet_run",
            "market_time": now.isoformat(),
            **{k: status[k] for k in ("scans", "last_scan_at", "last_scan_seconds", "events_emitted", "detected")},
            "events_emitted_total": sum(status["events_emitted"].values()),
            "cooldowns": {name: {"cooldown_s": EVENT_TYPES[name].cooldown_s, "last_fired_at": fired.get(name),
                                 "left_s": left[name]} for name in RULES},
            "data_source": status["data_source"], "simulated": status["simulated"],
        }


class WebhookEventTypesResource:
    public = True  # the list is public; with a key, `receivable` says which types your tier may receive

    @api_spec.validate(tags=["events"], resp=Documented(HTTP_200=r.EventTypes))
    async def on_get(self, req, resp):
        """The event types: names, descriptions, minimum tier, urgency, cooldown and rule of each.

        The authoritative list, the same names in webhooks, alert packages and the SSE stream:
        each with its `description`, `min_tier` (the lowest tier that receives it), usual `urgency` (a rule may
        raise it for a larger move), `cooldown_s` (market-clock seconds before it fires again), the detection
        `rule` with its thresholds, and `owner_only` (alert.triggered reaches only the alert's owner). Sent with
        an API key, each type also says whether your tier may receive it (`receivable`). Free; the key is
        optional."""
        agent = req.context.agent
        tier = agent["tier"] if agent else None
        types = []
        for kind in EVENT_TYPES.values():
            entry = {"name": kind.name, "description": kind.description, "min_tier": kind.min_tier,
                     "urgency": kind.urgency, "cooldown_s": kind.cooldown_s, "rule": kind.rule,
                     "owner_only": kind.name in OWNER_ONLY}
            if tier is not None:
                entry["receivable"] = kind.name in OWNER_ONLY or kind.allowed_for(tier)
            types.append(entry)
        resp.media = {"event_types": types, "count": len(types), "tiers": list(TIERS), "urgencies": list(URGENCIES),
                      "your_tier": tier}
