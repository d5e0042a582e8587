"""An end-to-end check of the networks added since the first six (social.md section 13),
through HTTP against a server started the way a newcomer starts it.

Run by `pytest -m e2e` (.ci/run does), against `make run` on a database of its own.

It starts every stand-in (tests/social/standins.py and the modules beside it: each network's own
API, strict about its fields) and `make run` pointed at them; then, for a network of WALKED (a test
each), driven by what `GET /api/social/platforms` says it can do, it checks, printing one line
each: the account connects through the network's consent; a text is published now, an image with
alt text, a video (where the network takes video) and a thread (where it has threads), each
reaching the stand-in exactly once; a text too long and an option the network does not take are
refused with the field named, nothing sent; a post scheduled a few seconds ahead whose first call
gets no answer in time is looked up on its next attempt and not created twice (Unconfirmed at once
where the network cannot be asked); one meeting a network that is down is retried and published; a
refused token fails with `auth_expired`. Exits non-zero on the first failed check; stops the server
either way.
"""

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from social.networks import NETWORKS
from tests.e2e.checks import Check, against_server, call, connect, sign_up, standin_settings
from tests.e2e.test_video import upload
from tests.harness import free_port
from tests.social.standins import Providers, provider_standins
from tests.social.videos import mp4

# Each joins once its stand-in plays the walk.
WALKED = (
    "threads",
    "x",
    "linkedin_page",
    "youtube",
    "tiktok",
    "pinterest",
    "telegram",
    "discord",
    "google_business",
    "slack",
    "reddit",
)
TIMEOUT_SECONDS = 1.0  # SOCIAL_HTTP_TIMEOUT_SECONDS of the server under test
check = Check("networks")


def record_of(base: str, token: str, record_id: str, until: set[str], timeout: float) -> Any:
    """The record once its status is one of `until` (or as it was last seen at the timeout),
    looked at every 1.5 s (within the per-user rate limit)."""
    deadline = time.monotonic() + timeout
    seen: Any = {}
    while time.monotonic() < deadline:
        status, found = call(base, "GET", f"/api/social/schedule/{record_id}", token=token)
        if status == 200:
            seen = found["data"]
            if seen["status"] in until:
                return seen
        time.sleep(1.5)
    return seen


def first_call(standin: Any, since: int, timeout: float = 20.0) -> bool:
    """Whether the stand-in received a call after its `since`-th within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if len(standin.calls) > since:
            return True
        time.sleep(0.1)
    return False


def published(base: str, token: str, account: str, body: dict[str, Any]) -> Any:
    """The account's outcome of publishing now (the whole answer when there is none)."""
    status, answer = call(
        base, "POST", "/api/social/publish", {**body, "accountIds": [account]}, token
    )
    return answer["data"][0] if status == 200 and answer.get("data") else answer


def scheduled(
    base: str, token: str, account: str, content: str, extra: dict[str, Any] | None = None
) -> str:
    when = (datetime.now(UTC) + timedelta(seconds=3)).isoformat()
    status, answer = call(
        base,
        "POST",
        "/api/social/schedule",
        {"content": content, "scheduledTime": when, "accountIds": [account], **(extra or {})},
        token,
    )
    check(status == 200, f"a post scheduled 3 s ahead ({content})", answer)
    return str(answer["data"]["scheduledRecords"][0]["id"])


