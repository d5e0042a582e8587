"""Video (social.md section 10): uploads read from their own header, validated per network,
and published through each network's upload flow, the platform's processing awaited by a
task (no thread waits), resumed after a worker dies without uploading again."""

import runpy
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.utils import timezone

from config.settings import base as settings_base
from social.models import MediaItem, ScheduledRecord
from social.networks import NETWORKS
from tests.social.test_scheduler import make_due, run, schedule
from tests.social.videos import mp4

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]

BASE_SETTINGS = str(Path(settings_base.__file__))
FIVE = ("linkedin", "facebook", "instagram", "bluesky", "mastodon")
SIZE = 5 * 1024 * 1024  # two parts of LinkedIn's Videos API


def upload(client: Any, data: bytes, name: str = "launch.mp4", **fields: Any) -> Any:
    body = {"file": SimpleUploadedFile(name, data, content_type="application/octet-stream"),
            **fields}  # fmt: skip
    return client.post("/api/social/media", body, format="multipart")


def video_id(client: Any, **shape: Any) -> str:
    """A video of `shape` (videos.mp4's) uploaded to the library; its id."""
    response = upload(client, mp4(**shape))
    assert response.status_code == 200, response.content
    return str(response.json()["data"]["id"])


@pytest.fixture
def video(ada_client) -> dict[str, Any]:
    response = upload(ada_client, mp4(seconds=12.0, payload=SIZE), alt="Our launch video")
    assert response.status_code == 200, response.content
    return dict(response.json()["data"])


def publish(client: Any, accounts: dict[str, Any], *providers: str, **body: Any) -> Any:
    return client.post(
        "/api/social/publish",
        {"content": "Launch day", **body, "accountIds": [accounts[p]["id"] for p in providers]},
        format="json",
    )


# --- Media ---------------------------------------------------------------------------------------


def test_an_uploaded_video_has_its_duration_and_size_from_its_own_header(ada_client, video):
    assert video["type"] == "video/mp4"
    assert (video["duration"], video["width"], video["height"]) == (12.0, 1280, 720)
    assert video["alt"] == "Our launch video"
    assert video["size"] > SIZE
    quicktime = upload(ada_client, mp4(brand=b"qt  "), name="clip.mov")
    assert quicktime.json()["data"]["type"] == "video/quicktime"


def test_bytes_that_are_not_a_video_or_a_video_too_large_are_refused(ada_client, settings):
    response = upload(ada_client, b"\0\0\0\x18ftypisom" + b"x" * 4096)
    assert response.status_code == 400
    assert "not a playable video/mp4 video" in response.json()["error"]["details"]["file"][0]
    settings.MEDIA_MAX_VIDEO_BYTES = 2048
    response = upload(ada_client, mp4(payload=4096))
    assert response.status_code == 400
    assert ada_client.get("/api/social/media").json()["data"] == []


def test_a_video_of_countless_empty_boxes_is_refused_without_parsing_them(ada_client):
    plain = mp4()
    crafted = plain[:32] + b"\0\0\0\x08free" * 500_000 + plain[32:]  # after its ftyp
    started = time.monotonic()
    response = upload(ada_client, crafted)
    assert response.status_code == 400
    assert "more boxes than a video's" in response.json()["error"]["details"]["file"][0]
    assert time.monotonic() - started < 10
    assert ada_client.get("/api/social/media").json()["data"] == []


def register(client: Any, url: str, type: str = "video/mp4", **fields: Any) -> Any:
    body = {"type": type, "url": url, "size": 4096, **fields}
    return client.post("/api/social/media", body, format="json")


