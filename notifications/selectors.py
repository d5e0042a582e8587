"""Reads on notifications, always scoped to one user so the per-user indexes serve them, and on
webhook deliveries, scoped to one workspace."""

from datetime import timedelta
from typing import Any, overload
from uuid import UUID

from django.conf import settings
from django.db.models import Exists, OuterRef, QuerySet
from django.db.models.query import ModelIterable
from django.utils import timezone

from accounts.models import Membership, User
from accounts.roles import Action, permission_check, roles_allowed
from accounts.selectors import membership_get
from notifications.errors import InvalidCursor, NotificationNotFound, WebhookDeliveryNotFound
from notifications.models import (
    Notification,
    NotificationCounter,
    OutboxEvent,
    WebhookDelivery,
    WebhookEndpoint,
)


class NotificationPageQuerySet(QuerySet[Notification, Notification]):
    """The same rows as a plain queryset; a slice of it (a page) is read by a deferred join.

    `LIMIT 20 OFFSET n` over whole rows makes PostgreSQL fetch and discard every skipped row
    from the table, or give up on the index and sort all of the user's rows (a deep page of a
    user with many: docs/performance.md). A slice here becomes
    `WHERE id IN (SELECT id ... ORDER BY ... LIMIT 20 OFFSET n)`: the ids come from an
    index-only scan of (user, -created_at, -id), which holds every column the subquery needs,
    and only the 20 rows of the page are read from the table. Still one query.
    """

    @overload
    def __getitem__(self, k: int) -> Notification: ...
    @overload
    def __getitem__(self, k: slice) -> "NotificationPageQuerySet": ...
    def __getitem__(self, k: int | slice) -> Any:
        if (
            isinstance(k, slice)
            and k.step is None
            and (k.start or 0) >= 0
            and (k.stop is None or k.stop >= 0)
            and self._result_cache is None
            and self._iterable_class is ModelIterable  # not for values(), the subquery itself
            and not self.query.is_sliced
        ):
            return self.filter(pk__in=self.values("pk")[k])
        return super().__getitem__(k)


def notification_list(*, user: User, read: bool | None = None) -> QuerySet[Notification]:
    """The user's notifications, newest first; `read` narrows to read or unread ones.

    Newest first is the order of `notif_user_created_idx` (user, -created_at, -id); the unread
    ones are exactly the rows of the partial index `notif_user_unread_idx`.
    """
    notifications = NotificationPageQuerySet(model=Notification).filter(user=user)
    if read is False:
        notifications = notifications.filter(read=False)
    elif read is True:
        # "Not unread" rather than `read = true`: the flag is only in the table, so counting
        # the read ones would visit every row of the user, while this anti join is answered
        # from the two indexes alone (docs/performance.md). NOT EXISTS, not NOT IN:
        # a hash anti join spills to disk, a hashed NOT IN turns quadratic past work_mem.
        unread = Notification.objects.filter(pk=OuterRef("pk"), user=user, read=False)
        notifications = notifications.filter(~Exists(unread))
    return notifications.order_by("-created_at", "-id")


def notification_counts(*, user: User) -> tuple[int, int]:
    """(total, unread) from the user's counter: one primary-key read, never a COUNT."""
    counts = NotificationCounter.objects.filter(user=user).values_list("total", "unread").first()
    return counts if counts is not None else (0, 0)


def notification_total(*, user: User, read: bool | None = None) -> int:
    """How many `notification_list(user=user, read=read)` holds, without counting rows."""
    total, unread = notification_counts(user=user)
    if read is None:
        return total
    return total - unread if read else unread


def notification_unread_count(*, user: User) -> int:
    return notification_counts(user=user)[1]


def notification_get(*, user: User, notification_id: UUID) -> Notification:
    """The user's notification; another user's id is answered like a missing one."""
    notification = Notification.objects.filter(pk=notification_id, user=user).first()
    if notification is None:
        raise NotificationNotFound()
    return notification


def endpoint_list(*, actor: Membership) -> QuerySet[WebhookEndpoint]:
    """The webhook endpoints of the actor's workspace, for its owners and admins."""
    permission_check(role=actor.role, action=Action.MANAGE)
    return WebhookEndpoint.objects.filter(workspace_id=actor.workspace_id)


