"""Pinterest (networks/pinterest.md), through HTTP against its stand-in: OAuth with the app as
HTTP Basic, the default board chosen when connecting (or named), 30-day tokens renewed by
continuous refresh, image, carousel and video Pins (media registered, the signed upload form,
processing awaited by tasks) with title, link and alt text, boards per post, refusals naming
their field, a lost answer looked up among the board's Pins, retries, an expired token, the
daily cap's machinery, metrics, health and disconnecting."""

import base64
import time
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone

from social.connections.services.upkeep import accounts_maintain
from social.models import ScheduledRecord, SocialAccount
from social.tasks import metrics_collect_task
from tests.social.conftest import (
    REDIRECT_URI,
    account_fixture,
    connect,
    publisher,
)
from tests.social.conftest import image as media_id
from tests.social.pinterest_standin import ACCOUNT, BOARDS, OTHERS_BOARD, PINTEREST_APP
from tests.social.test_scheduler import make_due, run, schedule
from tests.social.test_video import upload
from tests.social.videos import mp4

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]

PINS = "/v5/pins"
BASIC = "Basic " + base64.b64encode(":".join(PINTEREST_APP).encode()).decode()


@pytest.fixture
def pinterest(providers) -> Any:
    return providers.pinterest


account = account_fixture("pinterest")


def image(client: Any, providers: Any, name: str = "launch.jpg", alt: str = "") -> str:
    return media_id(client, providers.image(name), alt)


def video_id(client: Any) -> str:
    response = upload(client, mp4(seconds=12.0), alt="Our launch video")
    assert response.status_code == 200, response.content
    return str(response.json()["data"]["id"])


publish = publisher(
    title="Launch board",
    content="We shipped the new studio.",
    link="https://ada.example/launch",
)


def pins(pinterest: Any) -> list[dict[str, Any]]:
    return [call.body for call in pinterest.received("POST", PINS)]


# --- Connecting -----------------------------------------------------------------------------------


def test_consent_and_the_first_board_is_the_accounts_default(ada_client, account, pinterest):
    url = ada_client.get(
        "/api/social/connect/pinterest/authorize", {"redirectUri": REDIRECT_URI}
    ).json()["data"]["url"]
    assert url.startswith(f"{pinterest.url}/oauth/?")
    query = {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}
    assert (query["client_id"], query["response_type"], query["redirect_uri"]) == (
        PINTEREST_APP[0], "code", REDIRECT_URI,
    )  # fmt: skip
    assert query["scope"] == "boards:read,pins:read,pins:write,user_accounts:read"
    (exchange,) = pinterest.received("POST", "/v5/oauth/token")
    assert exchange.headers["Authorization"] == BASIC
    assert exchange.body["grant_type"] == "authorization_code"
    assert (account["provider_user_id"], account["username"], account["display_name"]) == (
        ACCOUNT["id"], ACCOUNT["username"], ACCOUNT["business_name"],
    )  # fmt: skip
    assert account["options"] == {"boardId": BOARDS[0]["id"], "boardName": BOARDS[0]["name"]}
    assert account["expires_at"] is None  # continuous refresh renews it
    stored = SocialAccount.objects.get(pk=account["id"])
    assert str(stored.refresh_token).startswith("pinr_")
    assert stored.credentials_expire_at is not None
    assert stored.credentials_expire_at - timezone.now() > timedelta(days=29)
    platforms = {p["provider"]: p for p in ada_client.get("/api/social/platforms").json()["data"]}
    listed = platforms["pinterest"]
    assert listed["configured"] is True
    assert (listed["limits"]["maxCharacters"], listed["limits"]["maxMedia"],
            listed["limits"]["mediaRequired"], listed["limits"]["maxTitle"]) == (
        800, 5, True, 100,
    )  # fmt: skip
    can = listed["capabilities"]
    assert (can["text"], can["images"], can["maxImages"], can["video"], can["carousel"],
            can["threads"], can["firstComment"], can["title"], can["altText"]) == (
        False, True, 5, True, True, False, False, True, True,
    )  # fmt: skip
    assert [o["name"] for o in can["options"]] == [
        "boardId", "boardSectionId", "coverImageUrl", "coverFrameSeconds",
    ]  # fmt: skip


