"""Admin: operators browse notifications, and send system alerts to chosen users.

`send_system_alert_action` is an action for the User changelist (it takes a queryset of
users), added there through accounts' extension point (`user_admin_extend`).
"""

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse

from accounts.admin import PANEL_ROWS, user_admin_extend
from accounts.models import User
from core.admin import ReadOnlyAdmin, json_block
from notifications.models import (
    Notification,
    OutboxConsumption,
    OutboxEvent,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
)
from notifications.services.center import BATCH_SIZE, notifications_delete, system_alert_send
from notifications.services.webhooks import delivery_redeliver_now, endpoint_reactivate

SYSTEM_ALERT_PERMISSION = "notifications.add_notification"


class SystemAlertForm(forms.Form):
    title = forms.CharField(max_length=200)
    message = forms.CharField(max_length=2000, widget=forms.Textarea(attrs={"rows": 4}))


@admin.action(description="Send a system alert to the selected users")
def send_system_alert_action(
    modeladmin: admin.ModelAdmin[User], request: HttpRequest, queryset: QuerySet[User]
) -> TemplateResponse | None:
    """First POST shows the title/message form; its submit sends, one INSERT per batch."""
    if not request.user.has_perm(SYSTEM_ALERT_PERMISSION):
        modeladmin.message_user(request, "You may not send notifications.", level=messages.ERROR)
        return None
    # "Select all N" across pages: the action gets the whole filtered set; the form only has
    # to carry the flag (and one id, which the changelist needs to accept the POST).
    select_across = request.POST.get("select_across") == "1"
    form = SystemAlertForm(request.POST if "apply" in request.POST else None)
    if form.is_bound and form.is_valid():
        sent = system_alert_send(
            user_ids=queryset.order_by().values_list("id", flat=True).iterator(BATCH_SIZE),
            title=form.cleaned_data["title"],
            message=form.cleaned_data["message"],
        )
        modeladmin.message_user(request, f"System alert sent to {sent} user(s).", messages.SUCCESS)
        return None  # back to the changelist

    selected = request.POST.getlist(helpers.ACTION_CHECKBOX_NAME)
    if select_across:
        selected = selected[:1]
    context: dict[str, Any] = {
        **modeladmin.admin_site.each_context(request),
        "title": "Send a system alert",
        "opts": modeladmin.model._meta,
        "form": form,
        "recipients": queryset.count(),
        "selected": selected,
        "select_across": select_across,
        "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
        "action_name": "send_system_alert_action",
    }
    return TemplateResponse(request, "admin/notifications/system_alert_form.html", context)


@admin.register(Notification)
class NotificationAdmin(admin.ModelAdmin[Notification]):
    """Read-only: notifications are created by notify() only; operators may delete them."""

    list_display = ("title", "user_email", "type", "category", "read", "created_at")
    list_filter = ("category", "type", "read")
    search_fields = ("user__email", "title")
    list_select_related = ("user",)
    raw_id_fields = ("user",)
    # The table holds millions of rows: skip the unfiltered COUNT(*) the changelist would add.
    show_full_result_count = False
    fields = (
        "id",
        "user",
        "title",
        "message",
        "category",
        "type",
        "read",
        "metadata",
        "created_at",
    )
    readonly_fields = fields

    @admin.display(description="User", ordering="user__email")
    def user_email(self, obj: Notification) -> str:
        return obj.user.email

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def delete_model(self, request: HttpRequest, obj: Notification) -> None:
        notifications_delete(notification_ids=[obj.pk])

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Notification]) -> None:
        notifications_delete(notification_ids=queryset.values_list("pk", flat=True))


def _recent_notifications(user: User) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
    rows = Notification.objects.filter(user=user).order_by("-created_at", "-id")
    return ("when", "type", "title", "read"), [
        (note.created_at, note.type, note.title, "yes" if note.read else "no")
        for note in rows[:PANEL_ROWS]
    ]


user_admin_extend(
    actions=(send_system_alert_action,),
    panels=(("Latest notifications", _recent_notifications),),
)