def delivery_list(
    *,
    actor: Membership,
    endpoint_id: UUID | None = None,
    event: str | None = None,
    status: str | None = None,
) -> QuerySet[WebhookDelivery]:
    """The webhook deliveries of the actor's workspace, newest first: for its owners and
    admins, who manage its endpoints (docs/webhooks.md)."""
    permission_check(role=actor.role, action=Action.MANAGE)
    rows = WebhookDelivery.objects.filter(workspace_id=actor.workspace_id)
    if endpoint_id:
        rows = rows.filter(endpoint_id=endpoint_id)
    if event:
        rows = rows.filter(event=event)
    if status:
        rows = rows.filter(status=status)
    return rows


def delivery_get(*, actor: Membership, delivery_id: UUID) -> WebhookDelivery:
    """A delivery of the actor's workspace (owners and admins); another workspace's is 404."""
    permission_check(role=actor.role, action=Action.MANAGE)
    found = WebhookDelivery.objects.filter(pk=delivery_id, workspace_id=actor.workspace_id).first()
    if found is None:
        raise WebhookDeliveryNotFound()
    return found


def event_workspaces(*, user: User, workspace: UUID | None = None) -> list[UUID]:
    """The workspaces whose events the user reads: every one whose data their role may read,
    or the one asked for (`?workspace=`; 404 workspace_not_found when they are not its member,
    403 permission_denied for a role that may not read it)."""
    if workspace is not None:
        membership = membership_get(user=user, workspace_id=workspace)
        permission_check(role=membership.role, action=Action.READ)
        return [membership.workspace_id]
    readers = Membership.objects.filter(user=user, role__in=roles_allowed(Action.READ))
    return list(readers.values_list("workspace_id", flat=True))


def event_cursor(*, workspaces: list[UUID], cursor: str) -> int:
    """Where a replay resumes: after a live feed id (a `nextCursor`, the stream's
    Last-Event-ID), or after the event a webhook delivered (its `webhook-id`, one of these
    workspaces'); 0 from the start. Anything else: 400 invalid_cursor."""
    cursor = cursor.strip()
    if not cursor:
        return 0
    # ASCII digits only: str.isdigit() is also true of "²", which int() refuses.
    if cursor.isascii() and cursor.isdigit() and len(cursor) <= 18:
        return int(cursor)
    try:
        event_id = UUID(cursor)
    except ValueError:
        raise InvalidCursor() from None
    found = (
        OutboxEvent.objects.filter(workspace_id__in=workspaces, id=event_id, live_id__isnull=False)
        .values_list("live_id", flat=True)
        .first()
    )
    if found is None:
        raise InvalidCursor()
    return int(found)


def events_replay(*, workspaces: list[UUID], after: int, limit: int) -> list[OutboxEvent]:
    """The domain events of these workspaces after live feed id `after`, oldest first, from
    the outbox's retention (OUTBOX_RETENTION_DAYS, 30), whichever consumers wanted them. The
    last EVENTS_REPLAY_SETTLE_SECONDS are held back: ids are given at insert, and a transaction
    that took an id a moment ago may not have committed yet; a reader that passed its id
    would never see it."""
    now = timezone.now()
    return list(
        OutboxEvent.objects.filter(
            workspace_id__in=workspaces,
            live_id__gt=after,
            created_at__gte=now - timedelta(days=settings.OUTBOX_RETENTION_DAYS),
            created_at__lte=now - timedelta(seconds=settings.EVENTS_REPLAY_SETTLE_SECONDS),
        ).order_by("live_id")[:limit]
    )


def activity_page(*, actor: Membership, after: int, limit: int) -> list[OutboxEvent]:
    """The workspace's events after live feed id `after`, oldest first (owners and admins:
    403 for the other roles), within the outbox's retention, the newest
    EVENTS_REPLAY_SETTLE_SECONDS held back as the replay holds them."""
    permission_check(role=actor.role, action=Action.ACTIVITY)
    now = timezone.now()
    return list(
        OutboxEvent.objects.filter(
            workspace_id=actor.workspace_id,
            live_id__gt=after,
            created_at__gte=now - timedelta(days=settings.OUTBOX_RETENTION_DAYS),
            created_at__lte=now - timedelta(seconds=settings.EVENTS_REPLAY_SETTLE_SECONDS),
        ).order_by("live_id")[:limit]
    )


def actor_names(events: list[OutboxEvent]) -> dict[str, str]:
    """The names of the users who did these events (their full name, else their e-mail), by
    id as text, in one query; an erased or deactivated user is not named."""
    acting = {
        str(actor["id"])
        for actor in (event.acted_by() for event in events)
        if actor.get("type") == "user" and actor.get("id")
    }
    if not acting:
        return {}
    found = User.objects.filter(pk__in=acting, is_active=True)
    return {
        str(pk): full_name or email
        for pk, full_name, email in found.values_list("pk", "full_name", "email")
    }
