"""A post's status derived from its records (social.md section 3): the counts per status kept
on the post, refreshed in the writer's transaction when records change, each change told to
the live feed (`post.changed`, with the post's records: social/output.py shows them); a
record's published parts."""

from collections.abc import Iterable
from typing import Any
from uuid import UUID

from django.db.models import Count, Q

from notifications import events
from social.lifecycle import posts_partially_published
from social.models import (
    OPEN_STATUSES,
    Post,
    PostStatus,
    RecordStatus,
    ScheduledRecord,
)


def providers_of(post: Post, record_providers: Iterable[str] = ()) -> str:
    """The networks a post is for and its records are on, as the `|a|b|` string its
    `providers` column filters by."""
    providers = sorted({*post.platforms, *record_providers})
    return f"|{'|'.join(providers)}|" if providers else ""


_COUNTS = {
    "total": Count("id", filter=~Q(status=RecordStatus.CANCELLED)),
    "open": Count("id", filter=Q(status__in=OPEN_STATUSES)),
    "pending": Count("id", filter=Q(status=RecordStatus.PENDING_APPROVAL)),
    "published": Count("id", filter=Q(status=RecordStatus.PUBLISHED)),
}


def _derived(counts: dict[str, int] | None, *, rejected: bool = False) -> str:
    """Draft with no records, Scheduled while any waits or publishes (or waits for its
    approval: a Draft again once its approval was refused), then Published,
    PartiallyPublished or Failed (cancelled records do not count)."""
    if not counts or not counts["total"]:
        return PostStatus.DRAFT
    if counts["open"]:
        return PostStatus.SCHEDULED
    if counts.get("pending"):
        return PostStatus.DRAFT if rejected else PostStatus.SCHEDULED
    if counts["published"] == counts["total"]:
        return PostStatus.PUBLISHED
    return PostStatus.PARTIALLY_PUBLISHED if counts["published"] else PostStatus.FAILED


PART_KEYS = ("index", "kind", "providerPostId", "url")


def record_parts(record: ScheduledRecord) -> list[dict[str, Any]]:
    """Each published part of the record, `[{index, kind, providerPostId, url}]`: those it
    stores (a thread, a first comment), or its one post once published."""
    if record.parts:
        return [{key: part.get(key) for key in PART_KEYS} for part in record.parts]
    if record.provider_post_id and record.status == RecordStatus.PUBLISHED:
        return [
            {
                "index": 0,
                "kind": "post",
                "providerPostId": record.provider_post_id,
                "url": record.url,
            }
        ]
    return []


def posts_live(post_ids: Iterable[UUID]) -> None:
    """`post.changed` for each of these posts, `{postId, status, scheduledRecords}` (the live
    feed's `post` event), in the caller's transaction (two reads for them all)."""
    ids = set(post_ids)
    if not ids:
        return
    records: dict[UUID, list[ScheduledRecord]] = {post_id: [] for post_id in ids}
    for record in ScheduledRecord.objects.filter(post_id__in=ids).order_by("created_at", "id"):
        records[record.post_id].append(record)
    posts = Post.objects.filter(pk__in=ids).only("id", "user_id", "workspace_id", "status")
    events.emit_many(
        items=[
            (
                post.user_id,
                events.post_changed(
                    post_id=str(post.pk), status=post.status, records=records[post.pk]
                ),
                post.workspace_id,
            )
            for post in posts
        ]
    )


def posts_records(records: Iterable[ScheduledRecord]) -> dict[UUID, list[ScheduledRecord]]:
    """Every record of the posts of these records, by post, in their order (created, id):
    these as they are in memory (just written by the caller), the posts' others read (one
    query; it finds nothing for posts with a single target)."""
    known = {record.pk: record for record in records}
    by_post: dict[UUID, list[ScheduledRecord]] = {}
    for record in known.values():
        by_post.setdefault(record.post_id, []).append(record)
    if not by_post:
        return by_post
    others = ScheduledRecord.objects.filter(post_id__any=list(by_post)).exclude(pk__any=list(known))
    for other in others:
        same = by_post[other.post_id]
        other.post = same[0].post  # the post as loaded with the known ones
        same.append(other)
    for same in by_post.values():
        same.sort(key=lambda record: (record.created_at, record.pk))
    return by_post


