"""AI history entries, and the gigs and proposals the generators produce."""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from core.leases import Leased


class GenerationStatus(models.TextChoices):
    PENDING = "pending", "Pending"  # queued (async), credits already taken
    RUNNING = "running", "Running"  # claimed: the provider call is in flight
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"  # credits refunded


class Generation(Leased):
    """One call of one AI tool: the history entry, and the result of an async call. Claimed
    (`pending` -> `running`) under a lease of AI_STALE_AFTER_SECONDS (core.leases)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="generations",
        db_index=False,
    )
    tool = models.CharField(max_length=32)
    title = models.CharField(max_length=200)
    status = models.CharField(max_length=16, choices=GenerationStatus.choices)
    credits_charged = models.PositiveIntegerField()
    input = models.JSONField()
    output = models.JSONField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True, default="")
    provider = models.CharField(max_length=32)
    tokens_used = models.PositiveIntegerField(default=0)
    spend = models.OneToOneField(
        "billing.CreditTransaction",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="generation",
    )
    is_async = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)  # claimed (pending -> running)
    completed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [
            models.Index(fields=["user", "-created_at", "-id"], name="gen_user_created_idx"),
            models.Index(fields=["user", "tool", "-created_at"], name="gen_user_tool_idx"),
            models.Index(
                fields=["created_at"],
                condition=Q(status__in=[GenerationStatus.PENDING, GenerationStatus.RUNNING]),
                name="gen_unfinished_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.tool} ({self.status})"


class GigStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    ACTIVE = "active", "Active"
    PAUSED = "paused", "Paused"


class Gig(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="gigs", db_index=False
    )
    generation = models.OneToOneField(
        Generation, null=True, blank=True, on_delete=models.SET_NULL, related_name="gig"
    )
    title = models.CharField(max_length=200)
    description = models.TextField()
    tags = models.JSONField(default=list)
    packages = models.JSONField(default=list)
    faq = models.JSONField(default=list)
    status = models.CharField(max_length=16, choices=GigStatus.choices, default=GigStatus.DRAFT)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [models.Index(fields=["user", "-created_at", "-id"], name="gig_user_idx")]

    def __str__(self) -> str:
        return self.title


class ProposalStatus(models.TextChoices):
    DRAFT = "draft", "Draft"
    SENT = "sent", "Sent"
    WON = "won", "Won"
    LOST = "lost", "Lost"


class Proposal(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="proposals",
        db_index=False,
    )
    generation = models.OneToOneField(
        Generation, null=True, blank=True, on_delete=models.SET_NULL, related_name="proposal"
    )
    title = models.CharField(max_length=200)
    content = models.TextField()
    status = models.CharField(
        max_length=16, choices=ProposalStatus.choices, default=ProposalStatus.DRAFT
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [models.Index(fields=["user", "-created_at", "-id"], name="proposal_user_idx")]

    def __str__(self) -> str:
        return self.title