def test_a_board_named_when_connecting_must_be_the_accounts(ada_client, pinterest):
    named = connect(ada_client, "pinterest", boardId=BOARDS[1]["id"])
    assert named.status_code == 200, named.content
    assert named.json()["data"]["options"]["boardId"] == BOARDS[1]["id"]
    SocialAccount.objects.all().delete()
    unknown = connect(ada_client, "pinterest", boardId="123")
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (400, "board_not_found")
    not_digits = connect(ada_client, "pinterest", boardId="launches")
    assert (not_digits.status_code, not_digits.json()["error"]["code"]) == (
        400, "validation_error",
    )  # fmt: skip
    assert "boardId" in not_digits.json()["error"]["details"]
    pinterest.boards = []
    empty = connect(ada_client, "pinterest")
    assert (empty.status_code, empty.json()["error"]["code"]) == (400, "no_pinterest_board")
    assert not SocialAccount.objects.exists()


def test_a_consent_without_pins_write_stores_nothing(ada_client, pinterest):
    pinterest.granted = {"boards:read", "pins:read", "user_accounts:read"}
    response = connect(ada_client, "pinterest")
    assert (response.status_code, response.json()["error"]["code"]) == (400, "scope_missing")
    assert response.json()["error"]["details"]["missing"] == ["pins:write"]
    assert not SocialAccount.objects.exists()


def test_without_the_app_pinterest_is_listed_but_not_configured(ada_client, settings):
    settings.PINTEREST_CLIENT_SECRET = ""
    platforms = {p["provider"]: p for p in ada_client.get("/api/social/platforms").json()["data"]}
    assert platforms["pinterest"]["configured"] is False
    response = ada_client.post("/api/social/connect", {"provider": "pinterest", "code": "x"})
    assert (response.status_code, response.json()["error"]["code"]) == (
        503, "provider_not_configured",
    )  # fmt: skip


# --- What a Pin must be --------------------------------------------------------------------------


def test_refusals_name_their_field_and_send_nothing(ada_client, providers, account, pinterest):
    response = publish(ada_client, account)
    assert (response.status_code, response.json()["error"]["code"]) == (400, "validation_error")
    assert "mediaIds" in str(response.json()["error"]["details"])
    picture = image(ada_client, providers, alt="A" * 501)
    plain = image(ada_client, providers, "plain.jpg")
    six = [image(ada_client, providers, f"{n}.jpg") for n in range(6)]
    for body, code in (
        ({"thread": [{"content": "More"}]}, "thread_not_supported"),
        ({"firstComment": "First!"}, "first_comment_not_supported"),
    ):
        response = publish(ada_client, account, mediaIds=[plain], **body)
        assert (response.status_code, response.json()["error"]["code"]) == (400, code)
    refusals: list[tuple[dict[str, Any], str]] = [
        ({"mediaIds": [picture]}, "mediaIds"),
        ({"title": "t" * 101}, "title"),
        ({"content": "x" * 801}, "content"),
        ({"link": "https://ada.example/" + "l" * 2048}, "link"),
        ({"mediaIds": six}, "media"),
        ({"variants": {"pinterest": {"options": {"boardId": "launches"}}}},
         "variants.pinterest.options.boardId"),
        ({"variants": {"pinterest": {"options": {"coverImageUrl": "https://ada.example/c.jpg"}}}},
         "variants.pinterest.options.coverImageUrl"),
        ({"variants": {"pinterest": {"options": {"pinType": "idea"}}}},
         "variants.pinterest.options.pinType"),
        ({"mediaIds": [video_id(ada_client)],
          "variants": {"pinterest": {"options": {"coverFrameSeconds": -1}}}},
         "variants.pinterest.options.coverFrameSeconds"),
    ]  # fmt: skip
    for body, field in refusals:
        response = publish(ada_client, account, **{"mediaIds": [plain], **body})
        assert response.status_code == 400, (body, response.content)
        assert field in str(response.json()["error"]["details"]), (body, response.content)
    preview = ada_client.post(
        "/api/social/preview",
        {"title": "Launch", "content": "Hi", "accountIds": [account["id"]], "mediaIds": [plain],
         "variants": {"pinterest": {"options": {"boardSectionId": "one"}}}},
        format="json",
    ).json()["data"][0]  # fmt: skip
    assert [p["field"] for p in preview["problems"]] == [
        "variants.pinterest.options.boardSectionId"
    ]
    assert pins(pinterest) == []
    assert ScheduledRecord.objects.count() == 0


