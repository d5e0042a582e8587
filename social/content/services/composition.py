"""What a post becomes on each platform, and whether it fits there (social.md sections 3, 9).

Each platform's adapter composes the post and checks its own rules (social.providers.text);
here are the rules every platform shares (how many images, images only, alt text), the parts
a post is published as (the post, its thread's replies, its first comment), and the
validation of a post against all its targets at once, before anything is published or
scheduled: every violation is reported in `error.details.targets`, at the field the user
wrote (`variants.bluesky.content`, `thread[2].content`).
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from core.errors import ApplicationError, ValidationFailed
from social.errors import (
    AltTextRequired,
    DocumentNotSupported,
    FirstCommentNotSupported,
    ThreadNotSupported,
    VideoNotSupported,
)
from social.networks import NETWORKS
from social.networks.base import DOCUMENT_MAX_PAGES, VideoRules
from social.providers.base import Content, Draft, MediaFile
from social.providers.text import Problem

__all__ = [
    "Draft",
    "Part",
    "Target",
    "compose",
    "parts_of",
    "problems",
    "target_problems",
    "validate_targets",
]

MAX_THREAD = 24  # follow-up parts of a thread


@dataclass(frozen=True, slots=True)
class Target:
    """Where a draft goes: a platform, and the account (with its live limits) when known."""

    provider: str
    account_id: str | None = None
    limits: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Part:
    """One publication of a record: the post (index 0), a reply of its thread, or its first
    comment, in the order they are published; each exactly once (the record's `parts`)."""

    index: int
    kind: str  # "post" | "reply" | "comment"
    content: Content


def compose(draft: Draft, provider: str) -> Content:
    return NETWORKS[provider].adapter.compose(draft)


def parts_of(draft: Draft, provider: str) -> list[Part]:
    """What a record publishes, in order: the post, each follow-up of its thread as a reply
    to the one before, then the first comment."""
    adapter = NETWORKS[provider].adapter
    parts = [Part(0, "post", adapter.compose(draft))]
    for follow_up in draft.thread:
        parts.append(Part(len(parts), "reply", adapter.compose(follow_up)))
    if draft.first_comment:
        parts.append(Part(len(parts), "comment", Content(text=draft.first_comment)))
    return parts


def _part_problems(draft: Draft, target: Target, *, reply: bool = False) -> list[Problem]:
    """The rules one part (the post, or a reply of its thread) breaks on the target."""
    platform = NETWORKS[target.provider]
    limits = {**platform.limits, **target.limits}
    found: list[Problem] = []
    max_media = int(limits.get("maxMedia") or 0)
    if len(draft.media) > max_media:
        found.append(("media", f"{platform.name} takes at most {max_media} images."))
    found += platform.adapter.problems(draft, platform.adapter.compose(draft), limits)
    videos = [media for media in draft.media if media.video]
    documents = [media for media in draft.media if media.document]
    if any(not media.mime.startswith("image/") and not media.processed for media in draft.media):
        found.append(("media", f"Only images and videos can be published to {platform.name}."))
    elif (videos or documents) and reply:
        found.append(("media", "A video or a document goes in the post itself, not in a reply."))
    elif documents and platform.capabilities.documents:
        found += _document_problems(draft, documents, platform.name)
    elif videos and platform.capabilities.video is not None:
        found += _video_problems(draft, videos, platform.capabilities.video, platform.name)
    return found


def _document_problems(draft: Draft, documents: list[MediaFile], name: str) -> list[Problem]:
    """One document per post, alone, within its pages and size, and a title to name it by
    (the post's, or its variant's: social.md section 13)."""
    found: list[Problem] = []
    if len(documents) > 1 or len(documents) < len(draft.media):
        found.append(("media", f"{name} takes one document per post, alone."))
    limit = int(settings.MEDIA_MAX_DOCUMENT_BYTES)
    for document in documents:
        if (document.pages or 0) > DOCUMENT_MAX_PAGES:
            message = f"{name} takes documents of at most {DOCUMENT_MAX_PAGES} pages."
            found.append(("media", f"{message} This one has {document.pages}."))
        if (document.size or 0) > limit:
            message = f"{name} takes documents of at most {limit} bytes; this one is"
            found.append(("media", f"{message} {document.size}."))
    if not draft.title.strip():
        found.append(("title", f"A {name} document is shown with a title: add one."))
    return found


def _video_problems(
    draft: Draft, videos: list[MediaFile], rules: VideoRules, name: str
) -> list[Problem]:
    """One video per post, alone (an Instagram carousel mixes up to 10), within the
    platform's duration and size."""
    found: list[Problem] = []
    if not rules.carousel and len(videos) > 1:
        found.append(("media", f"{name} takes one video per post."))
    if not rules.carousel and len(videos) < len(draft.media):
        found.append(("media", f"{name} takes a video alone, without images."))
    for video in videos:
        seconds = video.duration
        if seconds is not None and not rules.min_seconds <= seconds <= rules.max_seconds:
            found.append(
                (
                    "media",
                    f"{name} takes videos of {rules.min_seconds:g} to "
                    f"{rules.max_seconds:g} seconds; this one is "
                    f"{seconds:g}.",
                )
            )
        if not rules.by_url and not video.stored:
            message = f"{name} needs the video's own bytes: upload it to the media library."
            found.append(("media", message))
        if (video.size or 0) > rules.max_bytes:
            found.append(
                (
                    "media",
                    f"{name} takes videos of at most {rules.max_bytes} bytes; "
                    f"this one is {video.size}.",
                )
            )
    return found


def problems(draft: Draft, target: Target) -> list[Problem]:
    """(field, message) for each rule the draft breaks on this target, the field named as
    the request wrote it."""
    network = NETWORKS[target.provider]
    adapter = network.adapter
    found = [(draft.path(name), message) for name, message in _part_problems(draft, target)]
    for index, follow_up in enumerate(draft.thread):
        found += [
            (draft.path(f"thread[{index}].{name}"), message)
            for name, message in _part_problems(follow_up, target, reply=True)
            if name in ("content", "media")  # a reply has no title, link or hashtags
        ]
    limit, length = adapter.comment_limit, len(draft.first_comment)
    if network.capabilities.threads:  # the comment is the author's reply: a post's limit
        limits = {**network.limits, **target.limits}
        limit = int(limits["maxCharacters"])
        length = adapter.length(draft.first_comment, limits)
    if length > limit:
        message = f"{network.name} comments are at most {limit} characters; this one is {length}."
        found.append((draft.path("firstComment"), message))
    return found


def _unsupported(draft: Draft, target: Target, *, require_alt: bool) -> list[ApplicationError]:
    """The 400s with codes of their own: a thread or a first comment the platform has no
    place for, an image without alt text when the user requires it."""
    can = NETWORKS[target.provider].capabilities
    found: list[ApplicationError] = []
    if draft.thread and not can.threads:
        found.append(ThreadNotSupported(details=_detail(target, draft.path("thread"))))
    if draft.first_comment and not can.first_comment:
        found.append(FirstCommentNotSupported(details=_detail(target, draft.path("firstComment"))))
    if not can.video and any(media.video for media in draft.media):
        found.append(VideoNotSupported(details=_detail(target, draft.path("media"))))
    every = [draft, *draft.thread]
    if not can.documents and any(media.document for part in every for media in part.media):
        found.append(DocumentNotSupported(details=_detail(target, draft.path("media"))))
    if require_alt:
        parts = [("media", draft), *((f"thread[{i}].media", p) for i, p in enumerate(draft.thread))]
        for name, part in parts:
            if any(media.mime.startswith("image/") and not media.alt for media in part.media):
                found.append(AltTextRequired(details=_detail(target, draft.path(name))))
    return found


def _detail(target: Target, name: str) -> dict[str, Any]:
    return {"targets": [_target_error(target, name, "")]}


def _target_error(target: Target, name: str, message: str) -> dict[str, Any]:
    error: dict[str, Any] = {"provider": target.provider}
    if target.account_id:
        error["accountId"] = target.account_id
    error["field"] = name
    if message:
        error["message"] = message
    return error


def target_problems(draft: Draft, target: Target, *, require_alt: bool) -> list[Problem]:
    """Everything publishing would refuse on this target, as (field, message): what the
    preview shows (the variant's options included, which publishing refuses on saving)."""
    refused = [
        (str(error.details["targets"][0]["field"]), error.message)
        for error in _unsupported(draft, target, require_alt=require_alt)
    ]
    return refused + problems(draft, target) + option_problems(target.provider, draft.options)


def option_problems(provider: str, options: dict[str, Any]) -> list[Problem]:
    """Each key of `variants.<provider>.options` the network's options schema does not
    declare, or whose value it refuses (social.md section 13), at its field."""
    network = NETWORKS[provider]
    schema = {option.name: option for option in network.options}
    found: list[Problem] = []
    for key, value in options.items():
        name = f"variants.{provider}.options.{key}"
        option = schema.get(key)
        if option is None:
            known = ", ".join(schema) or "none"
            found.append((name, f"{network.name} has no option {key!r} (its options: {known})."))
        elif reason := option.refusal(value):
            found.append((name, reason))
    return found


def validate_targets(
    draft_for: Callable[[str], Draft], targets: list[Target], *, require_alt: bool = False
) -> None:
    """Each target's draft (the post merged with its provider's variant) checked against it:
    a 400 of its own code for what the platform cannot take at all (a thread, a first
    comment) or alt text missing where required; otherwise ValidationFailed listing every
    target's problems; nothing when all fit."""
    refused: list[ApplicationError] = []
    errors: list[dict[str, Any]] = []
    for target in targets:
        draft = draft_for(target.provider)
        refused += _unsupported(draft, target, require_alt=require_alt)
        errors += [
            _target_error(target, name, message) for name, message in problems(draft, target)
        ]
    if refused:
        first = refused[0]
        same = [error for error in refused if error.code == first.code]
        first.details = {"targets": [t for error in same for t in error.details["targets"]]}
        raise first
    if errors:
        raise ValidationFailed(details={"targets": errors})


def parts_missing(
    draft: Draft, provider: str, parts: list[dict[str, Any]], *, reason: str
) -> list[dict[str, Any]]:
    """What a Published record is missing: the thread from its first unpublished reply on,
    and its first comment, each with the reason."""
    published = {int(part["index"]) for part in parts}
    missing = [part for part in parts_of(draft, provider) if part.index not in published]
    found: list[dict[str, Any]] = []
    reply = next((part for part in missing if part.kind == "reply"), None)
    if reply is not None:
        found.append(
            {
                "code": "thread_incomplete",
                "index": reply.index,
                "message": f"The thread stops before part {reply.index + 1}: {reason}",
            }
        )
    comment = next((part for part in missing if part.kind == "comment"), None)
    if comment is not None:
        message = f"The first comment was not published: {reason}"
        found.append({"code": "first_comment_failed", "index": comment.index, "message": message})
    return found
