"""Outgoing webhooks: workspaces' endpoints, their signing secrets, the signatures, and which
endpoints an event goes to (social.md section 7, workspaces.md section 1).

Endpoints and deliveries belong to a workspace and are managed by its owners and admins (the
`manage` row of accounts.roles): every service here that a member calls takes the member's
`actor` membership and checks it.

Every delivery carries `X-Service-Signature` (hex HMAC-SHA256 of the raw body keyed with the
newest whole secret string) and the Standard Webhooks headers `webhook-id` (the event id, the
same on every retry), `webhook-timestamp` and `webhook-signature` (`v1,` + base64 HMAC-SHA256
of `{id}.{timestamp}.{body}` keyed with the base64-decoded part after `whsec_`; one entry per
active secret: after a rotation the previous secret signs beside the new one for 24 hours).
"""

import base64
import hashlib
import hmac
import json
import secrets as random
import time
import uuid
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.db.models import F, QuerySet, Window
from django.db.models.functions import RowNumber
from django.utils import timezone
from standardwebhooks import Webhook

from accounts.models import Membership, User, Workspace
from accounts.roles import Action, permission_check
from accounts.selectors import member_ids_who_may
from core import metrics, outbound
from core.bulk import allow_any
from core.concurrency import bounded
from core.errors import ValidationFailed
from core.inputs import UNSET, Unset
from core.leases import Backoff, Lease
from core.tasks import enqueue_on_commit, task_named
from core.times import iso
from notifications.errors import (
    InvalidWebhookUrl,
    WebhookEndpointLimitReached,
    WebhookEndpointNotFound,
)
from notifications.events import EVENTS, user_actor
from notifications.models import (
    DeliveryStatus,
    OutboxEvent,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
    WebhookSecret,
)
from notifications.selectors import delivery_get
from notifications.services.center import system_alert_send

SECRET_PREFIX = "whsec_"  # noqa: S105 (the format's prefix, not a secret)
ROTATION_OVERLAP = timedelta(hours=24)
TEST_EVENT = "webhook.test"
# Who owns a delivery: the deliveries of one workspace take turns with every other's.
DELIVERY_OWNER = "workspace_id"
RETRY = "retry"  # a delivery attempt that failed and will be tried again (still pending)


def secret_new() -> str:
    return SECRET_PREFIX + base64.b64encode(random.token_bytes(32)).decode()


def signature_headers(
    *, body: bytes, event_id: str, event: str, timestamp: int, secrets: list[str]
) -> dict[str, str]:
    """The headers of one delivery attempt; `secrets` newest first. The Standard Webhooks
    signatures come from the format's reference library (one per active secret)."""
    moment = datetime.fromtimestamp(timestamp, tz=UTC)
    text = body.decode()
    signatures = [Webhook(secret).sign(event_id, moment, text) for secret in secrets]
    return {
        "Content-Type": "application/json",
        "X-Service-Signature": hmac.new(secrets[0].encode(), body, hashlib.sha256).hexdigest(),
        "X-Service-Event": event,
        "webhook-id": event_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(signatures),
    }


def url_check(url: str) -> None:
    """https and public addresses only (the outbound guard), unless OUTBOUND_ALLOW_PRIVATE."""
    try:
        outbound.guard_url(url)
    except outbound.UnsafeURL as error:
        raise InvalidWebhookUrl(details={"url": [error.message]}) from None


def events_check(events: Iterable[str]) -> list[str]:
    chosen = list(dict.fromkeys(events))
    unknown = sorted(set(chosen) - EVENTS)
    if not chosen or unknown:
        raise ValidationFailed(
            details={
                "events": [f"Choose one or more of: {', '.join(sorted(EVENTS))}."]
                + [f"Unknown event: {name}." for name in unknown]
            }
        )
    return chosen


def active_secrets(endpoint: WebhookEndpoint) -> list[str]:
    """The secrets that sign now, newest first."""
    now = timezone.now()
    return [
        str(found.secret)
        for found in endpoint.secrets.all()
        if found.expires_at is None or found.expires_at > now
    ]


