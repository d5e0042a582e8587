"""Posts: create, edit, delete, and the status derived from their scheduled records."""

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from django.db import transaction
from django.db.models import F

from accounts.models import User, Workspace
from core.errors import ValidationFailed
from core.inputs import UNSET
from social.content.inputs import PostInput, ThreadPart, VariantInput
from social.content.services.composition import Draft, Target, option_problems, validate_targets
from social.content.services.media import media_files, media_ids_check
from social.content.services.post_status import providers_of
from social.errors import PostAlreadyPublished, PostNotFound
from social.lifecycle import post_deleted_emit, post_saved_emit
from social.models import (
    WAITING_STATUSES,
    AccountStatus,
    Campaign,
    Post,
    PostCounter,
    RecordStatus,
    ScheduledRecord,
    SocialAccount,
)
from social.providers.base import MediaFile
from social.selectors import settings_for

# A variant as Post.variants stores it (and the API shows it as stored): each stored key -> the
# Draft field it sets.
VARIANT_FIELDS = {
    "content": "content",
    "title": "title",
    "hashtags": "hashtags",
    "link": "link",
    "mediaIds": "media",
    "mediaUrls": "media",
    "firstComment": "firstComment",
    "thread": "thread",
}


def draft_of(post: Post, provider: str = "") -> Draft:
    """What the post publishes on `provider`: the post merged with that provider's variant
    (a field the variant leaves out falls back to the post's own)."""
    variant: dict[str, Any] = dict(post.variants.get(provider) or {}) if provider else {}
    thread = variant.get("thread", post.thread)
    return Draft(
        content=variant.get("content", post.content),
        title=variant.get("title", post.title),
        hashtags=variant.get("hashtags", post.hashtags),
        link=variant.get("link", post.link),
        media=_attachments(
            post.workspace_id,
            variant.get("mediaUrls", post.media_urls),
            variant.get("mediaIds", post.media_ids),
        ),
        thread=tuple(_follow_up(post.workspace_id, part) for part in thread or ()),
        first_comment=variant.get("firstComment", post.first_comment) or "",
        options=dict(variant.get("options") or {}),
        provider=provider,
        from_variant=frozenset(VARIANT_FIELDS[name] for name in variant if name in VARIANT_FIELDS),
    )


def _follow_up(workspace_id: UUID, part: dict[str, Any]) -> Draft:
    """A thread's follow-up part: its text and its own media."""
    media = _attachments(workspace_id, [], part.get("mediaIds") or [])
    return Draft(content=str(part.get("content") or ""), media=media)


def _attachments(
    workspace_id: UUID, urls: list[str], media_ids: list[str]
) -> tuple[MediaFile, ...]:
    items = media_files(workspace_id=workspace_id, media_ids=media_ids) if media_ids else ()
    # A client may send back the mediaUrls the post record shows, which include its media
    # items' URLs: each file is attached once.
    attached = {item.url for item in items}
    return tuple(MediaFile(url=url) for url in urls if url not in attached) + tuple(items)


def _variants_check(
    workspace_id: UUID, variants: dict[str, VariantInput], *, check_options: bool = True
) -> dict[str, dict[str, Any]]:
    """Variants as Post.variants stores them: only the fields sent, media ids checked as the
    workspace's own, options checked against each network's schema (unless the caller
    reports them itself)."""
    return {
        provider: _variant_stored(workspace_id, provider, variant, check_options=check_options)
        for provider, variant in variants.items()
    }


def _variant_stored(
    workspace_id: UUID, provider: str, variant: VariantInput, *, check_options: bool
) -> dict[str, Any]:
    """One variant as stored (its keys: VARIANT_FIELDS and `options`)."""
    stored: dict[str, Any] = {}
    for key, value in (
        ("content", variant.content),
        ("title", variant.title),
        ("hashtags", variant.hashtags),
        ("link", variant.link),
    ):
        if value is not UNSET:
            stored[key] = value
    if variant.media_ids is not UNSET:
        stored["mediaIds"] = _media_check(
            workspace_id, variant.media_ids, f"variants.{provider}.mediaIds"
        )
    if variant.media_urls is not UNSET:
        stored["mediaUrls"] = list(variant.media_urls)
    if variant.first_comment is not UNSET:
        stored["firstComment"] = variant.first_comment
    if variant.thread is not UNSET:
        stored["thread"] = _thread_check(
            workspace_id, variant.thread, f"variants.{provider}.thread"
        )
    if variant.options is not UNSET:
        if check_options:
            _options_check(provider, variant.options)
        stored["options"] = dict(variant.options)
    return stored


