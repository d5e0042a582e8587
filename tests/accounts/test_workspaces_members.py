"""A workspace's members through HTTP: listed for the team, roles changed and members removed
by owners and admins as the table says (admins never touching owners), leaving, and the last
owner kept (workspaces.md section 2)."""

from typing import Any

import pytest

from accounts.models import Membership, Workspace
from tests.factories import UserFactory, client_for, shared_workspace

pytestmark = pytest.mark.django_db

ROLES = ("owner", "admin", "editor", "viewer", "client")
LAST_OWNER = {
    "success": False,
    "message": "A workspace keeps at least one owner: make another member owner first.",
    "error": {"code": "last_owner", "details": {}},
}


def iso(moment: Any) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def refused(*roles: str) -> dict[str, Any]:
    return {
        "success": False,
        "message": "Your role in this workspace does not allow this.",
        "error": {"code": "permission_denied", "details": {"requiredRoles": list(roles)}},
    }


def roles_of(workspace: Workspace) -> dict[str, str]:
    return dict(Membership.objects.filter(workspace=workspace).values_list("user__email", "role"))


def members_url(team: Any, user: Any = None) -> str:
    base = f"/api/workspaces/{team.workspace.pk}/members"
    return f"{base}/{user.pk}" if user is not None else base


@pytest.mark.parametrize("role", ["owner", "admin", "editor", "viewer"])
def test_the_team_sees_its_members(team, role):
    response = team.client(role).get(members_url(team) + "?sort=joined_at&order=asc")

    assert response.status_code == 200
    memberships = Membership.objects.filter(workspace=team.workspace).order_by("joined_at", "pk")
    assert response.json() == {
        "success": True,
        "data": [
            {
                "userId": str(m.user_id),
                "email": m.user.email,
                "full_name": m.user.full_name,
                "role": m.role,
                "joined_at": iso(m.joined_at),
            }
            for m in memberships
        ],
    }
    assert [entry["role"] for entry in response.json()["data"]] == list(ROLES)


def test_a_client_does_not_see_the_team(team):
    response = team.client("client").get(members_url(team))

    assert response.status_code == 403
    assert response.json() == refused("owner", "admin", "editor", "viewer")


@pytest.mark.parametrize("role", ["owner", "admin"])
def test_owners_and_admins_change_a_role(team, role):
    editor = team.users["editor"]

    response = team.client(role).patch(members_url(team, editor), {"role": "viewer"})

    assert response.status_code == 200, response.content
    member = Membership.objects.get(workspace=team.workspace, user=editor)
    assert response.json() == {
        "success": True,
        "message": "Member updated",
        "data": {
            "userId": str(editor.pk),
            "email": "editor@example.com",
            "full_name": "Editor",
            "role": "viewer",
            "joined_at": iso(member.joined_at),
        },
    }
    assert member.role == "viewer"


@pytest.mark.parametrize("role", ["editor", "viewer", "client"])
def test_other_roles_change_no_role_nor_remove_anyone(team, role):
    before = roles_of(team.workspace)
    viewer = team.users["viewer"] if role != "viewer" else team.users["editor"]
    client = team.client(role)

    changed = client.patch(members_url(team, viewer), {"role": "admin"})
    removed = client.delete(members_url(team, viewer))
    promoted = client.patch(members_url(team, team.users[role]), {"role": "admin"})

    assert [r.status_code for r in (changed, removed, promoted)] == [403, 403, 403]
    assert changed.json() == removed.json() == promoted.json() == refused("owner", "admin")
    assert roles_of(team.workspace) == before


def test_admins_neither_touch_owners_nor_make_them(team):
    admin = team.client("admin")
    owner = team.users["owner"]
    before = roles_of(team.workspace)

    answers = [
        admin.patch(members_url(team, owner), {"role": "viewer"}),
        admin.delete(members_url(team, owner)),
        admin.patch(members_url(team, team.users["editor"]), {"role": "owner"}),
        admin.patch(members_url(team, team.users["admin"]), {"role": "owner"}),
    ]

    assert [(r.status_code, r.json()) for r in answers] == [(403, refused("owner"))] * 4
    assert roles_of(team.workspace) == before


