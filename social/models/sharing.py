"""Share links (workspaces.md section 4): a workspace's calendar or report, readable by whoever
holds the link, with no account; revocable and, when asked, expiring."""

import uuid
from datetime import datetime

from django.conf import settings
from django.db import models
from django.utils import timezone


class ShareKind(models.TextChoices):
    CALENDAR = "calendar"  # the posts of the last 30 and next 60 days, as JSON and iCalendar
    REPORT = "report"  # the workspace's report, as JSON, CSV or PDF


class ShareLink(models.Model):
    """A link to a workspace's calendar or report. Its token (32 random bytes) is shown once,
    when it is made; only its SHA-256 is kept. Revoked or past `expires_at`, it opens nothing
    (410 `share_link_closed`)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(
        "accounts.Workspace", on_delete=models.CASCADE, related_name="+", db_index=False
    )
    kind = models.CharField(max_length=16, choices=ShareKind.choices)
    token_hash = models.CharField(max_length=64, unique=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(null=True, blank=True)  # none: until revoked
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [
            models.Index(fields=["workspace", "-created_at"], name="social_share_ws_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} link of {self.workspace_id}"

    def open_at(self, now: datetime) -> bool:
        """Neither revoked nor expired at `now`."""
        return self.revoked_at is None and (self.expires_at is None or self.expires_at > now)
