"""The alert package registry: known event types, a tier no lower than its types need, one price each on the one
price list, and the urgency filter."""
from __future__ import annotations

import pytest

from charging.prices import MODULE_PRICES, PACKAGE_PRICES, from_settings
from intel.events.packages import PACKAGES, AlertPackage, packages_for_event, urgency_at_least
from intel.events.types import EVENT_TYPES


def test_every_package_is_priced_once_for_its_period(settings):
    prices = from_settings(settings)
    for package in PACKAGES.values():
        item = prices.package(package.package_id)
        assert item.price_sats == PACKAGE_PRICES[package.tier] * package.period_days and not item.l402
    assert PACKAGE_PRICES == {"premium": 2 * MODULE_PRICES["S"], "institutional": MODULE_PRICES["P"]}


def test_the_named_bundles_exist_with_types_their_tier_may_receive():
    assert {"volatility_shock", "credit_stress", "recession_watch", "fed_pivot", "crypto_momentum",
            "regime_shift"} <= set(PACKAGES)
    for package in PACKAGES.values():
        assert all(EVENT_TYPES[t].allowed_for(package.tier) for t in package.event_types)
        assert "alert.triggered" not in package.event_types


def test_a_package_below_its_types_tier_is_refused():
    with pytest.raises(ValueError):
        AlertPackage("bad", "Bad", "correlation breaks are institutional", ("market.correlation_break",), "premium")
    with pytest.raises(ValueError):
        AlertPackage("bad", "Bad", "unknown type", ("market.nope",), "premium")


def test_urgency_order_and_packages_of_an_event():
    assert urgency_at_least("high", "low") and urgency_at_least("high", "high") and not urgency_at_least("low", "high")
    assert {p.package_id for p in packages_for_event("market.vix_spike")} == {"volatility_shock", "credit_stress"}
