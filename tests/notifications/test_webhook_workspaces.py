"""Webhook endpoints and deliveries belong to a workspace (workspaces.md sections 1 and 2, through
HTTP): managed by its owners and admins in the request's workspace, invisible from any other
(404), counted against the workspace's cap, bound keys acting in their workspace alone; events
go to the endpoints of the workspace they belong to (their user's personal one until events
carry a workspace); a disabled endpoint is reported to who may fix it."""

import uuid
from types import SimpleNamespace
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Workspace
from accounts.services.workspaces import workspace_delete, workspace_personal
from notifications import events
from notifications.models import Notification, OutboxEvent, WebhookDelivery, WebhookEndpoint
from notifications.services.webhooks import deliveries_create, deliveries_send, endpoints_for
from tests.factories import (
    UserFactory,
    api_key_for,
    client_for,
    client_with_key,
    shared_workspace,
)
from tests.notifications.test_webhook_deliveries import receiver  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db

ENDPOINTS = "/api/webhooks/endpoints"
DELIVERIES = "/api/webhooks/deliveries"
REFUSED = {"code": "permission_denied", "details": {"requiredRoles": ["owner", "admin"]}}


@pytest.fixture
def team(ada: Any) -> Any:
    """Ada's shared workspace "Acme Bakery" with a member of every other role, and a second
    one of Ada's, "Birch Studio", where the admin is a member too."""
    users = {"owner": ada}
    for role in ("admin", "editor", "viewer", "client"):
        users[role] = UserFactory.create(email=f"{role}@example.com")
    acme = shared_workspace(
        ada, members={users[role]: role for role in ("admin", "editor", "viewer", "client")}
    )
    birch = shared_workspace(ada, name="Birch Studio", members={users["admin"]: "admin"})
    return SimpleNamespace(
        workspace=acme, other=birch, users=users, client=lambda role: client_for(users[role])
    )


def into(workspace: Workspace) -> Any:
    return {"HTTP_X_WORKSPACE_ID": str(workspace.pk)}


def create(client: APIClient, url: str, headers: Any = None) -> Any:
    body = {"url": url, "events": ["credits.depleted"]}
    return client.post(ENDPOINTS, body, format="json", **(headers or {}))


def made(client: APIClient, url: str, headers: Any = None) -> dict[str, Any]:
    response = create(client, url, headers)
    assert response.status_code == 200, response.content
    return dict(response.json()["data"])


def urls(client: APIClient, **headers: Any) -> list[str]:
    response = client.get(ENDPOINTS, **headers)
    assert response.status_code == 200, response.content
    return sorted(endpoint["url"] for endpoint in response.json()["data"])


def test_an_endpoint_belongs_to_the_workspace_it_was_made_in(team):
    owner, admin = team.client("owner"), team.client("admin")
    made(owner, "https://127.0.0.1/personal")
    made(owner, "https://127.0.0.1/acme-by-owner", into(team.workspace))
    made(admin, "https://127.0.0.1/acme-by-admin", into(team.workspace))

    assert urls(owner) == ["https://127.0.0.1/personal"]
    acme = ["https://127.0.0.1/acme-by-admin", "https://127.0.0.1/acme-by-owner"]
    assert urls(owner, **into(team.workspace)) == acme
    assert urls(admin, **into(team.workspace)) == acme  # the workspace's, whoever made them
    assert urls(admin) == []  # the admin's personal workspace
    assert urls(owner, **into(team.other)) == []
    acme_rows = WebhookEndpoint.objects.filter(workspace=team.workspace)
    assert sorted(acme_rows.values_list("user__email", flat=True)) == [
        "ada@example.com",
        "admin@example.com",
    ]


