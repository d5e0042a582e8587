"""Threads (networks/threads.md), through HTTP against its stand-in: connecting with a 60-day
token that renews itself, text, image with alt text, carousel and video posts as containers
(media awaited by tasks), threads of replies and first comments each exactly once, a lost
answer settled by the container's status, the 250 posts a day deferring instead of failing,
its options, its count (an emoji is its UTF-8 bytes), its errors, metrics and health."""

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from social.models import ScheduledRecord, SocialAccount
from social.tasks import metrics_collect_task
from tests.social.conftest import REDIRECT_URI, account_fixture, connect, publish
from tests.social.conftest import image as media_id
from tests.social.test_scheduler import make_due, run, schedule
from tests.social.test_video import upload
from tests.social.threads_standin import LONG_TOKEN, THREADS_APP, THREADS_USER
from tests.social.videos import mp4

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]

V = "/v1.0"
USER = THREADS_USER["id"]


@pytest.fixture
def threads(providers) -> Any:
    return providers.threads


account = account_fixture("threads")


def containers(threads: Any) -> list[dict[str, Any]]:
    return [call.body for call in threads.received("POST", f"{V}/{USER}/threads")]


def image(client: Any, providers: Any, name: str = "launch.jpg", alt: str = "") -> str:
    return media_id(client, providers.image(name), alt)


# --- Connecting ---------------------------------------------------------------------------------


def test_connecting_keeps_the_long_lived_token_which_renews_itself(ada_client, threads):
    consent = ada_client.get(
        "/api/social/connect/threads/authorize", {"redirectUri": REDIRECT_URI}
    ).json()["data"]
    assert consent["url"].startswith(f"{threads.url}/oauth/authorize?client_id={THREADS_APP[0]}")
    assert (
        "scope=threads_basic%2Cthreads_content_publish%2Cthreads_manage_replies%2C"
        "threads_manage_insights" in consent["url"]
    )
    response = connect(ada_client, "threads")
    assert response.status_code == 200, response.content
    data = response.json()["data"]
    assert (data["provider_user_id"], data["username"], data["display_name"]) == (
        USER, "ada.designs", "Ada Lovelace",
    )  # fmt: skip
    assert data["avatar"] == THREADS_USER["threads_profile_picture_url"]
    assert not data["email"]
    assert data["expires_at"] is None  # renews itself
    stored = SocialAccount.objects.get()
    assert str(stored.access_token) == LONG_TOKEN  # only the long-lived token is kept
    assert stored.credentials_expire_at is not None
    assert stored.credentials_expire_at - timezone.now() > timedelta(days=59)
    (exchange,) = threads.received("POST", "/oauth/access_token")
    assert exchange.body["grant_type"] == "authorization_code"
    assert exchange.body["redirect_uri"] == REDIRECT_URI
    (long_lived,) = threads.received("GET", "/access_token")
    assert long_lived.q("grant_type") == "th_exchange_token"


def test_an_unconfigured_threads_app_is_listed_but_not_connectable(ada_client, settings):
    settings.THREADS_APP_ID = ""
    platforms = ada_client.get("/api/social/platforms").json()["data"]
    listed = next(p for p in platforms if p["provider"] == "threads")
    assert (listed["configured"], listed["connectMethod"]) == (False, "oauth")
    assert listed["limits"]["maxCharacters"] == 500
    assert listed["capabilities"]["carousel"] is True
    assert listed["capabilities"]["maxImages"] == 20
    response = ada_client.get(
        "/api/social/connect/threads/authorize", {"redirectUri": REDIRECT_URI}
    )
    assert (response.status_code, response.json()["error"]["code"]) == (
        503, "provider_not_configured",
    )  # fmt: skip


def test_a_token_with_under_30_days_left_is_renewed_by_the_next_attempt(
    client, ada_client, account, threads
):
    SocialAccount.objects.filter(pk=account["id"]).update(
        credentials_expire_at=timezone.now() + timedelta(days=20)
    )
    schedule(ada_client, {"threads": account}, "threads")
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    (renewal,) = threads.received("GET", "/refresh_access_token")
    assert renewal.q("grant_type") == "th_refresh_token"
    stored = SocialAccount.objects.get(pk=account["id"])
    assert str(stored.access_token).startswith(f"{LONG_TOKEN}-")
    assert stored.credentials_expire_at is not None
    assert stored.credentials_expire_at - timezone.now() > timedelta(days=59)
    assert stored.expires_at is None


