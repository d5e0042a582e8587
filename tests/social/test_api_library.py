"""Campaigns, the media library and the social settings through the HTTP API."""

import io
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from django.db import connection, connections
from PIL import Image

from accounts.services.users import user_create
from social.models import Campaign, MediaItem, Post
from tests.factories import client_for

pytestmark = pytest.mark.django_db


# --- Campaigns ----------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["/api", "/api/v1"])
def test_campaign_lifecycle_with_post_count(ada_client, prefix):
    created = ada_client.post(
        f"{prefix}/social/campaigns",
        {"name": "Spring launch", "description": "Q2", "color": "#12AB9f",
         "start_date": "2026-12-01", "end_date": "2026-12-31", "budget": 250.5,
         "goal": "10 leads"},
        format="json",
    )  # fmt: skip
    assert created.status_code == 200, created.content
    campaign = created.json()["data"]
    assert (campaign["status"], campaign["postCount"], campaign["budget"]) == ("draft", 0, 250.5)
    for content in ("one", "two"):
        ada_client.post(
            f"{prefix}/social/posts", {"content": content, "campaignId": campaign["id"]}
        )
    fetched = ada_client.get(f"{prefix}/social/campaigns/{campaign['id']}").json()["data"]
    assert fetched["postCount"] == 2
    updated = ada_client.post(
        f"{prefix}/social/campaigns", {"id": campaign["id"], "status": "active"}
    )
    assert updated.json()["data"]["status"] == "active"
    assert updated.json()["data"]["name"] == "Spring launch"
    listed = ada_client.get(f"{prefix}/social/campaigns", {"page": 1}).json()
    assert [c["id"] for c in listed["data"]] == [campaign["id"]]
    assert ada_client.delete(f"{prefix}/social/campaigns/{campaign['id']}").json()["data"] == {
        "success": True
    }
    # Its posts stay, without a campaign.
    assert set(Post.objects.values_list("campaign", flat=True)) == {None}
    assert Post.objects.count() == 2


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "name"),
        ({"name": "x" * 121}, "name"),
        ({"name": "x", "color": "red"}, "color"),
        ({"name": "x", "start_date": "2026-12-31", "end_date": "2026-12-01"}, "end_date"),
        ({"name": "x", "budget": -1}, "budget"),
        ({"name": "x", "status": "archived"}, "status"),
        ({"name": "x", "start_date": "31/12/2026"}, "start_date"),
    ],
)
def test_bad_campaigns_are_400(ada_client, body, field):
    response = ada_client.post("/api/social/campaigns", body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]
    assert not Campaign.objects.exists()


def test_another_users_campaign_is_404(ada_client):
    campaign = ada_client.post("/api/social/campaigns", {"name": "Mine"}).json()["data"]
    mallory = client_for(user_create(email="mallory@example.com"))
    assert mallory.get(f"/api/social/campaigns/{campaign['id']}").status_code == 404
    assert mallory.delete(f"/api/social/campaigns/{campaign['id']}").status_code == 404
    response = mallory.post("/api/social/campaigns", {"id": campaign["id"], "name": "Theirs"})
    assert response.status_code == 404
    assert Campaign.objects.get().name == "Mine"


# --- Media -------------------------------------------------------------------------------------


def png(width: int = 3, height: int = 2) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), "teal").save(buffer, "PNG")
    return buffer.getvalue()


def file_upload(ada_client, name: str, data: bytes, prefix: str = "/api"):
    from django.core.files.uploadedfile import SimpleUploadedFile

    return ada_client.post(
        f"{prefix}/social/media", {"file": SimpleUploadedFile(name, data)}, format="multipart"
    )


