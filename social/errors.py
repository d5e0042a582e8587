"""Errors of the social hub, in the one error contract (social.md section 2)."""

from http import HTTPStatus

from config.errors import ApplicationError, ConflictError, NotFoundError


class ProviderAuthFailed(ApplicationError):
    code = "provider_auth_failed"
    message = "The provider refused the code or credentials."


class ProviderUnavailable(ApplicationError):
    status_code = HTTPStatus.BAD_GATEWAY
    code = "provider_unavailable"
    message = "The provider could not be reached. Try again in a moment."


class ProviderNotConfigured(ApplicationError):
    status_code = HTTPStatus.SERVICE_UNAVAILABLE
    code = "provider_not_configured"
    message = "Connecting this provider is not available on this server."


class AccountAlreadyConnected(ConflictError):
    code = "account_already_connected"
    message = "This account is already connected by another user."


class AccountNotFound(NotFoundError):
    message = "Social account not found."


class InvalidState(ApplicationError):
    code = "invalid_state"
    message = "The sign-in with the provider expired or was already used. Start again."


class AuthorizeFirst(ApplicationError):
    code = "authorize_first"
    message = "Authorize with this Mastodon server first."


class NoFacebookPage(ApplicationError):
    code = "no_facebook_page"
    message = "The Facebook login manages no page this app may publish to."


class NoInstagramAccount(ApplicationError):
    code = "no_instagram_account"
    message = "No Facebook page of this login has an Instagram business account linked."