# --- Publishing ---------------------------------------------------------------------------------


def test_an_image_pin_has_its_title_description_link_and_alt_text(
    ada_client, providers, account, pinterest
):
    picture = image(ada_client, providers, alt="The new studio")
    response = publish(ada_client, account, mediaIds=[picture], hashtags="design")
    assert response.status_code == 200, response.content
    (entry,) = response.json()["data"]
    assert entry["success"] is True, entry
    assert pins(pinterest) == [
        {"board_id": BOARDS[0]["id"], "title": "Launch board",
         "description": "We shipped the new studio.\n\n#design",
         "link": "https://ada.example/launch", "alt_text": "The new studio",
         "media_source": {"source_type": "image_url", "url": providers.image()}},
    ]  # fmt: skip
    (pin,) = pinterest.posts
    assert entry["providerPostId"] == pin["id"]
    assert entry["url"] == f"https://www.pinterest.com/pin/{pin['id']}/"


def test_a_carousel_to_another_board_and_section(ada_client, providers, account, pinterest):
    ids = [image(ada_client, providers, f"{n}.jpg", alt=f"Slide {n}") for n in (1, 2, 3)]
    options = {"boardId": BOARDS[2]["id"], "boardSectionId": "7001"}
    variants = {"pinterest": {"title": "Three slides", "options": options}}
    entry = publish(ada_client, account, mediaIds=ids, variants=variants).json()["data"][0]
    assert entry["success"] is True, entry
    (body,) = pins(pinterest)
    assert (body["board_id"], body["board_section_id"], body["title"], body["alt_text"]) == (
        BOARDS[2]["id"], "7001", "Three slides", "Slide 1",
    )  # fmt: skip
    assert body["media_source"] == {
        "source_type": "multiple_image_urls",
        "items": [{"url": providers.image(f"{n}.jpg")} for n in (1, 2, 3)],
        "index": 0,
    }


def test_a_board_the_account_cannot_pin_to_is_permission_missing(
    client, ada_client, providers, account, pinterest
):
    variants = {"pinterest": {"options": {"boardId": OTHERS_BOARD}}}
    (record_id,) = schedule(ada_client, {"pinterest": account}, "pinterest",
                            mediaUrls=[providers.image()], variants=variants)  # fmt: skip
    assert run(client).json()["data"]["results"][0]["status"] == "Failed"
    detail = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]
    assert detail["error"]["category"] == "permission_missing"
    assert detail["error"]["platform"]["code"] == "29"
    assert pinterest.posts == []


def test_a_video_is_registered_uploaded_awaited_then_pinned(
    ada_client, account, pinterest, django_capture_on_commit_callbacks
):
    video = video_id(ada_client)
    with django_capture_on_commit_callbacks(execute=True):
        response = publish(ada_client, account, mediaIds=[video])
        (entry,) = response.json()["data"]
        assert (entry["status"], entry["error"]["code"]) == ("Publishing", "processing")
    (registered,) = pinterest.received("POST", "/v5/media")
    assert registered.body == {"media_type": "video"}
    (form,) = [call for call in pinterest.calls if call.path.startswith("/upload/")]
    assert "Authorization" not in form.headers  # the form is signed
    assert list(form.body)[-1] == "file"
    assert form.body["key"] == f"uploads/{form.path.rsplit('/', 1)[1]}".encode()
    record = ScheduledRecord.objects.get()
    (pin,) = pinterest.posts
    assert (record.status, record.provider_post_id) == ("Published", pin["id"])
    assert [e["outcome"] for e in record.history] == ["processing", "published"]
    media_id = form.path.rsplit("/", 1)[1]
    assert pins(pinterest)[0]["media_source"] == {
        "source_type": "video_id", "media_id": media_id, "cover_image_key_frame_time": 0,
    }  # fmt: skip
    assert "alt_text" not in pins(pinterest)[0]
    assert len(pinterest.received("GET", f"/v5/media/{media_id}")) == 3  # 2 processing, done


