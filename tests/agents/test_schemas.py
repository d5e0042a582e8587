"""Every tool's input schema is its REST twin's serializer (agents.md section 3): mapped here
by drf-spectacular on its own, and compared with what tools/list shows."""

import json
from typing import Any

import pytest
from drf_spectacular.plumbing import ComponentRegistry
from rest_framework.settings import api_settings
from rest_framework.views import APIView

from agents.mcp import schemas
from agents.mcp.tools import IDEMPOTENCY_KEY, TABLE, TOOLS, ai_input_schema, shape
from aitools.tools import TOOLS as AI_TOOLS
from notifications.api.center import NotificationListView
from social.api.analytics import AnalyticsListView
from social.api.outcomes import RecordResolveView
from social.api.posts import PostListView
from social.api.preview import PreviewView
from social.api.queue import QueueAddView
from social.api.schedule import PublishView, ScheduleView

BODIES = {
    "create_post": PostListView.InputSerializer,
    "update_post": PostListView.InputSerializer,
    "preview_post": PreviewView.InputSerializer,
    "schedule_post": ScheduleView.ShapeA,
    "add_to_queue": QueueAddView.InputSerializer,
    "publish_now": PublishView.InputSerializer,
    "resolve_record": RecordResolveView.InputSerializer,
}
QUERIES = {
    "list_posts": PostListView.FilterSerializer,
    "get_analytics": AnalyticsListView.FilterSerializer,
    "list_notifications": NotificationListView.FilterSerializer,
}
LIST_PARAMETERS = {"page", "limit", "sort", "order"}
PATHS = {"account_health": "accountId", "get_post": "postId", "retry_record": "recordId",
         "resolve_record": "recordId"}  # fmt: skip
NO_INPUT = {"whoami", "list_platforms", "list_accounts", "get_credits"}


def expand(schema: Any, defs: dict[str, Any]) -> Any:
    """`schema` with every reference replaced by what it names, written one way: the OpenAPI
    document's enum post-processing (a named enum under `allOf`, beside a default; its id
    extension) undone, values as JSON has them."""
    if isinstance(schema, list):
        return [expand(item, defs) for item in schema]
    if not isinstance(schema, dict):
        return json.loads(json.dumps(schema))
    if "$ref" in schema:
        return expand(defs[schema["$ref"].rsplit("/", 1)[-1]], defs)
    schema = {key: value for key, value in schema.items() if key not in ("$defs", "x-spec-enum-id")}
    if len(schema.get("allOf") or ()) == 1:
        (inner,) = schema.pop("allOf")
        schema = {**expand(inner, defs), **schema}
    return {key: expand(value, defs) for key, value in schema.items()}


def serializer_schema(serializer: Any) -> dict[str, Any]:
    """The serializer as drf-spectacular maps a request body, references expanded."""
    auto: Any = api_settings.DEFAULT_SCHEMA_CLASS()  # type: ignore[operator]
    auto.registry = ComponentRegistry()
    auto.method, auto.path, auto.path_regex = "POST", "/api/x", "/api/x"
    view: Any = APIView()
    view.request, view.format_kwarg = None, None
    auto.view = view
    reference = auto.resolve_serializer(serializer, "request").ref
    components = auto.registry.build({})["schemas"]
    converted = {name: schemas.json_schema(found) for name, found in components.items()}
    return expand(schemas.json_schema(reference), converted)


def tool_schema(name: str) -> dict[str, Any]:
    found = shape(name).schema
    return expand(found, found.get("$defs", {}))


def test_every_tool_is_checked_here():
    assert set(TOOLS) == set(BODIES) | set(QUERIES) | set(PATHS) | NO_INPUT | {"generate"}


@pytest.mark.parametrize("name", sorted(BODIES))
def test_a_writing_tools_input_is_its_routes_serializer(name):
    tool, rest = tool_schema(name), serializer_schema(BODIES[name])
    extras = {IDEMPOTENCY_KEY, PATHS.get(name)}
    assert {k: v for k, v in tool["properties"].items() if k not in extras} == rest["properties"]
    required = [field for field in tool.get("required", []) if field not in extras]
    assert required == [*rest.get("required", []), *TOOLS[name].required]
    assert tool.get("additionalProperties") == rest.get("additionalProperties")
    assert tool.get("anyOf") == rest.get("anyOf")
    assert (IDEMPOTENCY_KEY in tool["properties"]) is TOOLS[name].writes


@pytest.mark.parametrize("name", sorted(QUERIES))
def test_a_list_tools_input_is_its_routes_filters_and_pages(name):
    tool = tool_schema(name)
    filters = serializer_schema(QUERIES[name])["properties"]
    names = (
        set(filters) | {"from", "to"} - {"start", "end"}
        if "from" in tool["properties"]
        else set(filters)
    )
    assert set(tool["properties"]) - LIST_PARAMETERS == names
    for field in names & set(filters):
        assert tool["properties"][field].get("type") == filters[field].get("type"), field


@pytest.mark.parametrize("ai", sorted(AI_TOOLS))
def test_generates_input_is_each_ai_routes_serializer(ai):
    branch = ai_input_schema(ai)
    assert (
        expand(branch, branch.get("$defs", {}))["properties"]
        == serializer_schema(AI_TOOLS[ai].input)["properties"]
    )
    listed = tool_schema("generate")
    assert ai in listed["properties"]["tool"]["enum"]


def test_tools_without_input_refuse_any_argument():
    for name in NO_INPUT:
        assert shape(name).schema == {"type": "object", "properties": {},
                                      "additionalProperties": False}  # fmt: skip
    assert [tool.name for tool in TABLE] == list(TOOLS)
