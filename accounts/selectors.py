"""Reads on users, their API keys, workspaces, members and invitations."""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from uuid import UUID

from django.db.models import Count, Q, QuerySet
from django.db.models.functions import Lower
from django.utils import timezone

from accounts.errors import WorkspaceNotFound
from accounts.models import (
    API_KEY_PREFIX,
    ApiKey,
    Invitation,
    Membership,
    User,
    Workspace,
    WorkspaceRole,
    api_key_hash,
    email_key,
)
from accounts.roles import Action, permission_check, roles_allowed

# What a key looks like: the prefix, then 40 URL-safe base64 characters (32 to 64 accepted,
# so a future length still parses); anything else is refused before the database is asked.
API_KEY_SHAPE = re.compile(rf"{re.escape(API_KEY_PREFIX)}[A-Za-z0-9_-]{{32,64}}")


def user_get_by_email(*, email: str) -> User | None:
    """Case-insensitive, through Lower() so the unique functional index serves it."""
    return (
        User.objects.alias(email_lower=Lower("email")).filter(email_lower=email_key(email)).first()
    )


@dataclass(frozen=True, slots=True)
class Standing:
    """What decides whether an active user's session tokens still work: the version every
    token carries, and the sessions revoked one by one (`sid` -> when)."""

    token_version: int
    revoked_sessions: dict[str, Any]


def users_standing(*, user_ids: Iterable[UUID | str]) -> dict[str, Standing]:
    """The standing of those of these users who are active (one query), by user id as text;
    an inactive, erased or unknown user is absent."""
    rows = User.objects.filter(pk__in=list(user_ids), is_active=True).values_list(
        "pk", "token_version", "revoked_sessions"
    )
    return {str(pk): Standing(version, revoked or {}) for pk, version, revoked in rows}


def users_workspaces(*, user_ids: Iterable[UUID | str]) -> dict[str, frozenset[str]]:
    """The workspaces each of these users reads (a member whose role may read its data: not
    a client, who sees only what is sent to them), in one query, ids as text, by user id as
    text; a user with none is absent."""
    found: dict[str, set[str]] = {}
    rows = Membership.objects.filter(
        user_id__in=list(user_ids), role__in=roles_allowed(Action.READ)
    ).values_list("user_id", "workspace_id")
    for user_id, workspace_id in rows:
        found.setdefault(str(user_id), set()).add(str(workspace_id))
    return {user_id: frozenset(workspaces) for user_id, workspaces in found.items()}


def api_key_list(*, actor: Membership) -> QuerySet[ApiKey]:
    """The actor's keys of the actor's workspace that are not revoked, expired ones included
    (shown as expired). Any member sees their own: one demoted below `manage` still holds the
    keys made before, and must be able to find and revoke them (docs/workspaces.md)."""
    return ApiKey.objects.filter(
        user_id=actor.user_id, workspace_id=actor.workspace_id, revoked_at__isnull=True
    )


def api_keys_live(*, user: User, at: datetime | None = None) -> QuerySet[ApiKey]:
    """The user's keys that work, in every workspace: neither revoked nor expired (what the
    per-user limit counts)."""
    now = at or timezone.now()
    return ApiKey.objects.filter(user=user, revoked_at__isnull=True).filter(
        Q(expires_at__isnull=True) | Q(expires_at__gt=now)
    )


def api_key_get_by_secret(*, secret: str) -> ApiKey | None:
    """The live key `secret` is, with its active owner (one query, by the hash's unique
    index); None for a key that is malformed, unknown, revoked, expired or whose owner is
    inactive or erased."""
    if not API_KEY_SHAPE.fullmatch(secret):
        return None
    key = (
        ApiKey.objects.select_related("user")
        .filter(key_hash=api_key_hash(secret), revoked_at__isnull=True)
        .first()
    )
    if key is None or not key.is_live() or not key.user.is_active or key.user.erased_at:
        return None
    return key


# --- Workspaces ------------------------------------------------------------------------------


def workspace_memberships(*, user: User) -> QuerySet[Membership]:
    """The user's memberships with their workspace and its `members_count` (one query): what
    `GET /api/workspaces` lists, a workspace as its member sees it."""
    return (
        Membership.objects.filter(user=user)
        .select_related("workspace")
        .annotate(members_count=Count("workspace__memberships"))
    )


