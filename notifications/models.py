"""In-app notifications: one row per message to one user; the category follows from the type."""

import uuid
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from core.crypto import EncryptedTextField
from core.leases import Leased


class Category(models.TextChoices):
    SYSTEM = "System", "System"
    BILLING = "Billing", "Billing"
    AI_GENERATION = "AI Generation", "AI Generation"
    SOCIAL_HUB = "Social Hub", "Social Hub"


class NotificationType(models.TextChoices):
    SYSTEM_ALERT = "system_alert", "System alert"
    PAYMENT_SUCCESS = "payment_success", "Payment succeeded"
    PLAN_UPGRADE = "plan_upgrade", "Plan upgraded"
    PAYMENT_FAILED = "payment_failed", "Payment failed"
    AI_COMPLETE = "ai_complete", "AI generation complete"
    AI_FAILED = "ai_failed", "AI generation failed"
    POST_PUBLISHED = "post_published", "Post published"
    POST_FAILED = "post_failed", "Post failed"
    ACCOUNT_CONNECTED = "account_connected", "Social account connected"
    ACCOUNT_CONNECT_FAILED = "account_connect_failed", "Social account connection failed"
    TOKEN_EXPIRING = "token_expiring", "Social account connection expiring"
    POST_AT_RISK = "post_at_risk", "Scheduled post at risk"
    APPROVAL_REQUESTED = "approval_requested", "Approval requested"
    APPROVAL_DECIDED = "approval_decided", "Post approved or rejected"
    POST_COMMENTED = "post_commented", "Comment on a post"


CATEGORY_OF_TYPE: dict[str, str] = {
    NotificationType.SYSTEM_ALERT: Category.SYSTEM,
    NotificationType.PAYMENT_SUCCESS: Category.BILLING,
    NotificationType.PLAN_UPGRADE: Category.BILLING,
    NotificationType.PAYMENT_FAILED: Category.BILLING,
    NotificationType.AI_COMPLETE: Category.AI_GENERATION,
    NotificationType.AI_FAILED: Category.AI_GENERATION,
    NotificationType.POST_PUBLISHED: Category.SOCIAL_HUB,
    NotificationType.POST_FAILED: Category.SOCIAL_HUB,
    NotificationType.ACCOUNT_CONNECTED: Category.SOCIAL_HUB,
    NotificationType.ACCOUNT_CONNECT_FAILED: Category.SOCIAL_HUB,
    NotificationType.TOKEN_EXPIRING: Category.SOCIAL_HUB,
    NotificationType.POST_AT_RISK: Category.SOCIAL_HUB,
    NotificationType.APPROVAL_REQUESTED: Category.SOCIAL_HUB,
    NotificationType.APPROVAL_DECIDED: Category.SOCIAL_HUB,
    NotificationType.POST_COMMENTED: Category.SOCIAL_HUB,
}


def _category_matches_type() -> Q:
    condition = Q()
    for category in Category.values:
        types = [t for t, c in CATEGORY_OF_TYPE.items() if c == category]
        condition |= Q(category=category, type__in=types)
    return condition


