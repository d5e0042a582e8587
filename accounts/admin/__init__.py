"""Admin for users: operators inspect accounts and change them through the services.

Higher apps take part in the user pages without accounts importing them (the apps' layers):
from their own admin modules they call `user_admin_extend()` to add actions (billing's credit
grants, notifications' system alerts) and to save fields that are theirs (billing's plan).
"""

import logging
from collections.abc import Callable
from typing import Any, cast

from django import forms
from django.conf import settings
from django.contrib import admin, messages
from django.contrib.admin.forms import AdminAuthenticationForm
from django.contrib.auth.models import Group
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.html import format_html, format_html_join

from accounts.models import ApiKey, MagicLinkToken, User
from accounts.services.api_keys import api_keys_revoke
from accounts.services.login import (
    sign_in_failure_record,
    sign_in_success_record,
    sign_in_throttle_check,
)
from accounts.services.users import (
    password_check,
    user_create,
    user_erase,
    user_set_active,
    user_set_role,
    user_update_profile,
)
from core.admin import ReadOnlyAdmin
from core.errors import RateLimitedError, ValidationFailed
from core.ratelimit import client_ip

logger = logging.getLogger(__name__)

# Filled by higher apps' admin modules (loaded by admin autodiscovery, before any request).
_extra_actions: list[Callable[..., Any]] = []
_field_savers: dict[str, Callable[[User, Any], Any]] = {}
# A panel: a title and what to show for a user, as (column names, rows); shown read-only on
# the user's page, so saving the user's form never depends on another app's rows.
Panel = tuple[str, Callable[[User], tuple[tuple[str, ...], list[tuple[Any, ...]]]]]
_panels: list[Panel] = []
PANEL_ROWS = 20  # the newest rows of each panel


def user_admin_extend(
    *,
    actions: tuple[Callable[..., Any], ...] = (),
    field_savers: dict[str, Callable[[User, Any], Any]] | None = None,
    panels: tuple[Panel, ...] = (),
) -> None:
    """Add changelist actions, savers for form fields another app owns (name -> saver), and
    read-only panels of a user's recent rows on the user's page."""
    _extra_actions.extend(action for action in actions if action not in _extra_actions)
    _field_savers.update(field_savers or {})
    _panels.extend(panel for panel in panels if panel not in _panels)


def _panel_html(title: str, columns: tuple[str, ...], rows: list[tuple[Any, ...]]) -> str:
    head = format_html_join("", "<th>{}</th>", ((column,) for column in columns))
    body = format_html_join(
        "",
        "<tr>{}</tr>",
        ((format_html_join("", "<td>{}</td>", ((value,) for value in row)),) for row in rows),
    )
    if not rows:
        body = format_html("<tr><td colspan='{}'>None yet.</td></tr>", len(columns))
    return format_html(
        "<h3>{}</h3><table><thead><tr>{}</tr></thead><tbody>{}</tbody></table>", title, head, body
    )


class ThrottledAdminLoginForm(AdminAuthenticationForm):
    """The admin's door, throttled like the API's login (slow-down and stop per e-mail and
    address, per address over all e-mails) and logged; strangers cannot lock an operator out
    from the operator's own address."""

    def clean(self) -> dict[str, Any]:
        email = str(self.data.get("username", ""))
        address = client_ip(self.request) if self.request is not None else "unknown"
        try:
            sign_in_throttle_check(email, address, scope="admin-login")
        except RateLimitedError as exc:
            logger.warning("Admin sign-in refused (throttled) for %s from %s", email, address)
            raise forms.ValidationError(
                f"Too many failed sign-in attempts. Try again in {exc.details['retryAfter']} s."
            ) from None
        try:
            data = super().clean()
        except forms.ValidationError:
            sign_in_failure_record(email, address, scope="admin-login")
            raise
        sign_in_success_record(email, address, scope="admin-login")
        logger.info("Admin sign-in for %s from %s", email, address)
        return data


admin.site.login_form = ThrottledAdminLoginForm
# Roles are the `role` field (user, admin = staff); Django's groups play no part in them.
# auth's admin module registers Group when imported: import it first (accounts comes before
# auth in INSTALLED_APPS), so the later autodiscovery finds it imported and registers nothing.
import django.contrib.auth.admin  # noqa: E402, F401