def test_another_workspace_s_endpoints_and_deliveries_are_not_found(team, bob):
    endpoint = made(team.client("owner"), "https://127.0.0.1/acme", into(team.workspace))
    tested = team.client("owner").post(f"{ENDPOINTS}/{endpoint['id']}/test", **into(team.workspace))
    delivery = tested.json()["data"]["deliveryId"]
    assert WebhookDelivery.objects.get().workspace_id == team.workspace.pk
    # The admin, a member of both workspaces, in Birch; Ada in her personal workspace; Bob,
    # who is in neither, in his.
    callers = [
        (team.client("admin"), into(team.other)),
        (team.client("owner"), {}),
        (client_for(bob), {}),
    ]
    for client, headers in callers:
        answers = [
            client.get(f"{ENDPOINTS}/{endpoint['id']}", **headers),
            client.patch(
                f"{ENDPOINTS}/{endpoint['id']}", {"active": False}, format="json", **headers
            ),
            client.post(f"{ENDPOINTS}/{endpoint['id']}/rotate-secret", **headers),
            client.post(f"{ENDPOINTS}/{endpoint['id']}/test", **headers),
            client.delete(f"{ENDPOINTS}/{endpoint['id']}", **headers),
            client.get(f"{DELIVERIES}/{delivery}", **headers),
            client.post(f"{DELIVERIES}/{delivery}/redeliver", **headers),
        ]
        assert [(r.status_code, r.json()["error"]["code"]) for r in answers] == [
            (404, "not_found")
        ] * 7
        assert client.get(DELIVERIES, **headers).json()["data"] == []
        assert urls(client, **headers) == []
    # Bob cannot even name the workspace.
    for path in (ENDPOINTS, DELIVERIES):
        outside = client_for(bob).get(path, **into(team.workspace))
        assert (outside.status_code, outside.json()["error"]["code"]) == (
            404,
            "workspace_not_found",
        )
    assert WebhookEndpoint.objects.get().active is True
    assert WebhookDelivery.objects.count() == 1


@pytest.mark.parametrize("role", ["editor", "viewer", "client"])
def test_only_owners_and_admins_manage_webhooks_and_read_deliveries(team, role):
    endpoint = made(team.client("owner"), "https://127.0.0.1/acme", into(team.workspace))
    client, headers = team.client(role), into(team.workspace)

    answers = [
        client.get(ENDPOINTS, **headers),
        create(client, "https://127.0.0.1/mine", headers),
        client.get(f"{ENDPOINTS}/{endpoint['id']}", **headers),
        client.delete(f"{ENDPOINTS}/{endpoint['id']}", **headers),
        client.get(DELIVERIES, **headers),
    ]

    assert [(r.status_code, r.json()["error"]) for r in answers] == [(403, REFUSED)] * 5
    assert WebhookEndpoint.objects.count() == 1


def test_a_key_reads_the_endpoints_of_its_own_workspace_only(team):
    admin = team.users["admin"]
    made(team.client("admin"), "https://127.0.0.1/acme", into(team.workspace))
    made(team.client("admin"), "https://127.0.0.1/personal")
    acme_key = client_with_key(api_key_for(admin, "webhooks:write", workspace=team.workspace))
    personal_key = client_with_key(api_key_for(admin, "webhooks:write"))

    assert urls(acme_key) == ["https://127.0.0.1/acme"]  # no header: the key's workspace
    assert urls(acme_key, **into(team.workspace)) == ["https://127.0.0.1/acme"]
    assert urls(personal_key) == ["https://127.0.0.1/personal"]
    personal = workspace_personal(user=admin).workspace
    for key, other, bound in (
        (acme_key, personal, team.workspace),
        (acme_key, team.other, team.workspace),
        (personal_key, team.workspace, personal),
    ):
        refused = key.get(ENDPOINTS, **into(other))
        assert (refused.status_code, refused.json()["error"]) == (
            403,
            {"code": "permission_denied", "details": {"workspaceId": str(bound.pk)}},
        )
        assert create(key, "https://127.0.0.1/sneaky", into(other)).status_code == 403
    assert WebhookEndpoint.objects.count() == 2


