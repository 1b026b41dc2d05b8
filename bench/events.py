"""The events figures of issue 14, one after another, each printed by its own script:

1. `bench/events_sse.py`: 1,000 concurrent SSE clients on one instance (2 workers) receiving events, p50 and p99
   from append to receipt (target p99 < 1 s);
2. `bench/webhooks.py`: 1,000 webhook subscriptions delivered to a local receiver by a real RQ worker (target
   < 10 s);
3. `bench/alerts.py`: 10,000 alerts evaluated in one scan (target < 1 s).

Run: `.venv/bin/python bench/events.py` (a few minutes; loopback only). A script that is missing is named, not
skipped silently."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCRIPTS = ("events_sse.py", "webhooks.py", "alerts.py")


def main() -> int:
    failed = 0
    for name in SCRIPTS:
        script = ROOT / "bench" / name
        print(f"== bench/{name}", flush=True)
        if not script.exists():
            print(f"bench/{name} is not in this checkout", flush=True)
            failed += 1
            continue
        failed += subprocess.run([sys.executable, str(script)], cwd=ROOT).returncode != 0
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
