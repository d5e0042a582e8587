"""Workspaces through HTTP: the personal one every user has, shared ones created, listed,
changed and deleted by the roles the table allows; a workspace the caller is not a member of
is 404 and nothing else (workspaces.md sections 1 and 2)."""

import os
from typing import Any
from unittest import mock

import pytest
from django.core.management import call_command
from rest_framework.test import APIClient

from accounts.models import Invitation, Membership, Workspace
from accounts.selectors import user_get_by_email
from tests.factories import UserFactory, api_key_for, client_with_key, shared_workspace

pytestmark = pytest.mark.django_db

NOT_FOUND = {
    "success": False,
    "message": "No such workspace.",
    "error": {"code": "workspace_not_found", "details": {}},
}


def iso(moment: Any) -> str:
    return moment.isoformat().replace("+00:00", "Z")


def refused(*roles: str) -> dict[str, Any]:
    return {
        "success": False,
        "message": "Your role in this workspace does not allow this.",
        "error": {"code": "permission_denied", "details": {"requiredRoles": list(roles)}},
    }


def conflict(code: str, message: str, details: Any = None) -> dict[str, Any]:
    return {"success": False, "message": message, "error": {"code": code, "details": details or {}}}


def item(workspace: Workspace, role: str, members: int) -> dict[str, Any]:
    return {
        "id": str(workspace.pk),
        "name": workspace.name,
        "personal": workspace.personal,
        "role": role,
        "members_count": members,
        "approval_required": workspace.approval_required,
        "created_at": iso(workspace.created_at),
    }


def test_a_new_user_has_a_personal_workspace_and_owns_it(ada_client, ada):
    personal = Workspace.objects.get(personal_user=ada)

    response = ada_client.get("/api/workspaces")

    assert response.status_code == 200
    assert response.json() == {"success": True, "data": [item(personal, "owner", 1)]}
    assert (personal.personal, personal.name) == (True, "Personal")
    assert list(Membership.objects.filter(workspace=personal).values_list("user", "role")) == [
        (ada.pk, "owner")
    ]


def _workspaces_of(email: str) -> list[tuple[str, bool, str]]:
    """(name, personal, role) of each membership of the user with this address."""
    user = user_get_by_email(email=email)
    assert user is not None, email
    assert Workspace.objects.filter(personal_user=user).count() == 1, email
    return list(
        Membership.objects.filter(user=user).values_list(
            "workspace__name", "workspace__personal", "role"
        )
    )


def test_every_way_of_making_a_user_makes_their_personal_workspace(api, settings, admin_client):
    settings.MAGIC_LINK_EXPOSE_URL = True
    # Registration by login, and a magic-link sign-up.
    assert api.post("/api/auth/login", {"email": "reg@example.com"}).status_code == 200
    url = api.post("/api/auth/magic-link", {"email": "magic@example.com"}).json()["data"]
    token = url["magicUrl"].split("token=", 1)[1]
    assert api.post("/api/auth/magic-link/verify", {"token": token}).status_code == 200
    # An operator: createsuperuser, and a user added in the admin.
    with mock.patch.dict(os.environ, {"DJANGO_SUPERUSER_PASSWORD": "Quiet-lake-42"}):
        call_command("createsuperuser", "--noinput", email="root@example.com", verbosity=0)
    added = admin_client.post(
        "/admin/accounts/user/add/",
        {"email": "added@example.com", "full_name": "Added", "password": ""},
    )
    assert added.status_code == 302, added.content.decode()[:2000]
    # The tests' factory, as every test package makes users.
    UserFactory.create(email="factory@example.com")

    for email in (
        "reg@example.com",
        "magic@example.com",
        "root@example.com",
        "added@example.com",
        "factory@example.com",
        "ops@example.com",  # admin_client's operator (User.objects.create_superuser)
    ):
        assert _workspaces_of(email) == [("Personal", True, "owner")], email


