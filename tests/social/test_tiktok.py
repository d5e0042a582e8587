"""TikTok (networks/tiktok.md), through HTTP against its stand-in: Login Kit OAuth (client_key, no
PKCE, video.publish required, a declined consent, tokens refreshed and rotated), the creator's
info asked before every post (privacy levels offered, settings disabled, the longest video), a
video uploaded in chunks (the publish_id stored before any byte, an interrupted upload asked
about, never initialized twice), photos fetched by TikTok, the status awaited by tasks, options
and refusals with the field named, the creator's daily Direct Posts deferring instead of failing,
a lost photo init Unconfirmed and never resent, errors, health, metrics and disconnecting."""

from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone

from social.models import AnalyticsRecord, ScheduledRecord, SocialAccount
from social.providers.tiktok import upload as tiktok_upload
from social.publishing import record_processing_continue
from social.tasks import metrics_collect_task
from tests.social.conftest import (
    REDIRECT_URI,
    account_fixture,
    connect,
    consent,
    image,
    publisher,
)
from tests.social.test_scheduler import make_due, run, schedule
from tests.social.test_video import video_id
from tests.social.tiktok_standin import CREATOR, OPEN_ID, SCOPES, TIKTOK_CLIENT

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]

VIDEO_INIT = "/v2/post/publish/video/init/"
PHOTO_INIT = "/v2/post/publish/content/init/"
STATUS = "/v2/post/publish/status/fetch/"
CREATOR_INFO = "/v2/post/publish/creator_info/query/"
PUBLIC = {"tiktok": {"options": {"privacyLevel": "PUBLIC_TO_EVERYONE"}}}
CHUNK = 64 * 1024


@pytest.fixture
def tiktok(providers) -> Any:
    return providers.tiktok


account = account_fixture("tiktok")


def image_id(client: Any, providers: Any, alt: str = "Our shop") -> str:
    return image(client, providers.image(), alt)


publish = publisher(
    title="Launch",
    content="We shipped. https://ada.example #launch",
    variants=PUBLIC,
)


def fields(response: Any) -> list[str]:
    details = response.json()["error"]["details"]
    return [t["field"] for t in details.get("targets", [])] or list(details)


def puts(tiktok: Any) -> list[str]:
    return [call.headers.get("Content-Range", "") for call in tiktok.calls if call.method == "PUT"]


# --- Connecting ---------------------------------------------------------------------------------


def test_consent_names_the_client_key_and_the_creator_is_the_account(ada_client, account, tiktok):
    url = ada_client.get(
        "/api/social/connect/tiktok/authorize", {"redirectUri": REDIRECT_URI}
    ).json()["data"]["url"]
    query = {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}
    assert (query["client_key"], query["response_type"]) == (TIKTOK_CLIENT[0], "code")
    assert query["scope"].split(",") == list(SCOPES)
    assert "code_challenge" not in query
    assert "client_id" not in query
    assert (account["provider_user_id"], account["username"], account["display_name"]) == (
        OPEN_ID, CREATOR["username"], CREATOR["nickname"],
    )  # fmt: skip
    assert account["limits"]["maxVideoSeconds"] == 600
    stored = SocialAccount.objects.get(pk=account["id"])
    assert stored.expires_at is not None  # the refresh token's end: 365 days
    assert abs((stored.expires_at - timezone.now()) - timedelta(days=365)) < timedelta(minutes=5)
    assert stored.credentials_expire_at is not None  # the access token's 24 hours
    assert stored.credentials_expire_at < timezone.now() + timedelta(hours=25)
    platforms = {p["provider"]: p for p in ada_client.get("/api/social/platforms").json()["data"]}
    listed = platforms["tiktok"]
    assert listed["configured"] is True
    assert (listed["limits"]["maxCharacters"], listed["limits"]["maxMedia"]) == (2200, 35)
    can = listed["capabilities"]
    assert (can["text"], can["images"], can["video"], can["carousel"], can["altText"]) == (
        False, True, True, True, False,
    )  # fmt: skip
    privacy = can["options"][0]
    assert (privacy["name"], privacy["required"]) == ("privacyLevel", True)