def endpoint_get(
    *, actor: Membership, endpoint_id: uuid.UUID, lock: bool = False
) -> WebhookEndpoint:
    """An endpoint of the actor's workspace, for its owners and admins (403 for other roles);
    another workspace's is 404, as a missing one."""
    permission_check(role=actor.role, action=Action.MANAGE)
    endpoints = WebhookEndpoint.objects.select_for_update() if lock else WebhookEndpoint.objects
    found = endpoints.filter(pk=endpoint_id, workspace_id=actor.workspace_id).first()
    if found is None:
        raise WebhookEndpointNotFound()
    return found


def endpoints_owned(*, workspace_id: uuid.UUID) -> QuerySet[WebhookEndpoint]:
    """The endpoints counted against their workspace's WEBHOOK_ENDPOINTS_PER_USER (the
    setting kept its name when endpoints moved from users to workspaces), active or not."""
    return WebhookEndpoint.objects.filter(workspace_id=workspace_id)


def endpoint_create(
    *, actor: Membership, url: str, events: list[str], description: str = "", active: bool = True
) -> tuple[WebhookEndpoint, str]:
    """A new endpoint of the actor's workspace (owners and admins) and its secret (shown this
    once); past the workspace's WEBHOOK_ENDPOINTS_PER_USER, 409 and nothing written."""
    permission_check(role=actor.role, action=Action.MANAGE)
    url_check(url)
    chosen = events_check(events)
    secret = secret_new()
    limit = settings.WEBHOOK_ENDPOINTS_PER_USER
    with transaction.atomic():
        # The workspace's row lock makes the count exact when its members create several at
        # once.
        Workspace.objects.select_for_update().filter(pk=actor.workspace_id).exists()
        if endpoints_owned(workspace_id=actor.workspace_id).count() >= limit:
            raise WebhookEndpointLimitReached(details={"limit": limit})
        endpoint = WebhookEndpoint.objects.create(
            user_id=actor.user_id,
            workspace_id=actor.workspace_id,
            url=url,
            events=chosen,
            description=description,
            active=active,
        )
        WebhookSecret.objects.create(endpoint=endpoint, secret=secret)
    return endpoint, secret


@dataclass(frozen=True, slots=True, kw_only=True)
class EndpointChanges:
    """What a request changes of an endpoint (UNSET: kept)."""

    url: str | Unset = UNSET
    events: list[str] | Unset = UNSET
    description: str | Unset = UNSET
    active: bool | Unset = UNSET


def endpoint_update(
    *, actor: Membership, endpoint_id: uuid.UUID, changes: EndpointChanges
) -> WebhookEndpoint:
    """Change url, events, description or active; re-activating clears the reason it was
    disabled (and its failure count)."""
    permission_check(role=actor.role, action=Action.MANAGE)
    return _endpoint_change(
        endpoint_id=endpoint_id, workspace_id=actor.workspace_id, changes=changes
    )


def endpoint_reactivate(*, endpoint_id: uuid.UUID) -> WebhookEndpoint:
    """An operator re-activates a disabled endpoint (the admin), whichever its workspace."""
    return _endpoint_change(
        endpoint_id=endpoint_id, workspace_id=None, changes=EndpointChanges(active=True)
    )


def _endpoint_change(
    *, endpoint_id: uuid.UUID, workspace_id: uuid.UUID | None, changes: EndpointChanges
) -> WebhookEndpoint:
    if changes.url is not UNSET:
        url_check(changes.url)
    events = events_check(changes.events) if changes.events is not UNSET else UNSET
    with transaction.atomic():
        endpoints = WebhookEndpoint.objects.select_for_update().filter(pk=endpoint_id)
        if workspace_id is not None:
            endpoints = endpoints.filter(workspace_id=workspace_id)
        endpoint = endpoints.first()
        if endpoint is None:
            raise WebhookEndpointNotFound()
        if changes.url is not UNSET:
            endpoint.url = changes.url
        if events is not UNSET:
            endpoint.events = events
        if changes.description is not UNSET:
            endpoint.description = changes.description
        if changes.active is not UNSET:
            if changes.active and not endpoint.active:
                endpoint.disabled_reason = ""
                endpoint.consecutive_failures = 0
            endpoint.active = changes.active
        endpoint.save()
    return endpoint


def endpoint_delete(*, actor: Membership, endpoint_id: uuid.UUID) -> None:
    with transaction.atomic():
        endpoint_get(actor=actor, endpoint_id=endpoint_id, lock=True).delete()


