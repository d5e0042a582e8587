"""The social hub by workspace, through HTTP (workspaces.md sections 1 and 2): an owner's
client workspace where an invited editor drafts and schedules and an invited viewer only reads,
neither seeing the owner's personal workspace; and a sweep of every route under /api/social in
which another user, in their own workspace, names the first one's objects and never reaches
them (BOLA: 0 leaks)."""

from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from django.urls import URLPattern, URLResolver, get_resolver
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Workspace
from accounts.services.sessions import session_issue
from social.api.scoping import workspace_action
from social.models import (
    AccountQueue,
    Campaign,
    MediaItem,
    Post,
    ScheduledRecord,
    SocialAccount,
    SocialSettings,
)
from social.publishing import scheduler_run
from tests.factories import UserFactory, api_key_for, client_with_key, shared_workspace
from tests.social.conftest import REDIRECT_URI, connect

pytestmark = pytest.mark.django_db

EDITORS = ["owner", "admin", "editor"]  # who may write, preview, publish and schedule
MANAGERS = ["owner", "admin"]  # who may connect, disconnect and change the settings


def client_in(user: Any, workspace: Any = None) -> APIClient:
    """A signed-in client of `user` acting in `workspace` (its id; None: no header)."""
    client = APIClient()
    headers = {"HTTP_AUTHORIZATION": f"Bearer {session_issue(user=user).token}"}
    if workspace is not None:
        headers["HTTP_X_WORKSPACE_ID"] = str(workspace)
    client.credentials(**headers)
    return client


def later(hours: float = 2) -> str:
    return (timezone.now() + timedelta(hours=hours)).isoformat()


def refused(*roles: str) -> dict[str, Any]:
    return {
        "success": False,
        "message": "Your role in this workspace does not allow this.",
        "error": {"code": "permission_denied", "details": {"requiredRoles": list(roles)}},
    }


def not_a_member(response: Any) -> None:
    assert response.status_code == 404, response.content
    assert response.json()["error"]["code"] == "workspace_not_found"


@pytest.fixture
def acme(ada, settings, committed) -> dict[str, Any]:
    """Ada's client workspace "Acme Bakery", Bob its editor and Carol its viewer, both invited
    by e-mail and joined through their links."""
    settings.MAGIC_LINK_EXPOSE_URL = True
    owner = client_in(ada)
    created = owner.post("/api/workspaces", {"name": "Acme Bakery"})
    assert created.status_code == 200, created.content
    workspace_id = created.json()["data"]["id"]
    team = {"owner": ada}
    for name, role in (("bob", "editor"), ("carol", "viewer")):
        member = UserFactory.create(email=f"{name}@example.com", full_name=name.title())
        with committed():
            invited = owner.post(
                f"/api/workspaces/{workspace_id}/invitations",
                {"email": member.email, "role": role},
            )
        assert invited.status_code == 200, invited.content
        token = parse_qs(urlparse(invited.json()["data"]["inviteUrl"]).query)["token"][0]
        joined = client_in(member).post("/api/invitations/accept", {"token": token})
        assert joined.status_code == 200, joined.content
        team[role] = member
    return {"id": workspace_id, **team}


