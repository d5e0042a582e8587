"""The event channel: what happened, recorded once by the app it happened in, and handed to
every consumer (docs/events.md).

Each event's data shape is written once, here, as a TypedDict (the public ones with the field
names of the specification, social.md section 7), built by one function with typed keyword
arguments. An emitter (billing, aitools, the social hub, the notification center) calls the
builder and hands its `Payload` to `emit` (or `emit_many`), in the transaction of the change
the event describes; that one call is all it writes. Then:

1. the channel's subscribers run at once, in that transaction (`subscribe`): the notification
   each app writes for its own events, the live feed's row; a rollback takes them too;
2. a public event (one of EVENTS, those webhooks carry) is recorded in the outbox, and the
   dispatcher fans it out to the outbox's consumers once the transaction commits
   (notifications/services/outbox.py: the webhooks, retried, never lost).

`Payload.context` carries what the in-transaction subscribers need beyond the public data (the
user's notification preference, a tool's label); it is never stored or sent.
"""

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypedDict, overload

from django.utils import timezone

from accounts.models import User
from core.tasks import enqueue_on_commit
from core.times import iso
from notifications.models import OutboxEvent
from notifications.services.outbox import DISPATCH_BATCH, outbox_wanted


@dataclass(frozen=True, slots=True)
class Payload:
    event: str
    data: dict[str, Any]
    context: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Public(Payload):
    """An event webhooks carry (EVENTS): recorded in the outbox as well."""


class PostPublishedData(TypedDict):
    postId: str
    recordId: str
    accountId: str
    platform: str
    postUrl: str
    providerPostId: str
    publishedAt: str
    parts: list[dict[str, Any]]


def post_published(
    *,
    post_id: str,
    record_id: str,
    account_id: str,
    platform: str,
    post_url: str,
    provider_post_id: str,
    published_at: datetime,
    parts: list[dict[str, Any]] | None = None,
    context: dict[str, Any] | None = None,
) -> Public:
    """With each part published (the post, its thread's replies, its first comment: social.md
    section 9)."""
    data: PostPublishedData = {
        "postId": post_id,
        "recordId": record_id,
        "accountId": account_id,
        "platform": platform,
        "postUrl": post_url,
        "providerPostId": provider_post_id,
        "publishedAt": iso(published_at),
        "parts": parts or [],
    }
    return Public("post.published", dict(data), context or {})


class PostFailedData(TypedDict):
    postId: str
    recordId: str
    accountId: str
    platform: str
    error: str
    retryCount: int


def post_failed(
    *,
    post_id: str,
    record_id: str,
    account_id: str,
    platform: str,
    error: str,
    retry_count: int,
    context: dict[str, Any] | None = None,
) -> Public:
    data: PostFailedData = {
        "postId": post_id,
        "recordId": record_id,
        "accountId": account_id,
        "platform": platform,
        "error": error,
        "retryCount": retry_count,
    }
    return Public("post.failed", dict(data), context or {})


class PostScheduledData(TypedDict):
    scheduleId: str
    postId: str
    platforms: list[str]
    accountIds: list[str]
    scheduledAt: str


def post_scheduled(
    *,
    post_id: str,
    platforms: list[str],
    account_ids: list[str],
    scheduled_at: datetime,
) -> Public:
    # Both schedule shapes name the post as the schedule (social.md section 4).
    data: PostScheduledData = {
        "scheduleId": post_id,
        "postId": post_id,
        "platforms": platforms,
        "accountIds": account_ids,
        "scheduledAt": iso(scheduled_at),
    }
    return Public("post.scheduled", dict(data))


class GenerationCompletedData(TypedDict):
    generationId: str
    tool: str
    output: dict[str, Any]
    tokensUsed: int
    durationSeconds: float


def generation_completed(
    *,
    generation_id: str,
    tool: str,
    output: dict[str, Any],
    tokens_used: int,
    seconds: float,
    context: dict[str, Any] | None = None,
) -> Public:
    data: GenerationCompletedData = {
        "generationId": generation_id,
        "tool": tool,
        "output": output,
        "tokensUsed": tokens_used,
        "durationSeconds": round(seconds, 3),
    }
    return Public("generation.completed", dict(data), context or {})


class GenerationFailedData(TypedDict):
    generationId: str
    tool: str
    error: str
    input: dict[str, Any]


def generation_failed(
    *,
    generation_id: str,
    tool: str,
    error: str,
    input_data: dict[str, Any],
    context: dict[str, Any] | None = None,
) -> Public:
    data: GenerationFailedData = {
        "generationId": generation_id,
        "tool": tool,
        "error": error,
        "input": input_data,
    }
    return Public("generation.failed", dict(data), context or {})


