"""Slack (networks/slack.md) through HTTP against its stand-in: connecting (the bot token kept
encrypted, never shown or logged; the general channel joined, or the `channelId` named),
escaped mrkdwn messages carrying their part's metadata key (no `<!channel>` injected), files
with alt text through the external upload read back for their message, a video, flat threads
and a first comment, the options, refusals naming their field before anything is sent, lost
answers looked up in the channel's history (a thread's replies, a share's file ids) and never
sent twice, a rate limit and an outage retried, a revoked token, a rotating token renewed, an
archived channel reported before a post is due, metrics and disconnecting."""

import logging
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone

from core import logs
from social.models import ScheduledRecord, SocialAccount
from social.providers.slack import adapter as slack_adapter
from social.tasks import metrics_collect_task, preflight_run_task
from tests.social.conftest import (
    REDIRECT_URI,
    account_fixture,
    accounts_fixture,
    connect,
    connected,
    image,
    publish_request,
    published,
    queue_one,
    schedule_later,
)
from tests.social.slack_standin import ARCHIVED, BOT_ID, GENERAL, LAUNCHES, SLACK_CLIENT, TEAM_ID
from tests.social.test_scheduler import make_due, run, schedule
from tests.social.test_video import upload
from tests.social.videos import mp4

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]

OPTIONS = "variants.slack.options"
POST = ("POST", r"/api/chat\.postMessage")


@pytest.fixture
def slack(providers) -> Any:
    return providers.slack


@pytest.fixture(autouse=True)
def quick_reads(monkeypatch) -> None:
    """A share's message re-read without waiting (the waits are Slack's, not the test's)."""
    monkeypatch.setattr(slack_adapter, "SHARE_READS", (0.0, 0.01, 0.01, 0.01, 0.01))


account = account_fixture("slack")
accounts = accounts_fixture("slack")


def due_again(record_id: str) -> None:
    make_due([record_id])
    past = timezone.now() - timedelta(seconds=1)
    ScheduledRecord.objects.filter(pk=record_id, next_attempt_at__isnull=False).update(
        next_attempt_at=past
    )


# --- Connecting ---------------------------------------------------------------------------------


def test_the_consent_installs_the_bot_in_the_general_channel_and_its_token_stays_secret(
    ada_client, account, slack, caplog
):
    url = ada_client.get(
        "/api/social/connect/slack/authorize", {"redirectUri": REDIRECT_URI}
    ).json()["data"]["url"]
    query = {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}
    assert (query["client_id"], query["scope"]) == (
        SLACK_CLIENT[0], "chat:write,channels:read,channels:join,channels:history,files:write",
    )  # fmt: skip
    assert (account["provider_user_id"], account["username"], account["display_name"]) == (
        f"{TEAM_ID}/{GENERAL}", "general", "Ada Designs #general",
    )  # fmt: skip
    assert account["expires_at"] is None
    (access,) = slack.received("POST", "/api/oauth.v2.access")
    assert access.headers["Authorization"].startswith("Basic ")
    (joined,) = slack.received("POST", "/api/conversations.join")
    assert joined.body == {"channel": GENERAL}
    assert len(slack.received("GET", "/api/conversations.list")) == 2  # its cursor followed
    (token,) = slack.tokens
    stored = SocialAccount.objects.get(pk=account["id"])
    assert token in str(stored.access_token)
    assert BOT_ID in str(stored.access_token)
    assert str(stored.refresh_token) == ""  # a bot token without rotation does not expire
    with caplog.at_level(logging.INFO):
        logging.getLogger("social.test").info("sent with Bearer %s, then %s", token, token)
        slack.fail = "down"
        ada_client.get(f"/api/social/accounts/{account['id']}/health")
        slack.fail = ""
    shown = str(ada_client.get("/api/social/accounts").json()) + str(account)
    assert token not in shown
    for formatter in (logs.TextFormatter(), logs.JsonFormatter()):
        written = "".join(formatter.format(record) for record in caplog.records)
        assert "Bearer [redacted]" in written
        assert "xox-[redacted]" in written
        assert token not in written
    platforms = {p["provider"]: p for p in ada_client.get("/api/social/platforms").json()["data"]}
    assert platforms["slack"]["limits"]["maxCharacters"] == 40000
    can = platforms["slack"]["capabilities"]
    said = [can[name] for name in ("maxImages", "altText", "video", "threads", "firstComment")]
    assert (said, can["documents"]) == ([10, True, True, True, True], False)
    assert [o["name"] for o in can["options"]] == ["unfurlLinks", "unfurlMedia"]


