"""An end-to-end check of the social hub, the scheduler, outgoing webhooks and the live feed,
through HTTP against a server started the way a newcomer starts it.

Run by `pytest -m e2e` (.ci/run does), against `make run` on a database of its own.

It starts a Dev.to stand-in (tests/social/standins.py, stdlib only) and a webhook receiver on
127.0.0.1, then `make run` with DEVTO_API_URL, PAYMENT_WEBHOOK_SECRET and
OUTBOUND_ALLOW_PRIVATE (the receiver is on loopback) set, and checks, printing one line each:
a user signs up; a webhook endpoint is created; a live-feed stream opens with a ticket; an AI
call moves the credits (`credits` on the stream) and sends `generation.completed`; a payment
webhook creates a notification (`notification` on the stream); a Dev.to account connects; a
post scheduled a few seconds ahead reaches the platform within a second of its time, by the
worker's timer, without anyone calling the scheduler (`post` events on the stream,
`post.scheduled` and `post.published` delivered); spending the
rest of the credits sends `credits.depleted`; every delivery verifies as docs/webhooks.md
tells a receiver; a reconnect with Last-Event-ID receives what it missed. Exits non-zero on
the first failed check; stops the server either way.
"""

import base64
import hashlib
import hmac
import json
import secrets
import time
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from tests.e2e.checks import Check, Receiver, Stream, against_server, call, sign_up
from tests.harness import free_port
from tests.social.standins import DEVTO_KEY, DevtoStandIn, serve

FEED_SECONDS = 1.0  # what the issue asks of the live feed


check = Check("e2e")


def verified(secret: str, headers: dict[str, str], body: bytes) -> bool:
    """The receiver's check from docs/webhooks.md: Standard Webhooks and X-Service-Signature."""
    key = base64.b64decode(secret.removeprefix("whsec_"))
    signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
    expected = base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
    standard = any(
        hmac.compare_digest(part.split(",", 1)[1], expected)
        for part in headers["webhook-signature"].split()
    )
    legacy = hmac.compare_digest(
        hmac.new(secret.encode(), body, hashlib.sha256).hexdigest(),
        headers.get("x-service-signature", ""),
    )
    return standard and legacy and json.loads(body)["id"] == headers["webhook-id"]


