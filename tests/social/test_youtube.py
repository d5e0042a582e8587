"""YouTube (networks/youtube.md), through HTTP against its stand-in: Google OAuth with offline
access (the upload scope required, a channel required, hourly tokens refreshed), a post as one
video with a title and options, uploaded resumably (the session stored before any byte, resumed
from the confirmed byte after an interruption, asked before anything is sent again, looked up
among the channel's uploads when gone), processing awaited by tasks, Shorts, the project's
uploads a day deferring instead of failing, errors, health and disconnecting."""

from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit
from zoneinfo import ZoneInfo

import pytest
from django.utils import timezone

from social.models import ScheduledRecord, SocialAccount
from social.providers.youtube import upload as youtube_upload
from tests.social.conftest import (
    REDIRECT_URI,
    account_fixture,
    connect,
    publisher,
)
from tests.social.test_scheduler import make_due, run, schedule
from tests.social.test_video import video_id
from tests.social.youtube_standin import CHANNEL, GOOGLE_CLIENT, READ_SCOPE, UPLOAD_SCOPE

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]

VIDEOS = "/upload/youtube/v3/videos"
CHUNK = 256 * 1024


@pytest.fixture
def youtube(providers) -> Any:
    return providers.youtube


account = account_fixture("youtube")


publish = publisher(title="Launch film", content="We shipped. https://ada.example #launch")


def targets(response: Any) -> list[tuple[str, str]]:
    details = response.json()["error"]["details"]
    return [(t["field"], t.get("message", "")) for t in details.get("targets", [])]


def puts(youtube: Any) -> list[str]:
    """The Content-Range of each PUT to an upload session, in order."""
    return [call.headers.get("Content-Range", "") for call in youtube.calls if call.method == "PUT"]


# --- Connecting ---------------------------------------------------------------------------------


def test_consent_asks_offline_access_and_the_channel_is_the_account(ada_client, account, youtube):
    url = ada_client.get(
        "/api/social/connect/youtube/authorize", {"redirectUri": REDIRECT_URI}
    ).json()["data"]["url"]
    query = {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}
    assert query["client_id"] == GOOGLE_CLIENT[0]
    assert (query["access_type"], query["prompt"], query["response_type"]) == (
        "offline", "consent", "code",
    )  # fmt: skip
    assert set(query["scope"].split()) == {UPLOAD_SCOPE, READ_SCOPE}
    assert "code_challenge" not in query  # a confidential client: no PKCE
    assert (account["provider_user_id"], account["username"], account["display_name"]) == (
        CHANNEL["id"], CHANNEL["customUrl"], CHANNEL["title"],
    )  # fmt: skip
    assert account["expires_at"] is None  # the refresh token renews it
    stored = SocialAccount.objects.get(pk=account["id"])
    assert str(stored.refresh_token) == "yt-refresh-token"
    platforms = {p["provider"]: p for p in ada_client.get("/api/social/platforms").json()["data"]}
    youtube_platform = platforms["youtube"]
    assert youtube_platform["configured"] is True
    assert youtube_platform["limits"]["maxTitle"] == 100
    can = youtube_platform["capabilities"]
    assert (can["text"], can["video"], can["images"], can["threads"], can["title"]) == (
        False, True, False, False, True,
    )  # fmt: skip
    assert [o["name"] for o in can["options"]] == [
        "privacyStatus", "madeForKids", "categoryId", "tags", "notifySubscribers",
    ]  # fmt: skip


def test_an_unticked_upload_scope_or_no_channel_stores_nothing(ada_client, youtube):
    youtube.granted = {READ_SCOPE}
    response = connect(ada_client, "youtube")
    assert (response.status_code, response.json()["error"]["code"]) == (400, "scope_missing")
    assert response.json()["error"]["details"]["missing"] == [UPLOAD_SCOPE]
    youtube.granted = {UPLOAD_SCOPE, READ_SCOPE}
    youtube.has_channel = False
    response = connect(ada_client, "youtube")
    assert (response.status_code, response.json()["error"]["code"]) == (400, "no_youtube_channel")
    assert not SocialAccount.objects.exists()


def test_without_the_google_app_youtube_is_listed_but_not_configured(ada_client, settings):
    settings.GOOGLE_CLIENT_ID = ""
    platforms = {p["provider"]: p for p in ada_client.get("/api/social/platforms").json()["data"]}
    assert platforms["youtube"]["configured"] is False
    response = ada_client.get(
        "/api/social/connect/youtube/authorize", {"redirectUri": REDIRECT_URI}
    )
    assert (response.status_code, response.json()["error"]["code"]) == (
        503, "provider_not_configured",
    )  # fmt: skip


