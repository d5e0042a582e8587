"""Notification routes (mounted under /api/ and /api/v1/ by config.urls)."""

from django.urls import path

from notifications.api import activity as activity_api
from notifications.api import center as api
from notifications.api import livefeed as livefeed_api
from notifications.api import replay as replay_api
from notifications.api import webhooks as webhook_api
from notifications.api.stream import StreamView

urlpatterns = [
    path("events", replay_api.EventReplayView.as_view(), name="events-replay"),
    path(
        "workspaces/<uuid:workspace_id>/activity",
        activity_api.ActivityView.as_view(),
        name="workspace-activity",
    ),
    path("events/ticket", livefeed_api.TicketView.as_view(), name="events-ticket"),
    # Served by notifications.api.stream.stream_app under ASGI (config/asgi.py); this
    # route serves the development server and the test client.
    path("events/stream", StreamView.as_view(), name="events-stream"),
    path("notifications", api.NotificationListView.as_view(), name="notifications-list"),
    path(
        "notifications/unread",
        api.NotificationUnreadCountView.as_view(),
        name="notifications-unread",
    ),
    path(
        "notifications/read-all",
        api.NotificationReadAllView.as_view(),
        name="notifications-read-all",
    ),
    path(
        "notifications/<uuid:pk>",
        api.NotificationDeleteView.as_view(),
        name="notifications-detail",
    ),
    path(
        "notifications/<uuid:pk>/read",
        api.NotificationReadView.as_view(),
        name="notifications-read",
    ),
    path("webhooks/endpoints", webhook_api.EndpointListView.as_view(), name="webhook-endpoints"),
    path(
        "webhooks/endpoints/<uuid:endpoint_id>",
        webhook_api.EndpointDetailView.as_view(),
        name="webhook-endpoint",
    ),
    path(
        "webhooks/endpoints/<uuid:endpoint_id>/rotate-secret",
        webhook_api.EndpointRotateView.as_view(),
        name="webhook-endpoint-rotate",
    ),
    path(
        "webhooks/endpoints/<uuid:endpoint_id>/test",
        webhook_api.EndpointTestView.as_view(),
        name="webhook-endpoint-test",
    ),
    path("webhooks/deliveries", webhook_api.DeliveryListView.as_view(), name="webhook-deliveries"),
    path(
        "webhooks/deliveries/<uuid:delivery_id>",
        webhook_api.DeliveryDetailView.as_view(),
        name="webhook-delivery",
    ),
    path(
        "webhooks/deliveries/<uuid:delivery_id>/redeliver",
        webhook_api.DeliveryRedeliverView.as_view(),
        name="webhook-delivery-redeliver",
    ),
]
