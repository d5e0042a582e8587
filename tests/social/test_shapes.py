"""The hand-written fast paths of the social hub's shapes say field for field what their
serializers' generic rendering says (issue 23: one shape per representation)."""

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from rest_framework import serializers

from social.api.post_output import PostSerializer, RecordSerializer
from social.models import Post, ScheduledRecord
from social.output import record_data
from social.selectors import with_records

pytestmark = pytest.mark.django_db


@pytest.fixture
def scheduled(ada_client, connect_all) -> Post:
    accounts = connect_all()
    when = (timezone.now() + timedelta(days=2)).isoformat()
    response = ada_client.post(
        "/api/social/schedule",
        {"title": "Shapes", "content": "One shape each", "hashtags": "#a #b",
         "link": "https://example.com/x", "mediaUrls": ["https://example.com/a.png"],
         "scheduledTime": when, "accountIds": [accounts["mastodon"]["id"],
                                                accounts["devto"]["id"]]},
        format="json",
    )  # fmt: skip
    assert response.status_code == 200, response.content
    record = ScheduledRecord.objects.first()
    assert record is not None
    # Every field with a value, as after a failed attempt that will be retried.
    ScheduledRecord.objects.filter(pk=record.pk).update(
        attempts=1, next_attempt_at=timezone.now(), error="Try again", url="https://x.test/1"
    )
    return Post.objects.get()


def generic(serializer: serializers.Serializer[Any], instance: Any) -> dict[str, Any]:
    """What DRF's own field loop renders for the serializer's declared fields."""
    rendered: dict[str, Any] = serializers.Serializer.to_representation(serializer, instance)
    return rendered


def test_a_record_as_the_api_and_the_live_feed_show_it(scheduled):
    for record in ScheduledRecord.objects.all():
        assert record_data(record) == generic(RecordSerializer(), record)


def test_a_post_as_the_lists_show_it(scheduled):
    post = with_records(Post.objects.filter(pk=scheduled.pk)).get()
    fast = PostSerializer(post, context={"media_urls": {}}).data
    assert dict(fast) == generic(PostSerializer(context={"media_urls": {}}), post)


def test_a_posts_records_as_the_live_feed_and_the_api_show_them(scheduled):
    """The live feed's `post` event (the services emit the records, social.output presents
    them) carries each record as RecordSerializer renders it."""
    from notifications.models import LiveEvent, LiveEventKind
    from social.content import posts_live

    posts_live([scheduled.pk])
    event = LiveEvent.objects.filter(kind=LiveEventKind.POST).latest("id")
    records = ScheduledRecord.objects.filter(post=scheduled).order_by("created_at", "id")
    assert event.data == {
        "postId": str(scheduled.pk),
        "status": "Scheduled",
        "scheduledRecords": [generic(RecordSerializer(), record) for record in records],
    }