class Notification(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="notifications",
        db_index=False,  # the composite indexes below lead with user
    )
    title = models.CharField(max_length=200)
    message = models.TextField(max_length=2000)
    category = models.CharField(max_length=20, choices=Category.choices)
    type = models.CharField(max_length=32, choices=NotificationType.choices)
    read = models.BooleanField(default=False)
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [
            # The list, newest first, for one user: an index range scan whatever the table size.
            models.Index(fields=["user", "-created_at", "-id"], name="notif_user_created_idx"),
            # Unread only: serves the unread count, read=false lists and read-all.
            models.Index(
                fields=["user", "-created_at", "-id"],
                condition=Q(read=False),
                name="notif_user_unread_idx",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=_category_matches_type(), name="notif_category_matches_type"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.type} for {self.user_id}: {self.title}"


class OutboxEvent(models.Model):
    """A domain event recorded in the transaction that caused it (transactional outbox: no
    event without its change, no change without its event), for its consumers (outgoing
    webhooks, the live feed) to process after the commit.

    `sequence` grows with every insert (the primary key): consumers and clients order and
    resume by it. `id` is the event's public identity (a webhook's `webhook-id`), the same on
    every delivery. `dispatched_at` is set once the dispatcher has fanned the event out to one
    row per consumer (`OutboxConsumption`).
    """

    sequence = models.BigAutoField(primary_key=True)
    id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    event = models.CharField(max_length=64)  # e.g. "credits.depleted", "post.published"
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="outbox_events",
        db_index=False,  # the (user, sequence) index leads with user
    )
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)
    dispatched_at = models.DateTimeField(null=True, blank=True)
    # The event's id in the user's live feed (its `LiveEvent`, written with it): the id of
    # `GET /api/events` and of the stream's Last-Event-ID alike (docs/live-feed.md).
    live_id = models.BigIntegerField(null=True, blank=True)
    # Who made it happen (workspaces.md section 1): `{type: user | client | agent | system,
    # id?}`; `{}` on events recorded before actors were (acted_by()).
    actor = models.JSONField(default=dict)
    # The workspace it belongs to, whose members replay it and whose endpoints receive it
    # (events about a user's own things: their personal workspace's). None only for a user
    # made without a personal workspace.
    workspace = models.ForeignKey(
        "accounts.Workspace",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,  # the (workspace, live_id) index leads with it
    )

    class Meta:
        ordering = ("sequence",)
        indexes = [
            models.Index(fields=["user", "sequence"], name="outbox_user_sequence_idx"),
            # The replay (GET /api/events) and a workspace's activity: by live feed id.
            models.Index(fields=["workspace", "live_id"], name="outbox_workspace_live_idx"),
            models.Index(fields=["created_at"], name="outbox_created_idx"),  # retention
            models.Index(
                fields=["created_at"],
                condition=Q(dispatched_at__isnull=True),
                name="outbox_undispatched_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"#{self.sequence} {self.event} for {self.user_id}"

    def acted_by(self) -> dict[str, Any]:
        """The event's actor; one recorded before events carried actors is shown as its
        user's doing (docs/events.md)."""
        return self.actor or {"type": "user", "id": str(self.user_id)}


class ConsumptionStatus(models.TextChoices):
    PENDING = "pending", "Pending"  # handed to the consumer, not yet processed (or retrying)
    RUNNING = "running", "Running"  # claimed by a worker (a lease: reclaimed if it dies)
    DONE = "done", "Done"
    FAILED = "failed", "Failed"  # the consumer's handler failed every attempt


class OutboxConsumption(Leased):
    """One event handed to one consumer, created once by the dispatcher (unique), processed
    by claiming it (a conditional UPDATE), retried with backoff, swept if its worker died."""

    id = models.BigAutoField(primary_key=True)
    event = models.ForeignKey(OutboxEvent, on_delete=models.CASCADE, related_name="consumptions")
    consumer = models.CharField(max_length=32)
    status = models.CharField(
        max_length=16, choices=ConsumptionStatus.choices, default=ConsumptionStatus.PENDING
    )
    next_attempt_at = models.DateTimeField(default=timezone.now)
    last_error = models.CharField(max_length=500, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)
    done_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["event", "consumer"], name="outbox_consumed_once"),
        ]
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                condition=Q(status__in=[ConsumptionStatus.PENDING, ConsumptionStatus.RUNNING]),
                name="outbox_consumption_due_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.consumer}: event #{self.event_id} ({self.status})"


class NotificationCounter(models.Model):
    """A user's notification totals, kept by the services in the same transaction as each
    insert, delete and read change: the list's `meta.total` and the unread count are one
    primary-key read whatever the number of notifications."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="notification_counter",
    )
    total = models.PositiveIntegerField(default=0)
    unread = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(unread__lte=models.F("total")), name="notif_counter_unread_le_total"
            )
        ]

    def __str__(self) -> str:
        return f"{self.unread} unread of {self.total}"


class WebhookEndpoint(models.Model):
    """A workspace's receiver of domain events (social.md section 7, workspaces.md section 1);
    `user` is the member who made it."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhook_endpoints"
    )
    workspace = models.ForeignKey(
        "accounts.Workspace", on_delete=models.CASCADE, related_name="webhook_endpoints"
    )
    url = models.CharField(max_length=2000)
    events = models.JSONField(default=list)
    description = models.CharField(max_length=500, blank=True, default="")
    active = models.BooleanField(default=True)
    disabled_reason = models.CharField(max_length=300, blank=True, default="")
    consecutive_failures = models.PositiveIntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return self.url


class WebhookSecret(models.Model):
    """A signing secret of an endpoint. The newest signs alone; after a rotation the previous
    one keeps signing beside it until `expires_at` (24 hours)."""

    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="secrets")
    secret = EncryptedTextField()
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ("-created_at", "-id")

    def __str__(self) -> str:
        return f"secret of {self.endpoint_id}"


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", "Pending"
    SUCCEEDED = "succeeded", "Succeeded"
    FAILED = "failed", "Failed"


