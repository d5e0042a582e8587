"""An end-to-end check of five fixed findings (threads, 5xx outcomes, refused duplicates, the
Bluesky video service's setting, hosted videos' headers), through HTTP against a server started
the way a newcomer starts it.

Run by `pytest -m e2e` (.ci/run does), against `make run` on a database of its own.

It starts the platforms' stand-ins (tests/social/standins.py), Bluesky's video service at an
address of its own, and a webhook receiver on 127.0.0.1, then `make run` pointed at
them, with retries a few seconds apart, and checks, printing one line each: a user signs up,
subscribes a webhook endpoint and connects Mastodon, LinkedIn and Bluesky; a Mastodon thread
whose third part fails transiently reads `Published` with its first two parts while the third
waits, `post.published` delivered once, and the third goes out on its retry; with autoRetry
off, a 503 on a create ends `Failed` with nothing published, and a 502 after Mastodon made the
post ends `Published` (found by the lookup) with the post made once; the same text to LinkedIn
twice a few seconds apart fails the second (`content_rejected`, LinkedIn's `DUPLICATE_POST`),
never published under the first post's URL; a Bluesky video post goes through the video service
named by `BLUESKY_VIDEO_SERVICE_URL`; hosted videos registered by URL keep their file's
duration and size (read by ranged GETs, the `moov` before or after the media data), not the
declared ones, and a URL that is not a video of the declared type is 400 with nothing stored.
Exits non-zero on the first failed check; stops the server either way.
"""

import time
from typing import Any
from urllib.parse import urlsplit

import pytest

from tests.e2e.checks import (
    Check,
    Receiver,
    against_server,
    call,
    connect,
    record_of,
    sign_up,
    standin_settings,
    wait_record,
)
from tests.e2e.test_video import upload
from tests.harness import free_port
from tests.social.standins import (
    MASTODON_ACCOUNT_ID,
    Answer,
    Providers,
    listen,
    provider_standins,
)
from tests.social.videos import mp4

RETRY_SECONDS = 4  # SCHEDULER_RETRY_BASE_SECONDS here: the thread's part waits that long
DOWN: Answer = (503, {"error": "Service Unavailable"}, {})
BAD_GATEWAY: Answer = (502, {"error": "Bad Gateway"}, {})
STATUSES = ("POST", r"/api/v1/statuses")
check = Check("findings")


def publish(base: str, token: str, account: str, **body: Any) -> dict[str, Any]:
    """Publish now to one account: the answer's entry for it."""
    status, published = call(
        base, "POST", "/api/social/publish", {**body, "accountIds": [account]}, token
    )
    check(status == 200, f"published now: {body.get('content')!r}", published)
    return dict(published["data"][0])


def replayed(base: str, token: str, event: str, record_id: str) -> list[dict[str, Any]]:
    """The events `GET /api/events` replays of that type for that record (its newest 2 s held
    back: waited out first)."""
    time.sleep(2.5)
    status, page = call(base, "GET", "/api/events?limit=500", token=token)
    check(status == 200, "the replay answers", page)
    return [e for e in page["data"] if e["type"] == event and e["data"]["recordId"] == record_id]


def delivered(receiver: Receiver, event: str, record_id: str) -> list[Any]:
    return [p for p in (d.payload for d in list(receiver.deliveries))
            if p["event"] == event and p["data"].get("recordId") == record_id]  # fmt: skip


def thread(base: str, token: str, account: str, providers: Providers, receiver: Receiver) -> None:
    """1. A thread whose third part fails transiently is Published from its first part."""
    mastodon = providers.mastodon
    mastodon.scripted.append((*STATUSES, DOWN, "Thread part three"))
    entry = publish(
        base, token, account, content="Thread part one",
        variants={"mastodon": {"thread": [{"content": "Thread part two"},
                                          {"content": "Thread part three"}]}},
    )  # fmt: skip
    record_id = entry["recordId"]
    shown = record_of(base, token, record_id)
    error = shown.get("error") or {}
    check(
        (entry["status"], shown["status"]) == ("Published", "Published")
        and shown["url"] == mastodon.posts[0]["url"]
        and [p["index"] for p in shown["parts"]] == [0, 1]
        and (error.get("code"), bool(error.get("retryAt"))) == ("retry_scheduled", True),
        "a thread's third part fails: the record reads Published, two parts out, the third"
        f" waiting ({error.get('retryAt')})",
        shown,
    )
    first = receiver.wait(
        lambda d: d["event"] == "post.published" and d["data"].get("recordId") == record_id, 10
    )
    check(
        first and [p["index"] for p in first["data"]["parts"]] == [0, 1],
        "...post.published delivered with the parts out then",
        first,
    )
    done = wait_record(
        base, token, record_id, lambda r: len(r["parts"]) == 3, 6 * RETRY_SECONDS, every=0.5
    )
    sent = [c.body["status"] for c in mastodon.received(*STATUSES)]
    check(
        done["status"] == "Published"
        and [p["index"] for p in done["parts"]] == [0, 1, 2]
        and done["error"] is None
        and done["attempts"] == 2
        and sent == ["Thread part one", "Thread part two", "Thread part three",
                     "Thread part three"],
        "...the third part goes out on its retry: Published, three parts, none sent twice",
        (done, sent),
    )  # fmt: skip
    events = replayed(base, token, "post.published", record_id)
    check(
        len(events) == 1 and len(delivered(receiver, "post.published", record_id)) == 1,
        "...and post.published was emitted once (webhook and /api/events)",
        events,
    )


