"""The live feed's API: `POST /api/events/ticket`; the stream itself is
notifications/api/stream.py (social.md section 8, docs/live-feed.md)."""

from datetime import UTC, datetime
from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_user
from accounts.scopes import KEYS_REFUSED
from accounts.services.sessions import SESSION_CLAIM
from core.api.envelope import Envelope
from core.api.serializers import NoBody
from notifications.services.livefeed import ticket_issue


class TicketView(APIView):
    # The live feed is for signed-in browsers; automations use webhooks.
    api_key_scopes = KEYS_REFUSED

    @extend_schema(
        operation_id="events_ticket",
        tags=["events"],
        request=None,
        responses={
            200: inline_serializer(
                "EventsTicket",
                {"ticket": serializers.CharField(), "expiresAt": serializers.DateTimeField()},
            )
        },
        description="A single-use ticket, good for 60 seconds, to open the stream with "
        "`EventSource('/api/events/stream?ticket=...')` (which cannot send headers).",
    )
    def post(self, request: Request) -> Response:
        NoBody.check(request.data)
        claims = request.auth if hasattr(request.auth, "get") else {}
        session = str(claims.get(SESSION_CLAIM, ""))
        exp = claims.get("exp")
        ticket, expires_at = ticket_issue(
            user=request_user(request),
            session=session,
            access_expires_at=datetime.fromtimestamp(exp, tz=UTC) if exp else None,
        )
        return Response(Envelope(data={"ticket": ticket, "expiresAt": expires_at}))


def document_stream(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """drf-spectacular postprocessing hook: `GET /api/events/stream` is no DRF view (it is a
    plain ASGI application, notifications/api/stream.py), so its operation is added
    here."""
    result.setdefault("paths", {})["/api/events/stream"] = {
        "get": {
            "operationId": "events_stream",
            "tags": ["events"],
            "description": "Server-Sent Events of the user's `notification`, `post` and "
            "`credits` events, each with an `id:`; a `: heartbeat` comment every 15 s; a "
            "reconnect with Last-Event-ID receives what it missed, up to an hour back "
            "(docs/live-feed.md). Bearer header, or a ticket from POST /api/events/ticket.",
            "parameters": [
                {"name": "ticket", "in": "query", "schema": {"type": "string"}},
                {"name": "lastEventId", "in": "query", "schema": {"type": "integer"}},
                {"name": "Last-Event-ID", "in": "header", "schema": {"type": "integer"}},
            ],
            "responses": {
                "200": {
                    "description": "The stream",
                    "content": {"text/event-stream": {"schema": {"type": "string"}}},
                },
                "401": {
                    "description": "No credentials, an invalid token, or a used, expired "
                    "or unknown ticket"
                },
            },
        }
    }
    return result
