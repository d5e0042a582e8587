"""X (networks/x.md) through HTTP against its stand-in: connecting with PKCE, the weighted count
in validation, preview and the platforms list, images with alt text, threads and first
comments as reply chains (each part once), a video through the chunked upload and X's
processing, rotating refresh tokens, X's refusals and limits as categories, options, metrics,
health, the daily cap and disconnecting."""

from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
import requests
from django.utils import timezone

from social.models import ScheduledRecord, SocialAccount
from social.providers.x import code_challenge, code_verifier
from social.tasks import metrics_collect_task
from tests.social.conftest import REDIRECT_URI, connected, publish
from tests.social.test_scheduler import make_due, run, schedule
from tests.social.test_video import upload
from tests.social.videos import mp4
from tests.social.x_standin import X_USERNAME

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]

CJK = "故"  # weighs 2
TWEETS = ("POST", r"/2/tweets")


@pytest.fixture
def x_account(ada_client, providers) -> dict[str, Any]:
    return connected(ada_client, "x")


@pytest.fixture
def accounts(x_account) -> dict[str, Any]:
    return {"x": x_account}


def media(client: Any, url: str, alt: str = "") -> str:
    body = {"type": "image/jpeg", "url": url, "size": 2048, **({"alt": alt} if alt else {})}
    response = client.post("/api/social/media", body, format="json")
    assert response.status_code == 200, response.content
    return str(response.json()["data"]["id"])


# --- Connecting --------------------------------------------------------------------------------


def test_connecting_asks_for_consent_with_pkce_and_stores_the_account(ada_client, providers):
    asked = ada_client.get("/api/social/connect/x/authorize", {"redirectUri": REDIRECT_URI})
    data = asked.json()["data"]
    query = {k: v[0] for k, v in parse_qs(urlsplit(data["url"]).query).items()}
    assert data["url"].startswith(f"{providers.x.url}/i/oauth2/authorize?")
    assert query["code_challenge_method"] == "S256"
    assert query["code_challenge"] == code_challenge(code_verifier(data["state"]))
    assert set(query["scope"].split()) == {
        "tweet.read", "tweet.write", "users.read", "media.write", "offline.access"
    }  # fmt: skip
    assert "plain" not in data["url"]
    page = requests.get(data["url"], allow_redirects=False, timeout=5)
    back = {k: v[0] for k, v in parse_qs(urlsplit(page.headers["Location"]).query).items()}
    response = ada_client.post(
        "/api/social/connect",
        {"provider": "x", "code": back["code"], "state": back["state"],
         "redirectUri": REDIRECT_URI},
        format="json",
    )  # fmt: skip
    assert response.status_code == 200, response.content
    account = response.json()["data"]
    assert (account["username"], account["display_name"]) == (X_USERNAME, "Ada Lovelace")
    assert not account["email"]  # X gives none
    assert account["expires_at"] is None  # the connection renews itself
    assert account["limits"]["countsBy"] == "weighted"
    (token,) = providers.x.received("POST", "/2/oauth2/token")
    assert token.body["code_verifier"] == code_verifier(back["state"])
    assert token.headers["Authorization"].startswith("Basic ")
    stored = SocialAccount.objects.get(pk=account["id"])
    assert stored.refresh_token
    assert stored.credentials_expire_at is not None


def test_a_state_is_required_and_an_unconfigured_app_is_503(ada_client, providers, settings):
    missing = ada_client.post("/api/social/connect", {"provider": "x", "code": "c"}, format="json")
    assert missing.status_code == 400
    assert "state" in missing.json()["error"]["details"]
    settings.X_CLIENT_ID = ""
    asked = ada_client.get("/api/social/connect/x/authorize", {"redirectUri": REDIRECT_URI})
    assert (asked.status_code, asked.json()["error"]["code"]) == (503, "provider_not_configured")


# --- Weighted counting ------------------------------------------------------------------------


def test_the_platforms_list_validation_and_preview_count_by_weight(ada_client, x_account):
    (x,) = [p for p in ada_client.get("/api/social/platforms").json()["data"]
            if p["provider"] == "x"]  # fmt: skip
    assert (x["limits"]["maxCharacters"], x["limits"]["countsBy"]) == (280, "weighted")
    assert (x["capabilities"]["threads"], x["capabilities"]["firstComment"]) == (True, True)
    fits = CJK * 140  # 280 weighted
    link = "https://example.com/" + "a" * 200  # 23, whatever its length
    for content, used, valid in ((fits, 280, True), (fits + "a", 281, False),
                                 (f"{link} {'b' * 256}", 280, True)):  # fmt: skip
        preview = ada_client.post(
            "/api/social/preview", {"content": content, "accountIds": [x_account["id"]]},
            format="json",
        ).json()["data"][0]  # fmt: skip
        assert preview["counts"] == {"used": used, "limit": 280, "countsBy": "weighted"}
        assert preview["valid"] is valid
        response = ada_client.post(
            "/api/social/publish", {"content": content, "accountIds": [x_account["id"]]},
            format="json",
        )  # fmt: skip
        assert (response.status_code == 200) is valid, response.content
        if not valid:
            (target,) = response.json()["error"]["details"]["targets"]
            assert (target["provider"], target["field"]) == ("x", "content")
            assert "281" in target["message"]


