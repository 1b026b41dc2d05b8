"""What a client sees when a part of the service fails, one row per fault: the status mix during the fault, the
p99 wait during it, the seconds to recover after the part returns, and the ledger check after it.

    PYTHONPATH=. .venv/bin/python -m bench.faults

Rows are plain dicts {"fault", "statuses": {status: count}, "p99_ms", "recover_s", "ledger_ok", "note"}. The API's
own dependencies (Redis, PostgreSQL) come from bench/fault_cases_api.py; the pipeline's faults (the RQ worker
killed mid-job, the disk full for the warehouse write, live sources hanging) from bench/fault_cases_pipeline.py.
Data is simulated (MI_SOURCE=sim); the load is paced paid queries of one module on gunicorn."""
from __future__ import annotations

import sys

from bench.fault_cases_api import API_FAULTS, BOUND_S, RECOVER_WITHIN_S, FaultStack
from bench.fault_cases_pipeline import PIPELINE_FAULTS
from bench.harness import bench_home

COLUMNS = ("fault", "statuses", "p99_ms", "recover_s", "ledger_ok", "note")


def api_rows() -> list[dict]:
    """Every API fault, one after another, on one stack (each leaves the service recovered for the next)."""
    with bench_home("mi-bench-faults-", {"MI_SOURCE": "sim"}) as (home, env), FaultStack(home, env) as stack:
        return [fault(stack).row for fault in API_FAULTS]


def statuses_text(statuses: dict) -> str:
    return ", ".join(f"{status} x{count}" for status, count in statuses.items()) or "-"


def table(rows: list[dict]) -> str:
    """A Markdown table of the rows, in COLUMNS order."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        cells = [r["fault"], statuses_text(r["statuses"]), r["p99_ms"], r["recover_s"],
                 "yes" if r["ledger_ok"] else "NO", r.get("note", "")]
        lines.append("| " + " | ".join("-" if c is None else str(c) for c in cells) + " |")
    return "\n".join(lines)


def main() -> int:
    rows = api_rows()
    for case in PIPELINE_FAULTS:
        rows.append(case())
    print(f"Bound: every answer during a fault within {BOUND_S:g} s; recovery watched for {RECOVER_WITHIN_S:g} s "
          "after the part returns. Simulated data.")
    print(table(rows))
    return 0 if all(r["ledger_ok"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
