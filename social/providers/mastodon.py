"""Mastodon: every instance is its own server. An app is registered once per (instance,
redirect URI) and reused; the user authorizes it with OAuth; tokens do not expire.

The instance URL is user input, so every call goes through the outbound guard (https, public
addresses, the connection pinned to the checked address). Statuses are created with an
`Idempotency-Key` (the target's key), so the next attempt after a lost answer, within an
hour, gets the original status back instead of a second one (the create itself is sent once
per attempt, never retried within it: core/outbound.py).
"""

import html
import re
import time
from collections.abc import Callable
from datetime import datetime
from typing import Any
from urllib.parse import urlencode, urlsplit

import requests
from django.conf import settings
from requests_toolbelt import MultipartEncoder

from core import outbound
from social.providers.base import (
    LOOKUP_PAGE_SIZE,
    Attempt,
    ConnectRequest,
    Content,
    Credentials,
    Draft,
    Identity,
    Metrics,
    OAuthApp,
    Page,
    ProviderClient,
    Published,
    json_of_excerpt,
    lookup_pages,
    media_bytes,
    moment,
    same_text,
    stored_file,
)
from social.providers.text import URL, Composer, Problem

SCOPES = "write:statuses write:media profile"
UPLOAD_TIMEOUT_SECONDS = 300.0  # a video's upload: the whole body, then the answer
MEDIA_POLL_SECONDS = (0.5, 1.0, 2.0, 4.0)
DEFAULT_LIMITS = {"maxCharacters": 500, "maxMedia": 4, "charactersPerUrl": 23}
TAG = re.compile(r"<[^>]+>")
BREAK = re.compile(r"<br\s*/?>|</p>\s*<p>", re.IGNORECASE)


def classify(response: requests.Response) -> outbound.OutboundError | None:
    """401 is authentication, 422 a rejected status (permanent, the default); a 429 says when
    the window resets in `X-RateLimit-Reset` (an ISO time) rather than `Retry-After`."""
    if response.status_code == 429 and "Retry-After" not in response.headers:
        return outbound.TransientError(
            "Mastodon's rate limit was reached.",
            status=429,
            retry_after=_seconds_until(response.headers.get("X-RateLimit-Reset", "")),
            excerpt=outbound.excerpt(response),
        )
    return None


def normalize_instance(url: str) -> str:
    """`https://Mastodon.Social/` and `https://mastodon.social` name one server."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    netloc = (
        host
        if parts.port in (None, 443 if parts.scheme == "https" else 80)
        else (f"{host}:{parts.port}")
    )
    return f"{parts.scheme.lower()}://{netloc}"


def status_text(content_html: str) -> str:
    """A status's HTML as plain text (paragraphs and breaks as newlines)."""
    return html.unescape(TAG.sub("", BREAK.sub("\n", content_html)))


