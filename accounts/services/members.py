"""Writes on a workspace's members: a role changed, a member removed, a member leaving.

Every change locks the workspace's row first and reads the actor's role again under it, so
two owners demoting or removing each other at once cannot leave a workspace without one.
"""

from uuid import UUID

from django.db import transaction

from accounts import hooks
from accounts.errors import LastOwner, MemberNotFound, PersonalWorkspace, WorkspaceNotFound
from accounts.models import Membership, Workspace, WorkspaceRole
from accounts.roles import Action, may, permission_check
from accounts.selectors import owners_count
from accounts.services.api_keys import api_keys_revoke_member


def _locked(actor: Membership) -> Membership:
    """The actor's membership as it stands with its workspace's row locked."""
    Workspace.objects.select_for_update().filter(pk=actor.workspace_id).exists()
    current = (
        Membership.objects.select_related("workspace")
        .filter(workspace_id=actor.workspace_id, user_id=actor.user_id)
        .first()
    )
    if current is None:  # removed meanwhile: the workspace is no longer theirs to see
        raise WorkspaceNotFound()
    return current


def _member(workspace: Workspace, user_id: UUID) -> Membership:
    member = (
        Membership.objects.select_related("user")
        .filter(workspace=workspace, user_id=user_id)
        .first()
    )
    if member is None:
        raise MemberNotFound()
    return member


def _keeps_an_owner(member: Membership) -> None:
    if member.role == WorkspaceRole.OWNER and owners_count(workspace=member.workspace) <= 1:
        raise LastOwner()


@transaction.atomic
def member_set_role(*, actor: Membership, user_id: UUID, role: str) -> Membership:
    """Give a member another role: owners and admins; an owner's role, or the owner role,
    only owners (admins cannot touch owners nor make them). The last owner keeps the role."""
    actor = _locked(actor)
    permission_check(role=actor.role, action=Action.MEMBERS)
    member = _member(actor.workspace, user_id)
    if WorkspaceRole.OWNER in (member.role, role):
        permission_check(role=actor.role, action=Action.OWN)
    if member.role == role:
        return member
    _keeps_an_owner(member)
    member.role = role
    member.save(update_fields=["role"])
    hooks.membership_changed(
        member.user_id, member.workspace_id, reads=may(role=role, action=Action.READ)
    )
    return member


@transaction.atomic
def member_remove(*, actor: Membership, user_id: UUID) -> None:
    """Remove a member (owners and admins; an owner, only owners), or leave (any member
    removing itself). Never from a personal workspace; never its last owner. The member's API
    keys for the workspace are revoked in the same transaction: their next request is 401."""
    actor = _locked(actor)
    leaving = actor.user_id == user_id
    if not leaving:
        permission_check(role=actor.role, action=Action.MEMBERS)
    if leaving and actor.workspace.personal:
        raise PersonalWorkspace()
    member = actor if leaving else _member(actor.workspace, user_id)
    if not leaving and member.role == WorkspaceRole.OWNER:
        permission_check(role=actor.role, action=Action.OWN)
    _keeps_an_owner(member)
    member.delete()
    api_keys_revoke_member(workspace_id=member.workspace_id, user_id=member.user_id)
    hooks.membership_changed(member.user_id, member.workspace_id, reads=False)
