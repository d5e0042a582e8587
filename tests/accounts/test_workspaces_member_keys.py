"""A member removed from a workspace, or leaving it, loses their API keys for it at once, in the
removing transaction (workspaces.md section 2); their keys elsewhere and the other members'
keys keep working."""

from typing import Any

import pytest

from accounts.models import ApiKey, Membership
from accounts.services import members
from accounts.services.api_keys import api_keys_revoke_member
from tests.factories import api_key_for, client_with_key

pytestmark = pytest.mark.django_db

ME = "/api/auth/me"


def member_url(team: Any, user: Any) -> str:
    return f"/api/workspaces/{team.workspace.pk}/members/{user.pk}"


def works(secret: str) -> bool:
    status = client_with_key(secret).get(ME).status_code
    assert status in (200, 401)
    return status == 200


@pytest.mark.parametrize("leaving", [False, True], ids=["removed", "leaving"])
def test_a_removed_member_s_keys_for_the_workspace_stop_at_once(team, leaving):
    admin, owner = team.users["admin"], team.users["owner"]
    shared_key = api_key_for(admin, "posts:read", workspace=team.workspace)
    personal_key = api_key_for(admin, "posts:read")
    owner_key = api_key_for(owner, "posts:read", workspace=team.workspace)
    assert works(shared_key)

    remover = team.client("admin" if leaving else "owner")
    response = remover.delete(member_url(team, admin))

    assert response.status_code == 200
    assert not works(shared_key)  # the very next request
    revoked = ApiKey.objects.get(prefix=shared_key[:12])
    assert revoked.revoked_at is not None  # kept, revoked, for the admin's audit trail
    assert works(personal_key)
    assert works(owner_key)


def test_a_demoted_member_keeps_their_keys_until_removed(team):
    admin = team.users["admin"]
    key = api_key_for(admin, "posts:read", workspace=team.workspace)
    owner = team.client("owner")

    owner.patch(member_url(team, admin), {"role": "editor"})
    assert works(key)

    owner.delete(member_url(team, admin))
    assert not works(key)


def test_a_refused_removal_revokes_nothing(team):
    key = api_key_for(team.users["admin"], "posts:read", workspace=team.workspace)

    refused = team.client("editor").delete(member_url(team, team.users["admin"]))

    assert refused.status_code == 403
    assert works(key)


def test_the_revocation_is_part_of_the_removal_s_transaction(team, monkeypatch):
    admin = team.users["admin"]
    key = api_key_for(admin, "posts:read", workspace=team.workspace)

    def revoke_then_fail(**kwargs: Any) -> int:
        api_keys_revoke_member(**kwargs)
        raise RuntimeError("the database went away")

    monkeypatch.setattr(members, "api_keys_revoke_member", revoke_then_fail)
    owner = team.client("owner")
    owner.raise_request_exception = False

    assert owner.delete(member_url(team, admin)).status_code == 500
    assert Membership.objects.filter(workspace=team.workspace, user=admin).exists()
    assert works(key)


def test_a_demoted_member_still_finds_and_revokes_their_own_keys(team):
    """Creating a key takes `manage`; seeing and revoking one's own never does: a member
    demoted below it still holds the keys made before (docs/workspaces.md)."""
    admin = team.users["admin"]
    key = api_key_for(admin, "posts:read", workspace=team.workspace)
    team.client("owner").patch(member_url(team, admin), {"role": "viewer"})
    demoted = team.client("admin")
    headers = {"HTTP_X_WORKSPACE_ID": str(team.workspace.pk)}

    listed = demoted.get("/api/auth/api-keys", **headers)
    assert listed.status_code == 200
    [shown] = listed.json()["data"]
    made = demoted.post(
        "/api/auth/api-keys", {"name": "n", "scopes": ["posts:read"]}, format="json", **headers
    )
    assert made.status_code == 403

    assert demoted.delete(f"/api/auth/api-keys/{shown['id']}", **headers).status_code == 200
    assert not works(key)