def test_a_registered_video_is_read_from_the_hosted_files_own_header(ada_client, providers):
    payload = 3 * 1024 * 1024  # the media data, never fetched
    files = {
        "streaming.mp4": mp4(seconds=12.5, width=1280, height=720, payload=payload),
        "camera.mp4": mp4(seconds=61.0, width=1080, height=1920, payload=payload, moov_last=True),
        "clip.mov": mp4(seconds=4.0, brand=b"qt  ", moov_last=True),
    }
    providers.cdn.files.update(files)
    found = {}
    for name in files:
        # What the client declares is not what the record keeps: the file's header is.
        kind = "video/quicktime" if name.endswith(".mov") else "video/mp4"
        response = register(ada_client, f"{providers.cdn.url}/files/{name}", type=kind,
                            duration=999, width=1, height=1, size=10)  # fmt: skip
        assert response.status_code == 200, response.content
        item = response.json()["data"]
        found[name] = (item["type"], item["duration"], item["width"], item["height"], item["size"])
    assert found == {
        "streaming.mp4": ("video/mp4", 12.5, 1280, 720, len(files["streaming.mp4"])),
        "camera.mp4": ("video/mp4", 61.0, 1080, 1920, len(files["camera.mp4"])),
        "clip.mov": ("video/quicktime", 4.0, 1280, 720, len(files["clip.mov"])),
    }
    assert providers.cdn.sent < 3 * 256 * 1024  # header windows only, for three files
    assert all(call.headers.get("Range") for call in providers.cdn.calls)


def test_a_hosted_file_that_is_not_a_video_of_its_declared_type_is_refused(ada_client, providers):
    providers.cdn.files.update({
        "page.mp4": b"<!doctype html><html><body>Not a video</body></html>" * 100,
        "clip.mov": mp4(brand=b"qt  "),
        "broken.mp4": b"\0\0\0\x18ftypisom" + b"x" * 4096,
        "huge.mp4": mp4(payload=4096),
    })  # fmt: skip
    for name, type in [("page.mp4", "video/mp4"), ("clip.mov", "video/mp4"),
                       ("broken.mp4", "video/mp4"), ("missing.mp4", "video/mp4")]:  # fmt: skip
        response = register(ada_client, f"{providers.cdn.url}/files/{name}", type=type)
        assert response.status_code == 400, (name, response.content)
        assert list(response.json()["error"]["details"]) == ["url"], name
    assert "not a playable video/mp4 video" in response_message(
        register(ada_client, f"{providers.cdn.url}/files/clip.mov")
    )
    assert MediaItem.objects.count() == 0


def test_a_server_that_ignores_ranges_serves_a_small_video_whole_and_a_large_one_not(
    ada_client, providers
):
    providers.cdn.ranges = False
    providers.cdn.files.update({"small.mp4": mp4(seconds=2.0), "large.mp4": mp4(payload=128_000)})
    small = register(ada_client, f"{providers.cdn.url}/files/small.mp4")
    assert (small.status_code, small.json()["data"]["duration"]) == (200, 2.0)
    large = register(ada_client, f"{providers.cdn.url}/files/large.mp4")
    assert large.status_code == 400
    assert "not the range asked for" in response_message(large)
    assert MediaItem.objects.count() == 1


def response_message(response: Any) -> str:
    return str(response.json()["error"]["details"]["url"][0])


def test_a_hosted_video_larger_than_allowed_is_refused_by_its_real_size(
    ada_client, providers, settings
):
    providers.cdn.files["big.mp4"] = mp4(payload=8192)
    settings.MEDIA_MAX_VIDEO_BYTES = 4096
    response = register(ada_client, f"{providers.cdn.url}/files/big.mp4", size=1000)
    assert response.status_code == 400
    assert list(response.json()["error"]["details"]) == ["size"]
    assert MediaItem.objects.count() == 0


# --- Validation before anything is sent -----------------------------------------------------------


def test_dev_to_takes_no_video(ada_client, ada_accounts, providers, video):
    response = publish(ada_client, ada_accounts, "devto", title="Launch", mediaIds=[video["id"]])
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "video_not_supported"


def test_per_network_limits_are_checked_before_anything_is_sent(
    ada_client, ada_accounts, providers, video
):
    long = upload(ada_client, mp4(seconds=181.0)).json()["data"]
    image = ada_client.post(
        "/api/social/media",
        {"type": "image/jpeg", "url": providers.image(), "size": 2048},
        format="json",
    ).json()["data"]
    response = publish(ada_client, ada_accounts, "bluesky", mediaIds=[long["id"]])
    assert response.status_code == 400
    (problem,) = response.json()["error"]["details"]["targets"]
    assert problem["field"] == "media"
    assert "180 seconds" in problem["message"]
    response = publish(ada_client, ada_accounts, "linkedin", mediaIds=[video["id"], image["id"]])
    assert response.status_code == 400
    assert "without images" in response.json()["error"]["details"]["targets"][0]["message"]
    response = publish(ada_client, ada_accounts, "mastodon", mediaIds=[video["id"], long["id"]])
    assert response.status_code == 400
    assert "one video per post" in response.json()["error"]["details"]["targets"][0]["message"]
    providers.cdn.files["a.mp4"] = mp4(seconds=10.0)
    hosted = register(ada_client, f"{providers.cdn.url}/files/a.mp4").json()["data"]
    response = publish(ada_client, ada_accounts, "mastodon", mediaIds=[hosted["id"]])
    assert response.status_code == 400
    assert "upload it" in response.json()["error"]["details"]["targets"][0]["message"]
    for standin in (providers.linkedin, providers.bluesky, providers.mastodon):
        assert standin.posts == []


