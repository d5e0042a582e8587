"""Reads of agent connections: a user's list, one of them, and what each used today."""

from datetime import date
from uuid import UUID

from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import User
from agents.errors import AgentNotFound
from agents.models import AgentConnection, AgentUsage


def today() -> date:
    """The budgets' day: UTC's (agents.md: per day; the reset is at 00:00 UTC)."""
    return timezone.now().date()


def agent_list(*, user: User) -> QuerySet[AgentConnection]:
    """The user's live connections, in every workspace, newest first."""
    return (
        AgentConnection.objects.filter(user=user, revoked_at__isnull=True)
        .select_related("api_key")
        .order_by("-created_at")
    )


def agent_get(*, user: User, agent_id: UUID) -> AgentConnection:
    """One of the user's live connections; another user's, or a revoked one: 404."""
    found = agent_list(user=user).filter(pk=agent_id).first()
    if found is None:
        raise AgentNotFound()
    return found


def agents_usage_today(*, connection_ids: list[UUID]) -> dict[UUID, AgentUsage]:
    """Today's usage of these connections, by connection id (none yet: absent)."""
    rows = AgentUsage.objects.filter(connection_id__in=connection_ids, day=today())
    return {row.connection_id: row for row in rows}
