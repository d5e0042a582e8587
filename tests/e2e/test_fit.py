"""An end-to-end check of posts that fit each network (social.md section 9), through HTTP
against a server started the way a newcomer starts it.

Run by `pytest -m e2e` (.ci/run does), against `make run` on a database of its own.

It starts the six platforms' stand-ins (tests/social/standins.py, stdlib only: the request
shapes the real APIs take) and `make run` pointed at them, then checks, printing one
line each: a user signs up and connects Bluesky, Mastodon, LinkedIn and Instagram; two images
are registered with alt text; a post with a Bluesky variant, a Mastodon thread of three parts,
a LinkedIn first comment and an Instagram carousel is previewed, then published now, and each
platform receives it as it would (reply chains, the comment on the post's URN, carousel items
with their alt text); the same post scheduled a few seconds ahead, with the Mastodon thread's
third part failing once, is published by the worker's timer, resumes at part three on its next
attempt, and sends no part twice. Exits non-zero on the first failed check; stops the server
either way.
"""

import time
from datetime import UTC, datetime, timedelta
from itertools import pairwise
from typing import Any

import pytest

from tests.e2e.checks import Check, against_server, call, connect, sign_up, standin_settings
from tests.harness import free_port
from tests.social.standins import Providers, provider_standins

DOWN: tuple[int, Any, dict[str, str]] = (503, {"error": "ServiceUnavailable"}, {})
THREAD = ["Part two", "Part three", "Part four"]
check = Check("fit")


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
    login = sign_up(base, check)
    token = login["token"]
    accounts = {p: connect(base, token, p, providers, check)
                for p in ("bluesky", "mastodon", "linkedin", "instagram")}  # fmt: skip
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

    def complete(record: dict[str, Any]) -> bool:
        # A thread is Published from its first part on; parts still to come show their retry
        # as the record's `error` (retry_scheduled) until they are out.
        return bool(record["status"] == "Published" and not record.get("error"))

    while time.monotonic() < deadline:
        status, calendar = call(base, "GET", "/api/social/schedule?limit=100", token=token)
        if status == 200:
            found = {r["id"]: r for r in calendar["data"] if r["id"] in records.values()}
            if found and all(complete(r) for r in found.values()):
                break
        time.sleep(1.0)
    check(
        found and all(complete(r) for r in found.values()),
        "every scheduled record reaches Published through the timer, its parts all out",
        {r["provider"]: (r["status"], r.get("error")) for r in found.values()},
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


@pytest.mark.e2e
@pytest.mark.server
def test_fit(services: dict[str, str]) -> None:
    port, command = free_port(), ["make", "run"]
    with provider_standins() as providers:
        env = {
            **services,
            **standin_settings(providers),
            "SCHEDULER_RETRY_BASE_SECONDS": "2",  # the thread's retry within the check
        }
        against_server(command, port, env, check, lambda base: walk(base, providers))
