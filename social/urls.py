"""Social hub routes (mounted under /api/ and /api/v1/)."""

from django.urls import path

from social.api import accounts as api
from social.api import posts

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
    path("social/posts", posts.PostListView.as_view(), name="social-posts"),
    path("social/posts/<uuid:post_id>", posts.PostDetailView.as_view(), name="social-post"),
    path("social/publish", posts.PublishView.as_view(), name="social-publish"),
    path("social/schedule", posts.ScheduleView.as_view(), name="social-schedule"),
    path(
        "social/schedule/<uuid:record_id>",
        posts.ScheduleDetailView.as_view(),
        name="social-schedule-record",
    ),
]
