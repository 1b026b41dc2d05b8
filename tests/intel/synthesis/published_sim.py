"""Published payloads for synthesis tests, computed by the real modules and products on simulated data (seed 7)
as of 2026-11-20, the same way tests/api/conftest.py computes them, and read through a SnapshotReader whose
metas say what the publish step would: simulated data from the `sim` source."""
from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from intel.frames import Frames
from intel.parallels import load_episodes, parallels_view
from intel.parallels.state import PARALLELS_INPUTS
from intel.providers.sim import SimProvider
from intel.regime import REGIME_INPUTS
from intel.regime_history import CALENDAR_SERIES, TILT_SERIES, daily_regimes, regime_view, trading_days
from intel.registry import modules
from intel.synthesis.published import SnapshotReader

AS_OF = date(2026, 11, 20)
NOW = datetime(2026, 11, 20, 21, 0, tzinfo=UTC)
TICKER = "AAPL"
SIM_META = {"as_of": AS_OF.isoformat(), "data_source": "sim", "simulated": True}


def compute_published():
    """(module payloads, ticker payloads for AAPL, products parallels and regime)."""
    registry, provider = modules(), SimProvider(seed=7)
    inputs = sorted({sid for m in registry.values() for sid in m.inputs} | set(PARALLELS_INPUTS)
                    | set(REGIME_INPUTS) | set(CALENDAR_SERIES) | set(TILT_SERIES))
    frames = Frames.from_long(provider.observations(inputs, AS_OF - timedelta(days=3700), AS_OF), AS_OF, "sim")
    payloads = {n: m.compute(frames) for n, m in registry.items() if not m.takes_ticker}
    bars = provider.bars(TICKER, AS_OF - timedelta(days=3700), AS_OF)
    tickers = {(n, TICKER): m.compute(frames, bars, TICKER) for n, m in registry.items() if m.takes_ticker}
    parallels = parallels_view(frames, load_episodes(), AS_OF)
    regime = regime_view(frames, daily_regimes(frames, trading_days(frames)[-500:]), AS_OF)
    return payloads, tickers, {"parallels": parallels, "regime": regime}


def reader_of(published, drop: tuple[str, ...] = (), products: bool = True, meta: dict | None = None):
    payloads, tickers, made = published
    kept = {n: p for n, p in payloads.items() if n not in drop}
    return SnapshotReader(kept, {n: dict(meta or SIM_META) for n in kept}, made if products else {}, tickers)