def test_a_channel_named_is_the_account_and_refusals_store_nothing(ada_client, slack):
    response = connect(ada_client, "slack", channelId=LAUNCHES)
    assert response.status_code == 200, response.content
    assert response.json()["data"]["username"] == "launches"
    assert slack.received("POST", "/api/conversations.join") == []  # a member already
    SocialAccount.objects.all().delete()
    for channel in (ARCHIVED, "C0NOWHERE1"):
        response = connect(ada_client, "slack", channelId=channel)
        assert (response.status_code, response.json()["error"]["code"]) == (
            400, "slack_channel_not_found",
        )  # fmt: skip
    response = connect(ada_client, "slack", code="wrong-code")
    assert (response.status_code, response.json()["error"]["code"]) == (400, "provider_auth_failed")
    slack.deny = True
    url = ada_client.get(
        "/api/social/connect/slack/authorize", {"redirectUri": REDIRECT_URI}
    ).json()["data"]["url"]
    state = parse_qs(urlsplit(url).query)["state"][0]
    denied = ada_client.post(
        "/api/social/connect",
        {"provider": "slack", "state": state, "redirectUri": REDIRECT_URI,
         "error": "access_denied"},
        format="json",
    )  # fmt: skip
    assert (denied.status_code, denied.json()["error"]["code"]) == (400, "consent_denied")
    assert not SocialAccount.objects.exists()


def test_without_the_slack_app_it_is_listed_but_not_configured(ada_client, settings):
    settings.SLACK_CLIENT_SECRET = ""
    platforms = {p["provider"]: p for p in ada_client.get("/api/social/platforms").json()["data"]}
    assert platforms["slack"]["configured"] is False
    response = ada_client.get("/api/social/connect/slack/authorize", {"redirectUri": REDIRECT_URI})
    assert response.status_code == 503


# --- Publishing ---------------------------------------------------------------------------------


def test_a_text_is_escaped_so_no_mention_is_injected_and_carries_its_key(
    ada_client, account, slack
):
    typed = "Hey <!channel> & <@U0BOSS> *launch* day <https://evil.example|click>"
    preview = ada_client.post(
        "/api/social/preview", {"content": typed, "accountIds": [account["id"]]}, format="json"
    ).json()["data"][0]
    done = published(ada_client, account, content=typed)
    (post,) = slack.posts
    escaped = ("Hey &lt;!channel&gt; &amp; &lt;@U0BOSS&gt; *launch* day "
               "&lt;https://evil.example|click&gt;")  # fmt: skip
    assert post["text"] == escaped
    assert preview["parts"][0]["text"] == escaped  # the preview shows what Slack is sent
    record = ScheduledRecord.objects.get(provider="slack")
    assert post["metadata"] == {"event_type": "fgp_publication",
                                "event_payload": {"key": f"{record.pk}:0"}}  # fmt: skip
    assert (post["unfurl_links"], post["unfurl_media"], post["channel"]) == (True, True, GENERAL)
    (call,) = slack.received(*POST[:1], "/api/chat.postMessage")
    assert call.headers["Content-Type"] == "application/json; charset=utf-8"
    assert "blocks" not in call.body
    assert done["providerPostId"] == post["ts"]
    assert done["url"] == (f"https://ada-designs.slack.com/archives/{GENERAL}/"
                           f"p{post['ts'].replace('.', '')}")  # fmt: skip


