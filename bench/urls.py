"""Bench routes: a bare Django view, the floor that /api/health is compared with."""

from django.http import HttpRequest, JsonResponse
from django.urls import path

from config.urls import urlpatterns as base


def bare(request: HttpRequest) -> JsonResponse:
    """The same middleware stack as /api/health, but no DRF, no serializer and no checks."""
    return JsonResponse({"status": "ok"})


# First, so that no route of the project (it ends in a catch-all for ^api) can shadow it.
urlpatterns = [path("bench/bare", bare, name="bench-bare"), *base]
