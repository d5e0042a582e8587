"""Admin for the ledger (read-only) and payment events (inspect, re-apply)."""

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from billing.models import CreditTransaction, PaymentEvent, PaymentEventStatus
from billing.services.payments import payment_event_reapply


class ReadOnlyAdmin(admin.ModelAdmin[Any]):
    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(CreditTransaction)
class CreditTransactionAdmin(ReadOnlyAdmin):
    """The ledger is append-only: rows are written by the billing services alone."""

    list_display = ("created_at", "user", "delta", "balance_after", "reason", "reference")
    list_filter = ("reason",)
    search_fields = ("user__email", "reference")
    list_select_related = ("user",)
    date_hierarchy = "created_at"


@admin.register(PaymentEvent)
class PaymentEventAdmin(ReadOnlyAdmin):
    list_display = ("received_at", "event_type", "event_id", "status", "user", "attempts")
    list_filter = ("status", "event_type")
    search_fields = ("event_id", "user__email")
    list_select_related = ("user",)
    readonly_fields = (
        "event_id",
        "event_type",
        "status",
        "detail",
        "user",
        "payload",
        "raw_body",
        "received_at",
        "applied_at",
        "attempts",
    )
    actions = ["reapply"]

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return True  # the change page shows the payload; every field is read-only

    @admin.action(description="Re-apply selected unmatched or invalid events")
    def reapply(self, request: HttpRequest, queryset: QuerySet[PaymentEvent]) -> None:
        applied = 0
        for event in queryset:
            if payment_event_reapply(event=event).status == PaymentEventStatus.APPLIED:
                applied += 1
        level = messages.SUCCESS if applied else messages.WARNING
        self.message_user(request, f"{applied} of {queryset.count()} events applied.", level)
