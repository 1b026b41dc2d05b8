"""What the pipeline fault tests and bench/fault_cases_pipeline.py share: a materialization run in a process of
its own (optionally with its files capped, a disk that is full for it), the warehouse file checked whole, the
published copies read back, a client that records what it saw during a fault, and the ledger check.

`python -m tests.faults.pipeline_helpers` is the child: one `refresh_job` run (pipelines/materialize.py) on the
MI_* environment it was given; it prints its summary as one JSON line, or the error that escaped the run."""
from __future__ import annotations

import json
import resource
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import httpx
import orjson
import redis

ROOT = Path(__file__).resolve().parents[2]
WATCHED = ("/api/v1/pulse", "/api/v1/intelligence/market_intelligence")  # what the clients ask for during a fault
# clients may ask as often as they like: the faults, not the budgets, decide what they see; 3 years of sim history
# keep a refresh run short
FAULT_LIMITS = {"MI_PULSE_RATE_PER_MINUTE": "100000", "MI_FREE_QUERIES_PER_MODULE_PER_DAY": "1000000",
                "MI_RATE_LIMIT_FREE": "100000/minute", "MI_SIM_YEARS": "3"}
TABLES = ("observations", "module_results", "pulse_results", "product_results", "watermarks")


def capped_files(limit_bytes: int):
    """A `preexec_fn`: no file the child writes may grow past `limit_bytes` (RLIMIT_FSIZE), and the write that
    would is refused with EFBIG instead of the default SIGXFSZ, which would kill the process: what a full disk
    looks like to the writer (ENOSPC and EFBIG take the same error paths), on any CI machine, without root."""
    def apply() -> None:
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))
    return apply


def materialize_in_child(env: dict, file_limit_bytes: int | None = None, timeout_s: float = 600) -> dict:
    """One `refresh_job` run in a child process: its summary (`materialize_all`'s, plus `wall_s`), or
    {"success": False, "error": ...} when an error escaped the run; `exit_code` either way."""
    started = time.monotonic()
    child = subprocess.run([sys.executable, "-m", "tests.faults.pipeline_helpers"], cwd=ROOT, env=env,
                           capture_output=True, timeout=timeout_s,
                           preexec_fn=capped_files(file_limit_bytes) if file_limit_bytes else None)
    lines = [line for line in child.stdout.decode(errors="replace").splitlines() if line.startswith("{")]
    out = json.loads(lines[-1]) if lines else {"success": False, "error": child.stderr.decode(errors="replace")[-2000:]}
    return {**out, "exit_code": child.returncode, "wall_s": round(time.monotonic() - started, 2)}


def warehouse_rows(path: Path) -> dict[str, int]:
    """Row counts of the warehouse's tables, read through a read-only connection that is closed at once: DuckDB
    refuses to open a torn or corrupt file, so an answer means the file is whole."""
    con = duckdb.connect(str(path), read_only=True)
    try:
        return {table: con.execute(f"select count(*) from {table}").fetchone()[0] for table in TABLES}
    finally:
        con.close()


def published_metas(redis_url: str) -> dict[str, dict]:
    """The meta of every published module copy and of the pulse ("pulse"), as the API reads them."""
    from warehouse import keys

    client = redis.Redis.from_url(redis_url)
    try:
        names = sorted(m.decode() for m in client.smembers(keys.modules()))
        metas = client.mget([keys.module(n, "meta") for n in names] + [keys.pulse("meta")])
    finally:
        client.close()
    return {name: orjson.loads(meta) for name, meta in zip([*names, "pulse"], metas) if meta is not None}


@dataclass
class Watch:
    """A client asking for `paths` one after another until stopped: every status it got, and how long each
    answer took. What clients see during a fault."""
    base: str
    paths: tuple[str, ...]
    headers: dict = field(default_factory=dict)
    statuses: Counter = field(default_factory=Counter)
    waits_ms: list[float] = field(default_factory=list)
    bodies: list[tuple[int, dict]] = field(default_factory=list)  # the last answer of each path
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def __enter__(self) -> Watch:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join(30)

    def _run(self) -> None:
        with httpx.Client(base_url=self.base, headers=self.headers, timeout=30) as client:
            while not self._stop.is_set():
                for path in self.paths:
                    sent = time.perf_counter()
                    try:
                        resp = client.get(path)
                    except httpx.TransportError as exc:
                        self.statuses[type(exc).__name__] += 1
                        continue
                    self.waits_ms.append((time.perf_counter() - sent) * 1000)
                    self.statuses[resp.status_code] += 1
                    self.bodies.append((resp.status_code, resp.json()))
                    del self.bodies[:-len(self.paths)]
                self._stop.wait(0.2)

    @property
    def p99_ms(self) -> float | None:
        return p99(self.waits_ms)


def poll_until_ended(client: httpx.Client, request_id: str, api_key: str, deadline_s: float = 60,
                     every_s: float = 0.25) -> tuple[httpx.Response, Counter, list[float]]:
    """Poll a queued synthesis job's result as a client would, faster than its Retry-After so the figures show when
    it ended: (the first answer that is not 202, every status seen, each poll's wait in ms)."""
    statuses, waits = Counter(), []
    deadline = time.monotonic() + deadline_s
    while True:
        sent = time.perf_counter()
        resp = client.get(f"/api/v1/synthesis/result/{request_id}", headers={"X-API-Key": api_key})
        waits.append((time.perf_counter() - sent) * 1000)
        statuses[resp.status_code] += 1
        if resp.status_code != 202:
            return resp, statuses, waits
        if time.monotonic() > deadline:
            raise AssertionError(f"still 202 after {deadline_s} s: {resp.text}")
        time.sleep(every_s)


def p99(waits_ms: list[float]) -> float | None:
    waits = sorted(waits_ms)
    return round(waits[min(len(waits) - 1, int(len(waits) * 0.99))], 1) if waits else None


def ledger_ok(database_url: str) -> bool:
    """The ledger check: entries sum to each balance, no balance below zero (warehouse.ledger.check_consistency)."""
    from warehouse.ledger import check_consistency, make_engine

    engine = make_engine(database_url)
    try:
        return check_consistency(engine) == []
    finally:
        engine.dispose()


def main() -> None:
    from marketintel.settings import get_settings
    from pipelines.materialize import materialize_all

    try:
        out = materialize_all(get_settings())
    except BaseException as exc:  # noqa: BLE001 (the parent reports it; a full disk can fail anything)
        out = {"success": False, "error": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
