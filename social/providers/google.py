"""Google's OAuth 2.0, written once for the networks that connect through the one Google app
(`youtube`, `google_business`: networks/youtube.md, networks/google_business.md): a confidential
client with offline access (`prompt=consent`, so every consent returns a refresh token), the
code exchanged and the scope the network needs checked (Google's granular consent lets the user
untick one), one-hour access tokens renewed with under RENEW_WITHIN left (a refresh answered
`invalid_grant` is an authentication failure: the user reconnects), a "Testing" app's 7-day
refresh tokens, revocation at the token endpoint's origin (`/revoke`), and Google's error
bodies, the APIs' `{error: {code, message, status, errors?|details?}}` and the token endpoint's
`{error, error_description}`."""

from datetime import timedelta
from typing import Any
from urllib.parse import urlencode, urlsplit

from django.conf import settings
from django.utils import timezone

from core import outbound
from social.providers.base import ConnectionRefused, ConnectRequest, Credentials, OAuthApp
from social.providers.client import ProviderClient, body_of
from social.providers.oauth import code_grant, credentials_of, renew, renewal_due

RENEW_WITHIN = timedelta(minutes=5)  # an access token with less left is refreshed first
TESTING_REFRESH_LIFETIME = timedelta(days=7)  # an app in Google's "Testing" status


def google_error(response: outbound.Response) -> tuple[str, str]:
    """(reason, message) of a Google API error answer (the first `errors[].reason`, else its
    `status`, such as PERMISSION_DENIED); an OAuth error's `error` as its reason."""
    body = body_of(response)
    error = body.get("error")
    if isinstance(error, str):  # the token endpoint: {error, error_description}
        return error, str(body.get("error_description") or error)
    if not isinstance(error, dict):
        return "", ""
    errors = error.get("errors") or [{}]
    first = errors[0] if isinstance(errors, list) and isinstance(errors[0], dict) else {}
    reason = str(first.get("reason") or error.get("status") or "")
    return reason, str(error.get("message") or first.get("message") or "")


def google_refusal(name: str, response: outbound.Response) -> tuple[str, str, str]:
    """(reason, message, excerpt) of a Google error answer, the message `{name} refused the
    request ({reason, else HTTP status}): {Google's message}`, where a network's error table
    reads the reason."""
    reason, message = google_error(response)
    status = f"HTTP {response.status_code}"
    said = f"{name} refused the request ({reason or status}): {message}".rstrip(": ")
    return reason, said, outbound.excerpt(response)


class GoogleOAuth:
    """The consent, the tokens, their renewal and revocation with the Google app of the
    settings. A network's connection sets `scopes` (what its consent asks, space-separated)
    and `_client` (its outbound client, with its classification)."""

    scopes: str = ""
    _client: ProviderClient

    @staticmethod
    def configured() -> bool:
        return bool(settings.GOOGLE_CLIENT_ID and settings.GOOGLE_CLIENT_SECRET)

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        query = urlencode(
            {
                "client_id": settings.GOOGLE_CLIENT_ID,
                "redirect_uri": redirect_uri,
                "response_type": "code",
                "scope": self.scopes,
                "state": state,
                "access_type": "offline",
                "prompt": "consent",
                "include_granted_scopes": "true",
            }
        )
        return f"{settings.GOOGLE_AUTH_URL}?{query}"

    def _token(self, form: dict[str, str]) -> dict[str, Any]:
        token: dict[str, Any] = self._client.json(
            "POST",
            settings.GOOGLE_TOKEN_URL,
            data={
                **form,
                "client_id": settings.GOOGLE_CLIENT_ID,
                "client_secret": settings.GOOGLE_CLIENT_SECRET,
            },
        )
        return token

    def exchange(self, request: ConnectRequest, *, required: str, refusal: str) -> Credentials:
        """The code for tokens; `required` must be among the scopes granted, else the
        connection is refused (`scope_missing`, saying `refusal`)."""
        token = self._token(code_grant(request))
        granted = set(str(token.get("scope") or "").split())
        missing = [scope for scope in self.scopes.split() if scope not in granted]
        if required in missing:
            raise ConnectionRefused("scope_missing", refusal, details={"missing": missing})
        credentials = credentials_of(token)
        if settings.GOOGLE_OAUTH_TESTING and token.get("refresh_token"):
            credentials.refresh_expires_at = timezone.now() + TESTING_REFRESH_LIFETIME
        return credentials

    def refresh(self, credentials: Credentials) -> None:
        """An access token with under RENEW_WITHIN left is renewed with the refresh token; a
        refresh answered `invalid_grant` (revoked, unused for 6 months, a Testing app's 7
        days) is an authentication failure: the user reconnects."""
        if renewal_due(credentials, RENEW_WITHIN):
            self._renewed(credentials)

    def _renewed(self, credentials: Credentials) -> bool:
        """A new access token (the answer has no new refresh token); False without a refresh
        token to renew it with."""
        if not credentials.refresh_token:
            return False
        renew(credentials, self._token)
        return True

    def revoke(self, credentials: Credentials) -> None:
        """The refresh token revoked at the token endpoint's origin (`/revoke`)."""
        token = credentials.refresh_token or credentials.access_token
        if not token:
            return
        origin = urlsplit(settings.GOOGLE_TOKEN_URL)
        self._client.call(
            "POST", f"{origin.scheme}://{origin.netloc}/revoke", data={"token": token}
        )
