"""Published inputs for synthesis and content tests, computed once per test process by the real `intel` code on
simulated data (seed 7) as of 2026-11-20: every non-ticker module, the ticker modules for one ticker (on bars of
the last closed day, as the API computes them), the products `parallels`, `regime` and `chart_series`, and publish
metas that say what the publish step would: simulated data from the `sim` source."""
from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from intel.content.chart_series import INPUTS as CHART_INPUTS
from intel.content.chart_series import chart_series_view
from intel.frames import Frames
from intel.parallels import load_episodes, parallels_view
from intel.parallels.state import PARALLELS_INPUTS
from intel.providers.sim import SimProvider
from intel.regime import REGIME_INPUTS
from intel.regime_history import CALENDAR_SERIES, TILT_SERIES, daily_regimes, regime_view, trading_days
from intel.registry import modules
from intel.synthesis.published import SnapshotReader

AS_OF = date(2026, 11, 20)
NOW = datetime(2026, 11, 20, 21, 0, tzinfo=UTC)  # after the close: the clock's market day is AS_OF
TICKER = "AAPL"
SIM_META = {"data_source": "sim", "simulated": True}


@dataclass(frozen=True)
class SimPublished:
    payloads: dict  # {module: payload}
    metas: dict  # {module: publish meta}
    products: dict  # {"parallels" | "regime" | "chart_series": payload}
    tickers: dict  # {(module, TICKER): payload}


@functools.cache
def compute_published() -> SimPublished:
    registry, provider = modules(), SimProvider(seed=7)
    inputs = sorted({sid for m in registry.values() for sid in m.inputs} | set(PARALLELS_INPUTS)
                    | set(REGIME_INPUTS) | set(CALENDAR_SERIES) | set(TILT_SERIES) | set(CHART_INPUTS))
    frames = Frames.from_long(provider.observations(inputs, AS_OF - timedelta(days=3700), AS_OF), AS_OF, "sim")
    payloads = {n: m.compute(frames) for n, m in registry.items() if not m.takes_ticker}
    closed = AS_OF - timedelta(days=1)  # ticker bars are final only for a closed day
    tickers = {(n, TICKER): m.compute(frames, provider.bars(TICKER, closed - timedelta(days=m.lookback_days), closed),
                                      TICKER)
               for n, m in registry.items() if m.takes_ticker}
    metas = {n: {"as_of": p["as_of"], "data_as_of": p["data_as_of"], "published_at": 0.0, **SIM_META}
             for n, p in payloads.items()}
    products = {"parallels": parallels_view(frames, load_episodes(), AS_OF),
                "regime": regime_view(frames, daily_regimes(frames, trading_days(frames)[-500:]), AS_OF),
                "chart_series": chart_series_view(frames, AS_OF, "sim", True)}
    return SimPublished(payloads, metas, products, tickers)


def reader_of(published: SimPublished, drop: tuple[str, ...] = (), products: bool = True,
              meta: dict | None = None) -> SnapshotReader:
    """A reader over the published inputs, without the modules in `drop`, without products if told, and with
    `meta` in place of the simulated source's where given."""
    kept = {n: p for n, p in published.payloads.items() if n not in drop}
    metas = {n: {**published.metas[n], **(meta or {})} for n in kept}
    return SnapshotReader(kept, metas, published.products if products else {}, published.tickers)
