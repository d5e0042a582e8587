"""The MCP server against the real server (`make run`'s config.serve), driven by the MCP SDK's
own client, as Claude Desktop or Cursor would: initialize, the tools a key's scopes allow,
drafting, previewing and scheduling a post (held for approval), a retried call, the daily post
budget and an AI call within the credit budget."""

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx2
import pytest
import requests
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from tests.servers import ROOT, api_server, migrate, server_env

pytestmark = pytest.mark.server

PASSWORD = "Correct-horse-7"
SETUP = """
import json
import django
django.setup()
from accounts.services.api_keys import api_key_create
from accounts.services.users import user_create
from accounts.services.workspaces import workspace_personal
from social.models import SocialAccount
user = user_create(email="ada@example.com", password="PASSWORD")
actor = workspace_personal(user=user)
full = api_key_create(actor=actor, name="Claude", scopes=["posts:read", "posts:write",
    "accounts:read", "ai:write", "notifications:read"])[1]
reader = api_key_create(actor=actor, name="Reader", scopes=["posts:read"])[1]
account = SocialAccount.objects.create(user=user, workspace=actor.workspace, provider="devto",
    provider_user_id="1", username="ada", access_token="devto-key")
print(json.dumps({"full": full, "reader": reader, "account": str(account.pk)}))
""".replace("PASSWORD", PASSWORD)


@pytest.fixture(scope="module")
def live(tmp_path_factory) -> Iterator[tuple[str, dict[str, str]]]:
    env = server_env(
        DATABASE_URL=f"sqlite:///{tmp_path_factory.mktemp('mcp') / 'db.sqlite3'}",
        EVENTS_REPLAY_SETTLE_SECONDS="0",  # /api/events shows the newest events at once
    )
    migrate(env)
    made = subprocess.run([sys.executable, "-c", SETUP], cwd=ROOT, env=env, check=True,
                          capture_output=True, timeout=60)  # fmt: skip
    with api_server(env) as base:
        yield base, json.loads(made.stdout.decode().strip().splitlines()[-1])


def run(base: str, key: str, steps: Any) -> Any:
    """Run `steps(client)` with the SDK's client connected to /mcp with `key`."""

    async def main() -> Any:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"}, timeout=30) as http,
            Client(streamable_http_client(f"{base}/mcp", http_client=http)) as client,
        ):
            return await steps(client)

    return asyncio.run(main())


def in_a_day() -> str:
    return (datetime.now(UTC) + timedelta(days=1)).replace(microsecond=0).isoformat()


def session_of(base: str) -> dict[str, str]:
    login = requests.post(f"{base}/api/auth/login", json={"email": "ada@example.com",
                          "password": PASSWORD}, timeout=30)  # fmt: skip
    assert login.status_code == 200, login.text
    return {"Authorization": f"Bearer {login.json()['data']['token']}"}


def test_unauthenticated_or_a_session_token_is_401_with_the_resource_metadata(live):
    base, _ = live
    body = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
    for headers in ({}, session_of(base), {"X-API-Key": "fgp_" + "x" * 40}):
        answer = requests.post(f"{base}/mcp", json=body, headers=headers, timeout=30)
        assert answer.status_code == 401, answer.text
        assert answer.headers["WWW-Authenticate"] == (
            f'Bearer resource_metadata="{base}/.well-known/oauth-protected-resource/mcp"'
        )  # PUBLIC_URL: the server's own address by default


def test_tools_are_listed_by_the_keys_scopes(live):
    base, made = live

    async def names(client: Any) -> list[str]:
        return [tool.name for tool in (await client.list_tools()).tools]

    assert run(base, made["reader"], names) == [
        "whoami", "get_post", "list_posts", "preview_post", "get_analytics",
    ]  # fmt: skip
    full = run(base, made["full"], names)
    assert {"create_post", "schedule_post", "publish_now", "generate", "list_accounts"} <= set(full)

    async def refused(client: Any) -> Any:
        return await client.call_tool("create_post", {"content": "Hi"})

    result = run(base, made["reader"], refused)
    assert result.is_error
    assert result.structured_content["error"]["code"] == "insufficient_scope"

    async def unknown(client: Any) -> Any:
        with pytest.raises(MCPError) as raised:
            await client.call_tool("no_such_tool", {})
        with pytest.raises(MCPError) as malformed:
            await client.call_tool("get_post", {"postId": 5})
        return raised.value, malformed.value

    raised, malformed = run(base, made["full"], unknown)
    assert (raised.code, raised.data["field"]) == (-32602, "name")
    assert (malformed.code, malformed.data["field"]) == (-32602, "postId")


