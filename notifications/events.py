"""The event channel: what happened, recorded once by the app it happened in, and handed to
every consumer (docs/events.md).

Each event's data shape is written once, here, as a TypedDict (the public ones with the field
names of the specification, social.md section 7), built by one function with typed keyword
arguments. An emitter (billing, aitools, the social hub, the notification center) calls the
builder and hands its `Payload` to `emit` (or `emit_many`), in the transaction of the change
the event describes; that one call is all it writes. Its subscribers then run at once, in
that transaction (`subscribe`; a rollback takes what they wrote too), each registered from
its app's AppConfig.ready() and none known here: the notification each app writes for its
own events, the live feed's row (notifications/services/livefeed.py), and, for a public
event (one of EVENTS, those webhooks carry), the outbox's row, which the dispatcher fans out
to the outbox's consumers once the transaction commits (notifications/services/outbox.py:
the webhooks, retried, never lost).

`Payload.context` carries what the in-transaction subscribers need beyond the public data (the
user's notification preference, a tool's label); it is never stored or sent. Two internal
events carry API shapes no service builds (`post.changed`, `notification.created`): their
emitters hand what they wrote in `context`, and the presenter the app registers (`present`,
from its output layer beside the API) makes the data before any subscriber sees it.
"""

import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, TypedDict, overload

from django.utils import timezone

from accounts.models import User, Workspace
from core import logs
from core.times import iso
from notifications.models import OutboxEvent


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
    # The error object of social.md section 12 (`{code, category, message, remedy,
    # retryable, platform?}`): what happened and what the user can do.
    errorDetail: dict[str, Any] | None


def post_failed(
    *,
    post_id: str,
    record_id: str,
    account_id: str,
    platform: str,
    error: str,
    retry_count: int,
    error_detail: dict[str, Any] | None = None,
    context: dict[str, Any] | None = None,
    unconfirmed: bool = False,
) -> Public:
    """`post.failed`, or `post.unconfirmed` (the same data) for a record whose outcome could
    not be established (social.md section 12)."""
    data: PostFailedData = {
        "postId": post_id,
        "recordId": record_id,
        "accountId": account_id,
        "platform": platform,
        "error": error,
        "retryCount": retry_count,
        "errorDetail": error_detail,
    }
    return Public("post.unconfirmed" if unconfirmed else "post.failed", dict(data), context or {})


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


# --- The social hub's lifecycle (social.md section 12) --------------------------------------


class PostData(TypedDict):
    postId: str
    title: str
    status: str
    platforms: list[str]
    campaignId: str | None
    updatedAt: str


def post_saved(
    *,
    created: bool,
    post_id: str,
    title: str,
    status: str,
    platforms: list[str],
    campaign_id: str | None,
    updated_at: datetime,
) -> Public:
    """`post.created` or `post.updated`: the post's identity and state (its text and media
    are read with GET /api/social/posts/{id}: an event stays small)."""
    data: PostData = {
        "postId": post_id,
        "title": title,
        "status": status,
        "platforms": platforms,
        "campaignId": campaign_id,
        "updatedAt": iso(updated_at),
    }
    return Public("post.created" if created else "post.updated", dict(data))


class PostDeletedData(TypedDict):
    postId: str
    recordIds: list[str]


def post_deleted(*, post_id: str, record_ids: list[str]) -> Public:
    data: PostDeletedData = {"postId": post_id, "recordIds": record_ids}
    return Public("post.deleted", dict(data))


class PostPartiallyPublishedData(TypedDict):
    postId: str
    status: str
    published: list[dict[str, Any]]
    notPublished: list[dict[str, Any]]


def post_partially_published(
    *, post_id: str, published: list[dict[str, Any]], not_published: list[dict[str, Any]]
) -> Public:
    """A post whose records ended, some published and some not: `published` `[{recordId,
    accountId, platform, postUrl}]`, `notPublished` `[{recordId, accountId, platform, status,
    error}]`."""
    data: PostPartiallyPublishedData = {
        "postId": post_id,
        "status": "PartiallyPublished",
        "published": published,
        "notPublished": not_published,
    }
    return Public("post.partially_published", dict(data))


class ScheduleChangedData(TypedDict):
    recordId: str
    postId: str
    accountId: str
    platform: str
    scheduledAt: str


class ScheduleMovedData(ScheduleChangedData):
    previousScheduledAt: str | None
    queued: bool


