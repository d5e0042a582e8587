"""Share links and the report over HTTP (workspaces.md section 4): owners and admins make, list
and revoke a workspace's links (sessions only, as every `/api/workspaces/{id}/...` route);
members read the report; whoever holds a link reads the calendar (JSON, iCalendar) or the
report (JSON, CSV, PDF) with no account (`/api/public/...`)."""

from collections.abc import Iterable
from typing import Any
from uuid import UUID
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.renderers import BaseRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.authentication import request_user
from accounts.models import Workspace
from accounts.roles import Action, permission_check
from accounts.scopes import KEYS_REFUSED
from accounts.selectors import membership_get
from core.api.envelope import Envelope
from core.api.serializers import BodySerializer
from core.times import iso
from social.api.filters import RangeFilter
from social.api.scoping import PublicLinkView
from social.models import ShareKind, ShareLink
from social.planning import (
    IN_FEED,
    calendar_data,
    calendar_ics,
    calendar_records,
    calendar_window,
    report_build,
    report_csv,
    report_pdf,
    report_period,
    report_rows,
    share_link_create,
    share_link_open,
    share_link_revoke,
    share_link_status,
    share_links_of,
)
from social.selectors import settings_for
from social.throttling import PublicShareThrottle

FORMATS = ("json", "csv", "pdf")


class FormatNamesTheDocument(DefaultContentNegotiation):
    """`format` names the report's document here (json, csv, pdf), not a renderer, and a
    calendar app's `Accept: text/calendar` is answered with the feed: the envelope's JSON
    renderer serves the rest (errors included) whatever was asked."""

    def select_renderer(
        self, request: Request, renderers: Iterable[BaseRenderer], format_suffix: str | None = None
    ) -> tuple[BaseRenderer, str]:
        renderer = next(iter(renderers))
        return renderer, str(renderer.media_type)


def link_data(link: ShareLink) -> dict[str, Any]:
    """A link as its workspace's owners and admins see it, never its token."""
    return {
        "id": str(link.pk),
        "kind": link.kind,
        "status": share_link_status(link),
        "created_at": iso(link.created_at),
        "expires_at": iso(link.expires_at),
        "revoked_at": iso(link.revoked_at),
        "last_used_at": iso(link.last_used_at),
    }


