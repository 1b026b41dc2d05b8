"""Speed of one scan's alert step with 10,000 alerts (issue 14's target: under 1 s).

1. `intel.events.alerts.evaluate` alone: 10,000 alerts of 1 to 3 conditions over every field and operator, their
   thresholds spread around the fields' current values so that a share of them fire (the count is printed).
2. `jobs.alerts.evaluate_alerts`, the scanner's hook, on a fresh migrated SQLite ledger holding the same 10,000
   alerts: load the live ones, evaluate, record every trigger (guarded updates) and this scan's field values.

Payloads: the real modules on simulated data (seed 7, as of 2026-11-20); the alerts are seeded random. Prints
the seconds of each (median of 5 runs for the pure step; one scan for the hook, as the scanner runs it, then a
second scan: cooldowns now hold most alerts back). Run: `.venv/bin/python bench/alerts.py`."""
from __future__ import annotations

import random
import statistics
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import orjson  # noqa: E402
from sqlalchemy import insert  # noqa: E402

from intel.events.alert_fields import FIELDS, current_values  # noqa: E402
from intel.events.alerts import evaluate  # noqa: E402
from intel.frames import Frames  # noqa: E402
from intel.providers.sim import SimProvider  # noqa: E402
from intel.registry import modules  # noqa: E402
from jobs.alerts import evaluate_alerts  # noqa: E402
from warehouse.ledger import Agents, make_engine, migrate  # noqa: E402
from warehouse.ledger.tables import alerts as alerts_table  # noqa: E402

ALERTS = 10_000
AS_OF = date(2026, 11, 20)
NOW = datetime(2026, 11, 20, 14, tzinfo=UTC)


def payloads() -> dict[str, dict]:
    registry, wanted = modules(), {f.module for f in FIELDS.values()}
    inputs = sorted({sid for name in wanted for sid in registry[name].inputs})
    frames = Frames.from_long(SimProvider(seed=7).observations(inputs, AS_OF - timedelta(days=3700), AS_OF), AS_OF,
                              "sim")
    return {name: registry[name].compute(frames) for name in wanted}


def conditions(rng: random.Random, values: dict) -> list[dict]:
    out = []
    for name in rng.sample(sorted(FIELDS), rng.randint(1, 3)):
        spec, value = FIELDS[name], values[name]
        if spec.values:
            out.append({"field": name, "operator": rng.choice(spec.operators), "value": rng.choice(spec.values)})
        else:
            threshold = round(value * rng.uniform(0.8, 1.2), 2)
            out.append({"field": name, "operator": rng.choice(spec.operators), "value": threshold})
    return out


def specs(values: dict) -> list[dict]:
    rng = random.Random(14)
    return [{"name": f"bench {n}", "conditions": conditions(rng, values), "logic": rng.choice(("AND", "OR")),
             "cooldown": 3600, "max_triggers": 5, "expires_in_seconds": 0, "callback_url": None}
            for n in range(ALERTS)]


def pure(alerts: list[dict], data: dict, previous: dict) -> None:
    rows = [{**a, "alert_id": f"al_{n}", "agent_id": "ag_bench", "trigger_count": 0, "last_triggered_at": None,
             "expires_at": None} for n, a in enumerate(alerts)]
    runs = []
    for _ in range(5):
        started = time.perf_counter()
        events, _ = evaluate(rows, data, previous, NOW, data_source="sim", simulated=True)
        runs.append(time.perf_counter() - started)
    print(f"evaluate (pure): {ALERTS} alerts, {len(events)} fire: median {statistics.median(runs):.3f} s "
          f"(max {max(runs):.3f} s)")


def hook(alerts: list[dict], data: dict) -> None:
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite:///{Path(folder) / 'ledger.sqlite'}"
        migrate(url)
        engine = make_engine(url)
        owner, _ = Agents(engine).register("bench")
        with engine.begin() as conn:  # one insert: creating them one by one is not what is measured here
            conn.execute(insert(alerts_table), [
                {"alert_id": f"al_bench_{n}", "agent_id": owner["id"], "name": a["name"],
                 "conditions": orjson.dumps(a["conditions"]).decode(), "logic": a["logic"], "cooldown_s": 3600,
                 "max_triggers": 5, "trigger_count": 0, "created_at": NOW} for n, a in enumerate(alerts)])
        for scan, now in enumerate((NOW, NOW + timedelta(minutes=15)), 1):
            started = time.perf_counter()
            events = evaluate_alerts(engine, data, now, "sim", True)
            print(f"evaluate_alerts (SQLite ledger), scan {scan}: {ALERTS} alerts, {len(events)} fired and "
                  f"recorded: {time.perf_counter() - started:.3f} s")
        engine.dispose()


def main() -> None:
    data = payloads()
    values = current_values(data)
    previous = {k: v * 0.9 for k, v in values.items() if isinstance(v, float)}  # so some crossings happen
    alerts = specs(values)
    pure(alerts, data, previous)
    hook(alerts, data)


if __name__ == "__main__":
    main()
