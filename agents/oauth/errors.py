"""Errors of the OAuth endpoints: the protocols' own (RFC 6749, RFC 7591 bodies, never the
envelope) and the consent call's, in the one error contract."""

from http import HTTPStatus

from core.errors import ApplicationError, NotFoundError


class OAuthProtocolError(Exception):
    """An answer an OAuth client reads: `{error, error_description}` with this status."""

    def __init__(self, error: str, description: str, status: int = HTTPStatus.BAD_REQUEST) -> None:
        super().__init__(f"{error}: {description}")
        self.error, self.description, self.status = error, description, status


class OAuthRedirectError(Exception):
    """An authorization error told to the client at its (registered) redirect URI."""

    def __init__(self, url: str) -> None:
        super().__init__("redirected to the client")
        self.url = url


class OAuthRequestNotFound(NotFoundError):
    message = "No such authorization request."


class OAuthRequestClosed(ApplicationError):
    """Decided already, or expired: a second decision changes nothing."""

    status_code = HTTPStatus.GONE
    code = "oauth_request_closed"
    message = "This authorization request was decided already or has expired."
