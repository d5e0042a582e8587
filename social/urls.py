"""Social hub routes (mounted under /api/ and /api/v1/)."""

from django.urls import path

from social import api

urlpatterns = [
    path("social/platforms", api.PlatformListView.as_view(), name="social-platforms"),
    path(
        "social/connect/<str:provider>/authorize",
        api.AuthorizeView.as_view(),
        name="social-connect-authorize",
    ),
    path("social/connect", api.ConnectView.as_view(), name="social-connect"),
    path("social/accounts", api.AccountListView.as_view(), name="social-accounts"),
    path("social/disconnect", api.DisconnectView.as_view(), name="social-disconnect"),
]
