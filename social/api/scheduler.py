"""`POST /api/social/scheduler/run`: a cron runner's way to run the scheduler (social.md
section 5); beat runs the same service without it."""

import hmac
from typing import Any

from django.conf import settings
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.envelope import Envelope
from social.api.posts import outcome_error
from social.errors import InvalidCronSecret
from social.services.attempts import Outcome
from social.services.scheduler import scheduler_run


def _result(outcome: Outcome) -> dict[str, Any]:
    return {
        "id": outcome.record_id,
        "postId": outcome.post_id,
        "accountId": outcome.account_id,
        "provider": outcome.provider,
        "success": outcome.success,
        "status": outcome.status,
        **outcome_error(outcome),
    }


class SchedulerRunView(APIView):
    authentication_classes: list[Any] = []  # the cron secret, not a user
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="social_scheduler_run",
        tags=["social"],
        auth=[],
        request=None,
        parameters=[OpenApiParameter("X-Cron-Secret", str, OpenApiParameter.HEADER, True)],
        responses=inline_serializer(
            "SchedulerRun",
            {
                "processedCount": serializers.IntegerField(),
                "successfulCount": serializers.IntegerField(),
                "failedCount": serializers.IntegerField(),
                "executedAt": serializers.DateTimeField(),
                "results": serializers.ListField(child=serializers.DictField()),
            },
        ),
    )
    def post(self, request: Request) -> Response:
        expected = settings.CRON_SECRET.encode()
        given = request.headers.get("X-Cron-Secret", "").encode()
        # Constant time; with no secret configured nobody gets in.
        if not expected or not hmac.compare_digest(given, expected):
            raise InvalidCronSecret()
        report = scheduler_run()
        return Response(
            Envelope(
                data={
                    "processedCount": len(report.outcomes),
                    "successfulCount": report.successful,
                    "failedCount": report.failed,
                    "executedAt": report.executed_at.isoformat().replace("+00:00", "Z"),
                    "results": [_result(outcome) for outcome in report.outcomes],
                },
                message="Scheduler run complete",
            )
        )
