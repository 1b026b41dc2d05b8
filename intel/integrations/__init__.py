"""Where agents meet the service without reading REST docs: tool definitions (function calling, MCP), agent cards,
framework configurations and agent templates, built as plain data from the module registry, the request models'
JSON Schemas and the price list (the callers pass those in: nothing here does I/O or imports the API)."""
