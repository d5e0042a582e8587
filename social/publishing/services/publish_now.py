"""Publishing now (social.md section 4): the post's records are placed and claimed in one
transaction, then attempted at once, concurrently, as the scheduler attempts its own
(social.publishing.services.attempts)."""

import uuid
from datetime import timedelta
from uuid import UUID

from django.db import transaction
from django.utils import timezone

from accounts.models import User
from social.conf import scheduler_config
from social.content import PostInput, post_status_refresh
from social.errors import ApprovalRequired
from social.models import Post, RecordStatus, ScheduledRecord
from social.planning import approved_for, post_with_targets, record_of, records_admit
from social.publishing.services.attempts import records_attempt
from social.publishing.services.job import Outcome, OutcomeStatus
from social.selectors import workspace_accounts


def publish_now(
    *,
    workspace_id: UUID,
    user: User,
    account_ids: list[UUID],
    fields: PostInput,
    post_id: UUID | None = None,
) -> tuple[Post, list[Outcome]]:
    """Publish the post (created in the workspace from `fields`, `user` its author, or the
    workspace's `post_id` updated with them) to the workspace's accounts at once,
    concurrently. Every target is validated before anything is sent."""
    accounts = workspace_accounts(workspace_id=workspace_id, account_ids=account_ids)
    now = timezone.now()
    lease = now + timedelta(seconds=scheduler_config().lease_seconds)
    with transaction.atomic():
        post, holding = post_with_targets(
            workspace_id=workspace_id,
            user=user,
            post_id=post_id,
            fields=fields,
            accounts=accounts,
        )
        if not approved_for(post, [account.pk for account in accounts]):
            raise ApprovalRequired()
        records = []
        for account in accounts:
            record = record_of(post, account, holding)
            record.scheduled_time = record.due_at = now
            record.status = RecordStatus.PUBLISHING
            record.lease_expires_at = lease
            record.claim = uuid.uuid4()
            record.save()
            record.post, record.account = post, account
            records.append(record)
        post_status_refresh(post.pk)
    admitted = records_admit(records)  # over a daily cap: waits for its window (caps.py)
    attempted = iter(records_attempt(admitted, concurrency=scheduler_config().concurrency))
    outcomes = [next(attempted) if record in admitted else _deferred(record) for record in records]
    post.refresh_from_db()
    return post, outcomes


def _deferred(record: ScheduledRecord) -> Outcome:
    record.refresh_from_db(fields=["status", "error", "error_code", "next_attempt_at"])
    return Outcome(
        record_id=str(record.pk),
        post_id=str(record.post_id),
        account_id=str(record.account_id),
        provider=record.provider,
        status=OutcomeStatus(record.status),
        success=False,
        error_code=record.error_code,
        error=record.error,
        retry_at=record.next_attempt_at,
    )