@pytest.mark.parametrize("prefix", ["/api", "/api/v1"])
def test_upload_an_image_then_serve_and_delete_it(
    ada_client, client, media_root, prefix, django_capture_on_commit_callbacks
):
    response = file_upload(ada_client, "chart.gif", png(3, 2), prefix)  # a PNG named .gif
    assert response.status_code == 200, response.content
    item = response.json()["data"]
    assert (item["type"], item["width"], item["height"]) == ("image/png", 3, 2)
    assert item["filename"] == "chart.gif"
    assert item["url"].startswith("http://")
    assert item["url"].endswith(".png")
    stored = list(Path(media_root).rglob("*.png"))
    assert len(stored) == 1
    path = item["url"].split("/media/", 1)[1]
    served = client.get(f"/media/{path}")
    assert served.status_code == 200
    # Drawn again from its pixels (metadata dropped): the same picture.
    with Image.open(io.BytesIO(b"".join(served.streaming_content))) as image:
        assert (image.format, image.size) == ("PNG", (3, 2))
        assert image.convert("RGB").getpixel((0, 0)) == (0, 128, 128)
    assert served["X-Content-Type-Options"] == "nosniff"
    assert served["Content-Disposition"].startswith("inline; filename=")
    assert "sandbox" in served["Content-Security-Policy"]
    assert ada_client.get(f"{prefix}/social/media").json()["data"][0]["id"] == item["id"]
    with django_capture_on_commit_callbacks(execute=True):
        deleted = ada_client.delete(f"{prefix}/social/media/{item['id']}")
    assert deleted.json()["data"] == {"success": True}
    assert not list(Path(media_root).rglob("*.png"))
    assert not MediaItem.objects.exists()


def test_register_a_hosted_file(ada_client):
    response = ada_client.post(
        "/api/social/media",
        {"type": "image/png", "url": "https://cdn.example.com/demo.png", "filename": "demo.png",
         "size": 1048576, "width": 1200, "height": 630},
        format="json",
    )  # fmt: skip
    assert response.status_code == 200
    item = response.json()["data"]
    assert (item["type"], item["size"], item["width"]) == ("image/png", 1048576, 1200)
    assert (item["filename"], item["duration"]) == ("demo.png", None)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        # PDF documents are media since social.md section 13 (tests/social/test_documents.py).
        ({"type": "application/zip", "url": "https://x.example/a.zip", "size": 10}, "type"),
        ({"type": "image/png", "url": "not a url", "size": 10}, "url"),
        ({"type": "image/png", "url": "ftp://x.example/a.png", "size": 10}, "url"),
        ({"type": "image/png", "url": "https://x.example/a.png", "size": 0}, "size"),
        ({"type": "image/png", "url": "https://x.example/a.png", "size": 10485761}, "size"),
    ],
)
def test_bad_registrations_are_400(ada_client, body, field):
    response = ada_client.post("/api/social/media", body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]
    assert not MediaItem.objects.exists()


def test_uploads_are_judged_by_their_bytes_and_size(ada_client, media_root, settings):
    disguised = file_upload(ada_client, "photo.png", b"%PDF-1.7 not an image at all")
    assert disguised.status_code == 400
    assert "file" in disguised.json()["error"]["details"]
    damaged = file_upload(ada_client, "photo.png", png()[:40])
    assert damaged.status_code == 400
    settings.MEDIA_MAX_UPLOAD_BYTES = 100
    large = file_upload(ada_client, "big.png", png(64, 64) + b"\0" * 200)
    assert large.status_code in (400, 413)
    assert not MediaItem.objects.exists()
    assert not list(Path(media_root).rglob("*.*"))


def test_another_users_media_is_404_and_cannot_be_attached(ada_client):
    item = file_upload(ada_client, "a.png", png()).json()["data"]
    mallory = client_for(user_create(email="mallory@example.com"))
    assert mallory.delete(f"/api/social/media/{item['id']}").status_code == 404
    assert mallory.get("/api/social/media").json()["data"] == []
    response = mallory.post("/api/social/posts", {"content": "x", "mediaIds": [item["id"]]},
                            format="json")  # fmt: skip
    assert response.status_code == 400
    assert "mediaIds" in response.json()["error"]["details"]


# --- Settings ----------------------------------------------------------------------------------


