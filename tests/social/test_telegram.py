"""Telegram (networks/telegram.md) through HTTP against its stand-in: connecting a bot to a
channel or group (the token, the chat, the bot's right to post checked; the token stored
encrypted, never answered, never logged), texts with the options, photos as bytes (no alt
text), media groups, a video without processing, threads and first comments as replies,
refusals naming the field, a lost answer left Unconfirmed (no key and no read) and resolved by
the user, retries of what Telegram refused before sending, a group upgraded to a supergroup, a
bot that lost its rights reported by health and the pre-flight check, caps, queue, preview."""

import json
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.utils import timezone

from core import logs
from notifications.models import OutboxEvent
from social.models import AnalyticsRecord, ScheduledRecord, SocialAccount
from social.providers.telegram.connection import bot_of
from social.tasks import preflight_run_task
from tests.social.conftest import (
    account_fixture,
    accounts_fixture,
    connect,
    image,
    publish_request,
    published,
    schedule_later,
)
from tests.social.telegram_standin import (
    CHANNEL_ID,
    GROUP_ID,
    PRIVATE_CHANNEL_ID,
    SUPERGROUP_ID,
    TELEGRAM_BOT_ID,
    TELEGRAM_TOKEN,
)
from tests.social.test_scheduler import make_due, run, schedule
from tests.social.test_video import upload
from tests.social.videos import mp4

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("cron_secret")]

SECRET = TELEGRAM_TOKEN.split(":", 1)[1]


@pytest.fixture
def telegram(providers) -> Any:
    return providers.telegram


account = account_fixture("telegram")
accounts = accounts_fixture("telegram")


def sends(telegram: Any, method: str) -> list[Any]:
    return telegram.received("POST", f"/bot{TELEGRAM_TOKEN}/{method}")