class ShareLinkSerializer(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    kind = serializers.ChoiceField(choices=ShareKind.choices)
    status = serializers.ChoiceField(choices=["open", "revoked", "expired"])
    created_at = serializers.DateTimeField()
    expires_at = serializers.DateTimeField(allow_null=True)
    revoked_at = serializers.DateTimeField(allow_null=True)
    last_used_at = serializers.DateTimeField(allow_null=True)


class ShareLinkMadeSerializer(ShareLinkSerializer):
    url = serializers.URLField(
        help_text="What the link opens: the calendar's .ics feed, or the report's JSON (add "
        "?format=pdf or csv). Shown once."
    )
    token = serializers.CharField(help_text="Shown once: only its SHA-256 is kept.")


class ShareLinksView(APIView):
    """A workspace's share links: made (the token and URL shown once), listed (never the
    token again). Owners and admins; not a member: 404 `workspace_not_found`."""

    api_key_scopes = KEYS_REFUSED
    schema_error_statuses = (403, 409)

    class InputSerializer(BodySerializer):
        kind = serializers.ChoiceField(choices=ShareKind.choices)
        expiresAt = serializers.DateTimeField(required=False, allow_null=True)

    @extend_schema(
        operation_id="workspace_share_links_list",
        tags=["workspaces"],
        responses=ShareLinkSerializer(many=True),
    )
    def get(self, request: Request, workspace_id: UUID) -> Response:
        actor = membership_get(user=request_user(request), workspace_id=workspace_id)
        return Response(Envelope(data=[link_data(link) for link in share_links_of(actor=actor)]))

    @extend_schema(
        operation_id="workspace_share_links_create",
        tags=["workspaces"],
        request=InputSerializer,
        responses=ShareLinkMadeSerializer,
    )
    def post(self, request: Request, workspace_id: UUID) -> Response:
        body = self.InputSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        actor = membership_get(user=request_user(request), workspace_id=workspace_id)
        shared = share_link_create(
            actor=actor,
            kind=body.validated_data["kind"],
            expires_at=body.validated_data.get("expiresAt"),
        )
        data = link_data(shared.link) | {"url": shared.url, "token": shared.token}
        return Response(Envelope(data=data, message="Share link made"))


class ShareLinkDetailView(APIView):
    api_key_scopes = KEYS_REFUSED
    schema_error_statuses = (403,)

    @extend_schema(
        operation_id="workspace_share_links_revoke",
        tags=["workspaces"],
        responses={200: ShareLinkSerializer},
        description="Close the link at once: it answers 410 `share_link_closed` from now on.",
    )
    def delete(self, request: Request, workspace_id: UUID, link_id: UUID) -> Response:
        actor = membership_get(user=request_user(request), workspace_id=workspace_id)
        link = share_link_revoke(actor=actor, link_id=link_id)
        return Response(Envelope(data=link_data(link), message="Share link revoked"))


# --- The report --------------------------------------------------------------------------------


class ReportQuery(RangeFilter):
    start = serializers.DateField(
        required=False,
        input_formats=["%Y-%m-%d"],
        help_text="YYYY-MM-DD, included; default: the 30 days up to `to`",
    )
    end = serializers.DateField(
        required=False,
        input_formats=["%Y-%m-%d"],
        help_text="YYYY-MM-DD, included; default: today in the workspace's time zone",
    )
    format = serializers.ChoiceField(choices=FORMATS, required=False, default="json")


REPORT_RESPONSES = {
    (200, "application/json"): inline_serializer(
        "Report",
        {
            "workspace": serializers.DictField(),
            "from": serializers.DateField(),
            "to": serializers.DateField(),
            "timezone": serializers.CharField(),
            "totals": serializers.DictField(),
            "networks": serializers.ListField(child=serializers.DictField()),
            "topPosts": serializers.ListField(child=serializers.DictField()),
            "approvalMedianHours": serializers.FloatField(allow_null=True),
        },
    ),
    (200, "text/csv"): OpenApiResponse(
        OpenApiTypes.STR, description="One row per published record."
    ),
    (200, "application/pdf"): OpenApiResponse(
        OpenApiTypes.BINARY, description="The report as a PDF."
    ),
}


def report_response(request: Request, workspace: Workspace) -> HttpResponse | Response:
    """The workspace's report in the format asked for (the query's validation: 400 naming
    the field)."""
    query = ReportQuery(data=request.query_params)
    query.is_valid(raise_exception=True)
    asked = query.validated_data
    zone = _zone(workspace.pk)
    period = report_period(
        first=asked.get("from"),
        last=asked.get("to"),
        zone=zone,
        today=timezone.now().astimezone(zone).date(),
    )
    name = f"report-{period.first.isoformat()}-{period.last.isoformat()}"
    if asked["format"] == "csv":
        response = HttpResponse(
            report_csv(report_rows(workspace_id=workspace.pk, period=period)),
            content_type="text/csv; charset=utf-8",
        )
        response["Content-Disposition"] = f'attachment; filename="{name}.csv"'
        return response
    report = report_build(workspace_id=workspace.pk, period=period)
    if asked["format"] == "pdf":
        response = HttpResponse(
            report_pdf(report, workspace_name=workspace.name, generated=timezone.now()),
            content_type="application/pdf",
        )
        response["Content-Disposition"] = f'inline; filename="{name}.pdf"'
        return response
    return Response(Envelope(data={"workspace": {"name": workspace.name}, **report.data()}))


def _zone(workspace_id: UUID) -> ZoneInfo:
    """The workspace's time zone (its social settings'), in which the report's days are
    read."""
    try:
        return ZoneInfo(settings_for(workspace_id).default_timezone or "UTC")
    except (ZoneInfoNotFoundError, ValueError):
        return ZoneInfo("UTC")


class WorkspaceReportView(APIView):
    """The workspace's report (`format`: json, csv, pdf) for its members who may read it:
    owners, admins, editors, viewers and clients (workspaces.md section 2: clients read
    reports). Sessions only; not a member: 404 `workspace_not_found`."""

    api_key_scopes = KEYS_REFUSED
    content_negotiation_class = FormatNamesTheDocument
    schema_error_statuses = (403,)

    @extend_schema(
        operation_id="workspace_report",
        tags=["workspaces"],
        parameters=[ReportQuery],
        responses=REPORT_RESPONSES,
    )
    def get(self, request: Request, workspace_id: UUID) -> HttpResponse | Response:
        actor = membership_get(user=request_user(request), workspace_id=workspace_id)
        permission_check(role=actor.role, action=Action.READ_SHARED)
        return report_response(request, actor.workspace)


# --- What a link opens, with no account --------------------------------------------------------


class PublicView(PublicLinkView):
    throttle_classes = [PublicShareThrottle]
    content_negotiation_class = FormatNamesTheDocument
    schema_error_statuses = (404, 410, 429)


class PublicCalendarView(PublicView):
    @extend_schema(
        operation_id="public_calendar",
        tags=["sharing"],
        auth=[],
        responses=inline_serializer(
            "PublicCalendar",
            {
                "workspace": serializers.DictField(),
                "from": serializers.DateTimeField(),
                "to": serializers.DateTimeField(),
                "posts": serializers.ListField(child=serializers.DictField()),
            },
        ),
        description="The workspace's posts of the last 30 and the next 60 days, through a "
        "calendar link: an unknown token 404, a revoked or expired link 410 "
        "`share_link_closed`.",
    )
    def get(self, request: Request, token: str) -> Response:
        link = share_link_open(token=token, kind=ShareKind.CALENDAR)
        window = calendar_window()
        records = calendar_records(workspace_id=link.workspace_id, window=window)
        return Response(
            Envelope(
                data=calendar_data(
                    workspace_name=link.workspace.name, records=records, window=window
                )
            )
        )


class PublicCalendarFeedView(PublicView):
    @extend_schema(
        operation_id="public_calendar_feed",
        tags=["sharing"],
        auth=[],
        responses={
            (200, "text/calendar"): OpenApiResponse(OpenApiTypes.STR, description="RFC 5545")
        },
        description="The same posts as an iCalendar feed (RFC 5545) a calendar app subscribes "
        "to: one VEVENT per waiting or published record, its UID the record's.",
    )
    def get(self, request: Request, token: str) -> HttpResponse:
        link = share_link_open(token=token, kind=ShareKind.CALENDAR)
        records = calendar_records(
            workspace_id=link.workspace_id, window=calendar_window(), statuses=IN_FEED
        )
        response = HttpResponse(
            calendar_ics(workspace_name=link.workspace.name, records=records),
            content_type="text/calendar; charset=utf-8",
        )
        response["Content-Disposition"] = 'inline; filename="calendar.ics"'
        return response


class PublicReportView(PublicView):
    @extend_schema(
        operation_id="public_report",
        tags=["sharing"],
        auth=[],
        parameters=[ReportQuery],
        responses=REPORT_RESPONSES,
        description="The workspace's report through a report link, as the members' (`from`, "
        "`to`, `format`): an unknown token 404, a revoked or expired link 410 "
        "`share_link_closed`.",
    )
    def get(self, request: Request, token: str) -> HttpResponse | Response:
        link = share_link_open(token=token, kind=ShareKind.REPORT)
        return report_response(request, link.workspace)
