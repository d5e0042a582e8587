"""How each tool runs: most run their REST twin as they are (`run_twin`); those the agent's
policy gates (agents.md section 2) check it first, and without `autopublish` the publishing
tools hold the post for its user's approval instead of sending it."""

from collections.abc import Callable
from typing import Any

from accounts.models import Workspace
from agents.mcp.calls import Caller, Result, answered, check, soon, twin
from agents.mcp.dispatch import rest_call
from agents.mcp.tools import AI_OPERATION, Tool, ai_input_schema
from agents.output import agent_data
from agents.selectors import agents_usage_today
from agents.services import (
    agent_accounts_check,
    agent_credits_release,
    agent_credits_reserve,
    agent_posts_release,
    agent_posts_reserve,
)
from aitools.tools import TOOLS as AI_TOOLS

# publish_now without autopublish: the records wait for the approval at a time just ahead
# (a schedule's time must be in the future), so they are due at once when it is approved.
PUBLISH_NOW_LEAD_SECONDS = 5

Runner = Callable[[Tool, Caller, dict[str, Any]], Result]


def run_twin(tool: Tool, caller: Caller, arguments: dict[str, Any]) -> Result:
    return answered(twin(tool, caller, arguments), f"{tool.name}: done")


def run_whoami(tool: Tool, caller: Caller, arguments: dict[str, Any]) -> Result:
    answer = twin(tool, caller, arguments)
    if not answer.ok:
        return answered(answer, "")
    connection = caller.connection
    workspace = (
        Workspace.objects.filter(pk=connection.workspace_id).values_list("name", flat=True).first()
    )
    usage = agents_usage_today(connection_ids=[connection.pk]).get(connection.pk)
    data = {
        **answer.data,
        "workspace": {"id": str(connection.workspace_id), "name": workspace},
        "agent": agent_data(connection, usage),
    }
    return Result(data, f"Acting for {data.get('email')} as the agent “{connection.name}”")


def run_picks(tool: Tool, caller: Caller, arguments: dict[str, Any]) -> Result:
    answer = twin(tool, caller, arguments)
    if not answer.ok:
        return answered(answer, "")
    data = {name: answer.data.get(name) for name in tool.picks}
    return Result(data, ", ".join(f"{name}: {value}" for name, value in data.items()))


def run_accounts(tool: Tool, caller: Caller, arguments: dict[str, Any]) -> Result:
    """The accounts the agent may use: one outside `accountIds` is refused, and not listed."""
    allowed = caller.connection.account_ids
    if "accountId" in arguments:
        agent_accounts_check(connection=caller.connection, account_ids=[arguments["accountId"]])
    result = answered(twin(tool, caller, arguments), "Accounts")
    if allowed is None or result.is_error or "items" not in result.structured:
        return result
    items = [item for item in result.structured["items"] if str(item.get("id")) in allowed]
    return Result({"items": items, "meta": {"total": len(items)}}, f"{len(items)} account(s)")


def run_publishing(tool: Tool, caller: Caller, arguments: dict[str, Any]) -> Result:
    """publish_now, schedule_post, add_to_queue: the accounts allowed, one post counted
    against the day's budget (given back if the call fails), then the twin, or, without
    autopublish, the post held for approval and the approval requested."""
    connection = caller.connection
    agent_accounts_check(
        connection=connection, account_ids=[str(pk) for pk in arguments.get("accountIds", [])]
    )
    agent_posts_reserve(connection=connection)
    try:
        if connection.autopublish:
            result = run_twin(tool, caller, arguments)
        else:
            result = _held_for_approval(tool, caller, arguments)
    except BaseException:
        agent_posts_release(connection=connection)
        raise
    if result.is_error:
        agent_posts_release(connection=connection)
    return result


def _held_for_approval(tool: Tool, caller: Caller, arguments: dict[str, Any]) -> Result:
    body = {**arguments, "requiresApproval": True}
    if tool.name == "publish_now":  # scheduled at once instead, waiting for the approval
        placed = twin(
            tool,
            caller,
            {**body, "scheduledTime": soon(PUBLISH_NOW_LEAD_SECONDS)},
            operation_id="social_schedule",
        )
    else:
        placed = twin(tool, caller, body)
    if not placed.ok:
        return answered(placed, "")
    post_id = placed.data["post"]["id"]
    origin = caller.origin
    asked = rest_call(
        origin,
        "POST",
        f"/api/social/posts/{post_id}/approval-requests",
        body={"message": f"Asked by the agent “{caller.connection.name}”."},
    )
    if not asked.ok:
        return answered(asked, "")
    post = rest_call(origin, "GET", f"/api/social/posts/{post_id}")
    return Result(
        {
            "status": "approval_requested",
            "approvalRequestId": asked.data["id"],
            "post": post.data if post.ok else placed.data["post"],
            "scheduledRecords": placed.data.get("scheduledRecords", []),
        },
        "Approval requested: the post waits for its user's approval.",
    )


def run_generate(tool: Tool, caller: Caller, arguments: dict[str, Any]) -> Result:
    """An AI tool: its input checked, its cost counted against the day's credit budget before
    any credit is spent (given back if the call fails), then its route."""
    ai = AI_TOOLS[arguments["tool"]]
    check(ai_input_schema(ai.name), arguments["input"], prefix="input")
    connection = caller.connection
    agent_credits_reserve(connection=connection, cost=ai.cost)
    try:
        answer = twin(tool, caller, arguments["input"], operation_id=AI_OPERATION[ai.name])
    except BaseException:
        agent_credits_release(connection=connection, cost=ai.cost)
        raise
    if not answer.ok:
        agent_credits_release(connection=connection, cost=ai.cost)
    return answered(answer, f"{ai.label}: done ({ai.cost} credit{'s' if ai.cost != 1 else ''})")


RUNNERS: dict[str, Runner] = {
    "whoami": run_whoami,
    "get_credits": run_picks,
    "list_accounts": run_accounts,
    "account_health": run_accounts,
    "schedule_post": run_publishing,
    "add_to_queue": run_publishing,
    "publish_now": run_publishing,
    "generate": run_generate,
}
