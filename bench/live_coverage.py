"""Live coverage on the real history: a full first fetch of every catalog series through the publishers' wire
formats (the local HistoryServer of the tests, serving `../shared/data/history` and the long monthly gold file up
to 2026-01-05, the day the history files end around), without a key and with a FRED key, at FRED's real pace of
120 requests a minute. Prints per configuration: `marketintel sources`' one-line summary, the series each source
answered, requests per source, seconds paced for FRED, wall time.
Run: `.venv/bin/python bench/live_coverage.py`."""
from __future__ import annotations

import sys
import tempfile
import time
from collections import Counter
from datetime import date
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from intel.providers.live import LiveConfig, LiveProvider  # noqa: E402
from intel.providers.live.coverage import coverage  # noqa: E402
from tests.history import HISTORY_DIR, with_gold  # noqa: E402
from tests.intel.providers.live.history_server import History, HistoryServer  # noqa: E402
from tests.intel.providers.live.wire import fred as fred_wire  # noqa: E402

MARKET_DAY = date(2026, 1, 5)
EPOCH = date(1900, 1, 1)


def run(server: HistoryServer, fred_key: str | None) -> None:
    urls = {k.removeprefix("MI_LIVE_").lower(): v for k, v in server.env().items()}
    config = LiveConfig(**urls, fred_api_key=fred_key, retries=0)
    provider = LiveProvider(config)
    began = time.monotonic()
    result = provider.fetch(provider.series_ids(), EPOCH, MARKET_DAY)
    wall = time.monotonic() - began
    report = {"data_source": "live", "series_failed": result.failures, "series_sources": result.sources}
    shown = coverage(config, report, provider.status())
    status = provider.status()
    print(f"\n== {'with MI_FRED_API_KEY' if fred_key else 'no key'} ==")
    print(shown["summary"])
    in_history = {p.stem for p in HISTORY_DIR.glob("*.csv")}
    live_history = sorted(set(result.sources) & in_history)
    print(f"history series live: {len(live_history)} of {len(in_history)}; gold: "
          f"{', '.join(f'{s} from {result.sources[s]}' for s in ('GOLD_MONTHLY', 'CBPAXGUSD') if s in result.sources)}")
    print("answered by:", dict(sorted(Counter(result.sources.values()).items())))
    print("requests:", {name: s["requests_used"] for name, s in status.items() if s["requests_used"]})
    if "fred" in status:
        print(f"FRED paced {status['fred']['paced_s']} s for {status['fred']['requests_used']} requests")
    print("failed:", sorted(result.failures))
    print(f"wall {wall:.1f} s")


def main() -> None:
    with tempfile.TemporaryDirectory() as folder, HistoryServer(History(with_gold(Path(folder)), MARKET_DAY)) as server:
        run(server, None)
        run(server, fred_wire.KEY)


if __name__ == "__main__":
    main()