def schedule_moved(
    *,
    record_id: str,
    post_id: str,
    account_id: str,
    platform: str,
    scheduled_at: datetime,
    previous: datetime | None,
    queued: bool,
) -> Public:
    data: ScheduleMovedData = {
        "recordId": record_id,
        "postId": post_id,
        "accountId": account_id,
        "platform": platform,
        "scheduledAt": iso(scheduled_at),
        "previousScheduledAt": iso(previous),
        "queued": queued,
    }
    return Public("schedule.moved", dict(data))


class ScheduleCancelledData(ScheduleChangedData):
    reason: str


def schedule_cancelled(
    *,
    record_id: str,
    post_id: str,
    account_id: str,
    platform: str,
    scheduled_at: datetime,
    reason: str,
) -> Public:
    """`reason`: `cancelled` (the user), `series_ended`, `account_disconnected`."""
    data: ScheduleCancelledData = {
        "recordId": record_id,
        "postId": post_id,
        "accountId": account_id,
        "platform": platform,
        "scheduledAt": iso(scheduled_at),
        "reason": reason,
    }
    return Public("schedule.cancelled", dict(data))


class AccountData(TypedDict):
    accountId: str
    platform: str
    username: str
    status: str


class AccountExpiringData(AccountData):
    expiresAt: str | None
    days: int


class AccountExpiredData(AccountData):
    reason: str


def account_connected(
    *, account_id: str, platform: str, username: str, reconnected: bool
) -> Public:
    """`account.connected` (a new connection) or `account.reconnected` (the same account's
    credentials replaced: after it expired, or to grant more)."""
    data: AccountData = {
        "accountId": account_id,
        "platform": platform,
        "username": username,
        "status": "connected",
    }
    return Public("account.reconnected" if reconnected else "account.connected", dict(data))


def account_expiring(
    *, account_id: str, platform: str, username: str, expires_at: datetime | None, days: int
) -> Public:
    data: AccountExpiringData = {
        "accountId": account_id,
        "platform": platform,
        "username": username,
        "status": "connected",
        "expiresAt": iso(expires_at),
        "days": days,
    }
    return Public("account.expiring", dict(data))


def account_expired(*, account_id: str, platform: str, username: str, reason: str) -> Public:
    data: AccountExpiredData = {
        "accountId": account_id,
        "platform": platform,
        "username": username,
        "status": "expired",
        "reason": reason,
    }
    return Public("account.expired", dict(data))


# --- Approvals and comments (workspaces.md section 3) -----------------------------------------


class ApprovalRequestedData(TypedDict):
    approvalRequestId: str
    postId: str
    version: str
    approverIds: list[str]
    clientCount: int
    message: str
    expiresAt: str


def approval_requested(
    *,
    request_id: str,
    post_id: str,
    version: str,
    approver_ids: list[str],
    client_count: int,
    message: str,
    expires_at: datetime,
    context: dict[str, Any] | None = None,
) -> Public:
    """A member asked for the post's version to be approved: by the members `approverIds`
    (none: the owners and admins) and by `clientCount` clients through their links."""
    data: ApprovalRequestedData = {
        "approvalRequestId": request_id,
        "postId": post_id,
        "version": version,
        "approverIds": approver_ids,
        "clientCount": client_count,
        "message": message,
        "expiresAt": iso(expires_at),
    }
    return Public("approval.requested", dict(data), context or {})


class ApprovalDecidedData(TypedDict):
    approvalRequestId: str
    postId: str
    version: str
    comment: str


def approval_decided(
    *,
    approved: bool,
    request_id: str,
    post_id: str,
    version: str,
    comment: str,
    context: dict[str, Any] | None = None,
) -> Public:
    """`approval.approved` (the post's records go out at their times) or `approval.rejected`
    (the post is a draft again, the comment added to its comments); the actor decided."""
    data: ApprovalDecidedData = {
        "approvalRequestId": request_id,
        "postId": post_id,
        "version": version,
        "comment": comment,
    }
    name = "approval.approved" if approved else "approval.rejected"
    return Public(name, dict(data), context or {})


class ApprovalStaleData(TypedDict):
    approvalRequestId: str
    postId: str
    version: str
    currentVersion: str


def approval_stale(*, request_id: str, post_id: str, version: str, current: str) -> Public:
    """The post changed after the request (`version` what was asked, `currentVersion` what it
    is now): the request no longer counts; an approved post's records wait again."""
    data: ApprovalStaleData = {
        "approvalRequestId": request_id,
        "postId": post_id,
        "version": version,
        "currentVersion": current,
    }
    return Public("approval.stale", dict(data))


