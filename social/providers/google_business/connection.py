"""Google Business Profile's connection (networks/google_business.md): Google's OAuth
(social.providers.google, the app YouTube uses) with the `business.manage` scope, then the
location that becomes the account: the Google account's accounts (Account Management API), each
one's locations (Business Information API, `readMask` required), and the one named by
`locationId`, else the first. The account's and the location's resource names are kept in the
account's `options` (identifiers, not secrets: the location's id is the account's id already).
The APIs' errors are Google's `{error: {code, message, status, details}}`, named by `status`."""

from collections.abc import Iterator
from typing import Any

from django.conf import settings

from core import outbound
from social.providers.base import ConnectionRefused, ConnectRequest, Credentials, Identity
from social.providers.client import ProviderClient
from social.providers.google import GoogleOAuth, google_refusal
from social.providers.oauth import bearer
from social.providers.text import Composer

SCOPE = "https://www.googleapis.com/auth/business.manage"
NAME = "Google Business Profile"
LOCATION_MASK = "name,title,storefrontAddress,metadata"
PAGES = 10  # pages of accounts, or of one account's locations, read at most
PAGE_SIZE = 100  # locations a page asks for (the API's most)


def classify(response: outbound.Response) -> outbound.OutboundError | None:
    """401 (UNAUTHENTICATED) and a refused grant are authentication; 429 (RESOURCE_EXHAUSTED)
    is retried at its Retry-After; 403 (PERMISSION_DENIED: the APIs not enabled, the location
    not the account's), 404 (NOT_FOUND: the location gone, unverified, suspended) and other
    4xx (INVALID_ARGUMENT) are refusals; 5xx by status (retried). The status is in the
    message, where the error table (social.networks.google_business) reads it."""
    status = response.status_code
    if 200 <= status < 300:
        return None
    reason, said, text = google_refusal(NAME, response)
    if status == 429:
        return outbound.TransientError(
            said, status=429, retry_after=outbound.retry_after_seconds(response), excerpt=text
        )
    if reason == "invalid_grant" or status == 401:
        return outbound.AuthenticationError(said, status=status, excerpt=text)
    if 400 <= status < 500 and status != 408:
        return outbound.PermanentError(said, status=status, excerpt=text)
    return None


def bare(location: str) -> str:
    """A location's id from its name (`locations/{id}`) or the id itself."""
    return location.rsplit("/", 1)[-1]


class GoogleBusinessConnection(GoogleOAuth, Composer):
    """The consent, the tokens, the location; the APIs' calls with the account's token (a
    refused token is refreshed once and the call repeated: a 401 did nothing)."""

    scopes = SCOPE
    _client = ProviderClient("google_business", classify)

    def call(self, method: str, url: str, credentials: Credentials, **kwargs: Any) -> Any:
        try:
            return self._client.json(method, url, headers=bearer(credentials), **kwargs)
        except outbound.AuthenticationError:
            if not self._renewed(credentials):
                raise
            return self._client.json(method, url, headers=bearer(credentials), **kwargs)

    @staticmethod
    def place(credentials: Credentials) -> str:
        """`accounts/{a}/locations/{l}`: where the location's posts are (the v4 API)."""
        options = credentials.options
        return f"{options.get('account')}/locations/{bare(str(options.get('location') or ''))}"

    def connect(self, request: ConnectRequest) -> Identity:
        """The code for tokens (`business.manage` granted, a refresh token given), then the
        location: `locationId` among the accounts' locations, else the first there is."""
        credentials = self.exchange(
            request,
            required=SCOPE,
            refusal=f"The consent did not grant managing the {NAME}: connect again and leave "
            "the permission ticked.",
        )
        if not credentials.refresh_token:
            raise outbound.PermanentError(
                "Google gave no refresh token, so the connection could not renew itself: "
                "connect again.",
                status=400,
            )
        wanted = bare(request.location_id) if request.location_id else ""
        for account, location in self.locations(credentials):
            if wanted and bare(str(location.get("name") or "")) != wanted:
                continue
            credentials.options = {"account": account, "location": str(location["name"])}
            return self._identity(location, credentials)
        details = {"locationId": request.location_id} if wanted else {}
        raise ConnectionRefused(
            "no_google_location",
            f"The location named is not one this Google account manages on {NAME}."
            if wanted
            else f"This Google account manages no {NAME} location: add one, then connect again.",
            details=details,
        )

    def _pages(self, url: str, key: str, credentials: Credentials, **params: Any) -> Iterator[Any]:
        """The items under `key` of a list, page after page by `nextPageToken`."""
        token = ""
        for _ in range(PAGES):
            found = self.call(
                "GET",
                url,
                credentials,
                params={**params, **({"pageToken": token} if token else {})},
            )
            yield from (item for item in found.get(key) or [] if isinstance(item, dict))
            token = str(found.get("nextPageToken") or "")
            if not token:
                return

    def locations(self, credentials: Credentials) -> Iterator[tuple[str, dict[str, Any]]]:
        """(account name, location) of every location of every account, in order."""
        accounts = f"{settings.GOOGLE_BUSINESS_ACCOUNTS_URL}/v1/accounts"
        for account in self._pages(accounts, "accounts", credentials):
            name = str(account.get("name") or "")
            url = f"{settings.GOOGLE_BUSINESS_INFO_URL}/v1/{name}/locations"
            found = self._pages(
                url, "locations", credentials, readMask=LOCATION_MASK, pageSize=PAGE_SIZE
            )
            yield from ((name, location) for location in found if location.get("name"))

    def identity(self, credentials: Credentials) -> Identity:
        """The location, still reachable (the health check's call): `GET /v1/locations/{id}`."""
        location_id = bare(str(credentials.options.get("location") or ""))
        location = self.call(
            "GET",
            f"{settings.GOOGLE_BUSINESS_INFO_URL}/v1/locations/{location_id}",
            credentials,
            params={"readMask": "name,title"},
        )
        return self._identity(location, credentials)

    def _identity(self, location: dict[str, Any], credentials: Credentials) -> Identity:
        title = str(location.get("title") or bare(str(location["name"])))
        return Identity(
            provider_user_id=bare(str(location["name"])),
            username=title,
            display_name=title,
            access_token=credentials.access_token,
            refresh_token=credentials.refresh_token,
            expires_at=credentials.expires_at,
            refresh_expires_at=credentials.refresh_expires_at,
            options=dict(credentials.options),
        )
