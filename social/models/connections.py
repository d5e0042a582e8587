"""The connections' tables: the accounts a workspace connects (their credentials encrypted at
rest), the OAuth consent in flight, the apps registered on Mastodon instances, each account's
last health check, and each workspace's social hub settings."""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from core.crypto import EncryptedTextField

# A network's identifier (`provider`, `platform`): one of social.networks' registry. The
# columns hold it without `choices`: the registry, not a list here, says which identifiers
# exist (the API checks them against it, the admin names them from it), so adding a network
# writes no migration. The registry's completeness test keeps every identifier this short.
PROVIDER_LENGTH = 16


class AccountStatus(models.TextChoices):
    CONNECTED = "connected", "Connected"
    EXPIRED = "expired", "Expired: reconnect needed"
    DISCONNECTED = "disconnected", "Disconnected"


class SocialAccount(models.Model):
    """One provider account of one workspace, connected by one of its members (`user`).
    Disconnected accounts keep their row (posts and analytics refer to it) with their
    credentials deleted, until their workspace goes."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(
        "accounts.Workspace",
        on_delete=models.RESTRICT,  # its hub data goes first (social.connections.workspace_erase)
        related_name="+",
        db_index=False,  # the (workspace, status) index leads with it
    )
    # Who connected it: told about its lifecycle; a takeover of their address releases it.
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="social_accounts"
    )
    provider = models.CharField(max_length=PROVIDER_LENGTH)
    provider_user_id = models.CharField(max_length=255)
    instance = models.CharField(max_length=255, blank=True, default="")  # Mastodon's server
    username = models.CharField(max_length=255, blank=True, default="")
    display_name = models.CharField(max_length=255, blank=True, default="")
    email = models.CharField(max_length=254, blank=True, default="")
    avatar = models.URLField(max_length=1000, blank=True, default="")
    status = models.CharField(
        max_length=16, choices=AccountStatus.choices, default=AccountStatus.CONNECTED
    )
    # Secrets: access and refresh tokens, app passwords, API keys (never returned or logged).
    access_token = EncryptedTextField(blank=True, default="")
    refresh_token = EncryptedTextField(blank=True, default="")
    # When the connection ends without the user (social.md section 2): null for one that
    # renews itself (a Bluesky session), the refresh token's end for a token that has one,
    # else the token's own end. Only this blocks scheduling and is warned about.
    expires_at = models.DateTimeField(null=True, blank=True)
    # When the stored credentials stop working unless renewed (internal: the daily upkeep
    # renews them a week ahead).
    credentials_expire_at = models.DateTimeField(null=True, blank=True)
    # The last expiry warning sent (7 or 1 days before), so the daily task warns once each.
    expiry_warned_days = models.PositiveSmallIntegerField(null=True, blank=True)
    # The account's own API server, where it has one (a Bluesky PDS); '' for the platform's.
    endpoint = models.CharField(max_length=255, blank=True, default="")
    # Mastodon: the app registered on the instance (its secret revokes the token).
    app = models.ForeignKey(
        "social.MastodonApp", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    limits = models.JSONField(default=dict, blank=True)  # the account's live limits
    # What the account was connected with that its posts use (Pinterest's default board).
    options = models.JSONField(default=dict, blank=True)
    last_sync = models.DateTimeField(default=timezone.now)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [
            models.Index(fields=["workspace", "status"], name="social_account_workspace_idx")
        ]
        constraints = [
            # One live connection per provider account, whoever holds it.
            models.UniqueConstraint(
                fields=["provider", "instance", "provider_user_id"],
                condition=~Q(status=AccountStatus.DISCONNECTED),
                name="social_account_connected_once",
            )
        ]

    def __str__(self) -> str:
        return f"{self.provider}: {self.username or self.provider_user_id} ({self.status})"


class MastodonApp(models.Model):
    """Our app as registered on one Mastodon instance for one redirect URI, reused by every
    user of that instance."""

    instance = models.CharField(max_length=255)
    redirect_uri = models.CharField(max_length=2000)
    client_id = models.CharField(max_length=255)
    client_secret = EncryptedTextField()
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["instance", "redirect_uri"], name="social_mastodon_app_once"
            )
        ]

    def __str__(self) -> str:
        return f"{self.instance} ({self.redirect_uri})"


class ConnectState(models.Model):
    """An OAuth consent in flight: the `state` a user received (stored as its SHA-256), bound
    to the workspace it was asked in, the provider, redirect URI and instance, good once for
    SOCIAL_CONNECT_STATE_SECONDS."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey("accounts.Workspace", on_delete=models.CASCADE, related_name="+")
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    provider = models.CharField(max_length=PROVIDER_LENGTH)
    state_hash = models.CharField(max_length=64, unique=True)
    redirect_uri = models.CharField(max_length=2000)
    instance = models.CharField(max_length=255, blank=True, default="")
    app = models.ForeignKey(MastodonApp, null=True, blank=True, on_delete=models.CASCADE)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["expires_at"], name="social_state_expiry_idx")]

    def __str__(self) -> str:
        return f"{self.provider} consent of {self.user_id}"


NOTIFICATION_PREFERENCES = (
    "oauthSuccess",
    "oauthFailure",
    "tokenExpiry",
    "postPublished",
    "postFailed",
)


class SocialSettings(models.Model):
    """A workspace's social hub defaults; a workspace without a row has the defaults.

    `notification_preferences` are a user's own (notifications are per user, across
    workspaces): they are kept in the row of the user's personal workspace, and a shared
    workspace's row leaves them empty (social.selectors.preferences_of)."""

    workspace = models.OneToOneField(
        "accounts.Workspace", primary_key=True, on_delete=models.CASCADE, related_name="+"
    )
    default_platform = models.CharField(  # noqa: DJ001 (null is the API's "no default")
        max_length=PROVIDER_LENGTH, null=True, blank=True
    )
    default_timezone = models.CharField(max_length=64, default="UTC")
    auto_retry = models.BooleanField(default=True)
    # Publishing or scheduling an image without alt text is refused (social.md section 9).
    require_alt_text = models.BooleanField(default=False)
    # Only the keys the user changed; missing keys are on.
    notification_preferences = models.JSONField(default=dict, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "social settings"

    def __str__(self) -> str:
        return f"Social settings of {self.workspace_id}"

    def wants(self, preference: str) -> bool:
        return bool(self.notification_preferences.get(preference, True))


class AccountHealth(models.Model):
    """An account's last health check (social.md section 12: one cheap identity call, kept 5
    minutes) and what the pre-flight announced about it (`post.at_risk` once per problem). A
    reconnect deletes it: the account is checked afresh."""

    account = models.OneToOneField(
        SocialAccount, primary_key=True, on_delete=models.CASCADE, related_name="health"
    )
    checked_at = models.DateTimeField(null=True, blank=True)
    report = models.JSONField(default=dict, blank=True)  # GET .../health as last answered
    # The pre-flight's last look at the account (it looks once per PREFLIGHT_EVERY).
    preflight_at = models.DateTimeField(null=True, blank=True)
    # Problem code -> when `post.at_risk` named it; a problem gone is forgotten.
    announced = models.JSONField(default=dict, blank=True)

    class Meta:
        verbose_name_plural = "account health"

    def __str__(self) -> str:
        return f"Health of {self.account_id}"