def walk(base: str, receiver: Receiver, devto: Any, payment_secret: str) -> None:
    login = sign_up(base, check)
    token, user_id = login["token"], login["user"]["id"]

    events = ["generation.completed", "credits.depleted", "post.scheduled", "post.published"]
    status, endpoint = call(
        base, "POST", "/api/webhooks/endpoints", {"url": receiver.url, "events": events}, token
    )
    check(status == 200, "a webhook endpoint is created, its secret shown once", endpoint)
    secret = endpoint["data"]["secret"]

    status, ticket = call(base, "POST", "/api/events/ticket", token=token)
    check(status == 200, "a live-feed ticket is issued", ticket)
    stream = Stream(f"{base}/api/events/stream?ticket={ticket['data']['ticket']}")
    time.sleep(1.0)  # the server process's listener is up

    began = time.monotonic()
    status, generated = call(
        base,
        "POST",
        "/api/proposal/generate",
        {"jobDescription": "A Django API for a bakery's orders."},
        token,
    )
    check(status == 200, "an AI call completes", generated)
    credits = stream.wait(lambda kind, data: kind == "credits", 5)
    check(
        credits and credits.arrived - began < FEED_SECONDS + 5,
        f"the stream has the credit change ({credits.data if credits else None})",
        credits,
    )
    check(
        receiver.wait(lambda d: d["event"] == "generation.completed", 15),
        "generation.completed is delivered",
        receiver.events(),
    )

    payment = {
        "entity": "event",
        "event": "payment.failed",
        "created_at": int(time.time()),
        "payload": {
            "payment": {
                "entity": {
                    "id": "pay_e2e_1",
                    "notes": {"user_id": user_id},
                    "error_code": "BAD_REQUEST_ERROR",
                    "error_description": "Card declined",
                }
            }
        },
    }
    raw = json.dumps(payment).encode()
    signature = hmac.new(payment_secret.encode(), raw, hashlib.sha256).hexdigest()
    sent = time.monotonic()
    status, _ = call(
        base, "POST", "/api/webhooks/payment", raw=raw, headers={"X-Payment-Signature": signature}
    )
    check(status == 200, "a payment webhook is accepted", status)
    notice = stream.wait(lambda kind, data: kind == "notification", 5)
    check(
        notice and notice.arrived - sent < FEED_SECONDS,
        f"the stream has its notification within {FEED_SECONDS:g} s "
        f"({(notice.arrived - sent) * 1000 if notice else 0:.0f} ms)",
        notice,
    )
    assert notice is not None
    last_seen = notice.id

    status, account = call(
        base, "POST", "/api/social/connect", {"provider": "devto", "code": DEVTO_KEY}, token
    )
    check(status == 200, "a Dev.to account connects (the stand-in)", account)
    due = datetime.now(UTC) + timedelta(seconds=5)
    status, scheduled = call(
        base,
        "POST",
        "/api/social/schedule",
        {
            "title": "End to end",
            "content": "Scheduled by the end-to-end check #e2e",
            "scheduledTime": due.isoformat(),
            "accountIds": [account["data"]["id"]],
        },
        token,
    )
    check(status == 200, "a post is scheduled 5 s ahead", scheduled)
    published = stream.wait(lambda kind, data: kind == "post" and data["status"] == "Published", 40)
    check(published, "the scheduler published it: the stream shows Published", published)
    assert published is not None
    record = published.data["scheduledRecords"][0]
    at = datetime.fromisoformat(record["published_at"].replace("Z", "+00:00"))
    lag = datetime.now(UTC) - at
    check(
        lag < timedelta(seconds=FEED_SECONDS + 1),
        f"the stream had it {lag.total_seconds() * 1000:.0f} ms after publishing",
        record,
    )
    check(
        len(devto.posts) == 1 and record["url"],
        "the stand-in got one post, with its URL",
        devto.posts,
    )
    (create,) = devto.received("POST", "/api/articles")
    late = create.received_at - due.timestamp()
    check(
        0 <= late < 1.0,
        f"the platform had it {late * 1000:.0f} ms after its time (the timer; beat runs every "
        "10 s)",
        late,
    )
    delivered = receiver.wait(lambda d: d["event"] == "post.published", 15)
    check(
        delivered and "post.scheduled" in receiver.events(),
        "post.scheduled and post.published are delivered",
        receiver.events(),
    )

    for _ in range(100):  # spend what is left
        status, answer = call(
            base,
            "POST",
            "/api/proposal/generate",
            {"jobDescription": "Another one, to use the credits up."},
            token,
        )
        if status != 200:
            break
    check(status == 402, "credits run out (402)", answer)
    check(
        receiver.wait(lambda d: d["event"] == "credits.depleted", 15),
        "credits.depleted is delivered",
        receiver.events(),
    )
    bad = [body for headers, body in receiver.deliveries if not verified(secret, headers, body)]
    check(
        not bad,
        f"all {len(receiver.deliveries)} deliveries verify (Standard Webhooks and "
        "X-Service-Signature)",
        bad[:1],
    )

    stream.close()
    payment["payload"]["payment"]["entity"]["id"] = "pay_e2e_2"  # type: ignore[index]
    raw = json.dumps(payment).encode()
    signature = hmac.new(payment_secret.encode(), raw, hashlib.sha256).hexdigest()
    call(base, "POST", "/api/webhooks/payment", raw=raw, headers={"X-Payment-Signature": signature})
    status, ticket = call(base, "POST", "/api/events/ticket", token=token)
    resumed = Stream(
        f"{base}/api/events/stream?ticket={ticket['data']['ticket']}&lastEventId={last_seen}"
    )
    missed = resumed.wait(lambda kind, data: kind == "notification", 5)
    check(
        missed and missed.id > last_seen,
        "a reconnect with Last-Event-ID gets what it missed",
        missed,
    )
    resumed.close()


@pytest.mark.e2e
@pytest.mark.server
def test_product(services: dict[str, str]) -> None:
    port, command = free_port(), ["make", "run"]
    receiver = Receiver()
    payment_secret = secrets.token_hex(16)
    with serve(DevtoStandIn()) as devto:
        env = {
            **services,
            "DEVTO_API_URL": f"{devto.url}/api",
            "PAYMENT_WEBHOOK_SECRET": payment_secret,
            "OUTBOUND_ALLOW_PRIVATE": "true",
        }
        against_server(command, port, env, check,
                       lambda base: walk(base, receiver, devto, payment_secret))  # fmt: skip
