"""Social accounts a user connects; their credentials are encrypted at rest."""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from config.crypto import EncryptedTextField


class Provider(models.TextChoices):
    LINKEDIN = "linkedin", "LinkedIn"
    FACEBOOK = "facebook", "Facebook"
    INSTAGRAM = "instagram", "Instagram"
    BLUESKY = "bluesky", "Bluesky"
    MASTODON = "mastodon", "Mastodon"
    DEVTO = "devto", "DEV Community"


class AccountStatus(models.TextChoices):
    CONNECTED = "connected", "Connected"
    EXPIRED = "expired", "Expired: reconnect needed"
    DISCONNECTED = "disconnected", "Disconnected"


class SocialAccount(models.Model):
    """One provider account of one user. Disconnected accounts keep their row (posts and
    analytics refer to it) with their credentials deleted."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="social_accounts",
        db_index=False,  # the (user, status) index leads with user
    )
    provider = models.CharField(max_length=16, choices=Provider.choices)
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
    expires_at = models.DateTimeField(null=True, blank=True)  # of the access token, if any
    limits = models.JSONField(default=dict, blank=True)  # the account's live limits
    last_sync = models.DateTimeField(default=timezone.now)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [models.Index(fields=["user", "status"], name="social_account_user_idx")]
        constraints = [
            # One live connection per provider account, whoever holds it.
            models.UniqueConstraint(
                fields=["provider", "instance", "provider_user_id"],
                condition=~Q(status="disconnected"),
                name="social_account_connected_once",
            )
        ]

    def __str__(self) -> str:
        return f"{self.provider}: {self.username or self.provider_user_id} ({self.status})"
