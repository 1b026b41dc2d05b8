"""The event types: one registry entry each, the authoritative list behind GET /api/v1/webhooks/events, the SSE
stream's tier filter, webhook subscriptions and alert packages.

An event is a plain dict (EVENT_FIELDS); the event log (warehouse/events.py) gives it its `id`, which is also the
SSE `id`. `audience` is None for a market event (every caller whose tier allows the type) or the agent id of the
one agent an owner-only event (`alert.triggered`, `account.balance_low`) belongs to; an `alert.triggered` also
names its `alert_id` (the alert's owner finds its callback by it)."""
from __future__ import annotations

from dataclasses import dataclass

TIERS = ("free", "premium", "institutional")  # as the ledger's agents.tier, lowest first
URGENCIES = ("low", "medium", "high", "critical")
EVENT_FIELDS = ("id", "type", "urgency", "occurred_at", "data_as_of", "summary", "figures", "simulated",
                "data_source", "audience")


@dataclass(frozen=True)
class EventType:
    name: str
    description: str
    min_tier: str  # the lowest tier that may receive it (SSE, webhooks, packages)
    urgency: str  # the usual urgency; a rule may raise it for a larger move
    cooldown_s: int  # market-clock seconds before the same type fires again (0: none)
    rule: str  # the documented detection rule with its thresholds

    def allowed_for(self, tier: str) -> bool:
        return TIERS.index(tier) >= TIERS.index(self.min_tier)


HOUR, DAY = 3600, 86400

_TYPES = (
    EventType("market.regime_change", "The cross-asset regime (market_regime) changed state.", "free", "high", DAY,
              "market_regime's state differs from the state at the previous scan (critical when the new state is "
              "crisis)"),
    EventType("market.vix_spike", "VIX at a stressed level or jumping in a day.", "free", "high", DAY,
              "VIX closes at 30 or more (critical at 40), or rises 25% or more in one day"),
    EventType("market.tail_risk_rise", "Tail-risk score rising.", "premium", "medium", DAY,
              "tail_risk's stress score rises 15 points or more since the previous scan, or crosses 70 from below "
              "(high when both)"),
    EventType("market.correlation_break", "A usual cross-asset correlation broke down.", "institutional", "medium",
              DAY, "correlation_breaks reports a pair outside its usual range that was not at the previous scan "
              "(at the first scan, any such pair)"),
    EventType("market.flash_crash", "A large fast move: bitcoin intraday or an equity index in a day.", "premium",
              "critical", 4 * HOUR,
              "bitcoin's last hourly close is 8% or more above or below the close 24 hours earlier, or an equity "
              "index closes 5% or more up or down in one day"),
    EventType("market.credit_stress", "High-yield spread jump.", "premium", "high", DAY,
              "high-yield OAS up 50 bp or more in one week (5 trading days), or above 7% (critical when both)"),
    EventType("market.curve_inversion", "The 2s10s Treasury curve inverted.", "free", "medium", 7 * DAY,
              "2s10s goes from 0 or above to below 0 between scans"),
    EventType("market.curve_uninversion", "The 2s10s Treasury curve is no longer inverted.", "free", "medium",
              7 * DAY, "2s10s goes from below 0 to 0 or above between scans"),
    EventType("market.composite_shift", "The composite signal score moved a lot.", "premium", "medium", DAY,
              "signal_composite's score moves 0.3 or more (on its -1..+1 scale) since the previous scan (high at "
              "0.6)"),
    EventType("economic.release", "A scheduled economic release came out.", "free", "low", 0,
              "a release of the economic calendar whose time has passed since the previous scan (medium for a "
              "high-importance release)"),
    EventType("prediction.resolved", "A prediction of the public record was resolved.", "free", "low", 0,
              "a resolution was appended to the live prediction chain since the previous scan"),
    EventType("alert.triggered", "One of your alerts fired (only its owner receives it).", "free", "high", 0,
              "an alert's conditions held at a scan, outside its cooldown and below its max_triggers"),
    EventType("account.balance_low", "Your balance fell below the level you set (only you receive it).", "free",
              "high", 0,
              "a debit takes the agent's balance below the low-balance level its owner set in the console; one "
              "warning per fall, re-armed once the balance is back at or above the level"),
)
EVENT_TYPES: dict[str, EventType] = {t.name: t for t in _TYPES}
# never broadcast: delivered to the one agent named in `audience` (the alert's owner, the agent whose balance it is)
OWNER_ONLY = frozenset({"alert.triggered", "account.balance_low"})


def types_for(tier: str) -> list[str]:
    """The types a tier may receive (the owner-only ones reach their owner whatever the tier)."""
    return [t.name for t in _TYPES if t.allowed_for(tier)]
