"""Client sign-off through HTTP (workspaces.md section 3): a post that requires approval waits
in `PendingApproval`, which the scheduler never claims, and publish now is refused; a client
opens their link with no account, sees the previews, comments and approves, and the post goes
out at its time exactly once; an edit after that makes the approval stale and holds the post
again; a rejection makes it a draft with the comment. Links tried as an attacker would
(guessed, replayed after the decision, closed) change nothing."""

import re
from datetime import timedelta
from typing import Any

import pytest
from django.core import mail
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Workspace
from accounts.services.sessions import session_issue
from notifications.models import Notification, OutboxEvent
from social.models import ApprovalRequest, Post, PostComment, ScheduledRecord
from tests.factories import UserFactory, client_for, shared_workspace
from tests.social.conftest import connect
from tests.social.test_scheduler import make_due, run

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]


@pytest.fixture(autouse=True)
def exposed(settings) -> None:
    settings.MAGIC_LINK_EXPOSE_URL = True  # the links in the answers, as in development


class Visitor:
    """A visitor with no account (a client following their link), sending JSON."""

    def __init__(self) -> None:
        self.client = APIClient()

    def get(self, path: str, data: Any = None) -> Any:
        return self.client.get(path, data)

    def post(self, path: str, data: Any = None) -> Any:
        return self.client.post(path, data, format="json")


@pytest.fixture
def public() -> Visitor:
    return Visitor()


@pytest.fixture
def devto(ada_client, providers) -> dict[str, Any]:
    response = connect(ada_client, "devto")
    assert response.status_code == 200, response.content
    return dict(response.json()["data"])


def schedule(client: Any, account: dict[str, Any], **body: Any) -> dict[str, Any]:
    request = {
        "title": "Spring menu",
        "content": "Our spring menu is here",
        "scheduledTime": (timezone.now() + timedelta(hours=2)).isoformat(),
        "accountIds": [account["id"]],
        **body,
    }
    response = client.post("/api/social/schedule", request, format="json")
    assert response.status_code == 200, response.content
    data = response.json()["data"]
    return {**data["post"], "scheduledRecords": data["scheduledRecords"]}


def ask(client: Any, post_id: str, **body: Any) -> Any:
    return client.post(f"/api/social/posts/{post_id}/approval-requests", body, format="json")


def token_of(url: str) -> str:
    found = re.search(r"token=([\w-]+)", url)
    assert found is not None
    return found.group(1)


def statuses(post_id: str) -> list[str]:
    return list(ScheduledRecord.objects.filter(post_id=post_id).values_list("status", flat=True))


def published_now(client: Any, ids: list[str]) -> None:
    make_due(ids)
    assert run(client).status_code == 200


def test_a_client_approves_through_their_link_and_the_post_goes_out_once(
    ada_client, client, devto, providers, public, committed
):
    post = schedule(ada_client, devto, requiresApproval=True)
    post_id, record_ids = post["id"], [r["id"] for r in post["scheduledRecords"]]
    assert statuses(post_id) == ["PendingApproval"]
    published_now(client, record_ids)  # due, but held: the scheduler never claims it
    assert statuses(post_id) == ["PendingApproval"]
    assert providers.devto.posts == []
    refused = ada_client.post(
        "/api/social/publish", {"postId": post_id, "accountIds": [devto["id"]]}, format="json"
    )
    assert (refused.status_code, refused.json()["error"]["code"]) == (409, "approval_required")

    with committed():  # the e-mail goes once the request is stored
        asked = ask(ada_client, post_id, clientEmails=["Chef@Bakery.example"], message="For Friday")
    assert asked.status_code == 200, asked.content
    request = asked.json()["data"]
    assert (request["status"], request["postId"], request["message"]) == (
        "pending",
        post_id,
        "For Friday",
    )
    ((client_row),) = request["clients"]
    assert (client_row["email"], client_row["status"]) == ("chef@bakery.example", "pending")
    token = token_of(client_row["approveUrl"])
    (sent,) = mail.outbox
    assert sent.to == ["chef@bakery.example"]
    assert client_row["approveUrl"] in sent.body
    assert token not in str(ApprovalRequest.objects.values().get())

    seen = public.get(f"/api/public/approvals/{token}")
    assert seen.status_code == 200, seen.content
    shown = seen.json()["data"]
    assert (shown["status"], shown["workspace"]["name"], shown["message"]) == (
        "pending",
        "Personal",
        "For Friday",
    )
    assert shown["post"]["content"] == "Our spring menu is here"
    (preview,) = shown["previews"]
    assert preview["provider"] == "devto"
    assert "accountId" not in preview
    assert devto["id"] not in seen.content.decode()
    assert "ada@example.com" not in seen.content.decode()
    # The token is in the address: no shared cache keeps the page, no referrer carries it.
    assert (seen["Cache-Control"], seen["Referrer-Policy"], seen["X-Robots-Tag"]) == (
        "private, no-store",
        "no-referrer",
        "noindex",
    )

    commented = public.post(
        f"/api/public/approvals/{token}/comments", {"body": "Love it", "name": "Chef Ana"}
    )
    assert commented.status_code == 200, commented.content
    decided = public.post(
        f"/api/public/approvals/{token}/decision", {"decision": "approve", "name": "Chef Ana"}
    )
    assert (decided.status_code, decided.json()["data"]) == (200, {"status": "approved"})
    assert statuses(post_id) == ["Scheduled"]
    assert Post.objects.get(pk=post_id).approval == "approved"

    published_now(client, record_ids)
    published_now(client, record_ids)  # and again: nothing twice
    assert statuses(post_id) == ["Published"]
    assert len(providers.devto.posts) == 1
    comments = ada_client.get(f"/api/social/posts/{post_id}/comments").json()["data"]
    assert [(c["author"], c["body"]) for c in comments] == [
        ({"type": "client", "name": "Chef Ana"}, "Love it")
    ]
    events = list(OutboxEvent.objects.order_by("sequence").values_list("event", "actor"))
    assert ("approval.approved", {"type": "client", "name": "Chef Ana"}) in events
    assert ("post.commented", {"type": "client", "name": "Chef Ana"}) in events


