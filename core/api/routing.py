"""Mount one list of API routes under both /api/v1/ and /api/: the same views answer both."""

from typing import Any

from django.http import HttpRequest
from django.urls import URLPattern, URLResolver, include, path, re_path, reverse

from core.api.views import api_not_found


def versioned(patterns: list[URLPattern | URLResolver]) -> list[URLPattern | URLResolver]:
    return [path("api/v1/", include(patterns)), path("api/", include(patterns))]


def api_fallback() -> URLPattern:
    """Last route: any other path under /api answers a JSON 404 (also with DEBUG on)."""
    return re_path(r"^api(?:/.*)?$", api_not_found)


VERSIONED_PREFIX = "/api/v1/"


def api_url(request: HttpRequest, name: str, **kwargs: Any) -> str:
    """The path of route `name` under the prefix the request came in on (/api or /api/v1).

    `reverse()` alone cannot tell the two mounts apart (they share names) and always answers
    /api/...; a client that speaks /api/v1 gets links that stay on /api/v1.
    """
    url = reverse(name, kwargs=kwargs)
    if request.path.startswith(VERSIONED_PREFIX) and not url.startswith(VERSIONED_PREFIX):
        return VERSIONED_PREFIX + url.removeprefix("/api/")
    return url