def test_an_hourly_token_is_refreshed_before_a_call_and_disconnect_revokes(
    client, ada_client, account, youtube, django_capture_on_commit_callbacks
):
    SocialAccount.objects.filter(pk=account["id"]).update(
        credentials_expire_at=timezone.now() + timedelta(minutes=2)
    )
    (record_id,) = schedule(ada_client, {"youtube": account}, "youtube", title="Film",
                            mediaIds=[video_id(ada_client)])  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        run(client)
    assert ScheduledRecord.objects.get(pk=record_id).status == "Published"
    grants = [call.body["grant_type"] for call in youtube.received("POST", "/token")]
    assert grants == ["authorization_code", "refresh_token"]
    renewed = SocialAccount.objects.get(pk=account["id"])
    assert renewed.credentials_expire_at is not None
    assert renewed.credentials_expire_at > timezone.now() + timedelta(minutes=50)
    response = ada_client.post("/api/social/disconnect", {"accountId": account["id"]},
                               format="json")  # fmt: skip
    assert response.status_code == 200
    (revoked,) = youtube.received("POST", "/revoke")
    assert revoked.body["token"] == "yt-refresh-token"


# --- What a post must be --------------------------------------------------------------------------


def test_a_post_without_a_video_and_other_refusals_name_their_field(ada_client, account, youtube):
    response = publish(ada_client, account)
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "validation_error"
    assert [field for field, _ in targets(response)] == ["mediaIds"]
    video = video_id(ada_client)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"thread": [{"content": "More"}]}, "thread_not_supported"),
        ({"firstComment": "First!"}, "first_comment_not_supported"),
    ]
    for body, code in cases:
        response = publish(ada_client, account, mediaIds=[video], **body)
        assert (response.status_code, response.json()["error"]["code"]) == (400, code)
    refusals: list[tuple[dict[str, Any], str]] = [
        ({"title": ""}, "title"),
        ({"title": "x" * 101}, "title"),
        ({"title": "a <b>"}, "title"),
        ({"content": "é" * 2600}, "content"),  # 5,200 bytes
        ({"variants": {"youtube": {"options": {"privacyStatus": "friends"}}}},
         "variants.youtube.options.privacyStatus"),
        ({"variants": {"youtube": {"options": {"categoryId": "people"}}}},
         "variants.youtube.options.categoryId"),
        ({"variants": {"youtube": {"options": {"tags": ["a" * 300, "b" * 300]}}}},
         "variants.youtube.options.tags"),
        ({"variants": {"youtube": {"options": {"playlist": "x"}}}},
         "variants.youtube.options.playlist"),
    ]  # fmt: skip
    for body, field in refusals:
        response = publish(ada_client, account, mediaIds=[video], **body)
        assert response.status_code == 400, (body, response.content)
        assert field in str(response.json()["error"]["details"]), (body, response.content)
    preview = ada_client.post(
        "/api/social/preview",
        {"title": "Film", "content": "Hi", "accountIds": [account["id"]], "mediaIds": [video],
         "variants": {"youtube": {"options": {"privacyStatus": "friends"}}}},
        format="json",
    ).json()["data"][0]  # fmt: skip
    assert [p["field"] for p in preview["problems"]] == ["variants.youtube.options.privacyStatus"]
    assert youtube.posts == []
    assert not youtube.received("POST", VIDEOS)


# --- Publishing ---------------------------------------------------------------------------------


def test_a_video_is_uploaded_with_its_options_and_published_once_processed(
    ada_client, account, youtube, django_capture_on_commit_callbacks
):
    video = video_id(ada_client, seconds=20.0)
    options = {"privacyStatus": "unlisted", "madeForKids": True, "categoryId": "27",
               "tags": ["design", "ux research"], "notifySubscribers": False}  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        variants = {"youtube": {"title": "Our launch", "options": options}}
        response = publish(ada_client, account, mediaIds=[video], variants=variants)
        assert response.status_code == 200, response.content
        (entry,) = response.json()["data"]
        assert (entry["status"], entry["error"]["code"]) == ("Publishing", "processing")
    (init,) = youtube.received("POST", VIDEOS)
    assert (init.q("uploadType"), init.q("part"), init.q("notifySubscribers")) == (
        "resumable", "snippet,status", "false",
    )  # fmt: skip
    assert init.body == {
        "snippet": {"title": "Our launch",
                    "description": "We shipped. https://ada.example #launch",
                    "categoryId": "27", "tags": ["design", "ux research"]},
        "status": {"privacyStatus": "unlisted", "selfDeclaredMadeForKids": True},
    }  # fmt: skip
    assert init.headers["X-Upload-Content-Type"] == "video/mp4"
    (post,) = youtube.posts
    assert post["bytes"] == int(init.headers["X-Upload-Content-Length"])
    record = ScheduledRecord.objects.get()
    assert (record.status, record.provider_post_id) == ("Published", post["id"])
    assert record.url == f"https://www.youtube.com/watch?v={post['id']}"  # landscape: not a Short
    assert [e["outcome"] for e in record.history] == ["processing", "published"]
    looks = [c for c in youtube.calls if c.path == "/youtube/v3/videos" and c.q("id") == post["id"]]
    assert len(looks) == 3  # two "processing", then processed


