"""Approval requests and their decisions (workspaces.md section 3): a member asks named members,
or the workspace's owners and admins, and clients by e-mail, to approve the post's version;
one decision closes the request. Clients answer through a link of their own (32 random bytes,
only its SHA-256 kept), with no account."""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlencode
from uuid import UUID

from django.conf import settings
from django.core.mail import EmailMultiAlternatives
from django.db import transaction
from django.template.loader import render_to_string
from django.utils import timezone

from accounts.models import Membership, User, email_key
from accounts.roles import Action, may, permission_check
from core import ratelimit
from core.errors import RateLimitedError, ValidationFailed
from core.tasks import enqueue_on_commit, task_named
from notifications import events
from social.content import comment_add, post_status_refresh, workspace_post
from social.errors import ApprovalClosed, ApprovalNotFound, ApprovalStale, NothingToApprove
from social.models import (
    ApprovalClient,
    ApprovalRequest,
    ApprovalStatus,
    CommentAuthor,
    Post,
    PostComment,
)
from social.planning.services.approvals import approval_gate, post_version

TOKEN_BYTES = 32
MAX_CLIENTS = 10
CLIENT_EMAILS_PER_HOUR = 100  # per member: each is an e-mail to an address of their choosing
EMAIL_TASK = "social.tasks.approval_email_task"


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def approve_url(token: str) -> str:
    # Built from APP_URL only, as the magic link is: the Host header is the client's.
    return f"{settings.APP_URL}/approve?{urlencode({'token': token})}"


@dataclass(frozen=True, slots=True)
class Asked:
    """A new request and each client's link (shown once, while magic-link URLs are)."""

    request: ApprovalRequest
    urls: dict[str, str]  # client e-mail -> link


def approval_request(
    *,
    actor: Membership,
    post_id: UUID,
    approver_ids: list[UUID] | None = None,
    client_emails: list[str] | None = None,
    message: str = "",
) -> Asked:
    """Ask for the post's current version to be approved, by the members named (who must be
    members who may approve when named; else 400 naming `approverIds`) or, without any, by
    the owners and admins, and by these clients through links e-mailed once this commits.
    Asking makes the post one that requires approval; a request still open for it is stale
    from now on. 409 `nothing_to_approve` when this version is approved already."""
    permission_check(role=actor.role, action=Action.WRITE)
    emails = list(dict.fromkeys(email_key(email) for email in client_emails or ()))
    if len(emails) > MAX_CLIENTS:
        raise ValidationFailed(details={"clientEmails": [f"At most {MAX_CLIENTS} addresses."]})
    if emails:
        window = ratelimit.hit(
            f"approval-emails-by:{actor.user_id}", limit=CLIENT_EMAILS_PER_HOUR, period=3600
        )
        if window.exceeded:
            raise RateLimitedError(
                "Too many approval e-mails sent. Try again later.", retry_after=window.reset
            )
    approvers = _approvers(actor.workspace_id, approver_ids or [])
    now = timezone.now()
    with transaction.atomic():
        post = workspace_post(workspace_id=actor.workspace_id, post_id=post_id, lock=True)
        version = post_version(post)
        if post.approved_version == version:
            raise NothingToApprove()
        open_ones = ApprovalRequest.objects.filter(post=post, status=ApprovalStatus.PENDING)
        _stale(post, list(open_ones), version)  # superseded by this one
        request = ApprovalRequest.objects.create(
            workspace_id=actor.workspace_id,
            post=post,
            version=version,
            message=message,
            requested_by_id=actor.user_id,
            approver_ids=approvers,
            created_at=now,
            expires_at=now + timedelta(days=settings.APPROVAL_TTL_DAYS),
        )
        urls = {}
        for email in emails:
            token = secrets.token_urlsafe(TOKEN_BYTES)
            client = ApprovalClient.objects.create(
                request=request, email=email, token_hash=token_hash(token)
            )
            urls[email] = approve_url(token)
            enqueue_on_commit(task_named(EMAIL_TASK), client_id=str(client.pk), url=urls[email])
        Post.objects.filter(pk=post.pk).update(
            requires_approval=True, approval=ApprovalStatus.PENDING
        )
        approval_gate(post.pk)  # its waiting records wait for the decision
        events.emit(
            user=post.user_id,
            workspace=post.workspace_id,
            payload=events.approval_requested(
                request_id=str(request.pk),
                post_id=str(post.pk),
                version=version,
                approver_ids=approvers,
                client_count=len(emails),
                message=message,
                expires_at=request.expires_at,
                context={"asked": approvers or _deciders(actor.workspace_id)},
            ),
        )
    return Asked(request=request, urls=urls)


