"""The credit ledger, monthly replenishments and inbound payment events."""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone


class Reason(models.TextChoices):
    SIGNUP = "signup", "Free plan credits at sign-up"
    SPEND = "spend", "Spent on an AI call"
    REFUND = "refund", "Refund of a failed AI call"
    GRANT = "grant", "Granted by an operator"
    ADJUSTMENT = "adjustment", "Adjusted by an operator"
    PLAN_PURCHASE = "plan_purchase", "Plan purchased"
    SUBSCRIPTION = "subscription", "Subscription renewal"
    REPLENISH = "replenish", "Monthly free-plan replenishment"


class CreditTransaction(models.Model):
    """Append-only: one row per change of a balance. The user's balance is their sum."""

    id = models.BigAutoField(primary_key=True)
    # What clients see as the row's id: sequential ids would tell the platform's volume.
    public_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        related_name="credit_transactions",
        db_index=False,  # the (user, created_at) index leads with user
    )
    delta = models.IntegerField()
    balance_after = models.IntegerField()
    reason = models.CharField(max_length=32, choices=Reason.choices)
    reference = models.CharField(max_length=200, blank=True, default="")
    # NULL, not "", means "no key": the unique constraint applies only where a key is given.
    idempotency_key = models.CharField(max_length=200, null=True, blank=True)  # noqa: DJ001
    refund_of = models.OneToOneField(  # one refund per spend, enforced by the database
        "self", null=True, blank=True, on_delete=models.PROTECT, related_name="refund"
    )
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ("-created_at", "-id")
        indexes = [models.Index(fields=["user", "-created_at", "-id"], name="credit_tx_user_idx")]
        constraints = [
            models.UniqueConstraint(
                fields=["idempotency_key"],
                condition=Q(idempotency_key__isnull=False),
                name="credit_tx_idempotency_key_unique",
            ),
            models.CheckConstraint(condition=~Q(delta=0), name="credit_tx_delta_non_zero"),
            models.CheckConstraint(
                condition=Q(balance_after__gte=0), name="credit_tx_balance_non_negative"
            ),
            models.CheckConstraint(
                condition=Q(refund_of__isnull=True) | Q(reason="refund"),
                name="credit_tx_refund_of_only_on_refunds",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.delta:+d} ({self.reason}) -> {self.balance_after}"


class MonthlyReplenishment(models.Model):
    """One row per user and month: the free-plan top-up ran (even if it added nothing)."""

    id = models.BigAutoField(primary_key=True)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE)
    period = models.CharField(max_length=7)  # "YYYY-MM"
    added = models.IntegerField(default=0)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["user", "period"], name="replenish_once_a_month")
        ]

    def __str__(self) -> str:
        return f"{self.period}: +{self.added}"


class PaymentEventStatus(models.TextChoices):
    APPLIED = "applied", "Applied"
    UNMATCHED = "unmatched", "No matching user"
    INVALID = "invalid", "Cannot be applied (e.g. unknown plan)"
    IGNORED = "ignored", "Event type not handled"


class PaymentEvent(models.Model):
    """Every signed delivery of the payment provider, stored once per event id."""

    id = models.BigAutoField(primary_key=True)
    event_id = models.CharField(max_length=200, unique=True)  # the delivery (header or body)
    # The payment itself, from the signed body: one applied event per entity key.
    entity_key = models.CharField(max_length=200, blank=True, default="", db_index=True)
    event_type = models.CharField(max_length=64, db_index=True)
    status = models.CharField(max_length=16, choices=PaymentEventStatus.choices, db_index=True)
    detail = models.CharField(max_length=500, blank=True, default="")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL
    )
    payload = models.JSONField()
    raw_body = models.TextField()
    received_at = models.DateTimeField(default=timezone.now)
    applied_at = models.DateTimeField(null=True, blank=True)
    attempts = models.PositiveIntegerField(default=1)

    class Meta:
        ordering = ("-received_at",)

    def __str__(self) -> str:
        return f"{self.event_type} {self.event_id} ({self.status})"
