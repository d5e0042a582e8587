"""The live feed by workspace (workspaces.md section 1), against the real server (two
processes), embedded and with Redis: a member's open stream carries the workspace's events,
and stops carrying them the moment the member is removed, while their own events still come;
`?workspace=` keeps a stream to one workspace the caller belongs to."""

import time
from typing import Any

import pytest
import requests

from tests.notifications.test_livefeed import (
    MODES,
    Reader,
    _shell,
    feed_server,
    manage,
    open_stream,
    sign_in,
)

pytestmark = pytest.mark.server

SHARE = """
from accounts.models import User
from tests.factories import shared_workspace
ada = User.objects.get(email="ada@example.com")
bob = User.objects.get(email="bob@example.com")
print(shared_workspace(ada, name="Acme Bakery", members={bob: "editor"}).pk)
"""


def as_user(token: str, workspace: str = "") -> dict[str, str]:
    headers = {"Authorization": f"Bearer {token}"}
    if workspace:
        headers["X-Workspace-Id"] = workspace
    return headers


def post(base: str, token: str, workspace: str, title: str) -> None:
    answer = requests.post(f"{base}/api/social/posts", json={"content": "Hi", "title": title},
                           headers=as_user(token, workspace), timeout=30)  # fmt: skip
    assert answer.status_code == 200, answer.text


def created(reader: Reader, timeout: float) -> list[Any]:
    """The titles of the `post.created` events read within `timeout`."""
    events = reader.events_until({"never"}, timeout=timeout)
    return [event.data for event in events if event.kind == "post.created"]


@pytest.mark.parametrize("mode", MODES)
def test_a_removed_members_stream_stops_carrying_the_workspace_at_once(tmp_path, mode):
    with feed_server(tmp_path, mode) as (base, env):
        ada, bob = sign_in(base, "ada@example.com"), sign_in(base, "bob@example.com")
        acme = _shell(env, SHARE)
        me = requests.get(f"{base}/api/auth/me", headers=as_user(bob), timeout=30)
        bob_id = me.json()["data"]["id"]
        stream = open_stream(base, token=bob)
        kept = open_stream(base, token=bob, query=f"?workspace={acme}")
        assert isinstance(stream, Reader)
        assert isinstance(kept, Reader)
        time.sleep(0.5)  # both processes' listeners are up

        post(base, ada, acme, "For Acme")
        post(base, ada, "", "Ada's own")
        seen = created(stream, timeout=2.0)
        assert [data["data"]["title"] for data in seen] == ["For Acme"]
        assert seen[0]["workspaceId"] == acme
        assert [data["data"]["title"] for data in created(kept, timeout=0.5)] == ["For Acme"]

        removed = requests.delete(f"{base}/api/workspaces/{acme}/members/{bob_id}",
                                  headers=as_user(ada), timeout=30)  # fmt: skip
        assert removed.status_code == 200, removed.text
        time.sleep(0.5)  # the change reaches both processes
        post(base, ada, acme, "After Bob left")
        # Bob's own events still come, Acme's no longer.
        manage(env, "send_system_alert", "--email", "bob@example.com", "--title", "Still here",
               "--message", "Yours")  # fmt: skip
        events = stream.events_until({"notification"}, timeout=3.0)
        assert [e.data["title"] for e in events if e.kind == "notification"] == ["Still here"]
        assert not [e for e in events if e.kind == "post.created"]
        assert created(kept, timeout=1.0) == []

        # A workspace the caller is not a member of (any more): 404, never a hint.
        status, body = open_stream(base, token=bob, query=f"?workspace={acme}")
        assert (status, body["error"]["code"]) == (404, "workspace_not_found")
        stream.close()
        kept.close()
