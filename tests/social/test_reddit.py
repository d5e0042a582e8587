"""Reddit (networks/reddit.md), through HTTP against its stand-in: OAuth with a permanent grant
and the app as HTTP Basic, the User-Agent on every call (a generic one refused), the default
subreddit (or the profile), hourly tokens renewed, text, link and image posts with a first
comment, options and the subreddit's requirements (flair, title) checked before submitting,
refusals naming their field, refusals Reddit answers with HTTP 200, a lost post and a lost
comment looked up, RATELIMIT and the rate-limit window, an expired grant, metrics, health and
disconnecting."""

import base64
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.core.cache import cache
from django.utils import timezone

from social.connections.services.upkeep import accounts_maintain
from social.models import ScheduledRecord, SocialAccount
from social.tasks import metrics_collect_task
from tests.social.conftest import (
    REDIRECT_URI,
    account_fixture,
    connect,
    connected,
    publisher,
    queue_one,
)
from tests.social.conftest import image as media_id
from tests.social.reddit_standin import FLAIRS, REDDIT_AGENT, REDDIT_CLIENT, USER
from tests.social.test_scheduler import make_due, run, schedule

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]

SUBMIT = "/api/submit"
OPTIONS = "variants.reddit.options"
BASIC = "Basic " + base64.b64encode(":".join(REDDIT_CLIENT).encode()).decode()
FOR_HIRE = FLAIRS["designjobs"][0]["id"]


@pytest.fixture(autouse=True)
def fresh_cache() -> Any:
    """A subreddit's requirements and the rate-limit window are kept in the cache."""
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def reddit(providers) -> Any:
    return providers.reddit


account = account_fixture("reddit", subreddit="Freelance")


publish = publisher(title="Available for logo work", content="Portfolio inside, DMs open.")


def submits(reddit: Any) -> list[dict[str, Any]]:
    return [call.body for call in reddit.received("POST", SUBMIT)]


def image(client: Any, providers: Any, name: str = "logo.jpg") -> str:
    return media_id(client, providers.image(name))


# --- Connecting ---------------------------------------------------------------------------------


def test_consent_tokens_and_the_user_with_the_profile_as_default(ada_client, reddit):
    url = ada_client.get(
        "/api/social/connect/reddit/authorize", {"redirectUri": REDIRECT_URI}
    ).json()["data"]["url"]
    assert url.startswith(f"{reddit.url}/api/v1/authorize?")
    query = {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}
    assert (query["client_id"], query["response_type"], query["duration"], query["scope"]) == (
        REDDIT_CLIENT[0], "code", "permanent", "identity submit read flair history",
    )  # fmt: skip
    account = connected(ada_client, "reddit")
    (exchange,) = reddit.received("POST", "/api/v1/access_token")
    assert exchange.headers["Authorization"] == BASIC
    assert exchange.body["grant_type"] == "authorization_code"
    assert reddit.agents
    assert set(reddit.agents) == {REDDIT_AGENT}  # token calls included
    assert (account["provider_user_id"], account["username"], account["display_name"]) == (
        USER["id"], USER["name"], f"u/{USER['name']}",
    )  # fmt: skip
    assert account["avatar"] == "https://styles.redditmedia.example/ada.png?width=256&s=abc"
    assert account["options"] == {"subreddit": f"u_{USER['name']}"}
    assert account["expires_at"] is None  # a permanent grant
    stored = SocialAccount.objects.get(pk=account["id"])
    assert str(stored.refresh_token).startswith("reddit-refresh-")
    assert stored.credentials_expire_at is not None
    assert stored.credentials_expire_at - timezone.now() < timedelta(hours=1, seconds=5)
    listed = {p["provider"]: p for p in ada_client.get("/api/social/platforms").json()["data"]}
    reddit_listed = listed["reddit"]
    assert reddit_listed["configured"] is True
    assert reddit_listed["limits"] == {
        "maxCharacters": 40000, "countsBy": "characters", "maxMedia": 1, "mediaRequired": False,
        "maxHashtags": None, "titleRequired": True, "maxTitle": 300,
    }  # fmt: skip
    can = reddit_listed["capabilities"]
    assert (can["text"], can["links"], can["images"], can["maxImages"], can["video"],
            can["threads"], can["firstComment"], can["title"], can["altText"]) == (
        True, True, True, 1, False, False, True, True, False,
    )  # fmt: skip
    assert [o["name"] for o in can["options"]] == [
        "subreddit", "kind", "flairId", "flairText", "nsfw", "spoiler", "sendReplies",
    ]  # fmt: skip


