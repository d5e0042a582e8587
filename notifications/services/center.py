"""Writes on notifications; notify(), notify_many() and notify_bulk() are the one way every app
creates them.

Every write also moves the user's NotificationCounter in the same transaction, so totals are
read, never counted.
"""

from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID, uuid4

from django.db import transaction
from django.db.models import Count, F, Q
from django.utils import timezone

from accounts.hooks import REMOVED_LOGIN, Removals
from accounts.models import User
from core.bulk import insert_values, upsert_add
from notifications.errors import NotificationNotFound
from notifications.events import emit_many, notification_created
from notifications.models import (
    CATEGORY_OF_TYPE,
    Notification,
    NotificationCounter,
    NotificationType,
)
from notifications.selectors import notification_get

BATCH_SIZE = 1000  # one INSERT round trip per batch
# A notification's values, as _row makes them: what the event channel's `notification.created`
# carries (notifications/output.py presents it as the API shows it).
NOTIFICATION_FIELDS = (
    "id",
    "user_id",
    "title",
    "message",
    "category",
    "type",
    "read",
    "metadata",
    "created_at",
)


def _values_of(notification: Notification) -> dict[str, Any]:
    return {field: getattr(notification, field) for field in NOTIFICATION_FIELDS}


def _announce(rows: Iterable[dict[str, Any]]) -> None:
    """Each new notification (its values: NOTIFICATION_FIELDS) on the event channel (the live
    feed's subscriber shows it)."""
    emit_many(items=[(row["user_id"], notification_created(values=row)) for row in rows])


def _row(
    *,
    user_id: UUID | str,
    kind: NotificationType,
    title: str,
    message: str,
    metadata: dict[str, Any],
) -> dict[str, Any]:
    """A new notification's values, as the model's defaults and limits make them."""
    return {
        "id": uuid4(),
        "user_id": user_id,
        "title": title[:200],
        "message": message[:2000],
        "category": CATEGORY_OF_TYPE[kind],
        "type": kind.value,
        "read": False,
        "metadata": metadata,
        "created_at": timezone.now(),
    }


def _write(rows: list[dict[str, Any]]) -> None:
    """Insert these notifications (values, no model instance made: a burst's settle writes
    one for most published records) in one statement, count them and announce them."""
    with transaction.atomic(savepoint=False):
        insert_values(Notification, rows)
        _counters_add(Counter(str(row["user_id"]) for row in rows))
        _announce(rows)


def _counters_add(added: Counter[Any]) -> None:
    """Count new unread notifications: `added` maps user id -> how many. One statement per
    batch (core.bulk.upsert_add): the missing counter rows made, the others added to."""
    upsert_add(
        NotificationCounter,
        key="user",
        amounts={user_id: {"total": amount, "unread": amount} for user_id, amount in added.items()},
    )


def _counter_move(user_id: UUID, *, total: int = 0, unread: int = 0) -> None:
    if total or unread:
        NotificationCounter.objects.filter(user_id=user_id).update(
            total=F("total") + total, unread=F("unread") + unread
        )


def notify(
    *,
    user: User,
    type: NotificationType | str,
    title: str,
    message: str,
    metadata: dict[str, Any] | None = None,
) -> Notification:
    """Create one notification; the category follows from the type."""
    kind = NotificationType(type)
    with transaction.atomic(savepoint=False):  # no savepoint: nothing in here is recovered from
        notification = Notification.objects.create(
            user=user,
            type=kind,
            category=CATEGORY_OF_TYPE[kind],
            title=title[:200],
            message=message[:2000],
            metadata=metadata or {},
        )
        _counters_add(Counter({user.pk: 1}))
        _announce([_values_of(notification)])
    return notification


@dataclass(frozen=True, slots=True)
class NotificationDraft:
    """One notification to create with notify_many()."""

    user_id: UUID | str
    type: NotificationType | str
    title: str
    message: str
    metadata: dict[str, Any] = field(default_factory=dict)


def notify_many(*, drafts: Sequence[NotificationDraft]) -> int:
    """Several notifications, to one user or many, in one INSERT with their counters, in the
    caller's transaction (a batch of results settled together). How many."""
    rows = [
        _row(
            user_id=draft.user_id,
            kind=NotificationType(draft.type),
            title=draft.title,
            message=draft.message,
            metadata=draft.metadata,
        )
        for draft in drafts
    ]
    if rows:
        _write(rows)
    return len(rows)


def notify_bulk(
    *,
    user_ids: Iterable[UUID | str],
    type: NotificationType | str,
    title: str,
    message: str,
    metadata: dict[str, Any] | None = None,
    batch_size: int = BATCH_SIZE,
) -> int:
    """The same notification to many users, one INSERT per batch (each batch its own
    transaction, with its counters). Returns how many."""
    kind = NotificationType(type)
    created = 0
    batch: list[dict[str, Any]] = []
    for user_id in user_ids:
        batch.append(
            _row(user_id=user_id, kind=kind, title=title, message=message, metadata=metadata or {})
        )
        if len(batch) >= batch_size:
            _write(batch)
            created += len(batch)
            batch = []
    if batch:
        _write(batch)
        created += len(batch)
    return created


def notification_mark_read(*, user: User, notification_id: UUID) -> Notification:
    """Mark one of the user's notifications read; marking a read one again changes nothing."""
    notification = notification_get(user=user, notification_id=notification_id)
    if not notification.read:
        with transaction.atomic(savepoint=False):
            # Conditional, so a concurrent read-all or a second click is not counted twice.
            changed = Notification.objects.filter(pk=notification.pk, read=False).update(read=True)
            _counter_move(user.pk, unread=-changed)
        notification.read = True
    return notification