def test_creating_a_workspace_makes_the_caller_its_owner(ada_client, ada):
    response = ada_client.post("/api/workspaces", {"name": "  Acme Bakery "})

    assert response.status_code == 200, response.content
    workspace = Workspace.objects.get(personal=False)
    assert response.json() == {
        "success": True,
        "message": "Workspace created",
        "data": item(workspace, "owner", 1),
    }
    assert workspace.name == "Acme Bakery"
    assert list(Membership.objects.filter(workspace=workspace).values_list("user", "role")) == [
        (ada.pk, "owner")
    ]
    listed = ada_client.get("/api/workspaces?sort=name&order=asc").json()["data"]
    assert [entry["name"] for entry in listed] == ["Acme Bakery", "Personal"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": ""}, "name"),
        ({"name": "   "}, "name"),
        ({"name": "x" * 81}, "name"),
        ({"name": "<b>Acme</b>"}, "name"),
        ({}, "name"),
        ({"name": "Acme", "personal": True}, "personal"),
    ],
)
def test_a_bad_name_is_400_and_creates_nothing(ada_client, body, field):
    response = ada_client.post("/api/workspaces", body, format="json")

    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert field in response.json()["error"]["details"]
    assert not Workspace.objects.filter(personal=False).exists()


def test_a_user_owns_at_most_workspaces_per_user_besides_the_personal_one(
    ada_client, ada, bob, settings
):
    settings.WORKSPACES_PER_USER = 2
    shared_workspace(bob, name="Bob's", members={ada: "admin"})  # a member's: not counted
    for name in ("One", "Two"):
        assert ada_client.post("/api/workspaces", {"name": name}).status_code == 200

    response = ada_client.post("/api/workspaces", {"name": "Three"})

    assert response.status_code == 409
    assert response.json() == conflict(
        "workspace_limit",
        "You own as many workspaces as allowed. Delete one first.",
        {"limit": 2},
    )
    assert not Workspace.objects.filter(name="Three").exists()
    assert Workspace.objects.filter(memberships__user=ada).count() == 4  # personal, Bob's, 2


@pytest.mark.parametrize("role", ["owner", "admin"])
def test_owners_and_admins_change_the_settings(team, role):
    workspace = team.workspace

    response = team.client(role).patch(
        f"/api/workspaces/{workspace.pk}",
        {"name": "Acme Bakery Ltd", "approvalRequired": True},
        format="json",
    )

    assert response.status_code == 200, response.content
    workspace.refresh_from_db()
    assert (workspace.name, workspace.approval_required) == ("Acme Bakery Ltd", True)
    assert response.json() == {
        "success": True,
        "message": "Workspace updated",
        "data": item(workspace, role, 5),
    }


@pytest.mark.parametrize("role", ["editor", "viewer", "client"])
def test_other_roles_cannot_change_the_settings(team, role):
    response = team.client(role).patch(
        f"/api/workspaces/{team.workspace.pk}", {"name": "Mine now"}, format="json"
    )

    assert response.status_code == 403
    assert response.json() == refused("owner", "admin")
    team.workspace.refresh_from_db()
    assert team.workspace.name == "Acme Bakery"


def test_an_empty_change_is_400(team):
    response = team.client("owner").patch(f"/api/workspaces/{team.workspace.pk}", {}, format="json")
    assert response.status_code == 400


def test_the_owner_deletes_a_workspace_with_its_members_and_invitations(team):
    workspace = team.workspace
    owner = team.client("owner")
    owner.post(
        f"/api/workspaces/{workspace.pk}/invitations",
        {"email": "new@example.com", "role": "viewer"},
    )
    assert Invitation.objects.filter(workspace=workspace).exists()

    response = owner.delete(f"/api/workspaces/{workspace.pk}")

    assert response.status_code == 200
    assert response.json() == {
        "success": True,
        "message": "Workspace deleted",
        "data": {"success": True},
    }
    assert not Workspace.objects.filter(pk=workspace.pk).exists()
    assert not Membership.objects.filter(workspace_id=workspace.pk).exists()
    assert not Invitation.objects.filter(workspace_id=workspace.pk).exists()
    for role in ("owner", "editor"):
        names = [entry["name"] for entry in team.client(role).get("/api/workspaces").json()["data"]]
        assert names == ["Personal"]


