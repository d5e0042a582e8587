"""What a post becomes on each platform, and whether it fits there (social.md section 3).

Composition: the text is `content`, then `link` (when given and not already in the content),
then the hashtags not already in the content, separated by blank lines. LinkedIn and Facebook
carry the link in their own link field instead; Dev.to takes the title, the content as
markdown and the hashtags as tags.

Validation runs on the composed text of every target before anything is published or
scheduled; all violations are reported at once in `error.details.targets`.
"""

import re
from dataclasses import dataclass, field
from typing import Any

import regex

from core.errors import ValidationFailed
from social.models import Provider
from social.providers import PLATFORMS
from social.providers.base import Content, MediaFile

URL = re.compile(r"https?://\S+")
HASHTAG = re.compile(r"(?<![\w#])#(\w+)")
LINK_FIELD_PLATFORMS = frozenset({Provider.LINKEDIN, Provider.FACEBOOK})
BLUESKY_MAX_BYTES = 3000
BLUESKY_MAX_IMAGE_BYTES = 1_000_000
DEVTO_TAG = re.compile(r"[^a-z0-9]")


@dataclass(frozen=True, slots=True)
class Draft:
    """The fields of a post that decide what is published."""

    content: str
    title: str = ""
    hashtags: str = ""
    link: str = ""
    media: tuple[MediaFile, ...] = ()


@dataclass(frozen=True, slots=True)
class Target:
    """Where a draft goes: a platform, and the account (with its live limits) when known."""

    provider: str
    account_id: str | None = None
    limits: dict[str, Any] = field(default_factory=dict)


def hashtag_list(hashtags: str) -> list[str]:
    """'design #ux, Figma' -> ['#design', '#ux', '#Figma'] (order kept, repeats dropped)."""
    words = [word.strip().lstrip("#") for word in re.split(r"[\s,]+", hashtags)]
    return list(dict.fromkeys(f"#{word}" for word in words if word))


def _missing_tags(draft: Draft) -> list[str]:
    present = {tag.lower() for tag in HASHTAG.findall(draft.content)}
    return [tag for tag in hashtag_list(draft.hashtags) if tag[1:].lower() not in present]


def compose_text(draft: Draft, provider: str) -> str:
    parts = [draft.content.strip()]
    if draft.link and draft.link not in draft.content and provider not in LINK_FIELD_PLATFORMS:
        parts.append(draft.link)
    tags = _missing_tags(draft)
    if tags:
        parts.append(" ".join(tags))
    return "\n\n".join(part for part in parts if part)


def devto_tags(draft: Draft) -> tuple[str, ...]:
    """Forem tags are lowercase letters and digits."""
    tags = [DEVTO_TAG.sub("", tag[1:].lower()) for tag in hashtag_list(draft.hashtags)]
    return tuple(dict.fromkeys(tag for tag in tags if tag))


def compose(draft: Draft, provider: str) -> Content:
    if provider == Provider.DEVTO:
        return Content(
            text=draft.content.strip(),
            link=draft.link,
            title=draft.title,
            tags=devto_tags(draft),
            media=draft.media,
        )
    return Content(
        text=compose_text(draft, provider),
        link=draft.link,
        title=draft.title,
        media=draft.media,
    )


def graphemes(text: str) -> int:
    """User-perceived characters: an emoji sequence or a letter with its marks is one."""
    return len(regex.findall(r"\X", text))


def mastodon_length(text: str, per_url: int) -> int:
    """Mastodon counts each URL as `per_url` characters, whatever its length."""
    return len(URL.sub("x" * per_url, text))


def problems(draft: Draft, target: Target) -> list[tuple[str, str]]:
    """(field, message) for each rule the draft breaks on this target."""
    platform = PLATFORMS[target.provider]
    limits = {**platform.limits, **target.limits}
    content = compose(draft, target.provider)
    text = content.text
    found: list[tuple[str, str]] = []
    max_media = int(limits.get("maxMedia") or 0)
    if len(draft.media) > max_media:
        found.append(("media", f"{platform.name} takes at most {max_media} images."))
    if target.provider == Provider.BLUESKY:
        count, size = graphemes(text), len(text.encode())
        if count > int(limits["maxCharacters"]):
            found.append(("content", f"Bluesky posts are at most {limits['maxCharacters']} "
                                     f"characters; this one is {count}."))  # fmt: skip
        if size > BLUESKY_MAX_BYTES:
            found.append(("content", f"Bluesky posts are at most {BLUESKY_MAX_BYTES} bytes; "
                                     f"this one is {size}."))  # fmt: skip
        if any((media.size or 0) > BLUESKY_MAX_IMAGE_BYTES for media in draft.media):
            found.append(("media", "Bluesky images are at most 1,000,000 bytes."))
    elif target.provider == Provider.MASTODON:
        per_url = int(limits.get("charactersPerUrl") or 23)
        count, maximum = mastodon_length(text, per_url), int(limits.get("maxCharacters") or 500)
        if count > maximum:
            found.append(
                ("content", f"This Mastodon server takes at most {maximum} characters "
                            f"(links count as {per_url}); this post is {count}.")
            )  # fmt: skip
    elif target.provider == Provider.DEVTO:
        if not draft.title.strip():
            found.append(("title", "DEV articles need a title."))
        elif len(draft.title) > int(limits.get("maxTitle") or 128):
            found.append(("title", f"DEV titles are at most {limits.get('maxTitle')} characters."))
        if len(devto_tags(draft)) > int(limits.get("maxHashtags") or 4):
            found.append(("hashtags", "DEV articles take at most 4 tags."))
    else:
        maximum = int(limits["maxCharacters"])
        if len(text) > maximum:
            found.append(("content", f"{platform.name} posts are at most {maximum} characters; "
                                     f"this one is {len(text)}."))  # fmt: skip
        if target.provider == Provider.INSTAGRAM:
            if not draft.media:
                found.append(("media", "Instagram posts need at least one image."))
            tags = len(HASHTAG.findall(text))
            if tags > int(limits.get("maxHashtags") or 30):
                found.append(("hashtags", f"Instagram captions take at most 30 hashtags; "
                                          f"this one has {tags}."))  # fmt: skip
    if any(not media.mime.startswith("image/") for media in draft.media):
        found.append(("media", f"Only images can be published to {platform.name}."))
    return found


def validate_targets(draft: Draft, targets: list[Target]) -> None:
    """ValidationFailed listing every target's problems; nothing when all fit."""
    errors = [
        {"provider": target.provider, **({"accountId": target.account_id}
                                          if target.account_id else {}),
         "field": name, "message": message}
        for target in targets
        for name, message in problems(draft, target)
    ]  # fmt: skip
    if errors:
        raise ValidationFailed(details={"targets": errors})