def test_a_subreddit_named_when_connecting_must_exist(ada_client, reddit):
    named = connect(ada_client, "reddit", subreddit="r/Freelance")
    assert named.status_code == 200, named.content
    assert named.json()["data"]["options"] == {"subreddit": "Freelance"}
    SocialAccount.objects.all().delete()
    unknown = connect(ada_client, "reddit", subreddit="NoSuchPlace")
    assert (unknown.status_code, unknown.json()["error"]["code"]) == (
        400, "reddit_subreddit_not_found",
    )  # fmt: skip
    badly = connect(ada_client, "reddit", subreddit="no spaces")
    assert (badly.status_code, badly.json()["error"]["code"]) == (400, "validation_error")
    assert not SocialAccount.objects.exists()


def test_a_refused_code_a_declined_consent_and_a_generic_user_agent_store_nothing(
    ada_client, reddit, settings
):
    refused = connect(ada_client, "reddit", code="wrong-code")  # invalid_grant, HTTP 200
    assert (refused.status_code, refused.json()["error"]["code"]) == (400, "provider_auth_failed")
    reddit.deny = True
    authorize = ada_client.get(
        "/api/social/connect/reddit/authorize", {"redirectUri": REDIRECT_URI}
    ).json()["data"]
    declined = ada_client.post(
        "/api/social/connect",
        {"provider": "reddit", "state": authorize["state"], "redirectUri": REDIRECT_URI,
         "error": "access_denied"},
        format="json",
    )  # fmt: skip
    assert (declined.status_code, declined.json()["error"]["code"]) == (400, "consent_denied")
    reddit.deny = False
    settings.REDDIT_USER_AGENT = "python-requests/2.32.3"
    generic = connect(ada_client, "reddit")
    assert (generic.status_code, generic.json()["error"]["code"]) == (502, "provider_unavailable")
    assert not SocialAccount.objects.exists()


def test_without_the_app_reddit_is_listed_but_not_configured(ada_client, settings):
    settings.REDDIT_CLIENT_ID = ""
    listed = {p["provider"]: p for p in ada_client.get("/api/social/platforms").json()["data"]}
    assert listed["reddit"]["configured"] is False
    response = ada_client.get("/api/social/connect/reddit/authorize", {"redirectUri": REDIRECT_URI})
    assert (response.status_code, response.json()["error"]["code"]) == (
        503, "provider_not_configured",
    )  # fmt: skip


# --- Publishing ---------------------------------------------------------------------------------


def test_a_text_post_is_submitted_as_typed_after_the_requirements_are_read_once(
    ada_client, account, reddit
):
    entry = publish(ada_client, account, content="**Rates** below.",
                    link="https://ada.example/work").json()["data"][0]  # fmt: skip
    assert entry["success"] is True, entry
    (post,) = reddit.posts
    assert (entry["providerPostId"], entry["url"]) == (
        post["name"], f"https://www.reddit.com{post['permalink']}",
    )  # fmt: skip
    (form,) = submits(reddit)
    assert form == {
        "api_type": "json", "sr": "Freelance", "kind": "self",
        "title": "Available for logo work", "text": "**Rates** below.\n\nhttps://ada.example/work",
        "nsfw": "false", "spoiler": "false", "sendreplies": "true", "resubmit": "true",
    }  # fmt: skip
    assert publish(ada_client, account).json()["data"][0]["success"] is True
    assert len(reddit.received("GET", "/api/v1/Freelance/post_requirements")) == 1  # kept
    assert reddit.received("GET", "/r/Freelance/api/link_flair_v2") == []  # none needed
    assert set(reddit.agents) == {REDDIT_AGENT}


def test_a_link_post_with_its_flair_and_options_to_another_subreddit(ada_client, account, reddit):
    options = {"subreddit": "DesignJobs", "kind": "link", "flairId": FOR_HIRE,
               "flairText": "Logos", "nsfw": False, "spoiler": True,
               "sendReplies": False}  # fmt: skip
    entry = publish(ada_client, account, link="https://ada.example/portfolio",
                    variants={"reddit": {"options": options}}).json()["data"][0]  # fmt: skip
    assert entry["success"] is True, entry
    (form,) = submits(reddit)
    assert (form["sr"], form["kind"], form["url"], form["flair_id"], form["flair_text"]) == (
        "DesignJobs", "link", "https://ada.example/portfolio", FOR_HIRE, "Logos",
    )  # fmt: skip
    assert (form["spoiler"], form["sendreplies"], "text" in form) == ("true", "false", False)
    assert len(reddit.received("GET", "/r/DesignJobs/api/link_flair_v2")) == 1


