"""Video bench: one large video published to five networks at once by a real Celery worker,
through each network's own upload flow, with the platforms' processing awaited by tasks.

Usage: DATABASE_URL=postgres://USER@HOST:PORT/DB [REDIS_URL=redis://HOST:PORT/N]
           python -m bench.video [--size-mb N] [--latency-ms MS] [--polls N]

On a throwaway database of the PostgreSQL server of DATABASE_URL (dropped at the end), with the
test suite's stand-ins of LinkedIn, Facebook, Instagram, Bluesky and Mastodon in this process
(each answering every call after --latency-ms, and "still processing" --polls times before a
video is done), a video of --size-mb megabytes is uploaded to the media library (stored on
disk, probed from its header), scheduled to the five accounts a few seconds ahead, and
published by a real Celery worker of 2 processes (`celery -A config worker -c 2`: its timers
claim the records, its tasks poll the processing). Reported: seconds from the records' time to
the last one Published; the peak memory of each worker process above its memory before the
burst (VmHWM - VmRSS, from /proc; goal < +50 MB: the video is streamed from storage in chunks,
never held whole); the worker's CPU seconds over the whole run against the seconds the
platforms spent processing (no thread waits on a platform: the looks are short tasks a
countdown apart); the bytes each platform received. Exits non-zero when a record is not
Published, never on a missed target.
"""

import argparse
import os
import sys
import time
from collections.abc import Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit
from uuid import UUID

import requests

from bench import harness
from bench.harness import verdict
from bench.scheduler import celery_worker, cpu_seconds, pool_of

NAME = "video"
DATABASE_PREFIX = "fgp_bench_video_"
TARGET_MEMORY_MB = 50.0
FIVE = ("linkedin", "facebook", "instagram", "bluesky", "mastodon")
REDIRECT_URI = "https://app.example.com/oauth/callback"
POLL_SECONDS = "0.5"  # VIDEO_POLL_SECONDS of the worker: the looks at the processing


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = harness.parser(
        NAME, __doc__, size_mb=100, latency_ms=50.0,
        polls=(2, "'still processing' answers before each platform is done"),
    )  # fmt: skip
    return parser.parse_args(argv)


def memory_kb(pid: int) -> dict[str, int]:
    """VmRSS and VmHWM (peak) of a process, in kB."""
    found = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0])
    return found


