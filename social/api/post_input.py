"""What a post is written as: its fields, variants and thread, checked once for every resource
that takes them (saving, previewing, publishing, scheduling)."""

from collections.abc import Mapping
from typing import Any
from uuid import UUID

from drf_spectacular.utils import (
    extend_schema_field,
)
from rest_framework import serializers

from core.api.serializers import (
    BodySerializer,
    not_blank,
)
from core.inputs import UNSET
from social.api.providers import ProviderListField
from social.content import PostInput, ThreadPart, VariantInput
from social.models import PostStatus
from social.networks import NETWORKS

MAX_MEDIA = 20  # LinkedIn's multi-image post; each network's own limit is checked per target
MAX_TARGETS = 20
MAX_THREAD = 24  # follow-up parts of a thread (social.md section 9)


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
        return {provider: VariantFields(required=False) for provider in NETWORKS}

    def to_internal_value(self, data: Any) -> Any:
        unknown = sorted(set(data) - set(NETWORKS)) if isinstance(data, Mapping) else []
        if unknown:  # said of `variants` itself, with the keys it takes
            raise serializers.ValidationError(
                [
                    f"Unknown provider {', '.join(map(str, unknown))}: variants are keyed by "
                    f"{', '.join(NETWORKS)}."
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
    platforms = ProviderListField(required=False)
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
    requiresApproval = serializers.BooleanField(
        required=False,
        help_text="Whether the post needs an approval before it goes out (default: its "
        "workspace's rule; false is refused in a workspace that requires approval).",
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

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if self.existing not in attrs and "content" not in attrs:
            raise serializers.ValidationError({"content": ["This field is required."]})
        return attrs

    def schema_constraints(self) -> dict[str, Any]:
        return {"anyOf": [{"required": ["content"]}, {"required": [self.existing]}]}


def post_input(data: Mapping[str, Any]) -> PostInput:
    """The post fields of a request (PostFields' validated data) as the services take them:
    what was not sent stays UNSET; `url` is the post's link."""
    link = data["url"] if "url" in data else data.get("link", UNSET)
    return PostInput(
        title=data.get("title", UNSET),
        content=data.get("content", UNSET),
        hashtags=data.get("hashtags", UNSET),
        mentions=data.get("mentions", UNSET),
        link=link,
        media_urls=data.get("mediaUrls", UNSET),
        media_ids=data.get("mediaIds", UNSET),
        platforms=data.get("platforms", UNSET),
        campaign_id=data.get("campaignId", UNSET),
        variants=(
            {provider: _variant(variant) for provider, variant in data["variants"].items()}
            if "variants" in data
            else UNSET
        ),
        thread=_thread(data["thread"]) if "thread" in data else UNSET,
        first_comment=data.get("firstComment", UNSET),
        requires_approval=data.get("requiresApproval", UNSET),
    )


def _variant(data: Mapping[str, Any]) -> VariantInput:
    return VariantInput(
        content=data.get("content", UNSET),
        title=data.get("title", UNSET),
        hashtags=data.get("hashtags", UNSET),
        link=data.get("link", UNSET),
        media_ids=data.get("mediaIds", UNSET),
        media_urls=data.get("mediaUrls", UNSET),
        first_comment=data.get("firstComment", UNSET),
        thread=_thread(data["thread"]) if "thread" in data else UNSET,
        options=_plain(data["options"]) if "options" in data else UNSET,
    )


def _thread(parts: list[Mapping[str, Any]]) -> list[ThreadPart]:
    return [
        ThreadPart(content=part["content"], media_ids=list(part.get("mediaIds") or ()))
        for part in parts
    ]


def _plain(value: Any) -> Any:
    """Validated data as JSON stores it (ordered dicts as dicts, UUIDs as strings)."""
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    if isinstance(value, UUID):
        return str(value)
    return value