# --- Publishing ---------------------------------------------------------------------------------


def test_a_text_is_a_container_then_published_once(ada_client, account, threads):
    entry = publish(ada_client, account, content="Launch day https://example.com/launch")
    assert entry["success"] is True, entry
    (post,) = threads.published()
    assert (entry["providerPostId"], entry["url"]) == (post["id"], post["permalink"])
    assert entry["url"].startswith("https://www.threads.com/@ada.designs/post/")
    assert containers(threads) == [
        {"media_type": "TEXT", "text": "Launch day https://example.com/launch"}
    ]
    # The publishing limit is read before the create.
    paths = [call.path.rsplit("/", 1)[-1] for call in threads.calls if call.method == "POST"
             or call.path.endswith("_limit")][-3:]  # fmt: skip
    assert paths == ["threads_publishing_limit", "threads", "threads_publish"]


def test_an_image_with_alt_text_is_awaited_then_published(
    ada_client, account, providers, threads, django_capture_on_commit_callbacks
):
    threads.image_polls = 1
    media_id = image(ada_client, providers, alt="The new dashboard")
    with django_capture_on_commit_callbacks(execute=True):
        entry = publish(ada_client, account, mediaIds=[media_id])
    assert (entry["status"], entry["error"]["code"]) == ("Publishing", "processing")
    record = ScheduledRecord.objects.get()
    assert record.status == "Published", record.history
    (created,) = containers(threads)
    assert created == {"media_type": "IMAGE", "image_url": providers.image(),
                       "alt_text": "The new dashboard", "text": "Launch day"}  # fmt: skip
    assert len(threads.published()) == 1


def test_a_carousel_is_one_post_of_its_item_containers(
    ada_client, account, providers, threads, django_capture_on_commit_callbacks
):
    ids = [image(ada_client, providers, f"{n}.jpg", alt=f"Slide {n}") for n in (1, 2, 3)]
    with django_capture_on_commit_callbacks(execute=True):
        publish(ada_client, account, mediaIds=ids, content="Three slides")
    assert ScheduledRecord.objects.get().status == "Published"
    *items, carousel = containers(threads)
    assert [(i["media_type"], i["is_carousel_item"], i["alt_text"]) for i in items] == [
        ("IMAGE", "true", f"Slide {n}") for n in (1, 2, 3)
    ]
    assert "text" not in items[0]
    assert (carousel["media_type"], carousel["text"]) == ("CAROUSEL", "Three slides")
    (post,) = threads.published()
    assert len(post["children"]) == 3


def test_a_video_container_is_polled_by_tasks_then_published(
    ada_client, account, threads, django_capture_on_commit_callbacks
):
    response = upload(ada_client, mp4(seconds=12.0, payload=1024), alt="Our launch video")
    video = response.json()["data"]
    with django_capture_on_commit_callbacks(execute=True):
        entry = publish(ada_client, account, mediaIds=[video["id"]])
    assert entry["error"]["code"] == "processing"
    record = ScheduledRecord.objects.get()
    assert record.status == "Published"
    assert [e["outcome"] for e in record.history] == ["processing", "published"]
    assert record.processing == {}
    (created,) = containers(threads)
    assert (created["media_type"], created["video_url"]) == ("VIDEO", video["url"])
    assert created["alt_text"] == "Our launch video"
    # Two looks "in progress", then FINISHED.
    assert len(threads.received("GET", f"{V}/{threads.published()[0]['id']}")) == 1  # permalink
    assert len([c for c in threads.calls if c.q("fields") == "status,error_message"]) == 3


