"""The one error contract of the services: ApplicationError and its common kinds.

Plain Python, free of any web framework: services, tasks and commands raise these, and the
API's one exception handler (core/api/exceptions.py) turns them into envelopes. A command or
a Celery task can catch them without importing DRF.
"""

from http import HTTPStatus
from typing import Any

MISSING_AUTH_MESSAGE = "Missing Authorization Header"
INVALID_TOKEN_MESSAGE = "Unauthorized: Session expired or invalid"  # noqa: S105 (a message)
VALIDATION_MESSAGE = "Validation Failed"


class ApplicationError(Exception):
    """A failure a client can act on. Services raise subclasses; the handler shapes them."""

    status_code: int = HTTPStatus.BAD_REQUEST
    code: str = "bad_request"
    message: str = "The request could not be processed."

    def __init__(
        self,
        message: str | None = None,
        *,
        details: Any = None,
        headers: dict[str, str] | None = None,
    ) -> None:
        self.message = message or self.message
        self.details = details if details is not None else {}
        self.headers = headers or {}
        super().__init__(self.message)


class ValidationFailed(ApplicationError):
    """Input a serializer could not judge alone; `details` maps field -> messages."""

    code = "validation_error"
    message = VALIDATION_MESSAGE


class NotFoundError(ApplicationError):
    status_code = HTTPStatus.NOT_FOUND
    code = "not_found"
    message = "Not found."


class ConflictError(ApplicationError):
    status_code = HTTPStatus.CONFLICT
    code = "conflict"
    message = "The request conflicts with the current state of the resource."


class RateLimitedError(ApplicationError):
    status_code = HTTPStatus.TOO_MANY_REQUESTS
    code = "rate_limited"
    message = "Too many requests. Try again later."

    def __init__(self, message: str | None = None, *, retry_after: int) -> None:
        super().__init__(
            message,
            details={"retryAfter": retry_after},
            headers={"Retry-After": str(retry_after)},
        )
