"""Admin for the social hub: connected accounts (credentials never shown) with an action to
mark them for reconnection, the Mastodon apps, users' social settings."""

from typing import Any

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from accounts.admin import PANEL_ROWS, ReadOnlyAdmin, user_admin_extend
from social.models import MastodonApp, SocialAccount, SocialSettings
from social.services.accounts import account_mark_expired


@admin.register(SocialAccount)
class SocialAccountAdmin(ReadOnlyAdmin):
    list_display = (
        "username",
        "provider",
        "user",
        "status",
        "expires_at",
        "last_sync",
        "has_credentials",
        "created_at",
    )
    list_filter = ("provider", "status")
    search_fields = ("user__email", "username", "provider_user_id", "instance")
    list_select_related = ("user",)
    date_hierarchy = "created_at"
    # Every field but the credentials (access and refresh tokens, app passwords, API keys).
    fields = readonly_fields = (
        "id",
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
    list_display = ("user", "default_platform", "default_timezone", "auto_retry", "updated_at")
    list_filter = ("default_platform", "auto_retry")
    search_fields = ("user__email",)
    list_select_related = ("user",)


def _social_accounts(user: Any) -> tuple[tuple[str, ...], list[tuple[Any, ...]]]:
    rows = SocialAccount.objects.filter(user=user).order_by("-created_at")
    return ("connected", "platform", "account", "status", "expires"), [
        (a.created_at, a.get_provider_display(), a.username, a.status, a.expires_at)
        for a in rows[:PANEL_ROWS]
    ]


user_admin_extend(panels=(("Social accounts", _social_accounts),))
