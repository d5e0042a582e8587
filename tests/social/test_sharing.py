"""Share links through HTTP (workspaces.md section 4): owners and admins make, list and revoke
them; whoever holds a calendar link reads the workspace's posts as JSON and as an iCalendar
feed (parsed back with the `icalendar` library: it validates and follows a post that moves);
nothing of the team leaks (account ids, tokens, e-mails). Tokens tried as an attacker would
(guessed, revoked, expired, another kind's, another workspace's) open nothing and change
nothing."""

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone
from icalendar import Calendar
from rest_framework.test import APIClient

from social.models import ScheduledRecord, ShareLink, SocialAccount
from tests.factories import UserFactory, client_for, shared_workspace
from tests.social.conftest import connect

pytestmark = pytest.mark.django_db

TRICKY = (
    "Spring menu; tarts, pies\nand a line that is long enough to be folded by the feed "
    "because it goes on and on, past seventy-five octets — café ☕ 🥐 \\ done"
)


@pytest.fixture
def devto(ada_client, providers) -> dict[str, Any]:
    response = connect(ada_client, "devto")
    assert response.status_code == 200, response.content
    return dict(response.json()["data"])


def personal(user: Any) -> str:
    return str(user.personal_workspace.pk)


def make_link(client: APIClient, workspace: str, kind: str = "calendar", **body: Any) -> Any:
    return client.post(
        f"/api/workspaces/{workspace}/share-links", {"kind": kind, **body}, format="json"
    )


def made(client: APIClient, workspace: str, kind: str = "calendar", **body: Any) -> dict:
    response = make_link(client, workspace, kind, **body)
    assert response.status_code == 200, response.content
    return dict(response.json()["data"])


def schedule(client: APIClient, account: dict[str, Any], hours: float = 2, **body: Any) -> dict:
    response = client.post(
        "/api/social/schedule",
        {"title": "Spring menu", "content": "Our spring menu is here",
         "accountIds": [account["id"]],
         "scheduledTime": (timezone.now() + timedelta(hours=hours)).isoformat(), **body},
        format="json",
    )  # fmt: skip
    assert response.status_code == 200, response.content
    return dict(response.json()["data"])


def feed(token: str) -> Any:
    response = APIClient().get(f"/api/public/calendar/{token}.ics")
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "text/calendar; charset=utf-8"
    return response


def events(response: Any) -> dict[str, Any]:
    calendar = Calendar.from_ical(response.content.decode())
    return {str(event["UID"]): event for event in calendar.walk("VEVENT")}


def test_an_owner_makes_lists_and_revokes_links(ada, ada_client, settings):
    settings.PUBLIC_URL = "https://api.example.com"
    workspace = personal(ada)
    calendar = made(ada_client, workspace)
    later = (timezone.now() + timedelta(days=7)).isoformat()
    report = made(ada_client, workspace, "report", expiresAt=later)

    assert calendar["kind"] == "calendar"
    assert calendar["status"] == "open"
    assert calendar["url"] == f"https://api.example.com/api/public/calendar/{calendar['token']}.ics"
    assert report["url"] == f"https://api.example.com/api/public/reports/{report['token']}"
    assert len(calendar["token"]) >= 43  # 32 random bytes, URL-safe
    assert report["expires_at"] is not None
    assert calendar["expires_at"] is None
    stored = str(list(ShareLink.objects.values()))
    assert calendar["token"] not in stored
    assert report["token"] not in stored

    listed = ada_client.get(f"/api/workspaces/{workspace}/share-links").json()["data"]
    assert [link["id"] for link in listed] == [report["id"], calendar["id"]]  # newest first
    assert not [link for link in listed if "token" in link or "url" in link]
    text = str(listed)
    assert calendar["token"] not in text
    assert report["token"] not in text

    revoked = ada_client.delete(f"/api/workspaces/{workspace}/share-links/{calendar['id']}")
    assert revoked.status_code == 200, revoked.content
    assert revoked.json()["data"]["status"] == "revoked"
    closed = APIClient().get(f"/api/public/calendar/{calendar['token']}")
    assert (closed.status_code, closed.json()["error"]["code"]) == (410, "share_link_closed")
    assert APIClient().get(f"/api/public/calendar/{calendar['token']}.ics").status_code == 410
    again = ada_client.delete(f"/api/workspaces/{workspace}/share-links/{calendar['id']}")
    assert again.status_code == 200  # revoking twice changes nothing
    statuses = [
        link["status"]
        for link in ada_client.get(f"/api/workspaces/{workspace}/share-links").json()["data"]
    ]
    assert statuses == ["open", "revoked"]


