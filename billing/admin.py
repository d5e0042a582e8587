"""Admin for the ledger (read-only) and payment events (inspect, re-apply); on the users'
changelist, the grant-credits action and the plan field (through accounts' extension point)."""

from typing import Any

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse

from accounts.admin import PANEL_ROWS, user_admin_extend
from accounts.models import User
from billing.models import CreditTransaction, PaymentEvent, PaymentEventStatus
from billing.services.credits import MAX_OPERATOR_CREDITS, credits_adjust, credits_grant
from billing.services.payments import payment_event_reapply
from billing.services.plans import plan_set
from core.admin import ReadOnlyAdmin


class GrantCreditsForm(forms.Form):
    credits = forms.IntegerField(
        min_value=-MAX_OPERATOR_CREDITS,
        max_value=MAX_OPERATOR_CREDITS,
        help_text="Credits to add to each user; a negative number removes (never below 0).",
    )
    reason = forms.CharField(max_length=150, help_text="Kept on each ledger row.")

    def clean_credits(self) -> int:
        value = int(self.cleaned_data["credits"])
        if value == 0:
            raise forms.ValidationError("Must not be 0.")
        return value


@admin.action(description="Grant credits to the selected users")
def grant_credits(
    modeladmin: admin.ModelAdmin[User], request: HttpRequest, queryset: QuerySet[User]
) -> Any:
    """Asks for an amount and a reason, then writes one ledger row per user."""
    form = GrantCreditsForm(request.POST if "apply" in request.POST else None)
    if form.is_bound and form.is_valid():
        amount, reason = form.cleaned_data["credits"], form.cleaned_data["reason"]
        reference = f"operator {request.user}: {reason}"[:200]
        for user in queryset:
            if amount > 0:
                credits_grant(user=user, amount=amount, reference=reference)
            else:
                credits_adjust(user=user, delta=amount, reference=reference)
        modeladmin.message_user(request, f"{amount:+d} credits for {queryset.count()} users.")
        return None
    return TemplateResponse(
        request,
        "admin/accounts/user/action_form.html",
        {
            **modeladmin.admin_site.each_context(request),
            "title": "Grant credits",
            "intro": "Grant credits to these users:",
            "queryset": queryset,
            "form": form,
            "action": "grant_credits",
            "submit": "Grant",
        },
    )


def _recent_credits(user: User) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
    rows = CreditTransaction.objects.filter(user=user).order_by("-created_at", "-id")
    return ("when", "change", "balance", "reason", "reference"), [
        (
            row.created_at,
            f"{row.delta:+d}",
            row.balance_after,
            row.get_reason_display(),
            row.reference,
        )
        for row in rows[:PANEL_ROWS]
    ]


user_admin_extend(
    panels=(("Latest credit changes (why was I charged?)", _recent_credits),),
    actions=(grant_credits,),
    field_savers={"plan": lambda user, plan: plan_set(user=user, plan=plan)},
)


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
    # Status and user first, the long provider ids shortened: readable at 1280 px.
    list_display = ("status", "user", "event_type", "short_event_id", "received_at", "attempts")
    list_display_links = ("status", "short_event_id")
    list_filter = ("status", "event_type")
    search_fields = ("event_id", "entity_key", "user__email")
    list_select_related = ("user",)
    readonly_fields = (
        "event_id",
        "entity_key",
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

    @admin.display(description="event id", ordering="event_id")
    def short_event_id(self, obj: PaymentEvent) -> str:
        return obj.event_id if len(obj.event_id) <= 24 else f"{obj.event_id[:21]}..."

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return True  # the change page shows the payload; every field is read-only

    @admin.action(description="Re-apply selected unmatched or invalid events")
    def reapply(self, request: HttpRequest, queryset: QuerySet[PaymentEvent]) -> None:
        """Each event's outcome is named: applied, still not applicable (and why), or left
        alone because it was not unmatched or invalid."""
        for event in queryset:
            before = event.status
            after = payment_event_reapply(event=event)
            if before not in (PaymentEventStatus.UNMATCHED, PaymentEventStatus.INVALID):
                text, level = f"{event.event_id}: left alone (it is {before}).", messages.INFO
            elif after.status == PaymentEventStatus.APPLIED:
                text, level = f"{event.event_id}: applied.", messages.SUCCESS
            else:
                text = f"{event.event_id}: still {after.status}: {after.detail}"
                level = messages.WARNING
            self.message_user(request, text, level)
