"""The base of every request body's serializer, and the fields whose rules the schema carries.

A body key no field declares is a 400 naming it (a misspelt `scheduled_time` must not be
accepted and do nothing), reported together with every field's own errors. Nested objects
(a variant, a thread part, a recurrence) are BodySerializers too, so the rule holds at every
level; maps whose keys are open by design are `DictField`s and say what their keys are.
The OpenAPI schema declares the same (`additionalProperties: false`, core/api/schema.py), and
every rule a field checks is one drf-spectacular reads (a length, a pattern, an enum), so a
client generated from the schema refuses what the server refuses.
"""

import zoneinfo
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

UNKNOWN_FIELD = "Unknown field."
NOT_ISO_TIME = "Not an ISO 8601 date and time."
NOT_TIME_ZONE = '"{input}" is not a time zone.'
TIME_ZONES = sorted(zoneinfo.available_timezones())
# ISO 8601 as the API reads it: a date and a time of day, the offset optional (without one the
# time is local to a zone the request names).
LOCAL_DATE_TIME = (
    r"^(?!0000)\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])"
    r"T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,6})?)?(Z|[+-]([01]\d|2[0-3]):[0-5]\d)?$"
)


def not_blank(value: str) -> None:
    """Text that is not white space alone, for a field that keeps its white space (DRF's
    own check sees only trimmed text); the schema's pattern says the same (text_pattern)."""
    if not value.strip():
        raise serializers.ValidationError("Ensure this field has at least 1 character.")


# No docstring: drf-spectacular would describe every request body with it.
class BodySerializer(serializers.Serializer[Any]):
    # A request body (or an object inside one): only its declared fields may be sent.
    # `schema_constraints()` adds what the fields alone cannot say (which of two fields is
    # required, an object that may not be empty) to the object's schema; `validate` enforces it.

    def to_internal_value(self, data: Any) -> Any:
        unknown: dict[str, list[str]] = {}
        if isinstance(data, Mapping):
            unknown = {str(key): [UNKNOWN_FIELD] for key in data if key not in self.fields}
        try:
            value = super().to_internal_value(data)
        except serializers.ValidationError as exc:
            if not unknown or not isinstance(exc.detail, dict):
                raise
            raise serializers.ValidationError({**exc.detail, **unknown}) from None
        if unknown:
            raise serializers.ValidationError(unknown)
        return value

    def schema_constraints(self) -> dict[str, Any]:
        return {}


class NoBody(BodySerializer):
    """The body of an operation that takes none: empty or `{}`; any key is refused."""

    @classmethod
    def check(cls, data: Any) -> None:
        cls(data=data if data else {}).is_valid(raise_exception=True)


@extend_schema_field(
    {
        "type": "string",
        "pattern": LOCAL_DATE_TIME,
        "example": "2026-12-01T09:30:00",
        "description": "ISO 8601; without an offset, local to the request's time zone.",
    }
)
class LocalDateTimeField(serializers.CharField):
    """An ISO 8601 date and time, with or without an offset, kept as sent: the service reads
    it in its zone. Refused here when it is no such time, beside the other fields' errors."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("max_length", 64)
        super().__init__(**kwargs)

    def to_internal_value(self, data: Any) -> str:
        value = str(super().to_internal_value(data))
        try:
            datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise serializers.ValidationError(NOT_ISO_TIME) from None
        return value


class TimeZoneField(serializers.ChoiceField):
    """An IANA time zone name (`Europe/Paris`)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("error_messages", {"invalid_choice": NOT_TIME_ZONE})
        super().__init__(choices=TIME_ZONES, **kwargs)
