"""API keys belong to a workspace (workspaces.md section 1): made in the personal workspace by
default, in another with `workspaceId` or `X-Workspace-Id`, by owners and admins only; listed
and revoked in the workspace they belong to; gone with it."""

import uuid
from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import ApiKey, Workspace
from accounts.services.workspaces import workspace_delete
from tests.factories import api_key_for, client_with_key

pytestmark = pytest.mark.django_db

KEYS = "/api/auth/api-keys"
REFUSED = {
    "code": "permission_denied",
    "details": {"requiredRoles": ["owner", "admin"]},
}


def create(client: APIClient, headers: Any = None, **body: Any) -> Any:
    body = {"name": "Zapier", "scopes": ["posts:read"], **body}
    return client.post(KEYS, body, format="json", **(headers or {}))


def listed(client: APIClient, **headers: Any) -> list[str]:
    response = client.get(KEYS, **headers)
    assert response.status_code == 200, response.content
    return [key["name"] for key in response.json()["data"]]


def test_a_key_is_made_in_the_personal_workspace_unless_another_is_named(team):
    admin, shared = team.users["admin"], str(team.workspace.pk)
    personal = str(Workspace.objects.get(personal_user=admin).pk)
    client = team.client("admin")

    by_default = create(client, name="personal").json()["data"]
    by_body = create(client, name="by body", workspaceId=shared).json()["data"]
    by_header = create(client, {"HTTP_X_WORKSPACE_ID": shared}, name="by header").json()["data"]

    assert by_default["workspaceId"] == personal
    assert by_body["workspaceId"] == by_header["workspaceId"] == shared
    assert dict(ApiKey.objects.values_list("name", "workspace_id")) == {
        "personal": uuid.UUID(personal),
        "by body": uuid.UUID(shared),
        "by header": uuid.UUID(shared),
    }


@pytest.mark.parametrize("role", ["editor", "viewer", "client"])
def test_only_owners_and_admins_make_keys_in_a_workspace_and_others_touch_only_their_own(
    team, role
):
    """Creating takes `manage`; listing and revoking take none but reach only the caller's own
    keys (docs/api-keys.md: a member demoted below `manage` must still revoke theirs)."""
    shared = str(team.workspace.pk)
    member = team.users[role]
    client = team.client(role)
    kept = api_key_for(team.users["owner"], "posts:read", workspace=team.workspace)
    made_in_personal = create(client, name="mine")  # their own workspace: theirs to manage

    made = [create(client, workspaceId=shared), create(client, {"HTTP_X_WORKSPACE_ID": shared})]
    listed = client.get(KEYS, HTTP_X_WORKSPACE_ID=shared)
    revoked = client.delete(
        f"{KEYS}/{ApiKey.objects.get(prefix=kept[:12]).pk}", HTTP_X_WORKSPACE_ID=shared
    )

    assert [(r.status_code, r.json()["error"]) for r in made] == [(403, REFUSED)] * 2
    assert (listed.status_code, listed.json()["data"]) == (200, [])  # the owner's key not shown
    assert revoked.status_code == 404  # another member's key: never theirs to revoke
    assert made_in_personal.status_code == 200
    assert list(ApiKey.objects.filter(user=member).values_list("workspace__personal")) == [(True,)]
    assert client_with_key(kept).get("/api/auth/me").status_code == 200


def test_a_workspace_the_caller_is_not_in_is_404_whichever_way_it_is_named(team, bob_client):
    shared = str(team.workspace.pk)
    answers = [
        create(bob_client, workspaceId=shared),
        create(bob_client, {"HTTP_X_WORKSPACE_ID": shared}),
        create(bob_client, workspaceId=str(uuid.uuid4())),
        bob_client.get(KEYS, HTTP_X_WORKSPACE_ID=shared),
    ]

    assert [(r.status_code, r.json()["error"]["code"]) for r in answers] == [
        (404, "workspace_not_found")
    ] * 4
    assert not ApiKey.objects.exists()


def test_the_list_holds_the_caller_s_keys_of_the_request_s_workspace(team):
    owner, admin, shared = team.users["owner"], team.users["admin"], team.workspace
    api_key_for(owner, "posts:read", name="ada personal")
    api_key_for(owner, "posts:read", name="ada acme", workspace=shared)
    api_key_for(admin, "posts:read", name="admin acme", workspace=shared)
    header = {"HTTP_X_WORKSPACE_ID": str(shared.pk)}

    assert listed(team.client("owner")) == ["ada personal"]
    assert listed(team.client("owner"), **header) == ["ada acme"]
    assert listed(team.client("admin"), **header) == ["admin acme"]


def test_a_key_is_revoked_in_its_own_workspace_only(team):
    owner, shared = team.users["owner"], team.workspace
    secret = api_key_for(owner, "posts:read", workspace=shared)
    key = ApiKey.objects.get()
    client = team.client("owner")

    elsewhere = client.delete(f"{KEYS}/{key.pk}")  # the personal workspace: not there
    assert (elsewhere.status_code, elsewhere.json()["error"]["code"]) == (404, "not_found")
    assert client_with_key(secret).get("/api/auth/me").status_code == 200

    revoked = client.delete(f"{KEYS}/{key.pk}", HTTP_X_WORKSPACE_ID=str(shared.pk))
    assert revoked.status_code == 200
    assert client_with_key(secret).get("/api/auth/me").status_code == 401


def test_the_live_key_limit_counts_a_user_s_keys_in_every_workspace(team, monkeypatch):
    from accounts.services import api_keys

    monkeypatch.setattr(api_keys, "MAX_LIVE_KEYS", 2)
    client = team.client("owner")
    assert create(client).status_code == 200
    assert create(client, workspaceId=str(team.workspace.pk)).status_code == 200

    third = create(client, workspaceId=str(team.workspace.pk))

    assert (third.status_code, third.json()["error"]["code"]) == (409, "api_key_limit_reached")


def test_a_workspace_s_keys_go_with_it(team):
    secret = api_key_for(team.users["admin"], "posts:read", workspace=team.workspace)
    assert client_with_key(secret).get("/api/auth/me").status_code == 200

    workspace_delete(workspace=team.workspace)

    assert not ApiKey.objects.exists()
    assert client_with_key(secret).get("/api/auth/me").status_code == 401