def test_each_thread_part_is_counted_on_its_own(ada_client, x_account, providers):
    response = ada_client.post(
        "/api/social/publish",
        {"content": "Part one", "thread": [{"content": "ok"}, {"content": CJK * 141}],
         "firstComment": CJK * 141, "accountIds": [x_account["id"]]},
        format="json",
    )  # fmt: skip
    assert response.status_code == 400
    fields = {t["field"] for t in response.json()["error"]["details"]["targets"]}
    assert fields == {"thread[1].content", "firstComment"}
    assert providers.x.posts == []


# --- Publishing -------------------------------------------------------------------------------


def test_an_image_is_uploaded_with_its_alt_text_before_the_post(ada_client, x_account, providers):
    image = media(ada_client, providers.image(), alt="A red launch button")
    done = publish(ada_client, x_account, content="Launch https://example.com", mediaIds=[image])
    assert done["success"], done
    (uploaded,) = providers.x.received("POST", "/2/media/upload")
    assert uploaded.body["media_category"] == b"tweet_image"
    (alt,) = providers.x.received("POST", "/2/media/metadata")
    media_id = alt.body["id"]
    assert alt.body["metadata"] == {"alt_text": {"text": "A red launch button"}}
    (post,) = providers.x.posts
    assert post["media_ids"] == [media_id]
    assert post["sent"] == "Launch https://example.com"
    assert done["url"] == f"https://x.com/{X_USERNAME}/status/{post['id']}"
    assert done["providerPostId"] == post["id"]


def test_a_thread_and_a_first_comment_are_a_reply_chain_each_part_once(
    client, ada_client, accounts, providers, settings
):
    settings.SCHEDULER_RETRY_BASE_SECONDS = 60
    providers.x.scripted.append((*TWEETS, (503, {"title": "Service Unavailable"}, {}), "Three"))
    (record_id,) = schedule(
        ada_client, accounts, "x", content="One",
        thread=[{"content": "Two"}, {"content": "Three"}], firstComment="Questions welcome",
    )  # fmt: skip
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    sent = [call.body["text"] for call in providers.x.received(*TWEETS)]
    assert sent == ["One", "Two", "Three", "Three", "Questions welcome"]
    posts = providers.x.posts
    assert [p["sent"] for p in posts] == ["One", "Two", "Three", "Questions welcome"]
    assert [p["parent"] for p in posts] == ["", posts[0]["id"], posts[1]["id"], posts[0]["id"]]
    record = ScheduledRecord.objects.get(pk=record_id)
    assert [(p["kind"], p["providerPostId"]) for p in record.parts] == [
        ("post", posts[0]["id"]), ("reply", posts[1]["id"]), ("reply", posts[2]["id"]),
        ("comment", posts[3]["id"]),
    ]  # fmt: skip


def test_a_reply_whose_answer_was_lost_is_found_by_its_parent_not_sent_again(
    client, ada_client, accounts, providers, settings
):
    settings.SCHEDULER_RETRY_BASE_SECONDS = 60
    providers.x.acted.append((*TWEETS, (502, {"title": "Bad Gateway"}, {}), "Two"))
    (record_id,) = schedule(
        ada_client, accounts, "x", content="One https://example.com/a", thread=[{"content": "Two"}]
    )
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    assert ScheduledRecord.objects.get(pk=record_id).outcome_unknown
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    assert [c.body["text"] for c in providers.x.received(*TWEETS)] == [
        "One https://example.com/a", "Two",
    ]  # fmt: skip
    lookups = providers.x.received("GET", f"/2/users/{providers.x.posts[0]['author_id']}/tweets")
    assert lookups[0].q("start_time")
    assert int(lookups[0].q("max_results")) <= 10
    record = ScheduledRecord.objects.get(pk=record_id)
    assert [p["providerPostId"] for p in record.parts] == [p["id"] for p in providers.x.posts]


def test_a_lost_post_with_a_link_is_found_through_its_t_co_link(
    client, ada_client, accounts, providers
):
    providers.x.acted.append((*TWEETS, (504, {"title": "Gateway Timeout"}, {})))
    (record_id,) = schedule(ada_client, accounts, "x", content="Read https://example.com/post")
    assert run(client).json()["data"]["results"][0]["status"] == "Scheduled"
    assert providers.x.posts[0]["text"].startswith("Read https://t.co/")
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    assert len(providers.x.received(*TWEETS)) == 1