def test_a_vertical_video_of_at_most_three_minutes_is_a_short(
    ada_client, account, youtube, django_capture_on_commit_callbacks
):
    video = video_id(ada_client, seconds=45.0, width=1080, height=1920)
    with django_capture_on_commit_callbacks(execute=True):
        assert publish(ada_client, account, mediaIds=[video]).status_code == 200
    record = ScheduledRecord.objects.get()
    assert record.url == f"https://www.youtube.com/shorts/{record.provider_post_id}"


def test_a_processing_failure_or_a_rejection_fails_the_record_with_youtubes_reason(
    ada_client, account, youtube, django_capture_on_commit_callbacks
):
    youtube.video_fail = "codec"
    with django_capture_on_commit_callbacks(execute=True):
        assert publish(ada_client, account, mediaIds=[video_id(ada_client)]).status_code == 200
    record = ScheduledRecord.objects.get()
    assert (record.status, record.error_code) == ("Failed", "provider_rejected")
    assert "could not process the video" in record.error
    detail = ada_client.get(f"/api/social/schedule/{record.pk}").json()["data"]
    assert detail["error"]["category"] == "media_invalid"


# --- Resumable uploads, exactly once ------------------------------------------------------------


@pytest.fixture
def small_chunks(monkeypatch) -> int:
    monkeypatch.setattr(youtube_upload, "CHUNK_BYTES", CHUNK)
    return CHUNK


def test_a_large_file_is_sent_in_chunks_once_its_session_is_stored(
    client, ada_client, account, youtube, small_chunks, django_capture_on_commit_callbacks
):
    video = video_id(ada_client, payload=3 * CHUNK)
    (record_id,) = schedule(ada_client, {"youtube": account}, "youtube", mediaIds=[video])
    with django_capture_on_commit_callbacks(execute=False):  # the first look only
        assert run(client).json()["data"]["results"][0]["status"] == "Publishing"
    kept = ScheduledRecord.objects.get(pk=record_id).processing
    assert kept["session"].startswith(f"{youtube.url}{VIDEOS}?uploadType=resumable&upload_id=")
    assert puts(youtube) == []  # stored on the record before any byte was sent
    total = int(kept["total"])
    # The next look (the task, once the record stores the session) sends the bytes.
    from social.publishing import record_processing_continue

    record = ScheduledRecord.objects.get(pk=record_id)
    with django_capture_on_commit_callbacks(execute=True):
        record_processing_continue(record_id=record_id, claim=str(record.claim))
    assert ScheduledRecord.objects.get(pk=record_id).status == "Published"
    assert puts(youtube) == [
        f"bytes 0-{CHUNK - 1}/{total}", f"bytes {CHUNK}-{2 * CHUNK - 1}/{total}",
        f"bytes {2 * CHUNK}-{3 * CHUNK - 1}/{total}", f"bytes {3 * CHUNK}-{total - 1}/{total}",
    ]  # fmt: skip
    assert len(youtube.posts) == 1


def test_a_lost_chunk_answer_is_asked_about_and_never_sent_from_the_start_again(
    client, ada_client, account, youtube, small_chunks
):
    video = video_id(ada_client, payload=2 * CHUNK)
    (record_id,) = schedule(ada_client, {"youtube": account}, "youtube", mediaIds=[video])
    run(client)  # the session opened and stored (no task runs in this test)
    record = ScheduledRecord.objects.get(pk=record_id)
    total = int(record.processing["total"])
    # The second chunk reaches YouTube, and its answer is a 503 from the gateway.
    original, seen = youtube.upload, {"puts": 0}

    def flaky(call: Any) -> Any:
        answer = original(call)
        seen["puts"] += 1
        if seen["puts"] == 2:
            return (
                503,
                {
                    "error": {
                        "code": 503,
                        "message": "Backend Error",
                        "errors": [{"domain": "global", "reason": "backendError", "message": "x"}],
                    }
                },
                {},
            )
        return answer

    youtube.upload = flaky
    from social.publishing import record_processing_continue

    record_processing_continue(record_id=record_id, claim=str(record.claim))
    youtube.upload = original
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.status == "Scheduled"
    assert record.processing["sending"] is True
    assert record.outcome_unknown is True
    make_due([record_id])
    run(client)
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.status in ("Publishing", "Published")
    sent = puts(youtube)
    assert sent[:3] == [
        f"bytes 0-{CHUNK - 1}/{total}", f"bytes {CHUNK}-{2 * CHUNK - 1}/{total}",
        f"bytes */{total}",
    ]  # fmt: skip
    assert sent[3] == f"bytes {2 * CHUNK}-{total - 1}/{total}"  # from the confirmed byte on
    assert len(youtube.posts) == 1


