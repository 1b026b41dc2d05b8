"""Alert packages: named bundles of the scanner's event types, sold per period (prices: charging/prices.py).

A subscriber receives, on the channels chosen (webhook, chat), every event of the package's types at or above
the urgency chosen, while the subscription runs. A package's tier is the lowest that may subscribe; it is never
below the tier any of its event types needs (checked at import)."""
from __future__ import annotations

from dataclasses import dataclass

from intel.events.types import EVENT_TYPES, TIERS, URGENCIES

PACKAGE_TIERS = ("premium", "institutional")
PERIOD_DAYS = 30
DELIVERY_CHANNELS = ("webhook", "chat")


@dataclass(frozen=True)
class AlertPackage:
    package_id: str
    name: str
    description: str
    event_types: tuple[str, ...]
    tier: str
    period_days: int = PERIOD_DAYS

    def __post_init__(self) -> None:
        unknown = [t for t in self.event_types if t not in EVENT_TYPES]
        if unknown or self.tier not in PACKAGE_TIERS:
            raise ValueError(f"{self.package_id}: unknown event types {unknown} or tier {self.tier!r}")
        above = [t for t in self.event_types if not EVENT_TYPES[t].allowed_for(self.tier)]
        if above:
            raise ValueError(f"{self.package_id}: {above} need a higher tier than {self.tier}")

    def allowed_for(self, tier: str) -> bool:
        return TIERS.index(tier) >= TIERS.index(self.tier)


_PACKAGES = (
    AlertPackage("volatility_shock", "Volatility shock",
                 "VIX spikes, flash crashes and rising tail risk: the first signs of a volatility event.",
                 ("market.vix_spike", "market.flash_crash", "market.tail_risk_rise"), "premium"),
    AlertPackage("credit_stress", "Credit stress",
                 "High-yield spread jumps, with the tail-risk and VIX moves that usually come with them.",
                 ("market.credit_stress", "market.tail_risk_rise", "market.vix_spike"), "premium"),
    AlertPackage("recession_watch", "Recession watch",
                 "Curve inversions and un-inversions, credit stress and the economic releases that date a cycle.",
                 ("market.curve_inversion", "market.curve_uninversion", "market.credit_stress", "economic.release"),
                 "premium"),
    AlertPackage("fed_pivot", "Fed pivot",
                 "What a change of Fed course shows in first: the releases it reacts to and the front of the curve "
                 "re-steepening or inverting.",
                 ("economic.release", "market.curve_inversion", "market.curve_uninversion"), "premium"),
    AlertPackage("crypto_momentum", "Crypto momentum",
                 "Large fast bitcoin moves and the composite signal's swings that carry risk appetite across "
                 "assets.",
                 ("market.flash_crash", "market.composite_shift"), "premium"),
    AlertPackage("regime_shift", "Regime shift",
                 "Regime changes, broken cross-asset correlations, composite-signal swings and rising tail risk: "
                 "the institutional view of a market changing character.",
                 ("market.regime_change", "market.correlation_break", "market.composite_shift",
                  "market.tail_risk_rise"), "institutional"),
)
PACKAGES: dict[str, AlertPackage] = {p.package_id: p for p in _PACKAGES}


def urgency_at_least(urgency: str, minimum: str) -> bool:
    return URGENCIES.index(urgency) >= URGENCIES.index(minimum)


def packages_for_event(event_type: str) -> list[AlertPackage]:
    return [p for p in _PACKAGES if event_type in p.event_types]