def test_a_video_cover_and_a_processing_failure(
    ada_client, account, pinterest, django_capture_on_commit_callbacks
):
    options = {"coverImageUrl": "https://ada.example/cover.jpg"}
    pinterest.video_polls = 0
    with django_capture_on_commit_callbacks(execute=True):
        publish(ada_client, account, mediaIds=[video_id(ada_client)],
                variants={"pinterest": {"options": options}})  # fmt: skip
    assert pins(pinterest)[0]["media_source"]["cover_image_url"] == options["coverImageUrl"]
    pinterest.video_fail = "codec"
    with django_capture_on_commit_callbacks(execute=True):
        publish(ada_client, account, mediaIds=[video_id(ada_client)])
    failed = ScheduledRecord.objects.get(status="Failed")
    detail = ada_client.get(f"/api/social/schedule/{failed.pk}").json()["data"]
    assert detail["error"]["category"] == "media_invalid"
    assert len(pinterest.posts) == 1


def test_a_scheduled_and_a_queued_pin_are_published_by_the_scheduler(
    client, ada_client, providers, account, pinterest
):
    (record_id,) = schedule(ada_client, {"pinterest": account}, "pinterest",
                            mediaUrls=[providers.image()])  # fmt: skip
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    slots = {"timezone": "UTC", "slots": [{"day": "mon", "time": "09:00"}]}
    assert ada_client.put(f"/api/social/queue/{account['id']}", slots,
                          format="json").status_code == 200  # fmt: skip
    queued = ada_client.post(
        "/api/social/queue",
        {"content": "From the queue", "mediaUrls": [providers.image()],
         "accountIds": [account["id"]]},
        format="json",
    )  # fmt: skip
    assert queued.status_code == 200, queued.content
    (record,) = queued.json()["data"]["scheduledRecords"]
    assert record["queued"] is True
    make_due([record["id"]])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    assert [ScheduledRecord.objects.get(pk=pk).status for pk in (record_id, record["id"])] == [
        "Published", "Published",
    ]  # fmt: skip
    assert len(pinterest.posts) == 2


# --- Exactly once, retries, tokens ---------------------------------------------------------------


def test_a_lost_answer_is_found_among_the_boards_pins_never_pinned_twice(
    client, ada_client, providers, account, pinterest
):
    pinterest.acted.append(("POST", PINS, (502, b"Bad Gateway", {})))
    (record_id,) = schedule(ada_client, {"pinterest": account}, "pinterest",
                            mediaUrls=[providers.image()])  # fmt: skip
    run(client)
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, record.outcome_unknown) == ("Scheduled", True)
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    (pin,) = pinterest.posts
    assert ScheduledRecord.objects.get(pk=record_id).provider_post_id == pin["id"]
    assert len(pinterest.received("POST", PINS)) == 1
    (looked,) = pinterest.received("GET", f"/v5/boards/{BOARDS[0]['id']}/pins")
    assert looked.q("page_size") == "25"


def test_a_rate_limit_waits_for_its_reset_then_publishes(
    client, ada_client, providers, account, pinterest
):
    (record_id,) = schedule(ada_client, {"pinterest": account}, "pinterest",
                            mediaUrls=[providers.image()])  # fmt: skip
    status, body, _ = pinterest.busy()
    reset = {"X-RateLimit-Remaining": "0", "X-RateLimit-Reset": str(int(time.time()) + 300)}
    pinterest.scripted.append(("POST", PINS, (status, body, reset)))
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Scheduled", "retry_scheduled")
    detail = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]
    assert detail["history"][-1]["error"]["category"] == "rate_limited"
    waits = ScheduledRecord.objects.get(pk=record_id).due_at - timezone.now()
    assert timedelta(seconds=250) < waits < timedelta(seconds=330)  # X-RateLimit-Reset
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    assert len(pinterest.posts) == 1


