"""Invitations to a workspace by e-mail: a single-use link that only the invited address can
accept, stored only as a hash, INVITATION_TTL_DAYS long (docs/workspaces.md)."""

import hashlib
import secrets
from datetime import timedelta
from urllib.parse import urlencode
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts import hooks
from accounts.errors import (
    AlreadyMember,
    InvalidInvitation,
    InvitationEmailMismatch,
    InvitationNotFound,
    MemberLimitReached,
    PersonalWorkspace,
)
from accounts.models import Invitation, Membership, User, Workspace, WorkspaceRole, email_key
from accounts.roles import Action, may, permission_check
from accounts.selectors import invitations_open, is_member_email, seats_taken
from core import ratelimit
from core.errors import RateLimitedError
from core.tasks import enqueue_on_commit

TOKEN_BYTES = 32
MEMBERS_MAX = 100  # members plus pending invitations, per workspace (workspaces.md section 2)
# Invitations one member may send per hour, over all workspaces: each one is an e-mail to an
# address of the member's choosing.
INVITATIONS_PER_HOUR = 50
INVITATION_WINDOW_SECONDS = 3600


def invitation_token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def invitation_url(token: str) -> str:
    # Built from APP_URL only, as the magic link is: the Host header is the client's.
    return f"{settings.APP_URL}/invite?{urlencode({'token': token})}"


def _check_may_invite(actor: Membership, role: str) -> None:
    permission_check(role=actor.role, action=Action.MEMBERS)
    if role == WorkspaceRole.OWNER:
        permission_check(role=actor.role, action=Action.OWN)


def invitation_create(*, actor: Membership, email: str, role: str) -> tuple[Invitation, str]:
    """Invite `email` into the actor's workspace with `role`; returns the invitation and its
    link, e-mailed once the transaction commits. Inviting an address again replaces its open
    invitation (the earlier link stops working). Owners and admins; the owner role, only
    owners. Never into a personal workspace; at most MEMBERS_MAX members and pending ones."""
    from accounts.tasks import send_invitation_email_task

    _check_may_invite(actor, role)
    workspace = actor.workspace
    if workspace.personal:
        raise PersonalWorkspace()
    address = email_key(email)
    window = ratelimit.hit(
        f"invitations-by:{actor.user_id}",
        limit=INVITATIONS_PER_HOUR,
        period=INVITATION_WINDOW_SECONDS,
    )
    if window.exceeded:
        raise RateLimitedError(
            "Too many invitations sent. Try again later.", retry_after=window.reset
        )
    token = secrets.token_urlsafe(TOKEN_BYTES)
    now = timezone.now()
    with transaction.atomic():
        Workspace.objects.select_for_update().filter(pk=workspace.pk).exists()
        if is_member_email(workspace=workspace, email=address):
            raise AlreadyMember()
        invitations_open(workspace=workspace).filter(email=address).update(revoked_at=now)
        if seats_taken(workspace=workspace) >= MEMBERS_MAX:
            raise MemberLimitReached(details={"limit": MEMBERS_MAX})
        invitation = Invitation.objects.create(
            workspace=workspace,
            email=address,
            role=role,
            token_hash=invitation_token_hash(token),
            invited_by_id=actor.user_id,
            created_at=now,
            expires_at=now + timedelta(days=settings.INVITATION_TTL_DAYS),
        )
        url = invitation_url(token)
        enqueue_on_commit(send_invitation_email_task, invitation_id=str(invitation.pk), url=url)
    return invitation, url


def invitation_revoke(*, actor: Membership, invitation_id: UUID) -> None:
    """Revoke an open invitation: its link stops working at once. An owner's invitation,
    only owners."""
    permission_check(role=actor.role, action=Action.MEMBERS)
    invitation = invitations_open(workspace=actor.workspace).filter(pk=invitation_id).first()
    if invitation is None:
        raise InvitationNotFound()
    _check_may_invite(actor, invitation.role)
    revoked = Invitation.objects.filter(
        pk=invitation.pk, accepted_at__isnull=True, revoked_at__isnull=True
    ).update(revoked_at=timezone.now())
    if revoked != 1:  # accepted or revoked meanwhile
        raise InvitationNotFound()


def invitation_accept(*, user: User, token: str) -> Membership:
    """Join the invitation's workspace as the signed-in `user`, whose e-mail must be the
    invited one (compared as logins are). Spent in one conditional UPDATE: of two acceptances
    at once, one wins. Used, revoked, expired or unknown: 400 `invalid_invitation`; another
    address's: 403 `invitation_email_mismatch`, and the invitation stays usable."""
    now = timezone.now()
    invitation = (
        Invitation.objects.select_related("workspace")
        .filter(token_hash=invitation_token_hash(token))
        .first()
    )
    if invitation is None or not invitation.is_pending(at=now):
        raise InvalidInvitation()
    if email_key(user.email) != invitation.email:
        raise InvitationEmailMismatch()
    with transaction.atomic():
        if Membership.objects.filter(workspace=invitation.workspace, user=user).exists():
            raise AlreadyMember()
        spent = Invitation.objects.filter(
            pk=invitation.pk, accepted_at__isnull=True, revoked_at__isnull=True, expires_at__gt=now
        ).update(accepted_at=now)
        if spent != 1:
            raise InvalidInvitation()
        membership = Membership.objects.create(
            workspace=invitation.workspace, user=user, role=invitation.role, joined_at=now
        )
        hooks.membership_changed(
            user.pk, invitation.workspace_id, reads=may(role=invitation.role, action=Action.READ)
        )
        return membership