def test_a_subreddits_requirements_fail_the_post_without_submitting(ada_client, account, reddit):
    for options, code in (
        ({"subreddit": "DesignJobs", "kind": "link"}, "flair_required"),
        ({"subreddit": "DesignJobs", "kind": "link", "flairId": "not-a-flair"}, "flair_invalid"),
    ):
        entry = publish(ada_client, account, link="https://ada.example/p",
                        variants={"reddit": {"options": options}}).json()["data"][0]  # fmt: skip
        assert (entry["success"], entry["status"]) == (False, "Failed"), entry
        assert f"({code})" in entry["error"]["message"]
        assert entry["error"]["category"] == "content_rejected"
    short = {"subreddit": "DesignJobs", "flairId": FOR_HIRE}
    entry = publish(ada_client, account, title="Hire me",
                    variants={"reddit": {"options": short}}).json()["data"][0]  # fmt: skip
    assert "(title_length)" in entry["error"]["message"]
    assert reddit.posts == []
    assert submits(reddit) == []


def test_an_image_post_is_leased_uploaded_submitted_then_found(
    ada_client, providers, account, reddit, django_capture_on_commit_callbacks
):
    reddit.image_polls = 2  # listed once Reddit processed it
    with django_capture_on_commit_callbacks(execute=True):
        entry = publish(ada_client, account, mediaIds=[image(ada_client, providers)]).json()[
            "data"
        ][0]
        assert (entry["status"], entry["error"]["code"]) == ("Publishing", "processing")
    (lease,) = reddit.received("POST", "/api/media/asset.json")
    assert lease.body == {"filepath": "image.jpg", "mimetype": "image/jpeg"}
    (form,) = reddit.received("POST", "/s3-upload")
    assert "Authorization" not in form.headers
    assert list(form.body)[-1] == "file"
    (submitted,) = submits(reddit)
    assert (submitted["kind"], "text" in submitted) == ("image", False)
    assert submitted["url"].endswith(f"/s3-upload/{form.body['key'].decode()}")
    record = ScheduledRecord.objects.get()
    (post,) = reddit.posts
    assert (record.status, record.provider_post_id) == ("Published", post["name"])
    assert [e["outcome"] for e in record.history] == ["processing", "published"]


def test_a_lost_image_submit_is_looked_up_never_leased_or_submitted_twice(
    client, ada_client, providers, account, reddit
):
    reddit.acted.append(("POST", SUBMIT, (502, b"Bad Gateway", {})))
    (record_id,) = schedule(ada_client, {"reddit": account}, "reddit",
                            mediaIds=[image(ada_client, providers)])  # fmt: skip
    run(client)
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, record.outcome_unknown) == ("Scheduled", True)
    assert record.processing["submitting"] is True  # kept: looked up before any resubmit
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    (post,) = reddit.posts
    assert ScheduledRecord.objects.get(pk=record_id).provider_post_id == post["name"]
    assert len(submits(reddit)) == 1
    assert len(reddit.received("POST", "/api/media/asset.json")) == 1
    assert len(reddit.received("POST", "/s3-upload")) == 1


def test_a_first_comment_is_published_once_even_when_its_answer_is_lost(
    client, ada_client, account, reddit
):
    reddit.acted.append(("POST", "/api/comment", (502, b"Bad Gateway", {})))
    (record_id,) = schedule(ada_client, {"reddit": account}, "reddit",
                            firstComment="Ask me anything about rates.")  # fmt: skip
    first = run(client).json()["data"]["results"][0]
    assert first["status"] == "Published"  # the post is out; its comment waits
    make_due([record_id])
    run(client)
    record = ScheduledRecord.objects.get(pk=record_id)
    (comment,) = reddit.comments
    assert (comment["link_id"], comment["body"]) == (
        reddit.posts[0]["name"], "Ask me anything about rates.",
    )  # fmt: skip
    assert [part["kind"] for part in record.parts] == ["post", "comment"]
    assert record.parts[1]["providerPostId"] == comment["name"]
    assert len(reddit.received("POST", "/api/comment")) == 1
    assert reddit.received("GET", f"/user/{USER['name']}/comments")


