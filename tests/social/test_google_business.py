"""Google Business Profile (networks/google_business.md), through HTTP against its stand-in:
Google's OAuth shared with YouTube (the token endpoint at YouTube's stand-in issuing
`business.manage` tokens), the location chosen when connecting (or named), the refusals
(`scope_missing`, `provider_auth_failed`, `no_google_location`), standard posts with a button
and a photo, events and offers, options refused naming their field, preview, schedule, queue,
a REJECTED post, a lost answer looked up among the location's posts, retries, a refused token
refreshed then expiring, health (a location gone), insights and disconnecting."""

from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from social.models import AccountHealth, ScheduledRecord, SocialAccount
from social.tasks import metrics_collect_task
from tests.social.conftest import (
    REDIRECT_URI,
    account_fixture,
    connect,
    connected,
    publisher,
    queue_one,
)
from tests.social.google_business_standin import BUSINESS_SCOPE
from tests.social.google_oauth_standin import GOOGLE_CLIENT
from tests.social.test_scheduler import make_due, run, schedule
from tests.social.youtube_standin import UPLOAD_SCOPE

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]

POSTS = "/v4/accounts/2000/locations/3001/localPosts"
OPTIONS = "variants.google_business.options"


@pytest.fixture
def business(providers) -> Any:
    return providers.google_business


account = account_fixture("google_business")


publish = publisher(content="Spring opening hours: 9 to 6.")


def sent(business: Any) -> list[dict[str, Any]]:
    return [call.body for call in business.received("POST", POSTS)]


def options(**values: Any) -> dict[str, Any]:
    return {"google_business": {"options": values}}


# --- Connecting -----------------------------------------------------------------------------------


def test_consent_with_googles_app_and_the_first_location_is_the_account(
    ada_client, providers, account, business
):
    url = ada_client.get(
        "/api/social/connect/google_business/authorize", {"redirectUri": REDIRECT_URI}
    ).json()["data"]["url"]
    assert url.startswith(f"{providers.youtube.url}/o/oauth2/v2/auth?")  # Google's, shared
    query = {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}
    assert (query["client_id"], query["scope"], query["access_type"], query["prompt"],
            query["include_granted_scopes"]) == (
        GOOGLE_CLIENT[0], BUSINESS_SCOPE, "offline", "consent", "true",
    )  # fmt: skip
    (exchange,) = providers.youtube.received("POST", "/token")
    assert exchange.body["grant_type"] == "authorization_code"
    assert (account["provider_user_id"], account["username"], account["display_name"]) == (
        "3001", "Ada Designs Studio", "Ada Designs Studio",
    )  # fmt: skip
    assert account["options"] == {"account": "accounts/2000", "location": "locations/3001"}
    assert account["expires_at"] is None
    (listed,) = business.received("GET", "/v1/accounts/2000/locations")
    assert listed.q("readMask") == "name,title,storefrontAddress,metadata"
    stored = SocialAccount.objects.get(pk=account["id"])
    assert str(stored.refresh_token) == business.REFRESH_TOKEN
    assert str(stored.access_token) in business.tokens
    assert str(stored.access_token) not in providers.youtube.tokens  # not a YouTube token
    platforms = {p["provider"]: p for p in ada_client.get("/api/social/platforms").json()["data"]}
    gbp = platforms["google_business"]
    assert gbp["configured"] is True
    assert gbp["limits"] == {"maxCharacters": 1500, "countsBy": "characters", "maxMedia": 1,
                             "mediaRequired": False, "maxHashtags": None,
                             "titleRequired": False, "maxTitle": 58}  # fmt: skip
    can = gbp["capabilities"]
    assert (can["text"], can["links"], can["images"], can["maxImages"], can["altText"],
            can["video"], can["documents"], can["carousel"], can["threads"],
            can["firstComment"], can["title"]) == (
        True, True, True, 1, False, False, False, False, False, False, True,
    )  # fmt: skip
    assert [o["name"] for o in can["options"]] == [
        "topicType", "actionType", "eventStart", "eventEnd", "couponCode", "redeemUrl",
        "terms", "languageCode",
    ]  # fmt: skip


def test_a_location_named_when_connecting_must_be_the_accounts(ada_client, business):
    for named in ("locations/3002", "3002"):
        response = connect(ada_client, "google_business", locationId=named)
        assert response.status_code == 200, response.content
        assert response.json()["data"]["provider_user_id"] == "3002"
        SocialAccount.objects.all().delete()
    unknown = connect(ada_client, "google_business", locationId="9999")
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (400, "no_google_location")
    malformed = connect(ada_client, "google_business", locationId="accounts/1")
    assert (malformed.status_code, malformed.json()["error"]["code"]) == (400, "validation_error")
    business.locations = {"accounts/1000": [], "accounts/2000": []}
    empty = connect(ada_client, "google_business")
    assert (empty.status_code, empty.json()["error"]["code"]) == (400, "no_google_location")
    assert not SocialAccount.objects.exists()


