"""/mcp with an OAuth access token, through its ASGI application and the MCP SDK's own client:
the tools its consented scopes allow, acting as its user; after revocation, after the agent is
deleted, once expired, or a login JWT: 401 with the RFC 9728 challenge."""

import asyncio
from collections.abc import Awaitable, Callable
from datetime import timedelta
from typing import Any

import httpx2
import pytest
from django.test import Client as DjangoClient
from django.utils import timezone
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from oauth2_provider.models import AccessToken

from accounts.services.sessions import session_issue
from agents.mcp import server
from agents.mcp.server import mcp_app, mcp_running
from tests.agents.oauth_flow import Flow, query_of

# The tools run on worker threads, each with its own database connection: committed rows.
pytestmark = pytest.mark.django_db(transaction=True)

BASE = "http://testserver"
APP: Any = mcp_app  # the ASGI callable, typed loosely as config.asgi types it
CHALLENGE = f'Bearer resource_metadata="{BASE}/.well-known/oauth-protected-resource/mcp"'
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}


def serve(token: str, steps: Callable[[Any], Awaitable[Any]]) -> Any:
    """`steps(client)` with the SDK's client on /mcp with this Bearer, in process."""

    async def main() -> Any:
        async with (
            mcp_running(),
            httpx2.AsyncClient(
                transport=httpx2.ASGITransport(app=APP),
                base_url=BASE,
                headers={"Authorization": f"Bearer {token}"},
                timeout=30,
            ) as http,
            Client(streamable_http_client(f"{BASE}/mcp", http_client=http)) as client,
        ):
            return await steps(client)

    return asyncio.run(main())


def raw(token: str) -> Any:
    """One bare JSON-RPC ping with this Bearer (the door's answer, no SDK client)."""

    async def main() -> Any:
        async with httpx2.AsyncClient(
            transport=httpx2.ASGITransport(app=APP), base_url=BASE, timeout=30
        ) as http:
            return await http.post(
                "/mcp",
                json=PING,
                headers={"Authorization": f"Bearer {token}", "Accept": "application/json"},
            )

    return asyncio.run(main())


@pytest.fixture(autouse=True)
def _sessions(monkeypatch) -> None:
    # The SDK's session manager runs once per instance: each test's server gets its own.
    monkeypatch.setattr(
        server,
        "sessions",
        StreamableHTTPSessionManager(
            app=server.server,
            json_response=True,
            stateless=True,
            security_settings=server.sessions.security_settings,
        ),
    )


@pytest.fixture
def granted(settings, ada, ada_client) -> dict[str, Any]:
    """Ada's approved grant to Claude with posts:read and accounts:read, for /mcp."""
    settings.PUBLIC_URL = BASE
    flow = Flow(DjangoClient())
    assert flow.register().status_code == 201
    request_id = flow.request_id(flow.authorize(resource=f"{BASE}/mcp"))
    decided = ada_client.post(
        f"/api/oauth/requests/{request_id}",
        {
            "approve": True,
            "scopes": ["posts:read", "accounts:read"],
            "workspaceId": str(ada.personal_workspace.pk),
        },
        format="json",
    )
    assert decided.status_code == 200, decided.content
    tokens = flow.token(query_of(decided.json()["data"]["redirectUrl"])["code"])
    assert tokens.status_code == 200, tokens.content
    return {"flow": flow, **tokens.json()}


async def names(client: Any) -> list[str]:
    return [tool.name for tool in (await client.list_tools()).tools]


def test_the_token_lists_the_consented_scopes_tools_and_acts_as_its_user(granted, ada):
    async def steps(client: Any) -> tuple[Any, Any, Any]:
        listed = await names(client)
        whoami = await client.call_tool("whoami", {})
        return listed, whoami, await client.call_tool("create_post", {"content": "Hi"})

    listed, whoami, refused = serve(granted["access_token"], steps)
    assert listed == [
        "whoami", "list_platforms", "list_accounts", "account_health", "get_post", "list_posts",
        "preview_post", "get_analytics",
    ]  # fmt: skip
    assert not whoami.is_error, whoami.structured_content
    assert whoami.structured_content["email"] == ada.email
    assert whoami.structured_content["agent"]["kind"] == "oauth"
    assert whoami.structured_content["agent"]["last_used_at"] is not None
    assert refused.is_error
    assert refused.structured_content["error"]["code"] == "insufficient_scope"


def test_a_revoked_token_is_401_with_the_resource_metadata(granted):
    assert granted["flow"].revoke(granted["access_token"]).status_code == 200
    answer = raw(granted["access_token"])
    assert answer.status_code == 401
    assert answer.headers["WWW-Authenticate"] == CHALLENGE


def test_a_deleted_agents_tokens_are_401(granted, ada_client):
    agent_id = ada_client.get("/api/agents").json()["data"][0]["id"]
    assert ada_client.delete(f"/api/agents/{agent_id}").status_code == 200
    answer = raw(granted["access_token"])
    assert (answer.status_code, answer.headers["WWW-Authenticate"]) == (401, CHALLENGE)


def test_an_expired_token_or_a_login_jwt_is_401(granted, ada):
    AccessToken.objects.update(expires=timezone.now() - timedelta(seconds=1))
    for token in (granted["access_token"], session_issue(user=ada).token):
        answer = raw(token)
        assert (answer.status_code, answer.headers["WWW-Authenticate"]) == (401, CHALLENGE)