def test_an_unticked_publish_scope_or_a_declined_consent_stores_nothing(ada_client, tiktok):
    tiktok.granted = {"user.info.basic", "video.upload"}
    response = connect(ada_client, "tiktok")
    assert (response.status_code, response.json()["error"]["code"]) == (400, "scope_missing")
    assert response.json()["error"]["details"]["missing"] == ["video.publish", "video.list"]
    tiktok.granted, tiktok.denied = set(SCOPES), True
    back = consent(ada_client, "tiktok")
    body = {"provider": "tiktok", "state": back["state"], "error": back["error"]}
    response = ada_client.post("/api/social/connect", body, format="json")
    assert (response.status_code, response.json()["error"]["code"]) == (400, "consent_denied")
    assert not SocialAccount.objects.exists()


def test_without_the_app_tiktok_is_listed_but_not_configured(ada_client, settings):
    settings.TIKTOK_CLIENT_KEY = ""
    platforms = {p["provider"]: p for p in ada_client.get("/api/social/platforms").json()["data"]}
    assert platforms["tiktok"]["configured"] is False
    response = ada_client.get("/api/social/connect/tiktok/authorize", {"redirectUri": REDIRECT_URI})
    assert (response.status_code, response.json()["error"]["code"]) == (
        503, "provider_not_configured",
    )  # fmt: skip


def test_a_token_near_its_end_is_refreshed_and_its_new_refresh_token_kept(
    client, ada_client, account, tiktok, django_capture_on_commit_callbacks
):
    first = str(SocialAccount.objects.get(pk=account["id"]).refresh_token)
    SocialAccount.objects.filter(pk=account["id"]).update(
        credentials_expire_at=timezone.now() + timedelta(minutes=2)
    )
    tiktok.video_polls = 0
    (record_id,) = schedule(ada_client, {"tiktok": account}, "tiktok", variants=PUBLIC,
                            mediaIds=[video_id(ada_client)])  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        run(client)
    assert ScheduledRecord.objects.get(pk=record_id).status == "Published"
    grants = [call.body["grant_type"] for call in tiktok.received("POST", "/v2/oauth/token/")]
    assert grants == ["authorization_code", "refresh_token"]
    renewed = SocialAccount.objects.get(pk=account["id"])
    assert str(renewed.refresh_token) not in ("", first)  # rotated
    assert renewed.credentials_expire_at is not None
    assert renewed.credentials_expire_at > timezone.now() + timedelta(hours=23)
    response = ada_client.post("/api/social/disconnect", {"accountId": account["id"]},
                               format="json")  # fmt: skip
    assert response.status_code == 200
    (revoked,) = tiktok.received("POST", "/v2/oauth/revoke/")
    assert revoked.body["client_key"] == TIKTOK_CLIENT[0]


# --- What a post must be ------------------------------------------------------------------------


def test_refusals_name_their_field_and_send_nothing(ada_client, account, tiktok, providers):
    response = publish(ada_client, account)
    assert (response.status_code, fields(response)) == (400, ["mediaIds"])
    video, image = video_id(ada_client, seconds=5.0), image_id(ada_client, providers)
    for body, code in (
        ({"thread": [{"content": "More"}]}, "thread_not_supported"),
        ({"firstComment": "First!"}, "first_comment_not_supported"),
    ):
        response = publish(ada_client, account, mediaIds=[video], **body)
        assert (response.status_code, response.json()["error"]["code"]) == (400, code)
    options = "variants.tiktok.options"
    refusals: list[tuple[dict[str, Any], str]] = [
        ({"mediaIds": [video], "variants": {}}, f"{options}.privacyLevel"),
        ({"mediaIds": [video], "variants": {"tiktok": {"options": {"privacyLevel": "FRIENDS"}}}},
         f"{options}.privacyLevel"),
        ({"mediaIds": [video], "variants": {"tiktok": {"options": {
            "privacyLevel": "SELF_ONLY", "brandContentToggle": True}}}}, f"{options}.privacyLevel"),
        ({"mediaIds": [video], "variants": {"tiktok": {"options": {
            "privacyLevel": "SELF_ONLY", "autoAddMusic": True}}}}, f"{options}.autoAddMusic"),
        ({"mediaIds": [video], "variants": {"tiktok": {"options": {
            "privacyLevel": "SELF_ONLY", "videoCoverTimestampMs": 9000}}}},
         f"{options}.videoCoverTimestampMs"),
        ({"mediaIds": [image], "variants": {"tiktok": {"options": {
            "privacyLevel": "SELF_ONLY", "disableDuet": True}}}}, f"{options}.disableDuet"),
        ({"mediaIds": [video], "variants": {"tiktok": {"options": {
            "privacyLevel": "SELF_ONLY", "sound": "x"}}}}, f"{options}.sound"),
        ({"mediaIds": [video], "content": "😀" * 1101}, "content"),  # 2,202 UTF-16 units
        ({"mediaIds": [image], "title": "x" * 91}, "title"),
        ({"mediaIds": [video, image]}, "media"),
    ]  # fmt: skip
    for body, field in refusals:
        response = publish(ada_client, account, **body)
        assert response.status_code == 400, (body, response.content)
        assert field in str(response.json()["error"]["details"]), (body, response.content)
    preview = ada_client.post(
        "/api/social/preview",
        {"title": "Film", "content": "Hi", "accountIds": [account["id"]], "mediaIds": [video]},
        format="json",
    ).json()["data"][0]
    assert [p["field"] for p in preview["problems"]] == [f"{options}.privacyLevel"]
    assert tiktok.posts == []
    assert not tiktok.received("POST", VIDEO_INIT)
    assert not tiktok.received("POST", PHOTO_INIT)
    assert ScheduledRecord.objects.count() == 0


