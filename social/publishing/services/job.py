"""A claimed record's attempt as the attempt modules pass it around: the job, its outcome and the
leases that fence it (social/publishing/services/attempts.py); the limits it runs under are the
scheduler's configuration (social/conf.py)."""

import logging
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any

from django.utils import timezone

from core import outbound
from core.leases import Backoff, Lease
from social.conf import scheduler_config
from social.content import (
    Draft,
)
from social.models import RecordStatus, ScheduledRecord, SocialSettings
from social.providers.base import Attempt, Credentials, Published, QuotaReached
from social.selectors import Preferences

logger = logging.getLogger(__name__)


# Records wait `Scheduled` (due at `due_at`), are claimed `Publishing` under a lease of the
# scheduler's lease_seconds, and are retried after its retry_base_seconds, doubling
# (social/conf.py).
RECORDS = Lease(
    ScheduledRecord,
    seconds=lambda: scheduler_config().lease_seconds,
    waiting=RecordStatus.SCHEDULED,
    leased=RecordStatus.PUBLISHING,
    backoff=Backoff(base=lambda: scheduler_config().retry_base_seconds),
)
# A record is Published from its first part on (social.md section 9); its later parts that
# failed wait for their retry with the record still Published, due at `next_attempt_at`
# (set only while parts wait). Such a record is claimed under a lease of its own, its status
# unchanged (the lease and the claim token alone hold it), and reaped the same way.
PARTS = Lease(
    ScheduledRecord,
    seconds=lambda: scheduler_config().lease_seconds,
    waiting=RecordStatus.PUBLISHED,
    backoff=RECORDS.backoff,
)
# The next look at a processing video (social/tasks.py imports this module, so it is named here).
PROCESSING_TASK = "social.tasks.record_processing_task"


@dataclass
class Job:
    """A claimed record and what its attempt needs, prepared in the calling thread."""

    record: ScheduledRecord
    draft: Draft
    credentials: Credentials
    settings: SocialSettings  # the record's workspace's
    preferences: Preferences  # the post's author's notification preferences
    claimed_at: datetime | None = None  # when the attempt began: its lateness is measured to it
    published: Published | None = None
    found: bool = False  # published by an earlier attempt, found by the lookup
    error: outbound.OutboundError | None = None
    deferred: bool = False  # no slot at the platform in time: not attempted, waits again
    # Deferred because the platform's own quota for the account is used up (QuotaReached):
    # until when, and what it said; None: the slots were busy.
    quota: QuotaReached | None = None
    parts: list[dict[str, Any]] = field(default_factory=list)  # published, this attempt's too
    complete: bool = False  # every part is published
    # A video's upload at the platform (social.md section 10): its state after this attempt,
    # and whether the platform is still processing it (the record then stays Publishing).
    processing: dict[str, Any] = field(default_factory=dict)
    pending: bool = False
    # When this attempt began (the record as claimed: nothing it creates is older), and the
    # posts other records of the account hold (never adopted by a lookup of this one).
    began: datetime = field(default_factory=timezone.now)
    taken: frozenset[str] = frozenset()
    checked: bool = False  # the part in doubt was looked up, and the platform answered
    # Published before this attempt (its post is out): the attempt is for its later parts.
    continuing: bool = False

    @property
    def final(self) -> bool:
        """Whether this attempt is the record's last: a failure ends it."""
        final = self.record.attempts + 1 >= scheduler_config().max_attempts
        return final or not self.settings.auto_retry

    @property
    def window(self) -> datetime:
        """When the record's first attempt began (nothing it made is older): its first
        attempt entry's `began`, the record's creation for an entry written before entries
        kept it, this attempt's start when none is before it."""
        for entry in self.record.history:
            if entry.get("attempt") is None:
                continue  # a deferral, a retry asked for, a resolution: no call was made
            began = entry.get("began")
            return datetime.fromisoformat(began) if began else self.record.created_at
        return self.began

    def attempt(self, index: int, *, unknown: bool) -> Attempt:
        return Attempt(
            key=part_key(self.record, index),
            since=self.record.created_at,
            part=index,
            after=self.window,
            taken=self.taken,
            unknown=unknown,
            state=self.state_of(index),
        )

    def kept(self) -> dict[str, Any]:
        """`processing` as the record stores it: {} when it names its part and nothing else."""
        return {} if set(self.processing) <= {"part"} else self.processing

    def state_of(self, index: int) -> dict[str, Any]:
        """What the create flow of part `index` keeps across attempts: `processing` (stored
        on the record while the record waits), when it is that part's (`part`, 0 when absent);
        else a fresh one, which becomes `processing`."""
        if int(self.processing.get("part", 0)) != index:
            self.processing = {"part": index} if index else {}
        return self.processing


class OutcomeStatus(StrEnum):
    """What an attempt's outcome says of its record: the record's status once its result is
    written (RecordStatus), or LOST, a result nothing recorded (another run took the record
    over, or writing it failed): never stored, answered by publish now and a scheduler run."""

    SCHEDULED = RecordStatus.SCHEDULED.value
    PUBLISHING = RecordStatus.PUBLISHING.value
    PUBLISHED = RecordStatus.PUBLISHED.value
    FAILED = RecordStatus.FAILED.value
    CANCELLED = RecordStatus.CANCELLED.value
    UNCONFIRMED = RecordStatus.UNCONFIRMED.value
    LOST = "Lost"


@dataclass(frozen=True, slots=True)
class Outcome:
    record_id: str
    post_id: str
    account_id: str
    provider: str
    status: OutcomeStatus
    success: bool
    url: str = ""
    provider_post_id: str = ""
    error_code: str = ""
    error: str = ""
    retry_at: datetime | None = None
    attempts: int = 0


def outcome_of(job: Job, *, won: bool) -> Outcome:
    """What an attempt answers once its result is written: the record as it now stands
    (`won`: written under its claim), a video still processing, or LOST."""
    record = job.record
    if job.pending and won:
        return Outcome(
            record_id=str(record.pk),
            post_id=str(record.post_id),
            account_id=str(record.account_id),
            provider=record.provider,
            status=OutcomeStatus.PUBLISHING,
            success=False,
            error_code="processing",
            error="The platform is processing the video: the post is published once it is done.",
            attempts=record.attempts,
        )
    return Outcome(
        record_id=str(record.pk),
        post_id=str(record.post_id),
        account_id=str(record.account_id),
        provider=record.provider,
        status=OutcomeStatus(record.status) if won else OutcomeStatus.LOST,
        success=won and record.status == RecordStatus.PUBLISHED,
        url=record.url,
        provider_post_id=record.provider_post_id,
        error_code=record.error_code if won else "lease_lost",
        error=record.error,
        retry_at=record.next_attempt_at,
        attempts=record.attempts,
    )


def part_key(record: ScheduledRecord, index: int) -> str:
    """A part's own key across the record's attempts (Mastodon's Idempotency-Key, Bluesky's
    record key): the record's id for the post, with the part's index for the others."""
    return str(record.id) if index == 0 else f"{record.id}:{index}"
