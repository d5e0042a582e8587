"""Every request body of this API is a JSON object: any other JSON value, on any route that
takes a body, is a 400 in the envelope (never a 500 from code that expected a mapping)."""

import re
import uuid
from collections.abc import Iterator

import pytest
from django.urls import URLPattern, URLResolver, get_resolver

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
