"""Posts, publishing now and scheduling (social.md sections 3 and 4)."""

from collections.abc import Mapping
from functools import cached_property
from typing import Any
from uuid import UUID

from django.db.models import QuerySet
from drf_spectacular.utils import (
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import generics, serializers
from rest_framework.fields import SkipField
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_user
from accounts.scopes import Scope
from core.api.envelope import Envelope
from core.api.serializers import (
    BodySerializer,
    LocalDateTimeField,
    TimeZoneField,
    not_blank,
)
from core.times import iso
from social.api.filters import RangeFilter
from social.api.recurrence import RecurrenceFields, RecurrenceOutput, post_recurrence
from social.content import post_delete, post_preview, post_save, record_data, user_post
from social.models import Post, PostStatus, Provider, RecordStatus, ScheduledRecord
from social.outcomes import error_object, history_entry, record_error
from social.planning import (
    Scheduled,
    record_cancel,
    record_move,
    schedule_to_accounts,
    schedule_to_platforms,
)
from social.publishing import Outcome, publish_now
from social.selectors import (
    media_urls_of,
    post_list,
    post_total,
    record_calendar,
    record_errors,
    user_record,
    with_records,
)

MAX_MEDIA = 20  # LinkedIn's multi-image post; each network's own limit is checked per target
MAX_TARGETS = 20
MAX_THREAD = 24  # follow-up parts of a thread (social.md section 9)


class RecordSerializer(serializers.ModelSerializer[ScheduledRecord]):
    """Written out by hand in `to_representation`: lists render 20 posts with their records,
    and DRF's generic field loop was much of such a request's time (docs/performance.md)."""

    postId = serializers.UUIDField(source="post_id", read_only=True)
    accountId = serializers.UUIDField(source="account_id", read_only=True)
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
            "status",
            "created_at",
            "updated_at",
            "scheduledRecords",
            "recurrence",
            "nextOccurrences",
        )

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


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "maxLength": 1000, "pattern": r"^[^\x00]*$"},
            {"type": "array", "items": {"type": "string", "pattern": r"^[^\x00]*$"}},
        ]
    }
)
class HashtagsField(serializers.Field):  # type: ignore[type-arg]
    """A post's hashtags: the string the specification shows ("#launch #saas"), or the list
    `POST /api/social/ai/generate` answers (["launch", "#saas"]), stored as the string."""

    MAX_LENGTH = 1000

    def to_internal_value(self, data: Any) -> str:
        if isinstance(data, list):
            if not all(isinstance(tag, str) for tag in data):
                raise serializers.ValidationError("Hashtags are strings.")
            tags = [tag.strip() for tag in data if tag.strip()]
            data = " ".join(tag if tag.startswith("#") else f"#{tag}" for tag in tags)
        if not isinstance(data, str):
            raise serializers.ValidationError("Send a string or a list of strings.")
        if "\x00" in data:  # as DRF's CharField: PostgreSQL's text cannot hold it
            raise serializers.ValidationError("Null characters are not allowed.")
        if len(data) > self.MAX_LENGTH:
            raise serializers.ValidationError(
                f"Ensure this field has no more than {self.MAX_LENGTH} characters."
            )
        return data

    def to_representation(self, value: Any) -> str:
        return str(value)


class ThreadPartFields(BodySerializer):
    """A follow-up part of a thread (social.md section 9)."""

    content = serializers.CharField(
        max_length=100_000, trim_whitespace=False, validators=[not_blank]
    )
    mediaIds = serializers.ListField(
        child=serializers.UUIDField(), required=False, max_length=MAX_MEDIA
    )


def thread_field() -> serializers.ListSerializer[Any]:
    return serializers.ListSerializer(
        child=ThreadPartFields(), required=False, max_length=MAX_THREAD
    )


class VariantFields(BodySerializer):
    """One network's version of the post: what it leaves out falls back to the post's."""

    content = serializers.CharField(
        required=False, max_length=100_000, trim_whitespace=False, validators=[not_blank]
    )
    title = serializers.CharField(required=False, allow_blank=True, max_length=300)
    hashtags = HashtagsField(required=False)
    link = serializers.URLField(required=False, allow_blank=True, max_length=2000)
    mediaIds = serializers.ListField(
        child=serializers.UUIDField(), required=False, max_length=MAX_MEDIA
    )
    mediaUrls = serializers.ListField(
        child=serializers.URLField(max_length=2000), required=False, max_length=MAX_MEDIA
    )
    firstComment = serializers.CharField(
        required=False, allow_blank=True, max_length=10_000, trim_whitespace=False
    )
    thread = thread_field()
    # The network's own keys (social.md section 13), checked against its options schema.
    options = serializers.DictField(required=False)