def test_images_with_alt_text_and_a_video_are_shared_files_read_back_for_their_message(
    ada_client, account, slack, providers
):
    slack.share_delay = 2  # the share shows at the third read
    first = image(ada_client, providers.image(), alt="The new dashboard")
    second = image(ada_client, providers.image("second.jpg"))
    done = published(ada_client, account, content="Screens & more", mediaIds=[first, second])
    (post,) = slack.posts
    assert [(f["name"], f["alt_txt"]) for f in post["files"]] == [
        ("image-1.jpg", "The new dashboard"), ("image-2.jpg", ""),
    ]  # fmt: skip
    assert post["text"] == "Screens &amp; more"
    assert done["providerPostId"] == post["ts"]
    reads = slack.received("GET", "/api/conversations.history")
    assert len(reads) == 3
    assert (reads[0].q("include_all_metadata"), reads[0].q("limit")) == ("true", "15")
    response = upload(ada_client, mp4(seconds=4.0))
    assert response.status_code == 200, response.content
    slack.share_delay = 0
    video = published(
        ada_client, account, content="Watch", mediaIds=[response.json()["data"]["id"]]
    )
    assert slack.posts[-1]["files"][0]["name"] == "video-1.mp4"
    assert video["providerPostId"] == slack.posts[-1]["ts"]


def test_a_thread_and_a_first_comment_reply_to_the_first_part(
    ada_client, account, slack, providers
):
    picture = image(ada_client, providers.image(), alt="Chart")
    published(ada_client, account, content="Part one",
              thread=[{"content": "Part two"}, {"content": "Part three", "mediaIds": [picture]}],
              firstComment="Questions welcome")  # fmt: skip
    root, *replies = slack.posts
    assert [p.get("thread_ts") for p in replies] == [root["ts"]] * 3  # flat: never a reply's
    assert [p["text"] for p in replies] == ["Part two", "Part three", "Questions welcome"]
    assert replies[1]["files"][0]["alt_txt"] == "Chart"
    record = ScheduledRecord.objects.get(provider="slack")
    assert replies[0]["metadata"]["event_payload"]["key"] == f"{record.pk}:1"


def test_options_are_sent_and_refusals_name_their_field_before_sending(
    ada_client, account, slack, providers
):
    quiet = {"unfurlLinks": False, "unfurlMedia": False}
    published(ada_client, account, content="See https://ada.example",
              variants={"slack": {"options": quiet}})  # fmt: skip
    assert (slack.posts[0]["unfurl_links"], slack.posts[0]["unfurl_media"]) == (False, False)
    too_long = publish_request(ada_client, account, content="&" * 8001)
    assert "content" in str(too_long.json()["error"])
    for options, name in (
        ({"unfurlLinks": "no"}, "unfurlLinks"),
        ({"unfurlMedia": 1}, "unfurlMedia"),
        ({"iconEmoji": ":tada:"}, "iconEmoji"),
    ):
        response = publish_request(ada_client, account, variants={"slack": {"options": options}})
        assert response.status_code == 400, response.content
        assert f"{OPTIONS}.{name}" in str(response.json()["error"]["details"]), response.content
    long_alt = image(ada_client, providers.image(), alt="a" * 1001)
    response = publish_request(ada_client, account, mediaIds=[long_alt])
    assert response.status_code == 400, response.content
    assert "mediaIds" in str(response.json()["error"]["details"])
    assert len(slack.posts) == 1


def test_preview_schedule_and_queue(ada_client, account, slack):
    preview = ada_client.post(
        "/api/social/preview", {"content": "a&b" * 5000, "accountIds": [account["id"]]},
        format="json",
    ).json()["data"][0]  # fmt: skip
    assert preview["counts"] == {"used": 35000, "limit": 40000, "countsBy": "characters"}
    schedule_later(ada_client, account, 2, content="Later")
    queue_one(ada_client, account, content="Queued")
    assert ScheduledRecord.objects.filter(provider="slack", status="Scheduled").count() == 2
    assert slack.posts == []