class PostCommentedData(TypedDict):
    postId: str
    commentId: str
    author: dict[str, str]
    body: str


def post_commented(
    *,
    post_id: str,
    comment_id: str,
    author: dict[str, str],
    body: str,
    context: dict[str, Any] | None = None,
) -> Public:
    """A member or a client commented on the post (`author: {type: member | client, name}`)."""
    data: PostCommentedData = {
        "postId": post_id,
        "commentId": comment_id,
        "author": author,
        "body": body,
    }
    return Public("post.commented", dict(data), context or {})


class PostAtRiskData(TypedDict):
    accountId: str
    platform: str
    problems: list[dict[str, Any]]
    records: list[dict[str, Any]]


def post_at_risk(
    *,
    account_id: str,
    platform: str,
    problems: list[dict[str, Any]],
    records: list[dict[str, Any]],
    context: dict[str, Any] | None = None,
) -> Public:
    """An account's problem found before its posts are due: `problems` `[{code, message,
    remedy}]`, `records` `[{recordId, postId, scheduledAt}]` (those due in the next 24 hours)."""
    data: PostAtRiskData = {
        "accountId": account_id,
        "platform": platform,
        "problems": problems,
        "records": records,
    }
    return Public("post.at_risk", dict(data), context or {})


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
    """Presented (`present`): `scheduledRecords` are the post's records as the social API
    shows them, shaped by the social hub's output layer from the records the emitter hands
    in `context`."""

    postId: str
    status: str
    scheduledRecords: list[dict[str, Any]]


def post_changed(*, post_id: str, status: str, records: Sequence[Any]) -> Payload:
    """A post's status or one of its records' changed (the live feed's `post` event):
    `records`, all the post's scheduled records, in their order."""
    return Payload("post.changed", {"postId": post_id, "status": status}, {"records": records})


class AccountConnectFailedData(TypedDict):
    platform: str
    reason: str


def account_connect_failed(*, platform: str, reason: str) -> Payload:
    """Connecting an account failed (the platform refused, or could not be reached): nothing
    changed, the user is told why (the social hub's subscriber)."""
    data: AccountConnectFailedData = {"platform": platform, "reason": reason}
    return Payload("account.connect_failed", dict(data))


class PlanPaidData(TypedDict):
    paymentEventId: str
    plan: str
    credits: int
    amount: int
    currency: str


def payment_plan_paid(
    *, payment_event_id: str, plan: str, credits: int, amount: int, currency: str
) -> Payload:
    """A plan was paid for and applied (`order.paid`): `credits` added, `amount` in the
    currency's smallest unit (billing notifies the user)."""
    data: PlanPaidData = {
        "paymentEventId": payment_event_id,
        "plan": plan,
        "credits": credits,
        "amount": amount,
        "currency": currency,
    }
    return Payload("payment.plan_paid", dict(data))


class SubscriptionChargedData(TypedDict):
    paymentEventId: str
    credits: int
    monthlyQuota: int


def payment_subscription_charged(
    *, payment_event_id: str, credits: int, monthly_quota: int
) -> Payload:
    """A subscription's charge was applied (`subscription.charged`): the balance topped up by
    `credits` (0: it was full) to `monthlyQuota`."""
    data: SubscriptionChargedData = {
        "paymentEventId": payment_event_id,
        "credits": credits,
        "monthlyQuota": monthly_quota,
    }
    return Payload("payment.subscription_charged", dict(data))


class PaymentFailedData(TypedDict):
    paymentEventId: str
    reason: str


def payment_failed(*, payment_event_id: str, reason: str) -> Payload:
    """The payment provider reported a failed payment (`payment.failed`)."""
    data: PaymentFailedData = {"paymentEventId": payment_event_id, "reason": reason}
    return Payload("payment.failed", dict(data))


def notification_created(*, values: Mapping[str, Any]) -> Payload:
    """A notification was written (the live feed's `notification` event): `values`, its
    columns as written; presented (`present`) as `GET /api/notifications` shows it by the
    notification center's output layer."""
    return Payload("notification.created", {}, {"notification": values})


