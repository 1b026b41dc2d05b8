"""The 200 bodies of the routes where agents meet the service: /mcp's manifest, its health and server card, the A2A
agent cards, the function-calling and framework configurations (api/resources/mcp_endpoint.py, mcp_info.py,
agent_cards.py, integrations.py). POST /mcp documents its JSON-RPC exchange with its own models."""
from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from api.response_docs_routes import Obj, Objs, body

MCPManifest = body("MCPManifest", "GET /mcp: the MCP server manifest.", name=str, version=str, protocolVersion=str,
                   protocolVersions=list[str], transport=str, endpoint=str, tools=Objs, tools_total=int,
                   tools_by_tier=dict[str, int], your_tier=str, auth=Obj, docs=str, server_card=str,
                   register_=Annotated[Obj, Field(alias="register")])  # `register` would shadow BaseModel's
MCPHealth = body("MCPHealth", "GET /mcp/health and /health/mcp: always 200, `status` up or down.", status=str,
                 checks=dict[str, str], uptime_seconds=float)
MCPServerCard = body("MCPServerCard", "The MCP server card (SEP-1649/SEP-2127 discovery).", serverInfo=Obj,
                     protocolVersion=str, protocolVersions=list[str], description=str, transport=Obj,
                     capabilities=Obj, authentication=Obj, tools=Obj, documentation=str, manifest=str, health=str)
LegacyAgentCard = body("LegacyAgentCard", "GET /.well-known/agent.json: an A2A agent card, protocol 0.2.5.",
                       protocolVersion=str, name=str, description=str, url=str, version=str, capabilities=Obj,
                       skills=Objs, securitySchemes=Obj, security=Objs, defaultInputModes=list[str],
                       defaultOutputModes=list[str])
CurrentAgentCard = body("CurrentAgentCard", "GET /.well-known/agent-card.json: the card in the current A2A "
                        "release's shape.", name=str, description=str, version=str, supportedInterfaces=Objs,
                        capabilities=Obj, skills=Objs, securitySchemes=Obj, securityRequirements=Objs,
                        defaultInputModes=list[str], defaultOutputModes=list[str])
FunctionCallingTools = body("FunctionCallingTools", "Chat-completions `tools` for a tier.", tier=str, count=int,
                            tools_total=int, tools=Objs, routes=dict[str, Obj])
FunctionCallingConfig = body("FunctionCallingConfig", "The tools, their routes, a system prompt and example code.",
                             tier=str, count=int, tools=Objs, routes=dict[str, Obj], system_prompt=str,
                             base_url=str, auth=Obj, example_code=dict[str, str])
ChainConfig = body("ChainConfig", "An agent toolkit configuration and code.", tier=str, base_url=str, framework=str,
                   toolkit=Obj, system_prompt=str, requirements=list[str], example_code=dict[str, str])
CrewConfig = body("CrewConfig", "Crew agent templates, their tasks and tools, and code.", tier=str, base_url=str,
                  framework=str, agents=Objs, tasks=Objs, tools=Objs, requirements=list[str],
                  example_code=dict[str, Any])
