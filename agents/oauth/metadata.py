"""The discovery documents an MCP client reads first: where /mcp's tokens come from (RFC 9728)
and what the authorization server offers (RFC 8414), both at PUBLIC_URL."""

from typing import Any

from django.conf import settings
from oauth2_provider.scopes import get_scopes_backend

MCP_PATH = "/mcp"


def resource_url() -> str:
    """The protected resource, as tokens name it (`resource`, RFC 8707)."""
    return f"{settings.PUBLIC_URL}{MCP_PATH}"


def resource_metadata_url() -> str:
    """The RFC 9728 document of /mcp (the well-known path, then the resource's path)."""
    return f"{settings.PUBLIC_URL}/.well-known/oauth-protected-resource{MCP_PATH}"


def scopes_supported() -> list[str]:
    return list(get_scopes_backend().get_all_scopes())


def protected_resource() -> dict[str, Any]:
    return {
        "resource": resource_url(),
        "authorization_servers": [settings.PUBLIC_URL],
        "scopes_supported": scopes_supported(),
        "bearer_methods_supported": ["header"],
        "resource_name": "Freelancer Growth Platform MCP server",
    }


def authorization_server() -> dict[str, Any]:
    base = settings.PUBLIC_URL
    return {
        "issuer": base,
        "authorization_endpoint": f"{base}/oauth/authorize",
        "token_endpoint": f"{base}/oauth/token",
        "registration_endpoint": f"{base}/oauth/register",
        "revocation_endpoint": f"{base}/oauth/revoke",
        "response_types_supported": ["code"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none"],
        "revocation_endpoint_auth_methods_supported": ["none"],
        "scopes_supported": scopes_supported(),
    }