def test_refusals_when_connecting_store_nothing(ada_client, providers, business):
    business.granted = set()  # business.manage unticked on Google's granular consent
    response = connect(ada_client, "google_business")
    assert (response.status_code, response.json()["error"]["code"]) == (400, "scope_missing")
    assert response.json()["error"]["details"]["missing"] == [BUSINESS_SCOPE]
    business.granted = {BUSINESS_SCOPE}
    business.offline = False  # no refresh token: the connection could not renew itself
    response = connect(ada_client, "google_business")
    assert (response.status_code, response.json()["error"]["code"]) == (
        400, "provider_auth_failed",
    )  # fmt: skip
    business.offline = True
    refused = connect(ada_client, "google_business", code="4/used-code")
    assert (refused.status_code, refused.json()["error"]["code"]) == (400, "provider_auth_failed")
    assert not SocialAccount.objects.exists()
    # YouTube's consent at the same endpoint still gets YouTube's scopes, not Business's.
    youtube = connected(ada_client, "youtube")
    stored = SocialAccount.objects.get(pk=youtube["id"])
    assert str(stored.access_token) in providers.youtube.tokens
    assert str(stored.access_token) not in business.tokens
    assert UPLOAD_SCOPE in providers.youtube.granted


def test_without_the_google_app_it_is_listed_but_not_configured(ada_client, settings):
    settings.GOOGLE_CLIENT_ID = ""
    platforms = {p["provider"]: p for p in ada_client.get("/api/social/platforms").json()["data"]}
    assert platforms["google_business"]["configured"] is False
    response = ada_client.post("/api/social/connect", {"provider": "google_business", "code": "x"})
    assert (response.status_code, response.json()["error"]["code"]) == (
        503, "provider_not_configured",
    )  # fmt: skip


# --- What a post must be --------------------------------------------------------------------------


def test_refusals_name_their_field_and_send_nothing(ada_client, providers, account, business):
    for body, code in (
        ({"thread": [{"content": "More"}]}, "thread_not_supported"),
        ({"firstComment": "First!"}, "first_comment_not_supported"),
    ):
        response = publish(ada_client, account, **body)
        assert (response.status_code, response.json()["error"]["code"]) == (400, code)
    refusals: list[tuple[dict[str, Any], str]] = [
        ({"content": "x" * 1501}, "content"),
        ({"mediaUrls": [providers.image("a.jpg"), providers.image("b.jpg")]}, "media"),
        ({"variants": options(topicType="NEWS")}, f"{OPTIONS}.topicType"),
        ({"variants": options(actionType="CALL_NOW")}, f"{OPTIONS}.actionType"),
        ({"variants": options(actionType="BOOK")}, "link"),
        ({"variants": options(couponCode="SPRING")}, f"{OPTIONS}.couponCode"),
        ({"variants": options(eventStart="2030-06-01")}, f"{OPTIONS}.eventStart"),
        ({"variants": options(languageCode="english language")}, f"{OPTIONS}.languageCode"),
        ({"variants": options(redeemUrl="ftp://ada.example", topicType="OFFER")},
         f"{OPTIONS}.redeemUrl"),
        ({"variants": options(topicType="EVENT", eventStart="2030-06-01",
                              eventEnd="2030-06-02")}, "title"),
        ({"title": "Open day", "variants": options(topicType="EVENT", eventEnd="2030-06-02")},
         f"{OPTIONS}.eventStart"),
        ({"title": "Open day", "variants": options(topicType="EVENT", eventStart="2030-06-03",
                                                   eventEnd="2030-06-02")},
         f"{OPTIONS}.eventEnd"),
        ({"title": "Sale", "link": "https://ada.example",
          "variants": options(topicType="OFFER", actionType="SHOP", eventStart="2030-06-01",
                              eventEnd="2030-06-02")}, f"{OPTIONS}.actionType"),
        ({"title": "t" * 59}, "title"),
        ({"variants": options(unknown=1)}, f"{OPTIONS}.unknown"),
    ]  # fmt: skip
    for body, field in refusals:
        response = publish(ada_client, account, **body)
        assert response.status_code == 400, (body, response.content)
        assert field in str(response.json()["error"]["details"]), (body, response.content)
    preview = ada_client.post(
        "/api/social/preview",
        {"content": "Hi", "accountIds": [account["id"]],
         "variants": options(terms="Only today")},
        format="json",
    ).json()["data"][0]  # fmt: skip
    assert [p["field"] for p in preview["problems"]] == [f"{OPTIONS}.terms"]
    assert sent(business) == []
    assert ScheduledRecord.objects.count() == 0


