"""OAuth 2.1 for MCP clients that connect by URL (agents.md section 1), on django-oauth-toolkit."""