def test_limits_and_options_are_refused_naming_the_field_before_sending(
    ada_client, providers, account, reddit
):
    assert "content" in str(publish(ada_client, account, content="x" * 40001).json()["error"])
    assert "title" in str(publish(ada_client, account, title="t" * 301).json()["error"])
    assert "title" in str(publish(ada_client, account, title="").json()["error"])
    for options, name in (
        ({"subreddit": "r/Freelance"}, "subreddit"),
        ({"subreddit": "no spaces here"}, "subreddit"),
        ({"kind": "video"}, "kind"),
        ({"flairId": "a1", "flairText": "x" * 65}, "flairText"),
        ({"flairText": "Logos"}, "flairText"),
        ({"nsfw": "yes"}, "nsfw"),
        ({"spoiler": 1}, "spoiler"),
        ({"sendReplies": "no"}, "sendReplies"),
        ({"pinned": True}, "pinned"),
    ):
        response = publish(ada_client, account, variants={"reddit": {"options": options}})
        assert response.status_code == 400, (options, response.content)
        assert f"{OPTIONS}.{name}" in str(response.json()["error"]["details"]), response.content
    link = publish(ada_client, account, variants={"reddit": {"options": {"kind": "link"}}})
    assert "link" in str(link.json()["error"]["details"])
    with_media = publish(ada_client, account, mediaIds=[image(ada_client, providers)],
                         variants={"reddit": {"options": {"kind": "self"}}})  # fmt: skip
    assert f"{OPTIONS}.kind" in str(with_media.json()["error"]["details"])
    for unsupported, code in (({"thread": [{"content": "Part two"}]}, "thread_not_supported"),):
        response = publish(ada_client, account, **unsupported)
        assert (response.status_code, response.json()["error"]["code"]) == (400, code)
    two = [image(ada_client, providers, f"{n}.jpg") for n in (1, 2)]
    assert publish(ada_client, account, mediaIds=two).status_code == 400
    assert reddit.posts == []
    assert submits(reddit) == []
    assert ScheduledRecord.objects.count() == 0


def test_preview_schedule_and_queue(client, ada_client, account, reddit):
    preview = ada_client.post(
        "/api/social/preview",
        {"title": "Hi", "content": "é" * 40000, "accountIds": [account["id"]]},
        format="json",
    ).json()["data"][0]  # fmt: skip
    assert preview["counts"] == {"used": 40000, "limit": 40000, "countsBy": "characters"}
    assert preview["valid"] is True
    untitled = ada_client.post(
        "/api/social/preview", {"content": "No title", "accountIds": [account["id"]]},
        format="json",
    ).json()["data"][0]  # fmt: skip
    assert untitled["valid"] is False
    schedule(ada_client, {"reddit": account}, "reddit")
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    queued_record = queue_one(ada_client, account, title="Queued", content="From the queue")
    make_due([queued_record["id"]])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    assert len(reddit.posts) == 2


# --- Exactly once, retries, tokens --------------------------------------------------------------


def test_a_lost_answer_is_found_among_the_users_posts_never_submitted_twice(
    client, ada_client, account, reddit
):
    reddit.acted.append(("POST", SUBMIT, (502, b"Bad Gateway", {})))
    (record_id,) = schedule(ada_client, {"reddit": account}, "reddit")
    run(client)
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, record.outcome_unknown) == ("Scheduled", True)
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    (post,) = reddit.posts
    assert ScheduledRecord.objects.get(pk=record_id).provider_post_id == post["name"]
    assert len(submits(reddit)) == 1
    (looked,) = reddit.received("GET", f"/user/{USER['name']}/submitted")
    assert (looked.q("sort"), looked.q("limit"), looked.q("raw_json")) == ("new", "25", "1")


def test_ratelimit_in_json_errors_waits_the_minutes_it_names(client, ada_client, account, reddit):
    reddit.ratelimit = 9
    (record_id,) = schedule(ada_client, {"reddit": account}, "reddit")
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Scheduled", "retry_scheduled")
    detail = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]
    assert detail["history"][-1]["error"]["category"] == "rate_limited"
    waits = ScheduledRecord.objects.get(pk=record_id).due_at - timezone.now()
    assert timedelta(minutes=8) < waits < timedelta(minutes=10)
    reddit.ratelimit = 0
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    assert len(reddit.posts) == 1


