"""Which workspace a request acts in: `X-Workspace-Id`, else the caller's personal one; a
workspace the caller is not a member of, or no workspace id at all, is 404
`workspace_not_found`; a credential bound to a workspace acts in it alone (workspaces.md
section 1)."""

import uuid
from types import SimpleNamespace

import pytest

from accounts.api.scoping import credential_workspace_id
from accounts.errors import PermissionRefused, WorkspaceNotFound
from accounts.models import Membership, User, Workspace
from accounts.services.workspaces import workspace_resolve
from tests.factories import api_key_for, client_for, client_with_key

pytestmark = [pytest.mark.urls("tests.accounts.workspace_urls"), pytest.mark.django_db]

PROBE = "/api/probe/workspace"
NOT_FOUND = {
    "success": False,
    "message": "No such workspace.",
    "error": {"code": "workspace_not_found", "details": {}},
}


def test_without_the_header_a_request_acts_in_the_personal_workspace(ada, ada_client):
    response = ada_client.get(PROBE)

    assert response.status_code == 200
    personal = Workspace.objects.get(personal_user=ada)
    assert response.json() == {
        "success": True,
        "data": {"workspaceId": str(personal.pk), "personal": True, "role": "owner"},
    }


@pytest.mark.parametrize("role", ["admin", "editor", "viewer", "client"])
def test_the_header_picks_a_workspace_the_caller_belongs_to(team, role):
    workspace_id = str(team.workspace.pk)

    for header in (workspace_id, workspace_id.upper(), f"  {workspace_id} "):
        response = team.client(role).get(PROBE, HTTP_X_WORKSPACE_ID=header)
        assert response.status_code == 200
        assert response.json()["data"] == {
            "workspaceId": workspace_id,
            "personal": False,
            "role": role,
        }


def test_a_workspace_of_others_a_made_up_one_and_no_id_at_all_are_one_404(team, bob_client):
    ada_personal = Workspace.objects.get(personal_user=team.users["owner"])

    answers = [
        bob_client.get(PROBE, HTTP_X_WORKSPACE_ID=header)
        for header in (
            str(team.workspace.pk),
            str(ada_personal.pk),
            str(uuid.uuid4()),
            "acme",
            "1 OR 1=1",
        )
    ]

    assert [(r.status_code, r.json()) for r in answers] == [(404, NOT_FOUND)] * 5


def test_another_member_s_personal_workspace_is_not_found_even_for_a_teammate(team):
    ada_personal = Workspace.objects.get(personal_user=team.users["owner"])

    response = team.client("admin").get(PROBE, HTTP_X_WORKSPACE_ID=str(ada_personal.pk))

    assert (response.status_code, response.json()) == (404, NOT_FOUND)


def test_an_api_key_acts_in_its_own_workspace_and_naming_another_is_403(team):
    admin = team.users["admin"]
    personal = str(Workspace.objects.get(personal_user=admin).pk)
    shared = str(team.workspace.pk)
    personal_key = client_with_key(api_key_for(admin, "posts:read"))
    shared_key = client_with_key(api_key_for(admin, "posts:read", workspace=team.workspace))

    assert personal_key.get(PROBE).json()["data"]["workspaceId"] == personal
    assert personal_key.get(PROBE, HTTP_X_WORKSPACE_ID=personal).status_code == 200
    assert shared_key.get(PROBE).json()["data"] == {
        "workspaceId": shared,  # no header: the key's workspace, not the personal one
        "personal": False,
        "role": "admin",
    }
    assert shared_key.get(PROBE, HTTP_X_WORKSPACE_ID=shared.upper()).status_code == 200

    for key, other, bound in ((personal_key, shared, personal), (shared_key, personal, shared)):
        refused = key.get(PROBE, HTTP_X_WORKSPACE_ID=other)
        assert (refused.status_code, refused.json()["error"]) == (
            403,
            {"code": "permission_denied", "details": {"workspaceId": bound}},
        )


def test_a_user_made_around_the_services_gets_a_personal_workspace_on_first_use(db):
    user = User.objects.create_user(email="shell@example.com")
    assert not Workspace.objects.filter(personal_user=user).exists()

    first = client_for(user).get(PROBE).json()["data"]
    second = client_for(user).get(PROBE).json()["data"]

    assert first == second
    assert first["personal"] is True
    assert list(Membership.objects.filter(user=user).values_list("role", flat=True)) == ["owner"]


def test_a_credential_bound_to_a_workspace_acts_in_it_alone(team):
    editor, workspace_id = team.users["editor"], team.workspace.pk

    assert workspace_resolve(user=editor, requested=None, bound=workspace_id).role == "editor"
    same = workspace_resolve(user=editor, requested=str(workspace_id).upper(), bound=workspace_id)
    assert same.workspace_id == workspace_id
    personal = str(Workspace.objects.get(personal_user=editor).pk)
    for header in (personal, "acme"):
        with pytest.raises(PermissionRefused) as refused:
            workspace_resolve(user=editor, requested=header, bound=workspace_id)
        assert refused.value.status_code == 403
        assert refused.value.details == {"workspaceId": str(workspace_id)}
    with pytest.raises(WorkspaceNotFound):  # no longer a member of the key's workspace
        workspace_resolve(user=team.users["owner"], requested=None, bound=uuid.uuid4())


def test_the_bound_workspace_is_read_from_the_credential():
    bound = uuid.uuid4()

    assert credential_workspace_id(SimpleNamespace(workspace_id=bound)) == bound
    assert credential_workspace_id(None) is None  # a session
    assert credential_workspace_id({"sid": "x"}) is None  # a session's claims