def test_the_same_text_twice_is_refused_as_x_says(ada_client, x_account, providers):
    assert publish(ada_client, x_account, content="Same words")["success"]
    again = publish(ada_client, x_account, content="Same words")
    assert again["success"] is False
    record = ada_client.get(f"/api/social/schedule/{again['recordId']}").json()["data"]
    assert record["error"]["category"] == "content_rejected"
    assert "twice" in record["error"]["remedy"]
    assert len(providers.x.posts) == 1


def test_reply_settings_go_on_the_first_part_and_other_values_are_refused(
    ada_client, x_account, providers
):
    bad = ada_client.post(
        "/api/social/publish",
        {"content": "Hi", "variants": {"x": {"options": {"replySettings": "everyone"}}},
         "accountIds": [x_account["id"]]},
        format="json",
    )  # fmt: skip
    assert bad.status_code == 400
    assert "variants.x.options.replySettings" in str(bad.json()["error"]["details"])
    done = publish(
        ada_client, x_account, content="Hi", thread=[{"content": "More"}],
        variants={"x": {"options": {"replySettings": "following"}}},
    )  # fmt: skip
    assert done["success"], done
    assert [p["reply_settings"] for p in providers.x.posts] == ["following", None]


# --- Video ------------------------------------------------------------------------------------


def test_a_video_goes_up_in_segments_and_is_posted_once_x_processed_it(
    ada_client, x_account, providers, django_capture_on_commit_callbacks
):
    video = upload(ada_client, mp4(seconds=12.0, payload=6 * 1024 * 1024), alt="Demo")
    assert video.status_code == 200, video.content
    with django_capture_on_commit_callbacks(execute=True):
        done = publish(ada_client, x_account, mediaIds=[video.json()["data"]["id"]])
    assert (done["status"], done["error"]["code"]) == ("Publishing", "processing")
    record = ScheduledRecord.objects.get(pk=done["recordId"])
    assert record.status == "Published", (done, record.history)
    (initialized,) = providers.x.received("POST", "/2/media/upload/initialize")
    assert initialized.body["media_category"] == "tweet_video"
    segments = [c for c in providers.x.calls if c.path.endswith("/append")]
    assert [c.body["segment_index"] for c in segments] == [b"0", b"1"]
    assert sum(len(c.body["media"]) for c in segments) == initialized.body["total_bytes"]
    statuses = providers.x.received("GET", "/2/media/upload")
    assert len(statuses) == 3
    assert statuses[0].q("command") == "STATUS"
    (post,) = providers.x.posts
    assert post["media_ids"] == [segments[0].path.split("/")[4]]


def test_a_video_too_long_for_x_is_refused_before_sending(ada_client, x_account, providers):
    video = upload(ada_client, mp4(seconds=141.0, payload=1024))
    response = ada_client.post(
        "/api/social/publish",
        {"content": "Long", "mediaIds": [video.json()["data"]["id"]],
         "accountIds": [x_account["id"]]},
        format="json",
    )  # fmt: skip
    assert response.status_code == 400
    assert "140" in str(response.json()["error"]["details"])
    assert providers.x.calls[-1].path == "/2/users/me"  # nothing after connecting


def test_a_processing_failure_fails_the_record_with_xs_reason(
    ada_client, x_account, providers, django_capture_on_commit_callbacks
):
    providers.x.video_fail = "Unsupported codec"
    video = upload(ada_client, mp4(seconds=3.0, payload=1024))
    with django_capture_on_commit_callbacks(execute=True):
        done = publish(ada_client, x_account, mediaIds=[video.json()["data"]["id"]])
    record = ada_client.get(f"/api/social/schedule/{done['recordId']}").json()["data"]
    assert record["status"] == "Failed"
    assert record["error"]["category"] == "media_invalid"
    assert "Unsupported codec" in record["error"]["message"]
    assert providers.x.posts == []


# --- Tokens -----------------------------------------------------------------------------------


def test_a_token_about_to_expire_is_renewed_and_the_old_refresh_token_dies(
    ada_client, x_account, providers
):
    account = SocialAccount.objects.get(pk=x_account["id"])
    old_refresh = account.refresh_token
    SocialAccount.objects.filter(pk=account.pk).update(
        credentials_expire_at=timezone.now() + timedelta(minutes=2)
    )
    assert publish(ada_client, x_account)["success"]
    account.refresh_from_db()
    assert account.refresh_token != old_refresh
    assert old_refresh not in providers.x.refresh_tokens  # used once: dead
    renewed_until = account.credentials_expire_at
    assert renewed_until is not None
    assert renewed_until > timezone.now() + timedelta(hours=1)
    assert account.expires_at is None