# The outgoing webhook events: exactly the public builders above (the specification's six
# and the social hub's lifecycle, social.md section 12).
EVENTS = frozenset(
    {
        "post.published",
        "post.failed",
        "post.scheduled",
        "generation.completed",
        "generation.failed",
        "credits.depleted",
        "post.created",
        "post.updated",
        "post.deleted",
        "post.partially_published",
        "post.unconfirmed",
        "schedule.moved",
        "schedule.cancelled",
        "account.connected",
        "account.expiring",
        "account.expired",
        "account.reconnected",
        "post.at_risk",
        "approval.requested",
        "approval.approved",
        "approval.rejected",
        "approval.stale",
        "post.commented",
    }
)
INTERNAL_EVENTS = frozenset(
    {
        "credits.changed",
        "post.changed",
        "notification.created",
        "account.connect_failed",
        "payment.plan_paid",
        "payment.subscription_charged",
        "payment.failed",
    }
)

KNOWN_EVENTS = EVENTS | INTERNAL_EVENTS

Id = uuid.UUID | str
# What an emitter hands over: (user id, payload), or (user id, payload, workspace id) for an
# event about a workspace's data (the social hub's). Without a workspace, a public event is
# the user's personal workspace's (their AI tools, their credits), and an internal one reaches
# only its user (a notification, a balance).
Emitted = tuple[Id, Payload] | tuple[Id, Payload, Id | None]


class Actor(TypedDict, total=False):
    """Who made the event happen (workspaces.md section 1): `type` `user`, `client`, `agent` or
    `system`, with the `id` of the user (or agent) when there is one."""

    type: str
    id: str
    name: str


SYSTEM: Actor = {"type": "system"}


def user_actor(user_id: uuid.UUID | str) -> Actor:
    return {"type": "user", "id": str(user_id)}


def client_actor(name: str) -> Actor:
    """A client without an account, acting through their approval link: named as they
    signed (or by their link's address)."""
    return {"type": "client", "name": name}


def agent_actor(agent_id: uuid.UUID | str, name: str) -> Actor:
    """An agent connection (an API key or an OAuth grant used on /mcp) acting for its user."""
    return {"type": "agent", "id": str(agent_id), "name": name}


# Who acts for the code running now, when it is not the request's user themselves: an agent's
# tool call (agents.mcp) runs the REST views inside this, so what they emit names the agent.
_acting_for: ContextVar[Actor | None] = ContextVar("acting_for", default=None)


@contextmanager
def acting_as(actor: Actor) -> Iterator[None]:
    """Everything emitted inside names `actor` (unless the emitter names its own)."""
    token = _acting_for.set(actor)
    try:
        yield
    finally:
        _acting_for.reset(token)


def _acting() -> Actor | None:
    """The agent acting now (acting_as), else the signed-in user (or API key's user) of the
    request this runs in, if any: whoever the request authenticated as did what it emits (an
    editor changing the owner's post)."""
    agent = _acting_for.get()
    if agent is not None:
        return agent
    context = logs.current()
    user_id = context.user_id if context is not None else ""
    return user_actor(user_id) if user_id else None


@dataclass(slots=True)
class Event:
    """One emitted event, as every subscriber gets it: whose it is, what happened, who did it,
    and its identity (`id`, `created_at`: the same in the outbox, the live feed and the
    webhooks). The recording subscribers note what they wrote of it: the live feed's row id
    (which the outbox row keeps for the replay), the outbox row's values (`emit` returns them)."""

    user_id: uuid.UUID | str
    payload: Payload
    actor: Actor
    id: uuid.UUID | None  # a public event's; None for an internal one
    created_at: datetime
    # The workspace it belongs to (its members receive it); None: only its user's (a
    # notification, a balance), or a user without a personal workspace.
    workspace_id: uuid.UUID | str | None = None
    live_id: int | None = None
    outbox: dict[str, Any] | None = None

    @property
    def name(self) -> str:
        return self.payload.event


Subscriber = Callable[[list[Event]], object]
Presenter = Callable[[Payload], dict[str, Any]]

_subscribers: dict[str, list[Subscriber]] = {}
_presenters: dict[str, Presenter] = {}
# Subscribers that record the event itself (the live feed, the outbox) run after the others:
# what those write in reaction (a notification) reaches the feed first, as it always did.
_recorders: list[Subscriber] = []


def subscribe(event: str, handler: Subscriber, *, records: bool = False) -> None:
    """Run `handler(events)` in the emitter's transaction for every emit of `event` (a batch
    of them at a time, in order); registered from an app's AppConfig.ready(). A handler that
    `records` the event runs after the others, the recorders in the order they subscribed."""
    if event not in KNOWN_EVENTS:
        raise ValueError(f"Unknown event {event!r}")
    handlers = _subscribers.setdefault(event, [])
    if handler not in handlers:
        handlers.append(handler)
    if records and handler not in _recorders:
        _recorders.append(handler)