def test_a_video_longer_than_the_creator_may_post_is_refused(ada_client, tiktok):
    tiktok.max_video_seconds = 10
    account = connect(ada_client, "tiktok").json()["data"]
    response = publish(ada_client, account, mediaIds=[video_id(ada_client, seconds=20.0)])
    assert response.status_code == 400
    assert "at most 10 seconds" in str(response.json()["error"]["details"])
    assert tiktok.posts == []


# --- Publishing -----------------------------------------------------------------------------------


def test_a_video_is_initialized_after_the_creators_info_uploaded_and_awaited(
    ada_client, account, tiktok, django_capture_on_commit_callbacks
):
    tiktok.comment_disabled = True  # the creator's setting wins over the post's
    options = {"privacyLevel": "FOLLOWER_OF_CREATOR", "disableComment": False,
               "disableDuet": True, "videoCoverTimestampMs": 1500,
               "brandOrganicToggle": True}  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        response = publish(ada_client, account, mediaIds=[video_id(ada_client, seconds=6.0)],
                           variants={"tiktok": {"options": options}})  # fmt: skip
        assert response.status_code == 200, response.content
        (entry,) = response.json()["data"]
        assert (entry["status"], entry["error"]["code"]) == ("Publishing", "processing")
    (init,) = tiktok.received("POST", VIDEO_INIT)
    info = tiktok.received("POST", CREATOR_INFO)
    assert info
    assert info[-1].received_at <= init.received_at
    size = init.body["source_info"]["video_size"]
    assert init.body == {
        "post_info": {"privacy_level": "FOLLOWER_OF_CREATOR", "disable_comment": True,
                      "brand_content_toggle": False, "brand_organic_toggle": True,
                      "title": "We shipped. https://ada.example #launch",
                      "disable_duet": True, "disable_stitch": False,
                      "video_cover_timestamp_ms": 1500},
        "source_info": {"source": "FILE_UPLOAD", "video_size": size, "chunk_size": size,
                        "total_chunk_count": 1},
    }  # fmt: skip
    assert puts(tiktok) == [f"bytes 0-{size - 1}/{size}"]
    (post,) = tiktok.posts
    record = ScheduledRecord.objects.get()
    assert (record.status, record.provider_post_id) == ("Published", post["id"])
    assert record.url == f"https://www.tiktok.com/@{CREATOR['username']}/video/{post['id']}"
    assert [e["outcome"] for e in record.history] == ["processing", "published"]
    assert len(tiktok.received("POST", STATUS)) == 3  # two looks processing, then complete


