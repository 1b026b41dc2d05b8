"""With OTEL_EXPORTER_OTLP_ENDPOINT set, each request is a server span exported over OTLP/HTTP to that endpoint (here
a local receiver that decodes the protobuf body as a collector does); without it the app is not wrapped at all."""
from __future__ import annotations

import asyncio
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import httpx
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from api.tracing import traced


class Collector(BaseHTTPRequestHandler):
    received: list[ExportTraceServiceRequest] = []

    def do_POST(self):  # noqa: N802 (http.server's name)
        body = self.rfile.read(int(self.headers["Content-Length"]))
        assert self.path == "/v1/traces" and self.headers["Content-Type"] == "application/x-protobuf"
        Collector.received.append(ExportTraceServiceRequest.FromString(body))
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.end_headers()

    def log_message(self, *args):
        pass


def test_requests_become_spans_at_the_otlp_endpoint(settings, services, monkeypatch):
    from opentelemetry import trace

    from api.app import create_app

    app = create_app(settings, services)
    assert traced(app) is app  # no endpoint: nothing wraps the app
    server = HTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", f"http://127.0.0.1:{server.server_port}")
    async def requests() -> list[int]:  # as a server sends them (falcon's test client gives `server` as an iterator)
        transport = httpx.ASGITransport(app=traced(app), client=("127.0.0.1", 5000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8000") as client:
            return [(await client.get(path)).status_code for path in ("/api/v1/pricing", "/metrics")]

    try:
        assert asyncio.run(requests()) == [200, 200]  # /metrics is excluded: scrapes are not traced
        trace.get_tracer_provider().force_flush()
    finally:
        server.shutdown()
    spans = [span for request in Collector.received for resources in request.resource_spans
             for scope in resources.scope_spans for span in scope.spans]
    names = {span.name for span in spans}
    assert "GET /api/v1/pricing" in names and not any("/metrics" in name for name in names), names
    service = {a.value.string_value for r in Collector.received[0].resource_spans for a in r.resource.attributes
               if a.key == "service.name"}
    assert service == {"marketintel-api"}