def test_the_daily_upkeep_renews_a_token_that_ran_out_instead_of_expiring_the_account(
    x_account, providers
):
    from social.connections.services.upkeep import accounts_maintain

    SocialAccount.objects.filter(pk=x_account["id"]).update(
        credentials_expire_at=timezone.now() - timedelta(hours=3)
    )
    assert accounts_maintain().get("renewed") == 1
    account = SocialAccount.objects.get(pk=x_account["id"])
    assert account.status == "connected"
    renewed_until = account.credentials_expire_at
    assert renewed_until is not None
    assert renewed_until > timezone.now()
    providers.x.refresh_tokens.clear()  # the refresh token refused: the connection ended
    SocialAccount.objects.filter(pk=x_account["id"]).update(
        credentials_expire_at=timezone.now() - timedelta(hours=3)
    )
    assert accounts_maintain().get("expired") == 1
    assert SocialAccount.objects.get(pk=x_account["id"]).status == "expired"


def test_a_401_renews_the_token_once_and_the_create_goes_through(ada_client, x_account, providers):
    providers.x.access.clear()  # X no longer takes the access token: a 401
    assert publish(ada_client, x_account)["success"]
    assert len(providers.x.received("POST", "/2/oauth2/token")) == 2  # connect, then renewal
    assert len(providers.x.posts) == 1


def test_a_refused_renewal_expires_the_account(ada_client, x_account, providers):
    providers.x.access.clear()
    providers.x.refresh_tokens.clear()
    done = publish(ada_client, x_account)
    assert done["success"] is False
    assert SocialAccount.objects.get(pk=x_account["id"]).status == "expired"
    assert providers.x.posts == []


# --- Limits and outcomes ----------------------------------------------------------------------


def test_a_rate_limit_waits_for_xs_reset(client, ada_client, accounts, providers):
    reset = int(timezone.now().timestamp()) + 600
    limited = (429, {"title": "Too Many Requests", "detail": "Too Many Requests",
                     "type": "about:blank", "status": 429},
               {"x-rate-limit-reset": str(reset)})  # fmt: skip
    providers.x.scripted.append((*TWEETS, limited))
    (record_id,) = schedule(ada_client, accounts, "x")
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Scheduled", "retry_scheduled")
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.next_attempt_at is not None
    assert record.next_attempt_at.timestamp() >= reset - 1
    assert record.history[-1]["category"] == "rate_limited"


def test_a_used_up_usage_cap_fails_as_an_outage_not_retried(
    client, ada_client, accounts, providers
):
    body = {"title": "UsageCapExceeded", "detail": "Usage cap exceeded",
            "type": "https://api.twitter.com/2/problems/usage-capped", "status": 429}  # fmt: skip
    capped: tuple[int, Any, dict[str, str]] = (429, body, {})
    providers.x.scripted.append((*TWEETS, capped))
    (record_id,) = schedule(ada_client, accounts, "x")
    assert run(client).json()["data"]["results"][0]["status"] == "Failed"
    error = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]["error"]
    assert error["category"] == "platform_outage"  # an operator adds credits; not retried
    assert error["platform"]["code"] == "usage-capped"


def test_the_daily_cap_defers_instead_of_failing(client, ada_client, accounts, providers, settings):
    settings.SOCIAL_DAILY_CAPS = {"x": 1}
    first, second = (schedule(ada_client, accounts, "x", content=text)[0]
                     for text in ("First", "Second"))  # fmt: skip
    make_due([first, second])
    run(client)
    records = ScheduledRecord.objects.filter(pk__in=[first, second])
    assert sorted((r.status, r.error_code) for r in records) == [
        ("Published", ""), ("Scheduled", "daily_cap_reached"),
    ]  # fmt: skip
    assert len(providers.x.posts) == 1


def test_metrics_health_and_disconnecting(ada_client, x_account, providers):
    assert publish(ada_client, x_account, content="Counted")["success"]
    assert metrics_collect_task.delay().get() == {"records": 1, "collected": 1}
    (row,) = ada_client.get("/api/social/analytics").json()["data"]
    assert (row["impressions"], row["engagement"], row["clicks"]) == (120, 9, 7)
    (lookup,) = providers.x.received("GET", "/2/tweets")
    assert "non_public_metrics" in lookup.q("tweet.fields")
    health = ada_client.get(f"/api/social/accounts/{x_account['id']}/health").json()["data"]
    assert (health["status"], health["reachable"], health["problems"]) == ("connected", True, [])
    assert health["dailyCap"]["limit"] == 2400
    refresh = SocialAccount.objects.get(pk=x_account["id"]).refresh_token
    gone = ada_client.post("/api/social/disconnect", {"accountId": x_account["id"]}, format="json")
    assert gone.status_code == 200
    assert providers.x.revoked == [refresh]
