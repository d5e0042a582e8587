"""OpenAPI: the envelope around every body, the errors each operation can return."""

from typing import Any

from django.core.validators import RegexValidator
from drf_spectacular.openapi import AutoSchema
from drf_spectacular.plumbing import ResolvedComponent, force_instance
from drf_spectacular.utils import OpenApiResponse
from rest_framework import serializers
from rest_framework.permissions import AllowAny

from core.api.renderers import EnvelopeJSONRenderer
from core.api.serializers import BodySerializer, not_blank

BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
ERROR_DESCRIPTIONS = {
    400: "Validation failed (`validation_error`) or malformed JSON (`parse_error`).",
    401: "Missing (`not_authenticated`) or invalid (`invalid_token`) credentials.",
    402: "Not enough credits (`insufficient_credits`, details `required`, `available`).",
    403: (
        "Not allowed (`permission_denied`; with an API key: an operation keys cannot call), or"
        " an API key without the scope this operation needs (`insufficient_scope`, details "
        "`required`, `granted`)."
    ),
    404: "No such resource, or not yours (`not_found`).",
    409: "Conflicts with the current state (`conflict`).",
    413: "Body larger than the server accepts (`payload_too_large`).",
    410: "No longer open: decided, stale or expired (`approval_closed`).",
    415: "Body is not `application/json` (`unsupported_media_type`).",
    429: "Rate limit exceeded (`rate_limited`); see `Retry-After`.",
    500: "Unexpected server error (`server_error`); no internals are disclosed.",
    502: "An upstream provider failed (`ai_provider_error` and similar).",
    503: "A dependency is unavailable (`unavailable`).",
}
ERROR_ENVELOPE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "required": ["success", "message", "error"],
    "properties": {
        "success": {"type": "boolean", "description": "Always false on errors."},
        "message": {"type": "string", "example": "Validation Failed"},
        "error": {
            "type": "object",
            "required": ["code", "details"],
            "properties": {
                "code": {"type": "string", "example": "validation_error"},
                "details": {
                    "type": "object",
                    "additionalProperties": {},
                    "example": {"email": ["Enter a valid email address."]},
                },
            },
        },
    },
}
RATE_LIMIT_HEADERS: dict[str, Any] = {
    "RateLimit-Policy": {
        "description": 'The quota and window, e.g. `"default";q=100;w=60`.',
        "schema": {"type": "string"},
    },
    "RateLimit": {
        "description": 'Requests left and seconds to reset, e.g. `"default";r=99;t=60`.',
        "schema": {"type": "string"},
    },
}


# What Python's str.strip() removes (str.isspace()): more than a regular expression's \s, which
# leaves out U+001C to U+001F.
WHITE = r"\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000"
VISIBLE = rf"[^{WHITE}\x00]"


def text_pattern(field: Any) -> str:
    """The pattern of what a CharField takes: no NUL; when it refuses blank text (trimmed, or
    checked by not_blank), text of at least its min_length once trimmed."""
    if field.allow_blank:  # "" is the schema's other branch (drf-spectacular's oneOf)
        return r"^[^\x00]+$"
    if not field.trim_whitespace and not_blank not in field.validators:
        return r"^[^\x00]*$"
    shortest = max(field.min_length or 1, 1)
    if shortest == 1:
        return rf"^[^\x00]*{VISIBLE}[^\x00]*$"
    return rf"^[{WHITE}]*{VISIBLE}[^\x00]{{{shortest - 2},}}{VISIBLE}[{WHITE}]*$"


def envelope_schema(
    data: dict[str, Any] | None, meta: dict[str, Any] | None = None
) -> dict[str, Any]:
    properties: dict[str, Any] = {
        "success": {"type": "boolean", "description": "Always true on success."},
        "message": {"type": "string"},
    }
    required = ["success"]
    if data is not None:
        properties["data"] = data
        required.append("data")
    if meta is not None:
        properties["meta"] = meta
        required.append("meta")
    return {"type": "object", "required": required, "properties": properties}


