"""A small HTTP/1.1 keep-alive load generator: C connections, each sending requests back to back for a
fixed time; prints requests/s and latency percentiles. Loopback only."""
from __future__ import annotations

import asyncio
import statistics
import time

STAGGER_S = 0.005  # between connection opens


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


def run(host: str, port: int, path: str, headers: dict[str, str] | None = None, connections: int = 16,
        seconds: float = 8.0) -> dict:
    head = "".join(f"{k}: {v}\r\n" for k, v in (headers or {}).items())
    request = f"GET {path} HTTP/1.1\r\nHost: {host}\r\n{head}\r\n".encode()
    latencies: list[float] = []
    statuses: dict[int, int] = {}

    async def main():
        stop_at = time.perf_counter() + seconds
        # Connections open a little apart: a burst of them would all be accepted by whichever server process
        # wakes first (asyncio accepts a whole backlog at once), and the run would measure one worker.
        await asyncio.gather(*[_connection(host, port, request, stop_at, latencies, statuses, i * STAGGER_S)
                               for i in range(connections)])

    started = time.perf_counter()
    asyncio.run(main())
    elapsed = time.perf_counter() - started
    latencies.sort()
    q = statistics.quantiles(latencies, n=100) if len(latencies) > 100 else [latencies[-1]] * 99
    return {"requests": len(latencies), "rps": len(latencies) / elapsed, "p50_ms": q[49] * 1000,
            "p99_ms": q[98] * 1000, "statuses": statuses}
