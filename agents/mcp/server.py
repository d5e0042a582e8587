"""`POST /mcp`: the MCP SDK's low-level server over its Streamable HTTP transport (stateless,
JSON answers), behind the API-key check. config/asgi.py mounts `mcp_app` and runs
`mcp_running()` for the server's lifetime (its lifespan).

Who calls: `Authorization: Bearer fgp_...` or `X-API-Key: fgp_...` (accounts' own lookup of
keys), or `Authorization: Bearer <an OAuth access token>` (agents.oauth: the grant's connection
and its key). No credential, an unknown, revoked or expired key or token, or a login JWT (not a
way in): 401 with `WWW-Authenticate: Bearer resource_metadata="..."`, the RFC 9728 document of
/mcp, where an MCP client learns how to get a token (agents.md section 1)."""

import contextlib
import json
from collections.abc import AsyncIterator
from typing import Any

import mcp_types as types
from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections
from django.http.request import split_domain_port, validate_host
from mcp.server.lowlevel import Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError

from accounts.models import API_KEY_PREFIX, ApiKey
from accounts.selectors import api_key_get_by_secret
from accounts.services.api_keys import api_key_touch
from agents.mcp.calls import Caller, InvalidArguments, tool_call
from agents.mcp.dispatch import Origin
from agents.mcp.tools import description, scoped, shape
from agents.models import AgentConnection
from agents.oauth.metadata import MCP_PATH, resource_metadata_url
from agents.oauth.services import oauth_connection_for_token
from agents.services import agent_connection_for_key, agent_touch

PATH = MCP_PATH
API_KEY_HEADER = b"x-api-key"
INSTRUCTIONS = (
    "The Freelancer Growth Platform: draft, preview, schedule and publish social posts, read "
    "their analytics and notifications, and run the AI tools. Call whoami first. Posts this "
    "agent publishes, schedules or queues wait for its user's approval unless the user allowed "
    "autopublish; pass an idempotencyKey on every tool that writes, so a retry never doubles."
)


def _caller_of(ctx: Any) -> Caller:
    request = ctx.request
    caller = request.scope.get("state", {}).get("caller") if request is not None else None
    if not isinstance(caller, Caller):  # never: mcp_app lets no one in without one
        raise MCPError(code=types.INVALID_REQUEST, message="Not authenticated")
    return caller


def _in_thread(function: Any, *args: Any) -> Any:
    """Run synchronous Django code on a worker thread, its database connection handed back
    afterwards as a request's is (CONN_MAX_AGE, the pool)."""

    def run() -> Any:
        try:
            return function(*args)
        finally:
            close_old_connections()

    return sync_to_async(run, thread_sensitive=False)()


async def list_tools(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    caller = _caller_of(ctx)
    return types.ListToolsResult(
        tools=[
            types.Tool(
                name=tool.name, description=description(tool), input_schema=shape(tool.name).schema
            )
            for tool in scoped(list(caller.key.scopes))
        ]
    )


async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
    caller = _caller_of(ctx)
    arguments = params.arguments or {}
    try:
        result = await _in_thread(tool_call, caller, params.name, arguments)
    except InvalidArguments as exc:
        raise MCPError(
            code=types.INVALID_PARAMS,
            message=f"Invalid params: {exc}",
            data={"field": exc.field, "message": exc.message},
        ) from None
    return types.CallToolResult(
        content=[types.TextContent(text=result.text)],
        structured_content=result.structured,
        is_error=result.is_error,
    )


server: Server[Any] = Server(
    "freelancer-growth-platform",
    version="1",
    instructions=INSTRUCTIONS,
    on_list_tools=list_tools,
    on_call_tool=call_tool,
)
server.middleware = []  # no OpenTelemetry span per message: Django's own tracing covers the calls
sessions = StreamableHTTPSessionManager(
    app=server,
    json_response=True,
    stateless=True,
    # Hosts are Django's ALLOWED_HOSTS, checked in mcp_app before anything else.
    security_settings=TransportSecuritySettings(enable_dns_rebinding_protection=False),
)


@contextlib.asynccontextmanager
async def mcp_running() -> AsyncIterator[None]:
    """The transport's task group, for the server's lifetime (config/asgi.py's lifespan)."""
    async with sessions.run():
        yield


# --- The door ------------------------------------------------------------------------------------


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers") or ():
        if key.lower() == name:
            return bytes(value).decode("latin-1")
    return None


def presented_key(scope: dict[str, Any]) -> tuple[str | None, bool]:
    """(the API key or access token presented, whether any credential was): `X-API-Key`,
    or a Bearer; both headers at once: none."""
    header = _header(scope, API_KEY_HEADER)
    authorization = _header(scope, b"authorization")
    if header is not None:
        return (header.strip() if authorization is None else None), True
    parts = (authorization or "").split()
    if len(parts) == 2 and parts[0] == "Bearer":
        return parts[1], True
    return None, authorization is not None


def _authenticated(secret: str, user_agent: str) -> tuple[ApiKey, AgentConnection] | None:
    """An API key's connection (made at its first use), or an OAuth access token's; a login
    JWT is neither (the provider knows no such token)."""
    if not secret.startswith(API_KEY_PREFIX):
        found = oauth_connection_for_token(token=secret)
        if found is not None:
            agent_touch(connection=found[1])
            api_key_touch(key=found[0])
        return found
    key = api_key_get_by_secret(secret=secret)
    if key is None:
        return None
    connection = agent_connection_for_key(key=key, client=user_agent)
    if connection.revoked_at is not None:
        return None
    api_key_touch(key=key)
    return key, connection


async def _refuse(send: Any, status: int, code: str, message: str, headers: list[Any]) -> None:
    body = json.dumps(
        {"success": False, "message": message, "error": {"code": code, "details": {}}}
    )
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [(b"content-type", b"application/json"), *headers],
        }
    )
    await send({"type": "http.response.body", "body": body.encode()})


async def mcp_app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """The ASGI application of /mcp: the host and the key checked, then the SDK's transport."""
    host = _header(scope, b"host") or ""
    domain, _ = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        await _refuse(send, 400, "bad_request", "Invalid Host header.", [])
        return
    secret, presented = presented_key(scope)
    user_agent = _header(scope, b"user-agent") or ""
    found = await _in_thread(_authenticated, secret, user_agent) if secret else None
    if found is None:
        challenge = f'Bearer resource_metadata="{resource_metadata_url()}"'
        code, message = (
            ("invalid_token", "Unauthorized: Session expired or invalid")
            if presented
            else ("not_authenticated", "Missing Authorization Header")
        )
        await _refuse(send, 401, code, message, [(b"www-authenticate", challenge.encode())])
        return
    key, connection = found
    client = scope.get("client") or ("", 0)
    oauth = not str(secret).startswith(API_KEY_PREFIX)  # an OAuth token: its key handed on
    origin = Origin(
        secret="" if oauth else str(secret),
        key=key if oauth else None,
        host=host,
        scheme=str(scope.get("scheme") or "http"),
        remote_addr=str(client[0] or "127.0.0.1"),
        request_id=_header(scope, b"x-request-id") or "",
        user_agent=user_agent[:200],
    )
    scope.setdefault("state", {})["caller"] = Caller(key=key, connection=connection, origin=origin)
    await sessions.handle_request(scope, receive, send)