@pytest.mark.parametrize("prefix", ["/api", "/api/v1"])
def test_settings_defaults_and_merged_updates(ada_client, prefix):
    assert ada_client.get(f"{prefix}/social/settings").json()["data"] == {
        "defaultPlatform": None,
        "defaultTimezone": "UTC",
        "autoRetry": True,
        "requireAltText": False,  # social.md section 9
        "notificationPreferences": {"oauthSuccess": True, "oauthFailure": True,
                                    "tokenExpiry": True, "postPublished": True,
                                    "postFailed": True},
    }  # fmt: skip
    ada_client.put(f"{prefix}/social/settings",
            {"defaultPlatform": "mastodon", "notificationPreferences": {"postPublished": False}},
            format="json")  # fmt: skip
    data = ada_client.put(f"{prefix}/social/settings",
                   {"defaultTimezone": "Asia/Kolkata", "autoRetry": False,
                    "notificationPreferences": {"tokenExpiry": False}},
                   format="json").json()["data"]  # fmt: skip
    assert data["defaultPlatform"] == "mastodon"
    assert (data["defaultTimezone"], data["autoRetry"]) == ("Asia/Kolkata", False)
    assert data["notificationPreferences"]["postPublished"] is False
    assert data["notificationPreferences"]["tokenExpiry"] is False
    assert data["notificationPreferences"]["postFailed"] is True
    assert ada_client.get(f"{prefix}/social/settings").json()["data"] == data


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"defaultPlatform": "myspace"}, "defaultPlatform"),
        ({"defaultTimezone": "Mars/Olympus"}, "defaultTimezone"),
        ({"autoRetry": "sometimes"}, "autoRetry"),
        ({"notificationPreferences": {"newsletter": True}}, "notificationPreferences"),
        ({"notificationPreferences": {"postFailed": "maybe"}}, "notificationPreferences"),
    ],
)
def test_bad_settings_are_400_and_change_nothing(ada_client, body, field):
    response = ada_client.put("/api/social/settings", body, format="json")
    assert response.status_code == 400
    assert field in response.json()["error"]["details"]
    assert ada_client.get("/api/social/settings").json()["data"]["defaultTimezone"] == "UTC"


def test_a_post_with_media_ids_shows_their_urls(ada_client):
    hosted = {"type": "image/png", "size": 10, "url": "https://cdn.example.com/a.png"}
    item = ada_client.post("/api/social/media", hosted, format="json").json()["data"]
    body = {
        "content": "x",
        "mediaIds": [item["id"]],
        "mediaUrls": ["https://cdn.example.com/b.png"],
    }
    saved = ada_client.post("/api/social/posts", body, format="json")
    assert saved.status_code == 200, saved.content
    expected = ["https://cdn.example.com/b.png", "https://cdn.example.com/a.png"]
    assert saved.json()["data"]["mediaUrls"] == expected
    post_id = saved.json()["data"]["id"]
    assert ada_client.get(f"/api/social/posts/{post_id}").json()["data"]["mediaUrls"] == expected
    for _ in range(3):
        ada_client.post("/api/social/posts", {"content": "y", "mediaIds": [item["id"]]},
                        format="json")  # fmt: skip
    listed = ada_client.get("/api/social/posts", {"page": 1}).json()["data"]
    assert [p["mediaUrls"] for p in listed][-1] == expected
    assert all("https://cdn.example.com/a.png" in p["mediaUrls"] for p in listed)


def test_uploaded_images_lose_their_metadata(ada_client, client, media_root):
    photo = Image.new("RGB", (8, 6), "orange")
    exif = Image.Exif()
    exif[0x010F] = "PhoneMaker"  # Make
    exif[0x0110] = "Phone 15"  # Model
    exif[0x8825] = {1: "N", 2: (48.0, 51.0, 29.0), 3: "E", 4: (2.0, 17.0, 40.0)}  # GPS
    buffer = io.BytesIO()
    photo.save(buffer, "JPEG", exif=exif)
    assert b"PhoneMaker" in buffer.getvalue()
    response = file_upload(ada_client, "holiday.jpg", buffer.getvalue())
    assert response.status_code == 200, response.content
    path = response.json()["data"]["url"].split("/media/", 1)[1]
    served = b"".join(client.get(f"/media/{path}").streaming_content)
    assert b"PhoneMaker" not in served
    with Image.open(io.BytesIO(served)) as image:
        assert dict(image.getexif()) == {}
        assert image.size == (8, 6)