@pytest.mark.parametrize("role", ["admin", "editor", "viewer", "client"])
def test_only_an_owner_deletes_a_workspace(team, role):
    response = team.client(role).delete(f"/api/workspaces/{team.workspace.pk}")

    assert response.status_code == 403
    assert response.json() == refused("owner")
    assert Workspace.objects.filter(pk=team.workspace.pk).exists()
    assert Membership.objects.filter(workspace=team.workspace).count() == 5


def test_the_personal_workspace_is_never_deleted(ada_client, ada):
    personal = Workspace.objects.get(personal_user=ada)

    response = ada_client.delete(f"/api/workspaces/{personal.pk}")

    assert response.status_code == 409
    assert response.json() == conflict(
        "personal_workspace", "A personal workspace cannot be shared, left or deleted."
    )
    assert Workspace.objects.filter(pk=personal.pk).exists()


def _every_workspace_route(workspace_id: Any, other_id: Any) -> list[tuple[str, str, Any]]:
    base = f"/api/workspaces/{workspace_id}"
    return [
        ("patch", base, {"name": "Mine"}),
        ("delete", base, None),
        ("get", f"{base}/members", None),
        ("patch", f"{base}/members/{other_id}", {"role": "viewer"}),
        ("delete", f"{base}/members/{other_id}", None),
        ("get", f"{base}/invitations", None),
        ("post", f"{base}/invitations", {"email": "x@example.com", "role": "viewer"}),
        ("delete", f"{base}/invitations/{other_id}", None),
    ]


def test_a_workspace_one_is_not_a_member_of_is_404_as_one_that_does_not_exist(team, bob_client):
    ada = team.users["owner"]
    personal = Workspace.objects.get(personal_user=ada)
    memberships = Membership.objects.values_list("workspace", "user", "role").order_by("pk")
    before = list(memberships)
    answers = []
    for workspace_id in (team.workspace.pk, personal.pk, "0b0e7c2e-6c4e-4f57-8a7b-1d2c3e4f5a6b"):
        for method, path, body in _every_workspace_route(workspace_id, ada.pk):
            response = getattr(bob_client, method)(path, body, format="json")
            answers.append((response.status_code, response.json()))

    assert answers == [(404, NOT_FOUND)] * len(answers)
    assert (
        list(Membership.objects.values_list("workspace", "user", "role").order_by("pk")) == before
    )
    assert Workspace.objects.get(pk=team.workspace.pk).name == "Acme Bakery"
    assert not Invitation.objects.filter(email="x@example.com").exists()


def test_also_under_v1_and_never_with_an_api_key(ada, ada_client):
    assert ada_client.get("/api/v1/workspaces").json()["data"][0]["name"] == "Personal"
    key_client = client_with_key(api_key_for(ada, "posts:read", "posts:write"))

    for method, path in (("get", "/api/workspaces"), ("post", "/api/invitations/accept")):
        response = getattr(key_client, method)(path, {}, format="json")
        assert response.status_code == 403
        assert response.json()["error"] == {"code": "permission_denied", "details": {}}


def test_signed_out_is_401(api: APIClient, team):
    assert api.get("/api/workspaces").status_code == 401
    assert api.delete(f"/api/workspaces/{team.workspace.pk}").status_code == 401
    assert Workspace.objects.filter(pk=team.workspace.pk).exists()


def test_the_list_is_paginated_on_request(ada, ada_client):
    for index in range(3):
        ada_client.post("/api/workspaces", {"name": f"Client {index}"})

    body = ada_client.get("/api/workspaces?limit=2&sort=name&order=asc").json()

    assert [entry["name"] for entry in body["data"]] == ["Client 0", "Client 1"]
    assert body["meta"] == {"total": 4, "page": 1, "limit": 2, "totalPages": 2, "hasMore": True}
    assert ada_client.get("/api/workspaces?sort=role").status_code == 400
