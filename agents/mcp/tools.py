"""The tools (agents.md section 3): one table, each row naming its REST twin by operation id,
the scope it needs and how it runs. The names are fixed; the input schemas come from the twin
routes' serializers (agents.mcp.schemas), with `idempotencyKey` on every tool that writes."""

import enum
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from accounts.scopes import ANY_KEY, Scope
from agents.mcp import schemas
from aitools.tools import TOOLS as AI_TOOLS

IDEMPOTENCY_KEY = "idempotencyKey"
IDEMPOTENCY_KEY_MAX = 255
IDEMPOTENCY_PROPERTY = {
    "type": "string",
    "minLength": 1,
    "maxLength": IDEMPOTENCY_KEY_MAX,
    "description": "Any unique string (a UUID): a retry with the same key and the same "
    "arguments within 24 hours replays the first result instead of doing the work again.",
}


class Gate(enum.Enum):
    """What the agent's policy checks before the twin runs (agents.md section 2)."""

    NONE = "none"
    PUBLISH = "publish"  # accounts, posts per day, approval unless autopublish
    AI = "ai"  # credits per day
    ACCOUNTS = "accounts"  # the accounts it may see


@dataclass(frozen=True, slots=True)
class Tool:
    name: str
    operation_id: str  # the REST twin, in the OpenAPI document
    scope: str  # a Scope value, or ANY_KEY
    description: str
    writes: bool = False
    listing: bool = False  # the twin answers a list: structuredContent is {items, meta}
    gate: Gate = Gate.NONE
    required: tuple[str, ...] = ()  # arguments the tool needs beyond its twin's (update_post)
    picks: tuple[str, ...] = field(default=())  # fields of the twin's `data` it answers alone


TABLE: tuple[Tool, ...] = (
    Tool(
        "whoami",
        "auth_me",
        ANY_KEY,
        "Who this connection acts for: the user, the workspace, the agent's scopes, policy "
        "and what it used of its daily budgets today.",
    ),
    Tool(
        "list_platforms",
        "social_platforms",
        Scope.ACCOUNTS_READ,
        "The social networks and what each supports (limits, media, threads, options).",
        listing=True,
    ),
    Tool(
        "list_accounts",
        "social_accounts",
        Scope.ACCOUNTS_READ,
        "The workspace's connected social accounts this agent may post to (their ids are the "
        "accountIds of schedule_post, add_to_queue and publish_now).",
        listing=True,
        gate=Gate.ACCOUNTS,
    ),
    Tool(
        "account_health",
        "social_account_health",
        Scope.ACCOUNTS_READ,
        "One account's health: its connection, recent failures and what to do about them.",
        gate=Gate.ACCOUNTS,
    ),
    Tool(
        "create_post",
        "social_posts_save",
        Scope.POSTS_WRITE,
        "Save a draft post (content, per-network variants, media, thread). Nothing is "
        "published: schedule_post, add_to_queue or publish_now do that.",
        writes=True,
    ),
    Tool(
        "update_post",
        "social_posts_save",
        Scope.POSTS_WRITE,
        "Change a post (`id`): only the fields sent. A post waiting for approval needs a new "
        "approval once changed.",
        writes=True,
        required=("id",),
    ),
    Tool("get_post", "social_posts_get", Scope.POSTS_READ, "One post, with its records."),
    Tool(
        "list_posts",
        "social_posts_list",
        Scope.POSTS_READ,
        "The workspace's posts, newest first, a page at a time (`page`, `limit`).",
        listing=True,
    ),
    Tool(
        "preview_post",
        "social_preview",
        Scope.POSTS_READ,
        "How a post would look on each network, with the problems that would stop it "
        "(length, media, missing options), without saving anything.",
    ),
    Tool(
        "schedule_post",
        "social_schedule",
        Scope.POSTS_WRITE,
        "Schedule a post (new, or `postId`) to accounts at a time. Unless the agent may "
        "autopublish, the post waits for its user's approval (status approval_requested).",
        writes=True,
        gate=Gate.PUBLISH,
    ),
    Tool(
        "add_to_queue",
        "social_queue_add",
        Scope.POSTS_WRITE,
        "Put a post in the accounts' posting queues (their next free slots). Unless the agent "
        "may autopublish, it waits for its user's approval (status approval_requested).",
        writes=True,
        gate=Gate.PUBLISH,
    ),
    Tool(
        "publish_now",
        "social_publish",
        Scope.POSTS_WRITE,
        "Publish a post to accounts now. Unless the agent may autopublish, it waits for its "
        "user's approval and goes out as soon as it is approved (status approval_requested).",
        writes=True,
        gate=Gate.PUBLISH,
    ),
    Tool(
        "retry_record",
        "social_schedule_retry_one",
        Scope.POSTS_WRITE,
        "Retry a failed record (one post on one account) now.",
        writes=True,
    ),
    Tool(
        "resolve_record",
        "social_schedule_resolve",
        Scope.POSTS_WRITE,
        "Settle an unconfirmed record: published (with its url), retry, or abandon.",
        writes=True,
    ),
    Tool(
        "get_analytics",
        "social_analytics",
        Scope.POSTS_READ,
        "Published posts' numbers (impressions, reactions, comments, shares, clicks).",
        listing=True,
    ),
    Tool(
        "list_notifications",
        "notifications_list",
        Scope.NOTIFICATIONS_READ,
        "The user's notifications, newest first, a page at a time.",
        listing=True,
    ),
    Tool(
        "get_credits",
        "auth_me",
        Scope.AI_WRITE,
        "The AI credits left, the monthly quota and the plan.",
        picks=("credits_remaining", "monthly_quota", "plan"),
    ),
    Tool(
        "generate",
        "",  # one of the AI routes, by `tool`
        Scope.AI_WRITE,
        "Run an AI tool: `tool` names it, `input` is its route's body. Costs credits (below), "
        "taken from the user's balance and from this agent's daily credit budget.",
        writes=True,
        gate=Gate.AI,
    ),
)

