"""Agent routes (mounted under /api/ and /api/v1/ by config.urls)."""

from django.conf import settings
from django.urls import path

from agents import api
from agents.oauth.urls import api_patterns as oauth_api_patterns

urlpatterns = [
    path("agents", api.AgentListView.as_view(), name="agents"),
    path("agents/<uuid:agent_id>", api.AgentDetailView.as_view(), name="agent"),
]

if settings.MCP_ENABLED:
    urlpatterns += oauth_api_patterns