# --- Publishing ---------------------------------------------------------------------------------


def test_a_post_with_a_button_and_a_photo(ada_client, providers, account, business):
    response = publish(ada_client, account, link="https://ada.example/hours",
                       mediaUrls=[providers.image()], hashtags="opening")  # fmt: skip
    (entry,) = response.json()["data"]
    assert entry["success"] is True, entry
    assert sent(business) == [
        {"languageCode": "en", "summary": "Spring opening hours: 9 to 6.\n\n#opening",
         "topicType": "STANDARD",
         "callToAction": {"actionType": "LEARN_MORE", "url": "https://ada.example/hours"},
         "media": [{"mediaFormat": "PHOTO", "sourceUrl": providers.image()}]},
    ]  # fmt: skip
    (post,) = business.posts
    assert (entry["providerPostId"], entry["url"]) == (post["name"], post["searchUrl"])
    call_us = publish(ada_client, account, content="Call us",
                      variants=options(actionType="CALL", languageCode="en-GB"))  # fmt: skip
    assert call_us.json()["data"][0]["success"] is True, call_us.content
    assert sent(business)[1] == {"languageCode": "en-GB", "summary": "Call us",
                                 "topicType": "STANDARD",
                                 "callToAction": {"actionType": "CALL"}}  # fmt: skip
    plain = publish(ada_client, account, content="No link")
    assert plain.json()["data"][0]["success"] is True
    assert "callToAction" not in sent(business)[2]


def test_an_event_and_an_offer(ada_client, account, business):
    dated = options(topicType="EVENT", actionType="SIGN_UP", eventStart="2030-06-01T18:00",
                    eventEnd="2030-06-01")  # fmt: skip
    event = publish(ada_client, account, title="Open studio", link="https://ada.example/rsvp",
                    variants=dated)  # fmt: skip
    assert event.status_code == 200, event.content
    assert event.json()["data"][0]["success"] is True, event.content
    assert sent(business)[0]["event"] == {
        "title": "Open studio",
        "schedule": {"startDate": {"year": 2030, "month": 6, "day": 1},
                     "startTime": {"hours": 18, "minutes": 0, "seconds": 0, "nanos": 0},
                     "endDate": {"year": 2030, "month": 6, "day": 1}},
    }  # fmt: skip
    assert sent(business)[0]["callToAction"] == {
        "actionType": "SIGN_UP", "url": "https://ada.example/rsvp",
    }  # fmt: skip
    offer = publish(ada_client, account, link="https://ada.example/shop",
                    variants={"google_business": {"title": "Spring sale", "options": {
                        "topicType": "OFFER", "eventStart": "2030-06-01",
                        "eventEnd": "2030-06-07", "couponCode": "SPRING10",
                        "terms": "One per customer."}}})  # fmt: skip
    assert offer.json()["data"][0]["success"] is True, offer.content
    body = sent(business)[1]
    assert "callToAction" not in body
    assert body["event"]["title"] == "Spring sale"
    assert body["offer"] == {"couponCode": "SPRING10", "termsConditions": "One per customer.",
                             "redeemOnlineUrl": "https://ada.example/shop"}  # fmt: skip


def test_a_rejected_post_fails_and_processing_is_published(ada_client, account, business):
    business.review = "REJECTED"
    (entry,) = publish(ada_client, account).json()["data"]
    assert entry["success"] is False
    record = ScheduledRecord.objects.get()
    detail = ada_client.get(f"/api/social/schedule/{record.pk}").json()["data"]
    assert (detail["status"], detail["error"]["category"]) == ("Failed", "content_rejected")
    business.review = "PROCESSING"
    (entry,) = publish(ada_client, account, content="Second").json()["data"]
    assert entry["success"] is True, entry


def test_a_scheduled_and_a_queued_post_are_published_by_the_scheduler(
    client, ada_client, account, business
):
    (record_id,) = schedule(ada_client, {"google_business": account}, "google_business")
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    slots = {"timezone": "UTC", "slots": [{"day": "mon", "time": "09:00"}]}
    record = queue_one(ada_client, account, slots, content="From the queue")
    make_due([record["id"]])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    assert ScheduledRecord.objects.get(pk=record_id).status == "Published"
    assert len(business.posts) == 2


