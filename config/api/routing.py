"""Mount one list of API routes under both /api/v1/ and /api/: the same views answer both."""

from django.urls import URLPattern, URLResolver, include, path, re_path

from config.api.views import api_not_found


def versioned(patterns: list[URLPattern | URLResolver]) -> list[URLPattern | URLResolver]:
    return [path("api/v1/", include(patterns)), path("api/", include(patterns))]


def api_fallback() -> URLPattern:
    """Last route: any other path under /api answers a JSON 404 (also with DEBUG on)."""
    return re_path(r"^api(?:/.*)?$", api_not_found)
