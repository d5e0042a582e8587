"""Invitations through HTTP: an owner or admin invites an address, the link is e-mailed, and
only the signed-in user with that address joins with it, once; revoked, expired and used links
are refused; the limits and the roles of the table hold (workspaces.md section 2)."""

import hashlib
from datetime import timedelta
from typing import Any, cast
from urllib.parse import parse_qs, urlparse

import pytest
from django.core import mail
from django.core.mail import EmailMultiAlternatives
from django.utils import timezone

from accounts.models import Invitation, Membership, Workspace
from accounts.services.invitations import MEMBERS_MAX
from accounts.tasks import send_invitation_email_task
from tests.factories import UserFactory, api_key_for, client_for, client_with_key

pytestmark = pytest.mark.django_db

INVALID = {
    "success": False,
    "message": "This invitation is invalid, expired, revoked or already used.",
    "error": {"code": "invalid_invitation", "details": {}},
}


def iso(moment: Any) -> str | None:
    return moment.isoformat().replace("+00:00", "Z") if moment else None


def token_of(url: str) -> str:
    return parse_qs(urlparse(url).query)["token"][0]


def refused(*roles: str) -> dict[str, Any]:
    return {
        "success": False,
        "message": "Your role in this workspace does not allow this.",
        "error": {"code": "permission_denied", "details": {"requiredRoles": list(roles)}},
    }


@pytest.fixture
def invite(team, committed):
    """`invite(email, role, by="owner")`: the request, its on-commit work (the e-mail) run."""

    def send(email: str, role: str = "editor", *, by: str = "owner") -> Any:
        with committed():
            return team.client(by).post(
                f"/api/workspaces/{team.workspace.pk}/invitations", {"email": email, "role": role}
            )

    return send


def opened() -> Any:
    """Invitations not accepted (the team's members joined by theirs)."""
    return Invitation.objects.filter(accepted_at__isnull=True)


def accept(user: Any, token: str) -> Any:
    return client_for(user).post("/api/invitations/accept", {"token": token})


def test_an_invited_editor_joins_through_the_e_mailed_link(team, invite, settings):
    settings.APP_URL = "https://app.example.com"
    settings.MAGIC_LINK_EXPOSE_URL = True
    ada = team.users["owner"]

    response = invite("Grace@Example.com", "editor")

    assert response.status_code == 200, response.content
    invitation = Invitation.objects.get(email="grace@example.com")
    url = response.json()["data"]["inviteUrl"]
    assert response.json() == {
        "success": True,
        "message": "Invitation sent",
        "data": {
            "id": str(invitation.pk),
            "email": "grace@example.com",
            "role": "editor",
            "invitedBy": {"userId": str(ada.pk), "email": ada.email, "full_name": "Ada"},
            "created_at": iso(invitation.created_at),
            "expires_at": iso(invitation.expires_at),
            "inviteUrl": url,
        },
    }
    assert url.startswith("https://app.example.com/invite?token=")
    assert invitation.expires_at - invitation.created_at == timedelta(days=7)
    token = token_of(url)
    assert invitation.token_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token not in str(Invitation.objects.filter(pk=invitation.pk).values().get())
    assert len(mail.outbox) == 1
    message = cast(EmailMultiAlternatives, mail.outbox[0])
    assert message.to == ["grace@example.com"]
    assert message.subject == "You are invited to Acme Bakery"
    assert url in message.body
    assert 'Ada invited you to the workspace "Acme Bakery"' in message.body
    assert url in str(message.alternatives[0][0])

    grace = UserFactory.create(email="grace@example.com", full_name="Grace")
    joined = accept(grace, token)

    assert joined.status_code == 200, joined.content
    assert joined.json() == {
        "success": True,
        "message": "Invitation accepted",
        "data": {
            "id": str(team.workspace.pk),
            "name": "Acme Bakery",
            "personal": False,
            "role": "editor",
            "members_count": 6,
            "approval_required": False,
            "created_at": iso(team.workspace.created_at),
        },
    }
    assert Membership.objects.get(workspace=team.workspace, user=grace).role == "editor"
    listed = client_for(grace).get("/api/workspaces?sort=name&order=asc").json()["data"]
    assert [(w["name"], w["role"]) for w in listed] == [
        ("Acme Bakery", "editor"),
        ("Personal", "owner"),
    ]
    pending = team.client("owner").get(f"/api/workspaces/{team.workspace.pk}/invitations")
    assert pending.json() == {"success": True, "data": []}
    assert accept(grace, token).json() == INVALID  # used: single use