def outages(base: str, token: str, account: str, providers: Providers) -> None:
    """2. With autoRetry off, a 503 on a create fails; a 502 after the post was made is found."""
    mastodon = providers.mastodon
    status, settings = call(base, "PUT", "/api/social/settings", {"autoRetry": False}, token)
    check(status == 200, "autoRetry off", settings)

    lookups = f"/api/v1/accounts/{MASTODON_ACCOUNT_ID}/statuses"
    looked_before = len(mastodon.received("GET", lookups))
    mastodon.scripted.append((*STATUSES, DOWN, "Busy instance"))
    entry = publish(base, token, account, content="Busy instance")
    shown = record_of(base, token, entry["recordId"])
    category = (shown.get("error") or {}).get("category")
    check(
        (entry["status"], shown["status"]) == ("Failed", "Failed")
        and category != "unconfirmed"
        and not any("Busy instance" in p["body"].get("status", "") for p in mastodon.posts)
        and len(mastodon.received("GET", lookups)) == looked_before,
        f"a 503 on the create ends Failed ({category}), nothing published or looked up",
        shown,
    )

    mastodon.acted.append((*STATUSES, BAD_GATEWAY, "Gateway lost the answer"))
    entry = publish(base, token, account, content="Gateway lost the answer")
    made = [p for p in mastodon.posts if p["body"].get("status") == "Gateway lost the answer"]
    creates = [c for c in mastodon.received(*STATUSES)
               if c.body.get("status") == "Gateway lost the answer"]  # fmt: skip
    shown = record_of(base, token, entry["recordId"])
    check(
        (entry["status"], shown["status"]) == ("Published", "Published")
        and len(made) == 1
        and len(creates) == 1
        and shown["url"] == made[0]["url"]
        and [h.get("found") for h in shown["history"]] == [True],
        "a 502 after Mastodon made the post ends Published, found by the lookup, made once",
        (shown, len(made), len(creates)),
    )
    call(base, "PUT", "/api/social/settings", {"autoRetry": True}, token)


def duplicate(
    base: str, token: str, account: str, providers: Providers, receiver: Receiver
) -> None:
    """3. The same text to LinkedIn twice: the second is refused, never the first's URL."""
    text = "The same words, twice"
    first = publish(base, token, account, content=text)
    check(first["status"] == "Published", "a LinkedIn post publishes", first)
    time.sleep(3.0)
    second = publish(base, token, account, content=text)
    error = second.get("error") or {}
    shown = record_of(base, token, second["recordId"])
    check(
        (second["status"], shown["status"]) == ("Failed", "Failed")
        and (error.get("code"), error.get("category")) == ("provider_rejected", "content_rejected")
        and (error.get("platform") or {}).get("code") == "DUPLICATE_POST"
        and shown["url"] != first["url"]
        and not shown["url"],
        f"the same text 3 s later is refused: Failed, content_rejected ({error.get('remedy')})",
        shown,
    )
    check(
        len([p for p in providers.linkedin.posts if p.get("commentary") == text]) == 1
        and not replayed(base, token, "post.published", second["recordId"])
        and not delivered(receiver, "post.published", second["recordId"]),
        "...LinkedIn holds one post, and the second record was never announced published",
    )


def bluesky_video(
    base: str, token: str, account: str, providers: Providers, video_service: str
) -> None:
    """4. A Bluesky video goes through the service BLUESKY_VIDEO_SERVICE_URL names."""
    status, item = upload(base, token, mp4(seconds=6.0, payload=128 * 1024), "A short clip")
    check(status == 200, "an MP4 is uploaded", item)
    entry = publish(base, token, account, content="A clip for Bluesky",
                    mediaIds=[item["data"]["id"]])  # fmt: skip
    done = wait_record(
        base,
        token,
        entry["recordId"],
        lambda r: r["status"] not in ("Scheduled", "Publishing"),
        60,
        every=0.5,
    )
    service_host = urlsplit(video_service).netloc
    video_calls = [c for c in providers.bluesky.calls if "app.bsky.video." in c.path]
    hosts = {c.headers.get("Host") for c in video_calls}
    check(
        done["status"] == "Published"
        and providers.bluesky.posts[-1]["embed"]["$type"] == "app.bsky.embed.video"
        and {c.path.rsplit(".", 1)[-1] for c in video_calls} == {"uploadVideo", "getJobStatus"}
        and hosts == {service_host},
        f"a Bluesky video publishes through the video service at {service_host}, not the PDS",
        (done["status"], hosts),
    )


