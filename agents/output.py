"""Agent connections as their owners read them: the REST list and the MCP `whoami` share it."""

from typing import Any

from agents.models import AgentConnection, AgentUsage
from core.times import iso


def policy_data(connection: AgentConnection) -> dict[str, Any]:
    return {
        "autopublish": connection.autopublish,
        "maxPostsPerDay": connection.max_posts_per_day,
        "creditBudgetPerDay": connection.credit_budget_per_day,
        "accountIds": connection.account_ids,
    }


def agent_data(connection: AgentConnection, usage: AgentUsage | None) -> dict[str, Any]:
    """A connection as its owner sees it (never its credential)."""
    key = connection.api_key
    return {
        "id": str(connection.pk),
        "name": connection.name,
        "kind": connection.kind,
        "client": connection.client,
        "workspaceId": str(connection.workspace_id),
        "scopes": list(key.scopes) if key is not None else [],
        "policy": policy_data(connection),
        "last_used_at": iso(connection.last_used_at) if connection.last_used_at else None,
        "postsToday": usage.posts if usage else 0,
        "creditsToday": usage.credits if usage else 0,
        "created_at": iso(connection.created_at),
    }