def test_bluesky_takes_videos_up_to_its_300_mb(ada_client, ada_accounts, providers, ada):
    def preview(size: int) -> dict[str, Any]:
        item = MediaItem.objects.create(
            user=ada, workspace=ada.personal_workspace, type="video/mp4", url="https://api.example.com/media/v.mp4",
            file="social/v.mp4", size=size, duration=30.0, width=1280, height=720,
        )  # fmt: skip
        response = ada_client.post(
            "/api/social/preview",
            {"content": "Launch", "mediaIds": [str(item.pk)],
             "accountIds": [ada_accounts["bluesky"]["id"]]},
            format="json",
        )  # fmt: skip
        assert response.status_code == 200, response.content
        return dict(response.json()["data"][0])

    assert preview(150_000_000)["problems"] == []
    assert preview(300_000_000)["problems"] == []
    (problem,) = preview(300_000_001)["problems"]
    assert "at most 300000000 bytes" in problem["message"]


def test_each_networks_video_limits_name_their_source():
    rules = {name: p.capabilities.video for name, p in NETWORKS.items() if p.capabilities.video}
    assert set(rules) == {
        *FIVE,
        *(
            "threads",
            "x",
            "linkedin_page",
            "youtube",
            "tiktok",
            "pinterest",
            "telegram",
            "discord",
            "slack",
        ),
    }
    assert all(rule.source.startswith("https://") for rule in rules.values())


def test_the_bluesky_video_service_is_configured_by_the_contracts_name(monkeypatch):
    monkeypatch.delenv("BLUESKY_VIDEO_URL", raising=False)
    monkeypatch.setenv("BLUESKY_VIDEO_SERVICE_URL", "https://video.example.net/")
    read = runpy.run_path(BASE_SETTINGS)
    assert read["BLUESKY_VIDEO_SERVICE_URL"] == "https://video.example.net"
    # The name the setting had first is still read when the contract's is unset.
    monkeypatch.delenv("BLUESKY_VIDEO_SERVICE_URL")
    monkeypatch.setenv("BLUESKY_VIDEO_URL", "https://old.example.net")
    read = runpy.run_path(BASE_SETTINGS)
    assert read["BLUESKY_VIDEO_SERVICE_URL"] == "https://old.example.net"


# --- Publishing through each network's flow -------------------------------------------------------