@transaction.atomic(savepoint=False)
def notifications_mark_all_read(*, user: User) -> int:
    """One UPDATE over the user's unread rows (the partial unread index finds them)."""
    changed = Notification.objects.filter(user=user, read=False).update(read=True)
    _counter_move(user.pk, unread=-changed)
    return changed


def notification_delete(*, user: User, notification_id: UUID) -> None:
    """Delete one of the user's notifications; another user's id is a 404 and deletes nothing.

    Two conditional DELETEs (unread, then read) say which counter to move without a SELECT
    that a concurrent mark-read could make stale.
    """
    mine = Notification.objects.filter(pk=notification_id, user=user)
    with transaction.atomic(savepoint=False):
        if deleted := mine.filter(read=False).delete()[0]:
            _counter_move(user.pk, total=-1, unread=-1)
        elif deleted := mine.filter(read=True).delete()[0]:
            _counter_move(user.pk, total=-1)
    if not deleted:
        raise NotificationNotFound()


@transaction.atomic(savepoint=False)
def notifications_delete(*, notification_ids: Iterable[UUID]) -> int:
    """Operators' bulk delete (the admin), keeping every owner's counter right."""
    rows = Notification.objects.filter(pk__in=list(notification_ids))
    per_user: defaultdict[Any, list[int]] = defaultdict(lambda: [0, 0])
    # Locked first, so a concurrent mark-read cannot change what is counted below.
    for user_id, read in rows.select_for_update().values_list("user_id", "read"):
        per_user[user_id][0] += 1
        per_user[user_id][1] += not read
    deleted, _ = rows.delete()
    for user_id, (total, unread) in per_user.items():
        _counter_move(user_id, total=-total, unread=-unread)
    return deleted


def system_alert_send(
    *,
    title: str,
    message: str,
    user_ids: Iterable[UUID | str] | None = None,
    batch_size: int = BATCH_SIZE,
) -> int:
    """A system_alert to the given users, or to every active user when `user_ids` is None.

    User ids are streamed in chunks and inserted one batch at a time, so memory and round
    trips grow with the number of batches, not of users. Returns how many were sent.
    """
    if user_ids is None:
        user_ids = (
            User.objects.filter(is_active=True)
            .order_by()
            .values_list("id", flat=True)
            .iterator(chunk_size=batch_size)
        )
    return notify_bulk(
        user_ids=user_ids,
        type=NotificationType.SYSTEM_ALERT,
        title=title,
        message=message,
        batch_size=batch_size,
    )


@transaction.atomic
def notification_counters_rebuild(*, user_ids: Iterable[UUID | str] | None = None) -> int:
    """Recount counters from the rows (all users, or the given ones): for data loaded behind
    the services' back, such as a bulk import or the benchmark's fill. Returns how many."""
    rows = Notification.objects.order_by()
    counters = NotificationCounter.objects.all()
    if user_ids is not None:
        ids = list(user_ids)
        rows, counters = rows.filter(user_id__in=ids), counters.filter(user_id__in=ids)
    counts = rows.values("user_id").annotate(
        total=Count("id"), unread=Count("id", filter=Q(read=False))
    )
    counters.delete()
    rebuilt = NotificationCounter.objects.bulk_create(
        [
            NotificationCounter(user_id=c["user_id"], total=c["total"], unread=c["unread"])
            for c in counts
        ],
        batch_size=BATCH_SIZE,
    )
    return len(rebuilt)


# What the owner can do to get back what a takeover removed, by the model it was of; what is
# not here (the other sessions, tickets, stored replies) needs nothing from them.
RESTORE_ADVICE = {
    "social.SocialAccount": "reconnect your social accounts",
    "notifications.WebhookEndpoint": "add your webhook endpoints again",
    "accounts.ApiKey": "create new API keys for your automations",
}


def account_reclaimed_notify(user: User, removed: Removals) -> None:
    """accounts' account_reclaimed hook: tell the owner what their first sign-in by e-mail
    link removed, and why, and only what they may want to set up again, so nothing
    disappears without a word and nothing is asked for that was not removed
    (docs/accounts.md)."""
    items = [what for whats in removed.values() for what in whats]
    message = (
        "This account was created before its e-mail address was confirmed, so anyone could "
        "have set it up. To make sure only you can use it, we removed what could let someone "
        f"else in or act in your name: {', '.join(items) or 'nothing'}. Your name, AI history, "
        "gigs, proposals, posts and notifications are kept."
    )
    advice = [text for label, text in RESTORE_ADVICE.items() if label in removed]
    if advice:
        message += f" If they were yours, {_listed(advice)}."
    if REMOVED_LOGIN in removed:
        message += " To sign in with a password, set a new one."
    notify(
        user=user,
        type=NotificationType.SYSTEM_ALERT,
        title="Your account is secured",
        message=message,
        metadata={"removed": items},
    )


def _listed(parts: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def notifications_erase(user: User) -> list[str]:
    """The registry's erasure cleanup: the user's notifications, counters, domain events and
    live-feed events and tickets."""
    from notifications.models import (
        LiveEvent,
        LiveEventKind,
        LiveTicket,
        NotificationCounter,
        OutboxEvent,
    )

    Notification.objects.filter(user=user).delete()
    NotificationCounter.objects.filter(user=user).delete()
    OutboxEvent.objects.filter(user=user).delete()
    # The revocation event stays (it carries nothing personal, and goes with the hour's
    # retention): without Redis, the server processes learn from it to close the streams.
    LiveEvent.objects.filter(user=user).exclude(kind=LiveEventKind.REVOKED).delete()
    LiveTicket.objects.filter(user=user).delete()
    return []


def tickets_forget(user: User) -> list[str]:
    """The registry's takeover cleanup: unused live-feed tickets open nothing any more."""
    from notifications.models import LiveTicket

    LiveTicket.objects.filter(user=user).delete()
    return []
