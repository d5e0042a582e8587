"""`GET /api/workspaces/{id}/activity?after=&limit=` (workspaces.md section 1): who did what in
a workspace, for its owners and admins, read from the same events the outbox keeps for the
replay (OUTBOX_RETENTION_DAYS), oldest first, resumed by `meta.nextCursor` as `/api/events` is.
Each event is told in one English sentence (`summary`), as the notifications' titles are; its
`type` is what a client translates or filters on. Sessions only."""

from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any
from uuid import UUID

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_user
from accounts.scopes import KEYS_REFUSED
from accounts.selectors import membership_get
from core.api.envelope import Envelope
from core.times import iso
from notifications.api.replay import DEFAULT_LIMIT, MAX_LIMIT, CursorField
from notifications.models import OutboxEvent
from notifications.selectors import activity_page, actor_names, event_cursor

Data = Mapping[str, Any]


def _when(value: Any) -> str:
    """An event's ISO time as a sentence shows it: `2026-12-01 09:30 UTC`."""
    try:
        moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return str(value)
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _title(data: Data) -> str:
    title = str(data.get("title") or "").strip()
    return f'the post "{title[:60]}"' if title else "a post"


def _platforms(data: Data) -> str:
    return ", ".join(data.get("platforms") or []) or "no network"


def _account(data: Data) -> str:
    return f"the {data.get('platform', '')} account @{data.get('username', '')}"


SENTENCES: dict[str, Callable[[Data], str]] = {
    "post.created": lambda d: f"Created {_title(d)}",
    "post.updated": lambda d: f"Edited {_title(d)}",
    "post.deleted": lambda d: "Deleted a post",
    "post.scheduled": lambda d: (
        f"Scheduled a post on {_platforms(d)} for {_when(d.get('scheduledAt'))}"
    ),
    "post.published": lambda d: f"Published on {d.get('platform')}: {d.get('postUrl') or ''}",
    "post.failed": lambda d: f"Publishing on {d.get('platform')} failed: {d.get('error') or ''}",
    "post.unconfirmed": lambda d: (
        f"Publishing on {d.get('platform')} could not be confirmed: {d.get('error') or ''}"
    ),
    "post.partially_published": lambda d: (
        f"A post went out on {len(d.get('published') or [])} of "
        f"{len(d.get('published') or []) + len(d.get('notPublished') or [])} accounts"
    ),
    "post.at_risk": lambda d: (
        f"Scheduled posts on {d.get('platform')} are at risk: "
        + ", ".join(str(p.get("code")) for p in d.get("problems") or [])
    ),
    "schedule.moved": lambda d: (
        f"Moved a post on {d.get('platform')} to {_when(d.get('scheduledAt'))}"
    ),
    "schedule.cancelled": lambda d: f"Cancelled a post on {d.get('platform')} ({d.get('reason')})",
    "account.connected": lambda d: f"Connected {_account(d)}",
    "account.reconnected": lambda d: f"Reconnected {_account(d)}",
    "account.expiring": lambda d: f"The connection of {_account(d)} ends in {d.get('days')} days",
    "account.expired": lambda d: f"The connection of {_account(d)} ended: {d.get('reason')}",
    "generation.completed": lambda d: f"Generated with {d.get('tool')}",
    "generation.failed": lambda d: f"A generation with {d.get('tool')} failed",
    "credits.depleted": lambda d: "Ran out of credits",
}


def summary(event: str, data: Data) -> str:
    """The event in one sentence (its type, for an event without one)."""
    sentence = SENTENCES.get(event)
    return sentence(data).strip() if sentence is not None else event


def activity_data(events: list[OutboxEvent], names: Mapping[str, str]) -> list[dict[str, Any]]:
    """The page as the API shows it: `{id, type, actor, summary, created_at}`, each actor who
    is a user named."""
    return [
        {
            "id": event.live_id,
            "type": event.event,
            "actor": _named(event.acted_by(), names),
            "summary": summary(event.event, event.data),
            "created_at": iso(event.created_at),
        }
        for event in events
    ]


def _named(actor: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    name = names.get(str(actor.get("id"))) if actor.get("type") == "user" else None
    return {**actor, "name": name} if name else dict(actor)


class ActivityView(APIView):
    api_key_scopes = KEYS_REFUSED
    schema_error_statuses = (403,)

    class QuerySerializer(serializers.Serializer[Any]):
        after = CursorField(
            required=False,
            allow_blank=True,
            max_length=64,
            help_text="Resume after this event: a meta.nextCursor or an event's id.",
        )
        limit = serializers.IntegerField(
            required=False,
            min_value=1,
            max_value=MAX_LIMIT,
            default=DEFAULT_LIMIT,
            help_text=f"1 to {MAX_LIMIT}, {DEFAULT_LIMIT}",
        )

    @extend_schema(
        operation_id="workspace_activity",
        tags=["workspaces"],
        parameters=[QuerySerializer],
        responses=inline_serializer(
            "ActivityEntry",
            {
                "id": serializers.IntegerField(),
                "type": serializers.CharField(),
                "actor": serializers.DictField(),
                "summary": serializers.CharField(),
                "created_at": serializers.DateTimeField(),
            },
            many=True,
        ),
    )
    def get(self, request: Request, workspace_id: UUID) -> Response:
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        actor = membership_get(user=request_user(request), workspace_id=workspace_id)
        limit = query.validated_data["limit"]
        after = event_cursor(
            workspaces=[actor.workspace_id], cursor=query.validated_data.get("after", "")
        )
        found = activity_page(actor=actor, after=after, limit=limit)
        return Response(
            Envelope(
                data=activity_data(found, actor_names(found)),
                meta={
                    "nextCursor": str(found[-1].live_id) if found else str(after),
                    "hasMore": len(found) == limit,
                },
            )
        )
