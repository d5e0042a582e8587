"""Every request body of this API is a JSON object: any other JSON value, on any route that
takes a body, is a 400 in the envelope (never a 500 from code that expected a mapping)."""

import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.test import APIClient

from accounts.services.sessions import session_issue
from accounts.services.users import user_create
from tests.factories import client_for

pytestmark = pytest.mark.django_db

NOT_OBJECTS = ["null", "1", "true", "[]", '"text"', "1.5"]
CONVERTER_VALUES = {"uuid": str(uuid.uuid4()), "int": "1", "str": "x", "slug": "x", "path": "x"}


def _paths(patterns: list[URLPattern | URLResolver], prefix: str = "") -> Iterator[str]:
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            yield from _paths(list(pattern.url_patterns), route)
        else:
            yield route


def _concrete(route: str) -> str:
    def value(match: re.Match[str]) -> str:
        converter = (match.group(1) or "str").rstrip(":")
        return CONVERTER_VALUES.get(converter, "x")

    return "/" + re.sub(r"<(?:(\w+):)?\w+>", value, route).lstrip("^").rstrip("$")


def api_routes() -> list[str]:
    routes = {_concrete(route) for route in _paths(get_resolver().url_patterns)}
    return sorted(route for route in routes if route.startswith("/api/") and "\\" not in route)


def test_the_walk_finds_the_body_taking_routes():
    routes = api_routes()
    assert "/api/social/schedule" in routes
    assert "/api/social/media" in routes
    assert "/api/social/connect" in routes
    assert len(routes) > 60


@pytest.mark.parametrize("body", NOT_OBJECTS)
def test_no_route_answers_500_to_a_body_that_is_not_an_object(body):
    client = client_for(user_create(email="walker@example.com", password="a-long-passphrase"))
    failures = []
    for route in api_routes():
        for method in ("post", "put", "patch"):
            response = getattr(client, method)(route, body, content_type="application/json")
            if response.status_code >= 500 or "json" not in response.get("Content-Type", ""):
                failures.append((method.upper(), route, response.status_code))
    assert failures == []


@pytest.mark.parametrize("body", NOT_OBJECTS)
def test_a_schedule_body_that_is_not_an_object_is_400(body):
    client = client_for(user_create(email="ada@example.com"))
    response = client.post("/api/social/schedule", body, content_type="application/json")
    assert response.status_code == 400
    payload = response.json()
    assert payload["success"] is False
    assert "must be a JSON object" in str(payload)


def test_media_registration_refuses_deep_nesting_and_nan():
    client = client_for(user_create(email="ada@example.com"))
    deep = "[" * 5000 + "]" * 5000  # past the stdlib parser's own recursion limit
    for raw in (f'{{"type": "image/png", "url": {deep}}}', '{"type": "image/png", "size": NaN}'):
        response = client.post("/api/social/media", raw, content_type="application/json")
        assert response.status_code == 400, raw
        assert response.json()["success"] is False


# --- Unknown keys -------------------------------------------------------------------------------

UNKNOWN = "notAFieldZz"
WRITE_METHODS = ("post", "put", "patch")
# The payment provider's event, signed as sent: its format is the provider's (open-ended keys),
# so it is read as it comes (billing/api.py) and checked by its signature first.
OPEN_BODIES = {("post", "/api/webhooks/payment")}


def write_operations() -> list[tuple[str, str]]:
    """Every (method, path) of the schema that writes: the walk covers routes added later."""
    from drf_spectacular.generators import SchemaGenerator

    schema = SchemaGenerator().get_schema(request=None, public=True)  # type: ignore[no-untyped-call]
    found = []
    for path, operations in schema["paths"].items():
        for method in operations:
            if method in WRITE_METHODS and (method, path) not in OPEN_BODIES:
                concrete = re.sub(r"\{[^}]+\}", CONVERTER_VALUES["uuid"], path)
                found.append((method, concrete))
    return sorted(found)