# --- Exactly once -------------------------------------------------------------------------------


def test_a_lost_answer_is_found_by_its_key_in_the_channels_history(
    client, ada_client, accounts, slack, settings
):
    settings.SOCIAL_HTTP_TIMEOUT_SECONDS = 0.5
    (record_id,) = schedule(ada_client, accounts, "slack")
    slack.fail, slack.hang = "timeout", 0.8
    assert run(client).json()["data"]["results"][0]["status"] == "Scheduled"
    assert slack.wait_idle()
    slack.fail = ""
    due_again(record_id)
    second = run(client).json()["data"]["results"][0]
    assert (second["status"], second["success"]) == ("Published", True)
    assert len(slack.posts) == 1
    (read,) = slack.received("GET", "/api/conversations.history")
    record = ScheduledRecord.objects.get(pk=record_id)
    window = record.history[0]["began"]
    assert float(read.q("oldest")) < datetime.fromisoformat(window).timestamp() - 59
    assert (read.q("inclusive"), read.q("include_all_metadata")) == ("true", "true")
    assert record.history[-1]["found"] is True


def test_a_lost_answer_of_a_threads_part_is_found_among_the_replies(
    client, ada_client, accounts, slack
):
    lost: tuple[int, dict[str, Any], dict[str, str]] = (
        500,
        {"ok": False, "error": "fatal_error"},
        {},
    )
    slack.acted.append((*POST, lost, "Part two"))
    (record_id,) = schedule(ada_client, accounts, "slack", content="Part one",
                            thread=[{"content": "Part two"}])  # fmt: skip
    run(client)
    assert ScheduledRecord.objects.get(pk=record_id).status == "Published"
    due_again(record_id)
    run(client)
    record = ScheduledRecord.objects.get(pk=record_id)
    assert (record.status, len(record.parts), record.warnings) == ("Published", 2, [])
    assert [p["text"] for p in slack.posts] == ["Part one", "Part two"]
    (read,) = slack.received("GET", "/api/conversations.replies")
    assert read.q("ts") == slack.posts[0]["ts"]


def test_a_share_not_listed_in_time_is_found_by_its_file_ids_and_never_sent_twice(
    client, ada_client, accounts, slack, providers
):
    slack.share_delay = 6  # more reads than one attempt makes
    picture = image(ada_client, providers.image(), alt="Chart")
    (record_id,) = schedule(ada_client, accounts, "slack", mediaIds=[picture])
    first = run(client).json()["data"]["results"][0]
    assert first["status"] == "Scheduled"
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.outcome_unknown is True
    assert record.processing["files"] == [slack.posts[0]["files"][0]["id"]]
    due_again(record_id)
    second = run(client).json()["data"]["results"][0]
    assert (second["status"], second["success"]) == ("Published", True)
    assert len(slack.posts) == 1
    assert len(slack.uploads) == 1


def test_a_rate_limit_and_an_outage_are_retried(client, ada_client, accounts, slack):
    slack.scripted.append((*POST, (429, {"ok": False, "error": "ratelimited"},
                                   {"Retry-After": "65"})))  # fmt: skip
    (record_id,) = schedule(ada_client, accounts, "slack")
    first = run(client).json()["data"]["results"][0]
    assert (first["status"], first["error"]["code"]) == ("Scheduled", "retry_scheduled")
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.outcome_unknown is False
    assert record.next_attempt_at is not None
    assert record.next_attempt_at >= timezone.now() + timedelta(seconds=60)
    assert record.history[-1]["category"] == "rate_limited"
    slack.scripted.append((*POST, (200, {"ok": False, "error": "service_unavailable"}, {})))
    due_again(record_id)
    second = run(client).json()["data"]["results"][0]
    assert (second["status"], second["error"]["code"]) == ("Scheduled", "retry_scheduled")
    assert ScheduledRecord.objects.get(pk=record_id).history[-1]["category"] == "platform_outage"
    due_again(record_id)
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    assert len(slack.posts) == 1


