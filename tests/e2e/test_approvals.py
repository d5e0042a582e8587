"""An end-to-end check of client sign-off (workspaces.md section 3), through HTTP against a
server started the way a newcomer starts it.

Run by `pytest -m e2e` (.ci/run does), against `make run` on a database of its own.

It starts a Dev.to stand-in (tests/social/standins.py) and `make run` pointed at it (magic-link
URLs exposed, as in development, so the client's link is in the answer), then checks, printing
one line each: a user signs up, connects Dev.to and makes their workspace require approval; a
post scheduled a few seconds ahead waits in `PendingApproval` past its time, and publish now is
refused; a client, with no account, opens their link, sees the previews, comments and approves,
and the worker's timer publishes the post exactly once; a second post approved and then edited
is held again, its approval stale; a third is rejected with a comment and is a draft again.
Exits non-zero on the first failed check; stops the server either way.
"""

import re
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.e2e.checks import Check, against_server, call, sign_up
from tests.harness import free_port
from tests.social.standins import DEVTO_KEY, DevtoStandIn, serve

check = Check("approvals")


def record(base: str, token: str, record_id: str) -> Any:
    status, found = call(base, "GET", f"/api/social/schedule/{record_id}", token=token)
    return found["data"] if status == 200 else found


def schedule(base: str, token: str, account: str, content: str, seconds: float) -> Any:
    when = (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()
    body = {"title": content, "content": content, "scheduledTime": when, "accountIds": [account]}
    status, answer = call(base, "POST", "/api/social/schedule", body, token)
    check(status == 200, f"scheduled {seconds:.0f} s ahead: {content}", answer)
    return answer["data"]


def ask(base: str, token: str, post_id: str) -> tuple[str, str]:
    """(the request's id, the client's token) of a request to one client."""
    status, asked = call(
        base,
        "POST",
        f"/api/social/posts/{post_id}/approval-requests",
        {"clientEmails": ["chef@bakery.example"], "message": "For Friday"},
        token,
    )
    check(status == 200 and asked["data"]["status"] == "pending", "approval requested", asked)
    url = asked["data"]["clients"][0]["approveUrl"]
    found = re.search(r"token=([\w-]+)", url)
    check(found is not None, "the client's link carries its token", url)
    return asked["data"]["id"], found.group(1) if found else ""


def walk(base: str, devto: Any) -> None:
    login = sign_up(base, check)
    token, workspace = login["token"], None
    status, workspaces = call(base, "GET", "/api/workspaces", token=token)
    workspace = workspaces["data"][0]["id"]
    status, ruled = call(
        base, "PATCH", f"/api/workspaces/{workspace}", {"approvalRequired": True}, token
    )
    check(status == 200 and ruled["data"]["approval_required"], "the workspace requires approval")
    status, account = call(
        base, "POST", "/api/social/connect", {"provider": "devto", "code": DEVTO_KEY}, token
    )
    check(status == 200, "Dev.to connects", account)
    account_id = account["data"]["id"]

    data = schedule(base, token, account_id, "Our spring menu is here", 3)
    post_id, record_id = data["post"]["id"], data["scheduledRecords"][0]["id"]
    time.sleep(5)  # past its time: the timer does not take it
    held = record(base, token, record_id)
    check(held["status"] == "PendingApproval" and not devto.posts, "held past its time", held)
    status, refused = call(
        base, "POST", "/api/social/publish", {"postId": post_id, "accountIds": [account_id]}, token
    )
    check(
        status == 409 and refused["error"]["code"] == "approval_required",
        "publish now refused",
        refused,
    )

    _, client = ask(base, token, post_id)
    status, shown = call(base, "GET", f"/api/public/approvals/{client}")
    check(
        status == 200
        and shown["data"]["post"]["content"] == "Our spring menu is here"
        and shown["data"]["previews"][0]["provider"] == "devto"
        and account_id not in str(shown),
        "the client sees the post and its preview, no account id",
        shown,
    )
    status, said = call(
        base, "POST", f"/api/public/approvals/{client}/comments", {"body": "Love it", "name": "Ana"}
    )
    check(status == 200, "the client comments", said)
    status, decided = call(
        base, "POST", f"/api/public/approvals/{client}/decision", {"decision": "approve"}
    )
    check(status == 200 and decided["data"]["status"] == "approved", "the client approves")
    deadline, done = time.monotonic() + 20, held
    while time.monotonic() < deadline and done.get("status") != "Published":
        time.sleep(1.0)
        done = record(base, token, record_id)
    time.sleep(2)  # a second pass of the timer finds nothing to do
    check(
        done.get("status") == "Published" and len(devto.posts) == 1,
        "published once by the worker's timer",
        done,
    )
    status, again = call(
        base, "POST", f"/api/public/approvals/{client}/decision", {"decision": "reject"}
    )
    check(status == 410, "the link takes no second decision", again)

    later = schedule(base, token, account_id, "Summer menu", 3600)
    later_post, later_record = later["post"]["id"], later["scheduledRecords"][0]["id"]
    request_id, _ = ask(base, token, later_post)
    status, mine = call(
        base,
        "POST",
        f"/api/approval-requests/{request_id}/decision",
        {"decision": "approve"},
        token,
    )
    check(record(base, token, later_record)["status"] == "Scheduled", "a member approves", mine)
    status, edited = call(
        base, "POST", "/api/social/posts", {"id": later_post, "content": "Autumn menu"}, token
    )
    check(
        status == 200
        and edited["data"]["approval"] == "stale"
        and record(base, token, later_record)["status"] == "PendingApproval",
        "an edit after the approval holds it again, the approval stale",
        edited,
    )

    third = schedule(base, token, account_id, "Price list", 3600)
    _, client = ask(base, token, third["post"]["id"])
    status, decided = call(
        base,
        "POST",
        f"/api/public/approvals/{client}/decision",
        {"decision": "reject", "comment": "Not the prices"},
    )
    status, post = call(base, "GET", f"/api/social/posts/{third['post']['id']}", token=token)
    status, comments = call(
        base, "GET", f"/api/social/posts/{third['post']['id']}/comments", token=token
    )
    check(
        post["data"]["status"] == "Draft"
        and [c["body"] for c in comments["data"]] == ["Not the prices"],
        "a rejection: a draft again, with the comment",
        {"post": post, "comments": comments},
    )
    check(len(devto.posts) == 1, "nothing else was published")


@pytest.mark.e2e
@pytest.mark.server
def test_approvals(services: dict[str, str]) -> None:
    port, command = free_port(), ["make", "run"]
    with serve(DevtoStandIn()) as devto:
        env = {
            **services,
            "DEVTO_API_URL": f"{devto.url}/api",
            "OUTBOUND_ALLOW_PRIVATE": "true",
            "MAGIC_LINK_EXPOSE_URL": "true",
        }
        against_server(command, port, env, check, lambda base: walk(base, devto))