def _approvers(workspace_id: UUID, approver_ids: list[UUID]) -> list[str]:
    """The named approvers, each a member who may approve when named; else 400."""
    wanted = list(dict.fromkeys(str(user_id) for user_id in approver_ids))
    if not wanted:
        return []
    roles = dict(
        Membership.objects.filter(workspace_id=workspace_id, user_id__in=wanted).values_list(
            "user_id", "role"
        )
    )
    refused = [
        user_id
        for user_id in wanted
        if not may(role=roles.get(UUID(user_id), ""), action=Action.APPROVE, named=True)
    ]
    if refused:
        raise ValidationFailed(
            details={"approverIds": [f"Not a member who may approve: {', '.join(refused)}."]}
        )
    return wanted


def _deciders(workspace_id: UUID) -> list[str]:
    """The owners and admins: who decides a request that names no one."""
    return [
        str(user_id)
        for user_id, role in Membership.objects.filter(workspace_id=workspace_id).values_list(
            "user_id", "role"
        )
        if may(role=role, action=Action.APPROVE)
    ]


def _stale(post: Post, requests: list[ApprovalRequest], version: str) -> None:
    if not requests:
        return
    ApprovalRequest.objects.filter(pk__in=[r.pk for r in requests]).update(
        status=ApprovalStatus.STALE
    )
    events.emit_many(
        items=[
            (
                post.user_id,
                events.approval_stale(
                    request_id=str(r.pk), post_id=str(post.pk), version=r.version, current=version
                ),
                post.workspace_id,
            )
            for r in requests
        ]
    )


# --- Decisions --------------------------------------------------------------------------------


def approval_decide_as_member(
    *, actor: Membership, request_id: UUID, approve: bool, comment: str = ""
) -> ApprovalRequest:
    """A member's decision: one named in the request, or, when it names no one, an owner or
    admin. Anyone else, and another workspace's request: 404."""
    with transaction.atomic():
        request = (
            ApprovalRequest.objects.select_for_update()
            .filter(pk=request_id, workspace_id=actor.workspace_id)
            .first()
        )
        if request is None:
            raise ApprovalNotFound()
        named = str(actor.user_id) in request.approver_ids
        asked = named if request.approver_ids else may(role=actor.role, action=Action.APPROVE)
        if not asked:
            raise ApprovalNotFound()
        who = events.user_actor(actor.user_id)
        return _decide(request, approve, comment, who, author=actor.user)


def approval_client(*, token: str) -> ApprovalClient:
    """The client a link is for, with its request and post; an unknown token: 404."""
    client = (
        ApprovalClient.objects.select_related("request__post", "request__workspace")
        .filter(token_hash=token_hash(token))
        .first()
    )
    if client is None:
        raise ApprovalNotFound()
    return client


def approval_open(request: ApprovalRequest, *, now: Any = None) -> bool:
    return request.status == ApprovalStatus.PENDING and request.expires_at > (now or timezone.now())


