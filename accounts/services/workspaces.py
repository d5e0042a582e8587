"""Writes on workspaces: the personal one made with every user, shared ones created, changed
and deleted; the workspace a request acts in; what an erasure and a takeover do to them."""

from uuid import UUID

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts import hooks
from accounts.errors import PermissionRefused, PersonalWorkspace, WorkspaceLimitReached
from accounts.models import (
    PERSONAL_WORKSPACE_NAME,
    Invitation,
    Membership,
    User,
    Workspace,
    WorkspaceRole,
    email_key,
)
from accounts.roles import Action, permission_check
from accounts.selectors import (
    membership_get,
    owned_workspaces_count,
    owners_count,
    personal_membership,
)

KEY_BOUND_MESSAGE = "This API key works only in the workspace it was made in."


def workspace_personal_create(*, user: User) -> Membership:
    """The user's personal workspace, the user its owner: made by user_create in the
    transaction that makes the user."""
    workspace = Workspace.objects.create(
        name=PERSONAL_WORKSPACE_NAME, personal=True, personal_user=user
    )
    return Membership.objects.create(
        workspace=workspace, user=user, role=WorkspaceRole.OWNER, joined_at=workspace.created_at
    )


def workspace_personal(*, user: User) -> Membership:
    """The user's membership of their personal workspace. Every way of making a user makes
    it; one made around the services (a raw manager call in a shell) gets it here, on first
    use, safely when two requests ask at once (the database keeps one per user)."""
    membership = personal_membership(user=user)
    if membership is not None:
        return membership
    try:
        with transaction.atomic():
            return workspace_personal_create(user=user)
    except IntegrityError:
        membership = personal_membership(user=user)
        if membership is None:
            raise
        return membership


def workspace_resolve(
    *, user: User, requested: str | None, bound: UUID | None = None
) -> Membership:
    """The workspace a request acts in, as the caller's membership of it (`.workspace`).

    `requested` is the `X-Workspace-Id` header as sent (absent or blank: the personal
    workspace); a malformed id, or a workspace the caller is not a member of, is 404
    `workspace_not_found`. `bound` is the workspace the credential belongs to (an API key's):
    the request always acts in it, and naming another one is 403 `permission_denied`.
    """
    wanted = (requested or "").strip()
    if bound is not None:
        if wanted and not _names(wanted, bound):
            raise PermissionRefused(KEY_BOUND_MESSAGE, details={"workspaceId": str(bound)})
        return membership_get(user=user, workspace_id=bound)
    if not wanted:
        return workspace_personal(user=user)
    return membership_get(user=user, workspace_id=wanted)


def _names(header: str, workspace_id: UUID) -> bool:
    try:
        return UUID(header) == workspace_id
    except ValueError:
        return False


@transaction.atomic
def workspace_create(*, user: User, name: str) -> Membership:
    """A shared workspace, the user its owner. The user's row is locked while the workspaces
    they own are counted, so two creations at once cannot both take the last place."""
    User.objects.select_for_update().filter(pk=user.pk).exists()
    limit = settings.WORKSPACES_PER_USER
    if owned_workspaces_count(user=user) >= limit:
        raise WorkspaceLimitReached(details={"limit": limit})
    workspace = Workspace.objects.create(name=name)
    membership = Membership.objects.create(
        workspace=workspace, user=user, role=WorkspaceRole.OWNER, joined_at=workspace.created_at
    )
    hooks.membership_changed(user.pk, workspace.pk, reads=True)
    return membership


def workspace_update(
    *, actor: Membership, name: str | None = None, approval_required: bool | None = None
) -> Membership:
    """Rename a workspace or change whether its posts need approval (its settings: owners and
    admins). Returns the actor's membership, its workspace changed."""
    permission_check(role=actor.role, action=Action.MANAGE)
    workspace = actor.workspace
    changed = []
    if name is not None and name != workspace.name:
        workspace.name = name
        changed.append("name")
    if approval_required is not None and approval_required != workspace.approval_required:
        workspace.approval_required = approval_required
        changed.append("approval_required")
    if changed:
        with transaction.atomic():
            workspace.save(update_fields=changed)
            if "approval_required" in changed:
                hooks.workspace_rules_changed(workspace)
    return actor


def workspace_delete_as(*, actor: Membership) -> None:
    """`DELETE /api/workspaces/{id}`: owners only, never the personal workspace."""
    permission_check(role=actor.role, action=Action.OWN)
    if actor.workspace.personal:
        raise PersonalWorkspace()
    workspace_delete(workspace=actor.workspace)


@transaction.atomic
def workspace_delete(*, workspace: Workspace) -> None:
    """Remove a workspace with everything it holds: first what other apps keep of it (their
    `on_workspace_deleting` hooks), then its invitations and memberships, then itself."""
    Workspace.objects.select_for_update().filter(pk=workspace.pk).exists()
    hooks.workspace_deleting(workspace)
    Invitation.objects.filter(workspace=workspace).delete()
    members = Membership.objects.filter(workspace=workspace)
    for user_id in members.values_list("user_id", flat=True):
        hooks.membership_changed(user_id, workspace.pk, reads=False)
    members.delete()
    Workspace.objects.filter(pk=workspace.pk).delete()


def workspaces_erase(user: User) -> list[str] | None:
    """A user's erasure (accounts.hooks registry): their personal workspace goes with all it
    holds; so does each shared workspace they are the last owner of; from the others they are
    removed and those keep running under their other owners. Invitations they sent stay, with
    no sender; those sent to their address go."""
    removed: list[str] = []
    memberships = Membership.objects.filter(user=user).select_related("workspace")
    for membership in memberships.order_by("joined_at", "pk"):
        workspace = membership.workspace
        if workspace.personal_user_id == user.pk or _last_owner(membership):
            workspace_delete(workspace=workspace)
            removed.append(f"workspace {workspace.name}")
        else:
            membership.delete()
            hooks.membership_changed(user.pk, workspace.pk, reads=False)
    for workspace in Workspace.objects.filter(personal_user=user):  # one without its member
        workspace_delete(workspace=workspace)
    Invitation.objects.filter(invited_by=user).update(invited_by=None)
    Invitation.objects.filter(email=email_key(user.email)).delete()
    return removed or None


def _last_owner(membership: Membership) -> bool:
    """Whether this member is its workspace's only owner (the workspace row locked first, so
    two owners erased at once cannot each leave the other the last)."""
    if membership.role != WorkspaceRole.OWNER:
        return False
    Workspace.objects.select_for_update().filter(pk=membership.workspace_id).exists()
    return owners_count(workspace=membership.workspace) <= 1


def invitations_revoke_sent(user: User) -> list[str] | None:
    """A takeover (accounts.hooks registry): the pending invitations the account sent are
    revoked, since they would let someone in whom the address's owner never invited. Its
    memberships stay: the owner sees every member and can remove them."""
    revoked = Invitation.objects.filter(
        invited_by=user, accepted_at__isnull=True, revoked_at__isnull=True
    ).update(revoked_at=timezone.now())
    return [f"{revoked} pending workspace invitation(s)"] if revoked else None