def membership_get(*, user: User, workspace_id: UUID | str) -> Membership:
    """The user's membership of this workspace, with the workspace; 404 `workspace_not_found`
    for a workspace that does not exist, one the user is not a member of, or a malformed id
    (one answer for all three: a workspace's existence is never revealed)."""
    try:
        wanted = workspace_id if isinstance(workspace_id, UUID) else UUID(str(workspace_id))
    except ValueError:
        raise WorkspaceNotFound() from None
    membership = (
        Membership.objects.select_related("workspace")
        .filter(user=user, workspace_id=wanted)
        .first()
    )
    if membership is None:
        raise WorkspaceNotFound()
    return membership


def personal_membership(*, user: User) -> Membership | None:
    """The user's membership of their personal workspace (None for a user made outside the
    services, who has none yet). A user loaded with their personal workspace (a signed-in
    request's: accounts.authentication) costs no query: its user is its one member, always
    its owner."""
    if User.personal_workspace.is_cached(user):
        workspace = getattr(user, "personal_workspace", None)
        if workspace is not None:
            return Membership(
                workspace=workspace,
                user=user,
                role=WorkspaceRole.OWNER,
                joined_at=workspace.created_at,
            )
    return (
        Membership.objects.select_related("workspace")
        .filter(user=user, workspace__personal_user=user)
        .first()
    )


def member_list(*, actor: Membership) -> QuerySet[Membership]:
    """The members of the actor's workspace, for those whose role may see the team."""
    permission_check(role=actor.role, action=Action.MEMBERS_READ)
    return Membership.objects.filter(workspace_id=actor.workspace_id).select_related("user")


def member_ids_who_may(*, workspace_id: UUID, action: Action) -> list[UUID]:
    """The members of the workspace whose role may do `action` (the roles' table: those who
    may when named are not counted), e.g. who is told when its webhook endpoint is disabled."""
    return list(
        Membership.objects.filter(
            workspace_id=workspace_id, role__in=roles_allowed(action)
        ).values_list("user_id", flat=True)
    )


def members_count(*, workspace_id: UUID) -> int:
    return Membership.objects.filter(workspace_id=workspace_id).count()


def owners_count(*, workspace: Workspace) -> int:
    return Membership.objects.filter(workspace=workspace, role=WorkspaceRole.OWNER).count()


def owned_workspaces_count(*, user: User) -> int:
    """Shared workspaces the user owns (the personal one is not counted: WORKSPACES_PER_USER)."""
    return Membership.objects.filter(
        user=user, role=WorkspaceRole.OWNER, workspace__personal=False
    ).count()


def invitations_pending(
    *, workspace: Workspace, at: datetime | None = None
) -> QuerySet[Invitation]:
    """Invitations neither accepted, revoked nor expired."""
    return invitations_open(workspace=workspace).filter(expires_at__gt=at or timezone.now())


def invitations_open(*, workspace: Workspace) -> QuerySet[Invitation]:
    """Invitations neither accepted nor revoked, expired ones included (listed until revoked,
    their `expires_at` in the past, as API keys are)."""
    return Invitation.objects.filter(
        workspace=workspace, accepted_at__isnull=True, revoked_at__isnull=True
    ).select_related("invited_by")


def invitation_list(*, actor: Membership) -> QuerySet[Invitation]:
    """The open invitations of the actor's workspace, for those who manage its members."""
    permission_check(role=actor.role, action=Action.MEMBERS)
    return invitations_open(workspace=actor.workspace)


def seats_taken(*, workspace: Workspace) -> int:
    """Members plus pending invitations: what the per-workspace limit counts."""
    return Membership.objects.filter(workspace=workspace).count() + (
        invitations_pending(workspace=workspace).count()
    )


def is_member_email(*, workspace: Workspace, email: str) -> bool:
    """Whether a member of the workspace has this address (matched as logins are)."""
    return (
        Membership.objects.filter(workspace=workspace)
        .alias(email_lower=Lower("user__email"))
        .filter(email_lower=email_key(email))
        .exists()
    )
