"""Fixtures of the agents' tests: an agent connection of Ada's (an API key used on /mcp) and
her connected account, and a tool call as the MCP server makes one."""

from typing import Any

import pytest

from accounts.selectors import api_key_get_by_secret
from agents.mcp.calls import Caller, Result, tool_call
from agents.mcp.dispatch import Origin
from agents.services import agent_connection_for_key
from social.models import SocialAccount
from tests.factories import api_key_for
from tests.social.standins import DEVTO_KEY

ALL_SCOPES = ("posts:read", "posts:write", "accounts:read", "ai:write", "notifications:read")


def caller_for(user: Any, *scopes: str, name: str = "Claude") -> Caller:
    secret = api_key_for(user, *scopes, name=name)
    key = api_key_get_by_secret(secret=secret)
    assert key is not None
    origin = Origin(secret=secret, host="testserver", scheme="http", remote_addr="127.0.0.1")
    return Caller(key=key, connection=agent_connection_for_key(key=key), origin=origin)


@pytest.fixture
def agent(ada) -> Caller:
    return caller_for(ada, *ALL_SCOPES)


@pytest.fixture
def devto(ada) -> SocialAccount:
    """Ada's DEV account (no call reaches DEV in these tests: nothing is published)."""
    return SocialAccount.objects.create(
        user=ada,
        workspace=ada.personal_workspace,
        provider="devto",
        provider_user_id="1",
        username="ada",
        access_token=DEVTO_KEY,
    )


def call(caller: Caller, name: str, **arguments: Any) -> Result:
    """A tool call as the server makes one, the connection read afresh (its policy)."""
    caller.connection.refresh_from_db()
    return tool_call(caller, name, arguments)