def test_an_editor_drafts_and_schedules_in_the_client_workspace_and_a_viewer_only_reads(
    ada, acme, providers
):
    owner, editor = client_in(ada, acme["id"]), client_in(acme["editor"], acme["id"])
    viewer = client_in(acme["viewer"], acme["id"])
    devto = connect(owner, "devto")
    assert devto.status_code == 200, devto.content
    account = devto.json()["data"]
    # Ada's own workspace holds her own account and post.
    personal = client_in(ada)
    own_account = connect(personal, "bluesky").json()["data"]
    own_post = personal.post("/api/social/posts", {"content": "Ada's own plans"}).json()["data"]

    draft = editor.post("/api/social/posts", {"title": "Spring menu", "content": "Fresh bread"})
    assert draft.status_code == 200, draft.content
    post = draft.json()["data"]
    assert post["user_id"] == str(acme["editor"].pk)  # the author: who wrote it
    scheduled = editor.post(
        "/api/social/schedule",
        {"postId": post["id"], "accountIds": [account["id"]], "scheduledTime": later()},
        format="json",
    )
    assert scheduled.status_code == 200, scheduled.content
    (record,) = scheduled.json()["data"]["scheduledRecords"]

    # The viewer reads all of it; the owner too; nothing of Ada's personal workspace.
    for reader in (viewer, owner):
        assert [p["id"] for p in reader.get("/api/social/posts").json()["data"]] == [post["id"]]
        assert reader.get(f"/api/social/posts/{post['id']}").status_code == 200
        assert [r["id"] for r in reader.get("/api/social/schedule").json()["data"]] == [
            record["id"]
        ]
        assert reader.get(f"/api/social/schedule/{record['id']}").status_code == 200
        assert [a["id"] for a in reader.get("/api/social/accounts").json()["data"]] == [
            account["id"]
        ]
        assert reader.get(f"/api/social/accounts/{account['id']}/health").status_code == 200
        assert reader.get(f"/api/social/queue/{account['id']}").status_code == 200
        assert reader.get("/api/social/analytics").status_code == 200
        assert reader.get(f"/api/social/posts/{own_post['id']}").status_code == 404

    # The viewer may not write, preview, schedule, publish, connect or change the settings.
    post_path, record_path = (
        f"/api/social/posts/{post['id']}",
        f"/api/social/schedule/{record['id']}",
    )
    attempts: list[tuple[str, str, dict[str, Any] | None, list[str]]] = [
        ("post", "/api/social/posts", {"id": post["id"], "content": "Stale bread"}, EDITORS),
        ("delete", post_path, None, EDITORS),
        ("post", "/api/social/preview", {"postId": post["id"]}, EDITORS),
        ("post", "/api/social/publish", {"postId": post["id"], "accountIds": [account["id"]]},
         EDITORS),
        ("post", "/api/social/schedule",
         {"postId": post["id"], "accountIds": [account["id"]], "scheduledTime": later(3)},
         EDITORS),
        ("patch", record_path, {"scheduledTime": later(5)}, EDITORS),
        ("delete", record_path, None, EDITORS),
        ("post", "/api/social/queue", {"postId": post["id"], "accountIds": [account["id"]]},
         EDITORS),
        ("put", f"/api/social/queue/{account['id']}", {"slots": []}, EDITORS),
        ("post", "/api/social/campaigns", {"name": "Summer"}, EDITORS),
        ("post", "/api/social/media",
         {"type": "image/png", "url": "https://cdn.example.com/a.png", "size": 10}, EDITORS),
        ("post", "/api/social/connect", {"provider": "devto", "code": "key"}, MANAGERS),
        ("post", "/api/social/disconnect", {"accountId": account["id"]}, MANAGERS),
        ("put", "/api/social/settings", {"autoRetry": False}, MANAGERS),
    ]  # fmt: skip
    for method, path, body, roles in attempts:
        response = getattr(viewer, method)(path, body, format="json")
        assert response.status_code == 403, (method, path, response.content)
        assert response.json() == refused(*roles), (method, path)
    # Nor may the editor connect, disconnect or change the workspace's settings.
    for method, path, body, roles in attempts[-3:]:
        response = getattr(editor, method)(path, body, format="json")
        assert response.json() == refused(*roles), (method, path)
    # Nothing they were refused happened.
    stored = Post.objects.get(pk=post["id"])
    assert (stored.content, stored.status) == ("Fresh bread", "Scheduled")
    assert ScheduledRecord.objects.get(pk=record["id"]).status == "Scheduled"
    assert SocialAccount.objects.get(pk=account["id"]).status == "connected"
    assert not Campaign.objects.exists()
    assert not MediaItem.objects.exists()
    assert not SocialSettings.objects.filter(workspace_id=acme["id"], auto_retry=False).exists()
    # Their own notification preferences are theirs to set, in any workspace.
    own = viewer.put(
        "/api/social/settings", {"notificationPreferences": {"postFailed": False}}, format="json"
    )
    assert own.status_code == 200, own.content
    assert own.json()["data"]["notificationPreferences"]["postFailed"] is False
    assert client_in(acme["viewer"]).get("/api/social/settings").json()["data"][
        "notificationPreferences"
    ]["postFailed"] is False  # fmt: skip
    assert owner.get("/api/social/settings").json()["data"]["notificationPreferences"][
        "postFailed"
    ] is True  # fmt: skip

    # Neither member sees the owner's personal workspace: naming it is 404, never a hint;
    # their own personal workspaces hold nothing of hers.
    ada_personal = Workspace.objects.get(personal_user=ada).pk
    for member in (acme["editor"], acme["viewer"]):
        intruder = client_in(member, ada_personal)
        for path in (
            "/api/social/posts",
            "/api/social/accounts",
            f"/api/social/posts/{own_post['id']}",
        ):
            not_a_member(intruder.get(path))
        mine = client_in(member)
        assert mine.get("/api/social/posts").json()["data"] == []
        assert mine.get("/api/social/accounts").json()["data"] == []
        assert mine.get(f"/api/social/posts/{post['id']}").status_code == 404
    # The owner's personal workspace does not hold the client's post or account.
    assert [p["id"] for p in personal.get("/api/social/posts").json()["data"]] == [own_post["id"]]
    assert [a["id"] for a in personal.get("/api/social/accounts").json()["data"]] == [
        own_account["id"]
    ]

    # The scheduler publishes the workspace's post once, whoever wrote it.
    ScheduledRecord.objects.filter(pk=record["id"]).update(due_at=timezone.now())
    scheduler_run()
    scheduler_run()
    assert ScheduledRecord.objects.get(pk=record["id"]).status == "Published"
    assert [p["title"] for p in providers.devto.posts] == ["Spring menu"]