def test_the_link_is_not_in_the_answer_unless_magic_link_urls_are_exposed(invite, settings):
    settings.MAGIC_LINK_EXPOSE_URL = False

    response = invite("grace@example.com")

    assert response.status_code == 200
    assert "inviteUrl" not in response.json()["data"]
    assert len(mail.outbox) == 1
    assert "/invite?token=" in mail.outbox[0].body


def test_only_the_invited_address_can_accept(invite, settings, bob):
    settings.MAGIC_LINK_EXPOSE_URL = True
    token = token_of(invite("grace@example.com").json()["data"]["inviteUrl"])

    response = accept(bob, token)

    assert response.status_code == 403
    assert response.json() == {
        "success": False,
        "message": "This invitation was sent to another e-mail address. Sign in with that one.",
        "error": {"code": "invitation_email_mismatch", "details": {}},
    }
    assert not Membership.objects.filter(user=bob, workspace__personal=False).exists()
    assert Invitation.objects.get(email="grace@example.com").accepted_at is None
    grace = UserFactory.create(email="GRACE@example.com")  # the address, whatever its case
    assert accept(grace, token).status_code == 200


def test_expired_revoked_and_unknown_links_are_invalid(team, invite, settings):
    settings.MAGIC_LINK_EXPOSE_URL = True
    grace = UserFactory.create(email="grace@example.com")
    expired = token_of(invite("grace@example.com").json()["data"]["inviteUrl"])
    Invitation.objects.filter(email="grace@example.com").update(
        created_at=timezone.now() - timedelta(days=8), expires_at=timezone.now()
    )
    assert accept(grace, expired).json() == INVALID
    revoked = token_of(invite("grace@example.com").json()["data"]["inviteUrl"])
    invitation = opened().get(revoked_at__isnull=True)

    response = team.client("admin").delete(
        f"/api/workspaces/{team.workspace.pk}/invitations/{invitation.pk}"
    )

    assert response.json() == {
        "success": True,
        "message": "Invitation revoked",
        "data": {"success": True},
    }
    for token in (revoked, "not-a-token", "x" * 43):
        answer = accept(grace, token)
        assert (answer.status_code, answer.json()) == (400, INVALID)
    assert not Membership.objects.filter(user=grace, workspace=team.workspace).exists()
    again = team.client("owner").delete(
        f"/api/workspaces/{team.workspace.pk}/invitations/{invitation.pk}"
    )
    assert again.status_code == 404
    assert again.json()["error"] == {"code": "not_found", "details": {}}


def test_inviting_an_address_again_replaces_its_open_invitation(team, invite, settings):
    settings.MAGIC_LINK_EXPOSE_URL = True
    first = token_of(invite("grace@example.com", "viewer").json()["data"]["inviteUrl"])
    second = token_of(invite("grace@example.com", "editor").json()["data"]["inviteUrl"])
    grace = UserFactory.create(email="grace@example.com")

    listed = team.client("owner").get(f"/api/workspaces/{team.workspace.pk}/invitations")

    assert [(i["email"], i["role"]) for i in listed.json()["data"]] == [
        ("grace@example.com", "editor")
    ]
    assert accept(grace, first).json() == INVALID
    assert accept(grace, second).json()["data"]["role"] == "editor"
    assert len(mail.outbox) == 2


def test_no_invitation_into_a_personal_workspace(ada, ada_client):
    personal = Workspace.objects.get(personal_user=ada)

    response = ada_client.post(
        f"/api/workspaces/{personal.pk}/invitations",
        {"email": "grace@example.com", "role": "viewer"},
    )

    assert response.status_code == 409
    assert response.json()["error"] == {"code": "personal_workspace", "details": {}}
    assert not Invitation.objects.exists()


def test_a_member_s_address_is_not_invited_again(invite):
    response = invite("Viewer@example.com", "admin")

    assert response.status_code == 409
    assert response.json()["error"] == {"code": "already_member", "details": {}}
    assert not opened().exists()
    assert mail.outbox == []


@pytest.mark.parametrize("role", ["editor", "viewer", "client"])
def test_other_roles_neither_invite_nor_see_nor_revoke_invitations(team, invite, role):
    invite("grace@example.com")
    invitation = opened().get()
    client = team.client(role)
    base = f"/api/workspaces/{team.workspace.pk}/invitations"

    answers = [
        client.post(base, {"email": "eve@example.com", "role": "viewer"}),
        client.get(base),
        client.delete(f"{base}/{invitation.pk}"),
    ]

    assert [(r.status_code, r.json()) for r in answers] == [(403, refused("owner", "admin"))] * 3
    assert list(opened().values_list("email", "revoked_at")) == [("grace@example.com", None)]