def reset_peak(pid: int) -> None:
    """Start VmHWM again from the current RSS (Linux: write 5 to clear_refs)."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")


def connect(user: Any, providers: Any) -> list[UUID]:
    """The five accounts, connected through the services as the API connects them."""
    from social.connections.services.connect import account_connect, connect_authorize
    from social.providers.base import ConnectRequest
    from tests.social.standins import BLUESKY_APP_PASSWORD, BLUESKY_HANDLE

    ids = []
    workspace_id = user.personal_workspace.pk
    for provider in FIVE:
        if provider == "bluesky":
            request = ConnectRequest(code=BLUESKY_APP_PASSWORD, identifier=BLUESKY_HANDLE)
            account = account_connect(workspace_id=workspace_id, user=user, provider=provider,
                                      request=request)  # fmt: skip
        else:
            instance = providers.mastodon.url if provider == "mastodon" else ""
            consent = connect_authorize(workspace_id=workspace_id, user=user, provider=provider,
                                        redirect_uri=REDIRECT_URI, instance=instance)  # fmt: skip
            page = requests.get(consent.url, allow_redirects=False, timeout=10)
            values = dict(parse_qsl(urlsplit(page.headers["Location"]).query))
            request = ConnectRequest(code=values["code"], redirect_uri=REDIRECT_URI,
                                     instance=instance)  # fmt: skip
            account = account_connect(workspace_id=workspace_id, user=user, provider=provider,
                                      request=request, state=consent.state)  # fmt: skip
        ids.append(account.pk)
    return ids


def video_item(user: Any, size_mb: int) -> Any:
    """A video of `size_mb` MB in the media library, through the upload service (streamed to
    storage, probed from its header)."""
    from django.core.files.uploadedfile import TemporaryUploadedFile

    from social.content.services.media import media_upload
    from tests.social.videos import mp4

    upload = TemporaryUploadedFile("launch.mp4", "application/octet-stream", 0, None)
    head = mp4(seconds=60.0, payload=0)
    payload = size_mb * 1_000_000 - len(head)  # a "100 MB" file is 100,000,000 bytes
    # The mdat box's size says how much follows; the payload is written a MB at a time.
    upload.write(head[:-8] + (8 + payload).to_bytes(4, "big") + b"mdat")
    written = 0
    while written < payload:
        step = min(1_000_000, payload - written)
        upload.write(b"\0" * step)
        written += step
    upload.size = upload.tell()
    upload.seek(0)
    item = media_upload(
        workspace_id=user.personal_workspace.pk, user=user, upload=upload, alt="Launch video"
    )
    upload.close()
    return item


def wait_published(ids: list[str], timeout: float) -> dict[str, Any]:
    from social.models import ScheduledRecord

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        records = {str(r.pk): r for r in ScheduledRecord.objects.filter(pk__in=ids)}
        if all(r.status in ("Published", "Failed", "Unconfirmed") for r in records.values()):
            return records
        time.sleep(0.2)
    raise harness.BenchError("the records were not all published in time")


def measure(bench: harness.Bench) -> int:
    args = bench.args
    from tests.social.standins import provider_standins

    with provider_standins() as providers:
        for standin in (providers.linkedin, providers.meta, providers.bluesky, providers.mastodon):
            standin.latency = args.latency_ms / 1000
            standin.video_polls = args.polls
        env = {name: str(value) for name, value in providers.settings().items()}
        env.update(
            OUTBOUND_ALLOW_PRIVATE="true",  # the stand-ins are on loopback
            VIDEO_POLL_SECONDS=POLL_SECONDS,
            MEDIA_ROOT=str(bench.tmp / "media"),
            MEDIA_MAX_VIDEO_BYTES=str((args.size_mb + 1) * 1024 * 1024),
            SOCIAL_HTTP_TIMEOUT_SECONDS="30",
            CELERY_DATA_DIR=str(bench.tmp / "celery"),
        )
        bench.django_setup(**env)
        from django.utils import timezone

        from social.content import PostInput
        from social.planning import schedule_to_accounts

        (user,) = harness.users_create("bench-video", 1)
        accounts = connect(user, providers)
        with harness.timed(f"a {args.size_mb} MB video stored"):
            item = video_item(user, args.size_mb)
        print(f"{item.size} bytes, {item.duration:g} s, {item.width}x{item.height}; the "
              f"platforms answer after {args.latency_ms:g} ms and process each video over "
              f"{args.polls} looks {POLL_SECONDS} s apart", flush=True)  # fmt: skip

        with celery_worker(bench, 2, DATABASE_URL=bench.database_url or "", **env) as worker:
            pool = pool_of(worker.pid)
            for pid in pool:
                reset_peak(pid)
            before = {pid: memory_kb(pid)["VmRSS"] for pid in pool}
            cpu_before = cpu_seconds([worker.pid, *pool])
            due = timezone.now() + timedelta(seconds=3)
            done = schedule_to_accounts(
                workspace_id=user.personal_workspace.pk,
                user=user, account_ids=accounts, scheduled_time=due.isoformat(),
                zone_name=None, fields=PostInput(content="Launch day", media_ids=[item.pk]),
            )  # fmt: skip
            ids = [str(record.pk) for record in done.records]
            records = wait_published(ids, timeout=600)
            peaks = {pid: memory_kb(pid)["VmHWM"] - before[pid] for pid in pool}
            cpu = cpu_seconds([worker.pid, *pool]) - cpu_before

    failures = 0
    last = max(r.published_at or timezone.now() for r in records.values())
    processing = []
    for record in sorted(records.values(), key=lambda r: r.provider):
        began = next((datetime.fromisoformat(e["at"]) for e in record.history
                      if e.get("outcome") == "processing"), None)  # fmt: skip
        seconds = (
            (record.published_at - began).total_seconds() if began and record.published_at else 0
        )
        processing.append(seconds)
        print(f"  {record.provider}: {record.status} "
              f"{(record.published_at - due).total_seconds() if record.published_at else 0:.2f} s "
              f"after its time, {seconds:.2f} s of it awaiting the platform's processing",
              flush=True)  # fmt: skip
        failures += record.status != "Published"
    peak_mb = max(peaks.values()) / 1024
    received = {
        "linkedin": sum(providers.linkedin.uploaded.values()),
        "bluesky": sum(providers.bluesky.job_sizes.values()),
        "mastodon": sum(providers.mastodon.media_sizes.values()),
    }
    print(f"published to {len(FIVE) - failures}/{len(FIVE)} networks "
          f"{(last - due).total_seconds():.2f} s after their time; bytes received: "
          + ", ".join(f"{name} {size}" for name, size in received.items())
          + " (Facebook and Instagram fetch the file by its URL)", flush=True)  # fmt: skip
    print("worker memory above its own before the burst, peak: "
          + ", ".join(f"{kb / 1024:.1f} MB" for kb in peaks.values())
          + f"; goal < +{TARGET_MEMORY_MB:g} MB: {verdict(peak_mb < TARGET_MEMORY_MB)}",
          flush=True)  # fmt: skip
    print(f"worker CPU {cpu:.2f} s over the run, while the platforms processed for "
          f"{sum(processing):.1f} s in all (no thread waits on them: each look is a task)",
          flush=True)  # fmt: skip
    return 1 if failures else 0


def timed_measure(bench: harness.Bench) -> int:
    with harness.timed("bench"):
        return measure(bench)


def main(argv: Sequence[str] | None = None) -> int:
    return harness.main(NAME, parse_args, timed_measure, argv, needs=["DATABASE_URL"],
                        database_prefix=DATABASE_PREFIX)  # fmt: skip


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    sys.exit(main())
