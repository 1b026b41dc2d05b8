"""OpenTelemetry traces, on only when the operator sets OTEL_EXPORTER_OTLP_ENDPOINT (and free of cost otherwise:
nothing is imported or wrapped). The ASGI app is wrapped in OpenTelemetry's ASGI middleware (Falcon's own
instrumentation covers its WSGI app only): a server span per request, named by method and path, with the standard
HTTP attributes, exported over OTLP/HTTP in batches. The exporter reads the standard OTEL_* variables (endpoint,
headers, service name) itself."""
from __future__ import annotations

import os

ENDPOINT_ENV = "OTEL_EXPORTER_OTLP_ENDPOINT"


def traced(app, service_name: str = "marketintel-api"):
    """`app` with a span per request, when an OTLP endpoint is configured; else `app` itself."""
    if not os.environ.get(ENDPOINT_ENV):
        return app
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.instrumentation.asgi import OpenTelemetryMiddleware
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    provider = TracerProvider(resource=Resource.create({SERVICE_NAME: os.environ.get("OTEL_SERVICE_NAME",
                                                                                      service_name)}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    trace.set_tracer_provider(provider)
    return OpenTelemetryMiddleware(app, tracer_provider=provider, excluded_urls="/metrics,/health")