class WebhookDelivery(Leased):
    """One event to one endpoint: once per (event, endpoint), retried on the schedule; `body`
    is the payload exactly as sent (the same bytes, so the same event id, on every attempt)."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    endpoint = models.ForeignKey(
        WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries"
    )
    # The endpoint's, kept on the row: the deliveries log of a workspace is read by it, and
    # its deliveries take turns with other workspaces' by it (services.webhooks).
    workspace = models.ForeignKey(
        "accounts.Workspace",
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,  # the (workspace, -created_at) index leads with it
    )
    event_id = models.UUIDField()
    event = models.CharField(max_length=64)
    body = models.TextField()
    status = models.CharField(
        max_length=16, choices=DeliveryStatus.choices, default=DeliveryStatus.PENDING
    )
    last_status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    last_error = models.CharField(max_length=500, blank=True, default="")
    delivered_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name_plural = "webhook deliveries"
        ordering = ("-created_at", "-id")
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                condition=Q(status=DeliveryStatus.PENDING),
                name="webhook_delivery_due_idx",
            ),
            models.Index(fields=["endpoint", "-created_at"], name="webhook_delivery_ep_idx"),
            models.Index(fields=["workspace", "-created_at"], name="webhook_delivery_ws_idx"),
            models.Index(fields=["created_at"], name="webhook_delivery_created_idx"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["endpoint", "event_id"],
                condition=~Q(event="webhook.test"),
                name="webhook_delivery_once",
            )
        ]

    def __str__(self) -> str:
        return f"{self.event} to {self.endpoint_id}: {self.status}"


class WebhookAttempt(models.Model):
    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="history")
    at = models.DateTimeField(default=timezone.now)
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(default=0)
    response = models.TextField(max_length=1024, blank=True, default="")
    error = models.CharField(max_length=500, blank=True, default="")

    class Meta:
        ordering = ("at", "id")

    def __str__(self) -> str:
        return f"{self.status_code or self.error} at {self.at:%Y-%m-%d %H:%M:%S}"


class LiveEventKind(models.TextChoices):
    NOTIFICATION = "notification"
    POST = "post"
    CREDITS = "credits"
    # A domain event (one of notifications.events.EVENTS): sent named by its type, with the
    # shape `GET /api/events` answers.
    EVENT = "event"
    # Not sent to clients: tells every server process to end the streams of a revoked
    # session (`data.session`) or, without one, all the user's streams.
    REVOKED = "revoked"
    # Not sent to clients: the user joined (`data.member` true) or left the workspace
    # `data.workspace`: their open streams start or stop carrying its events at once.
    MEMBERSHIP = "membership"


CLIENT_KINDS = (
    LiveEventKind.NOTIFICATION,
    LiveEventKind.POST,
    LiveEventKind.CREDITS,
    LiveEventKind.EVENT,
)


class LiveEvent(models.Model):
    """One event of a user's live feed (`GET /api/events/stream`), written in the transaction
    of the change it describes. Its id is the stream's `id:`; a reconnect with Last-Event-ID
    reads what it missed from here. Kept LIVEFEED_RETENTION_SECONDS (an hour)."""

    id = models.BigAutoField(primary_key=True)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="+",
        db_index=False,  # the (user, id) index leads with user
    )
    kind = models.CharField(max_length=16, choices=LiveEventKind.choices)
    data = models.JSONField(default=dict)
    created_at = models.DateTimeField(default=timezone.now)
    # The workspace whose members' streams it goes to; None: only its user's (a notification,
    # a balance, a revocation).
    workspace = models.ForeignKey(
        "accounts.Workspace",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,  # the (workspace, id) index leads with it
    )

    class Meta:
        indexes = [
            models.Index(fields=["user", "id"], name="live_event_user_id_idx"),
            models.Index(fields=["workspace", "id"], name="live_event_workspace_id_idx"),
            models.Index(fields=["created_at"], name="live_event_created_idx"),  # retention
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.id}"


class LiveTicket(models.Model):
    """A single-use, short-lived ticket for `EventSource`, which cannot send headers. Only its
    SHA-256 is stored."""

    digest = models.CharField(max_length=64, primary_key=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    # The sign-in that asked for it: a ticket of a revoked session opens nothing.
    session = models.CharField(max_length=64, blank=True, default="")
    token_version = models.PositiveIntegerField(default=0)
    expires_at = models.DateTimeField(db_index=True)
    used_at = models.DateTimeField(null=True, blank=True)
    # When the access token that asked for it expires: the stream it opens ends then.
    access_expires_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"ticket of {self.user_id}"
