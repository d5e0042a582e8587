"""What a post becomes on each platform, and whether it fits there (social.md section 3).

Each platform's adapter composes the post and checks its own rules (social.providers.text);
here are the rules every platform shares (how many images, images only) and the validation of
a post against all its targets at once, before anything is published or scheduled: every
violation is reported in `error.details.targets`.
"""

from dataclasses import dataclass, field
from typing import Any

from core.errors import ValidationFailed
from social.providers import PLATFORMS
from social.providers.base import Content
from social.providers.text import Draft, Problem

__all__ = ["Draft", "Target", "compose", "problems", "validate_targets"]


@dataclass(frozen=True, slots=True)
class Target:
    """Where a draft goes: a platform, and the account (with its live limits) when known."""

    provider: str
    account_id: str | None = None
    limits: dict[str, Any] = field(default_factory=dict)


def compose(draft: Draft, provider: str) -> Content:
    return PLATFORMS[provider].adapter.compose(draft)


def problems(draft: Draft, target: Target) -> list[Problem]:
    """(field, message) for each rule the draft breaks on this target."""
    platform = PLATFORMS[target.provider]
    limits = {**platform.limits, **target.limits}
    content = platform.adapter.compose(draft)
    found: list[Problem] = []
    max_media = int(limits.get("maxMedia") or 0)
    if len(draft.media) > max_media:
        found.append(("media", f"{platform.name} takes at most {max_media} images."))
    found += platform.adapter.problems(draft, content, limits)
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