def test_a_video_threads_cannot_process_fails_with_its_reason(
    ada_client, account, threads, django_capture_on_commit_callbacks
):
    threads.video_fail = "FAILED_PROCESSING_VIDEO"
    video = upload(ada_client, mp4(seconds=12.0, payload=1024)).json()["data"]
    with django_capture_on_commit_callbacks(execute=True):
        publish(ada_client, account, mediaIds=[video["id"]])
    record = ScheduledRecord.objects.get()
    assert record.status == "Failed"
    assert "FAILED_PROCESSING_VIDEO" in record.error
    detail = ada_client.get(f"/api/social/schedule/{record.pk}").json()["data"]
    assert detail["error"]["category"] == "media_invalid"
    assert threads.published() == []


def test_a_thread_and_first_comment_are_replies_each_to_the_part_before(
    ada_client, account, threads
):
    entry = publish(
        ada_client,
        account,
        content="1/ What we shipped",
        variants={"threads": {"thread": [{"content": "2/ The dashboard"},
                                         {"content": "3/ The API"}],
                              "firstComment": "Questions welcome"}},
    )  # fmt: skip
    assert entry["success"] is True, entry
    post = threads.published()[0]
    second, third, comment = threads.published(replies=True)
    assert (second["text"], second["reply_to"]) == ("2/ The dashboard", post["id"])
    assert (third["text"], third["reply_to"]) == ("3/ The API", second["id"])
    assert (comment["text"], comment["reply_to"]) == ("Questions welcome", post["id"])
    record = ScheduledRecord.objects.get()
    assert [(p["kind"], p["providerPostId"]) for p in record.parts] == [
        ("post", post["id"]), ("reply", second["id"]), ("reply", third["id"]),
        ("comment", comment["id"]),
    ]  # fmt: skip


def test_a_lost_publish_answer_is_settled_by_the_containers_status(
    client, ada_client, account, threads
):
    """The publish went through and its answer was lost: the next attempt reads the kept
    container's status (PUBLISHED), finds the post by its text, and makes no new container."""
    (record_id,) = schedule(ada_client, {"threads": account}, "threads", content="Lost answer")
    unknown = {"error": {"message": "An unknown error occurred", "code": 1,
                         "type": "OAuthException"}}  # fmt: skip
    threads.acted.append(("POST", rf"{V}/\d+/threads_publish", (500, unknown, {})))
    assert run(client).json()["data"]["results"][0]["status"] == "Scheduled"
    kept = ScheduledRecord.objects.get(pk=record_id)
    assert kept.outcome_unknown is True
    assert kept.processing["container"]
    assert kept.processing["sent"] is True
    make_due([record_id])
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["success"]) == ("Published", True)
    assert len(threads.published()) == 1
    assert len(containers(threads)) == 1  # never a second container
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.history[-1]["found"] is True
    assert record.provider_post_id == threads.published()[0]["id"]


def test_a_published_container_not_listed_ends_unconfirmed_never_sent_again(
    client, ada_client, account, threads
):
    """The container says PUBLISHED but the account's posts do not show it: not "absent",
    the outcome stays unknown until the attempts are used up, and nothing is made again."""
    (record_id,) = schedule(ada_client, {"threads": account}, "threads", content="Unlisted")
    threads.acted.append(("POST", rf"{V}/\d+/threads_publish", (502, b"Bad Gateway", {})))
    nothing: Any = (200, {"data": [], "paging": {}}, {})
    threads.scripted += [("GET", rf"{V}/\d+/threads", nothing)] * 2
    for _ in range(3):
        run(client)
        make_due([record_id])
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, record.attempts) == ("Unconfirmed", 3)
    assert len(containers(threads)) == 1
    assert len(threads.received("POST", f"{V}/{USER}/threads_publish")) == 1
    assert len(threads.published()) == 1


def test_a_refused_publish_retries_the_same_finished_container(
    client, ada_client, account, threads
):
    (record_id,) = schedule(ada_client, {"threads": account}, "threads")
    threads.scripted.append(("POST", rf"{V}/\d+/threads_publish", threads.down()))
    assert run(client).json()["data"]["results"][0]["status"] == "Scheduled"
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    assert len(containers(threads)) == 1
    publishes = threads.received("POST", f"{V}/{USER}/threads_publish")
    assert len(publishes) == 2
    assert len({call.body["creation_id"] for call in publishes}) == 1  # the same container
    assert len(threads.published()) == 1


