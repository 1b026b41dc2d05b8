"""The ASGI entry for gunicorn: `gunicorn api.asgi:app -k uvicorn_worker.UvicornWorker`."""
import gc

from api.app import create_app
from api.tracing import traced
from marketintel.settings import get_settings

app = traced(create_app(get_settings()))  # the REST API and MCP (api/mcp) in one app; spans only with an OTLP endpoint
# What start-up built (modules, schemas, the tool catalog) lives as long as the worker: frozen out of the collector's
# generations (after one collection, so start-up's garbage is not kept), a full collection under load no longer walks
# it (MCP calls' p99 under load 134 -> 19 ms, bench/mcp.py)
gc.collect()
gc.freeze()