@admin.register(WebhookEndpoint)
class WebhookEndpointAdmin(ReadOnlyAdmin):
    """Workspaces' webhook receivers (`user`: who made each); their secrets are never shown."""

    list_display = (
        "url",
        "workspace",
        "user",
        "active",
        "disabled_reason",
        "consecutive_failures",
        "created_at",
    )
    list_filter = ("active",)
    search_fields = ("user__email", "url", "workspace__name")
    list_select_related = ("user", "workspace")
    actions = ("reactivate",)

    @admin.action(description="Re-activate (clears the reason it was disabled)")
    def reactivate(self, request: HttpRequest, queryset: QuerySet[WebhookEndpoint]) -> None:
        disabled = [endpoint for endpoint in queryset if not endpoint.active]
        for endpoint in disabled:
            endpoint_reactivate(endpoint_id=endpoint.pk)
        self.message_user(request, f"{len(disabled)} endpoint(s) re-activated.", messages.SUCCESS)

    fields = readonly_fields = (
        "id",
        "workspace",
        "user",
        "url",
        "events",
        "description",
        "active",
        "disabled_reason",
        "consecutive_failures",
        "created_at",
        "updated_at",
    )


class AttemptInline(admin.TabularInline[WebhookAttempt, WebhookDelivery]):
    model = WebhookAttempt
    fields = readonly_fields = ("at", "status_code", "duration_ms", "error", "response")
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(WebhookDelivery)
class WebhookDeliveryAdmin(ReadOnlyAdmin):
    """Each event sent to each endpoint, with every attempt; failed ones can be sent again."""

    list_display = (
        "created_at",
        "event",
        "endpoint",
        "status",
        "attempts",
        "last_status_code",
        "next_attempt_at",
        "delivered_at",
    )
    list_filter = ("status", "event")
    search_fields = ("endpoint__url", "endpoint__user__email", "event_id")
    list_select_related = ("endpoint",)
    date_hierarchy = "created_at"
    inlines = (AttemptInline,)
    actions = ("redeliver",)
    fields = readonly_fields = (
        "id",
        "endpoint",
        "event_id",
        "event",
        "status",
        "attempts",
        "next_attempt_at",
        "lease_expires_at",
        "last_status_code",
        "last_error",
        "delivered_at",
        "created_at",
        "body_json",
    )

    @admin.display(description="Body")
    def body_json(self, obj: WebhookDelivery) -> str:
        return json_block(obj.body)

    @admin.action(description="Redeliver now (same event id)")
    def redeliver(self, request: HttpRequest, queryset: QuerySet[WebhookDelivery]) -> None:
        deliveries = list(queryset)
        for delivery in deliveries:
            delivery_redeliver_now(delivery=delivery)
        self.message_user(request, f"{len(deliveries)} delivery(ies) queued.", messages.SUCCESS)


class ConsumptionInline(admin.TabularInline[OutboxConsumption, OutboxEvent]):
    model = OutboxConsumption
    fields = readonly_fields = (
        "consumer",
        "status",
        "attempts",
        "next_attempt_at",
        "last_error",
        "done_at",
    )
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(OutboxEvent)
class OutboxEventAdmin(ReadOnlyAdmin):
    """Domain events as recorded, and how far each consumer got with them (outbox lag shows
    here as events without `dispatched_at`)."""

    list_display = ("sequence", "event", "user", "workspace", "created_at", "dispatched_at")
    # A workspace's activity: its page links here filtered by it (?workspace__id__exact=).
    list_filter = ("event",)
    search_fields = ("user__email", "id", "workspace__name")
    list_select_related = ("user", "workspace")
    date_hierarchy = "created_at"
    inlines = (ConsumptionInline,)
    fields = readonly_fields = (
        "sequence",
        "id",
        "event",
        "user",
        "workspace",
        "actor",
        "data",
        "created_at",
        "dispatched_at",
    )


@admin.register(OutboxConsumption)
class OutboxConsumptionAdmin(ReadOnlyAdmin):
    list_display = (
        "event",
        "consumer",
        "status",
        "attempts",
        "next_attempt_at",
        "last_error",
        "done_at",
    )
    list_filter = ("consumer", "status")
    list_select_related = ("event",)
    fields = readonly_fields = (
        "event",
        "consumer",
        "status",
        "attempts",
        "next_attempt_at",
        "lease_expires_at",
        "last_error",
        "created_at",
        "done_at",
    )
