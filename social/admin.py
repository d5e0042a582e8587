"""Admin for the social hub: connected accounts (credentials never shown) with an action to
mark them for reconnection, the Mastodon apps, workspaces' social settings. Each row shows its
workspace (the owner of the hub's data) and its member (who made it)."""

from typing import Any

from django.contrib import admin, messages
from django.db.models import Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from django.utils import timezone
from django.utils.html import format_html, format_html_join

from accounts.admin import PANEL_ROWS, user_admin_extend
from core.admin import ReadOnlyAdmin
from social.connections import account_mark_expired
from social.models import (
    AccountQueue,
    AnalyticsRecord,
    Campaign,
    MastodonApp,
    MediaItem,
    Post,
    RecordStatus,
    ScheduledRecord,
    Series,
    SocialAccount,
    SocialSettings,
)
from social.networks import NETWORKS
from social.planning import queue_records, record_retry, series_end
from social.selectors import scheduler_lateness


@admin.register(SocialAccount)
class SocialAccountAdmin(ReadOnlyAdmin):
    list_display = (
        "username",
        "provider",
        "workspace",
        "user",
        "status",
        "expires_at",
        "last_sync",
        "has_credentials",
        "created_at",
    )
    list_filter = ("provider", "status")
    search_fields = ("user__email", "workspace__name", "username", "provider_user_id", "instance")
    list_select_related = ("workspace", "user")
    date_hierarchy = "created_at"
    # Every field but the credentials (access and refresh tokens, app passwords, API keys).
    fields = readonly_fields = (
        "id",
        "workspace",
        "user",
        "provider",
        "provider_user_id",
        "username",
        "display_name",
        "email",
        "avatar",
        "instance",
        "endpoint",
        "status",
        "has_credentials",
        "expires_at",
        "expiry_warned_days",
        "limits",
        "last_sync",
        "created_at",
        "updated_at",
    )
    actions = ("mark_for_reconnection",)

    @admin.display(boolean=True, description="credentials stored")
    def has_credentials(self, account: SocialAccount) -> bool:
        return bool(account.access_token)

    @admin.action(description="Mark for reconnection (the user is told to reconnect)")
    def mark_for_reconnection(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        marked = sum(
            account_mark_expired(account=account, reason="an operator asked for it")
            for account in queryset.select_related("user")
        )
        self.message_user(
            request,
            f"{marked} account(s) marked for reconnection; the others were not connected.",
            messages.SUCCESS,
        )


@admin.register(MastodonApp)
class MastodonAppAdmin(ReadOnlyAdmin):
    list_display = ("instance", "redirect_uri", "client_id", "created_at")
    search_fields = ("instance",)
    fields = readonly_fields = ("instance", "redirect_uri", "client_id", "created_at")


@admin.register(SocialSettings)
class SocialSettingsAdmin(ReadOnlyAdmin):
    list_display = (
        "workspace",
        "default_platform",
        "default_timezone",
        "auto_retry",
        "updated_at",
    )
    list_filter = ("default_platform", "auto_retry")
    search_fields = ("workspace__name", "workspace__personal_user__email")
    list_select_related = ("workspace",)


class RecordInline(admin.TabularInline[ScheduledRecord, Post]):
    model = ScheduledRecord
    extra = 0
    can_delete = False
    fields = readonly_fields = (
        "provider",
        "account",
        "status",
        "scheduled_time",
        "attempts",
        "next_attempt_at",
        "published_at",
        "url",
        "provider_post_id",
        "error",
    )
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Post)
class PostAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "workspace", "user", "title", "status", "campaign")
    list_filter = ("status",)
    search_fields = ("user__email", "workspace__name", "title", "content", "id")
    list_select_related = ("workspace", "user", "campaign")
    date_hierarchy = "created_at"
    inlines = (RecordInline,)


class DueFilter(admin.SimpleListFilter):
    """Waiting records whose time has come: what the next scheduler run will attempt (a long
    list here means the scheduler is behind or stopped); published records whose later parts
    wait for their retry among them."""

    title = "due"
    parameter_name = "due"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [("yes", "Due now"), ("no", "Not yet due")]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Any]) -> QuerySet[Any]:
        waiting = queryset.filter(
            Q(status=RecordStatus.SCHEDULED)
            | Q(status=RecordStatus.PUBLISHED, next_attempt_at__isnull=False)
        )
        if self.value() == "yes":
            return waiting.filter(due_at__lte=timezone.now())
        if self.value() == "no":
            return waiting.filter(due_at__gt=timezone.now())
        return queryset


