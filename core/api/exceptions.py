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


# Where the contract's code or message differs from DRF's own (its `default_code`, its detail);
# every other DRF exception keeps both. Order matters: subclasses before their bases.
_CONTRACT: list[tuple[type[exceptions.APIException], str | None, str | None]] = [
    (exceptions.ValidationError, "validation_error", VALIDATION_MESSAGE),
    (exceptions.NotAuthenticated, None, MISSING_AUTH_MESSAGE),
    (exceptions.AuthenticationFailed, "invalid_token", INVALID_TOKEN_MESSAGE),
    (exceptions.NotFound, None, "Not found."),
    (exceptions.Throttled, "rate_limited", "Too many requests. Try again later."),
]


def _code_and_message(exc: exceptions.APIException) -> tuple[str, str]:
    code, message = None, None
    for exc_class, contract_code, contract_message in _CONTRACT:
        if isinstance(exc, exc_class):
            code, message = contract_code, contract_message
            break
    if message is None:
        message = str(exc.detail) if not isinstance(exc.detail, (dict, list)) else str(exc)
    return code or str(exc.default_code), message


def envelope_exception_handler(exc: Exception, context: dict[str, Any]) -> Response:
    """DRF's EXCEPTION_HANDLER: every error, known or not, leaves in the envelope. DRF's own
    handler does what it does for every API (Django's 404 and 403 as its own, the
    WWW-Authenticate and Retry-After headers, the rollback); here its answer is reshaped."""
    # Imported here: rest_framework.views imports the authentication classes, which import
    # this module for their errors (and logging imports it before the apps are ready).
    from rest_framework.views import exception_handler as drf_exception_handler
    from rest_framework.views import set_rollback

    if isinstance(exc, Http404):
        exc = exceptions.NotFound()
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    elif isinstance(exc, RequestDataTooBig):
        exc = PayloadTooLarge()
    if isinstance(exc, ApplicationError):
        set_rollback()
        return Response(
            error_body(code=exc.code, message=exc.message, details=exc.details),
            status=exc.status_code,
            headers=exc.headers,
        )
    response = drf_exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        set_rollback()
        view = context.get("view")
        logger.exception("Unhandled error in %s", type(view).__name__ if view else "API view")
        return Response(
            error_body(code="server_error", message=SERVER_ERROR_MESSAGE),
            status=status.HTTP_500_INTERNAL_SERVER_ERROR,
        )
    code, message = _code_and_message(exc)
    details: Any = {}
    if isinstance(exc, exceptions.ValidationError):
        details = exc.detail if isinstance(exc.detail, dict) else {"non_field_errors": exc.detail}
    elif isinstance(getattr(exc, "details", None), dict):
        # A DRF exception of ours that says more (an API key's missing scope): raised where
        # DRF expects its own exceptions (authentication), it carries its details itself.
        details = getattr(exc, "details", None)
    response.data = error_body(code=code, message=message, details=details)
    return response


class HandledServerErrorFilter(logging.Filter):
    """Drops django.request's one-line "Internal Server Error" for a 500 the API's handler
    already logged with its traceback (Django logs every 5xx response it sees; without this,
    each 500 was logged twice). Django's own uncaught exceptions carry `exc_info` and pass."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (getattr(record, "status_code", None) == 500 and not record.exc_info)