def endpoints_remove(user: User) -> list[str]:
    """The registry's cleanup (takeover, erasure): every endpoint the user made, in any
    workspace, goes with its pending deliveries, so nothing more is sent where they chose."""
    endpoints = list(WebhookEndpoint.objects.filter(user=user).values_list("url", flat=True))
    WebhookEndpoint.objects.filter(user=user).delete()
    if not endpoints:
        return []
    hosts = sorted({urlsplit(url).hostname or url for url in endpoints})
    return [f"{len(endpoints)} webhook endpoint(s) ({', '.join(hosts)})"]


def endpoint_rotate(*, actor: Membership, endpoint_id: uuid.UUID) -> tuple[WebhookEndpoint, str]:
    """A new secret; the ones signing now keep signing beside it for 24 hours."""
    secret = secret_new()
    now = timezone.now()
    with transaction.atomic():
        endpoint = endpoint_get(actor=actor, endpoint_id=endpoint_id, lock=True)
        WebhookSecret.objects.filter(endpoint=endpoint, expires_at__isnull=True).update(
            expires_at=now + ROTATION_OVERLAP
        )
        WebhookSecret.objects.filter(endpoint=endpoint, expires_at__lte=now).delete()
        WebhookSecret.objects.create(endpoint=endpoint, secret=secret, created_at=now)
    return endpoint, secret


# --- Deliveries -------------------------------------------------------------------------------

# A batch's deliveries to one receiver take turns (OUTBOUND_PER_HOST_CONCURRENCY at once)
# within their timeout, instead of failing as busy: these threads serve deliveries only.
_client = outbound.Client("webhooks", read_timeout=5.0, retries=0, wait_for_host=True)
DELIVERY_BATCH = 32  # deliveries one task claims and sends at once: one turn
# The task that sends a turn (notifications/tasks.py imports this module, so it is named here).
DELIVER_TASK = "notifications.tasks.webhook_deliver_task"
# A turn chosen at the same moment by a concurrent task may be all won by that one (a window
# function rules out FOR UPDATE SKIP LOCKED): choose again from what is left, a few times.
CLAIM_TRIES = 3
# A claimed delivery not finished within its lease is due again; a delivery stays `pending`
# while leased. Retries follow WEBHOOK_RETRY_SCHEDULE, then the delivery fails.
DELIVERIES = Lease(
    WebhookDelivery,
    seconds=lambda: 60,
    waiting=DeliveryStatus.PENDING,
    backoff=Backoff(schedule=lambda: settings.WEBHOOK_RETRY_SCHEDULE),
)
# Which endpoints an event goes to (endpoints_for): the active ones of the workspace the event
# belongs to (ROUTE), subscribed to it.
ROUTE = "workspace_id"
allow_any(WebhookEndpoint, "workspace")  # a consumer batch's workspaces in one statement


def _event_route(event: OutboxEvent) -> Any:
    """The value ROUTE must have on the endpoints `event` goes to: its workspace."""
    return event.workspace_id


def endpoints_routed(routes: Iterable[Any]) -> QuerySet[WebhookEndpoint]:
    """The active endpoints of these workspaces, each annotated with `route` (its
    workspace)."""
    wanted = list({str(route) for route in routes if route is not None})
    return WebhookEndpoint.objects.filter(**{f"{ROUTE}__any": wanted}, active=True).annotate(
        route=F(ROUTE)
    )


def endpoints_for(event: OutboxEvent) -> QuerySet[WebhookEndpoint]:
    """The endpoints `event` is delivered to (those subscribed to it among these): the active
    endpoints of the workspace the event belongs to."""
    return endpoints_routed([_event_route(event)])


def _body(
    *,
    event_id: str,
    event: str,
    created_at: Any,
    data: Any,
    user: User,
    workspace_id: Any,
    actor: Any,
) -> str:
    return json.dumps(
        {
            "id": event_id,
            "event": event,
            "created_at": iso(created_at),
            "data": data,
            "user": {"id": str(user.pk), "email": user.email},
            "workspaceId": None if workspace_id is None else str(workspace_id),
            "actor": actor,
        },
        separators=(",", ":"),
        ensure_ascii=False,
    )


def _event_body(event: OutboxEvent, user: User) -> str:
    return _body(
        event_id=str(event.id),
        event=event.event,
        created_at=event.created_at,
        data=event.data,
        user=user,
        workspace_id=event.workspace_id,
        actor=event.acted_by(),
    )


