"""Errors of the billing domain, in the one error contract."""

from rest_framework import status

from config.api.exceptions import ApplicationError


class InsufficientCredits(ApplicationError):
    status_code = status.HTTP_402_PAYMENT_REQUIRED
    code = "insufficient_credits"
    message = "Not enough credits for this call."

    def __init__(self, *, required: int, available: int) -> None:
        super().__init__(details={"required": required, "available": available})


class InvalidSignature(ApplicationError):
    status_code = status.HTTP_401_UNAUTHORIZED
    code = "invalid_signature"
    message = "The payment signature is missing or invalid."
