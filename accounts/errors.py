"""Errors of the accounts domain, in the one error contract."""

from http import HTTPStatus

from core.errors import INVALID_TOKEN_MESSAGE, ApplicationError, ConflictError, NotFoundError


class InvalidSession(ApplicationError):
    status_code = HTTPStatus.UNAUTHORIZED
    code = "invalid_token"
    message = INVALID_TOKEN_MESSAGE


class InvalidCredentials(ApplicationError):
    status_code = HTTPStatus.UNAUTHORIZED
    code = "invalid_credentials"
    message = "Invalid e-mail or password."


class EmailBelongsToAnotherUser(ConflictError):
    message = "This e-mail address belongs to another account."


class ReauthenticationRequired(ApplicationError):
    status_code = HTTPStatus.FORBIDDEN
    code = "reauthentication_required"
    message = "Sign in again with a magic link, then erase the account within 10 minutes."


class ApiKeyNotFound(NotFoundError):
    message = "No such API key."


class ApiKeyLimitReached(ConflictError):
    code = "api_key_limit_reached"
    message = "You have as many live API keys as allowed. Revoke one first."
