"""Share links (workspaces.md section 4): an owner or admin shares the workspace's calendar or
its report with whoever holds the link, with no account. A link's token is 32 random bytes,
shown once, when it is made; only its SHA-256 is kept, as an approval link's. A revoked or
expired link opens nothing (410 `share_link_closed`); an unknown token, or one of the other
kind, is 404."""

import hashlib
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import Membership, Workspace
from accounts.roles import Action, permission_check
from core.errors import ValidationFailed
from social.errors import ShareLinkClosed, ShareLinkLimit, ShareLinkNotFound
from social.models import ShareKind, ShareLink

TOKEN_BYTES = 32
MAX_OPEN_LINKS = ShareLinkLimit.limit  # per workspace: links neither revoked nor expired
LAST_USED_EVERY = timedelta(minutes=1)  # `last_used_at` is written at most this often


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def share_url(kind: str, token: str) -> str:
    """What the link opens, at the API's public address (PUBLIC_URL), never the request's
    Host: a calendar's iCalendar feed (what a calendar app subscribes to), a report's JSON
    (`?format=pdf` or `csv` for a document)."""
    base = f"{settings.PUBLIC_URL}/api/public"
    return (
        f"{base}/calendar/{token}.ics" if kind == ShareKind.CALENDAR else f"{base}/reports/{token}"
    )


@dataclass(frozen=True, slots=True)
class Shared:
    """A new link and its token (shown once)."""

    link: ShareLink
    token: str
    url: str


def share_link_create(
    *, actor: Membership, kind: str, expires_at: datetime | None = None
) -> Shared:
    """A new link to the actor's workspace's calendar or report (owners, admins). A time of
    expiry must be to come (else 400 naming `expiresAt`); none: until revoked. At most
    MAX_OPEN_LINKS open at once (409 `share_link_limit`)."""
    permission_check(role=actor.role, action=Action.SHARE)
    now = timezone.now()
    if expires_at is not None and expires_at <= now:
        raise ValidationFailed(details={"expiresAt": ["Must be in the future."]})
    with transaction.atomic():
        if _open_links(actor.workspace_id, now, lock=True) >= MAX_OPEN_LINKS:
            raise ShareLinkLimit()
        token = secrets.token_urlsafe(TOKEN_BYTES)
        link = ShareLink.objects.create(
            workspace_id=actor.workspace_id,
            kind=kind,
            token_hash=token_hash(token),
            created_by_id=actor.user_id,
            created_at=now,
            expires_at=expires_at,
        )
    return Shared(link=link, token=token, url=share_url(kind, token))


def _open_links(workspace_id: UUID, now: datetime, *, lock: bool) -> int:
    if lock:  # two links made at once count each other: the workspace's row is the lock
        list(Workspace.objects.select_for_update().filter(pk=workspace_id).values_list("pk"))
    return (
        ShareLink.objects.filter(workspace_id=workspace_id, revoked_at__isnull=True)
        .exclude(expires_at__lte=now)
        .count()
    )


def share_links_of(*, actor: Membership) -> list[ShareLink]:
    """The workspace's links, newest first, revoked and expired ones included (owners,
    admins); their tokens are never shown again."""
    permission_check(role=actor.role, action=Action.SHARE)
    return list(ShareLink.objects.filter(workspace_id=actor.workspace_id).order_by("-created_at"))


def share_link_revoke(*, actor: Membership, link_id: UUID) -> ShareLink:
    """Close a link at once (owners, admins); revoking a revoked one changes nothing. Another
    workspace's, or none: 404."""
    permission_check(role=actor.role, action=Action.SHARE)
    with transaction.atomic():
        link = (
            ShareLink.objects.select_for_update()
            .filter(pk=link_id, workspace_id=actor.workspace_id)
            .first()
        )
        if link is None:
            raise ShareLinkNotFound()
        if link.revoked_at is None:
            link.revoked_at = timezone.now()
            link.save(update_fields=["revoked_at"])
    return link


def share_link_status(link: ShareLink, now: datetime | None = None) -> str:
    """`open`, `revoked` or `expired`."""
    if link.revoked_at is not None:
        return "revoked"
    return "open" if link.open_at(now or timezone.now()) else "expired"


def share_link_open(*, token: str, kind: str) -> ShareLink:
    """The open link this token is, of this kind, with its workspace: an unknown token, or a
    link of the other kind, 404; a revoked or expired one, 410 `share_link_closed`."""
    link = (
        ShareLink.objects.select_related("workspace")
        .filter(token_hash=token_hash(token), kind=kind)
        .first()
    )
    if link is None:
        raise ShareLinkNotFound()
    now = timezone.now()
    if not link.open_at(now):
        raise ShareLinkClosed()
    if link.last_used_at is None or link.last_used_at < now - LAST_USED_EVERY:
        ShareLink.objects.filter(pk=link.pk).update(last_used_at=now)
    return link