class VariantsFields(BodySerializer):
    """`variants`: a VariantFields per network, keyed by provider; any other key is refused."""

    def get_fields(self) -> dict[str, Any]:
        return {provider: VariantFields(required=False) for provider in Provider.values}

    def to_internal_value(self, data: Any) -> Any:
        unknown = sorted(set(data) - set(Provider.values)) if isinstance(data, Mapping) else []
        if unknown:  # said of `variants` itself, with the keys it takes
            raise serializers.ValidationError(
                [
                    f"Unknown provider {', '.join(map(str, unknown))}: variants are keyed by "
                    f"{', '.join(Provider.values)}."
                ]
            )
        return super().to_internal_value(data)


def _paths(errors: Any, prefix: str) -> dict[str, Any]:
    """Nested errors as {"variants.bluesky.content": [...], "thread[2].content": [...]}."""
    if isinstance(errors, dict) and errors and not all(str(k).isdigit() for k in errors):
        found: dict[str, Any] = {}
        for key, value in errors.items():
            found.update(_paths(value, f"{prefix}.{key}"))
        return found
    if isinstance(errors, dict):  # a list's errors by index
        found = {}
        for key, value in errors.items():
            found.update(_paths(value, f"{prefix}[{key}]"))
        return found
    if isinstance(errors, list) and any(isinstance(item, dict) for item in errors):
        found = {}
        for index, value in enumerate(errors):
            if value:
                found.update(_paths(value, f"{prefix}[{index}]"))
        return found
    return {prefix: errors}


class PostFields(BodySerializer):
    """The writable post fields (API names); only those sent are applied."""

    title = serializers.CharField(required=False, allow_blank=True, max_length=300)
    content = serializers.CharField(
        required=False, max_length=100_000, trim_whitespace=False, validators=[not_blank]
    )
    hashtags = HashtagsField(required=False)
    mentions = serializers.CharField(required=False, allow_blank=True, max_length=1000)
    link = serializers.URLField(required=False, allow_blank=True, max_length=2000)
    mediaUrls = serializers.ListField(
        child=serializers.URLField(max_length=2000), required=False, max_length=MAX_MEDIA
    )
    mediaIds = serializers.ListField(
        child=serializers.UUIDField(), required=False, max_length=MAX_MEDIA
    )
    platforms = serializers.ListField(
        child=serializers.ChoiceField(choices=Provider.choices), required=False, max_length=6
    )
    campaignId = serializers.UUIDField(required=False, allow_null=True)
    status = serializers.ChoiceField(
        choices=[PostStatus.DRAFT],
        required=False,
        error_messages={"invalid_choice": "Only Draft may be sent; other statuses are derived."},
    )
    variants = VariantsFields(required=False)
    thread = thread_field()
    firstComment = serializers.CharField(
        required=False, allow_blank=True, max_length=10_000, trim_whitespace=False
    )

    existing = "id"  # the field naming an existing post; without it `content` is required

    def is_valid(self, *, raise_exception: bool = False) -> bool:
        """Errors inside `variants` and `thread` are named by their path
        (`variants.bluesky.content`, `thread[2].content`)."""
        valid = super().is_valid()
        if not valid:
            errors = dict(self.errors)
            for name in ("variants", "thread"):
                if name in errors:
                    errors.update(_paths(errors.pop(name), name))
            self._errors = errors
            if raise_exception:
                raise serializers.ValidationError(errors)
        return valid

    def validate_variants(self, value: dict[str, Any]) -> dict[str, Any]:
        return {provider: _plain(variant) for provider, variant in value.items()}

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if self.existing not in attrs and "content" not in attrs:
            raise serializers.ValidationError({"content": ["This field is required."]})
        return attrs

    def schema_constraints(self) -> dict[str, Any]:
        return {"anyOf": [{"required": ["content"]}, {"required": [self.existing]}]}


POST_FIELDS = frozenset(PostFields._declared_fields) - {"status"}


