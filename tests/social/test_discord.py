"""Discord (networks/discord.md) through HTTP against its stand-in: connecting (the consent's
webhook is the account, kept encrypted and never shown or logged), a message with its text as
typed and mentions kept quiet, images with their alt text and a video as files of one message,
the options, refusals naming their field before anything is sent, a lost answer Unconfirmed at
once and never sent again (the user's retry sends it), a transient failure retried, a deleted
webhook expiring the account in the health check and the pre-flight check, metrics from
reactions, a daily cap an operator sets deferring, and disconnecting."""

import logging
from datetime import timedelta
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from django.utils import timezone

from core import logs
from social.models import ScheduledRecord, SocialAccount
from social.tasks import metrics_collect_task, preflight_run_task
from tests.social.conftest import (
    REDIRECT_URI,
    account_fixture,
    accounts_fixture,
    connect,
    image,
    publish_request,
    published,
    queue_one,
    schedule_later,
)
from tests.social.discord_standin import CHANNEL_ID, DISCORD_CLIENT, GUILD_ID, WEBHOOK_NAME
from tests.social.test_scheduler import make_due, run, schedule
from tests.social.test_video import upload
from tests.social.videos import mp4

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]

OPTIONS = "variants.discord.options"


@pytest.fixture
def discord(providers) -> Any:
    return providers.discord


account = account_fixture("discord")
accounts = accounts_fixture("discord")


def refused_fields(response: Any) -> list[str]:
    assert response.status_code == 400, response.content
    details = response.json()["error"]["details"]
    return [str(target["field"]) for target in details.get("targets", [])] or list(details)


def webhook(discord: Any) -> dict[str, Any]:
    (hook,) = discord.webhooks.values()
    return dict(hook)


# --- Connecting ---------------------------------------------------------------------------------


def test_the_consent_asks_for_an_incoming_webhook_and_the_webhook_is_the_account(
    ada_client, account, discord, caplog
):
    url = ada_client.get(
        "/api/social/connect/discord/authorize", {"redirectUri": REDIRECT_URI}
    ).json()["data"]["url"]
    query = {name: values[0] for name, values in parse_qs(urlsplit(url).query).items()}
    assert (query["client_id"], query["scope"], query["response_type"]) == (
        DISCORD_CLIENT[0], "webhook.incoming", "code",
    )  # fmt: skip
    assert "code_challenge" not in query
    hook = webhook(discord)
    assert (account["provider_user_id"], account["username"], account["display_name"]) == (
        hook["id"], WEBHOOK_NAME, WEBHOOK_NAME,
    )  # fmt: skip
    assert account["expires_at"] is None  # a webhook does not expire
    (token_call,) = discord.received("POST", "/api/v10/oauth2/token")
    assert token_call.headers["Authorization"].startswith("Basic ")
    stored = SocialAccount.objects.get(pk=account["id"])
    assert hook["token"] in str(stored.access_token)
    assert str(stored.refresh_token) == ""  # the OAuth tokens are not kept
    # The webhook's token is a secret: never in an answer of the API, never in a log line.
    with caplog.at_level(logging.INFO):
        discord.fail = "down"
        ada_client.get(f"/api/social/accounts/{account['id']}/health")
        discord.fail = ""
    shown = str(ada_client.get("/api/social/accounts").json()) + str(account)
    assert hook["token"] not in shown
    assert hook["token"] in caplog.text  # the raw record: our formatters redact it
    for formatter in (logs.TextFormatter(), logs.JsonFormatter()):
        written = "".join(formatter.format(record) for record in caplog.records)
        assert f"/webhooks/{hook['id']}/[redacted]" in written
        assert hook["token"] not in written
    platforms = {p["provider"]: p for p in ada_client.get("/api/social/platforms").json()["data"]}
    assert platforms["discord"]["configured"] is True
    assert platforms["discord"]["limits"]["maxCharacters"] == 2000
    can = platforms["discord"]["capabilities"]
    assert (can["maxImages"], can["altText"], can["video"], can["threads"]) == (
        10,
        True,
        True,
        False,
    )
    assert [o["name"] for o in can["options"]] == [
        "username", "avatarUrl", "threadName", "disableLinkPreview",
    ]  # fmt: skip


def test_a_refused_code_or_an_answer_without_a_webhook_stores_nothing(ada_client, discord):
    response = connect(ada_client, "discord", code="wrong-code")
    assert (response.status_code, response.json()["error"]["code"]) == (400, "provider_auth_failed")
    discord.no_webhook = True
    response = connect(ada_client, "discord")
    assert (response.status_code, response.json()["error"]["code"]) == (400, "provider_auth_failed")
    assert not SocialAccount.objects.exists()


def test_without_the_discord_application_it_is_listed_but_not_configured(ada_client, settings):
    settings.DISCORD_CLIENT_SECRET = ""
    platforms = {p["provider"]: p for p in ada_client.get("/api/social/platforms").json()["data"]}
    assert platforms["discord"]["configured"] is False
    response = ada_client.get(
        "/api/social/connect/discord/authorize", {"redirectUri": REDIRECT_URI}
    )
    assert (response.status_code, response.json()["error"]["code"]) == (
        503, "provider_not_configured",
    )  # fmt: skip


# --- Publishing ---------------------------------------------------------------------------------


def test_a_text_is_sent_as_typed_without_pinging_and_its_url_is_the_message(
    ada_client, account, discord
):
    done = published(ada_client, account, content="Hey @everyone, **launch** day", link="",
                     hashtags="launch")  # fmt: skip
    (call,) = discord.received("POST", f"/api/v10/webhooks/{webhook(discord)['id']}/"
                               f"{webhook(discord)['token']}")  # fmt: skip
    assert call.q("wait") == "true"
    assert call.body == {"content": "Hey @everyone, **launch** day\n\n#launch",
                         "allowed_mentions": {"parse": []}}  # fmt: skip
    (post,) = discord.posts
    assert done["providerPostId"] == post["id"]
    assert done["url"] == f"https://discord.com/channels/{GUILD_ID}/{CHANNEL_ID}/{post['id']}"


def test_images_go_with_their_alt_text_as_the_files_description(
    ada_client, account, discord, providers
):
    first = image(ada_client, providers.image(), alt="The new dashboard")
    second = image(ada_client, providers.image("second.jpg"))
    published(ada_client, account, content="Screens", mediaIds=[first, second])
    (post,) = discord.posts
    assert post["files"] == 2
    assert post["payload"]["attachments"] == [
        {"id": 0, "filename": "image-1.jpg", "description": "The new dashboard"},
        {"id": 1, "filename": "image-2.jpg"},
    ]
    assert post["payload"]["content"] == "Screens"


def test_a_video_is_an_attachment_sent_with_the_message(ada_client, account, discord):
    response = upload(ada_client, mp4(seconds=4.0))
    assert response.status_code == 200, response.content
    video = str(response.json()["data"]["id"])
    done = published(ada_client, account, content="Watch it", mediaIds=[video])
    (post,) = discord.posts
    assert (post["files"], post["payload"]["attachments"][0]["filename"]) == (1, "video-1.mp4")
    assert done["providerPostId"] == post["id"]


def test_the_options_are_the_messages_fields(ada_client, account, discord):
    discord.forum = True
    options = {"username": "Ada's launch bot", "avatarUrl": "https://cdn.example.com/ada.png",
               "threadName": "Launch week", "disableLinkPreview": True}  # fmt: skip
    done = published(ada_client, account, content="See https://ada.example",
                     variants={"discord": {"options": options}})  # fmt: skip
    (post,) = discord.posts
    payload = post["payload"]
    sent = (payload["username"], payload["avatar_url"], payload["thread_name"], payload["flags"])
    assert sent == ("Ada's launch bot", "https://cdn.example.com/ada.png", "Launch week", 4)
    assert post["channel_id"] != CHANNEL_ID  # the forum's new post is a thread of its own
    assert done["url"].endswith(f"/{post['channel_id']}/{post['id']}")


def test_a_forum_without_a_thread_name_is_refused_by_discord(client, ada_client, accounts, discord):
    discord.forum = True
    (record_id,) = schedule(ada_client, accounts, "discord")
    assert run(client).json()["data"]["results"][0]["status"] == "Failed"
    error = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]["error"]
    assert (error["category"], error["platform"]["code"]) == ("content_rejected", "220001")
    assert "threadName" in error["remedy"]


def test_limits_and_options_are_refused_naming_the_field_before_sending(
    ada_client, account, discord, providers
):
    too_long = publish_request(ada_client, account, content="x" * 2001)
    assert "content" in str(too_long.json()["error"])
    for options, name in (
        ({"username": "discord fan"}, "username"),
        ({"username": "x" * 81}, "username"),
        ({"avatarUrl": "http://insecure.example/a.png"}, "avatarUrl"),
        ({"threadName": "t" * 101}, "threadName"),
        ({"disableLinkPreview": "yes"}, "disableLinkPreview"),
        ({"embeds": []}, "embeds"),
    ):
        response = publish_request(ada_client, account, variants={"discord": {"options": options}})
        assert response.status_code == 400, response.content
        assert f"{OPTIONS}.{name}" in str(response.json()["error"]["details"]), response.content
    for unsupported, code in (
        ({"thread": [{"content": "Part two"}]}, "thread_not_supported"),
        ({"firstComment": "First!"}, "first_comment_not_supported"),
    ):
        response = publish_request(ada_client, account, **unsupported)
        assert (response.status_code, response.json()["error"]["code"]) == (400, code)
    big = [image(ada_client, providers.image(f"{n}.jpg"), size=6 * 1024 * 1024) for n in (1, 2)]
    response = publish_request(ada_client, account, mediaIds=big)
    assert response.status_code == 400
    assert "mediaIds" in str(response.json()["error"]["details"])
    long_alt = image(ada_client, providers.image(), alt="a" * 1025)
    response = publish_request(ada_client, account, mediaIds=[long_alt])
    assert response.status_code == 400, response.content
    assert discord.posts == []
    assert ScheduledRecord.objects.count() == 0


def test_preview_schedule_and_queue(ada_client, account, discord):
    preview = ada_client.post(
        "/api/social/preview", {"content": "é" * 2000, "accountIds": [account["id"]]},
        format="json",
    ).json()["data"][0]  # fmt: skip
    assert preview["counts"] == {"used": 2000, "limit": 2000, "countsBy": "characters"}
    assert preview["valid"] is True
    schedule_later(ada_client, account, 2, content="Later")
    queue_one(ada_client, account, content="Queued")
    assert ScheduledRecord.objects.filter(provider="discord", status="Scheduled").count() == 2
    assert discord.posts == []


# --- Exactly once -------------------------------------------------------------------------------


def test_a_lost_answer_is_unconfirmed_at_once_and_the_users_retry_sends_it(
    client, ada_client, accounts, discord, settings
):
    settings.SOCIAL_HTTP_TIMEOUT_SECONDS = 0.5
    (record_id,) = schedule(ada_client, accounts, "discord")
    discord.fail, discord.hang = "timeout", 0.8
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Unconfirmed", "unconfirmed")
    assert discord.wait_idle()
    discord.fail = ""
    assert len(discord.posts) == 1  # it landed; nothing is sent again by itself
    make_due([record_id])
    run(client)
    assert len(discord.posts) == 1
    resolved = ada_client.post(
        f"/api/social/schedule/{record_id}/resolve", {"action": "retry"}, format="json"
    )
    assert resolved.status_code == 200, resolved.content
    make_due([record_id])
    again = run(client).json()["data"]["results"][0]
    assert (again["status"], again["success"]) == ("Published", True)
    assert len(discord.posts) == 2  # the user chose to send it again: nothing could be asked