def deliveries_create(event: OutboxEvent) -> int:
    """The outbox consumer: one delivery of `event` to each of its user's active endpoints
    subscribed to it (once per (event, endpoint), whatever runs it twice), queued on commit."""
    return deliveries_create_many([event])


def deliveries_wanted(interests: Sequence[tuple[str, Any]]) -> list[bool]:
    """The outbox consumer's interest: for each (event, workspace id), whether the event would
    go to an active endpoint subscribed to it (endpoints_for; one query for them all)."""
    routes = {str(route) for _, route in interests if route is not None}
    subscribed: dict[str, set[str]] = {}
    if routes:
        for route, names in endpoints_routed(routes).values_list(ROUTE, "events"):
            subscribed.setdefault(str(route), set()).update(names)
    return [event in subscribed.get(str(route), ()) for event, route in interests]


def deliveries_create_many(events: list[OutboxEvent]) -> int:
    """The same for a dispatch pass's batch of events, in a few queries for them all; a turn
    (a task) is queued for each DELIVERY_BATCH of them."""
    endpoints: dict[str, list[WebhookEndpoint]] = {}
    for endpoint in endpoints_routed(_event_route(event) for event in events):
        endpoints.setdefault(str(endpoint.route), []).append(endpoint)  # type: ignore[attr-defined]
    pairs = [
        (event, endpoint)
        for event in events
        for endpoint in endpoints.get(str(_event_route(event)), [])
        if event.event in endpoint.events
    ]
    # The body names the event's user (an endpoint's maker may be another member).
    users = User.objects.in_bulk({event.user_id for event, _ in pairs}) if pairs else {}
    now = timezone.now()
    deliveries = [
        WebhookDelivery(
            endpoint=endpoint,
            workspace_id=endpoint.workspace_id,
            event_id=event.id,
            event=event.event,
            body=_event_body(event, users[event.user_id]),
            next_attempt_at=now,
            created_at=now,
        )
        for event, endpoint in pairs
    ]
    if not deliveries:
        return 0
    with transaction.atomic():
        created = WebhookDelivery.objects.bulk_create(deliveries, ignore_conflicts=True)
        # Those still waiting for their first attempt (a repeated run finds them sent).
        waiting = WebhookDelivery.objects.filter(
            event_id__in={event.id for event in events},
            endpoint__in={delivery.endpoint_id for delivery in deliveries},
            status=DeliveryStatus.PENDING,
            attempts=0,
        ).count()
        _queue(waiting)
    return len(created)


def _queue(deliveries: int) -> None:
    """Queue, on commit, a turn for each DELIVERY_BATCH of this many deliveries now due. A turn
    sends whichever deliveries are due when it runs, owners taking turns (_claim_turn): the
    tasks in the queue are the work there is, not whose it is."""
    for _ in range(0, deliveries, DELIVERY_BATCH):
        enqueue_on_commit(task_named(DELIVER_TASK))


def _claim_turn() -> list[WebhookDelivery]:
    """Lease the next DELIVERY_BATCH due deliveries, owners taking turns: every owner's oldest
    due delivery first, then every owner's second, and so on. A burst of one owner (a few
    thousand deliveries queued at once) therefore waits behind one delivery of each other
    owner, never the other way round. The ones this caller won (one conditional UPDATE marks
    them with its claim token: a concurrent caller that chose the same gets the others)."""
    now = timezone.now()
    # Nothing is sent for an erased or deactivated user (erasure also deletes endpoints).
    due = WebhookDelivery.objects.filter(
        DELIVERIES.free(now), next_attempt_at__lte=now, endpoint__user__is_active=True
    )
    in_turn = Window(
        RowNumber(),
        partition_by=[F(DELIVERY_OWNER)],
        order_by=[F("next_attempt_at").asc(), F("pk").asc()],
    )
    turns = due.annotate(turn=in_turn).order_by("turn", "next_attempt_at", "pk")
    for _ in range(CLAIM_TRIES):
        chosen = list(turns.values_list("pk", flat=True)[:DELIVERY_BATCH])
        if not chosen:
            return []
        token = DELIVERIES.claim(
            WebhookDelivery.objects.filter(pk__in=chosen, next_attempt_at__lte=now), now=now
        )
        if token is not None:
            break
    else:
        return []
    won = list(DELIVERIES.held(token, chosen).select_related("endpoint", "endpoint__user"))
    # One endpoint object per endpoint, so the batch's results count its failures together.
    endpoints: dict[Any, WebhookEndpoint] = {}
    for delivery in won:
        delivery.endpoint = endpoints.setdefault(delivery.endpoint_id, delivery.endpoint)
    return won


