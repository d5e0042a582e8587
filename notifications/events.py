"""Domain events: one typed payload builder per event, and `event_record` into the outbox.

Each event's data shape is written once, here, as a TypedDict with the field names of the
specification (social.md section 7), built by one function with typed keyword arguments. The
emitters (billing, aitools, the social hub) call the builder and hand its `Payload` to
`event_record`, in the same transaction as the change the event describes; the dispatcher
fans it out to the consumers once that transaction commits (notifications/services/outbox.py).
"""

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, TypedDict

from accounts.models import User
from core.tasks import enqueue_on_commit
from notifications.models import OutboxEvent
from notifications.services.outbox import DISPATCH_BATCH


@dataclass(frozen=True, slots=True)
class Payload:
    event: str
    data: dict[str, Any]


def _iso(moment: datetime) -> str:
    return moment.isoformat().replace("+00:00", "Z")


class PostPublishedData(TypedDict):
    postId: str
    recordId: str
    accountId: str
    platform: str
    postUrl: str
    providerPostId: str
    publishedAt: str


def post_published(
    *,
    post_id: str,
    record_id: str,
    account_id: str,
    platform: str,
    post_url: str,
    provider_post_id: str,
    published_at: datetime,
) -> Payload:
    data: PostPublishedData = {
        "postId": post_id,
        "recordId": record_id,
        "accountId": account_id,
        "platform": platform,
        "postUrl": post_url,
        "providerPostId": provider_post_id,
        "publishedAt": _iso(published_at),
    }
    return Payload("post.published", dict(data))


class PostFailedData(TypedDict):
    postId: str
    recordId: str
    accountId: str
    platform: str
    error: str
    retryCount: int


def post_failed(
    *, post_id: str, record_id: str, account_id: str, platform: str, error: str, retry_count: int
) -> Payload:
    data: PostFailedData = {
        "postId": post_id,
        "recordId": record_id,
        "accountId": account_id,
        "platform": platform,
        "error": error,
        "retryCount": retry_count,
    }
    return Payload("post.failed", dict(data))


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
) -> Payload:
    # Both schedule shapes name the post as the schedule (social.md section 4).
    data: PostScheduledData = {
        "scheduleId": post_id,
        "postId": post_id,
        "platforms": platforms,
        "accountIds": account_ids,
        "scheduledAt": _iso(scheduled_at),
    }
    return Payload("post.scheduled", dict(data))


class GenerationCompletedData(TypedDict):
    generationId: str
    tool: str
    output: dict[str, Any]
    tokensUsed: int
    durationSeconds: float


def generation_completed(
    *, generation_id: str, tool: str, output: dict[str, Any], tokens_used: int, seconds: float
) -> Payload:
    data: GenerationCompletedData = {
        "generationId": generation_id,
        "tool": tool,
        "output": output,
        "tokensUsed": tokens_used,
        "durationSeconds": round(seconds, 3),
    }
    return Payload("generation.completed", dict(data))


class GenerationFailedData(TypedDict):
    generationId: str
    tool: str
    error: str
    input: dict[str, Any]


def generation_failed(
    *, generation_id: str, tool: str, error: str, input_data: dict[str, Any]
) -> Payload:
    data: GenerationFailedData = {
        "generationId": generation_id,
        "tool": tool,
        "error": error,
        "input": input_data,
    }
    return Payload("generation.failed", dict(data))


class CreditsDepletedData(TypedDict):
    userId: str
    remainingCredits: int


def credits_depleted(*, user_id: str, remaining_credits: int) -> Payload:
    data: CreditsDepletedData = {"userId": user_id, "remainingCredits": remaining_credits}
    return Payload("credits.depleted", dict(data))


# The specification's outgoing webhook events: exactly the builders above.
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


def events_record_many(*, items: Sequence[tuple[Any, Payload]]) -> list[OutboxEvent]:
    """Record several events, (user id, payload) each, in one INSERT in the caller's
    transaction. One dispatch is queued per DISPATCH_BATCH of them: a dispatch pass takes its
    own event and the oldest others waiting, so these passes take them all (and the sweeper
    would catch one that a concurrent pass left behind)."""
    from notifications.tasks import outbox_dispatch_task

    for _, payload in items:
        if payload.event not in EVENTS:
            raise ValueError(f"Unknown event {payload.event!r}")
    rows = OutboxEvent.objects.bulk_create(
        [OutboxEvent(event=payload.event, user_id=user_id, data=payload.data)
         for user_id, payload in items]
    )  # fmt: skip
    sequences = sorted(row.sequence for row in rows)  # set by the INSERT's RETURNING
    for sequence in sequences[::DISPATCH_BATCH]:
        enqueue_on_commit(outbox_dispatch_task, sequence=sequence)
    return rows


def event_record(*, user: User | Any, payload: Payload) -> OutboxEvent:
    """Record the event in the caller's transaction; it is dispatched once that commits."""
    from notifications.tasks import outbox_dispatch_task

    if payload.event not in EVENTS:
        raise ValueError(f"Unknown event {payload.event!r}")
    user_id = user.pk if isinstance(user, User) else user
    event = OutboxEvent.objects.create(event=payload.event, user_id=user_id, data=payload.data)
    enqueue_on_commit(outbox_dispatch_task, sequence=event.sequence)
    return event