def _options_check(provider: str, options: dict[str, Any]) -> None:
    refused = option_problems(provider, options)
    if refused:
        raise ValidationFailed(details={name: [message] for name, message in refused})


def _thread_check(workspace_id: UUID, thread: list[ThreadPart], name: str) -> list[dict[str, Any]]:
    """The follow-up parts as Post.thread stores them: `[{content, mediaIds?}]`."""
    parts = []
    for index, part in enumerate(thread):
        stored: dict[str, Any] = {"content": part.content}
        if part.media_ids:
            stored["mediaIds"] = _media_check(
                workspace_id, part.media_ids, f"{name}[{index}].mediaIds"
            )
        parts.append(stored)
    return parts


def _media_check(workspace_id: UUID, media_ids: list[UUID], name: str) -> list[str]:
    try:
        return media_ids_check(workspace_id=workspace_id, media_ids=[str(m) for m in media_ids])
    except ValidationFailed as error:
        raise ValidationFailed(details={name: error.details.get("mediaIds")}) from None


def account_target(account: SocialAccount) -> Target:
    return Target(provider=account.provider, account_id=str(account.id), limits=account.limits)


def platform_targets(workspace_id: UUID, platforms: list[str]) -> list[Target]:
    """A draft's intended platforms: the workspace's account there (its live limits) when
    there is exactly one, the platform's limits otherwise."""
    accounts: dict[str, list[SocialAccount]] = {}
    for account in SocialAccount.objects.filter(
        workspace_id=workspace_id, provider__in=platforms, status=AccountStatus.CONNECTED
    ):
        accounts.setdefault(account.provider, []).append(account)
    return [
        account_target(accounts[p][0]) if len(accounts.get(p, [])) == 1 else Target(provider=p)
        for p in platforms
    ]


def workspace_post(*, workspace_id: UUID, post_id: UUID, lock: bool = False) -> Post:
    """One of the workspace's posts; another workspace's or none: 404."""
    posts = Post.objects.select_for_update() if lock else Post.objects
    post = posts.filter(pk=post_id, workspace_id=workspace_id).first()
    if post is None:
        raise PostNotFound()
    return post


def _campaign(workspace_id: UUID, campaign_id: UUID | None) -> Campaign | None:
    if campaign_id is None:
        return None
    campaign = Campaign.objects.filter(pk=campaign_id, workspace_id=workspace_id).first()
    if campaign is None:
        raise ValidationFailed(details={"campaignId": ["No such campaign."]})
    return campaign


def post_apply(
    *,
    post: Post,
    fields: PostInput,
    extra_targets: Sequence[Target] = (),
) -> Post:
    """Apply the given fields to the post (of its workspace) in memory and validate it
    against its intended platforms, its waiting records' accounts and `extra_targets`.
    Nothing is saved."""
    post_fill(post=post, fields=fields)
    targets = platform_targets(post.workspace_id, list(post.platforms)) + list(extra_targets)
    if post.pk and not post._state.adding:
        targets += post_waiting_targets(post)
    validate_targets(
        lambda provider: draft_of(post, provider), targets, require_alt=alt_required(post)
    )
    return post