@admin.register(ScheduledRecord)
class ScheduledRecordAdmin(ReadOnlyAdmin):
    list_display = (
        "scheduled_time",
        "workspace",
        "user",
        "provider",
        "status",
        "attempts",
        "next_attempt_at",
        "published_at",
        "error_code",
    )
    list_filter = (DueFilter, "status", "provider", "outcome_unknown", "queued")
    search_fields = ("user__email", "workspace__name", "id", "post__id", "provider_post_id")
    list_select_related = ("workspace", "user")
    date_hierarchy = "scheduled_time"
    actions = ("retry",)
    change_list_template = "admin/social/scheduledrecord/change_list.html"

    def changelist_view(
        self, request: HttpRequest, extra_context: dict[str, Any] | None = None
    ) -> HttpResponse:
        """The list, with the scheduler's lateness over the last hour above it."""
        return super().changelist_view(
            request, {**(extra_context or {}), "lateness": scheduler_lateness(hours=1)}
        )

    @admin.action(description="Retry (failed records only: waiting again, due now)")
    def retry(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        retried = sum(record_retry(record=record) for record in queryset)
        self.message_user(
            request,
            f"{retried} record(s) will be retried; the others had not failed.",
            messages.SUCCESS,
        )

    readonly_fields = (
        "id",
        "post",
        "workspace",
        "user",
        "account",
        "provider",
        "scheduled_time",
        "due_at",
        "status",
        "attempts",
        "next_attempt_at",
        "lease_expires_at",
        "claim",
        "outcome_unknown",
        "published_at",
        "url",
        "provider_post_id",
        "error",
        "error_code",
        "history",
        "queued",
        "series",
        "created_at",
        "updated_at",
    )


QUEUE_ROWS = 100  # waiting queued records shown on a queue's page


@admin.register(AccountQueue)
class AccountQueueAdmin(ReadOnlyAdmin):
    """Each account's posting queue: its slots and, in order, the records waiting in it."""

    list_display = ("account", "user", "time_zone", "paused", "slot_count", "waiting")
    list_filter = ("paused",)
    search_fields = ("account__user__email", "account__username", "account__id")
    list_select_related = ("account", "account__user")
    fields = readonly_fields = (
        "account",
        "user",
        "time_zone",
        "paused",
        "paused_at",
        "slot_list",
        "waiting",
        "queued_records",
        "created_at",
        "updated_at",
    )

    @admin.display(description="user")
    def user(self, queue: AccountQueue) -> Any:
        return queue.account.user

    @admin.display(description="slots")
    def slot_count(self, queue: AccountQueue) -> int:
        return len(queue.slots)

    @admin.display(description="weekly slots")
    def slot_list(self, queue: AccountQueue) -> str:
        return ", ".join(f"{slot['day']} {slot['time']}" for slot in queue.slots) or "-"

    @admin.display(description="waiting queued records")
    def waiting(self, queue: AccountQueue) -> int:
        return queue_records(account_id=queue.account_id).count()

    @admin.display(description=f"queue, in order (the first {QUEUE_ROWS})")
    def queued_records(self, queue: AccountQueue) -> str:
        records = queue_records(account_id=queue.account_id).select_related("post")
        rows = [
            (
                reverse("admin:social_scheduledrecord_change", args=[r.pk]),
                f"{r.scheduled_time:%Y-%m-%d %H:%M} UTC",
                str(r.post)[:80],
            )
            for r in records[:QUEUE_ROWS]
        ]
        if not rows:
            return "-"
        return format_html(
            "<ol>{}</ol>", format_html_join("", '<li><a href="{}">{}</a>: {}</li>', rows)
        )


class SeriesRecordInline(admin.TabularInline[ScheduledRecord, Series]):
    model = ScheduledRecord
    fk_name = "series"
    extra = 0
    can_delete = False
    fields = readonly_fields = (
        "account",
        "status",
        "scheduled_time",
        "published_at",
        "url",
        "error",
    )
    ordering = ("scheduled_time",)
    show_change_link = True

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(Series)
class SeriesAdmin(ReadOnlyAdmin):
    """Recurring posts: the rule, where it stands, every occurrence so far."""

    list_display = ("post", "rule", "time_zone", "starts_at", "until", "count", "ended_at")
    list_filter = (("ended_at", admin.EmptyFieldListFilter),)
    search_fields = ("post__user__email", "post__id", "rule")
    list_select_related = ("post",)
    fields = readonly_fields = (
        "post",
        "rule",
        "time_zone",
        "starts_at",
        "until",
        "count",
        "ended_at",
        "created_at",
        "updated_at",
    )
    inlines = (SeriesRecordInline,)
    actions = ("end",)

    @admin.action(description="End the series (its waiting occurrences are cancelled)")
    def end(self, request: HttpRequest, queryset: QuerySet[Any]) -> None:
        cancelled = sum(series_end(series_id=series.pk) for series in queryset)
        self.message_user(
            request,
            f"{queryset.count()} series ended; {cancelled} waiting occurrence(s) cancelled.",
            messages.SUCCESS,
        )


@admin.register(Campaign)
class CampaignAdmin(ReadOnlyAdmin):
    list_display = ("name", "workspace", "user", "status", "start_date", "end_date", "budget")
    list_filter = ("status",)
    search_fields = ("user__email", "workspace__name", "name")
    list_select_related = ("workspace", "user")


@admin.register(MediaItem)
class MediaItemAdmin(ReadOnlyAdmin):
    list_display = ("created_at", "workspace", "user", "filename", "type", "size", "width")
    list_filter = ("type",)
    search_fields = ("user__email", "workspace__name", "filename", "url")
    list_select_related = ("workspace", "user")


@admin.register(AnalyticsRecord)
class AnalyticsRecordAdmin(ReadOnlyAdmin):
    list_display = ("date", "workspace", "provider", "impressions", "engagement", "clicks")
    list_filter = ("provider",)
    search_fields = ("workspace__name", "record__id")
    list_select_related = ("workspace",)
    date_hierarchy = "date"


def _network_name(provider: str) -> str:
    network = NETWORKS.get(provider)
    return network.name if network is not None else provider


def _social_accounts(user: Any) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
    rows = SocialAccount.objects.filter(user=user).order_by("-created_at")
    return ("connected", "platform", "account", "status", "expires"), [
        (a.created_at, _network_name(a.provider), a.username, a.status, a.expires_at)
        for a in rows[:PANEL_ROWS]
    ]


user_admin_extend(panels=(("Social accounts", _social_accounts),))