def deliveries_send() -> dict[str, int]:
    """The delivery task: one turn (_claim_turn), its deliveries sent at once; how many ended
    in each status."""
    statuses = _send(_claim_turn()).values()
    metrics.webhook_delivered(
        RETRY if status == DeliveryStatus.PENDING else status for status in statuses
    )
    return dict(Counter(statuses))


@dataclass(frozen=True, slots=True)
class _Answer:
    status_code: int | None = None
    excerpt: str = ""
    error: str = ""
    gone: bool = False
    duration_ms: int = 0


def _post(url: str, body: bytes, headers: dict[str, str]) -> _Answer:
    """One POST to a receiver (no database here: it runs on the batch's threads)."""
    started = time.monotonic()
    try:
        response = _client.request(
            "POST",
            url,
            guarded=True,
            idempotent=False,
            data=body,
            headers=headers,
            timeout=settings.WEBHOOK_TIMEOUT_SECONDS,
        )
        answer = _Answer(status_code=response.status_code, excerpt=outbound.excerpt(response))
    except outbound.OutboundError as failure:
        answer = _Answer(
            status_code=failure.status,
            excerpt=failure.excerpt,
            error=failure.message,
            gone=failure.status == 410,
        )
    duration_ms = int((time.monotonic() - started) * 1000)
    return _Answer(answer.status_code, answer.excerpt, answer.error, answer.gone, duration_ms)


def _send(deliveries: list[WebhookDelivery]) -> dict[str, str]:
    """Send claimed deliveries side by side (a batch of DELIVERY_BATCH lasts one receiver
    timeout at most, whoever is slow), and record each result as it comes in; the status of
    each."""
    outcomes: dict[str, str] = {}
    secrets: dict[Any, list[str]] = {}
    calls: list[tuple[WebhookDelivery, bytes, dict[str, str]]] = []
    for delivery in deliveries:
        endpoint = delivery.endpoint
        if not endpoint.active:
            outcomes[str(delivery.pk)] = _record(
                delivery, _Answer(error="The endpoint is disabled.")
            )
            continue
        if endpoint.pk not in secrets:
            secrets[endpoint.pk] = active_secrets(endpoint)
        body = delivery.body.encode()
        headers = signature_headers(
            body=body,
            event_id=str(delivery.event_id),
            event=delivery.event,
            timestamp=int(time.time()),
            secrets=secrets[endpoint.pk],
        )
        calls.append((delivery, body, headers))

    def post(call: tuple[WebhookDelivery, bytes, dict[str, str]]) -> _Answer:
        delivery, body, headers = call
        return _post(delivery.endpoint.url, body, headers)

    for ended in bounded(post, calls, limit=DELIVERY_BATCH):
        for index, answer in ended:
            delivery = calls[index][0]
            outcomes[str(delivery.pk)] = _record(delivery, answer)
    return outcomes


def _record(delivery: WebhookDelivery, answer: _Answer) -> str:
    status_code, error, gone = answer.status_code, answer.error, answer.gone
    now = timezone.now()
    succeeded = not error and status_code is not None and 200 <= status_code < 300
    attempts = delivery.attempts + 1
    retry = (
        not succeeded
        and not gone
        and DELIVERIES.backoff.allows(attempts)
        and delivery.event != TEST_EVENT
    )
    status = (
        DeliveryStatus.SUCCEEDED
        if succeeded
        else DeliveryStatus.PENDING
        if retry
        else DeliveryStatus.FAILED
    )
    endpoint = delivery.endpoint
    with transaction.atomic():
        WebhookAttempt.objects.create(
            delivery=delivery,
            at=now,
            status_code=status_code,
            duration_ms=answer.duration_ms,
            response=answer.excerpt[:1024],
            error=error[:500],
        )
        settled = DELIVERIES.settle(
            delivery,
            status=status,
            attempts=attempts,
            last_status_code=status_code,
            last_error=error[:500],
            next_attempt_at=now + DELIVERIES.backoff.delay(attempts) if retry else None,
            delivered_at=now if succeeded else None,
        )
        if not settled:  # its lease ran out and another task took it: that one records it
            return status
        # A test event says nothing of the endpoint's health: it counts neither way.
        if delivery.event != TEST_EVENT and succeeded:
            if endpoint.consecutive_failures:  # as loaded with the batch: most often 0
                WebhookEndpoint.objects.filter(pk=endpoint.pk).update(consecutive_failures=0)
                endpoint.consecutive_failures = 0
        elif delivery.event != TEST_EVENT and status == DeliveryStatus.FAILED:
            _endpoint_failed(endpoint, gone=gone)
    return status