def test_an_owner_makes_another_owner_who_may_then_demote_the_first(team):
    ada, admin = team.users["owner"], team.users["admin"]

    assert (
        team.client("owner").patch(members_url(team, admin), {"role": "owner"}).status_code == 200
    )
    response = team.client("admin").patch(members_url(team, ada), {"role": "editor"})

    assert response.status_code == 200
    assert roles_of(team.workspace)["ada@example.com"] == "editor"
    assert roles_of(team.workspace)["admin@example.com"] == "owner"


def test_the_last_owner_can_be_neither_demoted_nor_removed_nor_leave(team):
    ada = team.users["owner"]
    owner = team.client("owner")

    answers = [
        owner.patch(members_url(team, ada), {"role": "admin"}),
        owner.delete(members_url(team, ada)),
    ]

    assert [(r.status_code, r.json()) for r in answers] == [(409, LAST_OWNER)] * 2
    assert roles_of(team.workspace)["ada@example.com"] == "owner"


def test_an_owner_may_step_down_while_another_owner_remains(team):
    ada = team.users["owner"]
    team.client("owner").patch(members_url(team, team.users["admin"]), {"role": "owner"})

    response = team.client("owner").patch(members_url(team, ada), {"role": "viewer"})

    assert response.status_code == 200
    assert roles_of(team.workspace)["ada@example.com"] == "viewer"


@pytest.mark.parametrize("role", ["admin", "editor", "viewer", "client"])
def test_any_member_may_leave(team, role):
    member = team.users[role]
    client = team.client(role)

    response = client.delete(members_url(team, member))

    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "message": "You left the workspace",
        "data": {"success": True},
    }
    assert not Membership.objects.filter(workspace=team.workspace, user=member).exists()
    assert [entry["name"] for entry in client.get("/api/workspaces").json()["data"]] == ["Personal"]
    again = client.get(members_url(team))
    assert again.status_code == 404
    assert again.json()["error"]["code"] == "workspace_not_found"


@pytest.mark.parametrize("role", ["owner", "admin"])
def test_owners_and_admins_remove_a_member(team, role):
    editor = team.users["editor"]

    response = team.client(role).delete(members_url(team, editor))

    assert response.status_code == 200
    assert response.json()["message"] == "Member removed"
    assert "editor@example.com" not in roles_of(team.workspace)
    assert client_for(editor).get(members_url(team)).status_code == 404


def test_an_owner_removes_another_owner(team):
    team.client("owner").patch(members_url(team, team.users["admin"]), {"role": "owner"})

    response = team.client("owner").delete(members_url(team, team.users["admin"]))

    assert response.status_code == 200
    assert "admin@example.com" not in roles_of(team.workspace)


def test_nobody_leaves_a_personal_workspace(ada, ada_client):
    personal = Workspace.objects.get(personal_user=ada)

    response = ada_client.delete(f"/api/workspaces/{personal.pk}/members/{ada.pk}")

    assert response.status_code == 409
    assert response.json()["error"] == {"code": "personal_workspace", "details": {}}
    assert Membership.objects.filter(workspace=personal, user=ada).exists()


def test_a_user_who_is_not_a_member_is_404_not_found(team, bob):
    before = roles_of(team.workspace)
    for response in (
        team.client("owner").patch(members_url(team, bob), {"role": "viewer"}),
        team.client("owner").delete(members_url(team, bob)),
    ):
        assert response.status_code == 404
        assert response.json() == {
            "success": False,
            "message": "No such member in this workspace.",
            "error": {"code": "not_found", "details": {}},
        }
    assert roles_of(team.workspace) == before


def test_an_unknown_role_is_400(team):
    response = team.client("owner").patch(
        members_url(team, team.users["editor"]), {"role": "superuser"}
    )

    assert response.status_code == 400
    assert "role" in response.json()["error"]["details"]
    assert roles_of(team.workspace)["editor@example.com"] == "editor"


def test_members_of_one_workspace_have_no_say_in_another(team):
    other_owner = UserFactory.create(email="zoe@example.com")
    other = shared_workspace(other_owner, name="Zoe's", members={team.users["editor"]: "admin"})

    response = team.client("admin").delete(f"/api/workspaces/{other.pk}/members/{other_owner.pk}")

    assert response.status_code == 404
    assert response.json()["error"]["code"] == "workspace_not_found"
    assert roles_of(other) == {"zoe@example.com": "owner", "editor@example.com": "admin"}
