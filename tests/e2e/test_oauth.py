"""End to end against `make run`: an MCP client that connects by URL, as Claude.ai does (issue
46, agents.md section 1). It meets /mcp's 401, follows the RFC 9728 and RFC 8414 documents,
registers (RFC 7591), sends the user to authorize with PKCE S256, the signed-in user consents
through the API as the web client does, the client exchanges the code, runs initialize and
tools/list (the consented scopes' tools) and a tool with the MCP SDK's own client, refreshes
(the old refresh token refused), and revokes. Printing one line per check; run by
`pytest -m e2e` (.ci/run does)."""

import asyncio
import base64
import hashlib
import secrets
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
import pytest
import requests
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.e2e.checks import Check, against_server, call, sign_up
from tests.harness import free_port

REDIRECT = "http://127.0.0.1:33418/callback"  # a loopback redirect: nothing needs to listen
TIMEOUT = 30
PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}

check = Check("e2e-oauth")


def query_of(url: str) -> dict[str, str]:
    return {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}


def mcp_tools(base: str, access_token: str) -> tuple[list[str], Any]:
    """initialize, tools/list and whoami with the SDK's client and this Bearer."""

    async def main() -> tuple[list[str], Any]:
        async with (
            httpx2.AsyncClient(
                headers={"Authorization": f"Bearer {access_token}"}, timeout=TIMEOUT
            ) as http,
            Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
        ):
            listed = [tool.name for tool in (await client.list_tools()).tools]
            return listed, await client.call_tool("whoami", {})

    return asyncio.run(main())


def ping(base: str, access_token: str) -> requests.Response:
    return requests.post(
        f"{base}/mcp",
        json=PING,
        headers={"Authorization": f"Bearer {access_token}", "Accept": "application/json"},
        timeout=TIMEOUT,
    )


def discover(base: str) -> dict[str, Any]:
    """What a client learns from /mcp's 401 alone: the authorization server's document."""
    refused = requests.post(f"{base}/mcp", json=PING, timeout=TIMEOUT)
    challenge = refused.headers.get("WWW-Authenticate", "")
    check(refused.status_code == 401 and "resource_metadata=" in challenge,
          "/mcp without a token: 401 naming its resource metadata", challenge)  # fmt: skip
    resource_url = challenge.split('resource_metadata="', 1)[1].rstrip('"')
    resource = requests.get(resource_url, timeout=TIMEOUT).json()
    check(resource["resource"] == f"{base}/mcp" and resource["authorization_servers"] == [base],
          "the protected-resource document names /mcp and its server", resource)  # fmt: skip
    server = requests.get(
        f"{resource['authorization_servers'][0]}/.well-known/oauth-authorization-server",
        timeout=TIMEOUT,
    ).json()
    check(server["code_challenge_methods_supported"] == ["S256"]
          and server["registration_endpoint"] == f"{base}/oauth/register",
          "the authorization server's document: S256, registration", server)  # fmt: skip
    return dict(server)