def test_photos_are_fetched_by_tiktok_without_alt_text_and_a_private_post_has_no_public_id(
    ada_client, account, tiktok, providers, django_capture_on_commit_callbacks
):
    tiktok.photo_polls = 2
    images = [image_id(ada_client, providers), image_id(ada_client, providers, alt="Inside")]
    private = {"tiktok": {"options": {"privacyLevel": "SELF_ONLY", "autoAddMusic": False}}}
    with django_capture_on_commit_callbacks(execute=True):
        response = publish(ada_client, account, title="Our shop", mediaIds=images,
                           variants=private)  # fmt: skip
        assert response.status_code == 200, response.content
    (init,) = tiktok.received("POST", PHOTO_INIT)
    assert init.body["post_mode"] == "DIRECT_POST"
    assert init.body["media_type"] == "PHOTO"
    assert init.body["source_info"] == {"source": "PULL_FROM_URL", "photo_cover_index": 0,
                                        "photo_images": [providers.image()] * 2}  # fmt: skip
    assert init.body["post_info"] == {
        "privacy_level": "SELF_ONLY", "disable_comment": False, "brand_content_toggle": False,
        "brand_organic_toggle": False, "title": "Our shop",
        "description": "We shipped. https://ada.example #launch", "auto_add_music": False,
    }  # fmt: skip
    assert "Inside" not in str(init.body)  # TikTok has no alt text
    record = ScheduledRecord.objects.get()
    (post,) = tiktok.posts
    assert (record.status, record.provider_post_id) == ("Published", post["publish_id"])
    assert record.url == f"https://www.tiktok.com/@{CREATOR['username']}"
    assert metrics_collect_task.delay().get()["records"] == 1
    assert not tiktok.received("POST", "/v2/video/query/")  # no public id: no metrics


def test_a_public_posts_metrics_and_the_accounts_health(ada_client, account, tiktok, providers):
    response = publish(ada_client, account, mediaIds=[image_id(ada_client, providers)])
    assert response.json()["data"][0]["success"], response.content
    record = ScheduledRecord.objects.get()
    assert record.url.endswith(f"/photo/{record.provider_post_id}")
    assert metrics_collect_task.delay().get() == {"records": 1, "collected": 1}
    row = AnalyticsRecord.objects.get()
    assert (row.impressions, row.engagement) == (1200, 100)
    (query,) = tiktok.received("POST", "/v2/video/query/")
    assert query.body == {"filters": {"video_ids": [record.provider_post_id]}}
    health = ada_client.get(f"/api/social/accounts/{account['id']}/health").json()["data"]
    assert (health["dailyCap"]["limit"], health["dailyCap"]["used"]) == (15, 1)
    assert tiktok.received("GET", "/v2/user/info/")


def test_a_privacy_level_the_creator_is_not_offered_fails_before_anything_is_made(
    client, ada_client, account, tiktok
):
    tiktok.privacy_options = ["SELF_ONLY"]  # a private account
    (record_id,) = schedule(ada_client, {"tiktok": account}, "tiktok", variants=PUBLIC,
                            mediaIds=[video_id(ada_client)])  # fmt: skip
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Failed", "provider_rejected")
    detail = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]
    assert detail["error"]["category"] == "permission_missing"
    assert "variants.tiktok.options.privacyLevel" in detail["error"]["message"]
    assert not tiktok.received("POST", VIDEO_INIT)


@pytest.mark.parametrize(
    ("reason", "category"),
    [("file_format_check_failed", "media_invalid"), ("auth_removed", "auth_expired")],
)
def test_a_failed_post_fails_the_record_with_tiktoks_reason(
    ada_client, account, tiktok, reason, category, django_capture_on_commit_callbacks
):
    tiktok.video_fail = reason
    with django_capture_on_commit_callbacks(execute=True):
        assert publish(ada_client, account, mediaIds=[video_id(ada_client)]).status_code == 200
    record = ScheduledRecord.objects.get()
    assert record.status == "Failed"
    assert reason in record.error
    detail = ada_client.get(f"/api/social/schedule/{record.pk}").json()["data"]
    assert detail["error"]["category"] == category


# --- Chunks and exactly once ---------------------------------------------------------------------


@pytest.fixture
def small_chunks(monkeypatch, tiktok) -> int:
    monkeypatch.setattr(tiktok_upload, "CHUNK_BYTES", CHUNK)
    tiktok.min_chunk = CHUNK
    return CHUNK


