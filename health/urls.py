"""Health routes (mounted under /api/ and /api/v1/ by config.urls)."""

from django.urls import path

from health.views import HealthView

urlpatterns = [
    path("health", HealthView.as_view(), name="health"),
]
