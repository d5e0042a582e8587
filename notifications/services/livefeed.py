"""The live feed's writing side (docs/live-feed.md): each user's stream events, written in the
transaction of the change they describe and announced across processes when it commits.

`live_publish_many` inserts `LiveEvent` rows (their ids are the stream's `id:` lines, and a
reconnect with Last-Event-ID reads what it missed from them) and, on commit, publishes them on
this deployment's Redis channel (`LIVEFEED_CHANNEL`) when REDIS_URL is set, one message (a
JSON array) for the batch. The streams (notifications/api/stream.py) listen on that channel;
without Redis they poll the table instead. A rolled-back change publishes nothing.

Its events come through the event channel (notifications/events.py): `live_record` is
subscribed to every public event and to the internal `notification.created` (every
notification the center writes), `credits.changed` (every balance move, billing) and
`post.changed` (every post or record status change, the social hub), and writes their rows in
the emitter's transaction.
"""

import hashlib
import json
import logging
import secrets
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, NamedTuple
from uuid import UUID

import orjson
from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone
from redis.exceptions import RedisError

from accounts.models import User
from core.bulk import insert_values
from core.redis import get_redis
from core.times import iso
from notifications.events import Event
from notifications.models import CLIENT_KINDS, LiveEvent, LiveEventKind, LiveTicket, OutboxEvent

logger = logging.getLogger(__name__)


def channel() -> str:
    """This deployment's Redis channel (LIVEFEED_CHANNEL: one per database by default)."""
    return str(settings.LIVEFEED_CHANNEL)


TICKET_PREFIX = "evt_"


def message_data(
    event_id: int, user_id: UUID | str, kind: str, data: Any, workspace_id: UUID | str | None
) -> dict[str, Any]:
    """An event as it travels on the channel (and as the stream's poller rebuilds it): the
    streams of its workspace's members carry it, or, without one, its user's."""
    return {
        "id": event_id,
        "user": str(user_id),
        "kind": str(kind),
        "data": data,
        "workspace": None if workspace_id is None else str(workspace_id),
    }


def message_of(event: LiveEvent) -> str:
    """A stored event as it travelled on the channel."""
    return orjson.dumps(
        message_data(event.id, event.user_id, event.kind, event.data, event.workspace_id)
    ).decode()


def messages_in(published: bytes | str) -> list[dict[str, Any]]:
    """The events of one message on the channel: a JSON array of them (_announce)."""
    found = json.loads(published)
    return found if isinstance(found, list) else [found]


# One stream event to write: (user id, kind, data, workspace id or None: only the user's).
LiveItem = tuple[Any, LiveEventKind, dict[str, Any], Any]


def live_publish(*, user_id: UUID | str, kind: LiveEventKind, data: dict[str, Any]) -> None:
    """One event for the user's own streams."""
    live_publish_many(items=[(user_id, kind, data, None)])


def live_publish_many(*, items: Sequence[LiveItem]) -> list[int]:
    """Write these events in the caller's transaction (one INSERT, no model instance made);
    announce them when it commits. Their ids, in order."""
    if not items:
        return []
    now = timezone.now()
    ids = insert_values(
        LiveEvent,
        [
            {
                "user_id": user_id,
                "kind": str(kind),
                "data": data,
                "created_at": now,
                "workspace_id": workspace_id,
            }
            for user_id, kind, data, workspace_id in items
        ],
    )
    message = orjson.dumps(
        [message_data(event_id, *item) for event_id, item in zip(ids, items, strict=True)]
    ).decode()
    transaction.on_commit(lambda: _announce(message, len(ids)))
    return ids


def live_event_data(event: OutboxEvent) -> dict[str, Any]:
    """A domain event as the stream and `GET /api/events` show it, without its id (the live
    feed's, given by the row that carries it): `{type, created_at, data, eventId, workspaceId,
    actor}`, `eventId` being its webhooks' `webhook-id`."""
    return _event_data(
        event.event, event.created_at, event.data, event.id, event.workspace_id, event.acted_by()
    )


def _event_data(
    event: str,
    created_at: datetime,
    data: Any,
    event_id: UUID | None,
    workspace_id: UUID | str | None,
    actor: Mapping[str, Any],
) -> dict[str, Any]:
    return {
        "type": event,
        "created_at": iso(created_at),
        "data": data,
        "eventId": str(event_id),
        "workspaceId": None if workspace_id is None else str(workspace_id),
        "actor": actor,
    }


def _announce(message: str, count: int) -> None:
    """Publish a batch's events as one message (a JSON array): a burst's results announce
    their hundreds of events in a few PUBLISH commands, not one each."""
    if not settings.REDIS_URL:
        return  # each server process polls the table (LIVEFEED_POLL_SECONDS)
    try:
        get_redis().publish(channel(), message)
    except RedisError:
        # Not lost: the streams' catch-up read of the table finds them (api/stream.py).
        logger.warning("Live feed: Redis refused %s events; the streams catch up", count)


LIVE_KIND = {
    "notification.created": LiveEventKind.NOTIFICATION,
    "credits.changed": LiveEventKind.CREDITS,
    "post.changed": LiveEventKind.POST,
}