def test_a_transient_failure_and_a_rate_limit_are_retried(client, ada_client, accounts, discord):
    hook = webhook(discord)
    path = rf"/api/v10/webhooks/{hook['id']}/[\w.-]+"
    limited = (429, {"message": "You are being rate limited.", "retry_after": 64.5,
                     "global": False}, {"Retry-After": "65"})  # fmt: skip
    discord.scripted.append(("POST", path, limited))
    (record_id,) = schedule(ada_client, accounts, "discord")
    first = run(client).json()["data"]["results"][0]
    assert (first["status"], first["error"]["code"]) == ("Scheduled", "retry_scheduled")
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.outcome_unknown is False
    assert record.next_attempt_at is not None
    assert record.next_attempt_at >= timezone.now() + timedelta(seconds=60)
    assert record.history[-1]["category"] == "rate_limited"
    discord.scripted.append(("POST", path, (502, {"message": "502: Bad Gateway", "code": 0}, {})))
    make_due([record_id])
    second = run(client).json()["data"]["results"][0]
    assert (second["status"], second["error"]["code"]) == ("Scheduled", "retry_scheduled")
    assert ScheduledRecord.objects.get(pk=record_id).history[-1]["category"] == "platform_outage"
    make_due([record_id])
    third = run(client).json()["data"]["results"][0]
    assert (third["status"], third["success"]) == ("Published", True)
    assert len(discord.posts) == 1


# --- A deleted webhook ------------------------------------------------------------------------


def test_a_deleted_webhook_expires_the_account_in_health_and_before_a_post_is_due(
    ada_client, account, discord
):
    healthy = ada_client.get(f"/api/social/accounts/{account['id']}/health").json()["data"]
    assert (healthy["status"], healthy["reachable"], healthy["problems"]) == ("connected", True, [])
    assert healthy["dailyCap"] is None
    schedule_later(ada_client, account, 3, content="Tonight")
    discord.expired = True  # the user deleted the webhook in Discord
    assert preflight_run_task.delay().get() == {"checked": 1, "announced": 1}
    assert SocialAccount.objects.get(pk=account["id"]).status == "expired"
    health = ada_client.get(f"/api/social/accounts/{account['id']}/health").json()["data"]
    assert health["status"] == "expired"
    assert [p["code"] for p in health["problems"]] == ["account_expired"]
    assert discord.posts == []


def test_an_expired_webhook_fails_the_post_as_auth_expired(client, ada_client, accounts, discord):
    (record_id,) = schedule(ada_client, accounts, "discord")
    discord.expired = True
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Failed", "account_expired")
    error = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]["error"]
    assert (error["category"], error["platform"]["code"]) == ("auth_expired", "10015")
    assert "Reconnect Discord" in error["remedy"]


# --- Caps, metrics, disconnecting -------------------------------------------------------------


def test_a_daily_cap_an_operator_sets_defers_instead_of_failing(
    client, ada_client, accounts, discord, settings
):
    settings.SOCIAL_DAILY_CAPS = {"discord": 1}
    first, second = (schedule(ada_client, accounts, "discord", content=text)[0]
                     for text in ("First", "Second"))  # fmt: skip
    make_due([first, second])
    run(client)
    records = ScheduledRecord.objects.filter(pk__in=[first, second])
    assert sorted((r.status, r.error_code) for r in records) == [
        ("Published", ""), ("Scheduled", "daily_cap_reached"),
    ]  # fmt: skip
    assert len(discord.posts) == 1


def test_metrics_count_reactions_and_disconnecting_deletes_the_webhook(
    ada_client, account, discord
):
    done = published(ada_client, account, content="Counted")
    assert metrics_collect_task.delay().get() == {"records": 1, "collected": 1}
    (row,) = ada_client.get("/api/social/analytics").json()["data"]
    assert (row["impressions"], row["engagement"], row["clicks"]) == (0, 5, 0)
    hook = webhook(discord)
    (read,) = discord.received(
        "GET", f"/api/v10/webhooks/{hook['id']}/{hook['token']}/messages/{done['providerPostId']}"
    )
    assert read.method == "GET"
    gone = ada_client.post("/api/social/disconnect", {"accountId": account["id"]}, format="json")
    assert gone.status_code == 200
    assert discord.webhooks[hook["id"]]["deleted"] is True