def test_draft_preview_schedule_retry_budget_and_credits(live):
    base, made = live
    account = made["account"]

    async def steps(client: Any) -> dict[str, Any]:
        seen: dict[str, Any] = {"whoami": await client.call_tool("whoami", {})}
        draft = {"title": "Launch", "content": "We launch today.", "idempotencyKey": "draft-1"}
        seen["draft"] = await client.call_tool("create_post", draft)
        seen["again"] = await client.call_tool("create_post", draft)
        seen["reused"] = await client.call_tool("create_post", {**draft, "content": "Other"})
        post_id = seen["draft"].structured_content["id"]
        seen["preview"] = await client.call_tool(
            "preview_post", {"postId": post_id, "accountIds": [account]}
        )
        seen["scheduled"] = await client.call_tool(
            "schedule_post",
            {"postId": post_id, "accountIds": [account], "scheduledTime": in_a_day(),
             "idempotencyKey": "schedule-1"},
        )  # fmt: skip
        seen["posts"] = await client.call_tool("list_posts", {})
        seen["generated"] = await client.call_tool(
            "generate",
            {"tool": "keywords_find", "input": {"topic": "django"}, "idempotencyKey": "ai-1"},
        )
        seen["generated_again"] = await client.call_tool(
            "generate",
            {"tool": "keywords_find", "input": {"topic": "django"}, "idempotencyKey": "ai-1"},
        )
        seen["credits"] = await client.call_tool("get_credits", {})
        return seen

    seen = run(base, made["full"], steps)
    agent = seen["whoami"].structured_content["agent"]
    assert agent["policy"] == {"autopublish": False, "maxPostsPerDay": 10,
                               "creditBudgetPerDay": 20, "accountIds": None}  # fmt: skip
    assert not seen["draft"].is_error
    assert seen["again"].structured_content == seen["draft"].structured_content
    assert seen["reused"].structured_content["error"]["code"] == "idempotency_key_reused"
    assert seen["preview"].structured_content["items"][0]["valid"] is True
    scheduled = seen["scheduled"].structured_content
    assert scheduled["status"] == "approval_requested", scheduled
    assert [r["status"] for r in scheduled["scheduledRecords"]] == ["PendingApproval"]
    assert seen["posts"].structured_content["meta"]["total"] == 1  # the retried draft: one post
    assert seen["generated"].structured_content == seen["generated_again"].structured_content
    assert seen["credits"].structured_content["credits_remaining"] == 19  # spent once

    headers = session_of(base)
    listed = requests.get(f"{base}/api/agents", headers=headers, timeout=30).json()["data"]
    used = {a["name"]: (a["id"], a["postsToday"], a["creditsToday"]) for a in listed}
    assert used["Claude"] == (agent["id"], 1, 1)  # one post scheduled, one credit
    events = requests.get(f"{base}/api/events", headers=headers, timeout=30).json()["data"]
    requested = [e for e in events if e["type"] == "approval.requested"]
    assert requested[0]["actor"] == {"type": "agent", "id": agent["id"], "name": "Claude"}

    # One post a day: the next one is refused, and nothing is written.
    patched = requests.patch(f"{base}/api/agents/{agent['id']}", headers=headers,
                             json={"policy": {"maxPostsPerDay": 1}}, timeout=30)  # fmt: skip
    assert patched.status_code == 200, patched.text

    async def over_budget(client: Any) -> Any:
        return await client.call_tool(
            "schedule_post",
            {"content": "One too many", "accountIds": [account], "scheduledTime": in_a_day()},
        )

    refused = run(base, made["full"], over_budget).structured_content["error"]
    assert refused["code"] == "agent_budget_exceeded"
    assert refused["details"]["budget"] == "maxPostsPerDay"
    posts = requests.get(f"{base}/api/social/posts", headers=headers, timeout=30).json()["data"]
    assert [p["content"] for p in posts] == ["We launch today."]