def test_a_refused_access_token_is_refreshed_once_then_a_refused_refresh_expires(
    client, ada_client, providers, account, pinterest
):
    pinterest.tokens.clear()  # the access token no longer works; the refresh token does
    schedule(ada_client, {"pinterest": account}, "pinterest", mediaUrls=[providers.image()])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    grants = [call.body["grant_type"] for call in pinterest.received("POST", "/v5/oauth/token")]
    assert grants == ["authorization_code", "refresh_token"]
    assert all(c.headers["Authorization"] == BASIC
               for c in pinterest.received("POST", "/v5/oauth/token"))  # fmt: skip
    stored = SocialAccount.objects.get(pk=account["id"])
    assert str(stored.access_token) in pinterest.tokens
    pinterest.expired = True
    (second,) = schedule(ada_client, {"pinterest": account}, "pinterest",
                         mediaUrls=[providers.image()])  # fmt: skip
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Failed", "account_expired")
    detail = ada_client.get(f"/api/social/schedule/{second}").json()["data"]
    assert detail["error"]["category"] == "auth_expired"
    assert SocialAccount.objects.get(pk=account["id"]).status == "expired"
    assert len(pinterest.posts) == 1


def test_the_daily_upkeep_renews_a_token_within_a_week_of_its_end(account, pinterest):
    SocialAccount.objects.filter(pk=account["id"]).update(
        credentials_expire_at=timezone.now() + timedelta(days=5)
    )
    assert accounts_maintain()["renewed"] == 1
    stored = SocialAccount.objects.get(pk=account["id"])
    assert stored.credentials_expire_at is not None
    assert stored.credentials_expire_at - timezone.now() > timedelta(days=29)
    assert (stored.status, stored.expires_at) == ("connected", None)
    assert str(stored.refresh_token) in pinterest.refresh_tokens  # a new one each refresh


def test_a_daily_cap_set_for_pinterest_defers_instead_of_failing(
    client, ada_client, providers, account, pinterest, settings
):
    settings.SOCIAL_DAILY_CAPS = {**settings.SOCIAL_DAILY_CAPS, "pinterest": 1}
    first, second = (
        schedule(ada_client, {"pinterest": account}, "pinterest", mediaUrls=[providers.image()],
                 content=f"Pin {n}")[0]
        for n in (1, 2)
    )  # fmt: skip
    run(client)
    done, waiting = ScheduledRecord.objects.get(pk=first), ScheduledRecord.objects.get(pk=second)
    statuses = sorted([done.status, waiting.status])
    assert statuses == ["Published", "Scheduled"]
    deferred = done if done.status == "Scheduled" else waiting
    assert deferred.error_code == "daily_cap_reached"
    assert deferred.history[-1]["outcome"] == "deferred"
    assert len(pinterest.posts) == 1


# --- Metrics, health, disconnecting ---------------------------------------------------------------


def test_metrics_health_and_disconnect(ada_client, providers, account, pinterest):
    entry = publish(ada_client, account, mediaUrls=[providers.image()]).json()["data"][0]
    assert entry["success"] is True, entry
    assert metrics_collect_task.delay().get() == {"records": 1, "collected": 1}
    (row,) = ada_client.get("/api/social/analytics").json()["data"]
    assert (row["impressions"], row["engagement"], row["clicks"]) == (340, 12 + 25, 7)
    (asked,) = pinterest.received("GET", f"/v5/pins/{entry['providerPostId']}/analytics")
    today = timezone.now().date().isoformat()
    assert (asked.q("start_date"), asked.q("end_date"), asked.q("app_types")) == (
        today, today, "ALL",
    )  # fmt: skip
    assert asked.q("metric_types") == "IMPRESSION,SAVE,PIN_CLICK,OUTBOUND_CLICK"
    report = ada_client.get(f"/api/social/accounts/{account['id']}/health").json()["data"]
    assert (report["status"], report["reachable"], report["renewable"]) == (
        "connected", True, True,
    )  # fmt: skip
    assert (report["dailyCap"], report["problems"], report["scopesMissing"]) == (None, [], [])
    response = ada_client.post("/api/social/disconnect", {"accountId": account["id"]},
                               format="json")  # fmt: skip
    assert response.status_code == 200
    (revoked,) = pinterest.received("POST", "/v5/oauth/token/revoke")
    assert revoked.headers["Authorization"] == BASIC
    assert revoked.body["token_type_hint"] == "refresh_token"
    assert revoked.body["token"].startswith("pinr_")
