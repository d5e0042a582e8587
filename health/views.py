"""GET /api/health (readiness, bare object) and GET /api/v1/health (liveness, envelope); GET
/metrics (Prometheus) and the admin's "System status" page."""

import hmac
from typing import Any

from django.conf import settings
from django.contrib import admin
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound
from django.template.response import TemplateResponse
from django.utils import timezone
from django.views import View
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.scopes import KEYS_REFUSED
from health import checks, selectors
from health.metrics import metrics_text
from social.selectors import scheduler_lateness

_SERVICES = inline_serializer(
    "HealthServices",
    fields={
        "database": serializers.ChoiceField(choices=["connected", "disconnected"]),
        "cache": serializers.ChoiceField(choices=["connected", "disconnected"]),
        "aiProviderProxy": serializers.ChoiceField(choices=["ready", "unavailable"]),
    },
)


class HealthView(APIView):
    """Readiness: 200 when every dependency answers, 503 `degraded` naming the cause if not."""

    api_key_scopes = KEYS_REFUSED
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]
    renderer_classes = [JSONRenderer]  # the specification's bare object, no envelope

    class OutputSerializer(serializers.Serializer[Any]):
        status = serializers.ChoiceField(choices=["ok", "degraded"])
        timestamp = serializers.DateTimeField()
        version = serializers.CharField()
        uptime = serializers.FloatField(help_text="Seconds since the process started.")
        services = _SERVICES
        error = serializers.CharField(required=False, help_text="Present when degraded.")

    @extend_schema(
        operation_id="health_readiness",
        responses={200: OutputSerializer, 503: OutputSerializer},
        tags=["health"],
    )
    def get(self, request: Request) -> Response:
        report = checks.run_checks()
        body: dict[str, Any] = {
            "status": "ok" if report.ok else "degraded",
            "timestamp": checks.now_iso(),
            "version": checks.version(),
            "uptime": checks.uptime_seconds(),
            "services": report.services,
        }
        if not report.ok:
            body["error"] = "; ".join(report.errors)
        return Response(
            body,
            status=status.HTTP_200_OK if report.ok else status.HTTP_503_SERVICE_UNAVAILABLE,
            headers={"Cache-Control": "no-store"},
        )


class HealthV1View(APIView):
    """Liveness: the process answers; dependencies are the readiness probe's business."""

    api_key_scopes = KEYS_REFUSED
    authentication_classes: list[Any] = []
    permission_classes = [AllowAny]

    class OutputSerializer(serializers.Serializer[Any]):
        status = serializers.ChoiceField(choices=["ok"])
        timestamp = serializers.DateTimeField()
        environment = serializers.CharField()

    @extend_schema(operation_id="health_liveness_v1", responses=OutputSerializer, tags=["health"])
    def get(self, request: Request) -> Response:
        return Response(
            {"status": "ok", "timestamp": checks.now_iso(), "environment": checks.environment()},
            headers={"Cache-Control": "no-store"},
        )


class MetricsView(View):
    """GET /metrics: the Prometheus text of every process of this deployment (docs/operations.md),
    for a Bearer of METRICS_TOKEN; 404 while no token is set (the route is not there), 401 for
    a missing or wrong one. Not an API route: no envelope, no API key, no schema."""

    def get(self, request: HttpRequest) -> HttpResponse:
        token = settings.METRICS_TOKEN
        if not token:
            return HttpResponseNotFound("Not found.\n", content_type="text/plain")
        offered = request.headers.get("Authorization", "")
        scheme, _, value = offered.partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(
            value.strip().encode(), token.encode()
        ):
            refused = HttpResponse(
                "Send the metrics token: Authorization: Bearer <METRICS_TOKEN>.\n",
                status=401,
                content_type="text/plain",
            )
            refused["WWW-Authenticate"] = 'Bearer realm="metrics"'
            return refused
        body, content_type = metrics_text()
        response = HttpResponse(body, content_type=content_type)
        response["Cache-Control"] = "no-store"
        return response


def system_status(request: HttpRequest) -> HttpResponse:
    """The admin's "System status" page (staff only: config.urls wraps it in the admin's
    login): the scheduler, failing providers, webhooks, the outbox and the workers, read now."""
    now = timezone.now()
    context = {
        **admin.site.each_context(request),
        "title": "System status",
        "now": now,
        "backlogs": selectors.backlogs(now=now),
        "lateness": scheduler_lateness(hours=1, now=now),
        "providers": selectors.providers_failing(hours=1, now=now),
        "workers": selectors.workers(now=now),
        "metrics_on": bool(settings.METRICS_TOKEN),
        "limits": STATUS_LIMITS,
    }
    return TemplateResponse(request, "admin/system_status.html", context)


# Where the page turns a number red: the thresholds of the example alerts (docs/operations.md).
STATUS_LIMITS = {
    "lateness_seconds": 60,
    "oldest_due_seconds": 120,
    "webhooks_oldest_seconds": 600,
    "outbox_lag_seconds": 300,
}
