"""The contract's pagination: opt-in by `page`/`limit`, clamped, with exact meta."""

import math
from typing import Any

from django.conf import settings
from django.db.models import QuerySet
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import BasePagination
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.envelope import Envelope

DEFAULT_PAGE_SIZE = 20
MAX_PAGE_SIZE = 100


def _int_param(request: Request, name: str) -> int | None:
    raw = request.query_params.get(name)
    if raw is None:
        return None
    try:
        return int(raw.strip())
    except ValueError:
        raise ValidationError({name: ["A valid integer is required."]}) from None


class EnvelopePagination(BasePagination):
    """Views tune it with `page_size` and `max_page_size` attributes, and may give the total
    without a COUNT through `count_total(queryset)` (a maintained counter).

    With `page` or `limit` in the query the list is paginated and `meta` is
    `{total, page, limit, totalPages, hasMore}`; out-of-range values are clamped. Without
    either, the whole list is returned with no `meta`, up to `API_LIST_CEILING` rows; past
    that the first page of ceiling size is returned with `meta` and `hasMore: true`.
    """

    def paginate_queryset(
        self, queryset: QuerySet[Any], request: Request, view: APIView | None = None
    ) -> list[Any]:
        default_size = getattr(view, "page_size", DEFAULT_PAGE_SIZE)
        max_size = getattr(view, "max_page_size", MAX_PAGE_SIZE)
        page, limit = _int_param(request, "page"), _int_param(request, "limit")

        if page is None and limit is None:
            ceiling = settings.API_LIST_CEILING
            rows = list(queryset[: ceiling + 1])
            if len(rows) <= ceiling:
                self.meta: dict[str, Any] | None = None
                return rows
            # Too many to return whole: the first page of ceiling size, with meta.
            total = self._total(queryset, view)
            self.meta = self._meta(total=total, page=1, limit=ceiling)
            return rows[:ceiling]

        limit = min(max(limit if limit is not None else default_size, 1), max_size)
        total = self._total(queryset, view)
        total_pages = math.ceil(total / limit)
        page = min(max(page if page is not None else 1, 1), max(total_pages, 1))
        offset = (page - 1) * limit
        rows = list(queryset[offset : offset + limit]) if total else []
        self.meta = self._meta(total=total, page=page, limit=limit)
        return rows

    @staticmethod
    def _total(queryset: QuerySet[Any], view: APIView | None) -> int:
        count_total = getattr(view, "count_total", None)
        return int(count_total(queryset)) if count_total is not None else queryset.count()

    @staticmethod
    def _meta(*, total: int, page: int, limit: int) -> dict[str, Any]:
        total_pages = math.ceil(total / limit)
        return {
            "total": total,
            "page": page,
            "limit": limit,
            "totalPages": total_pages,
            "hasMore": page < total_pages,
        }

    def get_paginated_response(self, data: Any) -> Response:
        return Response(Envelope(data=data, meta=self.meta))

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        return {
            "type": "object",
            "required": ["success", "data"],
            "properties": {
                "success": {"type": "boolean", "description": "Always true on success."},
                "data": schema,
                "meta": {
                    "type": "object",
                    "description": "Present when `page` or `limit` is given, or past the ceiling.",
                    "required": ["total", "page", "limit", "totalPages", "hasMore"],
                    "properties": {
                        "total": {"type": "integer", "example": 42},
                        "page": {"type": "integer", "example": 1},
                        "limit": {"type": "integer", "example": 20},
                        "totalPages": {"type": "integer", "example": 3},
                        "hasMore": {"type": "boolean", "example": True},
                    },
                },
            },
        }

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, Any]]:
        default_size = getattr(view, "page_size", DEFAULT_PAGE_SIZE)
        max_size = getattr(view, "max_page_size", MAX_PAGE_SIZE)
        return [
            {
                "name": "page",
                "in": "query",
                "required": False,
                "description": "Page number (from 1; clamped to 1..the last page).",
                "schema": {"type": "integer", "default": 1},
            },
            {
                "name": "limit",
                "in": "query",
                "required": False,
                "description": f"Page size (default {default_size}, clamped to 1..{max_size}).",
                "schema": {"type": "integer", "default": default_size},
            },
        ]
