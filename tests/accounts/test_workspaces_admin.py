"""The admin's workspaces: each with its members and invitations; shared ones deleted through
the service, personal ones never by hand."""

import pytest

from accounts.models import Invitation, Membership, Workspace

pytestmark = pytest.mark.django_db


def test_a_workspace_page_shows_its_members_and_invitations(admin_client, team):
    team.client("owner").post(
        f"/api/workspaces/{team.workspace.pk}/invitations",
        {"email": "grace@example.com", "role": "viewer"},
    )

    listing = admin_client.get("/admin/accounts/workspace/?q=editor@example.com")
    page = admin_client.get(f"/admin/accounts/workspace/{team.workspace.pk}/change/")

    assert listing.status_code == page.status_code == 200
    assert "Acme Bakery" in listing.content.decode()
    html = page.content.decode()
    for shown in ("editor@example.com", "client@example.com", "grace@example.com", "Viewer"):
        assert shown in html
    assert Invitation.objects.get(email="grace@example.com").token_hash not in html
    user_page = admin_client.get(f"/admin/accounts/user/{team.users['editor'].pk}/change/")
    assert "Workspaces" in user_page.content.decode()


def test_the_delete_action_removes_shared_workspaces_only(admin_client, team):
    personal = Workspace.objects.get(personal_user=team.users["owner"])

    response = admin_client.post(
        "/admin/accounts/workspace/",
        {"action": "delete_shared", "_selected_action": [str(team.workspace.pk), str(personal.pk)]},
    )

    assert response.status_code == 302
    assert not Workspace.objects.filter(pk=team.workspace.pk).exists()
    assert not Membership.objects.filter(workspace_id=team.workspace.pk).exists()
    assert Workspace.objects.filter(pk=personal.pk).exists()


def test_a_workspace_page_links_to_its_activity(admin_client, team):
    made = team.client("editor").post(
        "/api/social/posts",
        {"content": "Hello", "title": "Spring menu"},
        format="json",
        HTTP_X_WORKSPACE_ID=str(team.workspace.pk),
    )
    assert made.status_code == 200, made.content
    team.client("owner").post("/api/social/posts", {"content": "Elsewhere"}, format="json")

    page = admin_client.get(f"/admin/accounts/workspace/{team.workspace.pk}/change/")
    link = f"/admin/notifications/outboxevent/?workspace__id__exact={team.workspace.pk}"
    assert link in page.content.decode()
    events = admin_client.get(link)
    assert events.status_code == 200
    (shown,) = events.context_data["cl"].result_list
    assert (shown.event, shown.workspace_id) == ("post.created", team.workspace.pk)