class CreditsDepletedData(TypedDict):
    userId: str
    remainingCredits: int


def credits_depleted(*, user_id: str, remaining_credits: int) -> Public:
    data: CreditsDepletedData = {"userId": user_id, "remainingCredits": remaining_credits}
    return Public("credits.depleted", dict(data))


# --- Internal events: consumed in the emitter's transaction, never sent out ------------------


class CreditsChangedData(TypedDict):
    creditsRemaining: int


def credits_changed(*, credits_remaining: int) -> Payload:
    """Every move of a balance (the live feed's `credits` event)."""
    data: CreditsChangedData = {"creditsRemaining": credits_remaining}
    return Payload("credits.changed", dict(data))


class PostChangedData(TypedDict):
    postId: str
    status: str
    scheduledRecords: list[dict[str, Any]]


def post_changed(*, post_id: str, status: str, records: list[dict[str, Any]]) -> Payload:
    """A post's status or one of its records' changed (the live feed's `post` event)."""
    data: PostChangedData = {"postId": post_id, "status": status, "scheduledRecords": records}
    return Payload("post.changed", dict(data))


def notification_created(*, data: dict[str, Any]) -> Payload:
    """A notification was written (the live feed's `notification` event): its API shape."""
    return Payload("notification.created", data)


# The specification's outgoing webhook events: exactly the public builders above.
EVENTS = frozenset(
    {
        "post.published",
        "post.failed",
        "post.scheduled",
        "generation.completed",
        "generation.failed",
        "credits.depleted",
    }
)
INTERNAL_EVENTS = frozenset({"credits.changed", "post.changed", "notification.created"})

Emitted = tuple[Any, Payload]  # (user id, payload)
Subscriber = Callable[[list[Emitted]], object]

_subscribers: dict[str, list[Subscriber]] = {}


def subscribe(event: str, handler: Subscriber) -> None:
    """Run `handler(emitted)` in the emitter's transaction for every emit of `event` (a batch
    of (user id, payload) at a time); registered from an app's AppConfig.ready()."""
    if event not in EVENTS | INTERNAL_EVENTS:
        raise ValueError(f"Unknown event {event!r}")
    handlers = _subscribers.setdefault(event, [])
    if handler not in handlers:
        handlers.append(handler)


@overload
def emit(*, user: User | Any, payload: Public) -> OutboxEvent: ...
@overload
def emit(*, user: User | Any, payload: Payload) -> OutboxEvent | None: ...
def emit(*, user: User | Any, payload: Payload) -> OutboxEvent | None:
    """Record one event in the caller's transaction: its subscribers run now, and a public
    event goes to the outbox, dispatched once the transaction commits (its outbox row)."""
    recorded = emit_many(items=[(user.pk if isinstance(user, User) else user, payload)])
    return recorded[0] if recorded else None


def emit_many(*, items: Sequence[Emitted]) -> list[OutboxEvent]:
    """Several events, (user id, payload) each, in the caller's transaction: each event's
    subscribers get theirs in one call; the public ones are recorded in the outbox in one
    INSERT (their rows). One dispatch is queued per DISPATCH_BATCH of those a consumer wants:
    a dispatch pass takes its own event and the oldest others waiting, so these passes take
    them all (and the sweeper would catch one that a concurrent pass left behind); those no
    consumer wants are recorded dispatched already, with nothing queued."""
    from notifications.tasks import outbox_dispatch_task

    by_handler: dict[Subscriber, list[Emitted]] = {}
    for user_id, payload in items:
        if payload.event not in EVENTS | INTERNAL_EVENTS:
            raise ValueError(f"Unknown event {payload.event!r}")
        for handler in _subscribers.get(payload.event, ()):
            by_handler.setdefault(handler, []).append((user_id, payload))
    for handler, emitted in by_handler.items():  # each handler once, the events in order
        handler(emitted)
    public = [(user_id, payload) for user_id, payload in items if payload.event in EVENTS]
    if not public:
        return []
    wanted = outbox_wanted([(payload.event, user_id) for user_id, payload in public])
    now = timezone.now()
    rows = OutboxEvent.objects.bulk_create(
        [OutboxEvent(event=payload.event, user_id=user_id, data=payload.data,
                     dispatched_at=None if wants else now)
         for (user_id, payload), wants in zip(public, wanted, strict=True)]
    )  # fmt: skip
    # The sequences are set by the INSERT's RETURNING.
    sequences = sorted(row.sequence for row in rows if row.dispatched_at is None)
    for sequence in sequences[::DISPATCH_BATCH]:
        enqueue_on_commit(outbox_dispatch_task, sequence=sequence)
    return rows
