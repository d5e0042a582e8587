"""The preview (social.md section 9): exactly what each target would be sent, part by part,
how long each network counts it, and what it would refuse; nothing stored, nothing sent."""

from typing import Any

from accounts.models import User
from social.content.services.composition import Part, Target, parts_of, target_problems
from social.content.services.posts import (
    account_target,
    alt_required,
    draft_of,
    platform_targets,
    post_fill,
    post_waiting_targets,
    user_post,
)
from social.models import Post
from social.networks import NETWORKS
from social.providers.base import Adapter
from social.selectors import user_accounts


def post_preview(
    *,
    user: User,
    fields: dict[str, Any],
    post_id: Any = None,
    account_ids: list[Any] | None = None,
    platforms: list[str] | None = None,
) -> list[dict[str, Any]]:
    """Each target's preview: the accounts named, else the platforms named, else the post's
    own platforms and waiting records. The post (a saved one with `fields` applied over it, or
    `fields` alone) is never saved."""
    post = user_post(user=user, post_id=post_id) if post_id else Post(user=user)
    post_fill(user=user, post=post, fields=fields, check_options=False)
    if account_ids:
        targets = [
            account_target(account) for account in user_accounts(user=user, account_ids=account_ids)
        ]
    elif platforms:
        targets = platform_targets(user, platforms)
    else:
        targets = platform_targets(user, list(post.platforms))
        if post_id:
            targets += post_waiting_targets(post)
    require_alt = alt_required(user, post)
    return [_target_preview(post, target, require_alt=require_alt) for target in targets]


def _part(part: Part, adapter: Adapter) -> dict[str, Any]:
    """`text` as the platform is sent it (the adapter's own `sent_text`, which publishing
    uses too); `display` as readers see it, for rendering."""
    media = [{"url": media.url, "alt": media.alt} for media in part.content.media]
    text = adapter.sent_text(part.content.text, kind=part.kind)
    return {"kind": part.kind, "text": text, "display": part.content.text, "media": media}


def _target_preview(post: Post, target: Target, *, require_alt: bool) -> dict[str, Any]:
    platform = NETWORKS[target.provider]
    limits = {**platform.limits, **target.limits}
    draft = draft_of(post, target.provider)
    parts = parts_of(draft, target.provider)
    problems = target_problems(draft, target, require_alt=require_alt)
    preview: dict[str, Any] = {"provider": target.provider}
    if target.account_id:
        preview["accountId"] = target.account_id
    preview.update(
        parts=[_part(part, platform.adapter) for part in parts],
        counts={
            "used": platform.adapter.length(parts[0].content.text, limits),
            "limit": int(limits["maxCharacters"]),
            "countsBy": limits.get("countsBy", "characters"),
        },
        valid=not problems,
        problems=[{"field": name, "message": message} for name, message in problems],
    )
    return preview