def live_record(emitted: list[Event]) -> None:
    """The event channel's recording subscriber, for every public event and the internal ones
    the feed shows (LIVE_KIND): one stream event each (the internal ones' own kinds, with their
    data; `event: <type>` for a public one, whose row id the outbox's row keeps for the
    replay), in one INSERT. The internal ones first, as they always were (they describe the
    state the public ones then report on)."""
    internal = [event for event in emitted if event.name in LIVE_KIND]
    public = [event for event in emitted if event.name not in LIVE_KIND]
    ids = live_publish_many(
        items=[
            (event.user_id, LIVE_KIND[event.name], event.payload.data, event.workspace_id)
            for event in internal
        ]
        + [
            (
                event.user_id,
                LiveEventKind.EVENT,
                _event_data(
                    event.name,
                    event.created_at,
                    event.payload.data,
                    event.id,
                    event.workspace_id,
                    event.actor,
                ),
                event.workspace_id,
            )
            for event in public
        ]
    )
    for event, live_id in zip(public, ids[len(internal) :], strict=True):
        event.live_id = live_id


# --- Tickets ----------------------------------------------------------------------------------


def _digest(ticket: str) -> str:
    return hashlib.sha256(ticket.encode()).hexdigest()


class Redeemed(NamedTuple):
    """What a redeemed ticket opens a stream for: the user, the sign-in that asked for it,
    the token version it was issued under and when that sign-in's access token expires."""

    user_id: UUID
    session: str
    token_version: int
    access_expires_at: datetime | None


def ticket_issue(
    *, user: User, session: str = "", access_expires_at: datetime | None = None
) -> tuple[str, datetime]:
    """A single-use ticket for `GET /api/events/stream?ticket=`, good for
    LIVEFEED_TICKET_SECONDS, bound to the sign-in (`session`) that asked for it and to its
    access token's expiry (the stream it opens ends then); only its digest is kept."""
    ticket = TICKET_PREFIX + secrets.token_urlsafe(32)
    expires_at = timezone.now() + timedelta(seconds=settings.LIVEFEED_TICKET_SECONDS)
    LiveTicket.objects.create(
        digest=_digest(ticket),
        user=user,
        session=session[:64],
        token_version=user.token_version,
        expires_at=expires_at,
        access_expires_at=access_expires_at,
    )
    return ticket, expires_at


def ticket_redeem(*, ticket: str) -> Redeemed | None:
    """What an unused, unexpired ticket opens, the ticket now used (one conditional UPDATE: a
    ticket opens one stream); None for anything else, also when its session was revoked since
    (logout, logout everywhere, takeover, erasure, deactivation) or its user is no longer
    active."""
    if not ticket.startswith(TICKET_PREFIX) or len(ticket) > 100:
        return None
    digest, now = _digest(ticket), timezone.now()
    used = LiveTicket.objects.filter(digest=digest, used_at__isnull=True, expires_at__gt=now)
    if not used.update(used_at=now):
        return None
    found = LiveTicket.objects.filter(digest=digest).select_related("user").first()
    if found is None:
        return None
    user = found.user
    revoked = found.session and found.session in (user.revoked_sessions or {})
    if not user.is_active or user.token_version != found.token_version or revoked:
        return None
    return Redeemed(found.user_id, found.session, found.token_version, found.access_expires_at)


def live_sessions_revoked(user: User, sid: str | None) -> None:
    """accounts' sessions_revoked hook: every server process ends the streams of the revoked
    session (or all the user's), through the feed's own channel, once the revocation commits."""
    live_publish(user_id=user.pk, kind=LiveEventKind.REVOKED, data={"session": sid or ""})


def live_membership_changed(user_id: UUID, workspace_id: UUID, reads: bool) -> None:
    """accounts' membership hook: the user now reads the workspace (joined it, or a role that
    may) or not (left, removed, a client's role, deleted); every server process makes their
    open streams carry its events, or stop at once, when the change commits."""
    live_publish(
        user_id=user_id,
        kind=LiveEventKind.MEMBERSHIP,
        data={"workspace": str(workspace_id), "member": reads},
    )


# --- Reading and upkeep -----------------------------------------------------------------------


def events_since(
    *, user_id: UUID | str, workspaces: Iterable[str], after: int, limit: int = 1000
) -> list[LiveEvent]:
    """The events after id `after` within the retention (a reconnect's backlog) of these
    workspaces and the user's own."""
    since = timezone.now() - timedelta(seconds=settings.LIVEFEED_RETENTION_SECONDS)
    theirs = Q(workspace_id__in=list(workspaces)) | Q(workspace__isnull=True, user_id=user_id)
    return list(
        LiveEvent.objects.filter(
            theirs, id__gt=after, created_at__gte=since, kind__in=CLIENT_KINDS
        ).order_by("id")[:limit]
    )


def events_recent(*, after: int, seconds: float, limit: int = 5000) -> list[LiveEvent]:
    """Everyone's events with an id after `after` or written in the last `seconds` (a
    transaction that took an id early may commit late: the poller looks back)."""
    since = timezone.now() - timedelta(seconds=seconds)
    recent = LiveEvent.objects.filter(Q(id__gt=after) | Q(created_at__gte=since))
    return list(recent.order_by("id")[:limit])


def events_latest_id() -> int:
    """The newest event's id (0 with none): where a poller that just started begins."""
    return LiveEvent.objects.order_by("-id").values_list("id", flat=True).first() or 0


def live_purge() -> int:
    """Delete events past the retention and tickets long expired; how many events."""
    now = timezone.now()
    LiveTicket.objects.filter(expires_at__lt=now - timedelta(hours=1)).delete()
    cutoff = now - timedelta(seconds=settings.LIVEFEED_RETENTION_SECONDS)
    deleted, _ = LiveEvent.objects.filter(created_at__lt=cutoff).delete()
    return deleted
