"""Every route's view says what an API key may do there (`api_key_scopes`, accounts.scopes): a
view that declares nothing fails here, and what each declares is what a key meets over HTTP."""

import re
import uuid
from collections.abc import Iterator
from typing import Any

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.views import APIView

from accounts.authentication import ApiKeyAuthentication
from accounts.scopes import ANY_KEY, Scope, key_scope
from tests.factories import api_key_for, client_with_key

# Plain Django views, which no API key reaches: keys are read by DRF's authentication alone.
NOT_DRF = {
    "config.urls.media": "uploaded files, public by their unguessable names",
    "notifications.api.stream.StreamView": "the live feed: a session's JWT or a ticket",
    "core.api.views.api_not_found": "the JSON 404 of unknown paths",
    "health.views.MetricsView": "Prometheus, for METRICS_TOKEN (docs/operations.md)",
    "health.views.system_status": "the admin's System status page: staff sessions only",
    # OAuth 2.1 for MCP clients (docs/agents.md): the protocols' own bodies, no envelope, no key.
    "agents.oauth.api.ProtectedResourceMetadataView": "RFC 9728's document, public",
    "agents.oauth.api.AuthorizationServerMetadataView": "RFC 8414's document, public",
    "agents.oauth.api.RegisterView": "RFC 7591 registration of public clients, per address",
    "agents.oauth.api.AuthorizeView": "the authorization request, sent on to the consent",
    "agents.oauth.api.TokenView": "the provider's token endpoint: a code or a refresh token",
    "agents.oauth.api.RevokeView": "the provider's revocation endpoint: the token itself",
}
METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
CONVERTER_VALUES = {"uuid": str(uuid.uuid4()), "str": "devto"}


def _routes(
    patterns: list[URLPattern | URLResolver], prefix: str = ""
) -> Iterator[tuple[str, Any]]:
    for pattern in patterns:
        route = prefix + str(pattern.pattern)
        if isinstance(pattern, URLResolver):
            if not route.startswith("admin/"):  # Django's admin: staff sessions only
                yield from _routes(list(pattern.url_patterns), route)
        else:
            yield route, pattern.callback


def _name(callback: Any) -> str:
    target = getattr(callback, "view_class", None) or callback
    return f"{target.__module__}.{target.__qualname__}"


def _concrete(route: str) -> str:
    def value(match: re.Match[str]) -> str:
        return CONVERTER_VALUES.get(match.group(1) or "str", "x")

    return "/" + re.sub(r"<(?:(\w+):)?\w+>", value, route)


def drf_views() -> dict[str, type[APIView]]:
    """Concrete /api/ path -> its DRF view class (the /api/v1/ twins are the same views)."""
    views = {}
    for route, callback in _routes(get_resolver().url_patterns):
        view = getattr(callback, "cls", None)
        if view is not None and route.startswith("api/") and not route.startswith("api/v1/"):
            views[_concrete(route)] = view
    return views


def methods_of(view: type[APIView]) -> list[str]:
    return [method for method in METHODS if hasattr(view, method.lower())]


def test_the_walk_finds_the_routes():
    views = drf_views()
    assert len(views) > 50
    assert {"/api/social/posts", "/api/auth/api-keys", "/api/proposal/generate"} <= set(views)


def test_every_view_declares_what_keys_may_do_there():
    undeclared, wrong = [], []
    for path, view in drf_views().items():
        if not hasattr(view, "api_key_scopes"):
            undeclared.append(f"{path} ({view.__qualname__})")
            continue
        for method, scope in view.api_key_scopes.items():
            if method not in methods_of(view) or scope not in {*Scope.values, ANY_KEY}:
                wrong.append(f"{path} {method}: {scope}")
    assert undeclared == [], "declare api_key_scopes (accounts.scopes) on these views"
    assert wrong == []


def test_no_other_kind_of_view_is_routed():
    others = {
        _name(callback)
        for route, callback in _routes(get_resolver().url_patterns)
        if getattr(callback, "cls", None) is None
    }
    assert others == set(NOT_DRF)


def test_every_view_reading_keys_is_covered_by_the_key_walk():
    # A view without ApiKeyAuthentication reads no credentials at all (health, magic links,
    # the cron and payment webhooks) and declares keys refused.
    for view in drf_views().values():
        if not any(issubclass(auth, ApiKeyAuthentication) for auth in view.authentication_classes):
            assert all(key_scope(view, method) is None for method in methods_of(view)), view


def _call(client: Any, method: str, path: str) -> Any:
    body: dict[str, Any] | None = {} if method in ("POST", "PUT", "PATCH") else None
    return getattr(client, method.lower())(path, body, format="json")


@pytest.mark.django_db
def test_keys_meet_over_http_what_each_view_declares(ada):
    every = client_with_key(api_key_for(ada, *Scope.values, name="every scope"))
    lacking = {
        scope: client_with_key(
            api_key_for(ada, *(s for s in Scope.values if s != scope), name=f"no {scope}")
        )
        for scope in Scope.values
    }
    mismatches: list[tuple[Any, ...]] = []
    for path, view in drf_views().items():
        if not any(issubclass(auth, ApiKeyAuthentication) for auth in view.authentication_classes):
            continue
        for method in methods_of(view):
            needed = key_scope(view, method)
            response = _call(every, method, path)
            json = "json" in response.get("Content-Type", "")  # the schema is YAML or JSON
            code = response.json().get("error", {}).get("code") if json else None
            if needed is None:
                if (response.status_code, code) != (403, "permission_denied"):
                    mismatches.append((method, path, "closed", response.status_code))
                continue
            if response.status_code in (401, 403):
                mismatches.append((method, path, "open", response.status_code, code))
            if needed == ANY_KEY:
                continue
            refused = _call(lacking[needed], method, path)
            if refused.status_code != 403 or refused.json()["error"] != {
                "code": "insufficient_scope",
                "details": {
                    "required": needed,
                    "granted": [s for s in Scope.values if s != needed],
                },
            }:
                mismatches.append((method, path, "without " + needed, refused.status_code))
    assert mismatches == []