def walk(base: str) -> None:
    login = sign_up(base, check)
    session = login["token"]
    server = discover(base)

    registered = requests.post(
        server["registration_endpoint"],
        json={"client_name": "Claude", "redirect_uris": [REDIRECT],
              "token_endpoint_auth_method": "none"},
        timeout=TIMEOUT,
    )  # fmt: skip
    check(registered.status_code == 201, "the client registers (RFC 7591)", registered.text)
    client_id = registered.json()["client_id"]

    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    state = secrets.token_urlsafe(8)
    authorized = requests.get(
        server["authorization_endpoint"],
        params={"response_type": "code", "client_id": client_id, "redirect_uri": REDIRECT,
                "scope": "posts:read posts:write accounts:read", "state": state,
                "code_challenge": challenge.rstrip(b"=").decode(),
                "code_challenge_method": "S256", "resource": f"{base}/mcp"},
        allow_redirects=False,
        timeout=TIMEOUT,
    )  # fmt: skip
    consent_url = authorized.headers.get("Location", "")
    check(authorized.status_code == 302 and "/oauth/consent?request=" in consent_url,
          "authorize (PKCE S256) sends the browser to the consent", consent_url)  # fmt: skip
    request_id = query_of(consent_url)["request"]

    status, asked = call(base, "GET", f"/api/oauth/requests/{request_id}", token=session)
    check(status == 200 and asked["data"]["client"]["name"] == "Claude",
          "the signed-in user reads what the client asks", asked)  # fmt: skip
    status, workspaces = call(base, "GET", "/api/workspaces", token=session)
    workspace_id = workspaces["data"][0]["id"]
    status, decided = call(base, "POST", f"/api/oauth/requests/{request_id}",
                           {"approve": True, "scopes": ["posts:read", "posts:write"],
                            "workspaceId": workspace_id, "policy": {"maxPostsPerDay": 2}},
                           token=session)  # fmt: skip
    back = query_of(decided.get("data", {}).get("redirectUrl", "") if decided else "")
    check(status == 200 and back.get("state") == state and back.get("code"),
          "the user approves: back to the client with the code and its state", decided)  # fmt: skip

    token_url = server["token_endpoint"]
    exchanged = requests.post(
        token_url,
        data={"grant_type": "authorization_code", "code": back["code"], "redirect_uri": REDIRECT,
              "client_id": client_id, "code_verifier": verifier},
        timeout=TIMEOUT,
    )  # fmt: skip
    tokens = exchanged.json()
    check(exchanged.status_code == 200 and tokens.get("expires_in") == 3600,
          "the code and its verifier buy an hour's access token and a refresh token",
          exchanged.text)  # fmt: skip

    listed, whoami = mcp_tools(base, tokens["access_token"])
    check("create_post" in listed and "generate" not in listed and "list_accounts" not in listed,
          "/mcp: initialize and tools/list show the consented scopes' tools", listed)  # fmt: skip
    agent = (whoami.structured_content or {}).get("agent", {})
    check(not whoami.is_error and agent.get("kind") == "oauth"
          and agent.get("policy", {}).get("maxPostsPerDay") == 2,
          "whoami: the user's oauth agent connection with the consented policy",
          whoami.structured_content)  # fmt: skip
    status, agents = call(base, "GET", "/api/agents", token=session)
    check([a["kind"] for a in agents["data"]] == ["oauth"], "the grant is an agent", agents)

    refreshed = requests.post(
        token_url,
        data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"],
              "client_id": client_id},
        timeout=TIMEOUT,
    )  # fmt: skip
    fresh = refreshed.json()
    check(refreshed.status_code == 200 and fresh["refresh_token"] != tokens["refresh_token"],
          "a refresh returns a new refresh token", refreshed.text)  # fmt: skip
    replayed = requests.post(
        token_url,
        data={"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"],
              "client_id": client_id},
        timeout=TIMEOUT,
    )  # fmt: skip
    check(replayed.status_code == 400 and replayed.json().get("error") == "invalid_grant",
          "the old refresh token is refused (invalid_grant)", replayed.text)  # fmt: skip

    # The replay revoked the whole family (reuse protection): a new consent for the rest.
    check(ping(base, fresh["access_token"]).status_code == 401,
          "a replayed refresh token revokes the grant's tokens", "")  # fmt: skip


def walk_revocation(base: str) -> None:
    """A second grant: its access token works until revoked (RFC 7009), then 401."""
    login = sign_up(base, check)
    session = login["token"]
    registered = requests.post(f"{base}/oauth/register",
                               json={"client_name": "Cursor", "redirect_uris": [REDIRECT]},
                               timeout=TIMEOUT).json()  # fmt: skip
    verifier = secrets.token_urlsafe(48)
    challenge = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest())
    authorized = requests.get(
        f"{base}/oauth/authorize",
        params={"response_type": "code", "client_id": registered["client_id"],
                "redirect_uri": REDIRECT, "scope": "posts:read", "state": "s",
                "code_challenge": challenge.rstrip(b"=").decode(),
                "code_challenge_method": "S256"},
        allow_redirects=False,
        timeout=TIMEOUT,
    )  # fmt: skip
    request_id = query_of(authorized.headers["Location"])["request"]
    call(base, "GET", f"/api/oauth/requests/{request_id}", token=session)
    _, workspaces = call(base, "GET", "/api/workspaces", token=session)
    _, decided = call(base, "POST", f"/api/oauth/requests/{request_id}",
                           {"approve": True, "scopes": ["posts:read"],
                            "workspaceId": workspaces["data"][0]["id"]}, token=session)  # fmt: skip
    code = query_of(decided["data"]["redirectUrl"])["code"]
    tokens = requests.post(
        f"{base}/oauth/token",
        data={"grant_type": "authorization_code", "code": code, "redirect_uri": REDIRECT,
              "client_id": registered["client_id"], "code_verifier": verifier},
        timeout=TIMEOUT,
    ).json()  # fmt: skip
    check(ping(base, tokens["access_token"]).status_code == 200,
          "a second grant's access token answers on /mcp", "")  # fmt: skip
    revoked = requests.post(
        f"{base}/oauth/revoke",
        data={"token": tokens["access_token"], "client_id": registered["client_id"]},
        timeout=TIMEOUT,
    )
    check(revoked.status_code == 200, "the client revokes its access token", revoked.text)
    answer = ping(base, tokens["access_token"])
    check(answer.status_code == 401 and "resource_metadata=" in answer.headers["WWW-Authenticate"],
          "/mcp with the revoked token: 401 with the resource metadata", answer.text)  # fmt: skip


def walks(base: str) -> None:
    walk(base)
    walk_revocation(base)


@pytest.mark.e2e
@pytest.mark.server
def test_oauth(services: dict[str, str]) -> None:
    against_server(["make", "run"], free_port(), services, check, walks)