def approval_decide_as_client(
    *, token: str, approve: bool, comment: str = "", name: str = ""
) -> ApprovalRequest:
    """A client's decision through their link: once; 410 `approval_closed` when the request
    was decided, went stale or expired."""
    with transaction.atomic():
        client = approval_client(token=token)
        request = ApprovalRequest.objects.select_for_update().get(pk=client.request_id)
        if client.status != ApprovalStatus.PENDING or not approval_open(request):
            raise ApprovalClosed()
        signed = (name or "").strip()[:120] or client.email
        decided = _decide(
            request, approve, comment, events.client_actor(signed), client_name=signed
        )
        ApprovalClient.objects.filter(pk=client.pk).update(
            status=decided.status, name=signed, decided_at=decided.decided_at
        )
        return decided


def _decide(
    request: ApprovalRequest,
    approve: bool,
    comment: str,
    who: events.Actor,
    *,
    author: User | None = None,
    client_name: str = "",
) -> ApprovalRequest:
    """Close the request (locked by the caller): an approval releases the post's records at
    their times; a rejection makes it a draft again, its comment one of the post's."""
    now = timezone.now()
    if request.status == ApprovalStatus.STALE:
        raise ApprovalStale()
    if not approval_open(request, now=now):
        raise ApprovalClosed()
    post = Post.objects.select_for_update().get(pk=request.post_id)
    if post_version(post) != request.version:  # changed behind the gate's back
        raise ApprovalStale()
    request.status = ApprovalStatus.APPROVED if approve else ApprovalStatus.REJECTED
    request.decided_at, request.decided_by, request.comment = now, dict(who), comment
    request.save(update_fields=["status", "decided_at", "decided_by", "comment"])
    Post.objects.filter(pk=post.pk).update(
        approval=request.status, approved_version=request.version if approve else ""
    )
    if comment:
        comment_add(
            post=post,
            author_type=CommentAuthor.CLIENT if client_name else CommentAuthor.MEMBER,
            author=author,
            author_name=client_name,
            body=comment,
        )
    if approve:
        approval_gate(post.pk)
    else:
        post_status_refresh(post.pk, providers_changed=False)  # a draft again
    events.emit(
        user=post.user_id,
        workspace=post.workspace_id,
        actor=who,
        payload=events.approval_decided(
            approved=approve,
            request_id=str(request.pk),
            post_id=str(post.pk),
            version=request.version,
            comment=comment,
            context={"requested_by": str(request.requested_by_id or "")},
        ),
    )
    return request


def approval_email_send(*, client_id: str, url: str) -> bool:
    """The client's e-mail with their link; nothing once the request is closed (decided,
    stale, expired) before the worker got to it. Whether it was sent."""
    client = (
        ApprovalClient.objects.select_related("request__workspace", "request__requested_by")
        .filter(pk=client_id, status=ApprovalStatus.PENDING)
        .first()
    )
    if client is None or not approval_open(client.request):
        return False
    request = client.request
    requester = request.requested_by
    context = {
        "url": url,
        "workspace": request.workspace.name,
        "requester": (requester.full_name or "A member") if requester else "A member",
        "message": request.message,
        "days": settings.APPROVAL_TTL_DAYS,
    }
    message = EmailMultiAlternatives(
        subject=f"Approve a post for {request.workspace.name}",
        body=render_to_string("social/email/approval.txt", context),
        to=[client.email],
    )
    message.attach_alternative(render_to_string("social/email/approval.html", context), "text/html")
    message.send()
    return True


def approval_comment_as_client(*, token: str, body: str, name: str = "") -> PostComment:
    """A client's comment on the post through their link, while the request is open (410
    `approval_closed` after)."""
    with transaction.atomic():
        client = approval_client(token=token)
        if client.status != ApprovalStatus.PENDING or not approval_open(client.request):
            raise ApprovalClosed()
        signed = (name or "").strip()[:120] or client.name or client.email
        return comment_add(
            post=client.request.post,
            author_type=CommentAuthor.CLIENT,
            author=None,
            author_name=signed,
            body=body,
        )
