"""An end-to-end check of posts that fit each network (social.md section 9), through HTTP
against a server started the way a newcomer starts it.

Usage (from a checkout; the server command runs in it):
    python scripts/fit_check.py [--port 8131] -- make run

It starts the six platforms' stand-ins (tests/social/standins.py, stdlib only: the request
shapes the real APIs take) and the server command pointed at them, then checks, printing one
line each: a user signs up and connects Bluesky, Mastodon, LinkedIn and Instagram; two images
are registered with alt text; a post with a Bluesky variant, a Mastodon thread of three parts,
a LinkedIn first comment and an Instagram carousel is previewed, then published now, and each
platform receives it as it would (reply chains, the comment on the post's URN, carousel items
with their alt text); the same post scheduled a few seconds ahead, with the Mastodon thread's
third part failing once, is published by the worker's timer, resumes at part three on its next
attempt, and sends no part twice. Exits non-zero on the first failed check; stops the server
either way.
"""

import argparse
import json
import os
import secrets
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.social.standins import (  # noqa: E402
    BLUESKY_APP_PASSWORD,
    BLUESKY_HANDLE,
    Providers,
    provider_standins,
)

PASSWORD = "Correct-horse-7"  # noqa: S105 (a throwaway test user's)
REDIRECT_URI = "https://app.example.com/oauth/callback"
DOWN: tuple[int, Any, dict[str, str]] = (503, {"error": "ServiceUnavailable"}, {})
THREAD = ["Part two", "Part three", "Part four"]


def check(ok: Any, what: str, detail: Any = "") -> None:
    if not ok:
        print(f"fit: FAILED {what}: {detail}", flush=True)
        raise SystemExit(1)
    print(f"fit: ok   {what}", flush=True)


def call(base: str, method: str, path: str, body: Any = None, token: str = "") -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{base}{path}", data=data, method=method)  # noqa: S310
    request.add_header("Content-Type", "application/json")
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310 (loopback)
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


def consent(base: str, token: str, provider: str, **query: str) -> dict[str, str]:
    """What a browser does: open the consent page our API names, approve, and read the code
    and state the platform sends back to the redirect URI."""
    params = urlencode({"redirectUri": REDIRECT_URI, **query})
    status, page = call(
        base, "GET", f"/api/social/connect/{provider}/authorize?{params}", token=token
    )
    check(status == 200, f"{provider}: the consent page is named", page)
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        opener.open(page["data"]["url"], timeout=10)
        location = ""
    except urllib.error.HTTPError as error:
        location = error.headers.get("Location", "")
    return {name: values[0] for name, values in parse_qs(urlsplit(location).query).items()}


def connect(base: str, token: str, providers: Providers) -> dict[str, str]:
    accounts = {}
    for provider in ("bluesky", "mastodon", "linkedin", "instagram"):
        if provider == "bluesky":
            body: dict[str, Any] = {"code": BLUESKY_APP_PASSWORD, "identifier": BLUESKY_HANDLE}
        else:
            extra = {"instance": providers.mastodon.url} if provider == "mastodon" else {}
            back = consent(base, token, provider, **extra)
            body = {
                "code": back.get("code"),
                "state": back.get("state"),
                "redirectUri": REDIRECT_URI,
                **extra,
            }
        status, account = call(
            base, "POST", "/api/social/connect", {"provider": provider, **body}, token
        )
        check(status == 200, f"{provider} connects", account)
        accounts[provider] = account["data"]["id"]
    return accounts


def post_body(content: str, images: list[str]) -> dict[str, Any]:
    return {
        "content": content,
        "variants": {
            "bluesky": {"content": "Short and sweet for Bluesky"},
            "mastodon": {"thread": [{"content": text} for text in THREAD]},
            "linkedin": {"firstComment": "The details: https://example.com/launch"},
            "instagram": {"mediaIds": images},
        },
    }


def statuses_chained(posts: list[dict[str, Any]]) -> bool:
    return all(post["in_reply_to_id"] == before["id"] for before, post in pairwise(posts))


