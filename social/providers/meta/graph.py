"""The Graph API as Facebook Pages and Instagram share it: Meta's login (the OAuth code
becomes a user token, exchanged for a 60-day one, which lists the user's pages with their page
tokens: a page token derived from a long-lived user token does not expire), the classification
of Graph's errors, the lookups and the first comments both networks make the same way."""

from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django.conf import settings

from core import outbound
from social.providers.base import (
    Attempt,
    ConnectRequest,
    Credentials,
    MediaFile,
    OAuthApp,
    Published,
)
from social.providers.client import ProviderClient, body_of, json_of_excerpt, moment
from social.providers.lookup import LOOKUP_PAGE_SIZE, Page, lookup_pages, same_text
from social.providers.text import Composer

FACEBOOK_SCOPES = "pages_manage_posts,pages_read_engagement,pages_show_list"
INSTAGRAM_SCOPES = f"{FACEBOOK_SCOPES},instagram_basic,instagram_content_publish"
# Graph error codes (providers.md): try again later / the token is no good.
TRANSIENT_CODES = frozenset({1, 2, 4, 17, 32, 341, 613})
AUTHENTICATION_CODES = frozenset({102, 190})
DUPLICATE_POST = 506


def _graph_error(response: outbound.Response) -> tuple[int, str]:
    error = body_of(response).get("error")
    if not isinstance(error, dict):
        return 0, ""
    try:
        code = int(error.get("code") or 0)
    except (TypeError, ValueError):
        code = 0
    return code, str(error.get("message") or "")


def classify(response: outbound.Response) -> outbound.OutboundError | None:
    """Graph answers most errors with HTTP 400 and names them by `error.code`."""
    if 200 <= response.status_code < 300:
        return None
    code, message = _graph_error(response)
    text = outbound.excerpt(response)
    if code in AUTHENTICATION_CODES:
        return outbound.AuthenticationError(
            f"Meta refused the access token: {message}".rstrip(": "),
            status=response.status_code,
            excerpt=text,
        )
    if code in TRANSIENT_CODES:
        return outbound.TransientError(
            f"Meta is busy or unavailable: {message}".rstrip(": "),
            status=response.status_code,
            retry_after=outbound.retry_after_seconds(response),
            # Rate limits (4, 17, 32, 613) refuse before doing anything.
            maybe_delivered=code in (1, 2),
            excerpt=text,
        )
    if code and response.status_code < 500:
        return outbound.PermanentError(
            f"Meta rejected the request: {message}".rstrip(": "),
            status=response.status_code,
            excerpt=text,
        )
    return None  # no Graph error body: by status code


def classify_exchange(response: outbound.Response) -> outbound.OutboundError | None:
    """During the code exchange any Graph error means the connection failed (a wrong app
    secret answers code 1, which elsewhere is transient): never retried."""
    if 200 <= response.status_code < 300 or response.status_code >= 500:
        return None
    _code, message = _graph_error(response)
    return outbound.PermanentError(
        f"Meta refused the login: {message or f'HTTP {response.status_code}'}",
        status=response.status_code,
        excerpt=outbound.excerpt(response),
    )


def configured() -> bool:
    return bool(settings.FACEBOOK_APP_ID and settings.FACEBOOK_APP_SECRET)


