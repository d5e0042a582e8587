"""Agent routes (mounted under /api/ and /api/v1/ by config.urls)."""

from django.urls import path

from agents import api

urlpatterns = [
    path("agents", api.AgentListView.as_view(), name="agents"),
    path("agents/<uuid:agent_id>", api.AgentDetailView.as_view(), name="agent"),
]
