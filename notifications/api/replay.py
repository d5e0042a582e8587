"""`GET /api/events?after=&limit=&workspace=`: the domain events of the user's workspaces
replayed for 30 days, under the live feed's ids (social.md section 12, workspaces.md section 1,
docs/live-feed.md)."""

from typing import Any

from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_user
from accounts.scopes import Scope
from core.api.envelope import Envelope
from notifications.selectors import event_cursor, event_workspaces, events_replay
from notifications.services.livefeed import live_event_data

DEFAULT_LIMIT = 100
MAX_LIMIT = 500


@extend_schema_field(
    {
        "type": "string",
        "maxLength": 64,
        # A live feed id (ASCII digits) or an event's UUID, as event_cursor reads it.
        "pattern": r"^([0-9]{1,18}|[0-9a-fA-F]{8}(-?[0-9a-fA-F]{4}){3}-?[0-9a-fA-F]{12})$",
    }
)
class CursorField(serializers.CharField):
    """Where a replay resumes; event_cursor judges it (400 invalid_cursor)."""


class EventReplayView(APIView):
    # What a webhook consumer reads to rebuild its state: the webhooks' own scope.
    api_key_scopes = {"GET": Scope.WEBHOOKS_WRITE}

    class QuerySerializer(serializers.Serializer[Any]):
        after = CursorField(
            required=False,
            allow_blank=True,
            max_length=64,
            help_text="Resume after this event: a meta.nextCursor, a live feed id "
            "(Last-Event-ID) or an event's id (a webhook's webhook-id). From the start of "
            "the 30 days without it.",
        )
        limit = serializers.IntegerField(
            required=False,
            min_value=1,
            max_value=MAX_LIMIT,
            default=DEFAULT_LIMIT,
            help_text=f"1 to {MAX_LIMIT}, {DEFAULT_LIMIT}",
        )
        workspace = serializers.UUIDField(
            required=False,
            help_text="Only this workspace's events (one the caller is a member of); without "
            "it, those of every workspace the caller belongs to.",
        )

    @extend_schema(
        operation_id="events_replay",
        tags=["events"],
        parameters=[QuerySerializer],
        responses=inline_serializer(
            "ReplayedEvent",
            {
                "id": serializers.IntegerField(),
                "type": serializers.CharField(),
                "created_at": serializers.DateTimeField(),
                "data": serializers.DictField(),
                "eventId": serializers.UUIDField(),
                "workspaceId": serializers.UUIDField(),
                "actor": serializers.DictField(),
            },
            many=True,
        ),
    )
    def get(self, request: Request) -> Response:
        query = self.QuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        workspaces = event_workspaces(
            user=request_user(request), workspace=query.validated_data.get("workspace")
        )
        after = event_cursor(workspaces=workspaces, cursor=query.validated_data.get("after", ""))
        limit = query.validated_data["limit"]
        found = events_replay(workspaces=workspaces, after=after, limit=limit)
        data = [{"id": event.live_id, **live_event_data(event)} for event in found]
        cursor = str(found[-1].live_id) if found else str(after)
        return Response(
            Envelope(data=data, meta={"nextCursor": cursor, "hasMore": len(found) == limit})
        )
