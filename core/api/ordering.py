"""`sort` and `order` on every list, against a per-view whitelist."""

from typing import Any

from django.db.models import QuerySet
from rest_framework.exceptions import ValidationError
from rest_framework.filters import BaseFilterBackend
from rest_framework.request import Request
from rest_framework.views import APIView

DEFAULT_SORT = "created_at"


class SortOrderFilter(BaseFilterBackend):
    """Views declare `sort_fields = {"api_name": "model_field", ...}`, and may change the
    default sort (`default_sort`, else `created_at`) and order (`default_order`, else desc).

    The primary key breaks ties so that pages never overlap or skip rows.
    """

    def _fields(self, view: APIView) -> dict[str, str]:
        return getattr(view, "sort_fields", {DEFAULT_SORT: DEFAULT_SORT})

    def filter_queryset(
        self, request: Request, queryset: QuerySet[Any], view: APIView
    ) -> QuerySet[Any]:
        fields = self._fields(view)
        sort = request.query_params.get("sort", getattr(view, "default_sort", DEFAULT_SORT))
        order = request.query_params.get("order", getattr(view, "default_order", "desc")).lower()
        errors: dict[str, list[str]] = {}
        if sort not in fields:
            errors["sort"] = [f"Unknown sort field. Choose one of: {', '.join(sorted(fields))}."]
        if order not in ("asc", "desc"):
            errors["order"] = ["Must be 'asc' or 'desc'."]
        if errors:
            raise ValidationError(errors)
        prefix = "-" if order == "desc" else ""
        return queryset.order_by(f"{prefix}{fields[sort]}", f"{prefix}pk")

    def get_schema_operation_parameters(self, view: APIView) -> list[dict[str, Any]]:
        fields = sorted(self._fields(view))
        return [
            {
                "name": "sort",
                "in": "query",
                "required": False,
                "description": "Field to sort by.",
                "schema": {
                    "type": "string",
                    "enum": fields,
                    "default": getattr(view, "default_sort", DEFAULT_SORT),
                },
            },
            {
                "name": "order",
                "in": "query",
                "required": False,
                "description": "Sort direction.",
                "schema": {"type": "string", "enum": ["asc", "desc"], "default": "desc"},
            },
        ]