class GraphAdapter(Composer):
    """What Facebook Pages and Instagram share: the Graph API with a page token, its lookups,
    comments and Meta's login; each subclass names its `provider` and `scopes`."""

    provider = ""
    scopes = ""
    _client = ProviderClient("meta", classify)
    _exchange = ProviderClient("meta-oauth", classify_exchange)

    configured = staticmethod(configured)

    def _graph(self, path: str) -> str:
        return f"{settings.FACEBOOK_GRAPH_URL}/{settings.FACEBOOK_GRAPH_VERSION}/{path}"

    def _get(self, path: str, token: str, **params: Any) -> dict[str, Any]:
        answer: dict[str, Any] = self._client.json(
            "GET", self._graph(path), params=params, headers=bearer(token)
        )
        return answer

    def _post(self, path: str, token: str, **data: Any) -> dict[str, Any]:
        answer: dict[str, Any] = self._client.json(
            "POST", self._graph(path), data=data, headers=bearer(token)
        )
        return answer

    def _find(
        self,
        edge: str,
        credentials: Credentials,
        attempt: Attempt,
        *,
        fields: str,
        created: str,
        matches: Callable[[dict[str, Any]], bool],
    ) -> dict[str, Any] | None:
        """The edge's item that `matches` and no other record holds, read from the attempt's
        window on (`since`), page after page by the `after` cursor (lookup.lookup_pages)."""

        def page(after: str | None) -> Page:
            found = self._get(
                edge,
                credentials.access_token,
                fields=fields,
                limit=LOOKUP_PAGE_SIZE,
                since=int(attempt.window.timestamp()),
                **({"after": after} if after else {}),
            )
            paging = found.get("paging") or {}
            cursor = (paging.get("cursors") or {}).get("after") if paging.get("next") else None
            return list(found.get("data") or []), cursor

        return lookup_pages(
            self.name,
            page,
            attempt=attempt,
            created=lambda item: moment(item.get(created)),
            matches=lambda item: attempt.ours(str(item.get("id"))) and matches(item),
        )

    comment_text_field = "message"  # how the comments edge names a comment's text
    comment_time_field = "created_time"  # and its time

    def comment(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published:
        """`POST /{post or media id}/comments` with `message`, as the page (or the
        Instagram business account)."""
        created = self._post(
            f"{on.provider_post_id}/comments", credentials.access_token, message=text
        )
        return Published(provider_post_id=str(created["id"]), url=on.url)

    def comment_lookup(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published | None:
        field = self.comment_text_field
        comment = self._find(
            f"{on.provider_post_id}/comments",
            credentials,
            attempt,
            fields=f"id,{field},{self.comment_time_field}",
            created=self.comment_time_field,
            matches=lambda comment: same_text(str(comment.get(field) or ""), text),
        )
        if comment is None:
            return None
        return Published(provider_post_id=str(comment["id"]), url=on.url)

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        query = urlencode(
            {
                "client_id": settings.FACEBOOK_APP_ID,
                "redirect_uri": redirect_uri,
                "state": state,
                "response_type": "code",
                "scope": self.scopes,
            }
        )
        return (
            f"{settings.FACEBOOK_DIALOG_URL}/{settings.FACEBOOK_GRAPH_VERSION}/dialog/oauth?{query}"
        )

    def _pages(self, request: ConnectRequest) -> list[dict[str, Any]]:
        """The user's pages (with page tokens) after the code and long-lived exchanges."""
        app = {"client_id": settings.FACEBOOK_APP_ID, "client_secret": settings.FACEBOOK_APP_SECRET}
        short: dict[str, Any] = self._exchange.json(
            "GET",
            self._graph("oauth/access_token"),
            params={**app, "redirect_uri": request.redirect_uri, "code": request.code},
        )
        long_lived: dict[str, Any] = self._exchange.json(
            "GET",
            self._graph("oauth/access_token"),
            params={
                **app,
                "grant_type": "fb_exchange_token",
                "fb_exchange_token": str(short["access_token"]),
            },
        )
        pages = self._get(
            "me/accounts",
            str(long_lived["access_token"]),
            fields="id,name,access_token,picture{url}",
            limit=100,
        )
        found = [page for page in pages.get("data") or [] if page.get("access_token")]
        if request.page_id:
            found = [page for page in found if str(page.get("id")) == request.page_id]
        return found

    def refresh(self, credentials: Credentials) -> None:
        """Page tokens do not expire; an invalidated one needs the user to log in again."""

    def revoke(self, credentials: Credentials) -> None:
        """Meta offers no revocation of a page token to the app: removing the app in the
        user's Facebook settings does it."""


def graph_code(error: outbound.OutboundError) -> int | None:
    """The Graph error code of a failed call's answer, when it has one."""
    found = json_of_excerpt(error.excerpt).get("error")
    code = found.get("code") if isinstance(found, dict) else None
    return code if isinstance(code, int) else None


def alt(media: MediaFile, name: str) -> dict[str, str]:
    """The image's alt text in the Graph field `name`, when it has one."""
    return {name: media.alt} if media.alt else {}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def picture(page: dict[str, Any]) -> str:
    """A page's picture URL, '' when it has none."""
    found = page.get("picture") or {}
    return str((found.get("data") or {}).get("url") or "")


def summary_count(edge: Any) -> int:
    if not isinstance(edge, dict):
        return 0
    return int((edge.get("summary") or {}).get("total_count") or 0)


def insight_values(insights: dict[str, Any]) -> dict[str, int]:
    values: dict[str, int] = {}
    for metric in insights.get("data") or []:
        series = metric.get("values") or [{}]
        try:
            values[str(metric.get("name"))] = int(series[-1].get("value") or 0)
        except (TypeError, ValueError):
            continue
    return values
