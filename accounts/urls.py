"""Auth routes (mounted under /api/ and /api/v1/ by config.urls)."""

from django.urls import path

from accounts import api

urlpatterns = [
    path("auth/login", api.LoginView.as_view(), name="auth-login"),
    path("auth/magic-link", api.MagicLinkView.as_view(), name="auth-magic-link"),
    path("auth/magic-link/verify", api.MagicLinkVerifyView.as_view(), name="auth-magic-verify"),
    path("auth/refresh", api.RefreshView.as_view(), name="auth-refresh"),
    path("auth/logout", api.LogoutView.as_view(), name="auth-logout"),
    path("auth/me", api.MeView.as_view(), name="auth-me"),
    path("auth/api-keys", api.ApiKeyListView.as_view(), name="auth-api-keys"),
    path("auth/api-keys/<uuid:key_id>", api.ApiKeyDetailView.as_view(), name="auth-api-key"),
]
