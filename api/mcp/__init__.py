"""The MCP endpoint (interface.md "Integrations and MCP"): the official SDK's streamable HTTP server in the same
ASGI app as the REST API, its tools built from the module registry, validation models and price list, its calls
charged through the one charging service by the REST routes' own queries.

- tools.py: the tool catalog and who sees what; calls.py: what a call runs and how it answers;
- server.py: the SDK server, versions, stateless mode, its lifespan, the health probe;
- api/app.py `_add_mcp_routes` wires them; api/resources/mcp_endpoint.py: /mcp (the manifest and the transport,
  behind the app's middleware); api/resources/mcp_info.py: health and the server card."""