class EnvelopeAutoSchema(AutoSchema):
    """Views may list extra error statuses in `schema_error_statuses`, e.g. `(402, 409)`, and
    describe the `meta` of their 200 answer in `schema_envelope_meta` (an OpenAPI schema)."""

    def get_serializer_name(self, serializer: Any, direction: Any) -> str:
        """Nested `InputSerializer`/`OutputSerializer` classes are named after their view."""
        qualname = type(serializer).__qualname__
        if "." not in qualname:
            return str(super().get_serializer_name(serializer, direction))
        *owners, own = qualname.split(".")
        prefix = "".join(owner.removesuffix("View") for owner in owners)
        return prefix + own.removesuffix("Serializer")

    def _map_basic_serializer(self, serializer: Any, direction: Any) -> dict[str, Any]:
        """A request body refuses keys it does not declare (core/api/serializers.py): the
        schema says so, so a generated client refuses them too."""
        schema: dict[str, Any] = super()._map_basic_serializer(serializer, direction)
        body = force_instance(serializer)
        if isinstance(body, BodySerializer):
            schema["additionalProperties"] = False
            schema.update(body.schema_constraints())
        return schema

    def _get_request_for_media_type(self, serializer: Any, direction: Any = "request") -> Any:
        """A body whose rules between fields ask for one of them is required, even when no
        single field is."""
        schema, required = super()._get_request_for_media_type(serializer, direction)
        body = force_instance(serializer)
        if isinstance(body, BodySerializer) and body.schema_constraints():
            required = True
        return schema, required

    def _map_serializer_field(
        self, field: Any, direction: Any, bypass_extensions: bool = False
    ) -> dict[str, Any]:
        """What a body's field refuses beyond what drf-spectacular reads: a text field, a NUL
        character and (trimmed first) white space alone or too little text around it; a
        decimal, more decimal places than it keeps."""
        schema: dict[str, Any] = super()._map_serializer_field(field, direction, bypass_extensions)
        if direction != "request":
            return schema
        if (
            type(field) is serializers.CharField
            and schema.get("type") == "string"
            and not {"pattern", "format", "enum"} & set(schema)
            and not any(isinstance(v, RegexValidator) for v in field.validators)
        ):
            schema["pattern"] = text_pattern(field)
        if (
            isinstance(field, serializers.DecimalField)
            and schema.get("type") == "number"
            and field.decimal_places is not None
        ):
            schema["multipleOf"] = 10**-field.decimal_places
        return schema

    def _renders_envelope(self) -> bool:
        return any(
            issubclass(renderer, EnvelopeJSONRenderer)
            for renderer in getattr(self.view, "renderer_classes", [])
        )

    def _get_response_for_code(
        self,
        serializer: Any,
        status_code: str,
        media_types: Any = None,
        direction: Any = "response",
    ) -> dict[str, Any]:
        response: dict[str, Any] = super()._get_response_for_code(
            serializer, status_code, media_types, direction
        )
        if not status_code.startswith("2") or not self._renders_envelope():
            return response
        inner = serializer.response if isinstance(serializer, OpenApiResponse) else serializer
        if self._is_list_view(inner) and self._get_paginator():
            return response  # the pagination schema is the envelope already
        meta = getattr(self.view, "schema_envelope_meta", None) if status_code == "200" else None
        contents = response.get("content")
        if not contents:
            response["content"] = {"application/json": {"schema": envelope_schema(None, meta)}}
        else:
            for media_type, media in contents.items():
                if "json" in media_type:  # a document (CSV, PDF, iCalendar) is sent as it is
                    media["schema"] = envelope_schema(media.get("schema"), meta)
        return response

    def _get_response_headers_for_code(
        self, status_code: str, direction: Any = "response"
    ) -> dict[str, Any]:
        headers: dict[str, Any] = super()._get_response_headers_for_code(status_code, direction)
        headers.update(RATE_LIMIT_HEADERS)
        if status_code == "429":
            headers["Retry-After"] = {
                "description": "Seconds until the window resets.",
                "schema": {"type": "integer"},
            }
        return headers

    def _error_statuses(self) -> set[int]:
        statuses = {429, 500}
        if self.method in BODY_METHODS:
            statuses |= {400, 413, 415}
        if self._is_list_view() and self._get_paginator():
            statuses.add(400)
        if self.get_override_parameters():  # filters a serializer parses: a bad one is 400
            statuses.add(400)
        if "{" in self.path:
            statuses.add(404)
        permissions = getattr(self.view, "permission_classes", [])
        if any(not issubclass(permission, AllowAny) for permission in permissions):
            statuses.add(401)
        statuses |= set(getattr(self.view, "schema_error_statuses", ()))
        return statuses

    def _get_response_bodies(self, direction: Any = "response") -> dict[str, Any]:
        responses: dict[str, Any] = super()._get_response_bodies(direction)
        component = ResolvedComponent(
            name="ErrorEnvelope",
            type=ResolvedComponent.SCHEMA,
            schema=ERROR_ENVELOPE_SCHEMA,
            object="ErrorEnvelope",
        )
        self.registry.register_on_missing(component)
        for status in sorted(self._error_statuses()):
            responses.setdefault(
                str(status),
                {
                    "description": ERROR_DESCRIPTIONS[status],
                    "headers": self._get_response_headers_for_code(str(status), direction),
                    "content": {"application/json": {"schema": component.ref}},
                },
            )
        return responses


def drop_versioned_duplicates(endpoints: list[Any], **kwargs: Any) -> list[Any]:
    """`/api/v1/x` is served by the same view as `/api/x`: document it once.

    A versioned path with a view of its own (`/api/v1/health`) stays in the schema.
    """
    views = {
        (path, method): getattr(callback, "cls", callback)
        for path, _, method, callback in endpoints
    }
    kept = []
    for path, regex, method, callback in endpoints:
        if path.startswith("/api/v1/"):
            twin = views.get(("/api/" + path[len("/api/v1/") :], method))
            if twin is getattr(callback, "cls", callback):
                continue
        kept.append((path, regex, method, callback))
    return kept
