"""A local server that speaks every live source's wire format over the real history files, for the
wire-format equivalence test: a live ingest against it must hold what a replay ingest of the same files holds.

The wire modules in `tests/intel/providers/live/wire/` say how each publisher answers; this file routes
requests to them by the first path segment, records them, and injects the failures real sources show
(`faults[prefix] = mode`, see `FAULTS`)."""
from __future__ import annotations

import importlib
import pkgutil
import threading
import time
from collections import Counter
from dataclasses import dataclass
from datetime import date
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from urllib.parse import parse_qs, urlparse

from intel.providers.replay import read_series_csv
from tests.intel.providers.live import wire

HTML = b"<!DOCTYPE html><html><head><title>Access denied</title></head><body>Forbidden</body></html>"
# Stooq's anti-bot answer since July 2026: a page asking the browser to solve a proof of work (status 200)
POW = (b"<!DOCTYPE html><html><head><title>Checking your browser</title><script>"
       b"/* proof-of-work challenge */</script></head><body>One moment...</body></html>")
FAULTS = ("403", "429", "503", "html", "pow", "truncated", "empty", "timeout")


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    query: dict[str, str]
    body: bytes
    headers: dict[str, str]


def wire_modules() -> dict[str, ModuleType]:
    """{prefix: wire module} of every module in the `wire` package."""
    out = {}
    for info in pkgutil.iter_modules(wire.__path__):
        module = importlib.import_module(f"{wire.__name__}.{info.name}")
        out[module.PREFIX] = module
    return out


@cache
def _series(path: Path) -> tuple[tuple[date, float], ...]:
    frame = read_series_csv(path)
    return tuple(zip(frame["date"].to_list(), frame["value"].to_list()))


class History:
    """The history files' observations dated on or before `today`."""

    def __init__(self, folder: Path, today: date) -> None:
        self.folder, self.today = folder, today

    def points(self, series_id: str) -> list[tuple[date, float]]:
        path = self.folder / f"{series_id}.csv"
        if not path.exists():
            return []
        return [(d, v) for d, v in _series(path) if d <= self.today]

    def series_ids(self) -> list[str]:
        return sorted(p.stem for p in self.folder.glob("*.csv"))


class HistoryServer:
    def __init__(self, history: History) -> None:
        self.history = history
        self.modules = wire_modules()
        self.faults: dict[str, str] = {}
        self.hits: Counter = Counter()
        self.requests: list[Request] = []
        self.timeout_sleep_s = 2.0
        handler = type("Handler", (_Handler,), {"owner": self})
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        self._thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    def __enter__(self) -> HistoryServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

    def env(self) -> dict[str, str]:
        """MI_LIVE_* variables pointing every live source here."""
        return {name: f"{self.url}{suffix}" for m in self.modules.values() for name, suffix in m.ENV.items()}

    def answer(self, request: Request) -> tuple[int, bytes, str, dict[str, str]]:
        prefix = request.path.strip("/").split("/")[0]
        self.hits[prefix] += 1
        self.requests.append(request)
        mode = self.faults.get(prefix)
        if mode == "403":
            return 403, HTML, "text/html", {}
        if mode == "429":
            return 429, b"Too Many Requests", "text/plain", {"Retry-After": "0"}
        if mode == "503":
            return 503, HTML, "text/html", {}
        if mode == "html":  # an error or consent page with status 200 and a lying content type
            return 200, HTML, "text/csv", {}
        if mode == "pow":
            return 200, POW, "text/html; charset=utf-8", {}
        if mode == "empty":
            return 200, b"", "text/plain", {}
        if mode == "timeout":
            time.sleep(self.timeout_sleep_s)
            return 504, b"", "text/plain", {}
        module = self.modules.get(prefix)
        answer = module.respond(request, self.history) if module else None
        if answer is None:
            return 404, b"Not Found", "text/plain", {}
        status, body, ctype = answer
        if mode == "truncated":
            body = body[: int(len(body) * 0.6) - 1]  # cut mid-line, as a dropped connection leaves a file
        return status, body, ctype, {}


class _Handler(BaseHTTPRequestHandler):
    owner: HistoryServer

    def log_message(self, *args) -> None:
        pass

    def do_GET(self) -> None:  # noqa: N802
        self._serve(b"")

    def do_POST(self) -> None:  # noqa: N802
        self._serve(self.rfile.read(int(self.headers.get("Content-Length") or 0)))

    def _serve(self, body: bytes) -> None:
        url = urlparse(self.path)
        query = {k: v[0] for k, v in parse_qs(url.query, keep_blank_values=True).items()}
        request = Request(self.command, url.path, query, body, {k.lower(): v for k, v in self.headers.items()})
        status, payload, ctype, headers = self.owner.answer(request)
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(payload)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass
