"""An end-to-end check of outcomes users can act on (social.md section 12), through HTTP against
a server started the way a newcomer starts it.

Run by `pytest -m e2e` (.ci/run does), against `make run` on a database of its own.

It starts the six platforms' stand-ins (tests/social/standins.py) and a webhook receiver on
127.0.0.1, then `make run` pointed at them, with the pre-flight every few seconds, and
checks, printing one line each: a user signs up, subscribes a webhook endpoint to every event,
opens a live-feed stream and connects LinkedIn, Instagram, Mastodon and Dev.to; LinkedIn
revokes the token after a post is scheduled, and the pre-flight finds it before the post is
due (a notification, a `post.at_risk` webhook and live-feed event naming the record, the
health check saying so); the user reconnects and the post publishes on time; an Instagram
account at its daily cap (25 published) defers the 26th post to the next day without calling
Instagram; the receiver goes offline; a Mastodon post fails on a revoked token, the user
reconnects and retries by filter, and it publishes; a Dev.to post whose answer is lost ends
Unconfirmed and the user resolves it as published; the receiver comes back and rebuilds what
it missed from `GET /api/events` after the last webhook it had, which the live feed's id
resumes to the same events. Exits non-zero on the first failed check; stops the server
either way.
"""

import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.e2e.checks import (
    Check,
    Receiver,
    Stream,
    against_server,
    call,
    connect,
    sign_up,
    standin_settings,
    wait_record,
)
from tests.harness import free_port
from tests.social.standins import Providers, provider_standins

PREFLIGHT_SECONDS = 3  # the pre-flight's period in this check (600 by default)
ON_TIME_SECONDS = 1.5  # what the scheduler promises (1 s), and a little for the clocks
IG_USER = "17841400000000001"
EVERY_EVENT = [
    "post.published", "post.failed", "post.scheduled", "post.created", "post.updated",
    "post.deleted", "post.partially_published", "post.unconfirmed", "schedule.moved",
    "schedule.cancelled", "account.connected", "account.expiring", "account.expired",
    "account.reconnected", "post.at_risk",
]  # fmt: skip
check = Check("outcomes")


def moment(value: str) -> datetime:
    return datetime.fromisoformat(value.replace("Z", "+00:00"))


def schedule(base: str, token: str, account: str, seconds: float, **body: Any) -> tuple[str, str]:
    """Schedule a post `seconds` ahead to one account: (record id, scheduled time)."""
    when = (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()
    status, done = call(
        base, "POST", "/api/social/schedule",
        {"content": body.pop("content", "Launch day"), "scheduledTime": when,
         "accountIds": [account], **body},
        token,
    )  # fmt: skip
    check(status == 200, f"a post scheduled {seconds:g} s ahead", done)
    record = done["data"]["scheduledRecords"][0]
    return record["id"], record["scheduled_time"]


def walk(base: str, providers: Providers, receiver: Receiver) -> None:
    login = sign_up(base, check)
    token = login["token"]
    status, endpoint = call(
        base, "POST", "/api/webhooks/endpoints", {"url": receiver.url, "events": EVERY_EVENT},
        token,
    )  # fmt: skip
    check(status == 200, "a webhook endpoint takes every event, the lifecycle's too", endpoint)
    status, ticket = call(base, "POST", "/api/events/ticket", token=token)
    check(status == 200, "a live-feed ticket is issued", ticket)
    stream = Stream(f"{base}/api/events/stream?ticket={ticket['data']['ticket']}")
    accounts = {p: connect(base, token, p, providers, check)
                for p in ("linkedin", "instagram", "mastodon", "devto")}  # fmt: skip

    # 1. A revoked token, found by the pre-flight before the post is due.
    providers.linkedin.expired = True
    record_id, scheduled = schedule(base, token, accounts["linkedin"], 45)
    risk = receiver.wait(lambda d: d["event"] == "post.at_risk", 6 * PREFLIGHT_SECONDS)
    check(
        risk
        and risk["data"]["accountId"] == accounts["linkedin"]
        and [r["recordId"] for r in risk["data"]["records"]] == [record_id]
        and risk["data"]["problems"][0]["code"] == "account_expired",
        "the pre-flight finds the revoked token: post.at_risk names the record (webhook)",
        risk,
    )
    check(datetime.now(UTC) < moment(scheduled), "...before the post is due", scheduled)
    live = stream.wait(lambda kind, data: kind == "post.at_risk", 5)
    check(live and live.data["data"]["records"][0]["recordId"] == record_id,
          "...on the live feed", live)  # fmt: skip
    status, notices = call(base, "GET", "/api/notifications", token=token)
    risky = [n for n in notices.get("data") or [] if n["type"] == "post_at_risk"]
    check(risky and risky[0]["metadata"]["recordIds"] == [record_id],
          "...and as a notification", risky)  # fmt: skip
    status, health = call(
        base, "GET", f"/api/social/accounts/{accounts['linkedin']}/health", token=token
    )
    check(
        status == 200 and health["data"]["status"] == "expired" and health["data"]["problems"],
        "the account's health says expired, with what to do",
        health,
    )
    providers.linkedin.expired = False
    connect(base, token, "linkedin", providers, check)
    again = receiver.wait(lambda d: d["event"] == "account.reconnected", 10)
    check(again, "the user reconnects (account.reconnected)", again)
    done = wait_record(base, token, record_id, lambda r: r["status"] == "Published", 60)
    late = (moment(done["published_at"]) - moment(done["scheduled_time"])).total_seconds()
    check(
        done["status"] == "Published" and late <= ON_TIME_SECONDS,
        f"the post publishes on time ({late:.2f} s after its time)",
        done,
    )

    # 2. Instagram's daily cap: the 26th post waits for the next day.
    answers = [
        call(
            base, "POST", "/api/social/publish",
            {"content": f"Photo of the day {number}", "mediaUrls": [providers.image()],
             "accountIds": [accounts["instagram"]]},
            token,
        )
        for number in range(25)
    ]  # fmt: skip
    check(
        all(status == 200 and body["data"][0]["success"] for status, body in answers),
        "25 posts published now on Instagram",
        [body for status, body in answers if status != 200 or not body["data"][0]["success"]],
    )
    calls = len(providers.meta.received("POST", f"/v24.0/{IG_USER}/media_publish"))
    check(calls == 25, "25 posts published on Instagram today", calls)
    twenty_sixth, _ = schedule(
        base, token, accounts["instagram"], 2, mediaUrls=[providers.image()], content="26th"
    )
    waiting = wait_record(
        base, token, twenty_sixth, lambda r: bool(r["history"]) or r["status"] != "Scheduled", 20
    )
    error = waiting.get("error") or {}
    retry_at = moment(error.get("retryAt") or "1970-01-01T00:00:00Z")
    check(
        waiting["status"] == "Scheduled"
        and (error.get("code"), error.get("category")) == ("daily_cap_reached", "account_limit")
        and retry_at > datetime.now(UTC) + timedelta(hours=23)
        and [h["outcome"] for h in waiting["history"]] == ["deferred"],
        f"the 26th post is deferred to the next day ({error.get('retryAt')}), not attempted",
        waiting,
    )
    check(
        len(providers.meta.received("POST", f"/v24.0/{IG_USER}/media_publish")) == 25,
        "...and Instagram was never asked to publish it",
    )

    # The webhook consumer goes offline; what it had last, and the live feed's last id.
    time.sleep(1.0)
    last_webhook = receiver.deliveries[-1].payload["id"]
    last_live = stream.seen[-1].id
    receiver.offline = True
    print(f"outcomes:      the webhook consumer goes offline after {last_webhook}", flush=True)

    # 3. A failed post retried by filter after a reconnect.
    providers.mastodon.expired = True
    masto_record, _ = schedule(base, token, accounts["mastodon"], 2, content="Toot")
    failed = wait_record(base, token, masto_record, lambda r: r["status"] == "Failed", 30)
    check(
        failed["status"] == "Failed" and failed["error"]["category"] == "auth_expired",
        f"a Mastodon post fails: {failed['error'] and failed['error']['remedy']}",
        failed,
    )
    providers.mastodon.expired = False
    connect(base, token, "mastodon", providers, check)
    status, retried = call(
        base, "POST", "/api/social/schedule/retry", {"category": "auth_expired"}, token
    )
    check(
        status == 200 and retried["data"]["retriedCount"] == 1,
        "after a reconnect, retry by filter takes it",
        retried,
    )
    done = wait_record(base, token, masto_record, lambda r: r["status"] == "Published", 30)
    check(done["status"] == "Published", "...and it publishes", done)

    # 4. An Unconfirmed record resolved by the user.
    status, _ = call(base, "PUT", "/api/social/settings", {"autoRetry": False}, token)
    providers.devto.fail, providers.devto.hang = "timeout", 3.0
    status, published = call(
        base, "POST", "/api/social/publish",
        {"title": "Lost answer", "content": "Body", "accountIds": [accounts["devto"]]}, token,
    )  # fmt: skip
    entry = published["data"][0]
    check(
        entry["status"] == "Unconfirmed" and entry["error"]["category"] == "unconfirmed",
        f"a Dev.to answer is lost: Unconfirmed ({entry['error']['remedy']})",
        entry,
    )
    providers.devto.wait_idle()
    providers.devto.fail = ""
    url = providers.devto.posts[-1]["url"]
    status, resolved = call(
        base, "POST", f"/api/social/schedule/{entry['recordId']}/resolve",
        {"action": "published", "url": url}, token,
    )  # fmt: skip
    check(
        status == 200 and resolved["data"]["status"] == "Published"
        and resolved["data"]["url"] == url,
        "the user saw it there and resolves it as published",
        resolved,
    )  # fmt: skip
    status, twice = call(
        base, "POST", f"/api/social/schedule/{entry['recordId']}/resolve",
        {"action": "published", "url": url}, token,
    )  # fmt: skip
    check(status == 409, "a second resolution is refused (409)", twice)
    call(base, "PUT", "/api/social/settings", {"autoRetry": True}, token)

    # 5. The consumer comes back and rebuilds its state from the replay.
    time.sleep(3.0)  # the replay holds back its newest 2 seconds
    missed: list[dict[str, Any]] = []
    cursor = last_webhook
    while True:
        status, page = call(base, "GET", f"/api/events?after={cursor}&limit=5", token=token)
        check(status == 200, "the replay answers", page)
        missed.extend(page["data"])
        cursor = page["meta"]["nextCursor"]
        if not page["meta"]["hasMore"]:
            break
    types = [event["type"] for event in missed]
    expected = ["post.failed", "account.expired", "account.reconnected", "post.scheduled",
                "post.published", "post.unconfirmed"]  # fmt: skip
    check(
        all(name in types for name in expected),
        f"the consumer rebuilds what it missed from /api/events ({len(missed)} events)",
        types,
    )
    status, deliveries = call(base, "GET", "/api/webhooks/deliveries?limit=100", token=token)
    undelivered = {d["eventId"] for d in deliveries["data"] if d["status"] != "succeeded"}
    check(
        undelivered and undelivered <= {event["eventId"] for event in missed},
        f"...every delivery it missed is there ({len(undelivered)})",
        undelivered,
    )
    status, by_live_id = call(base, "GET", f"/api/events?after={last_live}&limit=500", token=token)
    ids = [event["eventId"] for event in by_live_id["data"]]
    check(
        ids and [event["eventId"] for event in missed][-len(ids) :] == ids,
        "...and the live feed's last id resumes to the same events, under the same ids",
        (len(ids), len(missed)),
    )
    stream.close()


@pytest.mark.e2e
@pytest.mark.server
def test_outcomes(services: dict[str, str]) -> None:
    port, command = free_port(), ["make", "run"]
    receiver = Receiver()
    with provider_standins() as providers:
        env = {
            **services,
            **standin_settings(providers),  # the receiver is on loopback too
            "PREFLIGHT_INTERVAL_SECONDS": str(PREFLIGHT_SECONDS),
            # One address makes every request of this walk: more than the default 100 a minute.
            "RATE_LIMIT_PER_MINUTE": "1000",
        }
        against_server(command, port, env, check, lambda base: walk(base, providers, receiver))
