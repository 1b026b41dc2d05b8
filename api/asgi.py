"""The ASGI entry for gunicorn: `gunicorn api.asgi:app -k uvicorn_worker.UvicornWorker`."""
from api.app import create_asgi_app
from marketintel.settings import get_settings

app = create_asgi_app(get_settings())  # Falcon and MCP (api/mcp) in one process