def test_a_lost_final_answer_is_the_video_never_uploaded_again(
    client, ada_client, account, youtube, django_capture_on_commit_callbacks
):
    youtube.acted.append(("PUT", VIDEOS, (502, b"Bad Gateway", {})))
    (record_id,) = schedule(ada_client, {"youtube": account}, "youtube",
                            mediaIds=[video_id(ada_client)])  # fmt: skip
    run(client)
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, record.outcome_unknown) == ("Scheduled", True)
    assert len(youtube.posts) == 1  # made, its answer lost
    make_due([record_id])
    youtube.video_polls = 0
    with django_capture_on_commit_callbacks(execute=True):
        run(client)
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, record.provider_post_id) == ("Published", youtube.posts[0]["id"])
    total = puts(youtube)[0].rsplit("/", 1)[1]
    assert puts(youtube)[1:] == [f"bytes */{total}"]  # asked, never sent again
    assert len(youtube.received("POST", VIDEOS)) == 1


def test_a_gone_session_is_looked_up_among_the_uploads(
    client, ada_client, account, youtube, django_capture_on_commit_callbacks
):
    youtube.acted.append(("PUT", VIDEOS, (502, b"Bad Gateway", {})))
    (record_id,) = schedule(ada_client, {"youtube": account}, "youtube",
                            mediaIds=[video_id(ada_client)])  # fmt: skip
    run(client)
    youtube.sessions_gone = True
    make_due([record_id])
    with django_capture_on_commit_callbacks(execute=True):
        run(client)
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, record.provider_post_id) == ("Published", youtube.posts[0]["id"])
    assert youtube.received("GET", "/youtube/v3/playlistItems")
    assert len(youtube.received("POST", VIDEOS)) == 1
    assert len(youtube.posts) == 1


# --- The project's daily uploads ----------------------------------------------------------------


def _next_midnight_pacific() -> Any:
    local = timezone.now().astimezone(ZoneInfo("America/Los_Angeles"))
    return (local.replace(hour=0, minute=0, second=0, microsecond=0) + timedelta(days=1)).date()


def test_uploads_over_the_projects_daily_cap_wait_for_midnight_pacific(
    client, ada_client, account, youtube, settings, django_capture_on_commit_callbacks
):
    settings.YOUTUBE_DAILY_UPLOADS = 1
    youtube.video_polls = 0
    video = video_id(ada_client)
    first, second = (
        schedule(ada_client, {"youtube": account}, "youtube", title=f"Film {n}",
                 mediaIds=[video])[0]
        for n in (1, 2)
    )  # fmt: skip
    with django_capture_on_commit_callbacks(execute=True):
        run(client)
    done, waiting = ScheduledRecord.objects.get(pk=first), ScheduledRecord.objects.get(pk=second)
    assert done.status == "Published"
    assert (waiting.status, waiting.error_code) == ("Scheduled", "daily_cap_reached")
    assert waiting.history[-1]["outcome"] == "deferred"
    until = waiting.due_at.astimezone(ZoneInfo("America/Los_Angeles"))
    assert (until.date(), until.hour, until.minute) == (_next_midnight_pacific(), 0, 0)
    assert len(youtube.received("POST", VIDEOS)) == 1
    health = ada_client.get(f"/api/social/accounts/{account['id']}/health").json()["data"]
    assert (health["dailyCap"]["limit"], health["dailyCap"]["used"]) == (1, 1)
    assert "daily_cap_reached" in [p["code"] for p in health["problems"]]


def test_youtubes_own_quota_answer_defers_instead_of_failing(client, ada_client, account, youtube):
    youtube.daily_uploads = 0  # every app of the project used it up
    (record_id,) = schedule(ada_client, {"youtube": account}, "youtube",
                            mediaIds=[video_id(ada_client)])  # fmt: skip
    run(client)
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, record.error_code, record.attempts) == (
        "Scheduled", "daily_cap_reached", 0,
    )  # fmt: skip
    until = record.due_at.astimezone(ZoneInfo("America/Los_Angeles"))
    assert (until.date(), until.hour) == (_next_midnight_pacific(), 0)
    assert youtube.posts == []
