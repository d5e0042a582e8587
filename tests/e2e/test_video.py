"""An end-to-end check of video (social.md section 10), through HTTP against a server started
the way a newcomer starts it.

Run by `pytest -m e2e` (.ci/run does), against `make run` on a database of its own.

It starts the platforms' stand-ins (tests/social/standins.py: each network's own upload flow,
"still processing" twice before a video is done) and `make run` pointed at them, then
checks, printing one line each: a user signs up and connects LinkedIn, Facebook, Instagram,
Bluesky and Mastodon; a small MP4 is uploaded (multipart) and read from its header; it is
published now to the five networks, each record `Publishing` while its platform processes it
and then `Published` through the worker's tasks, each network having received it through its
own flow; the same video scheduled a few seconds ahead is published by the timer and the tasks;
a video whose processing fails at Mastodon fails its record with Mastodon's reason. Exits
non-zero on the first failed check; stops the server either way.
"""

import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.e2e.checks import Check, against_server, call, connect, sign_up, standin_settings
from tests.harness import free_port
from tests.social.standins import Providers, provider_standins
from tests.social.videos import mp4

FIVE = ("linkedin", "facebook", "instagram", "bluesky", "mastodon")
check = Check("video")


def upload(base: str, token: str, data: bytes, alt: str) -> tuple[int, Any]:
    """A multipart upload, as a browser's form sends it."""
    boundary = uuid.uuid4().hex
    body = (
        (
            f'--{boundary}\r\nContent-Disposition: form-data; name="alt"\r\n\r\n{alt}\r\n'
            f'--{boundary}\r\nContent-Disposition: form-data; name="file"; '
            f'filename="launch.mp4"\r\nContent-Type: video/mp4\r\n\r\n'
        ).encode()
        + data
        + f"\r\n--{boundary}--\r\n".encode()
    )
    content_type = f"multipart/form-data; boundary={boundary}"
    return call(base, "POST", "/api/social/media", token=token, raw=body,
                headers={"Content-Type": content_type})  # fmt: skip


def records_settled(base: str, token: str, ids: list[str], timeout: float) -> dict[str, Any]:
    """The records by id once none is Scheduled or Publishing (or at the timeout)."""
    deadline = time.monotonic() + timeout
    found: dict[str, Any] = {}
    while time.monotonic() < deadline:
        status, calendar = call(base, "GET", "/api/social/schedule?limit=100", token=token)
        if status == 200:
            found = {r["id"]: r for r in calendar["data"] if r["id"] in ids}
            if len(found) == len(ids) and all(
                r["status"] not in ("Scheduled", "Publishing") for r in found.values()
            ):
                break
        time.sleep(1.0)
    return found


def walk(base: str, providers: Providers) -> None:
    login = sign_up(base, check)
    token = login["token"]
    accounts = {provider: connect(base, token, provider, providers, check) for provider in FIVE}
    targets = [accounts[p] for p in FIVE]

    status, item = upload(base, token, mp4(seconds=8.0, payload=256 * 1024), "Our launch video")
    data = (item or {}).get("data") or {}
    check(
        status == 200
        and (data.get("type"), data.get("duration"), data.get("width"), data.get("height"))
        == ("video/mp4", 8.0, 1280, 720),
        "an MP4 is uploaded, its duration and size read from its header",
        item,
    )

    body = {"content": "Launch day, in motion", "mediaIds": [data["id"]]}
    status, published = call(
        base, "POST", "/api/social/publish", {**body, "accountIds": targets}, token
    )
    answered = {e["provider"]: e for e in (published or {}).get("data") or []}
    check(
        status == 200
        and all(e["status"] in ("Publishing", "Published") for e in answered.values())
        and len(answered) == 5,
        "published now: each record Publishing while its platform processes it",
        {p: (e["status"], (e.get("error") or {}).get("code")) for p, e in answered.items()},
    )
    settled = records_settled(base, token, [e["recordId"] for e in answered.values()], 120)
    check(
        settled and all(r["status"] == "Published" for r in settled.values()),
        "the five records reach Published through the worker's looks at the processing",
        {r["provider"]: r["status"] for r in settled.values()},
    )
    check(
        providers.linkedin.videos
        and next(iter(providers.linkedin.videos.values()))["finalized"]
        and providers.bluesky.jobs
        and providers.mastodon.media_sizes
        and any(p.get("kind") == "video" for p in providers.meta.posts)
        and providers.bluesky.posts[0]["embed"]["$type"] == "app.bsky.embed.video",
        "each network received the video through its own flow",
    )

    when = datetime.now(UTC) + timedelta(seconds=4)
    status, scheduled = call(
        base,
        "POST",
        "/api/social/schedule",
        {
            "content": "Scheduled launch video",
            "mediaIds": [data["id"]],
            "accountIds": targets,
            "scheduledTime": when.isoformat(),
        },
        token,
    )
    check(status == 200, "the video scheduled 4 s ahead", scheduled)
    ids = [r["id"] for r in scheduled["data"]["scheduledRecords"]]
    settled = records_settled(base, token, ids, 120)
    check(
        settled and all(r["status"] == "Published" for r in settled.values()),
        "the scheduled records reach Published through the timer and the looks",
        {r["provider"]: r["status"] for r in settled.values()},
    )

    providers.mastodon.video_fail = "Error processing the video: unsupported codec"
    status, failed = call(
        base,
        "POST",
        "/api/social/publish",
        {
            "content": "A broken video",
            "mediaIds": [data["id"]],
            "accountIds": [accounts["mastodon"]],
        },
        token,
    )
    record_id = failed["data"][0]["recordId"] if status == 200 else ""
    settled = records_settled(base, token, [record_id], 60)
    record = settled.get(record_id) or {}
    error = record.get("error") or {}  # the error object (social.md section 12)
    check(
        record.get("status") == "Failed" and "unsupported codec" in error.get("message", ""),
        "a processing failure fails the record with the platform's reason",
        record,
    )


@pytest.mark.e2e
@pytest.mark.server
def test_video(services: dict[str, str]) -> None:
    port, command = free_port(), ["make", "run"]
    with provider_standins() as providers:
        env = {
            **services,
            **standin_settings(providers),
            "VIDEO_POLL_SECONDS": "0.5",  # the looks at the processing, within the check
        }
        against_server(command, port, env, check, lambda base: walk(base, providers))
