"""Domain events for outgoing webhooks and the live feed, written to the transactional outbox."""

from typing import Any

from accounts.models import User
from notifications.models import OutboxEvent

# The specification's outgoing webhook events.
EVENTS = frozenset(
    {
        "generation.completed",
        "generation.failed",
        "credits.depleted",
        "post.published",
        "post.failed",
        "post.scheduled",
    }
)


def event_record(*, event: str, user: User | Any, data: dict[str, Any]) -> OutboxEvent:
    """Record `event` in the caller's transaction; it is delivered only if that commits."""
    if event not in EVENTS:
        raise ValueError(f"Unknown event {event!r}")
    user_id = user.pk if isinstance(user, User) else user
    return OutboxEvent.objects.create(event=event, user_id=user_id, data=data)