def _endpoint_failed(endpoint: WebhookEndpoint, *, gone: bool) -> None:
    """A delivery failed for good: count it; disable the endpoint after
    WEBHOOK_DISABLE_AFTER_FAILURES in a row, or at once on a 410, and tell its owner."""
    locked = WebhookEndpoint.objects.select_for_update().get(pk=endpoint.pk)
    locked.consecutive_failures += 1
    limit = settings.WEBHOOK_DISABLE_AFTER_FAILURES
    if locked.active and (gone or locked.consecutive_failures >= limit):
        locked.active = False
        locked.disabled_reason = (
            "The endpoint answered 410 Gone."
            if gone
            else f"{locked.consecutive_failures} deliveries in a row failed."
        )
        # Told: who may fix it, the workspace's owners and admins.
        system_alert_send(
            title="Webhook endpoint disabled",
            message=f"{locked.url} was disabled: {locked.disabled_reason} Fix it, then "
            "re-activate it; events from now on will be delivered again.",
            user_ids=member_ids_who_may(workspace_id=locked.workspace_id, action=Action.MANAGE),
        )
    locked.save(update_fields=["consecutive_failures", "active", "disabled_reason", "updated_at"])
    endpoint.consecutive_failures, endpoint.active = locked.consecutive_failures, locked.active


def deliveries_sweep() -> int:
    """Queue the deliveries that are due (retries, lost queueings, dead workers' leases)."""
    now = timezone.now()
    due = WebhookDelivery.objects.filter(
        DELIVERIES.free(now), next_attempt_at__lte=now
    ).values_list("pk", flat=True)[:1000]
    due_ids = list(due)
    _queue(len(due_ids))
    return len(due_ids)


def delivery_redeliver(*, actor: Membership, delivery_id: uuid.UUID) -> WebhookDelivery:
    """A fresh attempt now, with the same event id and body (owners and admins of its
    workspace)."""
    return _redeliver(delivery_get(actor=actor, delivery_id=delivery_id))


def delivery_redeliver_now(*, delivery: WebhookDelivery) -> WebhookDelivery:
    """An operator sends a delivery again (the admin), whichever its workspace."""
    return _redeliver(delivery)


def _redeliver(delivery: WebhookDelivery) -> WebhookDelivery:
    with transaction.atomic():
        WebhookDelivery.objects.filter(pk=delivery.pk).update(
            status=DeliveryStatus.PENDING,
            next_attempt_at=timezone.now(),
            lease_expires_at=None,
            claim=None,
        )
        _queue(1)
    delivery.refresh_from_db()
    return delivery


def endpoint_test(*, actor: Membership, endpoint_id: uuid.UUID) -> WebhookDelivery:
    """Send `webhook.test` to this endpoint only (one attempt, no retries), as the actor's."""
    endpoint = endpoint_get(actor=actor, endpoint_id=endpoint_id)
    user = actor.user
    event_id, now = uuid.uuid4(), timezone.now()
    body = _body(
        event_id=str(event_id),
        event=TEST_EVENT,
        created_at=now,
        data={"message": "A test event from the Freelancer Growth Platform."},
        user=user,
        workspace_id=endpoint.workspace_id,
        actor=user_actor(user.pk),
    )
    with transaction.atomic():
        delivery = WebhookDelivery.objects.create(
            endpoint=endpoint,
            workspace_id=endpoint.workspace_id,
            event_id=event_id,
            event=TEST_EVENT,
            body=body,
            next_attempt_at=now,
            created_at=now,
        )
        _queue(1)
    return delivery


def deliveries_purge() -> int:
    cutoff = timezone.now() - timedelta(days=settings.WEBHOOK_RETENTION_DAYS)
    deleted, _ = WebhookDelivery.objects.filter(created_at__lt=cutoff).delete()
    return deleted