def snapshot() -> dict[str, list[str]]:
    """Every row of every table, to show that a refused request changed nothing."""
    from django.apps import apps

    return {
        model._meta.label: sorted(repr(row) for row in model._default_manager.values())
        for model in apps.get_models()
    }


def test_the_walk_finds_the_write_operations():
    operations = write_operations()
    assert ("post", "/api/social/schedule") in operations
    assert ("put", "/api/social/settings") in operations
    assert len(operations) > 40


def test_every_write_route_refuses_an_unknown_key_naming_it_and_changes_nothing(settings):
    settings.CRON_SECRET = "cron-secret-0123456789"
    walker = user_create(email="walker@example.com", password="a-long-passphrase")
    client = APIClient()
    client.credentials(
        HTTP_AUTHORIZATION=f"Bearer {session_issue(user=walker).token}",
        HTTP_X_CRON_SECRET=settings.CRON_SECRET,
    )
    failures: list[tuple[Any, ...]] = []
    for method, path in write_operations():
        before = snapshot()
        response = getattr(client, method)(path, {UNKNOWN: 1}, format="json")
        body = response.json()
        details = body.get("error", {}).get("details", {}) if not body["success"] else {}
        if response.status_code != 400 or details.get(UNKNOWN) != ["Unknown field."]:
            failures.append((method.upper(), path, response.status_code, body))
        elif snapshot() != before:
            failures.append((method.upper(), path, "changed the database"))
    assert failures == []


def test_a_misspelt_field_is_refused_beside_every_other_error(ada_client):
    from social.models import Post

    response = ada_client.post(
        "/api/social/schedule",
        {
            "content": "Launch day",
            "accountIds": ["not-a-uuid"],
            "scheduledTime": "2030-01-01T09:00:00Z",
            "scheduled_time": "2030-01-01T09:00:00Z",
        },
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert response.json()["error"]["details"] == {
        "accountIds": {"0": ["Must be a valid UUID."]},
        "scheduled_time": ["Unknown field."],
    }
    assert not Post.objects.exists()


def test_unknown_keys_inside_nested_objects_are_named_by_their_path(ada_client):
    from social.models import Post

    response = ada_client.post(
        "/api/social/posts",
        {
            "content": "Launch day",
            "variants": {"bluesky": {"content": "Short", "contnet": "typo"}},
            "thread": [{"content": "Part two", "media": []}],
        },
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {
        "variants.bluesky.contnet": ["Unknown field."],
        "thread[0].media": ["Unknown field."],
    }
    assert not Post.objects.exists()


def test_an_ai_tool_refuses_an_unknown_key_before_any_credit_is_spent(ada, ada_client):
    response = ada_client.post(
        "/api/proposal/generate",
        {"jobDescription": "Build a landing page for a small bakery", "reviews": []},
        format="json",
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"reviews": ["Unknown field."]}
    ada.refresh_from_db()
    assert ada.credits_remaining == 20


def test_the_schema_refuses_what_the_server_refuses(api):
    schemas = api.get("/api/schema/?format=json").json()["components"]["schemas"]
    assert schemas["ScheduleShapeARequest"]["additionalProperties"] is False
    assert schemas["VariantFieldsRequest"]["additionalProperties"] is False
    # An open map says what its keys hold.
    settings_body = schemas["SettingsSettingsRequest"]
    assert settings_body["additionalProperties"] is False
    preferences = settings_body["properties"]["notificationPreferences"]
    assert preferences["additionalProperties"] is False
    assert preferences["properties"]["postFailed"] == {"type": "boolean"}


@pytest.mark.parametrize("hashtags", ["#launch\x00", ["launch", "sa\x00as"]])
def test_hashtags_refuse_a_nul_as_every_text_field_does(ada_client, hashtags):
    from social.models import Post

    response = ada_client.post(
        "/api/social/posts", {"content": "Launch day", "hashtags": hashtags}, format="json"
    )
    assert response.status_code == 400
    assert response.json()["error"]["details"] == {"hashtags": ["Null characters are not allowed."]}
    assert not Post.objects.exists()