def test_a_reply_lost_mid_thread_is_found_not_published_again(client, ada_client, account, threads):
    (record_id,) = schedule(
        ada_client,
        {"threads": account},
        "threads",
        content="1/ Start",
        variants={"threads": {"thread": [{"content": "2/ Middle"}, {"content": "3/ End"}]}},
    )
    # The second part's publish is done, its answer lost (a 502 from the gateway).
    original = threads.publish
    seen = {"n": 0}

    def flaky(call: Any, user: str) -> Any:
        answer = original(call, user)
        seen["n"] += 1
        return (502, b"Bad Gateway", {}) if seen["n"] == 2 else answer

    threads.publish = flaky
    first = run(client).json()["data"]["results"][0]
    assert first["status"] == "Published"  # the post is out; its thread waits
    record = ScheduledRecord.objects.get(pk=record_id)
    assert [p["index"] for p in record.parts] == [0]
    assert record.processing["part"] == 1
    ScheduledRecord.objects.filter(pk=record_id).update(
        next_attempt_at=timezone.now() - timedelta(seconds=1),
        due_at=timezone.now() - timedelta(seconds=1),
    )
    run(client)
    record = ScheduledRecord.objects.get(pk=record_id)
    assert [p["index"] for p in record.parts] == [0, 1, 2]
    assert [p["text"] for p in threads.published(replies=True)] == ["2/ Middle", "3/ End"]
    assert len(containers(threads)) == 3


# --- Daily caps, options, limits ----------------------------------------------------------------


def test_the_250_posts_a_day_defer_the_record_instead_of_failing(
    client, ada_client, account, threads
):
    threads.quota_used = 250
    (record_id,) = schedule(ada_client, {"threads": account}, "threads")
    result = run(client).json()["data"]["results"][0]
    assert result["status"] == "Scheduled"
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.attempts, record.error_code) == (0, "daily_cap_reached")
    assert record.history[-1]["outcome"] == "deferred"
    assert record.next_attempt_at is not None
    assert record.next_attempt_at > timezone.now() + timedelta(minutes=50)
    assert containers(threads) == []
    detail = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]
    assert detail["error"]["category"] == "account_limit"
    report = ada_client.get(f"/api/social/accounts/{account['id']}/health").json()["data"]
    assert (report["dailyCap"]["limit"], report["dailyCap"]["used"]) == (250, 250)
    assert "daily_cap_reached" in {problem["code"] for problem in report["problems"]}
    threads.quota_used = 0
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"


def test_the_replies_quota_used_up_mid_thread_leaves_the_post_out_and_the_rest_waiting(
    client, ada_client, account, threads
):
    threads.reply_quota_used = 1000
    (record_id,) = schedule(
        ada_client,
        {"threads": account},
        "threads",
        content="1/ Start",
        variants={"threads": {"thread": [{"content": "2/ End"}]}},
    )
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    record = ScheduledRecord.objects.get(pk=record_id)
    assert ([p["index"] for p in record.parts], record.next_attempt_at is not None) == ([0], True)
    detail = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]
    assert detail["history"][-1]["error"]["category"] == "account_limit"
    assert len(containers(threads)) == 1  # the reply was never made
    threads.reply_quota_used = 0
    ScheduledRecord.objects.filter(pk=record_id).update(
        next_attempt_at=timezone.now() - timedelta(seconds=1),
        due_at=timezone.now() - timedelta(seconds=1),
    )
    run(client)
    assert [p["index"] for p in ScheduledRecord.objects.get(pk=record_id).parts] == [0, 1]
    assert [p["text"] for p in threads.published(replies=True)] == ["2/ End"]