class MastodonAdapter(Composer):
    provider = "mastodon"
    _client = ProviderClient("mastodon", classify)

    name = "Mastodon"
    comment_limit = 500  # a reply is a status: the common instance limit

    def length(self, text: str, limits: dict[str, Any]) -> int:
        """Each link counts as `charactersPerUrl`, whatever its length."""
        return len(URL.sub("x" * int(limits.get("charactersPerUrl") or 23), text))

    def problems(self, draft: Draft, content: Content, limits: dict[str, Any]) -> list[Problem]:
        """The instance's own limit, each link counted as `charactersPerUrl`."""
        per_url = int(limits.get("charactersPerUrl") or 23)
        count = self.length(content.text, limits)
        maximum = int(limits.get("maxCharacters") or 500)
        if count > maximum:
            return [
                (
                    "content",
                    f"This Mastodon server takes at most {maximum} characters "
                    f"(links count as {per_url}); this post is {count}.",
                )
            ]
        return []

    @staticmethod
    def configured() -> bool:
        return True  # each instance registers our app on demand

    def _call(self, method: str, instance: str, path: str, **kwargs: Any) -> Any:
        return self._client.json(method, f"{instance}{path}", guarded=True, **kwargs)

    def _auth(self, credentials: Credentials) -> dict[str, str]:
        return {"Authorization": f"Bearer {credentials.access_token}"}

    def register_app(self, *, instance: str, redirect_uri: str) -> OAuthApp:
        registered: dict[str, Any] = self._call(
            "POST",
            instance,
            "/api/v1/apps",
            json={
                "client_name": settings.MASTODON_CLIENT_NAME,
                "redirect_uris": redirect_uri,
                "scopes": SCOPES,
                "website": settings.PUBLIC_URL,
            },
        )
        return OAuthApp(
            client_id=str(registered["client_id"]), client_secret=str(registered["client_secret"])
        )

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        if app is None:
            raise ValueError("Mastodon authorizes the app registered on the instance")
        query = urlencode(
            {
                "client_id": app.client_id,
                "redirect_uri": redirect_uri,
                "response_type": "code",
                "scope": SCOPES,
                "state": state,
            }
        )
        return f"{instance}/oauth/authorize?{query}"

    def connect(self, request: ConnectRequest) -> Identity:
        if request.app is None:
            raise ValueError("the service finds the instance's app first")
        token: dict[str, Any] = self._call(
            "POST",
            request.instance,
            "/oauth/token",
            data={
                "grant_type": "authorization_code",
                "code": request.code,
                "client_id": request.app.client_id,
                "client_secret": request.app.client_secret,
                "redirect_uri": request.redirect_uri,
                "scope": SCOPES,
            },
        )
        return self.identity(
            Credentials(
                provider_user_id="",
                access_token=str(token["access_token"]),
                instance=request.instance,
            )
        )

    def identity(self, credentials: Credentials) -> Identity:
        me: dict[str, Any] = self._call(
            "GET",
            credentials.instance,
            "/api/v1/accounts/verify_credentials",
            headers=self._auth(credentials),
        )
        return Identity(
            provider_user_id=str(me["id"]),
            username=str(me.get("acct") or me.get("username") or ""),
            display_name=str(me.get("display_name") or ""),
            avatar=str(me.get("avatar") or ""),
            access_token=credentials.access_token,
            limits=self.limits(credentials.instance),
        )

    def limits(self, instance: str) -> dict[str, int]:
        """The instance's live limits (`GET /api/v2/instance`), defaults where it is silent."""

        try:
            about: dict[str, Any] = self._call("GET", instance, "/api/v2/instance")
        except outbound.OutboundError:
            return dict(DEFAULT_LIMITS)
        configuration = about.get("configuration") or {}
        statuses = configuration.get("statuses") or {}
        return {
            "maxCharacters": _int(statuses.get("max_characters"), 500),
            "maxMedia": _int(statuses.get("max_media_attachments"), 4),
            "charactersPerUrl": _int(statuses.get("characters_reserved_per_url"), 23),
        }

    def refresh(self, credentials: Credentials) -> None:
        """Mastodon tokens do not expire."""

    def _upload(self, credentials: Credentials, media: Any) -> str:
        uploaded: dict[str, Any] = self._call(
            "POST",
            credentials.instance,
            "/api/v2/media",
            headers=self._auth(credentials),
            files={"file": ("image", media_bytes(media), media.mime)},
            data={"description": media.alt} if media.alt else None,
        )
        media_id = str(uploaded["id"])
        for delay in MEDIA_POLL_SECONDS:  # 202: still processing until `url` is set
            if uploaded.get("url"):
                return media_id
            time.sleep(delay)
            uploaded = self._call(
                "GET",
                credentials.instance,
                f"/api/v1/media/{media_id}",
                headers=self._auth(credentials),
            )
        if not uploaded.get("url"):
            raise outbound.TransientError("Mastodon is still processing the media.")
        return media_id

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        return self._status(credentials, content, attempt)

    def video_upload(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> dict[str, Any]:
        """`POST /api/v2/media`, the file streamed from storage: 202 while the instance
        processes it (its `url` is null), 200 when it is done already."""
        video = next(media for media in content.media if media.video)
        with stored_file(video) as stored:
            fields: dict[str, Any] = {"file": ("video", stored, video.mime)}
            if video.alt:
                fields["description"] = video.alt
            body = MultipartEncoder(fields=fields)
            uploaded: dict[str, Any] = self._call(
                "POST",
                credentials.instance,
                "/api/v2/media",
                headers={**self._auth(credentials), "Content-Type": body.content_type},
                data=body,
                timeout=UPLOAD_TIMEOUT_SECONDS,
            )
        return {"mediaId": str(uploaded["id"]), "done": bool(uploaded.get("url"))}

    def video_ready(self, credentials: Credentials, state: dict[str, Any]) -> bool:
        """`GET /api/v1/media/{id}`: 206 without a `url` while processing, 200 with one when
        done; a failed processing answers 422 with the reason."""
        if state.get("done"):
            return True
        try:
            found: dict[str, Any] = self._call(
                "GET",
                credentials.instance,
                f"/api/v1/media/{state['mediaId']}",
                headers=self._auth(credentials),
            )
        except outbound.PermanentError as error:
            if isinstance(error, outbound.AuthenticationError) or error.status != 422:
                raise
            reason = str(json_of_excerpt(error.excerpt).get("error") or "")
            raise outbound.PermanentError(
                f"Mastodon could not process the video: {reason or 'no reason given'}.",
                status=422,
                excerpt=error.excerpt,
            ) from None
        state["done"] = bool(found.get("url"))
        return bool(state["done"])

    def _status(
        self, credentials: Credentials, content: Content, attempt: Attempt, in_reply_to: str = ""
    ) -> Published:
        media_ids = (
            [str(content.video["mediaId"])]
            if content.video
            else [self._upload(credentials, media) for media in content.media]
        )
        body: dict[str, Any] = {
            "status": content.text,
            "media_ids": media_ids,
            "visibility": "public",
        }
        if in_reply_to:
            body["in_reply_to_id"] = in_reply_to
        status: dict[str, Any] = self._call(
            "POST",
            credentials.instance,
            "/api/v1/statuses",
            headers={**self._auth(credentials), "Idempotency-Key": attempt.key},
            json=body,
            # A create is sent once per attempt (social.md section 5); the key (one per part)
            # makes the next attempt's repeat return this status if this one reached the
            # instance.
        )
        return Published(provider_post_id=str(status["id"]), url=str(status.get("url") or ""))

    def reply(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published:
        return self._status(credentials, content, attempt, in_reply_to=parent.provider_post_id)

    def reply_lookup(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published | None:
        """Among the account's statuses, replies included: the one answering `parent` with
        this text."""

        def answers(status: dict[str, Any]) -> bool:
            text = status_text(str(status.get("content") or ""))
            replied = str(status.get("in_reply_to_id") or "")
            return replied == parent.provider_post_id and same_text(text, content.text)

        return self._find(credentials, attempt, replies=True, matches=answers)

    def comment(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published:
        """The author's reply to the post."""
        return self.reply(credentials, Content(text=text), attempt, parent=on, root=on)

    def comment_lookup(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published | None:
        return self.reply_lookup(credentials, Content(text=text), attempt, parent=on, root=on)

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        return self._find(
            credentials,
            attempt,
            replies=False,
            matches=lambda status: same_text(
                status_text(str(status.get("content") or "")), content.text
            ),
        )

    def _find(
        self,
        credentials: Credentials,
        attempt: Attempt,
        *,
        replies: bool,
        matches: Callable[[dict[str, Any]], bool],
    ) -> Published | None:
        """The account's status that `matches` and no other record holds, its statuses read
        page after page (`max_id`) back to the attempt's window (base.lookup_pages)."""

        def page(max_id: str | None) -> Page:
            params = {
                "limit": LOOKUP_PAGE_SIZE,
                "exclude_reblogs": "true",
                **({} if replies else {"exclude_replies": "true"}),
                **({"max_id": max_id} if max_id else {}),
            }
            statuses: list[dict[str, Any]] = self._call(
                "GET",
                credentials.instance,
                f"/api/v1/accounts/{credentials.provider_user_id}/statuses",
                params=params,
                headers=self._auth(credentials),
            )
            more = len(statuses) >= LOOKUP_PAGE_SIZE
            return statuses, str(statuses[-1]["id"]) if more else None

        status = lookup_pages(
            "Mastodon",
            page,
            attempt=attempt,
            created=lambda status: moment(status.get("created_at")),
            matches=lambda status: attempt.ours(str(status.get("id"))) and matches(status),
        )
        if status is None:
            return None
        return Published(provider_post_id=str(status["id"]), url=str(status.get("url") or ""))

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        status: dict[str, Any] = self._call(
            "GET",
            credentials.instance,
            f"/api/v1/statuses/{published.provider_post_id}",
            headers=self._auth(credentials),
        )
        return Metrics(
            engagement=sum(
                _int(status.get(name), 0)
                for name in ("replies_count", "reblogs_count", "favourites_count")
            )
        )

    def revoke(self, credentials: Credentials) -> None:
        if credentials.app is None:
            return
        self._client.call(
            "POST",
            f"{credentials.instance}/oauth/revoke",
            guarded=True,
            data={
                "client_id": credentials.app.client_id,
                "client_secret": credentials.app.client_secret,
                "token": credentials.access_token,
            },
            idempotent=True,
        )


def _int(value: Any, default: int) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return default


def _seconds_until(iso: str) -> float | None:
    try:
        moment = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    except ValueError:
        return None
    return max(0.0, moment.timestamp() - time.time())
