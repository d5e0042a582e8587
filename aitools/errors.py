"""Errors of the AI tools, in the one error contract."""

from http import HTTPStatus

from core.errors import ApplicationError


class AIProviderFailed(ApplicationError):
    status_code = HTTPStatus.BAD_GATEWAY
    code = "ai_provider_error"
    message = "The AI provider failed; your credits were refunded."


class TooManyPendingJobs(ApplicationError):
    status_code = HTTPStatus.TOO_MANY_REQUESTS
    code = "rate_limited"
    message = "Too many generations are still running. Wait for one to finish."
