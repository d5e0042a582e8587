"""The approval gate (workspaces.md section 3): a post that requires approval goes out only as
the version that was approved.

A post's version is a hash of everything that would be sent: its content, variants and their
options, media, thread and first comment, and its targets with their times (a queued record's
time is "the queue", a recurring post's the series: the queue's reflow and the next occurrence
are the approved plan, not a change of it). Its records wait in `PendingApproval`, which the
scheduler never claims, until that version is approved; then they are `Scheduled` at their
times. A change to the version after a request makes the request `stale` and holds the records
again (`approval_gate`, run by every writer of a post's content or records, in its
transaction)."""

import hashlib
import json
from uuid import UUID

from django.utils import timezone

from accounts.models import Workspace
from notifications import events
from social.content import post_status_refresh
from social.models import (
    WAITING_STATUSES,
    ApprovalRequest,
    ApprovalStatus,
    Post,
    RecordStatus,
    ScheduledRecord,
)

# What of a post is sent (social.md sections 3 and 9): its version covers these.
VERSIONED = (
    "title",
    "content",
    "hashtags",
    "mentions",
    "link",
    "media_urls",
    "media_ids",
    "variants",
    "thread",
    "first_comment",
)


def approval_required(post: Post) -> bool:
    """Whether the post needs an approval: it asks for one, or its workspace does."""
    if post.requires_approval:
        return True
    if Post.workspace.is_cached(post):
        return post.workspace.approval_required
    return Workspace.objects.filter(pk=post.workspace_id, approval_required=True).exists()


def post_version(post: Post) -> str:
    """The hash of everything the post would send, and where and when (the module's
    docstring); its cancelled records are not targets."""
    records = (
        ScheduledRecord.objects.filter(post_id=post.pk)
        .exclude(status=RecordStatus.CANCELLED)
        .values_list("account_id", "queued", "series_id", "scheduled_time")
    )
    targets = sorted(
        {
            (
                str(account_id),
                "queue" if queued else f"series:{series_id}" if series_id else when.isoformat(),
            )
            for account_id, queued, series_id, when in records
        }
    )
    body = {name: getattr(post, name) for name in VERSIONED} | {"targets": targets}
    encoded = json.dumps(body, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(encoded.encode()).hexdigest()


def approved(post: Post, version: str | None = None) -> bool:
    """Whether the post may go out as it is: it needs no approval, or this version was
    approved."""
    if not approval_required(post):
        return True
    return bool(post.approved_version) and post.approved_version == (version or post_version(post))


def approved_for(post: Post, account_ids: list[UUID]) -> bool:
    """Whether the post may be published now to these accounts: it needs no approval, or its
    current version was approved and they are among its approved targets (publishing an
    approved post early is its members' call; a new target is not approved)."""
    if not approval_required(post):
        return True
    if not approved(post):
        return False
    targets = set(
        ScheduledRecord.objects.filter(post_id=post.pk)
        .exclude(status=RecordStatus.CANCELLED)
        .values_list("account_id", flat=True)
    )
    return set(account_ids) <= targets


def approval_gate(post_id: UUID) -> bool:
    """Hold the post's waiting records (`PendingApproval`) unless it may go out as it is, or
    release them (`Scheduled`, at their times) when it may; a request for another version is
    stale from now on (and an approved post's approval with it). Run inside the writer's
    transaction, after its change. Whether a record's status changed."""
    post = (
        Post.objects.select_for_update(of=("self",))
        .select_related("workspace")
        .filter(pk=post_id)
        .first()
    )
    if post is None:
        return False
    required = approval_required(post)
    version = post_version(post) if required else ""
    waiting = ScheduledRecord.objects.filter(post_id=post_id, status__in=WAITING_STATUSES)
    now = timezone.now()
    if not required or (post.approved_version and post.approved_version == version):
        changed = waiting.filter(status=RecordStatus.PENDING_APPROVAL).update(
            status=RecordStatus.SCHEDULED, updated_at=now
        )
    else:
        changed = waiting.filter(status=RecordStatus.SCHEDULED).update(
            status=RecordStatus.PENDING_APPROVAL, updated_at=now
        )
        changed += requests_stale(post, version)
    if changed:
        post_status_refresh(post_id, providers_changed=False)
    return bool(changed)


def requests_stale(post: Post, version: str) -> int:
    """Make the post's open requests (pending, or approved: the approval of another version)
    of another version stale, each told (`approval.stale`); the post's approval goes with
    them. How many."""
    stale = list(
        ApprovalRequest.objects.filter(
            post_id=post.pk, status__in=(ApprovalStatus.PENDING, ApprovalStatus.APPROVED)
        ).exclude(version=version)
    )
    if not stale and not post.approved_version:
        return 0
    ApprovalRequest.objects.filter(pk__in=[request.pk for request in stale]).update(
        status=ApprovalStatus.STALE
    )
    Post.objects.filter(pk=post.pk).update(
        approved_version="", approval=ApprovalStatus.STALE if stale else post.approval
    )
    post.approved_version = ""
    events.emit_many(
        items=[
            (
                post.user_id,
                events.approval_stale(
                    request_id=str(request.pk),
                    post_id=str(post.pk),
                    version=request.version,
                    current=version,
                ),
                post.workspace_id,
            )
            for request in stale
        ]
    )
    return len(stale) or 1


def approval_rule_changed(workspace: Workspace) -> None:
    """accounts' hook: the workspace now requires approval, or no longer does: each of its
    posts with waiting records is held or released accordingly."""
    posts = (
        ScheduledRecord.objects.filter(workspace_id=workspace.pk, status__in=WAITING_STATUSES)
        .values_list("post_id", flat=True)
        .distinct()
    )
    for post_id in list(posts):
        approval_gate(post_id)


def approval_gate_on_edit(emitted: list[events.Event]) -> None:
    """The event channel's subscriber to `post.updated`: an edit of a post's content runs
    its gate (the content room writes posts, and knows nothing of records)."""
    for post_id in dict.fromkeys(event.payload.data["postId"] for event in emitted):
        approval_gate(UUID(str(post_id)))