def test_an_edit_after_approval_makes_it_stale_and_holds_the_post_again(
    ada_client, client, devto, public
):
    post = schedule(ada_client, devto, requiresApproval=True)
    post_id = post["id"]
    asked = ask(ada_client, post_id, clientEmails=["chef@bakery.example"]).json()["data"]
    token = token_of(asked["clients"][0]["approveUrl"])
    ada_decides = ada_client.post(
        f"/api/approval-requests/{asked['id']}/decision", {"decision": "approve"}
    )
    assert ada_decides.status_code == 200, ada_decides.content
    assert statuses(post_id) == ["Scheduled"]

    edited = ada_client.post(
        "/api/social/posts", {"id": post_id, "content": "Our summer menu is here"}, format="json"
    )
    assert edited.status_code == 200, edited.content
    assert statuses(post_id) == ["PendingApproval"]
    assert ApprovalRequest.objects.get(pk=asked["id"]).status == "stale"
    assert edited.json()["data"]["approval"] == "stale"
    assert OutboxEvent.objects.filter(event="approval.stale").count() == 1
    # The stale request takes no decision: the client's link is closed, a member is told why.
    closed = public.post(f"/api/public/approvals/{token}/decision", {"decision": "approve"})
    assert (closed.status_code, closed.json()["error"]["code"]) == (410, "approval_closed")
    again = ada_client.post(
        f"/api/approval-requests/{asked['id']}/decision", {"decision": "approve"}
    )
    assert (again.status_code, again.json()["error"]["code"]) == (409, "approval_stale")
    # Moving it is a change too; a new request for the new version is approved as usual.
    fresh = ask(ada_client, post_id).json()["data"]
    assert fresh["version"] != asked["version"]
    ok = ada_client.post(f"/api/approval-requests/{fresh['id']}/decision", {"decision": "approve"})
    assert ok.status_code == 200
    assert statuses(post_id) == ["Scheduled"]


def test_a_rejection_returns_the_post_to_draft_with_its_comment(ada_client, client, devto, public):
    post = schedule(ada_client, devto, requiresApproval=True)
    asked = ask(ada_client, post["id"], clientEmails=["chef@bakery.example"]).json()["data"]
    token = token_of(asked["clients"][0]["approveUrl"])
    rejected = public.post(
        f"/api/public/approvals/{token}/decision",
        {"decision": "reject", "comment": "Not the price list", "name": "Ana"},
    )
    assert rejected.status_code == 200, rejected.content
    shown = ada_client.get(f"/api/social/posts/{post['id']}").json()["data"]
    assert (shown["status"], shown["approval"]) == ("Draft", "rejected")
    assert statuses(post["id"]) == ["PendingApproval"]
    (comment,) = ada_client.get(f"/api/social/posts/{post['id']}/comments").json()["data"]
    assert (comment["author"], comment["body"]) == (
        {"type": "client", "name": "Ana"},
        "Not the price list",
    )
    assert Notification.objects.filter(type="approval_decided").count() == 1