# --- Exactly once, retries, tokens ----------------------------------------------------------------


def test_a_lost_answer_is_found_among_the_locations_posts_never_posted_twice(
    client, ada_client, account, business
):
    business.acted.append(("POST", POSTS, (502, b"Bad Gateway", {})))
    (record_id,) = schedule(ada_client, {"google_business": account}, "google_business")
    run(client)
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, record.outcome_unknown) == ("Scheduled", True)
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    (post,) = business.posts
    assert ScheduledRecord.objects.get(pk=record_id).provider_post_id == post["name"]
    assert len(business.received("POST", POSTS)) == 1
    (looked,) = business.received("GET", POSTS)
    assert looked.q("pageSize") == "100"


def test_a_lost_answer_of_nothing_is_created_again(client, ada_client, account, business):
    business.scripted.append(("POST", POSTS, (502, b"Bad Gateway", {})))  # nothing made
    (record_id,) = schedule(ada_client, {"google_business": account}, "google_business")
    run(client)
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    assert len(business.posts) == 1
    assert len(business.received("GET", POSTS)) == 1  # looked up first, then created


def test_a_rate_limit_is_retried_after_its_wait(client, ada_client, account, business):
    (record_id,) = schedule(ada_client, {"google_business": account}, "google_business")
    business.scripted.append(("POST", POSTS, business.busy()))
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Scheduled", "retry_scheduled")
    detail = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]
    assert detail["history"][-1]["error"]["category"] == "rate_limited"
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    assert len(business.posts) == 1


def test_a_refused_token_is_refreshed_once_then_a_revoked_grant_expires(
    client, ada_client, providers, account, business
):
    business.tokens.clear()  # the access token no longer works; the refresh token does
    schedule(ada_client, {"google_business": account}, "google_business")
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    grants = [call.body["grant_type"] for call in providers.youtube.received("POST", "/token")]
    assert grants == ["authorization_code", "refresh_token"]
    assert str(SocialAccount.objects.get(pk=account["id"]).access_token) in business.tokens
    business.expired = True
    (second,) = schedule(ada_client, {"google_business": account}, "google_business")
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Failed", "account_expired")
    detail = ada_client.get(f"/api/social/schedule/{second}").json()["data"]
    assert detail["error"]["category"] == "auth_expired"
    assert SocialAccount.objects.get(pk=account["id"]).status == "expired"
    assert len(business.posts) == 1


def test_apis_not_enabled_are_permission_missing(client, ada_client, account, business):
    business.disabled = True
    (record_id,) = schedule(ada_client, {"google_business": account}, "google_business")
    assert run(client).json()["data"]["results"][0]["status"] == "Failed"
    detail = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]
    assert detail["error"]["category"] == "permission_missing"
    assert detail["error"]["platform"]["status"] == 403
    assert business.posts == []


# --- Metrics, health, disconnecting ---------------------------------------------------------------


def test_metrics_health_and_disconnect(ada_client, providers, account, business):
    entry = publish(ada_client, account, link="https://ada.example").json()["data"][0]
    assert entry["success"] is True, entry
    assert metrics_collect_task.delay().get() == {"records": 1, "collected": 1}
    (row,) = ada_client.get("/api/social/analytics").json()["data"]
    assert (row["impressions"], row["engagement"], row["clicks"]) == (240, 0, 12)
    (asked,) = business.received("POST", POSTS + ":reportInsights")
    assert asked.body["localPostNames"] == [entry["providerPostId"]]
    assert asked.body["basicRequest"]["metricRequests"] == [{"metric": "ALL"}]
    report = ada_client.get(f"/api/social/accounts/{account['id']}/health").json()["data"]
    assert (report["status"], report["reachable"], report["problems"]) == ("connected", True, [])
    (read,) = business.received("GET", "/v1/locations/3001")
    assert read.q("readMask") == "name,title"
    business.gone.add("3001")  # the location deleted or suspended
    AccountHealth.objects.all().delete()  # a fresh check, not the last report
    report = ada_client.get(f"/api/social/accounts/{account['id']}/health").json()["data"]
    assert [p["code"] for p in report["problems"]] == ["permission_missing"]
    assert "not found" in report["problems"][0]["message"].lower()
    response = ada_client.post("/api/social/disconnect", {"accountId": account["id"]},
                               format="json")  # fmt: skip
    assert response.status_code == 200
    (revoked,) = providers.youtube.received("POST", "/revoke")
    assert revoked.body["token"] == business.REFRESH_TOKEN
    assert business.tokens == set()
