"""Errors of the AI tools, in the one error contract."""

from rest_framework import status

from config.api.exceptions import ApplicationError


class AIProviderFailed(ApplicationError):
    status_code = status.HTTP_502_BAD_GATEWAY
    code = "ai_provider_error"
    message = "The AI provider failed; your credits were refunded."


class TooManyPendingJobs(ApplicationError):
    status_code = status.HTTP_429_TOO_MANY_REQUESTS
    code = "rate_limited"
    message = "Too many generations are still running. Wait for one to finish."
