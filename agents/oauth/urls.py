"""The OAuth routes: the protocols' at the root (config.urls), the consent call under /api
(agents.urls); none when MCP_ENABLED is off."""

from django.urls import path

from agents.oauth import api

root_patterns = [
    path(
        ".well-known/oauth-protected-resource/mcp",
        api.ProtectedResourceMetadataView.as_view(),
        name="oauth-protected-resource-mcp",
    ),
    path(
        ".well-known/oauth-protected-resource",
        api.ProtectedResourceMetadataView.as_view(),
        name="oauth-protected-resource",
    ),
    path(
        ".well-known/oauth-authorization-server",
        api.AuthorizationServerMetadataView.as_view(),
        name="oauth-authorization-server",
    ),
    path("oauth/register", api.RegisterView.as_view(), name="oauth-register"),
    path("oauth/authorize", api.AuthorizeView.as_view(), name="oauth-authorize"),
    path("oauth/token", api.TokenView.as_view(), name="oauth-token"),
    path("oauth/revoke", api.RevokeView.as_view(), name="oauth-revoke"),
]

api_patterns = [
    path(
        "oauth/requests/<uuid:oauth_request_id>",
        api.OAuthRequestView.as_view(),
        name="oauth-request",
    ),
]
