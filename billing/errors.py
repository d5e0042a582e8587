"""Errors of the billing domain, in the one error contract."""

from http import HTTPStatus

from core.errors import ApplicationError


class InsufficientCredits(ApplicationError):
    status_code = HTTPStatus.PAYMENT_REQUIRED
    code = "insufficient_credits"
    message = "Not enough credits for this call."

    def __init__(self, *, required: int, available: int) -> None:
        super().__init__(details={"required": required, "available": available})


class InvalidSignature(ApplicationError):
    status_code = HTTPStatus.UNAUTHORIZED
    code = "invalid_signature"
    message = "The payment signature is missing or invalid."
