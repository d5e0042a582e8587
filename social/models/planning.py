"""The planning's tables: the scheduled records (one per post and account, leased while a
worker publishes it), each account's posting queue, recurring series."""

import uuid

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone

from core.leases import Leased
from social.models.connections import PROVIDER_LENGTH, SocialAccount
from social.models.content import Post


class RecordStatus(models.TextChoices):
    SCHEDULED = "Scheduled", "Scheduled"  # waiting for its time, or for its next attempt
    PUBLISHING = "Publishing", "Publishing"  # claimed by a worker under a lease
    PUBLISHED = "Published", "Published"
    FAILED = "Failed", "Failed"
    CANCELLED = "Cancelled", "Cancelled"
    UNCONFIRMED = "Unconfirmed", "Unconfirmed"  # the outcome could not be established
    # Waiting for its time like Scheduled, but held until the post's version is approved
    # (workspaces.md section 3): the scheduler never claims it.
    PENDING_APPROVAL = "PendingApproval", "Pending approval"


# A record in one of these holds its (post, account) target: no second one may be created.
HOLDING_STATUSES = (
    RecordStatus.SCHEDULED,
    RecordStatus.PUBLISHING,
    RecordStatus.PUBLISHED,
    RecordStatus.UNCONFIRMED,
    RecordStatus.PENDING_APPROVAL,
)
OPEN_STATUSES = (RecordStatus.SCHEDULED, RecordStatus.PUBLISHING)
# Waiting for its time: a user may move or cancel it, a queue counts its slot as taken.
WAITING_STATUSES = (RecordStatus.SCHEDULED, RecordStatus.PENDING_APPROVAL)


class ScheduledRecord(Leased):
    """One (post, account) target and its publication: when, how many attempts, the outcome.

    `due_at` is when the scheduler should next look at it: the scheduled time before the first
    attempt, then the next attempt's time. `outcome_unknown` says an attempt may have reached
    the platform without an answer: the next attempt looks the post up before creating it."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    post = models.ForeignKey(Post, on_delete=models.CASCADE, related_name="records")
    workspace = models.ForeignKey(  # the post's
        "accounts.Workspace", on_delete=models.RESTRICT, related_name="+", db_index=False
    )
    user = models.ForeignKey(  # the post's author: told about its outcome
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    account = models.ForeignKey(SocialAccount, on_delete=models.CASCADE, related_name="records")
    provider = models.CharField(max_length=PROVIDER_LENGTH)
    scheduled_time = models.DateTimeField()
    due_at = models.DateTimeField()
    status = models.CharField(
        max_length=16, choices=RecordStatus.choices, default=RecordStatus.SCHEDULED
    )
    outcome_unknown = models.BooleanField(default=False)
    published_at = models.DateTimeField(null=True, blank=True)
    url = models.CharField(max_length=2000, blank=True, default="")
    provider_post_id = models.CharField(max_length=500, blank=True, default="")
    error = models.TextField(max_length=2000, blank=True, default="")
    error_code = models.CharField(max_length=40, blank=True, default="")
    history = models.JSONField(default=list, blank=True)  # one entry per attempt
    # Each part published so far, exactly once: [{index, kind, providerPostId, url, ...}].
    parts = models.JSONField(default=list, blank=True)
    # Published, but not all of it: [{code, message, index}] (a thread cut short, say).
    warnings = models.JSONField(default=list, blank=True)
    # A video the platform is processing (social.md section 10): what its upload left there
    # (the platform's ids, when it began), kept across attempts: never uploaded twice.
    processing = models.JSONField(default=dict, blank=True)
    # Placed by the account's posting queue (social.md section 11): it holds one of the queue's
    # slots while it waits. A record moved to a time of its own leaves the queue.
    queued = models.BooleanField(default=False)
    # An occurrence of a recurring post: when it ends, the series creates the next.
    series = models.ForeignKey(
        "social.Series",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="records",
        db_index=False,  # the constraints' indexes lead with it
    )
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ("scheduled_time", "id")
        indexes = [
            # The scheduler's due set: waiting records by due time.
            models.Index(
                fields=["due_at"],
                condition=Q(status=RecordStatus.SCHEDULED),
                name="social_record_due_idx",
            ),
            # Published records whose later parts wait for their retry (a thread's replies, a
            # first comment: social.md section 9), by due time: the scheduler's other due set.
            models.Index(
                fields=["due_at"],
                condition=Q(status=RecordStatus.PUBLISHED, next_attempt_at__isnull=False),
                name="social_record_parts_due_idx",
            ),
            # Leases to reap.
            models.Index(
                fields=["lease_expires_at"],
                condition=Q(status=RecordStatus.PUBLISHING),
                name="social_record_lease_idx",
            ),
            models.Index(
                fields=["workspace", "scheduled_time"], name="social_record_workspace_idx"
            ),
            models.Index(fields=["account", "status"], name="social_record_account_idx"),
        ]
        constraints = [
            # A recurring post's occurrences share their target: one at a time (below).
            models.UniqueConstraint(
                fields=["post", "account"],
                condition=Q(status__in=list(HOLDING_STATUSES)) & Q(series__isnull=True),
                name="social_record_one_per_target",
            ),
            models.UniqueConstraint(
                fields=["series", "account"],
                condition=Q(status__in=list(OPEN_STATUSES)),
                name="social_record_series_one_pending",
            ),
            # Two waiting queued records of one account never hold the same slot.
            models.UniqueConstraint(
                fields=["account", "scheduled_time"],
                condition=Q(queued=True, status__in=list(WAITING_STATUSES)),
                name="social_record_queue_slot_once",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.provider} {self.status} at {self.scheduled_time:%Y-%m-%d %H:%M}"


WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")  # a slot's `day`, as date.weekday()


class AccountQueue(models.Model):
    """An account's posting queue (social.md section 11): weekly slots, wall-clock times in
    `time_zone`, which queued posts take in turn; `paused` holds its queued records back. An
    account without a row has no slots."""

    account = models.OneToOneField(
        SocialAccount, primary_key=True, on_delete=models.CASCADE, related_name="queue"
    )
    time_zone = models.CharField(max_length=64, default="UTC")
    slots = models.JSONField(default=list, blank=True)  # [{"day": "mon", "time": "09:00"}], sorted
    paused = models.BooleanField(default=False)
    paused_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [
            # The scheduler skips the queued records of the (few) paused queues.
            models.Index(
                fields=["account"], condition=Q(paused=True), name="social_queue_paused_idx"
            )
        ]

    def __str__(self) -> str:
        return f"Queue of {self.account}"


class Series(models.Model):
    """A recurring post: an RFC 5545 RRULE read in `time_zone` from `starts_at` (its DTSTART, the
    first occurrence). Each account of the post has one waiting occurrence at a time; when it
    ends, the next is created, until `until`, `count` occurrences, or the series is ended."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    post = models.OneToOneField(Post, on_delete=models.CASCADE, related_name="series")
    rule = models.CharField(max_length=500)
    time_zone = models.CharField(max_length=64, default="UTC")
    starts_at = models.DateTimeField()
    until = models.DateTimeField(null=True, blank=True)
    count = models.PositiveIntegerField(null=True, blank=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        verbose_name_plural = "series"

    def __str__(self) -> str:
        return f"{self.rule} from {self.starts_at:%Y-%m-%d %H:%M}"