def walk_one(
    base: str, token: str, network: str, can: dict[str, Any], providers: Providers
) -> None:
    standin = providers.by_provider(network)
    account = connect(base, token, network, providers, check)
    # A network that takes only media (YouTube: a video) gets one with every post below, and
    # one that requires options (TikTok's privacy level) their first values.
    required = {o["name"]: o["choices"][0] for o in can["options"] if o.get("required")}
    needs: dict[str, Any] = {"variants": {network: {"options": required}}} if required else {}
    extra: dict[str, Any] = {}
    if can.get("mediaRequired"):
        status, item = upload(base, token, mp4(seconds=6.0, payload=128 * 1024), "Our video")
        check(status == 200, f"{network}: a video uploaded for its posts", item)
        extra = {"title": f"A post on {network}", "mediaIds": [item["data"]["id"]]}
    elif can.get("titleRequired"):  # Reddit: every post has a title
        extra = {"title": f"A post on {network}"}
    titled = {"title": "A picture"} if can.get("titleRequired") else {}
    sent = len(standin.posts)

    text = published(base, token, account, {"content": f"Hello from {network}", **extra, **needs})
    if text.get("status") == "Publishing":  # processed by the network first: tasks await it
        text = record_of(base, token, text["recordId"], {"Published", "Failed"}, 60)
    check(
        text.get("status") == "Published" and len(standin.posts) == sent + 1,
        f"{network}: a post, once",
        text,
    )

    if can["images"]:
        status, image = call(
            base,
            "POST",
            "/api/social/media",
            {"type": "image/jpeg", "url": providers.image(), "size": 2048, "alt": "Our shop"},
            token,
        )
        check(status == 200, f"{network}: an image registered with alt text", image)
        before = len(standin.posts)
        shown = published(
            base,
            token,
            account,
            {"content": "A picture", "mediaIds": [image["data"]["id"]], **titled, **needs},
        )
        if shown.get("status") == "Publishing":  # processed by the network first: tasks await it
            shown = record_of(base, token, shown["recordId"], {"Published", "Failed"}, 30)
        check(
            shown.get("status") == "Published" and len(standin.posts) == before + 1,
            f"{network}: an image with its alt text, once",
            shown,
        )

    if can["video"] and not can.get("mediaRequired"):
        status, item = upload(base, token, mp4(seconds=6.0, payload=128 * 1024), "Our video")
        check(status == 200, f"{network}: a video uploaded", item)
        before = len(standin.posts)
        shown = published(
            base, token, account, {"content": "A video", "mediaIds": [item["data"]["id"]], **needs}
        )
        if shown.get("status") == "Publishing":
            shown = record_of(base, token, shown["recordId"], {"Published", "Failed"}, 60)
        check(
            shown.get("status") == "Published" and len(standin.posts) == before + 1,
            f"{network}: a video through its own upload, once",
            shown,
        )

    if can["threads"]:
        before = len(standin.posts)
        parts = [{"content": "Part two"}, {"content": "Part three"}]
        shown = published(base, token, account, {"content": "Part one", "thread": parts})
        check(
            shown.get("success") and len(standin.posts) == before + 3,
            f"{network}: a thread of three parts, each once",
            shown,
        )

    before = len(standin.posts)
    limit = int(can.get("maxCharacters") or 0) or 500
    status, refused = call(
        base,
        "POST",
        "/api/social/publish",
        {"content": "x" * (limit * 3), "accountIds": [account], **extra, **needs},
        token,
    )
    check(
        status == 400 and "content" in str(refused["error"]["details"]),
        f"{network}: a text too long refused, the field named",
        refused,
    )
    status, refused = call(
        base,
        "POST",
        "/api/social/publish",
        {
            "content": "Options",
            "accountIds": [account],
            "variants": {network: {"options": {**required, "notAnOption": True}}},
            **extra,
        },
        token,
    )
    check(
        status == 400 and f"variants.{network}.options" in str(refused["error"]["details"]),
        f"{network}: an option it does not take refused, the field named",
        refused,
    )
    check(len(standin.posts) == before, f"{network}: nothing sent for them")

    # A lost answer: the call goes out and times out; the next attempt looks it up.
    standin.fail, standin.hang = "timeout", TIMEOUT_SECONDS + 0.5
    since = len(standin.calls)
    lost = scheduled(base, token, account, f"Lost answer on {network}", {**extra, **needs})
    check(first_call(standin, since), f"{network}: the scheduled post's call went out")
    time.sleep(TIMEOUT_SECONDS)  # the call times out at the server, its answer held back
    standin.fail = ""
    standin.wait_idle()
    done = record_of(base, token, lost, {"Published", "Failed", "Unconfirmed"}, 60)
    # Where nothing can be asked (`none`: Discord), Unconfirmed at once, never sent again;
    # Slack's is found in the channel's history by its metadata key.
    outcome = "Unconfirmed" if NETWORKS[network].exactly_once == "none" else "Published"
    check(
        done.get("status") == outcome and len(standin.posts) == before + 1,
        f"{network}: a lost answer looked up (or {outcome}), the post created once",
        done,
    )

    # Down: retried on time, then published.
    standin.fail = "down"
    since = len(standin.calls)
    down = scheduled(base, token, account, f"Retried on {network}", {**extra, **needs})
    check(first_call(standin, since), f"{network}: down, the scheduled post's call refused")
    time.sleep(0.5)
    standin.fail = ""
    done = record_of(base, token, down, {"Published", "Failed"}, 60)
    check(done.get("status") == "Published", f"{network}: retried, then published", done)

    # A refused token: the account's record fails with auth_expired.
    standin.expired = True
    expired = published(base, token, account, {"content": "After the token went", **extra, **needs})
    if expired.get("status") == "Publishing":
        expired = record_of(base, token, expired["recordId"], {"Failed", "Published"}, 60)
    check(
        expired.get("status") == "Failed"
        and (expired.get("error") or {}).get("category") == "auth_expired",
        f"{network}: a refused token fails with auth_expired",
        expired,
    )
    standin.expired = False


def walk(base: str, network: str, providers: Providers) -> None:
    token = sign_up(base, check)["token"]
    status, platforms = call(base, "GET", "/api/social/platforms", token=token)
    check(status == 200, "the platforms list", platforms)
    found = {entry["provider"]: entry for entry in platforms["data"]}
    can = {**found[network]["capabilities"], **found[network]["limits"]}
    walk_one(base, token, network, can, providers)


# One test a network, each its own `make run`: on pytest-xdist workers they walk side by side.
@pytest.mark.e2e
@pytest.mark.server
@pytest.mark.parametrize("network", WALKED)
def test_networks(services: dict[str, str], network: str) -> None:
    port, command = free_port(), ["make", "run"]
    with provider_standins() as providers:
        env = {
            **services,
            **standin_settings(providers),
            "SOCIAL_HTTP_TIMEOUT_SECONDS": str(TIMEOUT_SECONDS),
            "SCHEDULER_RETRY_BASE_SECONDS": "2",  # the retries within the check
        }
        against_server(command, port, env, check, lambda base: walk(base, network, providers))