# --- The sweep --------------------------------------------------------------------------------

A_SECRETS = ("Ada's launch plan", "Launch week", "https://cdn.example.com/ada-launch.png")


@pytest.fixture
def ada_hub(ada, providers) -> dict[str, Any]:
    """Ada's objects in her personal workspace, made through the API: a connected account
    with a queue, a campaign, a media item, a post scheduled to the account (its record), and
    a consent in flight (its `state`)."""
    client = client_in(ada)
    account = connect(client, "bluesky").json()["data"]
    queued = client.put(
        f"/api/social/queue/{account['id']}",
        {"timezone": "UTC", "slots": [{"day": "mon", "time": "09:00"}]},
        format="json",
    )
    assert queued.status_code == 200, queued.content
    campaign = client.post("/api/social/campaigns", {"name": "Launch week"}).json()["data"]
    media = client.post(
        "/api/social/media",
        {"type": "image/png", "url": A_SECRETS[2], "size": 1000, "filename": "ada.png"},
        format="json",
    ).json()["data"]
    scheduled = client.post(
        "/api/social/schedule",
        {
            "content": A_SECRETS[0],
            "campaignId": campaign["id"],
            "accountIds": [account["id"]],
            "scheduledTime": later(24),
        },
        format="json",
    )
    assert scheduled.status_code == 200, scheduled.content
    data = scheduled.json()["data"]
    authorize = client.get(
        "/api/social/connect/mastodon/authorize",
        {"redirectUri": REDIRECT_URI, "instance": providers.mastodon.url},
    )
    assert authorize.status_code == 200, authorize.content
    return {
        "account_id": account["id"],
        "post_id": data["post"]["id"],
        "record_id": data["scheduledRecords"][0]["id"],
        "campaign_id": campaign["id"],
        "media_id": media["id"],
        "state": authorize.json()["data"]["state"],
    }


def social_routes() -> list[tuple[str, str, Any]]:
    """Every URL pattern under /api/social/ and /api/v1/social/: (route, name, view class)."""
    found = []

    def walk(patterns: list[Any], prefix: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern):
                route = prefix + str(pattern.pattern)
                if route.startswith(("/api/social/", "/api/v1/social/")):
                    view = pattern.callback.cls  # type: ignore[attr-defined]
                    found.append((route, str(pattern.name), view))

    walk(get_resolver().url_patterns, "/")
    return found


def methods_of(view: Any) -> list[str]:
    return [m for m in ("get", "post", "put", "patch", "delete") if hasattr(view, m)]


