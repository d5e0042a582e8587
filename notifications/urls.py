"""Notification routes (mounted under /api/ and /api/v1/ by config.urls)."""

from django.urls import URLPattern

urlpatterns: list[URLPattern] = []