def posts_live_of(
    by_post: dict[UUID, list[ScheduledRecord]], *, statuses: dict[UUID, str] | None = None
) -> None:
    """posts_live for posts whose records are all in hand (posts_records), their post loaded
    (select_related): no read. `statuses`: the posts' statuses as just written (default: as
    loaded)."""
    items: list[events.Emitted] = []
    for post_id, records in by_post.items():
        post = records[0].post
        status = statuses[post_id] if statuses is not None else post.status
        items.append(
            (
                post.user_id,
                events.post_changed(post_id=str(post_id), status=status, records=records),
                post.workspace_id,
            )
        )
    events.emit_many(items=items)


def _counts(records: Iterable[ScheduledRecord]) -> dict[str, int]:
    """_COUNTS of records in hand."""
    counts = {"total": 0, "open": 0, "pending": 0, "published": 0}
    for record in records:
        if record.status == RecordStatus.CANCELLED:
            continue
        counts["total"] += 1
        counts["open"] += record.status in OPEN_STATUSES
        counts["pending"] += record.status == RecordStatus.PENDING_APPROVAL
        counts["published"] += record.status == RecordStatus.PUBLISHED
    return counts


def posts_outcome_refresh(records: Iterable[ScheduledRecord]) -> None:
    """post_status_refresh(providers_changed=False) for the posts of a batch of results, the
    records as just written (each with its post loaded): one read of the posts' other
    records, one UPDATE per status they end in (most often one), then their events."""
    by_post = posts_records(records)
    statuses = {post_id: _derived(_counts(same)) for post_id, same in by_post.items()}
    by_status: dict[str, list[UUID]] = {}
    for post_id, status in statuses.items():
        by_status.setdefault(status, []).append(post_id)
    for status, same in sorted(by_status.items()):
        if status == PostStatus.PARTIALLY_PUBLISHED:
            posts_partially_published(same, actor=events.SYSTEM)  # the platforms' answers
        Post.objects.filter(pk__any=same).update(status=status)
    posts_live_of(by_post, statuses=statuses)


def post_scheduled_fresh(post: Post, records: list[ScheduledRecord]) -> None:
    """post_status_refresh for a post made in this transaction with exactly these records, all
    waiting: everything is known, nothing is read again (one UPDATE, one event)."""
    post.status = PostStatus.SCHEDULED
    post.provider_set = providers_of(post, (record.provider for record in records))
    Post.objects.filter(pk=post.pk).update(status=post.status, provider_set=post.provider_set)
    events.emit_many(
        items=[
            (
                post.user_id,
                events.post_changed(
                    post_id=str(post.pk),
                    status=post.status,
                    records=records,
                ),
                post.workspace_id,
            )
        ]
    )


def _rejected(post_id: UUID) -> bool:
    """Whether the post's latest approval request was rejected (workspaces.md section 3)."""
    return Post.objects.filter(pk=post_id, approval="rejected").exists()


def post_status_refresh(post_id: UUID, *, providers_changed: bool = True) -> str | None:
    """Derive the post's status from its records (_derived). Call inside the transaction that
    changed a record."""
    counts = ScheduledRecord.objects.filter(post_id=post_id).aggregate(**_COUNTS)
    rejected = bool(counts["pending"]) and not counts["open"] and _rejected(post_id)
    status = _derived(counts, rejected=rejected)
    if status == PostStatus.PARTIALLY_PUBLISHED:
        posts_partially_published([post_id])
    if not providers_changed:  # a record's outcome: its target was counted when it was made
        if not Post.objects.filter(pk=post_id).update(status=status):
            return None
    else:
        post = Post.objects.filter(pk=post_id).only("platforms").first()
        if post is None:  # deleted meanwhile
            return None
        providers = ScheduledRecord.objects.filter(post_id=post_id).values_list(
            "provider", flat=True
        )
        Post.objects.filter(pk=post_id).update(
            status=status, provider_set=providers_of(post, providers)
        )
    posts_live([post_id])
    return status