def test_links_are_for_owners_and_admins_and_checked(ada, ada_client, bob, bob_client):
    editor, viewer, client_user = (UserFactory.create() for _ in range(3))
    shared = shared_workspace(ada, members={editor: "editor", viewer: "viewer",
                                            client_user: "client", bob: "admin"})  # fmt: skip
    workspace = str(shared.pk)
    for user in (editor, viewer, client_user):
        refused = make_link(client_for(user), workspace)
        assert refused.status_code == 403, refused.content
        assert refused.json()["error"]["details"]["requiredRoles"] == ["owner", "admin"]
        assert client_for(user).get(f"/api/workspaces/{workspace}/share-links").status_code == 403
    assert make_link(bob_client, workspace).status_code == 200  # an admin may

    stranger = client_for(UserFactory.create())
    gone = make_link(stranger, workspace)
    assert (gone.status_code, gone.json()["error"]["code"]) == (404, "workspace_not_found")

    past = (timezone.now() - timedelta(minutes=1)).isoformat()
    bad = make_link(ada_client, workspace, expiresAt=past)
    assert bad.status_code == 400
    assert "expiresAt" in bad.json()["error"]["details"]
    assert make_link(ada_client, workspace, kind="everything").status_code == 400
    assert ShareLink.objects.count() == 1


def test_the_public_calendar_shows_the_posts_and_nothing_of_the_team(
    ada, ada_client, devto, providers
):
    link = made(ada_client, personal(ada))
    waiting = schedule(ada_client, devto, hours=3, content="Coming soon, a tart")
    published = ada_client.post(
        "/api/social/publish",
        {"title": "Bread", "content": "Fresh bread today", "accountIds": [devto["id"]]},
        format="json",
    )
    assert published.status_code == 200, published.content
    far = schedule(ada_client, devto, hours=24 * 61, content="Far away")  # past 60 days
    cancelled = schedule(ada_client, devto, hours=5, content="Never mind")
    (record,) = cancelled["scheduledRecords"]
    assert ada_client.delete(f"/api/social/schedule/{record['id']}").status_code == 200

    response = APIClient().get(f"/api/public/calendar/{link['token']}")
    assert response.status_code == 200, response.content
    assert response["Cache-Control"] == "private, no-store"
    data = response.json()["data"]
    contents = [post["content"] for post in data["posts"]]
    assert contents == ["Fresh bread today", "Coming soon, a tart"]
    out, coming = data["posts"]
    assert out["networks"] == ["devto"]
    assert coming["networks"] == ["devto"]
    (sent,) = out["records"]
    assert sent["status"] == "Published"
    assert sent["url"].startswith("http")
    (pending,) = coming["records"]
    assert pending["status"] == "Scheduled"
    assert pending["url"] == ""
    assert pending["scheduled_time"] == waiting["scheduledRecords"][0]["scheduled_time"]
    assert data["workspace"] == {"name": ada.personal_workspace.name}
    text = response.content.decode()
    account = SocialAccount.objects.get(pk=devto["id"])
    # The post's public URL names the account on its network; nothing else of it is shown.
    secrets = (devto["id"], ada.email, link["token"], str(ada.pk), account.access_token)
    for secret in filter(None, secrets):
        assert secret not in text, secret
    assert far["post"]["id"] not in text


def test_the_feed_is_rfc_5545_and_follows_a_post_that_moves(ada, ada_client, devto, providers):
    link = made(ada_client, personal(ada))
    post = schedule(ada_client, devto, hours=3, content=TRICKY, title="Spring; tarts, pies")
    (record,) = post["scheduledRecords"]
    ada_client.post(
        "/api/social/publish",
        {"title": "Out", "content": "Out now", "accountIds": [devto["id"]]},
        format="json",
    )

    first = feed(link["token"])
    raw = first.content
    assert raw.startswith(b"BEGIN:VCALENDAR\r\n")
    assert raw.endswith(b"END:VCALENDAR\r\n")
    assert all(len(line) <= 75 for line in raw.split(b"\r\n"))  # folded, in octets
    assert b"\n" not in raw.replace(b"\r\n", b"")  # CRLF only
    found = events(first)
    assert len(found) == 2
    uid = next(uid for uid in found if record["id"] in uid)
    event = found[uid]
    assert str(event["DESCRIPTION"]) == TRICKY  # escaped and folded, read back whole
    assert str(event["SUMMARY"]) == "DEV Community: Spring; tarts, pies"
    start = event["DTSTART"].dt
    assert start.utcoffset() == timedelta(0)
    stored = ScheduledRecord.objects.get(pk=record["id"]).scheduled_time
    assert abs((start - stored).total_seconds()) < 1  # whole seconds, in UTC
    assert "URL" not in event  # not out yet
    out = next(e for u, e in found.items() if u != uid)
    assert str(out["URL"]).startswith("http")
    assert str(out["STATUS"]) == "CONFIRMED"
    assert "DTSTAMP" in event

    moved_to = timezone.now() + timedelta(days=2)
    moved = ada_client.patch(
        f"/api/social/schedule/{record['id']}",
        {"scheduledTime": moved_to.isoformat()},
        format="json",
    )
    assert moved.status_code == 200, moved.content
    second = feed(link["token"])
    assert second.content != first.content
    after = events(second)
    assert set(after) == set(found)  # the same UIDs: the event moves, none is added
    assert abs((after[uid]["DTSTART"].dt - moved_to).total_seconds()) < 1
    assert after[uid]["DTSTART"].dt != start


