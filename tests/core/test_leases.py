"""The lease engine's batched settle (core/leases.py `settle_each`): each row written with its
own result only while its claim still holds it, on PostgreSQL in one statement."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from social.models import Post, ScheduledRecord, SocialAccount
from social.publishing.services.job import RECORDS

pytestmark = pytest.mark.django_db


def test_each_row_gets_its_own_result_and_a_lost_claim_gets_nothing(ada):
    account = SocialAccount.objects.create(user=ada, workspace=ada.personal_workspace,
                                           provider="devto", provider_user_id="1",
                                           username="ada-lease")  # fmt: skip
    now = timezone.now()
    rows = [
        ScheduledRecord.objects.create(
            user=ada,
            workspace=ada.personal_workspace,
            post=Post.objects.create(
                user=ada, workspace=ada.personal_workspace, title=f"T{n}", content="x"
            ),
            account=account,
            provider="devto",
            scheduled_time=now,
            due_at=now,
            history=[{"attempt": 0}],
        )
        for n in range(3)
    ]
    token = RECORDS.claim(ScheduledRecord.objects.all(), now=now, limit=10)
    held = list(RECORDS.held(token).order_by("post__title"))
    assert len(held) == 3
    # The third one's lease was reaped and the record claimed again by another worker.
    ScheduledRecord.objects.filter(pk=held[2].pk).update(claim=None, status="Scheduled")
    RECORDS.claim(ScheduledRecord.objects.filter(pk=held[2].pk), now=now, limit=1)
    later = now + timedelta(minutes=1)
    results = [
        (held[0], {"status": "Published", "url": "https://dev.to/a", "published_at": later,
                   "history": [{"attempt": 1, "outcome": "published"}], "attempts": 1}),
        (held[1], {"status": "Scheduled", "due_at": later, "next_attempt_at": later,
                   "error_code": "retry_scheduled", "attempts": 1}),
        (held[2], {"status": "Failed", "attempts": 1}),
    ]  # fmt: skip
    with CaptureQueriesContext(connection) as queries:
        written = RECORDS.settle_each(results)
    assert written == {held[0].pk, held[1].pk}
    if connection.vendor == "postgresql":
        assert len(queries) == 1
    first, second, third = (ScheduledRecord.objects.get(pk=row.pk) for row in held)
    assert (first.status, first.url, first.published_at, first.attempts) == (
        "Published", "https://dev.to/a", later, 1)  # fmt: skip
    assert first.history == [{"attempt": 1, "outcome": "published"}]
    assert (first.claim, first.lease_expires_at) == (None, None)
    assert (second.status, second.due_at, second.next_attempt_at, second.url) == (
        "Scheduled", later, later, "")  # fmt: skip
    assert second.history == [{"attempt": 0}]  # a field it did not change stays as it was
    assert (third.status, third.attempts) == ("Publishing", 0)  # the other worker's
    assert third.claim is not None
    assert {row.pk for row in rows} == {row.pk for row in held}
    assert RECORDS.settle_each([]) == set()