def walk(base: str, providers: Providers) -> None:
    email = f"fit-{secrets.token_hex(4)}@example.com"
    status, login = call(base, "POST", "/api/auth/login", {"email": email, "password": PASSWORD})
    check(status == 200, "a user signs up", login)
    token = login["data"]["token"]
    accounts = connect(base, token, providers)
    targets = list(accounts.values())

    images = []
    for number in (1, 2):
        status, item = call(
            base,
            "POST",
            "/api/social/media",
            {
                "type": "image/jpeg",
                "url": providers.image(f"slide{number}.jpg"),
                "size": 2048,
                "alt": f"Slide {number} of the launch",
            },
            token,
        )
        check(status == 200 and item["data"]["alt"], f"image {number} registered with alt", item)
        images.append(item["data"]["id"])

    body = post_body("Launch day: our new dashboard is live", images)
    status, preview = call(
        base, "POST", "/api/social/preview", {**body, "accountIds": targets}, token
    )
    kinds = {p["provider"]: [part["kind"] for part in p["parts"]] for p in preview["data"]}
    check(
        status == 200
        and kinds
        == {
            "bluesky": ["post"],
            "mastodon": ["post"] + ["reply"] * 3,
            "linkedin": ["post", "comment"],
            "instagram": ["post"],
        }
        and all(p["valid"] for p in preview["data"]),
        "the preview shows each network's parts, all valid",
        preview,
    )

    status, published = call(
        base, "POST", "/api/social/publish", {**body, "accountIds": targets}, token
    )
    results = {entry["provider"]: entry for entry in published.get("data") or []}
    check(
        status == 200 and all(entry["success"] for entry in results.values()),
        "published now to the four networks",
        published,
    )
    bluesky = providers.bluesky.posts
    check(
        [post["text"] for post in bluesky] == ["Short and sweet for Bluesky"],
        "Bluesky received its variant",
        bluesky,
    )
    statuses = providers.mastodon.posts
    check(
        [s["body"]["status"] for s in statuses][1:] == THREAD and statuses_chained(statuses),
        "Mastodon received a thread of replies, each to the part before",
        statuses,
    )
    post, comment = providers.linkedin.posts[:2]
    check(
        comment.get("object") == post["id"]
        and comment["message"]["text"] == "The details: https://example.com/launch",
        "LinkedIn received the first comment on the post's URN",
        comment,
    )
    containers = [
        call.body for call in providers.meta.received("POST", "/v24.0/17841400000000001/media")
    ]
    check(
        [(c.get("is_carousel_item"), c.get("alt_text")) for c in containers[:2]]
        == [("true", "Slide 1 of the launch"), ("true", "Slide 2 of the launch")]
        and containers[2].get("media_type") == "CAROUSEL",
        "Instagram received a carousel, each item with its alt text",
        containers,
    )

    # Scheduled: the thread's third part fails once, transiently.
    before = len(providers.mastodon.posts)
    sent_before = len(providers.mastodon.received("POST", "/api/v1/statuses"))
    providers.mastodon.scripted.append(("POST", r"/api/v1/statuses", DOWN, "Part three"))
    when = datetime.now(UTC) + timedelta(seconds=4)
    status, scheduled = call(
        base,
        "POST",
        "/api/social/schedule",
        {
            **post_body("Scheduled launch", images),
            "accountIds": targets,
            "scheduledTime": when.isoformat(),
        },
        token,
    )
    check(status == 200, "the same post scheduled 4 s ahead", scheduled)
    records = {r["provider"]: r["id"] for r in scheduled["data"]["scheduledRecords"]}
    deadline = time.monotonic() + 60
    found: dict[str, Any] = {}
    while time.monotonic() < deadline:
        status, calendar = call(base, "GET", "/api/social/schedule?limit=100", token=token)
        if status == 200:
            found = {r["id"]: r for r in calendar["data"] if r["id"] in records.values()}
            if found and all(r["status"] == "Published" for r in found.values()):
                break
        time.sleep(1.0)
    check(
        found and all(r["status"] == "Published" for r in found.values()),
        "every scheduled record reaches Published through the timer",
        {r["provider"]: r["status"] for r in found.values()},
    )
    mastodon = found[records["mastodon"]]
    sent = [c.body["status"] for c in providers.mastodon.received("POST", "/api/v1/statuses")]
    scheduled_sent = sent[sent_before:]
    check(
        scheduled_sent == ["Scheduled launch", "Part two", "Part three", "Part three", "Part four"],
        "the thread resumed at part three on its next attempt, nothing sent twice",
        scheduled_sent,
    )
    new = providers.mastodon.posts[before:]
    check(
        statuses_chained(new)
        and mastodon["attempts"] == 2
        and [p["index"] for p in mastodon["parts"]] == [0, 1, 2, 3],
        "the scheduled thread is one reply chain, its record lists four parts",
        mastodon,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--port", type=int, default=8131)
    parser.add_argument("command", nargs=argparse.REMAINDER, help="the server, e.g. make run")
    args = parser.parse_args()
    command = [part for part in args.command if part != "--"] or ["make", "run"]
    with provider_standins() as providers:
        env = {
            **os.environ,
            **{name: str(value) for name, value in providers.settings().items()},
            "PORT": str(args.port),
            "OUTBOUND_ALLOW_PRIVATE": "true",  # the stand-ins and the instance are on loopback
            "SCHEDULER_RETRY_BASE_SECONDS": "2",  # the thread's retry within the check
        }
        # The command is the operator's own, from this script's command line.
        server = subprocess.Popen(command, cwd=Path.cwd(), env=env, start_new_session=True)  # noqa: S603
        base = f"http://127.0.0.1:{args.port}"
        try:
            deadline = time.monotonic() + 600  # a fresh clone installs its virtualenv first
            while call_quietly(f"{base}/api/v1/health") is None:
                check(
                    server.poll() is None and time.monotonic() < deadline,
                    "the server starts",
                    server.returncode,
                )
                time.sleep(1)
            walk(base, providers)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=60)
    print("fit: passed", flush=True)
    return 0


def call_quietly(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:  # noqa: S310 (loopback)
            return int(response.status)
    except (OSError, ValueError):
        return None


if __name__ == "__main__":
    sys.exit(main())
