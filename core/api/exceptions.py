"""One handler that shapes every error (core.errors.ApplicationError and DRF's) as an envelope."""

import logging
from typing import Any

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.core.exceptions import RequestDataTooBig
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response

from core.api.envelope import SERVER_ERROR_MESSAGE, error_body
from core.errors import (
    INVALID_TOKEN_MESSAGE,
    MISSING_AUTH_MESSAGE,
    VALIDATION_MESSAGE,
    ApplicationError,
)

logger = logging.getLogger(__name__)


class PayloadTooLarge(exceptions.APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "payload_too_large"
    default_detail = "The request body is larger than the server accepts."


# DRF exception class -> (code, fixed message or None to keep the exception's own text).
# Order matters: subclasses before their bases.
_API_EXCEPTION_CODES: list[tuple[type[exceptions.APIException], str, str | None]] = [
    (exceptions.ValidationError, "validation_error", VALIDATION_MESSAGE),
    (exceptions.ParseError, "parse_error", None),
    (exceptions.NotAuthenticated, "not_authenticated", MISSING_AUTH_MESSAGE),
    (exceptions.AuthenticationFailed, "invalid_token", INVALID_TOKEN_MESSAGE),
    (exceptions.PermissionDenied, "permission_denied", None),
    (exceptions.NotFound, "not_found", "Not found."),
    (exceptions.MethodNotAllowed, "method_not_allowed", None),
    (exceptions.NotAcceptable, "not_acceptable", None),
    (exceptions.UnsupportedMediaType, "unsupported_media_type", None),
    (exceptions.Throttled, "rate_limited", "Too many requests. Try again later."),
    (PayloadTooLarge, "payload_too_large", None),
]


def _api_exception_response(exc: exceptions.APIException) -> Response:
    code, message = "error", None
    for exc_class, exc_code, exc_message in _API_EXCEPTION_CODES:
        if isinstance(exc, exc_class):
            code, message = exc_code, exc_message
            break
    details: Any = {}
    if isinstance(exc, exceptions.ValidationError):
        details = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
    if message is None:
        message = str(exc.detail) if not isinstance(exc.detail, (dict, list)) else str(exc)
    headers: dict[str, str] = {}
    if auth_header := getattr(exc, "auth_header", None):
        headers["WWW-Authenticate"] = auth_header
    if wait := getattr(exc, "wait", None):
        headers["Retry-After"] = str(int(wait))
    return Response(
        error_body(code=code, message=message, details=details),
        status=exc.status_code,
        headers=headers,
    )


def envelope_exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    """DRF's EXCEPTION_HANDLER: every error, known or not, leaves in the envelope."""
    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge()

    # Imported here: rest_framework.views imports the authentication classes, which import
    # this module for their errors.
    from rest_framework.views import set_rollback

    set_rollback()
    if isinstance(exc, ApplicationError):
        return Response(
            error_body(code=exc.code, message=exc.message, details=exc.details),
            status=exc.status_code,
            headers=exc.headers,
        )
    if isinstance(exc, exceptions.APIException):
        return _api_exception_response(exc)

    view = context.get("view")
    logger.exception("Unhandled error in %s", type(view).__name__ if view else "API view")
    return Response(
        error_body(code="server_error", message=SERVER_ERROR_MESSAGE),
        status=status.HTTP_500_INTERNAL_SERVER_ERROR,
    )


class HandledServerErrorFilter(logging.Filter):
    """Drops django.request's one-line "Internal Server Error" for a 500 the API's handler
    already logged with its traceback (Django logs every 5xx response it sees; without this,
    each 500 was logged twice). Django's own uncaught exceptions carry `exc_info` and pass."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (getattr(record, "status_code", None) == 500 and not record.exc_info)
