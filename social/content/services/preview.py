"""The preview (social.md section 9): exactly what each target would be sent, part by part,
how long each network counts it, and what it would refuse; nothing stored, nothing sent."""

from dataclasses import dataclass
from uuid import UUID

from social.content.inputs import PostInput
from social.content.services.composition import Part, Target, parts_of, target_problems
from social.content.services.posts import (
    account_target,
    alt_required,
    draft_of,
    platform_targets,
    post_fill,
    post_waiting_targets,
    workspace_post,
)
from social.models import Post
from social.networks import NETWORKS
from social.providers.base import Adapter, MediaFile
from social.providers.text import Problem
from social.selectors import workspace_accounts


@dataclass(frozen=True, slots=True)
class PartPreview:
    """One part as the network would be sent it: `text` exactly as sent (the adapter's own
    `sent_text`, which publishing uses too), `display` as readers see it, its media."""

    kind: str
    text: str
    display: str
    media: tuple[MediaFile, ...]


@dataclass(frozen=True, slots=True)
class TargetPreview:
    """What one target would be sent, how long its network counts the post, and what it
    would refuse (`problems`: (field, message) each)."""

    provider: str
    account_id: str | None
    parts: list[PartPreview]
    used: int
    limit: int
    counts_by: str
    problems: list[Problem]

    @property
    def valid(self) -> bool:
        return not self.problems


def post_preview(
    *,
    workspace_id: UUID,
    fields: PostInput,
    post_id: UUID | None = None,
    account_ids: list[UUID] | None = None,
    platforms: list[str] | None = None,
) -> list[TargetPreview]:
    """Each target's preview: the accounts named, else the platforms named, else the post's
    own platforms and waiting records. The post (a saved one with `fields` applied over it, or
    `fields` alone), of the workspace, is never saved."""
    post = (
        workspace_post(workspace_id=workspace_id, post_id=post_id)
        if post_id
        else Post(workspace_id=workspace_id)
    )
    post_fill(post=post, fields=fields, check_options=False)
    if account_ids:
        accounts = workspace_accounts(workspace_id=workspace_id, account_ids=account_ids)
        targets = [account_target(account) for account in accounts]
    elif platforms:
        targets = platform_targets(workspace_id, list(dict.fromkeys(platforms)))
    else:
        targets = platform_targets(workspace_id, list(post.platforms))
        if post_id:
            targets += post_waiting_targets(post)
    require_alt = alt_required(post)
    return [_target_preview(post, target, require_alt=require_alt) for target in targets]


def _part(part: Part, adapter: Adapter) -> PartPreview:
    text = adapter.sent_text(part.content.text, kind=part.kind)
    return PartPreview(part.kind, text, part.content.text, tuple(part.content.media))


def _target_preview(post: Post, target: Target, *, require_alt: bool) -> TargetPreview:
    platform = NETWORKS[target.provider]
    limits = {**platform.limits, **target.limits}
    draft = draft_of(post, target.provider)
    parts = parts_of(draft, target.provider)
    return TargetPreview(
        provider=target.provider,
        account_id=target.account_id or None,
        parts=[_part(part, platform.adapter) for part in parts],
        used=platform.adapter.length(parts[0].content.text, limits),
        limit=int(limits["maxCharacters"]),
        counts_by=limits.get("countsBy", "characters"),
        problems=target_problems(draft, target, require_alt=require_alt),
    )
