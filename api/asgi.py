"""The ASGI entry for gunicorn: `gunicorn api.asgi:app -k uvicorn_worker.UvicornWorker`."""
from api.app import create_app
from marketintel.settings import get_settings

app = create_app(get_settings())  # the REST API and MCP (api/mcp) in one app