def test_a_used_up_rate_window_defers_the_next_post_until_its_reset(
    client, ada_client, account, reddit
):
    assert publish(ada_client, account).json()["data"][0]["success"] is True
    reddit.remaining, reddit.reset = 0, 300  # the submit's answer: the window is used up
    assert publish(ada_client, account, title="Second").json()["data"][0]["success"] is True
    (record_id,) = schedule(ada_client, {"reddit": account}, "reddit")
    result = run(client).json()["data"]["results"][0]
    assert result["status"] == "Scheduled"
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.attempts, record.history[-1]["outcome"]) == (0, "deferred")
    waits = record.due_at - timezone.now()
    assert timedelta(seconds=250) < waits < timedelta(seconds=310)
    assert len(reddit.posts) == 2


def test_a_transient_failure_is_retried(client, ada_client, account, reddit):
    reddit.scripted.append(("POST", SUBMIT, reddit.down()))
    (record_id,) = schedule(ada_client, {"reddit": account}, "reddit")
    first = run(client).json()["data"]["results"][0]
    assert (first["status"], first["error"]["code"]) == ("Scheduled", "retry_scheduled")
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    assert len(reddit.posts) == 1


def test_a_refused_token_is_refreshed_once_then_a_revoked_grant_expires_the_account(
    client, ada_client, account, reddit
):
    reddit.tokens.clear()  # the access token no longer works; the refresh token does
    schedule(ada_client, {"reddit": account}, "reddit")
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    grants = [call.body["grant_type"] for call in reddit.received("POST", "/api/v1/access_token")]
    assert grants == ["authorization_code", "refresh_token"]
    stored = SocialAccount.objects.get(pk=account["id"])
    assert str(stored.access_token) in reddit.tokens
    assert str(stored.refresh_token).startswith("reddit-refresh-")  # permanent: kept
    reddit.expired = True  # the user revoked the app: invalid_grant with HTTP 200
    (second,) = schedule(ada_client, {"reddit": account}, "reddit")
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Failed", "account_expired")
    detail = ada_client.get(f"/api/social/schedule/{second}").json()["data"]
    assert detail["error"]["category"] == "auth_expired"
    assert SocialAccount.objects.get(pk=account["id"]).status == "expired"
    assert len(reddit.posts) == 1


def test_a_banned_account_is_permission_missing(client, ada_client, account, reddit):
    body = {"json": {"errors": [["SUBREDDIT_NOTALLOWED", "you aren't allowed to post there.",
                                 "sr"]]}}  # fmt: skip
    reddit.scripted.append(("POST", SUBMIT, (200, body, {})))
    (record_id,) = schedule(ada_client, {"reddit": account}, "reddit")
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Failed", "provider_rejected")
    detail = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]
    assert detail["error"]["category"] == "permission_missing"
    assert reddit.posts == []


def test_the_daily_upkeep_renews_the_hourly_token(account, reddit):
    SocialAccount.objects.filter(pk=account["id"]).update(
        credentials_expire_at=timezone.now() - timedelta(minutes=1)
    )
    assert accounts_maintain()["renewed"] == 1
    stored = SocialAccount.objects.get(pk=account["id"])
    assert (stored.status, stored.expires_at) == ("connected", None)
    assert stored.credentials_expire_at is not None
    assert stored.credentials_expire_at > timezone.now() + timedelta(minutes=55)


# --- Metrics, health, disconnecting ---------------------------------------------------------------


def test_metrics_health_and_disconnect(ada_client, account, reddit):
    entry = publish(ada_client, account).json()["data"][0]
    assert entry["success"] is True, entry
    assert metrics_collect_task.delay().get() == {"records": 1, "collected": 1}
    (row,) = ada_client.get("/api/social/analytics").json()["data"]
    assert (row["impressions"], row["engagement"], row["clicks"]) == (0, 42 + 5, 0)
    (asked,) = reddit.received("GET", "/api/info")
    assert asked.q("id") == entry["providerPostId"]
    report = ada_client.get(f"/api/social/accounts/{account['id']}/health").json()["data"]
    assert (report["status"], report["reachable"], report["problems"]) == (
        "connected", True, [],
    )  # fmt: skip
    response = ada_client.post("/api/social/disconnect", {"accountId": account["id"]},
                               format="json")  # fmt: skip
    assert response.status_code == 200
    (revoked,) = reddit.received("POST", "/api/v1/revoke_token")
    assert revoked.headers["Authorization"] == BASIC
    assert revoked.headers["User-Agent"] == REDDIT_AGENT
    assert revoked.body["token_type_hint"] == "refresh_token"
    assert revoked.body["token"].startswith("reddit-refresh-")
