"""The MCP server (agents.md sections 1 and 3): `POST /mcp`, served by the MCP SDK in the
same process as the REST API, whose routes every tool runs through."""
