"""What an erasure and a takeover do to workspaces: the erased user's personal workspace goes,
and each shared one they were the last owner of; the others keep running under their other
owners. A takeover revokes the invitations the account sent (workspaces.md, issue 42)."""

from typing import Any

import pytest
from django.utils import timezone

from accounts.hooks import user_taken_over
from accounts.models import Invitation, Membership, User, Workspace
from accounts.selectors import membership_get
from accounts.services.invitations import invitation_create
from accounts.services.users import user_erase
from accounts.services.workspaces import workspace_delete
from tests.factories import UserFactory, client_for, shared_workspace

pytestmark = pytest.mark.django_db


def memberships_of(user: Any) -> list[tuple[str, str]]:
    return list(
        Membership.objects.filter(user=user).values_list("workspace__name", "role").order_by("pk")
    )


def test_an_erasure_removes_the_personal_workspace_and_the_last_owned_ones(team, bob):
    ada = team.users["owner"]
    personal = Workspace.objects.get(personal_user=ada)
    shared_with_bob = shared_workspace(bob, name="Bob's studio", members={ada: "owner"})
    shared_workspace(bob, name="Bob's client", members={ada: "editor"})
    pending = invitation_create(
        actor=membership_get(user=ada, workspace_id=shared_with_bob.pk),
        email="zoe@example.com",
        role="viewer",
    )[0]
    other = shared_workspace(bob, name="Bob's other client")
    to_ada = invitation_create(
        actor=membership_get(user=bob, workspace_id=other.pk),
        email="ADA@example.com",
        role="viewer",
    )

    response = client_for(ada).delete("/api/auth/me", {}, format="json")  # a fresh sign-in

    assert response.status_code == 200

    gone = [personal.pk, team.workspace.pk]
    assert not Workspace.objects.filter(pk__in=gone).exists()
    assert not Membership.objects.filter(workspace_id__in=gone).exists()
    assert not Invitation.objects.filter(workspace_id__in=gone).exists()
    assert memberships_of(ada) == []
    # Bob's workspaces keep running under Bob, without Ada.
    assert memberships_of(bob) == [
        ("Personal", "owner"),
        ("Bob's studio", "owner"),
        ("Bob's client", "owner"),
        ("Bob's other client", "owner"),
    ]
    pending.refresh_from_db()
    assert (pending.invited_by, pending.revoked_at) == (None, None)
    assert not Invitation.objects.filter(pk=to_ada[0].pk).exists()
    # The team's other members lost the workspace, not their own.
    assert memberships_of(team.users["editor"]) == [("Personal", "owner")]


def test_a_shared_workspace_with_another_owner_survives_its_owner_s_erasure(team):
    ada, admin = team.users["owner"], team.users["admin"]
    client_for(ada).patch(
        f"/api/workspaces/{team.workspace.pk}/members/{admin.pk}", {"role": "owner"}
    )

    user_erase(user=User.objects.get(pk=ada.pk))

    assert Workspace.objects.filter(pk=team.workspace.pk).exists()
    roles = dict(
        Membership.objects.filter(workspace=team.workspace).values_list("user__email", "role")
    )
    assert roles == {
        "admin@example.com": "owner",
        "editor@example.com": "editor",
        "viewer@example.com": "viewer",
        "client@example.com": "client",
    }


def test_an_erased_member_leaves_the_workspace_and_its_team_keeps_it(team):
    user_erase(user=team.users["editor"])

    assert Membership.objects.filter(workspace=team.workspace).count() == 4
    assert not Workspace.objects.filter(personal_user=team.users["editor"]).exists()


def test_a_takeover_revokes_the_invitations_the_account_sent_and_keeps_its_memberships(team):
    ada = team.users["owner"]
    actor = membership_get(user=ada, workspace_id=team.workspace.pk)
    invitation_create(actor=actor, email="zoe@example.com", role="admin")

    removed = user_taken_over(ada)

    assert "1 pending workspace invitation(s)" in removed
    assert Invitation.objects.get(email="zoe@example.com").revoked_at is not None
    assert memberships_of(ada) == [("Personal", "owner"), ("Acme Bakery", "owner")]


def test_deleting_a_workspace_asks_every_app_to_remove_what_it_keeps_of_it(team, monkeypatch):
    from accounts import hooks

    seen: list[Any] = []
    monkeypatch.setattr(hooks, "_workspace_deleting", [])
    hooks.on_workspace_deleting(
        lambda workspace: seen.append(
            (workspace.pk, Membership.objects.filter(workspace=workspace).count())
        )
    )

    workspace_delete(workspace=team.workspace)

    assert seen == [(team.workspace.pk, 5)]  # before its members go


def test_an_erased_user_s_address_can_be_invited_anew(team):
    grace = UserFactory.create(email="grace@example.com")
    user_erase(user=grace)
    actor = membership_get(user=team.users["owner"], workspace_id=team.workspace.pk)

    invitation, _ = invitation_create(actor=actor, email="grace@example.com", role="viewer")

    assert invitation.expires_at > timezone.now()