def stored_token(account_id: str) -> str:
    """The access token's column as the database holds it."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT access_token FROM social_socialaccount WHERE id = %s",
                       [account_id.replace("-", "") if connection.vendor == "sqlite"
                        else account_id])  # fmt: skip
        return str(cursor.fetchone()[0])


# --- Connecting --------------------------------------------------------------------------------


def test_connecting_checks_the_token_the_chat_and_the_bot_and_keeps_the_token_sealed(
    ada_client, telegram
):
    refused = ada_client.get(
        "/api/social/connect/telegram/authorize", {"redirectUri": "https://app.example.com/cb"}
    )
    assert refused.status_code == 400  # no consent page
    response = connect(ada_client, "telegram")
    assert response.status_code == 200, response.content
    account = response.json()["data"]
    assert (account["provider_user_id"], account["username"], account["display_name"]) == (
        str(CHANNEL_ID), "ada_designs", "Ada Designs",
    )  # fmt: skip
    assert account["expires_at"] is None
    assert account["limits"]["maxCharacters"] == 4096
    assert SECRET not in str(response.content)
    assert SECRET not in str(ada_client.get("/api/social/accounts").content)
    assert [call.path.rsplit("/", 1)[1] for call in telegram.calls] == [
        "getMe", "getChat", "getChatMember",
    ]  # fmt: skip
    assert telegram.calls[1].body == {"chat_id": "@ada_designs"}
    assert telegram.calls[2].body == {"chat_id": str(CHANNEL_ID), "user_id": TELEGRAM_BOT_ID}
    stored = SocialAccount.objects.get(pk=account["id"])
    assert SECRET not in stored_token(account["id"])  # encrypted at rest
    from social.connections.services.credentials import credentials_of

    sealed = bot_of(credentials_of(stored))
    assert (sealed.token, sealed.chat, sealed.bot) == (
        TELEGRAM_TOKEN, str(CHANNEL_ID), str(TELEGRAM_BOT_ID),
    )  # fmt: skip
    assert not stored.refresh_token


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"identifier": None}, 400, "validation_error"),
        ({"code": "123456:wrong-token-wrong-token-wrong"}, 400, "provider_auth_failed"),
        ({"code": "not a token"}, 400, "provider_auth_failed"),
        ({"identifier": "@nowhere"}, 400, "telegram_chat_not_found"),
        ({"identifier": "4242"}, 400, "telegram_chat_not_found"),  # a person's chat
        ({"identifier": "@ada_news"}, 400, "telegram_bot_not_admin"),  # the bot left it
    ],
)
def test_a_refused_connection_names_why_and_stores_nothing(
    ada_client, telegram, body, status, code
):
    request = {"provider": "telegram", "code": TELEGRAM_TOKEN, "identifier": "@ada_designs"}
    request.update(body)
    response = ada_client.post(
        "/api/social/connect", {k: v for k, v in request.items() if v is not None}, format="json"
    )
    assert (response.status_code, response.json()["error"]["code"]) == (status, code)
    if body == {"identifier": None}:
        assert "identifier" in response.json()["error"]["details"]
    assert not SocialAccount.objects.exists()
    if body.get("code") == "not a token":
        assert telegram.calls == []  # never put in a URL's path


def test_a_channel_where_the_bot_may_not_post_is_refused(ada_client, telegram):
    telegram.members[CHANNEL_ID] = {"status": "administrator", "can_post_messages": False}
    response = connect(ada_client, "telegram")
    assert (response.status_code, response.json()["error"]["code"]) == (
        400, "telegram_bot_not_admin",
    )  # fmt: skip
    assert not SocialAccount.objects.exists()


def test_the_same_chat_connected_by_another_user_is_409(ada_client, bob_client, account):
    response = connect(bob_client, "telegram")
    assert (response.status_code, response.json()["error"]["code"]) == (
        409, "account_already_connected",
    )  # fmt: skip


def test_the_bot_token_is_redacted_from_log_lines():
    line = f"telegram: POST https://api.telegram.org/bot{TELEGRAM_TOKEN}/sendMessage failed"
    assert SECRET not in logs.redact(line)
    assert "/bot7000000001:[redacted]/sendMessage" in logs.redact(line)


# --- The platforms list, limits and options ----------------------------------------------------


def test_the_platforms_list_and_every_refusal_names_the_field(ada_client, account, telegram):
    (entry,) = [p for p in ada_client.get("/api/social/platforms").json()["data"]
                if p["provider"] == "telegram"]  # fmt: skip
    assert (entry["connectMethod"], entry["configured"]) == ("api_key", True)
    assert entry["limits"] == {"maxCharacters": 4096, "countsBy": "characters", "maxMedia": 10,
                               "mediaRequired": False, "maxHashtags": None,
                               "titleRequired": False, "maxTitle": None}  # fmt: skip
    assert entry["capabilities"] == {
        "text": True, "links": True, "images": True, "maxImages": 10, "altText": False,
        "video": True, "documents": False, "carousel": True, "threads": True,
        "firstComment": True, "title": False,
        "options": [{"name": "disableLinkPreview", "type": "bool"},
                    {"name": "disableNotification", "type": "bool"},
                    {"name": "protectContent", "type": "bool"}],
    }  # fmt: skip
    cases: list[tuple[dict[str, Any], str]] = [
        ({"content": "x" * 4097}, "content"),
        ({"content": "Hi", "thread": [{"content": "y" * 4097}]}, "thread[0].content"),
        ({"variants": {"telegram": {"options": {"pinned": True}}}},
         "variants.telegram.options.pinned"),
        ({"variants": {"telegram": {"options": {"disableLinkPreview": "yes"}}}},
         "variants.telegram.options.disableLinkPreview"),
    ]  # fmt: skip
    for body, field in cases:
        response = publish_request(ada_client, account, **body)
        assert response.status_code == 400, (body, response.content)
        assert field in str(response.json()["error"]["details"]), (body, response.content)
    preview = ada_client.post(
        "/api/social/preview",
        {"content": "x" * 4097, "accountIds": [account["id"]],
         "variants": {"telegram": {"options": {"protectContent": 1}}}},
        format="json",
    ).json()["data"][0]  # fmt: skip
    assert preview["counts"] == {"used": 4097, "limit": 4096, "countsBy": "characters"}
    assert sorted(p["field"] for p in preview["problems"]) == [
        "content", "variants.telegram.options.protectContent",
    ]  # fmt: skip
    assert telegram.posts == []
    assert ScheduledRecord.objects.count() == 0


def test_with_media_the_caption_is_at_most_1024_characters(ada_client, account, providers):
    photo = image(ada_client, providers.image())
    response = publish_request(ada_client, account, content="c" * 1025, mediaIds=[photo])
    assert response.status_code == 400
    (target,) = response.json()["error"]["details"]["targets"]
    assert (target["field"], "1024" in target["message"]) == ("content", True)
    preview = ada_client.post(
        "/api/social/preview",
        {"content": "c" * 1024, "mediaIds": [photo], "accountIds": [account["id"]]},
        format="json",
    ).json()["data"][0]
    assert preview["valid"] is True
    assert providers.telegram.posts == []


# --- Publishing ---------------------------------------------------------------------------------


def test_a_text_is_sent_as_typed_with_the_options(ada_client, account, telegram):
    options = {"disableLinkPreview": True, "disableNotification": True, "protectContent": True}
    done = published(ada_client, account, content="Ship *it* https://example.com #launch",
                     variants={"telegram": {"options": options}})  # fmt: skip
    (call,) = sends(telegram, "sendMessage")
    assert call.body == {
        "chat_id": str(CHANNEL_ID), "text": "Ship *it* https://example.com #launch",
        "link_preview_options": {"is_disabled": True}, "disable_notification": True,
        "protect_content": True,
    }  # fmt: skip
    (post,) = telegram.posts
    assert done["providerPostId"] == str(post["message_id"])
    assert done["url"] == f"https://t.me/ada_designs/{post['message_id']}"


def test_one_image_is_uploaded_as_bytes_without_its_alt_text(
    ada_client, account, telegram, providers
):
    photo = image(ada_client, providers.image(), alt="A red launch button")
    published(ada_client, account, content="Launch", mediaIds=[photo])
    (call,) = sends(telegram, "sendPhoto")
    assert call.body["photo"][:2] == b"\xff\xd8"  # the JPEG's bytes, not its URL
    assert (call.body["caption"], call.body["chat_id"]) == (b"Launch", str(CHANNEL_ID).encode())
    assert b"red launch" not in b"".join(v for v in call.body.values() if isinstance(v, bytes))


def test_two_to_ten_images_are_one_media_group_captioned_once(
    ada_client, account, telegram, providers
):
    photos = [image(ada_client, providers.image(f"{n}.jpg")) for n in range(3)]
    done = published(ada_client, account, content="Three shots", mediaIds=photos)
    (call,) = sends(telegram, "sendMediaGroup")
    media = json.loads(call.body["media"])
    assert media == [
        {"type": "photo", "media": "attach://photo0", "caption": "Three shots"},
        {"type": "photo", "media": "attach://photo1"},
        {"type": "photo", "media": "attach://photo2"},
    ]
    assert {"photo0", "photo1", "photo2"} <= set(call.body)
    assert len(telegram.posts) == 3
    assert done["providerPostId"] == str(telegram.posts[0]["message_id"])


def test_a_video_is_sent_with_its_message_nothing_to_await(ada_client, account, telegram):
    response = upload(ada_client, mp4(seconds=6.0))
    assert response.status_code == 200, response.content
    video = response.json()["data"]["id"]
    published(ada_client, account, content="Our film", mediaIds=[video])
    (call,) = sends(telegram, "sendVideo")
    assert call.body["video"][4:8] == b"ftyp"
    assert (call.body["supports_streaming"], call.body["duration"]) == (b"true", b"6")
    assert telegram.posts[0]["video"] > 0


def test_a_thread_and_a_first_comment_reply_each_to_the_message_before(
    client, ada_client, accounts, telegram
):
    (record_id,) = schedule(
        ada_client, accounts, "telegram", content="One",
        thread=[{"content": "Two"}, {"content": "Three"}], firstComment="Questions welcome",
    )  # fmt: skip
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    posts = telegram.posts
    assert [p.get("text") for p in posts] == ["One", "Two", "Three", "Questions welcome"]
    ids = [p["message_id"] for p in posts]
    assert [p["reply_to"] for p in posts] == [None, ids[0], ids[1], ids[0]]
    record = ScheduledRecord.objects.get(pk=record_id)
    assert [(p["kind"], p["providerPostId"]) for p in record.parts] == [
        ("post", str(ids[0])), ("reply", str(ids[1])), ("reply", str(ids[2])),
        ("comment", str(ids[3])),
    ]  # fmt: skip


def test_links_of_a_private_channel_are_members_only_and_a_group_has_none(
    ada_client, bob_client, telegram
):
    private = connect(ada_client, "telegram", identifier=str(PRIVATE_CHANNEL_ID)).json()["data"]
    assert private["username"] == ""
    done = published(ada_client, private)
    assert done["url"] == f"https://t.me/c/9876543210/{telegram.posts[-1]['message_id']}"
    group = connect(ada_client, "telegram", identifier=str(GROUP_ID)).json()["data"]
    done = published(ada_client, group)
    assert done["url"] in ("", None)


# --- Exactly once, retries and refusals ---------------------------------------------------------


def test_a_lost_answer_is_unconfirmed_at_once_never_resent_until_the_user_says(
    client, ada_client, accounts, telegram, settings
):
    settings.SOCIAL_HTTP_TIMEOUT_SECONDS = 0.5
    (record_id,) = schedule(ada_client, accounts, "telegram", content="Once")
    telegram.fail, telegram.hang = "timeout", 0.8
    result = run(client).json()["data"]["results"][0]
    assert result["status"] == "Unconfirmed"
    assert telegram.wait_idle()
    telegram.fail = ""
    make_due([record_id])
    assert run(client).json()["data"]["results"] == []
    assert len(telegram.posts) == 1  # sent once, during the lost answer
    detail = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]
    assert detail["error"]["category"] == "unconfirmed"
    # The user does not see it: retry sends it again (nothing can be looked up).
    resolved = ada_client.post(
        f"/api/social/schedule/{record_id}/resolve", {"action": "retry"}, format="json"
    )
    assert resolved.status_code == 200, resolved.content
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    assert len(telegram.posts) == 2


def test_a_lost_reply_is_not_resent_the_post_stays_published_with_a_warning(
    client, ada_client, accounts, telegram
):
    gateway: tuple[int, Any, dict[str, str]] = (
        504,
        b"<html>504 Gateway Time-out</html>",
        {},
    )  # not the Bot API's answer
    telegram.acted.append(("POST", r"/bot[^/]*/sendMessage", gateway, "Two"))
    (record_id,) = schedule(ada_client, accounts, "telegram", content="One",
                            thread=[{"content": "Two"}, {"content": "Three"}])  # fmt: skip
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    record = ScheduledRecord.objects.get(pk=record_id)
    assert [w["code"] for w in record.warnings] == ["thread_incomplete"]
    assert record.next_attempt_at is None
    assert [p.get("text") for p in telegram.posts] == ["One", "Two"]  # Three never guessed


def test_what_telegram_refused_before_sending_is_retried(client, ada_client, accounts, telegram):
    (record_id,) = schedule(ada_client, accounts, "telegram", content="Later")
    telegram.fail = "busy"  # 429, retry after 30 seconds
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Scheduled", "retry_scheduled")
    record = ScheduledRecord.objects.get(pk=record_id)
    assert record.next_attempt_at is not None
    assert record.next_attempt_at >= timezone.now() + timedelta(seconds=29)
    assert (record.outcome_unknown, record.history[-1]["category"]) == (False, "rate_limited")
    telegram.fail = "down"  # 502 from the Bot API: nothing sent
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Scheduled"
    assert ScheduledRecord.objects.get(pk=record_id).history[-1]["category"] == "platform_outage"
    telegram.fail = ""
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    assert len(telegram.posts) == 1


def test_a_kicked_bot_fails_as_a_permission_the_account_stays_connected(
    client, ada_client, accounts, telegram
):
    (record_id,) = schedule(ada_client, accounts, "telegram")
    telegram.members[CHANNEL_ID] = {"status": "kicked"}
    assert run(client).json()["data"]["results"][0]["status"] == "Failed"
    error = ada_client.get(f"/api/social/schedule/{record_id}").json()["data"]["error"]
    assert error["category"] == "permission_missing"
    assert error["platform"]["message"] == "Forbidden: bot is not a member of the channel chat"
    assert "administrator" in error["remedy"]
    assert SocialAccount.objects.get(pk=accounts["telegram"]["id"]).status == "connected"


def test_a_revoked_token_expires_the_account(client, ada_client, accounts, telegram):
    schedule(ada_client, accounts, "telegram")
    telegram.expired = True
    result = run(client).json()["data"]["results"][0]
    assert (result["status"], result["error"]["code"]) == ("Failed", "account_expired")
    assert SocialAccount.objects.get(pk=accounts["telegram"]["id"]).status == "expired"


def test_a_group_upgraded_to_a_supergroup_is_followed(ada_client, telegram):
    group = connect(ada_client, "telegram", identifier=str(GROUP_ID)).json()["data"]
    telegram.migrated[GROUP_ID] = SUPERGROUP_ID
    done = published(ada_client, group, content="Moved")
    chats = [call.body["chat_id"] for call in sends(telegram, "sendMessage")]
    assert chats == [str(GROUP_ID), str(SUPERGROUP_ID)]
    assert done["url"] == f"https://t.me/c/5550000001/{telegram.posts[0]['message_id']}"
    from social.connections.services.credentials import credentials_of

    stored = SocialAccount.objects.get(pk=group["id"])
    assert bot_of(credentials_of(stored)).chat == str(SUPERGROUP_ID)
    published(ada_client, group, content="Again")
    assert sends(telegram, "sendMessage")[-1].body["chat_id"] == str(SUPERGROUP_ID)


# --- Health, pre-flight, caps, queue, analytics ----------------------------------------------


def test_a_bot_that_lost_its_rights_is_an_account_problem_before_any_post_fails(
    ada_client, account, telegram
):
    health = ada_client.get(f"/api/social/accounts/{account['id']}/health").json()["data"]
    assert (health["status"], health["reachable"], health["problems"]) == ("connected", True, [])
    assert (health["dailyCap"], health["tokenExpiresAt"], health["renewable"]) == (
        None, None, True,
    )  # fmt: skip
    schedule_later(ada_client, account, 3, content="Tomorrow")
    telegram.members[CHANNEL_ID] = {"status": "administrator", "can_post_messages": False}
    assert preflight_run_task.delay().get() == {"checked": 1, "announced": 1}
    (risk,) = [e.data for e in OutboxEvent.objects.filter(event="post.at_risk")]
    (problem,) = risk["problems"]
    assert problem["code"] == "telegram_bot_not_admin"
    assert "administrator" in problem["remedy"]
    assert telegram.posts == []
    from social.models import AccountHealth

    AccountHealth.objects.all().delete()
    health = ada_client.get(f"/api/social/accounts/{account['id']}/health").json()["data"]
    assert [p["code"] for p in health["problems"]] == ["telegram_bot_not_admin"]
    assert health["status"] == "connected"  # nothing to reconnect: the right to restore
    telegram.members[CHANNEL_ID] = {"status": "kicked"}  # getChat now refuses the bot
    AccountHealth.objects.all().delete()
    health = ada_client.get(f"/api/social/accounts/{account['id']}/health").json()["data"]
    assert [p["code"] for p in health["problems"]] == ["telegram_bot_not_admin"]


def test_no_daily_cap_unless_an_operator_sets_one_then_it_defers(
    client, ada_client, accounts, telegram, settings
):
    settings.SOCIAL_DAILY_CAPS = {"telegram": 1}
    first, second = (schedule(ada_client, accounts, "telegram", content=text)[0]
                     for text in ("First", "Second"))  # fmt: skip
    make_due([first, second])
    run(client)
    records = ScheduledRecord.objects.filter(pk__in=[first, second])
    assert sorted((r.status, r.error_code) for r in records) == [
        ("Published", ""), ("Scheduled", "daily_cap_reached"),
    ]  # fmt: skip
    assert len(telegram.posts) == 1


def test_the_queue_takes_a_telegram_post_and_no_counters_are_collected(
    client, ada_client, account, telegram
):
    slots = [{"day": day, "time": "09:00"} for day in ("mon", "tue", "wed", "thu", "fri")]
    queue = ada_client.put(f"/api/social/queue/{account['id']}",
                           {"timezone": "UTC", "slots": slots}, format="json")  # fmt: skip
    assert queue.status_code == 200, queue.content
    queued = ada_client.post(
        "/api/social/queue", {"content": "Queued", "accountIds": [account["id"]]}, format="json"
    )
    assert queued.status_code == 200, queued.content
    (record_id,) = [r["id"] for r in queued.json()["data"]["scheduledRecords"]]
    assert ScheduledRecord.objects.get(pk=record_id).queued is True
    make_due([record_id])
    assert run(client).json()["data"]["results"][0]["status"] == "Published"
    from social.tasks import metrics_collect_task

    assert metrics_collect_task.delay().get() == {"records": 0}
    assert AnalyticsRecord.objects.count() == 0


def test_disconnecting_revokes_nothing_and_forgets_the_token(ada_client, account, telegram):
    calls = len(telegram.calls)
    gone = ada_client.post("/api/social/disconnect", {"accountId": account["id"]}, format="json")
    assert gone.status_code == 200
    assert len(telegram.calls) == calls
    assert not SocialAccount.objects.get(pk=account["id"]).access_token
