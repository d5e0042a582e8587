"""LinkedIn: OAuth 2.0 (OpenID Connect for identity) and the versioned `rest/posts` API.

Access tokens last 60 days; refresh tokens are issued to approved partners only, so the
account is warned before expiry (the daily task) and refreshed when a refresh token exists.
"""

import re
from datetime import datetime, timedelta
from typing import Any
from urllib.parse import quote, urlencode

import requests
from django.conf import settings
from django.utils import timezone

from core import outbound
from social.providers.base import (
    LOOKUP_PAGE_SIZE,
    Attempt,
    ConnectRequest,
    Content,
    Credentials,
    Identity,
    Metrics,
    OAuthApp,
    Page,
    ProviderClient,
    Published,
    body_of,
    lookup_pages,
    media_bytes,
    moment,
    same_text,
    seconds_from_now,
    stored_range,
)
from social.providers.text import Composer

SCOPES = "openid profile email w_member_social"
EXPIRED_TOKEN = 65602
# "little text": these characters are markup in commentary and must be escaped.
LITTLE_TEXT_RESERVED = re.compile(r"([|{}@\[\]()<>#\\*_~])")
HASHTAG = re.compile(r"(?<![\w#])#(\w+)")
RENEW_WITHIN = timedelta(days=7)  # a refresh token (partners only) renews within a week


def classify(response: requests.Response) -> outbound.OutboundError | None:
    """401 (code 65602: expired) is authentication; 429 and 5xx are transient (the default);
    400, 403 and 422 (DUPLICATE_POST among them) are permanent."""
    body = body_of(response)
    if response.status_code == 403:
        return outbound.PermanentError(
            str(body.get("message") or "LinkedIn refused the request (HTTP 403)."),
            status=403,
            excerpt=outbound.excerpt(response),
        )
    if response.status_code == 401 or body.get("serviceErrorCode") == EXPIRED_TOKEN:
        return outbound.AuthenticationError(
            "LinkedIn refused the access token: reconnect the account.",
            status=response.status_code,
            excerpt=outbound.excerpt(response),
        )
    if response.status_code == 422 and "DUPLICATE" in str(body.get("code") or "").upper():
        # The same text again (a recurring post's next occurrence): LinkedIn's reason.
        return outbound.PermanentError(
            f"LinkedIn refuses the same text twice (DUPLICATE_POST): {body.get('message') or ''}",
            status=422,
            excerpt=outbound.excerpt(response),
        )
    return None


def commentary(text: str) -> str:
    """Plain text as LinkedIn's little text: markup escaped, #tags as hashtag templates."""
    parts: list[str] = []
    position = 0
    for match in HASHTAG.finditer(text):
        parts.append(LITTLE_TEXT_RESERVED.sub(r"\\\1", text[position : match.start()]))
        parts.append("{hashtag|\\#|" + match.group(1) + "}")
        position = match.end()
    parts.append(LITTLE_TEXT_RESERVED.sub(r"\\\1", text[position:]))
    return "".join(parts)


def post_url(urn: str) -> str:
    return f"https://www.linkedin.com/feed/update/{urn}"


