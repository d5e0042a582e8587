"""Social hub routes (mounted under /api/ and /api/v1/)."""

from django.urls import path

from social.api import accounts as api
from social.api import (
    analytics,
    approvals,
    library,
    outcomes,
    platforms,
    posts,
    preview,
    queue,
    schedule,
    scheduler,
    sharing,
)

urlpatterns = [
    path("social/platforms", platforms.PlatformListView.as_view(), name="social-platforms"),
    path(
        "social/connect/<str:provider>/authorize",
        api.AuthorizeView.as_view(),
        name="social-connect-authorize",
    ),
    path("social/connect", api.ConnectView.as_view(), name="social-connect"),
    path("social/accounts", api.AccountListView.as_view(), name="social-accounts"),
    path(
        "social/accounts/<uuid:account_id>/health",
        outcomes.AccountHealthView.as_view(),
        name="social-account-health",
    ),
    path("social/disconnect", api.DisconnectView.as_view(), name="social-disconnect"),
    path("social/posts", posts.PostListView.as_view(), name="social-posts"),
    path("social/posts/<uuid:post_id>", posts.PostDetailView.as_view(), name="social-post"),
    path(
        "social/posts/<uuid:post_id>/approval-requests",
        approvals.ApprovalRequestsView.as_view(),
        name="social-post-approval-requests",
    ),
    path(
        "social/posts/<uuid:post_id>/comments",
        approvals.CommentsView.as_view(),
        name="social-post-comments",
    ),
    path(
        "approval-requests/<uuid:request_id>/decision",
        approvals.ApprovalDecisionView.as_view(),
        name="approval-decision",
    ),
    path(
        "public/approvals/<str:token>",
        approvals.PublicApprovalView.as_view(),
        name="public-approval",
    ),
    path(
        "public/approvals/<str:token>/decision",
        approvals.PublicDecisionView.as_view(),
        name="public-approval-decision",
    ),
    path(
        "public/approvals/<str:token>/comments",
        approvals.PublicCommentView.as_view(),
        name="public-approval-comments",
    ),
    path(
        "workspaces/<uuid:workspace_id>/share-links",
        sharing.ShareLinksView.as_view(),
        name="workspace-share-links",
    ),
    path(
        "workspaces/<uuid:workspace_id>/share-links/<uuid:link_id>",
        sharing.ShareLinkDetailView.as_view(),
        name="workspace-share-link",
    ),
    path(
        "workspaces/<uuid:workspace_id>/report",
        sharing.WorkspaceReportView.as_view(),
        name="workspace-report",
    ),
    # The feed first: `<str:token>` would take its `.ics` too.
    path(
        "public/calendar/<str:token>.ics",
        sharing.PublicCalendarFeedView.as_view(),
        name="public-calendar-feed",
    ),
    path(
        "public/calendar/<str:token>",
        sharing.PublicCalendarView.as_view(),
        name="public-calendar",
    ),
    path("public/reports/<str:token>", sharing.PublicReportView.as_view(), name="public-report"),
    path("social/publish", schedule.PublishView.as_view(), name="social-publish"),
    path("social/preview", preview.PreviewView.as_view(), name="social-preview"),
    path("social/schedule", schedule.ScheduleView.as_view(), name="social-schedule"),
    path("social/campaigns", library.CampaignListView.as_view(), name="social-campaigns"),
    path(
        "social/campaigns/<uuid:campaign_id>",
        library.CampaignDetailView.as_view(),
        name="social-campaign",
    ),
    path("social/media", library.MediaListView.as_view(), name="social-media"),
    path(
        "social/media/<uuid:media_id>", library.MediaDetailView.as_view(), name="social-media-item"
    ),
    path("social/settings", library.SettingsView.as_view(), name="social-settings"),
    path("social/scheduler/run", scheduler.SchedulerRunView.as_view(), name="social-scheduler"),
    path("social/analytics", analytics.AnalyticsListView.as_view(), name="social-analytics"),
    path(
        "social/analytics/refresh",
        analytics.AnalyticsRefreshView.as_view(),
        name="social-analytics-refresh",
    ),
    path(
        "social/schedule/<uuid:record_id>",
        schedule.ScheduleDetailView.as_view(),
        name="social-schedule-record",
    ),
    path("social/schedule/retry", outcomes.RecordsRetryView.as_view(), name="social-retry"),
    path(
        "social/schedule/<uuid:record_id>/retry",
        outcomes.RecordRetryView.as_view(),
        name="social-schedule-retry",
    ),
    path(
        "social/schedule/<uuid:record_id>/resolve",
        outcomes.RecordResolveView.as_view(),
        name="social-schedule-resolve",
    ),
    path("social/queue", queue.QueueAddView.as_view(), name="social-queue"),
    path("social/queue/<uuid:account_id>", queue.QueueView.as_view(), name="social-queue-account"),
    path(
        "social/queue/<uuid:account_id>/reorder",
        queue.QueueReorderView.as_view(),
        name="social-queue-reorder",
    ),
    path(
        "social/queue/<uuid:account_id>/slots/suggest",
        queue.QueueSuggestView.as_view(),
        name="social-queue-suggest",
    ),
    path("social/best-times", queue.BestTimesView.as_view(), name="social-best-times"),
]