# What Bob sends to each route, naming Ada's objects (their ids by name, filled in), and what
# he must get: 404 (not his: never a hint), 400 (ids refused as not his), or 200 with his own
# (empty) data. A route missing here fails the sweep: every route is walked.
SWEEP: dict[tuple[str, str], tuple[dict[str, Any] | None, set[int]]] = {
    ("social-platforms", "get"): (None, {200}),
    ("social-connect-authorize", "get"): ({"redirectUri": REDIRECT_URI}, {200}),
    ("social-connect", "post"): (
        {"provider": "linkedin", "code": "code", "state": "{state}", "redirectUri": REDIRECT_URI},
        {400},
    ),
    ("social-accounts", "get"): (None, {200}),
    ("social-account-health", "get"): (None, {404}),
    ("social-disconnect", "post"): ({"accountId": "{account_id}"}, {404}),
    ("social-posts", "get"): ({"campaignId": "{campaign_id}"}, {200}),
    ("social-posts", "post"): ({"id": "{post_id}", "content": "Hijacked"}, {404}),
    ("social-post", "get"): (None, {404}),
    ("social-post", "delete"): (None, {404}),
    ("social-post-approval-requests", "get"): (None, {404}),
    ("social-post-approval-requests", "post"): ({"message": "Hijacked"}, {404}),
    ("social-post-comments", "get"): (None, {404}),
    ("social-post-comments", "post"): ({"body": "Hijacked"}, {404}),
    ("social-publish", "post"): (
        {"postId": "{post_id}", "accountIds": ["{account_id}"]},
        {400, 404},
    ),
    ("social-preview", "post"): ({"postId": "{post_id}"}, {404}),
    ("social-schedule", "get"): ({"accountId": "{account_id}"}, {200}),
    ("social-schedule", "post"): (
        {"postId": "{post_id}", "accountIds": ["{account_id}"], "scheduledTime": "{later}"},
        {400, 404},
    ),
    ("social-campaigns", "get"): (None, {200}),
    ("social-campaigns", "post"): ({"id": "{campaign_id}", "name": "Hijacked"}, {404}),
    ("social-campaign", "get"): (None, {404}),
    ("social-campaign", "delete"): (None, {404}),
    ("social-media", "get"): (None, {200}),
    ("social-media", "post"): (
        {"type": "image/png", "url": "https://cdn.example.com/bob.png", "size": 10},
        {200},
    ),
    ("social-media-item", "patch"): ({"alt": "Hijacked"}, {404}),
    ("social-media-item", "delete"): (None, {404}),
    ("social-settings", "get"): (None, {200}),
    ("social-settings", "put"): ({"autoRetry": False}, {200}),
    ("social-scheduler", "post"): (None, {401, 403}),
    ("social-analytics", "get"): ({"accountId": "{account_id}", "postId": "{post_id}"}, {200}),
    ("social-analytics-refresh", "post"): ({"accountId": "{account_id}"}, {404}),
    ("social-schedule-record", "get"): (None, {404}),
    ("social-schedule-record", "patch"): ({"scheduledTime": "{later}"}, {404}),
    ("social-schedule-record", "delete"): (None, {404}),
    ("social-retry", "post"): ({"accountId": "{account_id}"}, {404}),
    ("social-schedule-retry", "post"): (None, {404}),
    ("social-schedule-resolve", "post"): ({"action": "abandon"}, {404}),
    ("social-queue", "post"): ({"postId": "{post_id}", "accountIds": ["{account_id}"]}, {400}),
    ("social-queue-account", "get"): (None, {404}),
    ("social-queue-account", "put"): ({"slots": []}, {404}),
    ("social-queue-reorder", "post"): ({"recordIds": ["{record_id}"]}, {404}),
    ("social-queue-suggest", "post"): (None, {404}),
    ("social-best-times", "get"): ({"accountId": "{account_id}"}, {404}),
    # The AI tools are the user's, across workspaces (workspaces.md section 1): a request
    # missing its fields is refused, and names nothing of Ada's.
    ("ai-social_ai_generate", "post"): ({}, {400}),
}


def filled(value: Any, ids: dict[str, str]) -> Any:
    """`value` with "{name}" placeholders replaced by Ada's ids (and a time to come)."""
    if isinstance(value, dict):
        return {key: filled(item, ids) for key, item in value.items()}
    if isinstance(value, list):
        return [filled(item, ids) for item in value]
    if isinstance(value, str) and value.startswith("{") and value.endswith("}"):
        return later(48) if value == "{later}" else ids[value[1:-1]]
    return value