class LinkedInAdapter(Composer):
    provider = "linkedin"
    _client = ProviderClient("linkedin", classify)

    name = "LinkedIn"
    link_field = True

    def sent_text(self, text: str, *, kind: str) -> str:
        """A post's commentary is little text (escaped by `commentary`, which `publish` and
        `lookup` send and match); a comment's message is plain text."""
        return commentary(text) if kind == "post" else text

    @staticmethod
    def configured() -> bool:
        return bool(settings.LINKEDIN_CLIENT_ID and settings.LINKEDIN_CLIENT_SECRET)

    def _rest_headers(self, credentials: Credentials) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {credentials.access_token}",
            "LinkedIn-Version": settings.LINKEDIN_API_VERSION,
            "X-Restli-Protocol-Version": "2.0.0",
        }

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        query = urlencode(
            {
                "response_type": "code",
                "client_id": settings.LINKEDIN_CLIENT_ID,
                "redirect_uri": redirect_uri,
                "scope": SCOPES,
                "state": state,
            }
        )
        return f"{settings.LINKEDIN_AUTH_URL}/authorization?{query}"

    def _token(self, form: dict[str, str]) -> dict[str, Any]:
        token: dict[str, Any] = self._client.json(
            "POST",
            f"{settings.LINKEDIN_AUTH_URL}/accessToken",
            data={
                **form,
                "client_id": settings.LINKEDIN_CLIENT_ID,
                "client_secret": settings.LINKEDIN_CLIENT_SECRET,
            },
        )
        return token

    def connect(self, request: ConnectRequest) -> Identity:
        token = self._token(
            {
                "grant_type": "authorization_code",
                "code": request.code,
                "redirect_uri": request.redirect_uri,
            }
        )
        credentials = Credentials(
            provider_user_id="",
            access_token=str(token["access_token"]),
            refresh_token=str(token.get("refresh_token") or ""),
            expires_at=seconds_from_now(token.get("expires_in")),
            refresh_expires_at=seconds_from_now(token.get("refresh_token_expires_in")),
        )
        return self.identity(credentials)

    def identity(self, credentials: Credentials) -> Identity:
        me: dict[str, Any] = self._client.json(
            "GET",
            f"{settings.LINKEDIN_API_URL}/v2/userinfo",
            headers={"Authorization": f"Bearer {credentials.access_token}"},
        )
        return Identity(
            provider_user_id=str(me["sub"]),
            username=str(me.get("email") or me.get("name") or me["sub"]),
            display_name=str(me.get("name") or ""),
            email=str(me.get("email") or ""),
            avatar=str(me.get("picture") or ""),
            access_token=credentials.access_token,
            refresh_token=credentials.refresh_token,
            expires_at=credentials.expires_at,
            refresh_expires_at=credentials.refresh_expires_at,
        )

    def refresh(self, credentials: Credentials) -> None:
        """Only partners get refresh tokens; without one the token runs until it expires."""

        if not credentials.refresh_token or not _expires_soon(credentials.expires_at):
            return
        token = self._token(
            {"grant_type": "refresh_token", "refresh_token": credentials.refresh_token}
        )
        credentials.renew(
            access_token=str(token["access_token"]),
            refresh_token=str(token.get("refresh_token") or credentials.refresh_token),
            expires_at=seconds_from_now(token.get("expires_in")),
            refresh_expires_at=seconds_from_now(token.get("refresh_token_expires_in")),
        )

    def _author(self, credentials: Credentials) -> str:
        return f"urn:li:person:{credentials.provider_user_id}"

    def _upload_image(self, credentials: Credentials, media: Any) -> str:
        initialized: dict[str, Any] = self._client.json(
            "POST",
            f"{settings.LINKEDIN_API_URL}/rest/images",
            params={"action": "initializeUpload"},
            headers=self._rest_headers(credentials),
            json={"initializeUploadRequest": {"owner": self._author(credentials)}},
        )
        value = initialized["value"]
        self._client.call(
            "PUT",
            str(value["uploadUrl"]),
            data=media_bytes(media),
            headers={"Authorization": f"Bearer {credentials.access_token}"},
        )
        return str(value["image"])

    def video_upload(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> dict[str, Any]:
        """The Videos API: `initializeUpload` names the parts (byte ranges of at most 4 MB
        each) and their upload URLs; each part is read from storage and sent on its own (one
        part in memory at a time), then `finalizeUpload` with the parts' ETags."""
        video = next(media for media in content.media if media.video)
        initialized: dict[str, Any] = self._client.json(
            "POST",
            f"{settings.LINKEDIN_API_URL}/rest/videos",
            params={"action": "initializeUpload"},
            headers=self._rest_headers(credentials),
            json={
                "initializeUploadRequest": {
                    "owner": self._author(credentials),
                    "fileSizeBytes": int(video.size or 0),
                    "uploadCaptions": False,
                    "uploadThumbnail": False,
                }
            },
        )
        value = initialized["value"]
        etags = []
        for part in value.get("uploadInstructions") or []:
            response = self._client.call(
                "PUT",
                str(part["uploadUrl"]),
                data=stored_range(video, int(part["firstByte"]), int(part["lastByte"])),
                headers={
                    "Authorization": f"Bearer {credentials.access_token}",
                    "Content-Type": "application/octet-stream",
                },
                timeout=UPLOAD_TIMEOUT_SECONDS,
            )
            etags.append(response.headers.get("etag", ""))
        self._client.call(
            "POST",
            f"{settings.LINKEDIN_API_URL}/rest/videos",
            params={"action": "finalizeUpload"},
            headers=self._rest_headers(credentials),
            json={
                "finalizeUploadRequest": {
                    "video": value["video"],
                    "uploadToken": value.get("uploadToken") or "",
                    "uploadedPartIds": etags,
                }
            },
        )
        return {"video": str(value["video"])}

    def video_ready(self, credentials: Credentials, state: dict[str, Any]) -> bool:
        """`GET /rest/videos/{urn}`: `AVAILABLE` once processed, `PROCESSING_FAILED` with a
        reason."""
        found: dict[str, Any] = self._client.json(
            "GET",
            f"{settings.LINKEDIN_API_URL}/rest/videos/{quote(state['video'], safe='')}",
            headers=self._rest_headers(credentials),
        )
        status = str(found.get("status") or "")
        if status == "PROCESSING_FAILED":
            reason = found.get("processingFailureReason") or "no reason given"
            raise outbound.PermanentError(f"LinkedIn could not process the video: {reason}.")
        return status == "AVAILABLE"

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        body: dict[str, Any] = {
            "author": self._author(credentials),
            "commentary": commentary(content.text),
            "visibility": "PUBLIC",
            "distribution": {
                "feedDistribution": "MAIN_FEED",
                "targetEntities": [],
                "thirdPartyDistributionChannels": [],
            },
            "lifecycleState": "PUBLISHED",
            "isReshareDisabledByAuthor": False,
        }
        images = [
            {
                "id": self._upload_image(credentials, media),
                **({"altText": media.alt[:4086]} if media.alt else {}),
            }
            for media in content.media
            if not content.video
        ]
        if content.video:
            body["content"] = {"media": {"id": content.video["video"], "title": content.title}}
        elif len(images) == 1:
            body["content"] = {"media": images[0]}
        elif images:
            body["content"] = {"multiImage": {"images": images}}
        elif content.link:
            body["content"] = {"article": {"source": content.link, "title": content.title or ""}}
        try:
            response = self._client.call(
                "POST",
                f"{settings.LINKEDIN_API_URL}/rest/posts",
                headers=self._rest_headers(credentials),
                json=body,
            )
        except outbound.PermanentError as error:
            # 422 DUPLICATE_POST: LinkedIn has a post with this text. It is this record's only
            # when an earlier attempt of it may have made it (its answer was lost) and the
            # lookup finds it among the posts no other record holds; otherwise the same text
            # was published before (another post, an earlier occurrence): refused.
            if error.status == 422 and "DUPLICATE" in error.excerpt.upper() and attempt.unknown:
                found = self.lookup(credentials, content, attempt)
                if found is not None:
                    return found
            raise
        urn = response.headers.get("x-restli-id", "")
        if not urn:
            raise outbound.TransientError(
                "LinkedIn did not name the created post.", maybe_delivered=True
            )
        return Published(provider_post_id=urn, url=post_url(urn))

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        """The author's posts, newest created first, page after page back to the attempt's
        window (base.lookup_pages): the one with this commentary no other record holds."""
        headers = {**self._rest_headers(credentials), "X-RestLi-Method": "FINDER"}

        def page(start: int | None) -> Page:
            found: dict[str, Any] = self._client.json(
                "GET",
                f"{settings.LINKEDIN_API_URL}/rest/posts",
                params={
                    "q": "author",
                    "author": self._author(credentials),
                    "sortBy": "CREATED",
                    "start": start or 0,
                    "count": LOOKUP_PAGE_SIZE,
                },
                headers=headers,
            )
            elements = list(found.get("elements") or [])
            more = len(elements) >= LOOKUP_PAGE_SIZE
            return elements, (start or 0) + len(elements) if more else None

        expected = commentary(content.text)
        element = lookup_pages(
            "LinkedIn",
            page,
            attempt=attempt,
            created=lambda element: moment(element.get("createdAt")),
            matches=lambda element: (
                attempt.ours(str(element.get("id")))
                and same_text(str(element.get("commentary") or ""), expected)
            ),
        )
        if element is None:
            return None
        urn = str(element["id"])
        return Published(provider_post_id=urn, url=post_url(urn))

    def _comments_url(self, on: Published) -> str:
        post = quote(on.provider_post_id, safe="")
        return f"{settings.LINKEDIN_API_URL}/rest/socialActions/{post}/comments"

    def comment(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published:
        """`POST /rest/socialActions/{post urn}/comments` as the author; the comment's URN
        comes back in `x-restli-id` (or the body's `$URN`)."""
        response = self._client.call(
            "POST",
            self._comments_url(on),
            headers=self._rest_headers(credentials),
            json={
                "actor": self._author(credentials),
                "object": on.provider_post_id,
                "message": {"text": text},
            },
        )
        urn = response.headers.get("x-restli-id", "") or str(body_of(response).get("$URN") or "")
        if not urn:
            raise outbound.TransientError(
                "LinkedIn did not name the created comment.", maybe_delivered=True
            )
        return Published(provider_post_id=urn, url=on.url)

    def comment_lookup(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published | None:
        """The post's comments, page after page: the author's with this text."""

        def page(start: int | None) -> Page:
            found: dict[str, Any] = self._client.json(
                "GET",
                self._comments_url(on),
                headers=self._rest_headers(credentials),
                params={"start": start or 0, "count": LOOKUP_PAGE_SIZE},
            )
            elements = list(found.get("elements") or [])
            more = len(elements) >= LOOKUP_PAGE_SIZE
            return elements, (start or 0) + len(elements) if more else None

        author = self._author(credentials)
        element = lookup_pages(
            "LinkedIn",
            page,
            attempt=attempt,
            # Every comment of the post is younger than the attempt: read them all.
            created=lambda element: None,
            matches=lambda element: (
                element.get("actor") == author
                and same_text(str((element.get("message") or {}).get("text") or ""), text)
            ),
        )
        if element is None:
            return None
        urn = str(element.get("$URN") or element.get("commentUrn") or element.get("id"))
        return Published(provider_post_id=urn, url=on.url)

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        kind = "ugc" if ":ugcPost:" in published.provider_post_id else "share"
        entity = f"({kind}:{quote(published.provider_post_id, safe='')})"
        counts: dict[str, int] = {}
        for query_type in ("IMPRESSION", "REACTION", "COMMENT", "RESHARE"):
            answer: dict[str, Any] = self._client.json(
                "GET",
                f"{settings.LINKEDIN_API_URL}/rest/memberCreatorPostAnalytics",
                # Rest.li tuple syntax: the parentheses must reach LinkedIn unencoded.
                params=f"q=entity&entity={entity}&queryType={query_type}&aggregation=TOTAL",
                headers=self._rest_headers(credentials),
            )
            counts[query_type] = sum(
                int(element.get("count") or 0) for element in answer.get("elements") or []
            )
        return Metrics(
            impressions=counts["IMPRESSION"],
            engagement=counts["REACTION"] + counts["COMMENT"] + counts["RESHARE"],
        )

    def revoke(self, credentials: Credentials) -> None:
        """LinkedIn offers members no token revocation to apps: the token lapses."""


UPLOAD_TIMEOUT_SECONDS = 300.0  # one part of a video upload


def _expires_soon(expires_at: datetime | None) -> bool:
    return expires_at is not None and expires_at - timezone.now() < RENEW_WITHIN
