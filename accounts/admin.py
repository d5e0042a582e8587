"""Admin for users: operators inspect accounts and change role and plan through the services."""

from typing import Any, cast

from django import forms
from django.conf import settings
from django.contrib import admin
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse

from accounts.models import MagicLinkToken, User
from accounts.services.users import (
    user_create,
    user_set_role,
    user_update_profile,
)
from notifications.admin import send_system_alert_action


class UserChangeForm(forms.ModelForm[User]):
    plan = forms.ChoiceField(choices=())
    avatar_url = forms.URLField(required=False, max_length=1000, assume_scheme="https")

    class Meta:
        model = User
        fields = ("full_name", "avatar_url", "role", "plan", "is_active")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        plan = cast(forms.ChoiceField, self.fields["plan"])
        plan.choices = [(key, tier["name"]) for key, tier in settings.PLANS.items()]


class UserCreationForm(forms.ModelForm[User]):
    password = forms.CharField(
        widget=forms.PasswordInput,
        required=False,
        min_length=6,
        help_text="Leave empty for an account that signs in by magic link.",
    )

    class Meta:
        model = User
        fields = ("email", "full_name")


class GrantCreditsForm(forms.Form):
    credits = forms.IntegerField(
        help_text="Credits to add to each user; a negative number removes (never below 0)."
    )
    reason = forms.CharField(max_length=150, help_text="Kept on each ledger row.")

    def clean_credits(self) -> int:
        value = int(self.cleaned_data["credits"])
        if value == 0:
            raise forms.ValidationError("Must not be 0.")
        return value


@admin.register(User)
class UserAdmin(admin.ModelAdmin[User]):
    list_display = (
        "email",
        "full_name",
        "role",
        "plan",
        "credits_remaining",
        "monthly_quota",
        "email_verified",
        "created_at",
    )
    list_filter = ("role", "plan", "email_verified", "is_active")
    search_fields = ("email", "full_name")
    ordering = ("-created_at",)
    readonly_fields = (
        "id",
        "email",
        "credits_remaining",
        "monthly_quota",
        "email_verified",
        "is_superuser",
        "last_login",
        "created_at",
    )

    def get_form(
        self, request: HttpRequest, obj: User | None = None, change: bool = False, **kwargs: Any
    ) -> Any:
        kwargs["form"] = UserChangeForm if obj is not None else UserCreationForm
        return super().get_form(request, obj, change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: User | None = None) -> Any:
        if obj is None:
            return ("email", "full_name", "password")
        return (*UserChangeForm.Meta.fields, *self.readonly_fields)

    def get_readonly_fields(self, request: HttpRequest, obj: User | None = None) -> Any:
        return self.readonly_fields if obj is not None else ()

    actions = ["grant_credits", send_system_alert_action]

    @admin.action(description="Grant credits to the selected users")
    def grant_credits(self, request: HttpRequest, queryset: QuerySet[User]) -> Any:
        """Asks for an amount and a reason, then writes one ledger row per user."""
        from billing.services.credits import credits_adjust, credits_grant

        form = GrantCreditsForm(request.POST if "apply" in request.POST else None)
        if form.is_bound and form.is_valid():
            amount, reason = form.cleaned_data["credits"], form.cleaned_data["reason"]
            reference = f"operator {request.user}: {reason}"[:200]
            for user in queryset:
                if amount > 0:
                    credits_grant(user=user, amount=amount, reference=reference)
                else:
                    credits_adjust(user=user, delta=amount, reference=reference)
            self.message_user(request, f"{amount:+d} credits for {queryset.count()} users.")
            return None
        return TemplateResponse(
            request,
            "admin/accounts/user/action_form.html",
            {
                **self.admin_site.each_context(request),
                "title": "Grant credits",
                "intro": "Grant credits to these users:",
                "queryset": queryset,
                "form": form,
                "action": "grant_credits",
                "submit": "Grant",
            },
        )

    @transaction.atomic
    def save_model(self, request: HttpRequest, obj: User, form: Any, change: bool) -> None:
        """Every change goes through a service; the form only collects the input."""
        data = form.cleaned_data
        if not change:
            created = user_create(
                email=data["email"],
                password=data.get("password") or None,
                full_name=data["full_name"],
            )
            obj.pk = created.pk
            return
        user = User.objects.select_for_update().get(pk=obj.pk)
        user_update_profile(user=user, full_name=data["full_name"], avatar_url=data["avatar_url"])
        if "role" in form.changed_data:
            user_set_role(user=user, role=data["role"])
        if "plan" in form.changed_data:
            from billing.services.plans import plan_set

            plan_set(user=user, plan=data["plan"])
        if "is_active" in form.changed_data:
            user.is_active = data["is_active"]
            user.save(update_fields=["is_active"])


@admin.register(MagicLinkToken)
class MagicLinkTokenAdmin(admin.ModelAdmin[MagicLinkToken]):
    """Read-only: which addresses asked for links and whether they were used (hashes only)."""

    list_display = ("email", "created_at", "expires_at", "used_at")
    search_fields = ("email",)
    list_filter = ("used_at",)
    readonly_fields = ("email", "token_hash", "created_at", "expires_at", "used_at")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False