admin.site.unregister(Group)


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
        help_text="Leave empty for an account that signs in by magic link.",
    )

    class Meta:
        model = User
        fields = ("email", "full_name")

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if password := data.get("password"):
            try:
                password_check(
                    password=password,
                    user=User(email=data.get("email", ""), full_name=data.get("full_name", "")),
                )
            except ValidationFailed as exc:
                self.add_error("password", exc.details["password"])
        return data


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
        "erased_at",
        "recent_activity",
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

    @admin.display(description="Recent activity")
    def recent_activity(self, obj: User) -> str:
        """The panels other apps add (ledger, AI calls, notifications): "why was I charged?"
        answered on one page."""
        return format_html_join(
            "", "{}", ((_panel_html(title, *rows_of(obj)),) for title, rows_of in _panels)
        )

    def get_actions(self, request: HttpRequest) -> dict[str, Any]:
        actions = super().get_actions(request)
        for action in _extra_actions:
            name = action.__name__
            description = getattr(action, "short_description", name.replace("_", " "))
            actions[name] = (action, name, description)
        return actions

    # Deleting a user erases it (accounts.services.users.user_erase): what is theirs goes, and
    # the row stays anonymised so the ledger and payment records keep valid references.
    def get_deleted_objects(self, objs: Any, request: HttpRequest) -> Any:
        erased = [
            f"{user}: personal data, AI history and notifications removed; ledger rows kept, "
            "anonymised"
            for user in objs
        ]
        return erased, {"users erased": len(erased)}, set(), []

    def delete_model(self, request: HttpRequest, obj: User) -> None:
        user_erase(user=obj)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[User]) -> None:
        for user in queryset:
            user_erase(user=user)

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
        for name, saver in _field_savers.items():
            if name in form.changed_data:
                saver(user, data[name])
        if "is_active" in form.changed_data:
            user_set_active(user=user, active=data["is_active"])


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


@admin.register(ApiKey)
class ApiKeyAdmin(ReadOnlyAdmin):
    """Users' API keys: who holds which scopes, when each was last used; never the key (only
    its hash is stored, and that is not shown either). Operators revoke, never delete: a
    revoked key stays listed for the audit trail."""

    list_display = (
        "name",
        "user",
        "workspace",
        "prefix",
        "scope_list",
        "status",
        "created_at",
        "expires_at",
        "last_used_at",
        "revoked_at",
    )
    list_filter = (("revoked_at", admin.EmptyFieldListFilter), "created_at", "last_used_at")
    search_fields = ("user__email", "name", "prefix")
    list_select_related = ("user", "workspace")
    actions = ("revoke",)
    fields = readonly_fields = (
        "id",
        "user",
        "workspace",
        "name",
        "prefix",
        "scopes",
        "created_at",
        "expires_at",
        "last_used_at",
        "revoked_at",
    )

    @admin.display(description="Scopes")
    def scope_list(self, obj: ApiKey) -> str:
        return ", ".join(obj.scopes)

    @admin.display(description="Status")
    def status(self, obj: ApiKey) -> str:
        if obj.revoked_at is not None:
            return "revoked"
        return "live" if obj.is_live() else "expired"

    @admin.action(description="Revoke (the keys stop working at once)")
    def revoke(self, request: HttpRequest, queryset: QuerySet[ApiKey]) -> None:
        revoked = api_keys_revoke(key_ids=queryset.values_list("pk", flat=True))
        logger.info("%s revoked %d API key(s)", request.user, revoked)
        self.message_user(request, f"{revoked} API key(s) revoked.", messages.SUCCESS)


def _recent_api_keys(user: User) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
    keys = (
        ApiKey.objects.filter(user=user)
        .select_related("workspace")
        .order_by("-created_at", "-id")[:PANEL_ROWS]
    )
    return ("created", "name", "workspace", "prefix", "scopes", "last used", "revoked"), [
        (
            key.created_at,
            key.name,
            key.workspace,
            key.prefix,
            ", ".join(key.scopes),
            key.last_used_at or "never",
            key.revoked_at or "",
        )
        for key in keys
    ]


user_admin_extend(panels=(("API keys", _recent_api_keys),))

# Workspaces, their members and invitations: a module of their own.
from accounts.admin import workspaces  # noqa: E402, F401
