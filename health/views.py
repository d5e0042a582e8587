"""GET /api/health (readiness, bare object) and GET /api/v1/health (liveness, envelope)."""

from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny
from rest_framework.renderers import JSONRenderer
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.scopes import KEYS_REFUSED
from health import checks

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