def test_a_polyglot_loses_its_payload(ada_client, client, media_root):
    buffer = io.BytesIO()
    Image.new("P", (2, 2)).save(buffer, "GIF")
    polyglot = buffer.getvalue() + b"<html><script>alert(document.cookie)</script></html>"
    response = file_upload(ada_client, "innocent.gif", polyglot)
    assert response.status_code == 200, response.content
    item = response.json()["data"]
    path = item["url"].split("/media/", 1)[1]
    served = client.get(f"/media/{path}")
    assert b"<script>" not in b"".join(served.streaming_content)
    assert served["Content-Type"] == "image/gif"
    assert served["X-Content-Type-Options"] == "nosniff"


def test_the_media_route_serves_only_media_names(client, media_root, settings):
    Path(settings.MEDIA_ROOT, "social").mkdir(parents=True, exist_ok=True)
    Path(settings.MEDIA_ROOT, "social", "page.html").write_text("<script>alert(1)</script>")
    assert client.get("/media/social/page.html").status_code == 404


# --- Budgets: what decoding an image may cost --------------------------------------------------


def png_header_only(width: int, height: int) -> bytes:
    """A PNG whose header claims `width` x `height` (its pixel data cut short): what a
    decompression bomb looks like before anything is decoded."""
    import struct
    import zlib

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    pixels = zlib.compress(b"\0" * 4096)
    chunks = chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    return b"\x89PNG\r\n\x1a\n" + chunks


def gif_frames(count: int, size: tuple[int, int] = (4, 4)) -> bytes:
    frames = [Image.new("RGB", size, (60 * index, 0, 0)) for index in range(count)]
    buffer = io.BytesIO()
    frames[0].save(buffer, "GIF", save_all=True, append_images=frames[1:], duration=40, loop=0)
    return buffer.getvalue()


def test_an_image_past_the_pixel_budget_is_refused_before_it_is_decoded(ada_client, media_root):
    limits = {"maxPixels": 25_000_000, "maxFrames": 250, "maxAnimationPixels": 100_000_000}
    # 144 million pixels (under Pillow's own refusal), then 400 million (over it).
    for side in (12_000, 20_000):
        response = file_upload(ada_client, "bomb.png", png_header_only(side, side))
        assert response.status_code == 413, response.content
        assert response.json()["error"] == {
            "code": "image_too_large",
            "details": {"width": side, "height": side, "frames": 1, **limits},
        }
    assert not MediaItem.objects.exists()
    assert not list(Path(media_root).rglob("*.*"))


def gif_of_tiny_frames(count: int, canvas: int) -> bytes:
    """A GIF of `count` one-pixel frames on a `canvas`-square screen: a few bytes a frame,
    each decoded (and encoded again) as a whole canvas."""
    import struct

    screen = struct.pack("<HHBBB", canvas, canvas, 0x80, 0, 0) + b"\0\0\0\xff\xff\xff"
    control = b"\x21\xf9\x04\x00\x01\x00\x00\x00"  # 10 ms a frame
    pixel = b"\x2c" + struct.pack("<HHHHB", 0, 0, 1, 1, 0) + b"\x02\x02\x44\x01\x00"
    frame = control + pixel
    return b"GIF89a" + screen + frame * count + b"\x3b"


def test_an_animation_of_countless_frames_is_refused_before_it_is_decoded(ada_client, media_root):
    small = gif_of_tiny_frames(1000, canvas=1000)
    assert len(small) < 25_000
    response = file_upload(ada_client, "spinner.gif", small)
    assert response.status_code == 413, response.content
    details = response.json()["error"]["details"]
    assert (details["width"], details["height"], details["frames"]) == (1000, 1000, 1000)
    assert not MediaItem.objects.exists()
    assert not list(Path(media_root).rglob("*.*"))


def test_the_image_budgets_are_settings(ada_client, media_root, settings):
    settings.MEDIA_MAX_IMAGE_PIXELS = 63 * 64
    assert file_upload(ada_client, "big.png", png(64, 64)).status_code == 413
    assert file_upload(ada_client, "fits.png", png(63, 64)).status_code == 200
    settings.MEDIA_MAX_IMAGE_FRAMES = 3
    many = file_upload(ada_client, "many.gif", gif_frames(4))
    assert (many.status_code, many.json()["error"]["details"]["frames"]) == (413, 4)
    settings.MEDIA_MAX_ANIMATION_PIXELS = 3 * 16 - 1  # every frame counts
    assert file_upload(ada_client, "three.gif", gif_frames(3)).status_code == 413
    settings.MEDIA_MAX_ANIMATION_PIXELS = 3 * 16
    kept = file_upload(ada_client, "three.gif", gif_frames(3))
    assert kept.status_code == 200, kept.content
    assert MediaItem.objects.count() == 2
    assert len(list(Path(media_root).rglob("*.*"))) == 2


