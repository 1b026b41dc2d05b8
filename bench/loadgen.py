"""The load generator: C HTTP/1.1 keep-alive connections, each sending requests back to back for a fixed time.

`wrk` (Debian's package) when it is on PATH, with bench/wrk_report.lua reporting the merged figures; else a
Python asyncio generator spread over several processes, so that neither is one Python process's ceiling.
BENCH_GENERATOR=python picks the Python one even where wrk is installed. Loopback only.

Each result has the generator's own CPU time (`generator_cpu_s`), so a bench can show how much of the
machine the client took next to the server."""
from __future__ import annotations

import asyncio
import multiprocessing
import os
import resource
import shutil
import statistics
import subprocess
import time
from pathlib import Path

STAGGER_S = 0.005  # between connection opens (Python generator)
LUA = Path(__file__).with_name("wrk_report.lua")
WRK_THREADS = 2
PY_PROCESSES = int(os.environ.get("BENCH_GENERATOR_PROCESSES", str(max(2, os.cpu_count() or 2))))
PY_LEAD_S = 1.0  # the Python generator's processes start loading this long after `run` is called


def _wrk() -> str | None:
    return shutil.which("wrk") if os.environ.get("BENCH_GENERATOR", "wrk") != "python" else None


def lead_s() -> float:
    """Seconds from calling `run` to the load's first connection."""
    return 0.0 if _wrk() else PY_LEAD_S


def generator() -> str:
    """Which generator `run` uses here, as the bench prints it."""
    wrk = _wrk()
    if wrk:
        version = subprocess.run([wrk, "-v"], capture_output=True, text=True).stdout.split(" [")[0]
        return f"{version} (-t{WRK_THREADS}, one process; Lua: bench/{LUA.name})"
    return f"Python asyncio over {PY_PROCESSES} processes (bench/loadgen.py)"


def run(host: str, port: int, path: str, headers: dict[str, str] | None = None, connections: int = 16,
        seconds: float = 8.0, method: str = "GET", body: bytes = b"") -> dict:
    """{requests, rps, p50_ms, p99_ms, statuses {code: n}, errors, generator ('wrk' or 'python'),
    generator_cpu_s}. Every request is `method path` with `headers` and `body`."""
    wrk = _wrk()
    if wrk:
        return _run_wrk(wrk, host, port, path, headers or {}, connections, seconds, method, body)
    return _python(host, port, path, headers or {}, connections, seconds, method, body)


def _run_wrk(wrk: str, host: str, port: int, path: str, headers: dict, connections: int, seconds: float,
             method: str, body: bytes) -> dict:
    argv = [wrk, f"-t{min(WRK_THREADS, connections)}", f"-c{connections}", f"-d{max(1, round(seconds))}s",
            "--timeout", "5s", "-s", str(LUA)]
    for name, value in headers.items():
        argv += ["-H", f"{name}: {value}"]
    before = _children_cpu()
    env = {**os.environ, "BENCH_METHOD": method, "BENCH_BODY": body.decode()}  # wrk_report.lua sets them
    out = subprocess.run(argv + [f"http://{host}:{port}{path}"], capture_output=True, text=True, check=True,
                         env=env).stdout
    cpu = _children_cpu() - before
    figures = dict(line.split()[1:3] for line in out.splitlines() if line.startswith("bench "))
    statuses = {int(k.removeprefix("status_")): int(v) for k, v in figures.items() if k.startswith("status_")}
    errors = {k.removeprefix("error_"): int(v) for k, v in figures.items() if k.startswith("error_") and int(v)}
    requests, duration_s = int(figures["requests"]), int(figures["duration_us"]) / 1e6
    return {"requests": requests, "rps": requests / duration_s, "p50_ms": int(figures["p50_us"]) / 1000,
            "p99_ms": int(figures["p99_us"]) / 1000, "statuses": statuses, "errors": errors, "generator": "wrk",
            "generator_cpu_s": cpu}


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _python(host: str, port: int, path: str, headers: dict, connections: int, seconds: float, method: str,
            body: bytes) -> dict:
    head = "".join(f"{k}: {v}\r\n" for k, v in {**headers, **({"Content-Length": len(body)} if body else {})}.items())
    request = f"{method} {path} HTTP/1.1\r\nHost: {host}\r\n{head}\r\n".encode() + body
    processes = max(1, min(PY_PROCESSES, connections))
    ctx = multiprocessing.get_context("spawn")  # no fork of the bench's threads
    queue = ctx.Queue()
    start_at = time.time() + PY_LEAD_S  # every process starts on the same clock, once all are up
    workers = [ctx.Process(target=_shard, args=(queue, host, port, request, list(range(i, connections, processes)),
                                                start_at, seconds)) for i in range(processes)]
    for w in workers:
        w.start()
    shards = [queue.get(timeout=seconds + 60) for _ in workers]
    for w in workers:
        w.join()
    latencies = sorted(x for shard in shards for x in shard["latencies"])
    statuses: dict[int, int] = {}
    for shard in shards:
        for code, n in shard["statuses"].items():
            statuses[code] = statuses.get(code, 0) + n
    elapsed = max(shard["elapsed"] for shard in shards)
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 100 else [latencies[-1]] * 99
    return {"requests": len(latencies), "rps": len(latencies) / elapsed, "p50_ms": q[49] * 1000,
            "p99_ms": q[98] * 1000, "statuses": statuses, "errors": {}, "generator": "python",
            "generator_cpu_s": sum(shard["cpu_s"] for shard in shards)}


def _shard(queue, host: str, port: int, request: bytes, indexes: list[int], start_at: float, seconds: float) -> None:
    """One process's share of the connections; connection i opens i * STAGGER_S after the start."""
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    time.sleep(max(0.0, start_at - time.time()))
    cpu, started = time.process_time(), time.perf_counter()
    stop_at = started + seconds

    async def main():
        # Connections open a little apart: a burst of them would all be accepted by whichever server process
        # wakes first (asyncio accepts a whole backlog at once), and the run would measure one worker.
        await asyncio.gather(*[_connection(host, port, request, stop_at, latencies, statuses, i * STAGGER_S)
                               for i in indexes])

    asyncio.run(main())
    queue.put({"latencies": latencies, "statuses": statuses, "elapsed": time.perf_counter() - started,
               "cpu_s": time.process_time() - cpu})


async def _connection(host: str, port: int, request: bytes, stop_at: float, latencies: list[float], statuses: dict,
                      delay: float = 0.0):
    await asyncio.sleep(delay)
    reader, writer = await asyncio.open_connection(host, port)
    try:
        while time.perf_counter() < stop_at:
            started = time.perf_counter()
            writer.write(request)
            status_line = await reader.readline()
            length = 0
            while True:
                line = await reader.readline()
                if line in (b"\r\n", b""):
                    break
                name, _, value = line.partition(b":")
                if name.lower() == b"content-length":
                    length = int(value)
            await reader.readexactly(length)
            latencies.append(time.perf_counter() - started)
            code = int(status_line.split()[1])
            statuses[code] = statuses.get(code, 0) + 1
    finally:
        writer.close()