def test_a_large_file_goes_in_chunks_once_its_publish_id_is_stored(
    client, ada_client, account, tiktok, small_chunks, django_capture_on_commit_callbacks
):
    video = video_id(ada_client, payload=3 * CHUNK + CHUNK // 2)
    (record_id,) = schedule(ada_client, {"tiktok": account}, "tiktok", variants=PUBLIC,
                            mediaIds=[video])  # fmt: skip
    with django_capture_on_commit_callbacks(execute=False):  # the first look only
        assert run(client).json()["data"]["results"][0]["status"] == "Publishing"
    kept = ScheduledRecord.objects.get(pk=record_id).processing
    assert kept["publish_id"].startswith("v_pub_file")
    assert puts(tiktok) == []
    total = int(kept["total"])
    (init,) = tiktok.received("POST", VIDEO_INIT)
    assert init.body["source_info"] == {"source": "FILE_UPLOAD", "video_size": total,
                                        "chunk_size": CHUNK,
                                        "total_chunk_count": total // CHUNK}  # fmt: skip
    record = ScheduledRecord.objects.get(pk=record_id)
    with django_capture_on_commit_callbacks(execute=True):
        record_processing_continue(record_id=record_id, claim=str(record.claim))
    assert ScheduledRecord.objects.get(pk=record_id).status == "Published"
    last = (total // CHUNK - 1) * CHUNK
    assert puts(tiktok) == [
        *(f"bytes {n * CHUNK}-{(n + 1) * CHUNK - 1}/{total}" for n in range(total // CHUNK - 1)),
        f"bytes {last}-{total - 1}/{total}",  # the last chunk takes the remainder
    ]
    assert len(tiktok.posts) == 1


def test_a_lost_chunk_answer_asks_the_status_and_sends_again_within_the_same_upload(
    client, ada_client, account, tiktok, small_chunks
):
    video = video_id(ada_client, payload=2 * CHUNK + 100)
    (record_id,) = schedule(ada_client, {"tiktok": account}, "tiktok", variants=PUBLIC,
                            mediaIds=[video])  # fmt: skip
    run(client)  # initialized and stored (no task runs in this test)
    tiktok.acted.append(("PUT", r"/upload/\d+", (502, b"Bad Gateway", {})))  # the first chunk
    record = ScheduledRecord.objects.get(pk=record_id)
    record_processing_continue(record_id=record_id, claim=str(record.claim))
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, record.outcome_unknown) == ("Scheduled", True)
    assert record.processing["sending"] is True
    make_due([record_id])
    tiktok.video_polls = 0
    run(client)
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.status in ("Publishing", "Published")
    sent = puts(tiktok)
    assert sent[0] == sent[1]
    assert sent[1].startswith("bytes 0-")
    order = [c.method if c.method == "PUT" else c.path for c in tiktok.calls]
    after = order[order.index("PUT") + 1 :]
    assert after.index(STATUS) < after.index("PUT")  # asked before anything is sent again
    assert len(tiktok.received("POST", VIDEO_INIT)) == 1  # never initialized again
    assert len(tiktok.posts) == 1


def test_a_lost_final_chunk_answer_is_the_upload_done_never_sent_again(
    client, ada_client, account, tiktok, django_capture_on_commit_callbacks
):
    tiktok.acted.append(("PUT", r"/upload/\d+", (502, b"Bad Gateway", {})))
    (record_id,) = schedule(ada_client, {"tiktok": account}, "tiktok", variants=PUBLIC,
                            mediaIds=[video_id(ada_client)])  # fmt: skip
    run(client)
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, record.outcome_unknown) == ("Scheduled", True)
    assert len(tiktok.posts) == 1  # made, its answer lost
    make_due([record_id])
    tiktok.video_polls = 0
    with django_capture_on_commit_callbacks(execute=True):
        run(client)
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, record.provider_post_id) == ("Published", tiktok.posts[0]["id"])
    assert len(puts(tiktok)) == 1
    assert len(tiktok.received("POST", VIDEO_INIT)) == 1


def test_a_lost_video_init_answer_is_initialized_again(
    client, ada_client, account, tiktok, django_capture_on_commit_callbacks
):
    tiktok.acted.append(("POST", VIDEO_INIT, (502, b"Bad Gateway", {})))
    (record_id,) = schedule(ada_client, {"tiktok": account}, "tiktok", variants=PUBLIC,
                            mediaIds=[video_id(ada_client)])  # fmt: skip
    run(client)
    assert ScheduledRecord.objects.get(pk=record_id).outcome_unknown is True
    make_due([record_id])
    tiktok.video_polls = 0
    with django_capture_on_commit_callbacks(execute=True):
        run(client)
    assert ScheduledRecord.objects.get(pk=record_id).status == "Published"
    assert len(tiktok.received("POST", VIDEO_INIT)) == 2  # the first upload never got a byte
    assert len(tiktok.posts) == 1


def test_a_lost_photo_init_answer_is_unconfirmed_never_sent_again(
    client, ada_client, account, tiktok, providers
):
    tiktok.acted.append(("POST", PHOTO_INIT, (502, b"Bad Gateway", {})))
    (record_id,) = schedule(ada_client, {"tiktok": account}, "tiktok", variants=PUBLIC,
                            mediaIds=[image_id(ada_client, providers)])  # fmt: skip
    for _ in range(5):
        run(client)
        if ScheduledRecord.objects.get(pk=record_id).status != "Scheduled":
            break
        make_due([record_id])
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, record.error_code) == ("Unconfirmed", "unconfirmed")
    assert len(tiktok.received("POST", PHOTO_INIT)) == 1
    assert len(tiktok.posts) == 1  # TikTok has it; we could not tell


def test_a_down_network_is_retried_and_an_expired_token_is_auth_expired(
    client, ada_client, account, tiktok, django_capture_on_commit_callbacks
):
    tiktok.video_polls = 0
    (record_id,) = schedule(ada_client, {"tiktok": account}, "tiktok", variants=PUBLIC,
                            mediaIds=[video_id(ada_client)])  # fmt: skip
    tiktok.fail = "down"
    assert run(client).json()["data"]["results"][0]["error"]["code"] == "retry_scheduled"
    tiktok.fail = ""
    make_due([record_id])
    with django_capture_on_commit_callbacks(execute=True):
        run(client)
    assert ScheduledRecord.objects.get(pk=record_id).status == "Published"
    tiktok.expired = True
    (second,) = schedule(ada_client, {"tiktok": account}, "tiktok", variants=PUBLIC,
                         mediaIds=[video_id(ada_client)])  # fmt: skip
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Failed", "account_expired")
    detail = ada_client.get(f"/api/social/schedule/{second}").json()["data"]
    assert detail["error"]["category"] == "auth_expired"
    assert len(tiktok.posts) == 1


# --- Daily caps -----------------------------------------------------------------------------------


def test_posts_over_the_daily_cap_wait_instead_of_failing(
    client, ada_client, account, tiktok, settings, django_capture_on_commit_callbacks
):
    settings.SOCIAL_DAILY_CAPS = {**settings.SOCIAL_DAILY_CAPS, "tiktok": 1}
    tiktok.video_polls = 0
    video = video_id(ada_client)
    first, second = (
        schedule(ada_client, {"tiktok": account}, "tiktok", variants=PUBLIC, title=f"Film {n}",
                 mediaIds=[video])[0]
        for n in (1, 2)
    )  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        run(client)
    done, waiting = ScheduledRecord.objects.get(pk=first), ScheduledRecord.objects.get(pk=second)
    assert done.status == "Published"
    assert (waiting.status, waiting.error_code) == ("Scheduled", "daily_cap_reached")
    assert len(tiktok.received("POST", VIDEO_INIT)) == 1


@pytest.mark.parametrize("kind", ["video", "photo"])
def test_tiktoks_own_daily_cap_answer_defers_a_day(
    client, ada_client, account, tiktok, providers, kind
):
    tiktok.daily_posts = 0  # the creator posted as much as TikTok allows, from other apps
    media = video_id(ada_client) if kind == "video" else image_id(ada_client, providers)
    (record_id,) = schedule(ada_client, {"tiktok": account}, "tiktok", variants=PUBLIC,
                            mediaIds=[media])  # fmt: skip
    run(client)
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, record.error_code, record.attempts) == (
        "Scheduled", "daily_cap_reached", 0,
    )  # fmt: skip
    assert record.due_at > timezone.now() + timedelta(hours=23)
    assert record.history[-1]["category"] == "account_limit"
    assert "photoInit" not in record.processing  # nothing made: never taken for in doubt
    assert tiktok.posts == []


def test_a_post_is_queued_in_the_accounts_next_slot(ada_client, account, tiktok, providers):
    slots = {"timezone": "UTC", "paused": False, "slots": [{"day": "mon", "time": "09:00"}]}
    assert ada_client.put(f"/api/social/queue/{account['id']}", slots,
                          format="json").status_code == 200  # fmt: skip
    body = {"content": "Queued", "mediaIds": [image_id(ada_client, providers)],
            "accountIds": [account["id"]], "variants": PUBLIC}  # fmt: skip
    response = ada_client.post("/api/social/queue", body, format="json")
    assert response.status_code == 200, response.content
    (record,) = ScheduledRecord.objects.all()
    assert (record.status, record.due_at.weekday(), record.due_at.hour) == ("Scheduled", 0, 9)
    refused = ada_client.post("/api/social/queue", {**body, "variants": {}}, format="json")
    assert refused.status_code == 400
    assert "variants.tiktok.options.privacyLevel" in str(refused.json()["error"]["details"])
    assert tiktok.posts == []