def test_a_post_waiting_for_approval_is_tentative(ada, ada_client, devto, providers):
    link = made(ada_client, personal(ada))
    schedule(ada_client, devto, requiresApproval=True)
    ((_, event),) = events(feed(link["token"])).items()
    assert str(event["STATUS"]) == "TENTATIVE"
    (post,) = APIClient().get(f"/api/public/calendar/{link['token']}").json()["data"]["posts"]
    assert post["records"][0]["status"] == "PendingApproval"


def test_tokens_tried_as_an_attacker_would_open_nothing_and_change_nothing(
    ada, ada_client, bob, bob_client, devto, providers
):
    calendar = made(ada_client, personal(ada))
    report = made(ada_client, personal(ada), "report")
    expiring = made(
        ada_client, personal(ada), expiresAt=(timezone.now() + timedelta(hours=1)).isoformat()
    )
    schedule(ada_client, devto, content="Ada's secret plan")
    bobs = made(bob_client, personal(bob))
    before = list(ShareLink.objects.order_by("pk").values("pk", "revoked_at", "expires_at"))
    visitor = APIClient()

    guesses = ["a" * 43, calendar["token"][:-1] + "x", calendar["token"].upper(), "", "..",
               calendar["id"], report["token"] + ".ics"]  # fmt: skip
    for guess in guesses:
        for path in (f"/api/public/calendar/{guess}", f"/api/public/calendar/{guess}.ics",
                     f"/api/public/reports/{guess}"):  # fmt: skip
            response = visitor.get(path)
            assert response.status_code == 404, (path, response.status_code)
            assert "Ada's secret plan" not in response.content.decode()
    # A link opens its own kind only.
    assert visitor.get(f"/api/public/calendar/{report['token']}").status_code == 404
    assert visitor.get(f"/api/public/reports/{calendar['token']}").status_code == 404
    # Another workspace's link shows that workspace alone.
    shown = visitor.get(f"/api/public/calendar/{bobs['token']}").content.decode()
    assert "Ada's secret plan" not in shown
    # Expired: closed.
    ShareLink.objects.filter(pk=expiring["id"]).update(expires_at=timezone.now())
    closed = visitor.get(f"/api/public/calendar/{expiring['token']}")
    assert (closed.status_code, closed.json()["error"]["code"]) == (410, "share_link_closed")
    assert "Ada's secret plan" not in closed.content.decode()
    # Bob cannot list, revoke or make Ada's links, by her workspace or by his own.
    for workspace in (personal(ada), personal(bob)):
        path = f"/api/workspaces/{workspace}/share-links/{calendar['id']}"
        assert bob_client.delete(path).status_code == 404
    assert bob_client.get(f"/api/workspaces/{personal(ada)}/share-links").status_code == 404
    assert make_link(bob_client, personal(ada)).status_code == 404
    after = list(ShareLink.objects.order_by("pk").values("pk", "revoked_at", "expires_at"))
    expired_row = next(row for row in after if str(row["pk"]) == expiring["id"])
    assert [row for row in after if row is not expired_row] == [
        row for row in before if str(row["pk"]) != expiring["id"]
    ]
    assert visitor.get(f"/api/public/calendar/{calendar['token']}").status_code == 200


def test_public_links_are_rate_limited_per_address(ada, ada_client, monkeypatch):
    monkeypatch.setattr("social.throttling.PUBLIC_SHARE_REQUESTS_PER_HOUR", 3)
    link = made(ada_client, personal(ada))
    visitor = APIClient(REMOTE_ADDR="203.0.113.9")
    answers = [visitor.get(f"/api/public/calendar/{token}").status_code
               for token in ("guess-1", "guess-2", link["token"], link["token"])]  # fmt: skip
    assert answers == [404, 404, 200, 429]
    limited = visitor.get(f"/api/public/calendar/{link['token']}.ics")
    assert limited.status_code == 429
    assert int(limited["Retry-After"]) > 0
    other = APIClient(REMOTE_ADDR="203.0.113.10")
    assert other.get(f"/api/public/calendar/{link['token']}").status_code == 200


def test_a_calendar_app_asking_for_text_calendar_gets_the_feed(ada, ada_client):
    link = made(ada_client, personal(ada))
    response = APIClient().get(
        f"/api/public/calendar/{link['token']}.ics", HTTP_ACCEPT="text/calendar"
    )
    assert response.status_code == 200
    assert Calendar.from_ical(response.content.decode())["VERSION"] == "2.0"
    assert APIClient().get(f"/api/v1/public/calendar/{link['token']}.ics").status_code == 200


def test_a_workspace_has_at_most_so_many_open_links(ada, ada_client, monkeypatch):
    monkeypatch.setattr("social.planning.services.sharing.MAX_OPEN_LINKS", 2)
    workspace = personal(ada)
    first = made(ada_client, workspace)
    made(ada_client, workspace, "report")
    refused = make_link(ada_client, workspace)
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "share_link_limit")
    ada_client.delete(f"/api/workspaces/{workspace}/share-links/{first['id']}")
    assert make_link(ada_client, workspace).status_code == 200  # a revoked one is not counted