TOOLS: dict[str, Tool] = {tool.name: tool for tool in TABLE}
AI_OPERATION = {name: name for name in AI_TOOLS}  # each AI route's operation id is its tool's


def ai_description() -> str:
    costs = ", ".join(
        f"{ai.name} ({ai.cost} credit{'s' if ai.cost != 1 else ''})" for ai in AI_TOOLS.values()
    )
    return f"{TOOLS['generate'].description} Tools: {costs}."


@dataclass(frozen=True, slots=True)
class Shape:
    """A tool's input: its JSON Schema, the arguments that go into the twin's path (by URL
    keyword) and those that go into its query."""

    schema: dict[str, Any]
    path: dict[str, str]
    query: tuple[str, ...]


def _with_extras(tool: Tool, schema: dict[str, Any]) -> dict[str, Any]:
    schema = dict(schema)
    if tool.writes:
        schema["properties"] = {**schema["properties"], IDEMPOTENCY_KEY: IDEMPOTENCY_PROPERTY}
    if tool.required:
        schema["required"] = list(dict.fromkeys([*schema.get("required", []), *tool.required]))
    return schemas.with_definitions(schema)


@cache
def shape(name: str) -> Shape:
    """The tool's input, built once per process from the REST API's document."""
    tool = TOOLS[name]
    if tool.gate is Gate.AI:
        return Shape(_with_extras(tool, generate_schema()), {}, ())
    schema, path, query = schemas.input_schema(tool.operation_id)
    return Shape(_with_extras(tool, schema), path, tuple(query))


def generate_schema() -> dict[str, Any]:
    """`{tool, input}`: `input` is the body of the AI route `tool` names (one branch each)."""
    branches = []
    for name in AI_TOOLS:
        body, _, _ = schemas.input_schema(AI_OPERATION[name])
        branches.append({"title": name, **body})
    return {
        "type": "object",
        "properties": {
            "tool": {"type": "string", "enum": list(AI_TOOLS)},
            "input": {"anyOf": branches},
        },
        "required": ["tool", "input"],
        "additionalProperties": False,
    }


def ai_input_schema(ai_tool: str) -> dict[str, Any]:
    """The one branch of `generate`'s input for this AI tool (how a call is checked)."""
    body, _, _ = schemas.input_schema(AI_OPERATION[ai_tool])
    return schemas.with_definitions(body)


def description(tool: Tool) -> str:
    return ai_description() if tool.gate is Gate.AI else tool.description


def scoped(granted: list[str]) -> list[Tool]:
    """The tools a connection with these scopes may call (tools/list shows only these)."""
    return [tool for tool in TABLE if tool.scope == ANY_KEY or tool.scope in granted]
