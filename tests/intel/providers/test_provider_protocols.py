"""Each provider the factory builds is a `Provider` and has exactly the optional capabilities it should:
live reports failures, has hourly candles and breakers; replay has a recorded end; sim has none of them."""
from __future__ import annotations

import pytest

from intel.frames import INTRADAY_SOURCES
from intel.providers.base import HourlyCandles, Provider, RecordedHistory, ReportsFailures, SourceBreakers
from intel.providers.factory import make_provider
from marketintel.settings import Settings

CAPABILITIES = (ReportsFailures, HourlyCandles, SourceBreakers, RecordedHistory)
EXPECTED = {
    "sim": set(),
    "replay": {RecordedHistory},
    "live": {ReportsFailures, HourlyCandles, SourceBreakers},
}


@pytest.fixture
def providers(tmp_path) -> dict[str, Provider]:
    (tmp_path / "DGS10.csv").write_text("date,value\n2021-06-01,1.6\n")
    # the factory's instances are what production runs; building live makes no request
    return {source: make_provider(Settings(source=source, replay_dir=tmp_path)) for source in EXPECTED}


@pytest.mark.parametrize("source", sorted(EXPECTED))
def test_each_provider_has_the_core_and_exactly_its_capabilities(providers, source):
    provider = providers[source]
    assert isinstance(provider, Provider) and provider.name == source
    assert {capability for capability in CAPABILITIES if isinstance(provider, capability)} == EXPECTED[source]


def test_the_modules_expect_candles_from_exactly_the_sources_that_have_them(providers):
    # modules see only the source's name, so this list must agree with the capability
    assert {name for name, p in providers.items() if isinstance(p, HourlyCandles)} == INTRADAY_SOURCES