def path_of(route: str, ids: dict[str, str]) -> str:
    """The route with its parameters: Ada's object of that name, a platform."""
    for name, value in {**ids, "provider": "linkedin"}.items():
        for converter in ("uuid", "str"):
            route = route.replace(f"<{converter}:{name}>", str(value))
    assert "<" not in route, f"a parameter the sweep does not know: {route}"
    return route


def ada_state(ids: dict[str, str]) -> dict[str, Any]:
    """What Ada has, to compare before and after the sweep."""
    return {
        "post": Post.objects.filter(pk=ids["post_id"]).values_list("content", "status").first(),
        "record": ScheduledRecord.objects.filter(pk=ids["record_id"])
        .values_list("status", "scheduled_time", "queued")
        .first(),
        "account": SocialAccount.objects.filter(pk=ids["account_id"])
        .values_list("status", "access_token")
        .first(),
        "queue": AccountQueue.objects.filter(account__pk=ids["account_id"])
        .values_list("slots", flat=True)
        .first(),
        "campaign": Campaign.objects.filter(pk=ids["campaign_id"]).values_list("name").first(),
        "media": MediaItem.objects.filter(pk=ids["media_id"]).values_list("alt", "url").first(),
    }


def test_every_route_under_social_is_scoped_to_the_callers_workspace(ada, bob, ada_hub):
    ids = {name: value for name, value in ada_hub.items() if name != "state"}
    secrets = {**ids, "state": ada_hub["state"]}
    before = ada_state(ids)
    bob_workspace = Workspace.objects.get(personal_user=bob).pk
    ada_workspace = Workspace.objects.get(personal_user=ada).pk
    bob_client = client_in(bob, bob_workspace)
    intruder = client_in(bob, ada_workspace)
    routes = social_routes()
    walked = set()
    for route, name, view in routes:
        path = path_of(route, ids)
        for method in methods_of(view):
            assert (name, method) in SWEEP, f"{method.upper()} {route}: not in the sweep"
            walked.add((name, method))
            body, expected = SWEEP[name, method]
            data = filled(body, secrets) if body is not None else None
            response = getattr(bob_client, method)(
                path, data, format=None if method == "get" else "json"
            )
            where = f"{method.upper()} {path}"
            assert response.status_code in expected, (where, response.status_code, response.content)
            text = response.content.decode()
            assert not any(secret in text for secret in A_SECRETS), where
            if response.status_code < 300:  # his own data: not one of Ada's ids in it
                assert not any(str(value) in text for value in ids.values()), where
            # Naming Ada's workspace: 404 on every route of a workspace's data, before anything.
            if workspace_action(view, method) is not None:
                not_a_member(
                    getattr(intruder, method)(
                        path, data, format=None if method == "get" else "json"
                    )
                )
    assert walked == set(SWEEP)  # every route of the sweep exists
    assert ada_state(ids) == before  # and nothing of Ada's changed


def test_every_route_declares_the_role_each_method_needs(ada):
    """Each view under /api/social either is a workspace's (every method it answers declares
    its action of the permission table) or serves no workspace's data: the platforms'
    catalog, the cron-triggered scheduler run, and the AI tools (the user's own, across
    workspaces: workspaces.md section 1)."""
    unscoped = {"social-platforms", "social-scheduler", "ai-social_ai_generate"}
    for route, name, view in social_routes():
        for method in methods_of(view):
            action = workspace_action(view, method)
            if name in unscoped:
                assert action is None, route
            else:
                assert action is not None, f"{method.upper()} {route} declares no action"


# --- A workspace's hub data goes with it ---------------------------------------------------------