def test_links_tried_as_an_attacker_would_change_nothing(ada_client, client, devto, bob, public):
    post = schedule(ada_client, devto, requiresApproval=True)
    asked = ask(ada_client, post["id"], clientEmails=["chef@bakery.example"]).json()["data"]
    token = token_of(asked["clients"][0]["approveUrl"])
    for guess in ("x" * 43, token[:-1] + ("A" if token[-1] != "A" else "B"), "../" + token):
        for method, path in (("get", ""), ("post", "/decision")):
            answer = getattr(public, method)(
                f"/api/public/approvals/{guess}{path}", {"decision": "approve"}
            )
            assert answer.status_code == 404, (guess, path)
    first = public.post(f"/api/public/approvals/{token}/decision", {"decision": "reject"})
    assert first.status_code == 200
    replay = public.post(f"/api/public/approvals/{token}/decision", {"decision": "approve"})
    assert (replay.status_code, replay.json()["error"]["code"]) == (410, "approval_closed")
    late = public.post(f"/api/public/approvals/{token}/comments", {"body": "Hello?"})
    assert late.status_code == 410
    assert public.get(f"/api/public/approvals/{token}").json()["data"]["status"] == "rejected"
    # Another user deciding the request by its id: as if it did not exist.
    other = client_for(bob).post(
        f"/api/approval-requests/{asked['id']}/decision", {"decision": "approve"}
    )
    assert other.status_code == 404
    assert ApprovalRequest.objects.get().status == "rejected"
    assert statuses(post["id"]) == ["PendingApproval"]


def test_an_expired_link_is_closed(ada_client, client, devto, public):
    post = schedule(ada_client, devto, requiresApproval=True)
    asked = ask(ada_client, post["id"], clientEmails=["chef@bakery.example"]).json()["data"]
    token = token_of(asked["clients"][0]["approveUrl"])
    ApprovalRequest.objects.update(expires_at=timezone.now() - timedelta(seconds=1))
    assert public.get(f"/api/public/approvals/{token}").json()["data"]["status"] == "expired"
    closed = public.post(f"/api/public/approvals/{token}/decision", {"decision": "approve"})
    assert closed.status_code == 410


def test_a_workspace_that_requires_approval_holds_every_post_until_it_is_lifted(
    ada, ada_client, client, devto
):
    personal = Workspace.objects.get(personal_user=ada)
    ruled = ada_client.patch(
        f"/api/workspaces/{personal.pk}", {"approvalRequired": True}, format="json"
    )
    assert ruled.status_code == 200, ruled.content
    post = schedule(ada_client, devto)
    assert statuses(post["id"]) == ["PendingApproval"]
    refused = ada_client.post(
        "/api/social/posts",
        {"id": post["id"], "content": "x", "requiresApproval": False},
        format="json",
    )
    assert refused.status_code == 400
    assert list(refused.json()["error"]["details"]) == ["requiresApproval"]
    lifted = ada_client.patch(
        f"/api/workspaces/{personal.pk}", {"approvalRequired": False}, format="json"
    )
    assert lifted.status_code == 200
    assert statuses(post["id"]) == ["Scheduled"]


def test_named_approvers_must_be_members_who_may_approve_and_alone_decide(ada, bob):
    carol, dave = UserFactory.create(email="carol@example.com"), UserFactory.create()
    team = shared_workspace(ada, members={bob: "editor", carol: "viewer", dave: "admin"})
    owner = APIClient()
    owner.credentials(
        HTTP_AUTHORIZATION=f"Bearer {session_issue(user=ada).token}",
        HTTP_X_WORKSPACE_ID=str(team.pk),
    )
    made = owner.post("/api/social/posts", {"content": "Draft for the team"}, format="json")
    post_id = made.json()["data"]["id"]
    for wrong in ([carol.pk], [UserFactory.create().pk]):
        refused = ask(owner, post_id, approverIds=[str(user_id) for user_id in wrong])
        assert refused.status_code == 400
        assert list(refused.json()["error"]["details"]) == ["approverIds"]
    asked = ask(owner, post_id, approverIds=[str(bob.pk)])
    assert asked.status_code == 200, asked.content
    request_id = asked.json()["data"]["id"]
    (told,) = Notification.objects.filter(type="approval_requested")
    assert told.user_id == bob.pk
    # Named: only Bob decides; the admin, not named, is as if the request did not exist.
    admin = client_for(dave).post(
        f"/api/approval-requests/{request_id}/decision", {"decision": "approve"}
    )
    assert admin.status_code == 404
    approved = client_for(bob).post(
        f"/api/approval-requests/{request_id}/decision", {"decision": "approve", "comment": "OK"}
    )
    assert approved.status_code == 200, approved.content
    assert approved.json()["data"]["status"] == "approved"
    assert PostComment.objects.get().body == "OK"