def present(event: str, presenter: Presenter) -> None:
    """Make `presenter(payload)` the data of every `event` emitted, before any subscriber sees
    it; registered from an app's AppConfig.ready(). For an internal event whose data is an API
    shape (a notification, a post's records): the emitter, a service, hands what it wrote in
    the payload's `context`, and the app's output layer, which the services do not import,
    shapes it (the API renders through the same functions)."""
    if event not in INTERNAL_EVENTS:
        raise ValueError(f"Only an internal event is presented: {event!r}")
    _presenters[event] = presenter


@overload
def emit(
    *, user: User | Any, payload: Public, actor: Actor | None = None, workspace: Id | None = None
) -> OutboxEvent: ...
@overload
def emit(
    *, user: User | Any, payload: Payload, actor: Actor | None = None, workspace: Id | None = None
) -> OutboxEvent | None: ...
def emit(
    *, user: User | Any, payload: Payload, actor: Actor | None = None, workspace: Id | None = None
) -> OutboxEvent | None:
    """Emit one event in the caller's transaction: its subscribers run now. `actor`: who made
    it happen: by default whoever the running request signed in as, else the user (SYSTEM for
    what the scheduler, beat or a payment provider did). `workspace`: the workspace whose data
    it is about (Emitted). A public event's outbox row (the outbox's subscriber records it)."""
    user_id = user.pk if isinstance(user, User) else user
    (event,) = _dispatch(items=[(user_id, payload, workspace)], actor=actor)
    if event.outbox is None:
        return None
    row = OutboxEvent(**event.outbox)
    row._state.adding = False
    return row


def emit_many(*, items: Sequence[Emitted], actor: Actor | None = None) -> list[int]:
    """Several events, (user id, payload) each, in the caller's transaction: each subscriber
    gets its events in one call (the outbox and the live feed write theirs in one INSERT
    each). `actor` as for `emit`, the same for them all. The public events' outbox sequences,
    in order."""
    events = _dispatch(items=items, actor=actor)
    return [event.outbox["sequence"] for event in events if event.outbox is not None]


def _dispatch(*, items: Sequence[Emitted], actor: Actor | None) -> list[Event]:
    """Hand each subscriber its events in one call, each subscriber once, the events in order."""
    events = []
    by_handler: dict[Subscriber, list[Event]] = {}
    now = timezone.now()
    acting = actor or _acting()
    personal = _personal_workspaces(items)
    for item in items:
        user_id, payload = item[0], item[1]
        workspace_id = _named_workspace(item)
        if payload.event not in KNOWN_EVENTS:
            raise ValueError(f"Unknown event {payload.event!r}")
        # Only a public event has an identity of its own (its outbox row, webhooks, replay):
        # an internal one (a post's new state, a notification made) takes the batch's moment
        # and no id, which a burst's settle would otherwise make for thousands of them.
        public = payload.event in EVENTS
        presenter = _presenters.get(payload.event)
        if presenter is not None:
            payload = Payload(payload.event, presenter(payload), payload.context)
        event = Event(
            user_id=user_id,
            payload=payload,
            actor=acting or user_actor(user_id),
            id=uuid.uuid4() if public else None,
            created_at=timezone.now() if public else now,
            workspace_id=workspace_id or (personal.get(str(user_id)) if public else None),
        )
        events.append(event)
        for handler in _subscribers.get(payload.event, ()):
            by_handler.setdefault(handler, []).append(event)
    reacting = [handler for handler in by_handler if handler not in _recorders]
    recording = [handler for handler in _recorders if handler in by_handler]
    for handler in reacting + recording:
        handler(by_handler[handler])
    return events


def _named_workspace(item: Emitted) -> Id | None:
    """The workspace the emitter named for the event (None: none)."""
    return item[2] if len(item) == 3 else None


def _personal_workspaces(items: Sequence[Emitted]) -> dict[str, uuid.UUID]:
    """The personal workspaces of the users of the public events without a workspace (one
    query, none when every event names its own)."""
    users = {
        str(item[0]) for item in items if item[1].event in EVENTS and _named_workspace(item) is None
    }
    if not users:
        return {}
    found = Workspace.objects.filter(personal_user_id__in=users)
    return {str(user_id): pk for user_id, pk in found.values_list("personal_user_id", "pk")}