def hosted_videos(base: str, token: str, providers: Providers) -> None:
    """5. Hosted videos keep their file's header, not what was declared."""
    cdn = providers.cdn
    payload = 3 * 1024 * 1024  # the media data, never fetched
    files = {
        "streaming.mp4": mp4(seconds=12.5, width=1280, height=720, payload=payload),
        "camera.mp4": mp4(seconds=61.0, width=1080, height=1920, payload=payload,
                          moov_last=True),
        "page.mp4": b"<!doctype html><html><body>Not a video</body></html>" * 100,
        "clip.mov": mp4(seconds=4.0, brand=b"qt  "),
    }  # fmt: skip
    cdn.files.update(files)
    sent_before = cdn.sent
    for name, expected in [("streaming.mp4", (12.5, 1280, 720)),
                           ("camera.mp4", (61.0, 1080, 1920))]:  # fmt: skip
        status, item = call(
            base, "POST", "/api/social/media",
            {"type": "video/mp4", "url": f"{cdn.url}/files/{name}", "size": 10,
             "duration": 999, "width": 1, "height": 1},
            token,
        )  # fmt: skip
        data = (item or {}).get("data") or {}
        found = (data.get("duration"), data.get("width"), data.get("height"))
        check(
            status == 200 and found == expected and data.get("size") == len(files[name]),
            f"a hosted video ({name}) keeps its file's duration and size {found}, not the"
            " declared (999, 1, 1)",
            item,
        )
    check(
        cdn.sent - sent_before < 2 * 256 * 1024 and all(c.headers.get("Range") for c in cdn.calls),
        f"...read by ranged GETs, the media data never fetched ({cdn.sent - sent_before} bytes)",
    )
    status, before = call(base, "GET", "/api/social/media", token=token)
    for name in ("page.mp4", "clip.mov"):
        status, refused = call(
            base, "POST", "/api/social/media",
            {"type": "video/mp4", "url": f"{cdn.url}/files/{name}", "size": 4096}, token,
        )  # fmt: skip
        details = ((refused or {}).get("error") or {}).get("details") or {}
        check(
            status == 400 and list(details) == ["url"],
            f"{name} declared video/mp4 is 400 naming url: {details.get('url')}",
            refused,
        )
    status, after = call(base, "GET", "/api/social/media", token=token)
    check(
        status == 200 and after["data"] == before["data"] and len(after["data"]) == 3,
        "...and nothing was stored",
        after,
    )


def walk(base: str, providers: Providers, receiver: Receiver, video_service: str) -> None:
    login = sign_up(base, check)
    token = login["token"]
    status, endpoint = call(
        base, "POST", "/api/webhooks/endpoints",
        {"url": receiver.url, "events": ["post.published", "post.failed"]}, token,
    )  # fmt: skip
    check(status == 200, "a webhook endpoint takes post.published and post.failed", endpoint)
    accounts = {p: connect(base, token, p, providers, check)
                for p in ("mastodon", "linkedin", "bluesky")}  # fmt: skip

    thread(base, token, accounts["mastodon"], providers, receiver)
    outages(base, token, accounts["mastodon"], providers)
    duplicate(base, token, accounts["linkedin"], providers, receiver)
    bluesky_video(base, token, accounts["bluesky"], providers, video_service)
    hosted_videos(base, token, providers)


@pytest.mark.e2e
@pytest.mark.server
def test_findings(services: dict[str, str]) -> None:
    port, command = free_port(), ["make", "run"]
    receiver = Receiver()
    with provider_standins() as providers, listen(providers.bluesky) as video_service:
        env = {
            **services,
            **standin_settings(providers),
            "BLUESKY_VIDEO_SERVICE_URL": video_service,
            "SCHEDULER_RETRY_BASE_SECONDS": str(RETRY_SECONDS),
            "VIDEO_POLL_SECONDS": "0.5",  # the looks at the processing, within the check
            "RATE_LIMIT_PER_MINUTE": "1000",
        }
        against_server(
            command, port, env, check,
            lambda base: walk(base, providers, receiver, video_service),
        )  # fmt: skip