# --- Quota and rate: what one user may store, and how fast --------------------------------------


def stored_size(data: bytes) -> int:
    """What an image takes once stored (drawn again from its pixels), as another user's
    upload shows."""
    other = client_for(user_create(email="sizer@example.com"))
    return int(file_upload(other, "sized.png", data).json()["data"]["size"])


def test_a_user_stores_up_to_the_quota_then_413_with_the_numbers(
    ada_client, media_root, settings, django_capture_on_commit_callbacks
):
    one = stored_size(png(8, 8))
    settings.MEDIA_QUOTA_BYTES = 2 * one + one // 2
    first = file_upload(ada_client, "a.png", png(8, 8)).json()["data"]
    assert file_upload(ada_client, "b.png", png(8, 8)).status_code == 200
    refused = file_upload(ada_client, "c.png", png(8, 8))
    assert refused.status_code == 413, refused.content
    error = refused.json()["error"]
    assert error["code"] == "media_quota_exceeded"
    assert error["details"] == {"quotaBytes": 2 * one + one // 2, "usedBytes": 2 * one,
                                "fileBytes": error["details"]["fileBytes"]}  # fmt: skip
    assert error["details"]["fileBytes"] > 0
    assert MediaItem.objects.filter(user__email="ada@example.com").count() == 2
    assert len(list(Path(media_root).rglob("*.png"))) == 3  # the sizer's one too
    # Hosted files take none of our storage: they do not count.
    hosted = {"type": "image/png", "size": 10**6, "url": "https://cdn.example.com/a.png"}
    assert ada_client.post("/api/social/media", hosted, format="json").status_code == 200
    # Another user's library is theirs.
    mallory = client_for(user_create(email="mallory@example.com"))
    assert file_upload(mallory, "m.png", png(8, 8)).status_code == 200
    # Deleting a file frees its bytes.
    with django_capture_on_commit_callbacks(execute=True):
        ada_client.delete(f"/api/social/media/{first['id']}")
    assert file_upload(ada_client, "c.png", png(8, 8)).status_code == 200


def test_files_added_past_the_hourly_rate_are_429_with_retry_after(ada_client, settings):
    settings.MEDIA_UPLOADS_PER_HOUR = 2
    hosted = {"type": "image/png", "size": 10, "url": "https://cdn.example.com/a.png"}
    assert file_upload(ada_client, "a.png", png()).status_code == 200
    assert ada_client.post("/api/social/media", hosted, format="json").status_code == 200
    refused = file_upload(ada_client, "b.png", png())
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert 0 < int(refused["Retry-After"]) <= 3600
    assert ada_client.post("/api/social/media", hosted, format="json").status_code == 429
    assert MediaItem.objects.count() == 2
    # Reading the library, and another user's uploads, are not held back.
    assert ada_client.get("/api/social/media").status_code == 200
    mallory = client_for(user_create(email="mallory@example.com"))
    assert file_upload(mallory, "m.png", png()).status_code == 200


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_concurrent_uploads_never_pass_the_quota_together(ada, media_root, settings):
    if connection.vendor != "postgresql":
        pytest.skip("needs PostgreSQL (DATABASE_URL); CI runs it")
    settings.MEDIA_QUOTA_BYTES = stored_size(png(8, 8)) * 3 // 2  # room for one
    barrier = threading.Barrier(4)

    def upload(number: int) -> int:
        try:
            barrier.wait()
            return int(file_upload(client_for(ada), f"{number}.png", png(8, 8)).status_code)
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=4) as pool:
        statuses = sorted(pool.map(upload, range(4)))
    assert statuses == [200, 413, 413, 413]
    assert MediaItem.objects.filter(user=ada).count() == 1
    assert len(list(Path(media_root).rglob(f"social/{ada.pk}/*.png"))) == 1
