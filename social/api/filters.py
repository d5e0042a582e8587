"""Query-string filters shared by the social hub's lists."""

from typing import Any

from rest_framework import serializers


class RangeFilter(serializers.Serializer[Any]):
    """Adds `from` and `to` (Python keywords, so declared as `start` and `end`); validated
    data names them `from` and `to`."""

    def get_fields(self) -> dict[str, serializers.Field[Any, Any, Any, Any]]:
        fields = super().get_fields()
        fields["from"] = fields.pop("start")
        fields["to"] = fields.pop("end")
        return fields