def test_a_video_is_published_to_five_networks_through_their_processing(
    ada_client, ada_accounts, providers, video, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = publish(ada_client, ada_accounts, *FIVE, mediaIds=[video["id"]])
        assert response.status_code == 200, response.content
        answered = {entry["provider"]: entry for entry in response.json()["data"]}
    # The platforms were processing: each record was Publishing, and a task looked again.
    assert {p: (e["status"], e["error"]["code"]) for p, e in answered.items()} == dict.fromkeys(
        FIVE, ("Publishing", "processing")
    )
    records = {r.provider: r for r in ScheduledRecord.objects.all()}
    assert {p: r.status for p, r in records.items()} == dict.fromkeys(FIVE, "Published")
    assert all(r.processing == {} and r.attempts == 1 for r in records.values())
    assert all(
        [entry["outcome"] for entry in r.history] == ["processing", "published"]
        for r in records.values()
    )

    # LinkedIn: initialize, the file in two parts, finalize with their ETags, then the post.
    (initialized, finalized) = providers.linkedin.received("POST", "/rest/videos")
    parts = initialized.body["initializeUploadRequest"]["fileSizeBytes"]
    assert parts == video["size"]
    assert sorted(providers.linkedin.uploaded.values()) == [video["size"] - 4_194_304, 4_194_304]
    assert len(finalized.body["finalizeUploadRequest"]["uploadedPartIds"]) == 2
    (post,) = providers.linkedin.posts
    assert post["content"]["media"]["id"].startswith("urn:li:video:")
    # Facebook: the page fetches the file from its public URL.
    (fb_video,) = [p for p in providers.meta.posts if p.get("kind") == "video"]
    assert fb_video["body"]["file_url"] == video["url"]
    assert records["facebook"].url.endswith(f"/videos/{fb_video['id']}/")
    # Instagram: a Reels container, polled until FINISHED, then media_publish.
    (container,) = providers.meta.received("POST", "/v24.0/17841400000000001/media")
    assert (container.body["media_type"], container.body["video_url"]) == ("REELS", video["url"])
    assert records["instagram"].url.startswith("https://www.instagram.com/p/")
    # Mastodon: the file streamed to /api/v2/media (202), polled, then the status.
    (status,) = providers.mastodon.posts
    assert status["body"]["media_ids"] == list(providers.mastodon.media_sizes)
    assert list(providers.mastodon.media_sizes.values()) == [video["size"]]
    (described,) = providers.mastodon.received("POST", "/api/v2/media")
    assert described.body["description"] == b"Our launch video"
    # Bluesky: a service token, the video service's job, then an app.bsky.embed.video post.
    (record,) = providers.bluesky.posts
    assert record["embed"]["$type"] == "app.bsky.embed.video"
    assert record["embed"]["alt"] == "Our launch video"
    assert record["embed"]["aspectRatio"] == {"width": 1280, "height": 720}
    assert list(providers.bluesky.job_sizes.values()) == [video["size"]]
    # Two looks "still processing" each, then done: three looks per platform.
    assert (
        len(providers.mastodon.received("GET", f"/api/v1/media/{status['body']['media_ids'][0]}"))
        == 3
    )


def test_a_processing_failure_fails_the_record_with_the_platforms_reason(
    ada_client, ada_accounts, providers, video, django_capture_on_commit_callbacks
):
    providers.mastodon.video_fail = "Error processing the video: unsupported codec"
    with django_capture_on_commit_callbacks(execute=True):
        assert (
            publish(ada_client, ada_accounts, "mastodon", mediaIds=[video["id"]]).status_code == 200
        )
    record = ScheduledRecord.objects.get()
    assert (record.status, record.error_code) == ("Failed", "provider_rejected")
    assert "unsupported codec" in record.error
    assert providers.mastodon.posts == []


def test_a_scheduled_video_is_published_by_the_scheduler_and_its_task(
    client, ada_client, ada_accounts, providers, video, django_capture_on_commit_callbacks
):
    (record_id,) = schedule(ada_client, ada_accounts, "linkedin", mediaIds=[video["id"]])
    with django_capture_on_commit_callbacks(execute=True):
        result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Publishing", "processing")
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.status == "Published"
    assert len(providers.linkedin.posts) == 1


def test_a_worker_killed_mid_processing_resumes_without_uploading_again(
    client, ada_client, ada_accounts, providers, video, django_capture_on_commit_callbacks
):
    (record_id,) = schedule(ada_client, ada_accounts, "bluesky", mediaIds=[video["id"]])
    with django_capture_on_commit_callbacks(execute=False):  # the worker dies: no task runs
        assert run(client).json()["data"]["results"][0]["status"] == "Publishing"
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.status == "Publishing"
    assert record.processing["jobId"]
    expires = record.lease_expires_at
    assert expires is not None
    assert expires > timezone.now()  # renewed past the next look
    # Its lease runs out: the reaper hands it back, the next attempt resumes the job.
    ScheduledRecord.objects.filter(pk=record_id).update(
        lease_expires_at=timezone.now() - timedelta(seconds=1)
    )
    with django_capture_on_commit_callbacks(execute=True):
        run(client)  # reaps it (due now)
        make_due([record_id])
        run(client)
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.status == "Published"
    uploads = providers.bluesky.received("POST", "/xrpc/app.bsky.video.uploadVideo")
    assert len(uploads) == 1  # never uploaded twice
    assert len(providers.bluesky.posts) == 1
    assert [entry["outcome"] for entry in record.history] == [
        "processing", "lease_expired", "published",
    ]  # fmt: skip
