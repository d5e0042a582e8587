"""Analytics records (social.md section 6)."""

from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.authentication import request_user
from social.models import AnalyticsRecord, Provider


class AnalyticsSerializer(serializers.ModelSerializer[AnalyticsRecord]):
    accountId = serializers.UUIDField(source="account_id", read_only=True)
    postId = serializers.UUIDField(source="post_id", read_only=True)
    recordId = serializers.UUIDField(source="record_id", read_only=True)

    class Meta:
        model = AnalyticsRecord
        fields = (
            "id",
            "provider",
            "accountId",
            "postId",
            "recordId",
            "impressions",
            "engagement",
            "clicks",
            "date",
        )


class AnalyticsListView(generics.ListAPIView[AnalyticsRecord]):
    serializer_class = AnalyticsSerializer
    queryset = AnalyticsRecord.objects.none()
    page_size = 50
    max_page_size = 100
    sort_fields = {"date": "date", "impressions": "impressions", "engagement": "engagement"}
    default_sort = "date"

    class FilterSerializer(serializers.Serializer[Any]):
        provider = serializers.ChoiceField(choices=Provider.choices, required=False)
        accountId = serializers.UUIDField(required=False)
        postId = serializers.UUIDField(required=False)
        start = serializers.DateField(required=False)
        end = serializers.DateField(required=False)

    def get_queryset(self) -> QuerySet[AnalyticsRecord]:
        params = self.request.query_params
        filters = self.FilterSerializer(
            data={
                **{k: params[k] for k in ("provider", "accountId", "postId") if k in params},
                **({"start": params["from"]} if "from" in params else {}),
                **({"end": params["to"]} if "to" in params else {}),
            }
        )
        filters.is_valid(raise_exception=True)
        found = filters.validated_data
        rows = AnalyticsRecord.objects.filter(user=request_user(self.request))
        for name, column in (("provider", "provider"), ("accountId", "account_id"),
                             ("postId", "post_id"), ("start", "date__gte"),
                             ("end", "date__lte")):  # fmt: skip
            if name in found:
                rows = rows.filter(**{column: found[name]})
        return rows.order_by("-date", "provider", "id")

    @extend_schema(
        operation_id="social_analytics",
        tags=["social"],
        parameters=[
            OpenApiParameter("provider", str, enum=Provider.values),
            OpenApiParameter("accountId", str),
            OpenApiParameter("postId", str),
            OpenApiParameter("from", str, description="YYYY-MM-DD, inclusive"),
            OpenApiParameter("to", str, description="YYYY-MM-DD, inclusive"),
        ],
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)
