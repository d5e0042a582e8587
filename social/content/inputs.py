"""A post as its writer gives it to the services (saving, previewing, publishing, scheduling,
queueing): typed fields, only those sent set (`core.inputs.UNSET` for the others). The API
builds it from the request (social/api/post_input.py)."""

from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from core.inputs import UNSET, Unset


@dataclass(frozen=True, slots=True, kw_only=True)
class ThreadPart:
    """A follow-up part of a thread (social.md section 9): its text and its own media."""

    content: str
    media_ids: list[UUID] = field(default_factory=list)


@dataclass(frozen=True, slots=True, kw_only=True)
class VariantInput:
    """One network's version of the post: what it leaves out falls back to the post's."""

    content: str | Unset = UNSET
    title: str | Unset = UNSET
    hashtags: str | Unset = UNSET
    link: str | Unset = UNSET
    media_ids: list[UUID] | Unset = UNSET
    media_urls: list[str] | Unset = UNSET
    first_comment: str | Unset = UNSET
    thread: list[ThreadPart] | Unset = UNSET
    # The network's own keys (social.md section 13), checked against its options schema.
    options: dict[str, Any] | Unset = UNSET


@dataclass(frozen=True, slots=True, kw_only=True)
class PostInput:
    """The post's fields a request sets; a new post takes the model's defaults for the rest,
    an existing one keeps its own."""

    title: str | Unset = UNSET
    content: str | Unset = UNSET
    hashtags: str | Unset = UNSET
    mentions: str | Unset = UNSET
    link: str | Unset = UNSET
    media_urls: list[str] | Unset = UNSET
    media_ids: list[UUID] | Unset = UNSET
    platforms: list[str] | Unset = UNSET
    campaign_id: UUID | Unset | None = UNSET  # None: the post leaves its campaign
    variants: dict[str, VariantInput] | Unset = UNSET  # by provider
    thread: list[ThreadPart] | Unset = UNSET
    first_comment: str | Unset = UNSET
    # workspaces.md section 3: ask for an approval beyond the workspace's rule (False in a
    # workspace that requires approval is refused).
    requires_approval: bool | Unset = UNSET