def test_options_are_sent_and_refused_naming_the_field(ada_client, account, threads):
    options = {"replyControl": "mentioned_only", "topicTag": "Product Design"}
    entry = publish(ada_client, account, variants={"threads": {"options": options}})
    assert entry["success"] is True, entry
    (created,) = containers(threads)
    assert (created["reply_control"], created["topic_tag"]) == ("mentioned_only", "Product Design")
    for key, value in (("topicTag", "a.b"), ("topicTag", "x" * 51), ("replyControl", "nobody"),
                       ("pinned", True)):  # fmt: skip
        response = ada_client.post(
            "/api/social/publish",
            {"content": "Launch", "accountIds": [account["id"]],
             "variants": {"threads": {"options": {key: value}}}},
            format="json",
        )  # fmt: skip
        assert response.status_code == 400, (key, value)
        assert f"variants.threads.options.{key}" in str(response.json()["error"]["details"])
    assert len(threads.published()) == 1


def test_an_emoji_counts_as_its_utf8_bytes_in_validation_and_preview(ada_client, account, threads):
    fits, over = "👍" * 125, "👍" * 126  # 500 and 504
    preview = ada_client.post(
        "/api/social/preview", {"content": over, "accountIds": [account["id"]]}, format="json"
    ).json()["data"][0]
    assert preview["counts"] == {"used": 504, "limit": 500, "countsBy": "characters"}
    assert preview["valid"] is False
    refused = ada_client.post(
        "/api/social/publish", {"content": over, "accountIds": [account["id"]]}, format="json"
    )
    assert refused.status_code == 400
    links = " ".join(f"https://example.com/{n}" for n in range(6))
    too_many = ada_client.post(
        "/api/social/publish", {"content": links, "accountIds": [account["id"]]}, format="json"
    )
    assert too_many.status_code == 400
    assert "5 links" in str(too_many.json()["error"]["details"])
    assert threads.posts == []
    assert publish(ada_client, account, content=fits)["success"] is True


# --- Errors, metrics, health --------------------------------------------------------------------


def test_a_rate_limit_is_retried_after_its_retry_after(client, ada_client, account, threads):
    (record_id,) = schedule(ada_client, {"threads": account}, "threads")
    threads.fail = "busy"
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Scheduled", "retry_scheduled")
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.outcome_unknown is False  # a rate limit refuses before doing anything
    assert record.next_attempt_at is not None
    assert record.next_attempt_at >= timezone.now() + timedelta(seconds=29)
    detail = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]
    assert detail["history"][-1]["error"]["category"] == "rate_limited"


def test_a_missing_permission_fails_and_health_names_the_scopes(
    client, ada_client, account, threads
):
    said = "(#10) Application does not have permission for this action: threads_content_publish"
    refusal: Any = (403, {"error": {"message": said, "code": 10, "type": "OAuthException"}}, {})
    threads.scripted.append(("GET", rf"{V}/\d+/threads_publishing_limit", refusal))
    (record_id,) = schedule(ada_client, {"threads": account}, "threads")
    assert run(client).json()["data"]["results"][0]["status"] == "Failed"
    detail = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]
    assert detail["error"]["category"] == "permission_missing"
    threads.scripted.append(("GET", rf"{V}/\d+/threads_publishing_limit", refusal))
    report = ada_client.get(f"/api/social/accounts/{account['id']}/health").json()["data"]
    assert report["scopesMissing"] == ["threads_content_publish"]


def test_metrics_are_views_and_the_sum_of_interactions(ada_client, account, threads):
    assert publish(ada_client, account)["success"] is True
    assert metrics_collect_task.delay().get() == {"records": 1, "collected": 1}
    (row,) = ada_client.get("/api/social/analytics").json()["data"]
    # The stand-in answers 10, 11, ... in the order asked: views, likes, replies, ...
    assert (row["impressions"], row["engagement"], row["clicks"]) == (10, 11 + 12 + 13 + 14 + 15, 0)
    (asked,) = threads.received("GET", f"{V}/{threads.published()[0]['id']}/insights")
    assert asked.q("metric") == "views,likes,replies,reposts,quotes,shares"


def test_an_expired_token_expires_the_account(client, ada_client, account, threads):
    schedule(ada_client, {"threads": account}, "threads")
    threads.expired = True
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Failed", "account_expired")
    assert SocialAccount.objects.get(pk=account["id"]).status == "expired"
    report = ada_client.get(f"/api/social/accounts/{account['id']}/health").json()["data"]
    assert report["status"] == "expired"