def test_a_key_acts_with_its_user_s_role_of_now(team):
    admin = team.users["admin"]
    key = client_with_key(api_key_for(admin, "webhooks:write", workspace=team.workspace))
    assert key.get(ENDPOINTS).status_code == 200

    team.client("owner").patch(
        f"/api/workspaces/{team.workspace.pk}/members/{admin.pk}", {"role": "editor"}
    )

    refused = key.get(ENDPOINTS)
    assert (refused.status_code, refused.json()["error"]) == (403, REFUSED)


def test_the_endpoint_cap_is_per_workspace(team, settings):
    settings.WEBHOOK_ENDPOINTS_PER_USER = 2
    owner, admin, acme = team.client("owner"), team.client("admin"), into(team.workspace)
    made(owner, "https://127.0.0.1/acme-1", acme)
    made(admin, "https://127.0.0.1/acme-2", acme)  # one cap for all the workspace's members

    for client in (owner, admin):
        refused = create(client, "https://127.0.0.1/acme-3", acme)
        assert (refused.status_code, refused.json()["error"]) == (
            409,
            {"code": "webhook_endpoint_limit_reached", "details": {"limit": 2}},
        )
    # Another workspace of the same people has its own.
    made(owner, "https://127.0.0.1/personal-1")
    made(owner, "https://127.0.0.1/birch-1", into(team.other))
    made(admin, "https://127.0.0.1/admin-personal-1")
    assert WebhookEndpoint.objects.filter(workspace=team.workspace).count() == 2


def test_an_event_goes_to_the_endpoints_of_its_user_s_personal_workspace(
    team, django_capture_on_commit_callbacks
):
    owner = team.client("owner")
    personal = made(owner, "https://127.0.0.1/personal")
    made(owner, "https://127.0.0.1/acme", into(team.workspace))
    made(team.client("admin"), "https://127.0.0.1/admin-personal")
    ada = team.users["owner"]
    with django_capture_on_commit_callbacks():
        event = events.emit(
            user=ada, payload=events.credits_depleted(user_id=str(ada.pk), remaining_credits=0)
        )
    recorded = OutboxEvent.objects.get(id=event.id)
    assert [str(e.pk) for e in endpoints_for(recorded)] == [personal["id"]]

    with django_capture_on_commit_callbacks():
        assert deliveries_create(recorded) == 1

    delivery = WebhookDelivery.objects.get()
    assert (str(delivery.endpoint_id), delivery.workspace_id) == (
        personal["id"],
        Workspace.objects.get(personal_user=ada).pk,
    )


def test_a_disabled_endpoint_is_reported_to_the_workspace_s_owners_and_admins(
    team,
    receiver,  # noqa: F811 (the fixture imported above)
    django_capture_on_commit_callbacks,
):
    endpoint = made(team.client("admin"), receiver.url, into(team.workspace))
    WebhookDelivery.objects.create(
        endpoint_id=endpoint["id"],
        workspace=team.workspace,
        event_id=uuid.uuid4(),
        event="credits.depleted",
        body="{}",
        next_attempt_at=timezone.now(),
    )
    receiver.answers = [410]

    with django_capture_on_commit_callbacks(execute=True):
        deliveries_send()

    assert WebhookEndpoint.objects.get().active is False
    told = Notification.objects.filter(title="Webhook endpoint disabled")
    assert sorted(told.values_list("user__email", flat=True)) == [
        "ada@example.com",
        "admin@example.com",
    ]


def test_a_workspace_s_endpoints_and_deliveries_go_with_it(team):
    endpoint = made(team.client("owner"), "https://127.0.0.1/acme", into(team.workspace))
    team.client("owner").post(f"{ENDPOINTS}/{endpoint['id']}/test", **into(team.workspace))
    kept = made(team.client("owner"), "https://127.0.0.1/personal")

    workspace_delete(workspace=team.workspace)

    assert [str(pk) for pk in WebhookEndpoint.objects.values_list("pk", flat=True)] == [kept["id"]]
    assert not WebhookDelivery.objects.exists()