def test_only_owners_invite_owners_or_revoke_their_invitations(team, invite, settings):
    settings.MAGIC_LINK_EXPOSE_URL = True

    by_admin = invite("eve@example.com", "owner", by="admin")
    assert (by_admin.status_code, by_admin.json()) == (403, refused("owner"))
    by_owner = invite("eve@example.com", "owner")
    assert by_owner.status_code == 200
    invitation = opened().get()
    revoke = team.client("admin").delete(
        f"/api/workspaces/{team.workspace.pk}/invitations/{invitation.pk}"
    )
    assert (revoke.status_code, revoke.json()) == (403, refused("owner"))
    eve = UserFactory.create(email="eve@example.com")
    assert accept(eve, token_of(by_owner.json()["data"]["inviteUrl"])).status_code == 200
    assert Membership.objects.get(workspace=team.workspace, user=eve).role == "owner"


def test_at_most_a_hundred_members_and_pending_invitations(team, invite):
    # Five members; revoked and expired invitations take no place.
    now = timezone.now()
    Invitation.objects.bulk_create(
        Invitation(
            workspace=team.workspace,
            email=f"guest{index}@example.com",
            role="viewer",
            token_hash=f"{index:064d}",
            expires_at=now + timedelta(days=7),
            revoked_at=now if index >= MEMBERS_MAX - 5 else None,
        )
        for index in range(MEMBERS_MAX - 5 + 2)
    )
    Invitation.objects.filter(email="guest0@example.com").update(
        created_at=now - timedelta(days=8), expires_at=now - timedelta(days=1)
    )

    assert invite("first@example.com").status_code == 200  # guest0 expired: one place left
    response = invite("second@example.com")

    assert response.status_code == 409
    assert response.json() == {
        "success": False,
        "message": "This workspace has as many members and pending invitations as allowed.",
        "error": {"code": "member_limit", "details": {"limit": 100}},
    }
    assert not Invitation.objects.filter(email="second@example.com").exists()
    assert len(mail.outbox) == 1


def test_a_member_sends_at_most_fifty_invitations_an_hour(team, invite):
    already = Invitation.objects.filter(invited_by=team.users["owner"]).count()  # the team's
    for index in range(50 - already):
        assert invite(f"guest{index}@example.com").status_code == 200

    response = invite("one-more@example.com")

    assert response.status_code == 429
    assert response.json()["error"]["code"] == "rate_limited"
    assert "Retry-After" in response
    assert not Invitation.objects.filter(email="one-more@example.com").exists()


def test_accepting_takes_a_session(invite, settings, api, bob):
    settings.MAGIC_LINK_EXPOSE_URL = True
    token = token_of(invite("bob@example.com").json()["data"]["inviteUrl"])

    assert api.post("/api/invitations/accept", {"token": token}).status_code == 401
    with_key = client_with_key(api_key_for(bob, "posts:read")).post(
        "/api/invitations/accept", {"token": token}
    )
    assert with_key.status_code == 403
    assert Invitation.objects.get(email="bob@example.com").accepted_at is None


def test_a_member_already_in_does_not_spend_an_invitation(team, invite, settings):
    settings.MAGIC_LINK_EXPOSE_URL = True
    token = token_of(invite("grace@example.com").json()["data"]["inviteUrl"])
    grace = UserFactory.create(email="grace@example.com")
    assert accept(grace, token).status_code == 200
    Invitation.objects.filter(email="grace@example.com").update(
        accepted_at=None
    )  # as if a second invitation reached her

    response = accept(grace, token)

    assert response.status_code == 409
    assert response.json()["error"] == {"code": "already_member", "details": {}}
    assert Membership.objects.filter(workspace=team.workspace, user=grace).count() == 1


def test_no_e_mail_for_an_invitation_revoked_before_it_was_sent(team, settings):
    from accounts.selectors import membership_get
    from accounts.services.invitations import invitation_create, invitation_revoke

    actor = membership_get(user=team.users["owner"], workspace_id=team.workspace.pk)
    invitation, url = invitation_create(actor=actor, email="grace@example.com", role="viewer")
    invitation_revoke(actor=actor, invitation_id=invitation.pk)

    send_invitation_email_task(invitation_id=str(invitation.pk), url=url)

    assert mail.outbox == []
