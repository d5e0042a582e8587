"""Writes of agent connections (agents.md section 2): made when a key is first used on /mcp,
their policy, their revocation, and the daily budgets, reserved before the work they pay for
and given back when it fails, in conditional UPDATEs (two calls at once never both pass)."""

from datetime import UTC, datetime, time, timedelta
from typing import Any
from uuid import UUID

from django.db import IntegrityError, transaction
from django.db.models import F
from django.utils import timezone
from oauth2_provider.models import get_refresh_token_model

from accounts.models import ApiKey, User
from accounts.services.api_keys import api_keys_revoke
from agents.errors import AgentAccountRefused, AgentBudgetExceeded
from agents.models import AgentConnection, AgentKind, AgentUsage
from agents.selectors import agent_get, today
from core.errors import ValidationFailed
from core.inputs import UNSET, Unset
from core.times import iso
from social.models import SocialAccount

TOUCH_EVERY = timedelta(minutes=1)  # last_used_at is written at most this often
CLIENT_MAX = 200


def agent_connection_for_key(*, key: ApiKey, client: str = "") -> AgentConnection:
    """The connection of an API key used on /mcp: made at its first use, named after it."""
    now = timezone.now()
    connection = AgentConnection.objects.filter(api_key=key).first()
    if connection is None:
        try:
            with transaction.atomic():
                connection = AgentConnection.objects.create(
                    user_id=key.user_id,
                    workspace_id=key.workspace_id,
                    kind=AgentKind.API_KEY,
                    api_key=key,
                    name=key.name,
                    client=client[:CLIENT_MAX],
                    last_used_at=now,
                )
        except IntegrityError:  # made by a concurrent first call
            connection = AgentConnection.objects.get(api_key=key)
    return agent_touch(connection=connection, client=client, now=now)


def agent_touch(
    *, connection: AgentConnection, client: str = "", now: datetime | None = None
) -> AgentConnection:
    """Record a use of the connection on /mcp (at most once a minute), with the client's
    User-Agent for an API key's (an OAuth grant's `client` is its registered name)."""
    now = now or timezone.now()
    if connection.last_used_at is None or connection.last_used_at < now - TOUCH_EVERY:
        fields: dict[str, Any] = {"last_used_at": now}
        if client:
            fields["client"] = client[:CLIENT_MAX]
        AgentConnection.objects.filter(pk=connection.pk).update(**fields)
        for name, value in fields.items():
            setattr(connection, name, value)
    return connection


def agent_policy_update(
    *,
    user: User,
    agent_id: UUID,
    autopublish: bool | Unset = UNSET,
    max_posts_per_day: int | Unset = UNSET,
    credit_budget_per_day: int | Unset = UNSET,
    account_ids: list[UUID] | Unset | None = UNSET,
) -> AgentConnection:
    """Change what the user's connection may do; only the fields given. `account_ids` must
    be accounts of the connection's workspace (else 400 naming `policy.accountIds`)."""
    connection = agent_get(user=user, agent_id=agent_id)
    if not isinstance(autopublish, Unset):
        connection.autopublish = autopublish
    if not isinstance(max_posts_per_day, Unset):
        connection.max_posts_per_day = max_posts_per_day
    if not isinstance(credit_budget_per_day, Unset):
        connection.credit_budget_per_day = credit_budget_per_day
    if not isinstance(account_ids, Unset):
        connection.account_ids = _accounts_of(connection, account_ids)
    connection.save(
        update_fields=["autopublish", "max_posts_per_day", "credit_budget_per_day", "account_ids"]
    )
    return connection


def _accounts_of(connection: AgentConnection, account_ids: list[UUID] | None) -> list[str] | None:
    if account_ids is None:
        return None
    wanted = list(dict.fromkeys(str(pk) for pk in account_ids))
    known = {
        str(pk)
        for pk in SocialAccount.objects.filter(
            workspace_id=connection.workspace_id, pk__in=wanted
        ).values_list("pk", flat=True)
    }
    unknown = [pk for pk in wanted if pk not in known]
    if unknown:
        raise ValidationFailed(
            details={
                "policy.accountIds": [f"Not an account of this workspace: {', '.join(unknown)}"]
            }
        )
    return wanted


def agent_revoke(*, user: User, agent_id: UUID) -> None:
    """Revoke the user's connection and its credential at once (the key: its next call is
    401, on /mcp and on REST alike; an OAuth grant's access and refresh tokens too, the
    connection's id being their token family: agents.oauth.validator)."""
    connection = agent_get(user=user, agent_id=agent_id)
    with transaction.atomic():
        AgentConnection.objects.filter(pk=connection.pk).update(revoked_at=timezone.now())
        if connection.api_key_id is not None:
            api_keys_revoke(key_ids=[connection.api_key_id])
        if connection.kind == AgentKind.OAUTH:
            get_refresh_token_model().revoke_family(connection.pk)


def agents_forget(user: Any) -> list[str]:
    """The user-data registry's cleanup (takeover, erasure): the user's connections go (their
    keys are revoked by accounts' own cleanup)."""
    deleted, _ = AgentConnection.objects.filter(user_id=user.pk).delete()
    return [f"{deleted} agent connection row(s)"] if deleted else []


# --- Policy checks and budgets ----------------------------------------------------------------


def agent_accounts_check(*, connection: AgentConnection, account_ids: list[str]) -> None:
    """Refuse accounts outside the connection's `accountIds` (null: every account)."""
    if connection.account_ids is None:
        return
    allowed = {str(pk) for pk in connection.account_ids}
    outside = [pk for pk in dict.fromkeys(account_ids) if str(pk) not in allowed]
    if outside:
        raise AgentAccountRefused(details={"accountIds": outside})


def _resets_at() -> str:
    return iso(datetime.combine(today() + timedelta(days=1), time.min, tzinfo=UTC))


def _usage_row(connection: AgentConnection) -> AgentUsage:
    row, _ = AgentUsage.objects.get_or_create(connection=connection, day=today())
    return row


def _reserve(connection: AgentConnection, field: str, amount: int, limit: int, budget: str) -> None:
    row = _usage_row(connection)
    taken = AgentUsage.objects.filter(pk=row.pk, **{f"{field}__lte": limit - amount}).update(
        **{field: F(field) + amount}
    )
    if not taken:
        used = AgentUsage.objects.filter(pk=row.pk).values_list(field, flat=True).first() or 0
        raise AgentBudgetExceeded(
            details={
                "budget": budget,
                "limit": limit,
                "used": used,
                "requested": amount,
                "resetsAt": _resets_at(),
            }
        )


def _give_back(connection: AgentConnection, field: str, amount: int) -> None:
    AgentUsage.objects.filter(
        connection=connection, day=today(), **{f"{field}__gte": amount}
    ).update(**{field: F(field) - amount})


def agent_posts_reserve(*, connection: AgentConnection) -> None:
    """Count one post published, scheduled or queued, or refuse (agent_budget_exceeded)."""
    _reserve(connection, "posts", 1, connection.max_posts_per_day, "maxPostsPerDay")


def agent_posts_release(*, connection: AgentConnection) -> None:
    _give_back(connection, "posts", 1)


def agent_credits_reserve(*, connection: AgentConnection, cost: int) -> None:
    """Count an AI call's credits before any is spent, or refuse (agent_budget_exceeded)."""
    _reserve(connection, "credits", cost, connection.credit_budget_per_day, "creditBudgetPerDay")


def agent_credits_release(*, connection: AgentConnection, cost: int) -> None:
    _give_back(connection, "credits", cost)
