"""What the posts' resources answer: a post with its records, a record, scheduling's answer."""

from typing import Any

from drf_spectacular.utils import (
    extend_schema_field,
)
from rest_framework import serializers

from core.times import iso
from social.api.providers import ProviderField
from social.api.recurrence import RecurrenceOutput, post_recurrence
from social.error_objects import history_entry, record_error
from social.models import Post, ScheduledRecord
from social.output import record_data
from social.planning import (
    Scheduled,
)
from social.selectors import (
    media_urls_of,
    with_records,
)


class RecordSerializer(serializers.ModelSerializer[ScheduledRecord]):
    """Written out by hand in `to_representation`: lists render 20 posts with their records,
    and DRF's generic field loop was much of such a request's time (docs/performance.md)."""

    postId = serializers.UUIDField(source="post_id", read_only=True)
    accountId = serializers.UUIDField(source="account_id", read_only=True)
    provider = ProviderField()
    providerPostId = serializers.CharField(source="provider_post_id", read_only=True)
    # {code, category, message, remedy, retryable, platform?, retryAt?} (social.md section
    # 12), null when nothing went wrong.
    error = serializers.SerializerMethodField()

    class Meta:
        model = ScheduledRecord
        fields = (
            "id",
            "postId",
            "accountId",
            "provider",
            "scheduled_time",
            "status",
            "attempts",
            "next_attempt_at",
            "published_at",
            "url",
            "providerPostId",
            "error",
            "queued",
            "parts",
            "warnings",
        )

    def get_error(self, record: ScheduledRecord) -> dict[str, Any] | None:
        return record_error(record)

    def to_representation(self, record: ScheduledRecord) -> dict[str, Any]:
        return record_data(record)


class RecordDetailSerializer(RecordSerializer):
    """A record with its `history`: every attempt `{attempt, at, outcome, error?, found?}`,
    and what happened between them (deferrals, the user's retries and resolutions)."""

    history = serializers.ListField(child=serializers.DictField(), read_only=True)

    class Meta(RecordSerializer.Meta):
        fields: tuple[str, ...] = (*RecordSerializer.Meta.fields, "history")  # type: ignore[assignment]

    def to_representation(self, record: ScheduledRecord) -> dict[str, Any]:
        return {
            **record_data(record),
            "history": [history_entry(entry, record.provider) for entry in record.history],
        }


class PostSerializer(serializers.ModelSerializer[Post]):
    user_id = serializers.UUIDField(read_only=True)
    mediaUrls = serializers.ListField(source="media_urls", read_only=True)
    mediaIds = serializers.ListField(source="media_ids", read_only=True)
    campaignId = serializers.UUIDField(source="campaign_id", read_only=True, allow_null=True)
    firstComment = serializers.CharField(source="first_comment", read_only=True)
    requiresApproval = serializers.BooleanField(source="requires_approval", read_only=True)
    approval = serializers.SerializerMethodField(
        help_text="Its latest approval request's state: pending, approved, rejected or stale "
        "(null: never asked)."
    )
    scheduledRecords = RecordSerializer(source="records", many=True, read_only=True)
    recurrence = RecurrenceOutput(source="series", read_only=True, allow_null=True)
    nextOccurrences = serializers.SerializerMethodField()

    class Meta:
        model = Post
        fields = (
            "id",
            "user_id",
            "title",
            "content",
            "hashtags",
            "mentions",
            "link",
            "mediaUrls",
            "mediaIds",
            "platforms",
            "campaignId",
            "variants",
            "thread",
            "firstComment",
            "requiresApproval",
            "approval",
            "status",
            "created_at",
            "updated_at",
            "scheduledRecords",
            "recurrence",
            "nextOccurrences",
        )

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_approval(self, post: Post) -> str | None:
        return post.approval or None

    @extend_schema_field(serializers.ListField(child=serializers.DateTimeField()))
    def get_nextOccurrences(self, post: Post) -> list[str | None]:
        return post_recurrence(post)["nextOccurrences"]

    def to_representation(self, post: Post) -> dict[str, Any]:
        to_record = RecordSerializer().to_representation
        return {
            "id": str(post.id),
            "user_id": str(post.user_id),
            "title": post.title,
            "content": post.content,
            "hashtags": post.hashtags,
            "mentions": post.mentions,
            "link": post.link,
            "mediaUrls": _media_urls(post, self.context.get("media_urls") or {}),
            "mediaIds": list(post.media_ids),
            "platforms": list(post.platforms),
            "campaignId": str(post.campaign_id) if post.campaign_id else None,
            "variants": dict(post.variants),
            "thread": list(post.thread),
            "firstComment": post.first_comment,
            "requiresApproval": post.requires_approval,
            "approval": post.approval or None,
            "status": post.status,
            "created_at": iso(post.created_at),
            "updated_at": iso(post.updated_at),
            "scheduledRecords": [to_record(record) for record in post.records.all()],
            **post_recurrence(post),
        }


def _media_urls(post: Post, item_urls: dict[str, str]) -> list[str]:
    """What the post attaches, as URLs: its hosted URLs, then its media items' (`mediaIds`)."""
    urls = list(post.media_urls)
    for media_id in post.media_ids:
        url = item_urls.get(str(media_id))
        if url and url not in urls:
            urls.append(url)
    return urls


def scheduled_data(done: Scheduled) -> dict[str, Any]:
    """What scheduling answers (shape A, the queue): the post and the records it got."""
    return {
        "post": post_data(done.post),
        "scheduledRecords": RecordSerializer(done.records, many=True).data,
    }


def post_data(post: Post) -> Any:
    found = with_records(Post.objects.filter(pk=post.pk)).get()
    return PostSerializer(found, context={"media_urls": media_urls_of([found])}).data