def _plain(value: Any) -> Any:
    """Validated data as JSON stores it (UUIDs as strings, ordered dicts as dicts)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, UUID):
        return str(value)
    return value


def _fields(data: dict[str, Any]) -> dict[str, Any]:
    """The post fields of a request, as the services take them (`url` is the post's link)."""
    fields = {name: _plain(value) for name, value in data.items() if name in POST_FIELDS}
    if "url" in data:
        fields["link"] = data["url"]
    if "mediaIds" in fields:
        fields["mediaIds"] = [str(media_id) for media_id in fields["mediaIds"]]
    if "platforms" in fields:
        fields["platforms"] = list(dict.fromkeys(fields["platforms"]))
    return fields


class PostListView(generics.ListAPIView[Post]):
    api_key_scopes = {"GET": Scope.POSTS_READ, "POST": Scope.POSTS_WRITE}
    schema_error_statuses = (404,)  # an `id` that names no post of yours
    serializer_class = PostSerializer
    queryset = Post.objects.none()

    def get_serializer(self, *args: Any, **kwargs: Any) -> Any:
        # The page's media items' URLs, in one query for the whole page.
        if args and isinstance(args[0], list):
            kwargs.setdefault("context", self.get_serializer_context())
            kwargs["context"]["media_urls"] = media_urls_of(args[0])
        return super().get_serializer(*args, **kwargs)

    page_size = 20
    max_page_size = 100

    class FilterSerializer(serializers.Serializer[Any]):
        platform = serializers.ChoiceField(choices=Provider.choices, required=False)
        status = serializers.ChoiceField(choices=PostStatus.choices, required=False)
        campaignId = serializers.UUIDField(required=False)

    class InputSerializer(PostFields):
        id = serializers.UUIDField(required=False)

    @cached_property
    def filters(self) -> dict[str, Any]:
        found = self.FilterSerializer(data=self.request.query_params)
        found.is_valid(raise_exception=True)
        return dict(found.validated_data)

    def count_total(self, queryset: QuerySet[Post]) -> int:
        """The user's counter when nothing filters the list; a COUNT otherwise."""
        if self.filters:
            return queryset.count()
        return post_total(user=request_user(self.request))

    def get_queryset(self) -> QuerySet[Post]:
        return post_list(
            user=request_user(self.request),
            platform=self.filters.get("platform"),
            status=self.filters.get("status"),
            campaign_id=self.filters.get("campaignId"),
        )

    @extend_schema(
        operation_id="social_posts_list",
        tags=["social"],
        parameters=[FilterSerializer],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="social_posts_save",
        tags=["social"],
        request=InputSerializer,
        responses=PostSerializer,
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        post = post_save(user=request_user(request), fields=_fields(data), post_id=data.get("id"))
        return Response(Envelope(data=post_data(post), message="Post saved"))


class PostDetailView(APIView):
    api_key_scopes = {"GET": Scope.POSTS_READ, "DELETE": Scope.POSTS_WRITE}

    @extend_schema(operation_id="social_posts_get", tags=["social"], responses=PostSerializer)
    def get(self, request: Request, post_id: UUID) -> Response:
        return Response(post_data(user_post(user=request_user(request), post_id=post_id)))

    @extend_schema(
        operation_id="social_posts_delete",
        tags=["social"],
        responses={200: inline_serializer("PostDeleted", {"success": serializers.BooleanField()})},
    )
    def delete(self, request: Request, post_id: UUID) -> Response:
        post_delete(user=request_user(request), post_id=post_id)
        return Response(Envelope(data={"success": True}, message="Post deleted"))


# A result nothing recorded (another run took the record over, or saving it failed): what
# its error code says.
LOST_CATEGORIES = {"lease_lost": "unconfirmed", "settle_failed": "internal"}


def outcome_error(outcome: Outcome, errors: Mapping[str, dict[str, Any] | None]) -> dict[str, Any]:
    """`error` of an attempt that did not publish (publish now, a scheduler run): the
    record's error object (`errors`: record_errors of the results), or, for a result that
    was not recorded, one made of the outcome."""
    if outcome.success:
        return {}
    error = errors.get(outcome.record_id)
    if error is None:
        error = error_object(
            code=outcome.error_code,
            category=LOST_CATEGORIES.get(outcome.error_code, "internal"),
            message=outcome.error or "The result could not be recorded.",
            provider=outcome.provider,
            waiting=outcome.status in ("Scheduled", "Lost"),
            retry_at=outcome.retry_at,
        )
    return {"error": error}


def outcomes_errors(outcomes: list[Outcome]) -> dict[str, dict[str, Any] | None]:
    """The error objects of the results that did not publish, in one query."""
    return record_errors(record_ids=[o.record_id for o in outcomes if not o.success])


class OutcomeErrorField(serializers.DictField):
    """`error` of an attempt that did not publish (outcome_error); absent when it did. The
    serializer's context carries the records' errors (`errors`)."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(source="*", required=False, **kwargs)

    def get_attribute(self, instance: Any) -> Any:
        if instance.success:
            raise SkipField()
        return instance

    def to_representation(self, value: Any) -> dict[str, Any]:
        return dict(outcome_error(value, self.context.get("errors") or {})["error"])


# One target of a publish-now.
class PublishResultSerializer(serializers.Serializer[Any]):
    accountId = serializers.UUIDField(source="account_id")
    provider = serializers.CharField()
    success = serializers.BooleanField()
    url = serializers.CharField()
    providerPostId = serializers.CharField(source="provider_post_id")
    recordId = serializers.UUIDField(source="record_id")
    status = serializers.CharField()
    error = OutcomeErrorField()


class PublishView(APIView):
    api_key_scopes = {"POST": Scope.POSTS_WRITE}

    class InputSerializer(PostFields):
        existing = "postId"
        postId = serializers.UUIDField(required=False)
        url = serializers.URLField(required=False, allow_blank=True, max_length=2000)
        accountIds = serializers.ListField(
            child=serializers.UUIDField(), min_length=1, max_length=MAX_TARGETS
        )

    @extend_schema(
        operation_id="social_publish",
        tags=["social"],
        request=InputSerializer,
        responses=PublishResultSerializer(many=True),
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        _, outcomes = publish_now(
            user=request_user(request),
            account_ids=data["accountIds"],
            fields=_fields(data),
            post_id=data.get("postId"),
        )
        published = sum(outcome.success for outcome in outcomes)
        errors = outcomes_errors(outcomes)
        return Response(
            Envelope(
                data=PublishResultSerializer(outcomes, many=True, context={"errors": errors}).data,
                message=f"Published to {published} of {len(outcomes)} accounts",
            )
        )


class PreviewPartSerializer(serializers.Serializer[Any]):
    kind = serializers.CharField()
    text = serializers.CharField(help_text="Exactly as sent to the network, escaped.")
    display = serializers.CharField(help_text="As readers see it, for rendering.")
    media = serializers.ListField(child=serializers.DictField())


class PreviewView(APIView):
    """What each target would be sent (social.md section 9): nothing is stored or sent, so a
    key that may read posts may preview them."""

    api_key_scopes = {"POST": Scope.POSTS_READ}
    schema_error_statuses = (404,)  # a `postId` that names no post of yours

    class InputSerializer(PostFields):
        existing = "postId"
        postId = serializers.UUIDField(required=False)
        url = serializers.URLField(required=False, allow_blank=True, max_length=2000)
        accountIds = serializers.ListField(
            child=serializers.UUIDField(), required=False, max_length=MAX_TARGETS
        )

    class TargetSerializer(serializers.Serializer[Any]):
        provider = serializers.CharField()
        accountId = serializers.UUIDField(required=False)
        parts = PreviewPartSerializer(many=True)
        counts = serializers.DictField()
        valid = serializers.BooleanField()
        problems = serializers.ListField(child=serializers.DictField())

    @extend_schema(
        operation_id="social_preview",
        tags=["social"],
        request=InputSerializer,
        responses=TargetSerializer(many=True),
    )
    def post(self, request: Request) -> Response:
        serializer = self.InputSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        fields = _fields(data)
        platforms = fields.pop("platforms", None) if "accountIds" not in data else None
        previews = post_preview(
            user=request_user(request),
            fields=fields,
            post_id=data.get("postId"),
            account_ids=data.get("accountIds"),
            platforms=platforms,
        )
        valid = sum(preview["valid"] for preview in previews)
        return Response(Envelope(data=previews, message=f"{valid} of {len(previews)} targets fit"))


class ScheduleView(generics.ListAPIView[ScheduledRecord]):
    """POST: schedule (shape A with `accountIds`, shape B with `platforms`); GET: the
    calendar of the user's scheduled records."""

    api_key_scopes = {"GET": Scope.POSTS_READ, "POST": Scope.POSTS_WRITE}
    serializer_class = RecordSerializer
    queryset = ScheduledRecord.objects.none()
    page_size = 20  # the list convention's default (contract.md)
    max_page_size = 100
    sort_fields = {"scheduled_time": "scheduled_time", "created_at": "created_at"}
    default_sort = "scheduled_time"
    default_order = "asc"

    class ShapeA(PostFields):
        existing = "postId"
        postId = serializers.UUIDField(required=False)
        url = serializers.URLField(required=False, allow_blank=True, max_length=2000)
        scheduledTime = LocalDateTimeField()
        timezone = TimeZoneField(required=False)
        accountIds = serializers.ListField(
            child=serializers.UUIDField(), min_length=1, max_length=MAX_TARGETS
        )
        recurrence = RecurrenceFields(required=False)

    class ShapeB(BodySerializer):
        content = serializers.CharField(
            max_length=100_000, trim_whitespace=False, validators=[not_blank]
        )
        platforms = serializers.ListField(
            child=serializers.ChoiceField(choices=Provider.choices), min_length=1, max_length=6
        )
        scheduledAt = LocalDateTimeField()
        mediaIds = serializers.ListField(
            child=serializers.UUIDField(), required=False, max_length=MAX_MEDIA
        )

    class FilterSerializer(RangeFilter):
        status = serializers.ChoiceField(choices=RecordStatus.choices, required=False)
        accountId = serializers.UUIDField(required=False)
        start = serializers.DateTimeField(required=False, help_text="ISO 8601, inclusive")
        end = serializers.DateTimeField(required=False, help_text="ISO 8601, inclusive")

    def get_queryset(self) -> QuerySet[ScheduledRecord]:
        filters = self.FilterSerializer(data=self.request.query_params)
        filters.is_valid(raise_exception=True)
        found = filters.validated_data
        return record_calendar(
            user=request_user(self.request),
            status=found.get("status"),
            account_id=found.get("accountId"),
            start=found.get("from"),
            end=found.get("to"),
        )

    @extend_schema(
        operation_id="social_schedule_list",
        tags=["social"],
        parameters=[FilterSerializer],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="social_schedule",
        tags=["social"],
        request=ShapeA,
        responses=inline_serializer(
            "ScheduleResult",
            {"post": PostSerializer(), "scheduledRecords": RecordSerializer(many=True)},
        ),
    )
    def post(self, request: Request) -> Response:
        user = request_user(request)
        if "accountIds" not in request.data and "platforms" in request.data:
            shape_b = self.ShapeB(data=request.data)
            shape_b.is_valid(raise_exception=True)
            data = shape_b.validated_data
            fields: dict[str, Any] = {"content": data["content"]}
            if data.get("mediaIds"):
                fields["mediaIds"] = [str(media_id) for media_id in data["mediaIds"]]
            platforms = list(dict.fromkeys(data["platforms"]))
            done = schedule_to_platforms(
                user=user, platforms=platforms, scheduled_at=data["scheduledAt"], fields=fields
            )
            return Response(
                Envelope(
                    data={
                        "scheduleId": str(done.post.pk),
                        "status": "scheduled",
                        "scheduledAt": iso(done.scheduled_at),
                        "platforms": platforms,
                    },
                    message="Post scheduled",
                )
            )
        shape_a = self.ShapeA(data=request.data)
        shape_a.is_valid(raise_exception=True)
        data = shape_a.validated_data
        done = schedule_to_accounts(
            user=user,
            account_ids=data["accountIds"],
            scheduled_time=data["scheduledTime"],
            zone_name=data.get("timezone"),
            fields=_fields(data),
            post_id=data.get("postId"),
            recurrence=data.get("recurrence"),
        )
        return Response(Envelope(data=scheduled_data(done), message="Post scheduled"))


class ScheduleDetailView(APIView):
    api_key_scopes = {
        "GET": Scope.POSTS_READ,
        "PATCH": Scope.POSTS_WRITE,
        "DELETE": Scope.POSTS_WRITE,
    }

    @extend_schema(
        operation_id="social_schedule_get",
        tags=["social"],
        responses=RecordDetailSerializer,
    )
    def get(self, request: Request, record_id: UUID) -> Response:
        record = user_record(user=request_user(request), record_id=record_id)
        return Response(RecordDetailSerializer(record).data)

    class MoveSerializer(BodySerializer):
        scheduledTime = LocalDateTimeField()
        timezone = TimeZoneField(required=False)

    @extend_schema(
        operation_id="social_schedule_move",
        tags=["social"],
        request=MoveSerializer,
        responses=RecordSerializer,
    )
    def patch(self, request: Request, record_id: UUID) -> Response:
        serializer = self.MoveSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        data = serializer.validated_data
        record = record_move(
            user=request_user(request),
            record_id=record_id,
            scheduled_time=data["scheduledTime"],
            zone_name=data.get("timezone"),
        )
        return Response(Envelope(data=RecordSerializer(record).data, message="Moved"))

    class CancelSerializer(serializers.Serializer[Any]):
        series = serializers.BooleanField(
            required=False, default=False, help_text="End the record's series (a recurring post)."
        )

    @extend_schema(
        operation_id="social_schedule_cancel",
        tags=["social"],
        parameters=[CancelSerializer],
        responses={200: RecordSerializer},
    )
    def delete(self, request: Request, record_id: UUID) -> Response:
        query = self.CancelSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        record = record_cancel(
            user=request_user(request),
            record_id=record_id,
            series=query.validated_data["series"],
        )
        return Response(Envelope(data=RecordSerializer(record).data, message="Cancelled"))