def hub_in(client: APIClient, provider: str, name: str, **extra: Any) -> dict[str, Any]:
    """In the client's workspace: an account, a post scheduled to it, an uploaded image."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    from tests.social.test_takeover_and_erasure import png

    account = connect(client, provider, **extra).json()["data"]
    scheduled = client.post(
        "/api/social/schedule",
        {"content": name, "accountIds": [account["id"]], "scheduledTime": later()},
        format="json",
    )
    assert scheduled.status_code == 200, scheduled.content
    upload = client.post(
        "/api/social/media", {"file": SimpleUploadedFile(f"{name}.png", png())}, format="multipart"
    )
    assert upload.status_code == 200, upload.content
    media = MediaItem.objects.get(pk=upload.json()["data"]["id"])
    return {"account": account["id"], "post": scheduled.json()["data"]["post"]["id"],
            "file": media.file.name}  # fmt: skip


def test_deleting_a_workspace_removes_its_hub_data_and_nothing_else(
    ada, acme, providers, django_capture_on_commit_callbacks
):
    from django.core.files.storage import default_storage

    owner = client_in(ada, acme["id"])
    theirs = hub_in(owner, "mastodon", "Acme launch", instance=providers.mastodon.url)
    mine = hub_in(client_in(ada), "bluesky", "Ada's own")

    with django_capture_on_commit_callbacks(execute=True):
        deleted = client_in(ada).delete(f"/api/workspaces/{acme['id']}")
    assert deleted.status_code == 200, deleted.content

    for model in (SocialAccount, Post, ScheduledRecord, MediaItem, Campaign):
        assert not model.objects.filter(workspace_id=acme["id"]).exists(), model
    assert not AccountQueue.objects.filter(account__workspace_id=acme["id"]).exists()
    assert not default_storage.exists(theirs["file"])
    assert providers.mastodon.received("POST", "/oauth/revoke")  # after the commit
    # Ada's personal workspace keeps everything of its own.
    assert SocialAccount.objects.get(pk=mine["account"]).status == "connected"
    assert Post.objects.filter(pk=mine["post"]).exists()
    assert default_storage.exists(mine["file"])
    assert [p["id"] for p in client_in(ada).get("/api/social/posts").json()["data"]] == [
        mine["post"]
    ]


def test_a_shared_workspace_outlives_an_erased_member_with_what_they_wrote(
    ada, acme, providers, django_capture_on_commit_callbacks
):
    """Bob, Acme's editor, writes a post there and is erased: his personal workspace's hub
    goes, Acme keeps his post and its schedule; the scheduler still publishes it."""
    owner = client_in(ada, acme["id"])
    account = connect(owner, "devto").json()["data"]
    editor = acme["editor"]
    written = client_in(editor, acme["id"]).post(
        "/api/social/schedule",
        {"title": "Bob's", "content": "For Acme", "accountIds": [account["id"]],
         "scheduledTime": later()},
        format="json",
    )  # fmt: skip
    assert written.status_code == 200, written.content
    record_id = written.json()["data"]["scheduledRecords"][0]["id"]
    own = client_in(editor).post("/api/social/posts", {"content": "Bob's own"}).json()["data"]

    from accounts.services.users import user_erase

    with django_capture_on_commit_callbacks(execute=True):
        user_erase(user=editor)

    assert not Post.objects.filter(pk=own["id"]).exists()  # his personal workspace's: gone
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (str(record.workspace_id), record.status) == (acme["id"], "Scheduled")
    ScheduledRecord.objects.filter(pk=record_id).update(due_at=timezone.now())
    scheduler_run()
    assert ScheduledRecord.objects.get(pk=record_id).status == "Published"
    assert [p["title"] for p in providers.devto.posts] == ["Bob's"]


def test_an_api_key_acts_in_its_own_workspace_on_the_hub(ada):
    """A key belongs to the workspace it was made in (workspaces.md section 1): on the hub it
    reads and writes there without the header, and naming another workspace is 403."""
    acme = shared_workspace(ada)
    personal = client_in(ada)
    assert personal.post("/api/social/posts", {"content": "Personal note"}).status_code == 200
    in_acme = client_in(ada, acme.pk)
    assert in_acme.post("/api/social/posts", {"content": "Acme's launch"}).status_code == 200

    key = client_with_key(api_key_for(ada, "posts:read", "posts:write", workspace=acme))
    listed = key.get("/api/social/posts")
    assert listed.status_code == 200
    assert [post["content"] for post in listed.json()["data"]] == ["Acme's launch"]
    made = key.post("/api/social/posts", {"content": "Written by the key"})
    assert made.status_code == 200
    assert Post.objects.get(pk=made.json()["data"]["id"]).workspace_id == acme.pk

    elsewhere = key.get("/api/social/posts", HTTP_X_WORKSPACE_ID=str(ada.personal_workspace.pk))
    assert elsewhere.status_code == 403
    assert elsewhere.json()["error"]["code"] == "permission_denied"
