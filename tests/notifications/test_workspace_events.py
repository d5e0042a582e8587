"""Events by workspace, through HTTP (workspaces.md section 1): every event carries its
`workspaceId` and its `actor`; `/api/events` carries the events of every workspace the caller
reads (`?workspace=` keeps one), stops carrying a workspace's the moment its member leaves, and
never carries them to a client-role member; a workspace's webhooks get its events only; and
`GET /api/workspaces/{id}/activity` tells its owners and admins who did what."""

from typing import Any

import pytest
from rest_framework.test import APIClient

from accounts.models import Workspace
from accounts.services.sessions import session_issue
from notifications.models import WebhookDelivery
from tests.factories import UserFactory, client_for, shared_workspace

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def settled(settings) -> None:
    settings.EVENTS_REPLAY_SETTLE_SECONDS = 0


@pytest.fixture
def acme(ada, bob) -> Workspace:
    """Ada's client workspace, Bob its editor."""
    return shared_workspace(ada, name="Acme Bakery", members={bob: "editor"})


def in_workspace(user: Any, workspace: Workspace | None = None) -> Any:
    """A signed-in client of `user` acting in `workspace` (None: no header, the personal one)."""
    client = APIClient()
    headers = {"HTTP_AUTHORIZATION": f"Bearer {session_issue(user=user).token}"}
    if workspace is not None:
        headers["HTTP_X_WORKSPACE_ID"] = str(workspace.pk)
    client.credentials(**headers)
    return client


def post(client: Any, title: str) -> str:
    response = client.post("/api/social/posts", {"content": "Hello", "title": title}, format="json")
    assert response.status_code == 200, response.content
    return str(response.json()["data"]["id"])


def titles(user: Any, **query: Any) -> list[tuple[str, str]]:
    response = client_for(user).get("/api/events", query)
    assert response.status_code == 200, response.content
    return [(event["type"], event["data"].get("title", "")) for event in response.json()["data"]]


def personal(user: Any) -> Workspace:
    return Workspace.objects.get(personal_user=user)


def test_an_event_names_its_workspace_and_who_did_it(ada, bob, acme):
    ada_post = post(in_workspace(ada, acme), "Ada's")
    bobs = in_workspace(bob, acme).post(
        "/api/social/posts", {"id": ada_post, "content": "Hi", "title": "Bob's"}, format="json"
    )
    assert bobs.status_code == 200, bobs.content
    events = client_for(ada).get("/api/events").json()["data"]
    assert [(e["type"], e["workspaceId"], e["actor"]) for e in events] == [
        ("post.created", str(acme.pk), {"type": "user", "id": str(ada.pk)}),
        # Bob edited Ada's post: his doing, though the post stays hers.
        ("post.updated", str(acme.pk), {"type": "user", "id": str(bob.pk)}),
    ]


def test_the_events_of_every_workspace_read_and_one_on_request(ada, bob, acme):
    post(in_workspace(ada), "Ada's own")
    post(in_workspace(ada, acme), "For Acme")
    post(in_workspace(bob), "Bob's own")
    assert titles(ada) == [("post.created", "Ada's own"), ("post.created", "For Acme")]
    # Bob reads Acme's, never Ada's personal workspace's.
    assert titles(bob) == [("post.created", "For Acme"), ("post.created", "Bob's own")]
    assert titles(ada, workspace=str(acme.pk)) == [("post.created", "For Acme")]
    assert titles(ada, workspace=str(personal(ada).pk)) == [("post.created", "Ada's own")]
    refused = client_for(bob).get("/api/events", {"workspace": str(personal(ada).pk)})
    assert (refused.status_code, refused.json()["error"]["code"]) == (404, "workspace_not_found")


def test_a_member_who_leaves_stops_receiving_the_workspaces_events(ada, bob, acme):
    post(in_workspace(ada, acme), "Before")
    removed = client_for(ada).delete(f"/api/workspaces/{acme.pk}/members/{bob.pk}")
    assert removed.status_code == 200, removed.content
    post(in_workspace(ada, acme), "After")
    assert titles(bob) == []
    gone = client_for(bob).get("/api/events", {"workspace": str(acme.pk)})
    assert (gone.status_code, gone.json()["error"]["code"]) == (404, "workspace_not_found")


def test_a_client_member_receives_none_of_the_workspaces_events(ada, acme):
    carol = UserFactory.create(email="carol@example.com")
    shared = shared_workspace(ada, name="Carol's shop", members={carol: "client"})
    post(in_workspace(ada, shared), "Draft for Carol")
    assert titles(carol) == []
    refused = client_for(carol).get("/api/events", {"workspace": str(shared.pk)})
    assert refused.status_code == 403
    assert refused.json()["error"]["details"]["requiredRoles"] == [
        "owner",
        "admin",
        "editor",
        "viewer",
    ]


def test_a_workspaces_webhooks_receive_its_events_only(ada, acme, committed):
    made = in_workspace(ada, acme).post(
        "/api/webhooks/endpoints",
        {"url": "http://127.0.0.1:9/acme", "events": ["post.created"]},
        format="json",
    )
    assert made.status_code == 200, made.content
    with committed():
        post(in_workspace(ada), "Ada's own")
        acme_post = post(in_workspace(ada, acme), "For Acme")
    (delivery,) = WebhookDelivery.objects.all()
    assert (str(delivery.endpoint_id), delivery.workspace_id) == (
        made.json()["data"]["id"],
        acme.pk,
    )
    assert f'"postId":"{acme_post}"' in delivery.body
    assert f'"workspaceId":"{acme.pk}"' in delivery.body


def test_the_activity_tells_owners_and_admins_who_did_what(ada, bob, acme):
    first = post(in_workspace(bob, acme), "Spring menu")
    in_workspace(ada, acme).delete(f"/api/social/posts/{first}")
    post(in_workspace(ada), "Not Acme's")
    response = client_for(ada).get(f"/api/workspaces/{acme.pk}/activity")
    assert response.status_code == 200, response.content
    body = response.json()
    assert [(e["type"], e["actor"], e["summary"]) for e in body["data"]] == [
        (
            "post.created",
            {"type": "user", "id": str(bob.pk), "name": "Bob"},
            'Created the post "Spring menu"',
        ),
        ("post.deleted", {"type": "user", "id": str(ada.pk), "name": "Ada"}, "Deleted a post"),
    ]
    assert all(set(e) == {"id", "type", "actor", "summary", "created_at"} for e in body["data"])
    # Resumed after the last one seen, as /api/events is.
    assert body["meta"]["nextCursor"] == str(body["data"][-1]["id"])
    after = client_for(ada).get(
        f"/api/workspaces/{acme.pk}/activity", {"after": str(body["data"][0]["id"])}
    )
    assert [e["type"] for e in after.json()["data"]] == ["post.deleted"]


def test_the_activity_is_for_owners_and_admins_of_the_workspace_only(ada, bob, acme):
    editor = client_for(bob).get(f"/api/workspaces/{acme.pk}/activity")
    assert editor.status_code == 403
    assert editor.json()["error"]["details"]["requiredRoles"] == ["owner", "admin"]
    outsider = UserFactory.create(email="eve@example.com")
    for workspace in (acme, personal(ada)):
        answer = client_for(outsider).get(f"/api/workspaces/{workspace.pk}/activity")
        assert (answer.status_code, answer.json()["error"]["code"]) == (
            404,
            "workspace_not_found",
        )
    bad = client_for(ada).get(f"/api/workspaces/{acme.pk}/activity", {"after": "x"})
    assert bad.status_code == 400