def post_fill(*, post: Post, fields: PostInput, check_options: bool = True) -> Post:
    """Apply the fields given (those not UNSET) to the post in memory, the media and the
    campaign checked as its workspace's, the variants' options as their networks' (a 400;
    the preview reports them as its targets' problems instead); nothing validated against
    the targets, nothing saved."""
    workspace_id = post.workspace_id
    if fields.title is not UNSET:
        post.title = fields.title
    if fields.content is not UNSET:
        post.content = fields.content
    if fields.hashtags is not UNSET:
        post.hashtags = fields.hashtags
    if fields.mentions is not UNSET:
        post.mentions = fields.mentions
    if fields.link is not UNSET:
        post.link = fields.link
    if fields.media_urls is not UNSET:
        post.media_urls = list(fields.media_urls)
    if fields.media_ids is not UNSET:
        post.media_ids = media_ids_check(
            workspace_id=workspace_id, media_ids=[str(media_id) for media_id in fields.media_ids]
        )
    if fields.platforms is not UNSET:
        post.platforms = list(dict.fromkeys(fields.platforms))  # each network once
    if fields.campaign_id is not UNSET:
        post.campaign = _campaign(workspace_id, fields.campaign_id)
    if fields.variants is not UNSET:
        post.variants = _variants_check(workspace_id, fields.variants, check_options=check_options)
    if fields.thread is not UNSET:
        post.thread = _thread_check(workspace_id, fields.thread, "thread")
    if fields.first_comment is not UNSET:
        post.first_comment = fields.first_comment
    if fields.requires_approval is not UNSET:
        if not fields.requires_approval and _workspace_requires_approval(workspace_id):
            raise ValidationFailed(
                details={"requiresApproval": ["This workspace requires approval of every post."]}
            )
        post.requires_approval = fields.requires_approval
    return post


def _workspace_requires_approval(workspace_id: UUID) -> bool:
    return Workspace.objects.filter(pk=workspace_id, approval_required=True).exists()


def post_waiting_targets(post: Post) -> list[Target]:
    """The accounts of the post's records still waiting: an edit must fit them too."""
    waiting = ScheduledRecord.objects.filter(post=post, status__in=WAITING_STATUSES).select_related(
        "account"
    )
    return [account_target(record.account) for record in waiting]


def alt_required(post: Post) -> bool:
    """Whether the post's workspace requires alt text on images: read only for a post with
    media (a text post costs no query for it)."""
    return _has_media(post) and settings_for(post.workspace_id).require_alt_text


def _has_media(post: Post) -> bool:
    parts = [*post.variants.values(), *post.thread]
    parts += [part for variant in post.variants.values() for part in variant.get("thread") or ()]
    return bool(post.media_ids or post.media_urls) or any(
        part.get("mediaIds") or part.get("mediaUrls") for part in parts
    )


def post_counted(post: Post, *, delta: int) -> None:
    """Keep the workspace's post counter with a create (+1) or delete (-1), in its
    transaction. No counter row yet: nothing to keep (its first read counts)."""
    PostCounter.objects.filter(workspace_id=post.workspace_id).update(total=F("total") + delta)


def post_new(*, workspace_id: UUID, user: User) -> Post:
    """A new post of the workspace (unsaved), `user` its author."""
    return Post(workspace_id=workspace_id, user=user)


def post_save(
    *, workspace_id: UUID, user: User, fields: PostInput, post_id: UUID | None = None
) -> Post:
    """Create a post in the workspace (`user` its author), or edit the workspace's post
    `post_id` (its author stays). A published post cannot be edited; editing a scheduled
    one changes what its waiting records will publish."""
    with transaction.atomic():
        if post_id is None:
            post = post_new(workspace_id=workspace_id, user=user)
        else:
            post = workspace_post(workspace_id=workspace_id, post_id=post_id, lock=True)
            if post.records.filter(
                status__in=(RecordStatus.PUBLISHED, RecordStatus.PUBLISHING)
            ).exists():
                raise PostAlreadyPublished()
        post_apply(post=post, fields=fields)
        post.provider_set = providers_of(post)
        created = post._state.adding
        post.save()
        if created:
            post_counted(post, delta=1)
        post_saved_emit(post, created=created)
    return post


def post_delete(*, workspace_id: UUID, post_id: UUID) -> None:
    """Remove the workspace's post and its records. A record being published at this moment
    finishes at the platform; its result finds no row and nothing is published again."""
    with transaction.atomic():
        post = workspace_post(workspace_id=workspace_id, post_id=post_id, lock=True)
        post_deleted_emit(post, post.records.values_list("pk", flat=True))
        post.delete()
        post_counted(post, delta=-1)