# --- Tokens and health --------------------------------------------------------------------------


def test_a_revoked_token_fails_the_post_as_auth_expired(client, ada_client, accounts, slack):
    (record_id,) = schedule(ada_client, accounts, "slack")
    slack.expired = True
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Failed", "account_expired")
    error = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]["error"]
    assert (error["category"], error["platform"]["code"]) == ("auth_expired", "token_revoked")
    assert "Reconnect your Slack account" in error["remedy"]


def test_a_rotating_token_is_renewed_before_its_end_and_when_slack_says_it_expired(
    ada_client, slack
):
    slack.rotation = True
    account = connected(ada_client, "slack")
    stored = SocialAccount.objects.get(pk=account["id"])
    assert str(stored.refresh_token).startswith("xoxe-1-")
    assert account["expires_at"] is None  # the connection renews itself
    SocialAccount.objects.filter(pk=account["id"]).update(
        credentials_expire_at=timezone.now() + timedelta(minutes=30)
    )
    published(ada_client, account, content="Renewed first")
    renewals = [c for c in slack.received("POST", "/api/oauth.v2.access")
                if c.body.get("grant_type") == "refresh_token"]  # fmt: skip
    assert len(renewals) == 1
    slack.scripted.append((*POST, (200, {"ok": False, "error": "token_expired"}, {})))
    published(ada_client, account, content="Renewed on refusal")
    assert len([c for c in slack.received("POST", "/api/oauth.v2.access")
                if c.body.get("grant_type") == "refresh_token"]) == 2  # fmt: skip
    assert [p["text"] for p in slack.posts] == ["Renewed first", "Renewed on refusal"]


def test_an_archived_channel_is_a_problem_before_a_post_is_due(ada_client, account, slack):
    healthy = ada_client.get(f"/api/social/accounts/{account['id']}/health").json()["data"]
    assert (healthy["status"], healthy["reachable"], healthy["problems"]) == ("connected", True, [])
    schedule_later(ada_client, account, 3, content="Tonight")
    slack.channels[GENERAL]["is_archived"] = True
    assert preflight_run_task.delay().get() == {"checked": 1, "announced": 1}
    health = ada_client.get(f"/api/social/accounts/{account['id']}/health").json()["data"]
    assert [p["code"] for p in health["problems"]] == ["slack_channel_archived"]
    assert "Unarchive" in health["problems"][0]["remedy"]
    assert SocialAccount.objects.get(pk=account["id"]).status == "connected"
    slack.expired = True
    ada_client.get(f"/api/social/accounts/{account['id']}/health?refresh=true")
    assert slack.posts == []


# --- Metrics, disconnecting ---------------------------------------------------------------------


def test_metrics_count_reactions_and_replies_and_disconnecting_revokes_the_token(
    ada_client, account, slack
):
    done = published(ada_client, account, content="Counted", thread=[{"content": "More"}])
    assert metrics_collect_task.delay().get() == {"records": 1, "collected": 1}
    (row,) = ada_client.get("/api/social/analytics").json()["data"]
    assert (row["impressions"], row["engagement"], row["clicks"]) == (0, 5 + 1, 0)
    read = slack.received("GET", "/api/conversations.history")[-1]
    assert (read.q("latest"), read.q("oldest"), read.q("limit")) == (
        done["providerPostId"], done["providerPostId"], "1",
    )  # fmt: skip
    (token,) = slack.tokens
    gone = ada_client.post("/api/social/disconnect", {"accountId": account["id"]}, format="json")
    assert gone.status_code == 200
    assert len(slack.received("POST", "/api/auth.revoke")) == 1
    assert token not in slack.tokens
