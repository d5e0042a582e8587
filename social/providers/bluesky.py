"""Bluesky (AT Protocol): an app password opens a session, which is kept and refreshed.

createSession is limited (30 per 5 minutes, 300 a day per account), so the app password is
never stored: the session's tokens are, and the access token is refreshed with the refresh
token when it is about to expire. Calls go to the account's own server (its PDS, named in the
session's DID document) when it has one; a PDS address comes from the user's DID document,
which the user controls, so calls to it pass the outbound guard.

Posts are created with a record key chosen before the first attempt (a TID derived from the
target's key and time), so a retried create collides with the first instead of duplicating,
and the lookup of an unknown outcome is one `getRecord`.
"""

import base64
import hashlib
import json
import re
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urlsplit

import requests
from django.conf import settings
from django.utils import timezone

from core import outbound
from core.times import iso
from social.providers.base import (
    Attempt,
    ConnectRequest,
    Content,
    Credentials,
    Draft,
    Identity,
    Metrics,
    OAuthApp,
    ProviderClient,
    Published,
    body_of,
    json_of_excerpt,
    media_bytes,
    same_text,
    stored_file,
)
from social.providers.text import Composer, Problem, graphemes

# Expired or invalid sessions come back as HTTP 400 with these `error` values.
AUTH_ERRORS = frozenset({"ExpiredToken", "InvalidToken", "AuthenticationRequired"})
NOT_FOUND = "RecordNotFound"
POST = "app.bsky.feed.post"
TID_ALPHABET = "234567abcdefghijklmnopqrstuvwxyz"
REFRESH_MARGIN = timedelta(minutes=5)
RENEW_WITHIN = timedelta(days=7)  # the daily upkeep renews sessions ending within a week
URL = re.compile(r"https?://[^\s<>\"]+[^\s<>\"'.,;:!?)\]]")
TAG = re.compile(r"(?<![\w#])#([^\s#.,;:!?()\[\]{}<>\"']+)")
MENTION = re.compile(r"(?<![\w@])@([a-zA-Z0-9][a-zA-Z0-9.-]*\.[a-zA-Z]{2,})")

MAX_BYTES = 3000  # a post's text, UTF-8
SERVICE_TOKEN_SECONDS = 1800  # the video service's token: the upload must start within it
UPLOAD_TIMEOUT_SECONDS = 300.0
MAX_IMAGE_BYTES = 1_000_000


def classify(response: requests.Response) -> outbound.OutboundError | None:
    """XRPC errors are named in the body's `error`; expired sessions are HTTP 400."""
    if 200 <= response.status_code < 300:
        return None
    error = str(body_of(response).get("error") or "")
    text = outbound.excerpt(response)
    if error in AUTH_ERRORS or response.status_code == 401:
        return outbound.AuthenticationError(
            f"Bluesky refused the session ({error or response.status_code}).",
            status=response.status_code,
            excerpt=text,
        )
    if response.status_code == 429:
        return outbound.TransientError(
            "Bluesky's rate limit was reached.",
            status=429,
            retry_after=outbound.retry_after_seconds(response) or _reset_in(response),
            excerpt=text,
        )
    return None


def tid(moment: datetime, key: str) -> str:
    """A timestamp identifier: 53 bits of microseconds, 10 bits of clock id (from `key`), in
    base32-sortable, 13 characters."""
    micros = int(moment.timestamp() * 1_000_000) & ((1 << 53) - 1)
    clock = int.from_bytes(hashlib.sha256(key.encode()).digest()[:2], "big") & 0x3FF
    value = (micros << 10) | clock
    return "".join(TID_ALPHABET[(value >> shift) & 31] for shift in range(60, -1, -5))


def facets(text: str, resolve: Any = None) -> list[dict[str, Any]]:
    """Links, hashtags (and mentions `resolve` turns into DIDs) with UTF-8 byte offsets."""
    found: list[dict[str, Any]] = []

    def span(start: int, end: int) -> dict[str, int]:
        return {
            "byteStart": len(text[:start].encode()),
            "byteEnd": len(text[:end].encode()),
        }

    for match in URL.finditer(text):
        found.append(
            {
                "index": span(*match.span()),
                "features": [{"$type": "app.bsky.richtext.facet#link", "uri": match.group(0)}],
            }
        )
    for match in TAG.finditer(text):
        found.append(
            {
                "index": span(*match.span()),
                "features": [{"$type": "app.bsky.richtext.facet#tag", "tag": match.group(1)}],
            }
        )
    for match in MENTION.finditer(text) if resolve else ():
        did = resolve(match.group(1))
        if did:
            found.append(
                {
                    "index": span(*match.span()),
                    "features": [{"$type": "app.bsky.richtext.facet#mention", "did": did}],
                }
            )
    return sorted(found, key=lambda facet: facet["index"]["byteStart"])


def jwt_expiry(token: str) -> datetime | None:
    """The `exp` claim of a session JWT (read, not verified: the server verifies)."""
    try:
        payload = token.split(".")[1]
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
        return datetime.fromtimestamp(int(claims["exp"]), tz=UTC)
    except (IndexError, KeyError, TypeError, ValueError):
        return None


def _pds(session: dict[str, Any]) -> str:
    """The PDS endpoint of a session's DID document, '' when it names none."""
    for service in (session.get("didDoc") or {}).get("service") or []:
        if str(service.get("id", "")).endswith("#atproto_pds"):
            return str(service.get("serviceEndpoint") or "").rstrip("/")
    return ""


class BlueskyAdapter(Composer):
    provider = "bluesky"
    _client = ProviderClient("bluesky", classify)

    name = "Bluesky"
    comment_limit = 300  # a reply is a post: graphemes, as the post's own limit

    def length(self, text: str, limits: dict[str, Any]) -> int:
        return graphemes(text)

    def problems(self, draft: Draft, content: Content, limits: dict[str, Any]) -> list[Problem]:
        """Graphemes, not characters, and at most 3,000 bytes; images up to 1,000,000 bytes."""
        found: list[Problem] = []
        text = content.text
        count, size = graphemes(text), len(text.encode())
        if count > int(limits["maxCharacters"]):
            found.append(
                (
                    "content",
                    f"Bluesky posts are at most {limits['maxCharacters']} "
                    f"characters; this one is {count}.",
                )
            )
        if size > MAX_BYTES:
            found.append(
                ("content", f"Bluesky posts are at most {MAX_BYTES} bytes; this one is {size}.")
            )
        if any((media.size or 0) > MAX_IMAGE_BYTES for media in draft.media if not media.video):
            found.append(("media", "Bluesky images are at most 1,000,000 bytes."))
        return found

    @staticmethod
    def configured() -> bool:
        return True  # app passwords need no app of ours

    def _xrpc(self, method: str, credentials: Credentials | None = None) -> tuple[str, bool]:
        """The method's URL, and whether it must pass the guard (a user's own PDS)."""

        server = (credentials.endpoint if credentials else "") or settings.BLUESKY_SERVICE_URL
        return f"{server}/xrpc/{method}", server != settings.BLUESKY_SERVICE_URL

    def _call(
        self, http_method: str, method: str, credentials: Credentials | None, **kwargs: Any
    ) -> Any:
        url, guarded = self._xrpc(method, credentials)
        if credentials is not None and "headers" not in kwargs:
            kwargs["headers"] = {"Authorization": f"Bearer {credentials.access_token}"}
        return self._client.json(http_method, url, guarded=guarded, **kwargs)

    def authorize_url(
        self, *, redirect_uri: str, state: str, app: OAuthApp | None, instance: str = ""
    ) -> str:
        raise NotImplementedError("Bluesky connects with an app password")

    def connect(self, request: ConnectRequest) -> Identity:
        session: dict[str, Any] = self._call(
            "POST",
            "com.atproto.server.createSession",
            None,
            json={"identifier": request.identifier, "password": request.code},
        )
        credentials = Credentials(
            provider_user_id=str(session["did"]),
            access_token=str(session["accessJwt"]),
            refresh_token=str(session["refreshJwt"]),
            username=str(session.get("handle") or ""),
            endpoint=_pds(session),
        )
        identity = self.identity(credentials)
        return Identity(
            provider_user_id=identity.provider_user_id,
            username=identity.username,
            display_name=identity.display_name,
            email=str(session.get("email") or ""),
            avatar=identity.avatar,
            access_token=credentials.access_token,
            refresh_token=credentials.refresh_token,
            expires_at=jwt_expiry(credentials.refresh_token),
            endpoint=credentials.endpoint,
        )

    def identity(self, credentials: Credentials) -> Identity:
        profile: dict[str, Any] = self._call(
            "GET",
            "app.bsky.actor.getProfile",
            credentials,
            params={"actor": credentials.provider_user_id},
        )
        return Identity(
            provider_user_id=credentials.provider_user_id,
            username=str(profile.get("handle") or credentials.username),
            display_name=str(profile.get("displayName") or ""),
            avatar=str(profile.get("avatar") or ""),
            access_token=credentials.access_token,
            refresh_token=credentials.refresh_token,
            expires_at=jwt_expiry(credentials.refresh_token),
            endpoint=credentials.endpoint,
        )

    def refresh(self, credentials: Credentials) -> None:
        """Refresh the session when its access token expires within 5 minutes, or the session
        itself (the refresh token, 90 days after the last refresh) within a week."""
        now = timezone.now()
        access_expiry = jwt_expiry(credentials.access_token)
        fresh = access_expiry is not None and access_expiry - now > REFRESH_MARGIN
        lasting = credentials.expires_at is None or credentials.expires_at - now > RENEW_WITHIN
        if fresh and lasting:
            return
        session: dict[str, Any] = self._call(
            "POST",
            "com.atproto.server.refreshSession",
            credentials,
            headers={"Authorization": f"Bearer {credentials.refresh_token}"},
        )
        credentials.renew(
            access_token=str(session["accessJwt"]),
            refresh_token=str(session["refreshJwt"]),
            expires_at=jwt_expiry(str(session["refreshJwt"])),
        )

    def _resolve_handle(self, credentials: Credentials, handle: str) -> str:
        try:
            answer = self._call(
                "GET", "com.atproto.identity.resolveHandle", credentials, params={"handle": handle}
            )
        except outbound.PermanentError:
            return ""  # not a Bluesky handle: plain text
        return str(answer.get("did") or "")

    def video_upload(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> dict[str, Any]:
        """`app.bsky.video.uploadVideo` at the video service, the file streamed from storage,
        with a service token our PDS issues for it (`getServiceAuth`, audience the PDS's own
        did:web); the job it answers is polled with `getJobStatus`. The same file sent again
        answers 409 `already_exists` with the job: resumed, not uploaded twice."""
        self.refresh(credentials)
        video = next(media for media in content.media if media.video)
        server = credentials.endpoint or settings.BLUESKY_SERVICE_URL
        service: dict[str, Any] = self._call(
            "GET",
            "com.atproto.server.getServiceAuth",
            credentials,
            params={
                "aud": f"did:web:{urlsplit(server).hostname}",
                "lxm": "com.atproto.repo.uploadBlob",
                "exp": int(timezone.now().timestamp()) + SERVICE_TOKEN_SECONDS,
            },
        )
        with stored_file(video) as stored:
            try:
                job: dict[str, Any] = self._client.json(
                    "POST",
                    f"{settings.BLUESKY_VIDEO_SERVICE_URL}/xrpc/app.bsky.video.uploadVideo",
                    params={
                        "did": credentials.provider_user_id,
                        "name": f"{self._record_key(attempt)}.mp4",
                    },
                    headers={
                        "Authorization": f"Bearer {service['token']}",
                        "Content-Type": video.mime,
                    },
                    data=stored,  # streamed, with its Content-Length
                    timeout=UPLOAD_TIMEOUT_SECONDS,
                )
            except outbound.PermanentError as error:
                found = json_of_excerpt(error.excerpt)
                if error.status != 409 or not found.get("jobId"):
                    raise
                job = found
        return {"jobId": str(job.get("jobId") or (job.get("jobStatus") or {}).get("jobId"))}

    def video_ready(self, credentials: Credentials, state: dict[str, Any]) -> bool:
        if state.get("blob"):
            return True
        answer: dict[str, Any] = self._client.json(
            "GET",
            f"{settings.BLUESKY_VIDEO_SERVICE_URL}/xrpc/app.bsky.video.getJobStatus",
            params={"jobId": state["jobId"]},
        )
        job = answer.get("jobStatus") or {}
        if job.get("state") == "JOB_STATE_FAILED":
            reason = job.get("error") or job.get("message") or "no reason given"
            raise outbound.PermanentError(f"Bluesky could not process the video: {reason}.")
        if job.get("state") == "JOB_STATE_COMPLETED" and job.get("blob"):
            state["blob"] = job["blob"]
            return True
        return False

    def _embed(self, credentials: Credentials, content: Content) -> dict[str, Any] | None:
        if content.video:
            video = next(media for media in content.media if media.video)
            embed: dict[str, Any] = {
                "$type": "app.bsky.embed.video",
                "video": content.video["blob"],
            }
            if video.alt:
                embed["alt"] = video.alt
            if video.width and video.height:
                embed["aspectRatio"] = {"width": video.width, "height": video.height}
            return embed
        if content.media:
            images = []
            for media in content.media[:4]:
                blob = self._call(
                    "POST",
                    "com.atproto.repo.uploadBlob",
                    credentials,
                    data=media_bytes(media),
                    headers={
                        "Authorization": f"Bearer {credentials.access_token}",
                        "Content-Type": media.mime,
                    },
                )
                images.append({"alt": media.alt, "image": blob["blob"]})
            return {"$type": "app.bsky.embed.images", "images": images}
        if content.link:
            return {
                "$type": "app.bsky.embed.external",
                "external": {"uri": content.link, "title": content.title, "description": ""},
            }
        return None

    def _record_key(self, attempt: Attempt) -> str:
        # Each part its own key: a microsecond apart, so that no two parts of a record share
        # one, whatever their clock bits.
        return tid(attempt.since + timedelta(microseconds=attempt.part), attempt.key)

    def _published(self, credentials: Credentials, uri: str, cid: str = "") -> Published:
        rkey = uri.rsplit("/", 1)[-1]
        handle = credentials.username or credentials.provider_user_id
        return Published(
            provider_post_id=uri, url=f"https://bsky.app/profile/{handle}/post/{rkey}", ref=cid
        )

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        return self._create(credentials, content, attempt)

    def reply(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published:
        """A reply names its thread's root and its parent by uri and cid."""
        refs = {
            "root": {"uri": root.provider_post_id, "cid": root.ref},
            "parent": {"uri": parent.provider_post_id, "cid": parent.ref},
        }
        return self._create(credentials, content, attempt, reply=refs)

    def reply_lookup(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published | None:
        return self.lookup(credentials, content, attempt)

    def comment(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published:
        """The author's reply to the post."""
        return self.reply(credentials, Content(text=text), attempt, parent=on, root=on)

    def comment_lookup(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published | None:
        return self.lookup(credentials, Content(text=text), attempt)

    def _create(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        reply: dict[str, Any] | None = None,
    ) -> Published:
        self.refresh(credentials)
        record: dict[str, Any] = {
            "$type": POST,
            "text": content.text,
            "createdAt": iso(timezone.now()),
            "facets": facets(
                content.text, lambda handle: self._resolve_handle(credentials, handle)
            ),
        }
        if reply is not None:
            record["reply"] = reply
        embed = self._embed(credentials, content)
        if embed is not None:
            record["embed"] = embed
        try:
            created: dict[str, Any] = self._call(
                "POST",
                "com.atproto.repo.createRecord",
                credentials,
                json={
                    "repo": credentials.provider_user_id,
                    "collection": POST,
                    "rkey": self._record_key(attempt),
                    "record": record,
                },
            )
        except outbound.PermanentError as error:
            if isinstance(error, outbound.AuthenticationError):
                raise
            # The key is taken: an earlier attempt created it (or this is not ours to take).
            found = self.lookup(credentials, content, attempt)
            if found is not None:
                return found
            raise
        return self._published(credentials, str(created["uri"]), str(created.get("cid") or ""))

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        self.refresh(credentials)
        try:
            found: dict[str, Any] = self._call(
                "GET",
                "com.atproto.repo.getRecord",
                credentials,
                params={
                    "repo": credentials.provider_user_id,
                    "collection": POST,
                    "rkey": self._record_key(attempt),
                },
            )
        except outbound.PermanentError as error:
            if isinstance(error, outbound.AuthenticationError) or NOT_FOUND not in error.excerpt:
                raise
            return None
        if not same_text(str((found.get("value") or {}).get("text") or ""), content.text):
            return None
        return self._published(credentials, str(found["uri"]), str(found.get("cid") or ""))

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        self.refresh(credentials)
        answer: dict[str, Any] = self._call(
            "GET",
            "app.bsky.feed.getPosts",
            credentials,
            params={"uris": published.provider_post_id},
        )
        posts = answer.get("posts") or [{}]
        engagement = sum(
            int(posts[0].get(name) or 0)
            for name in ("likeCount", "repostCount", "replyCount", "quoteCount")
        )
        return Metrics(engagement=engagement)

    def revoke(self, credentials: Credentials) -> None:
        """Ends the session at the server (deleteSession takes the refresh token)."""
        if credentials.refresh_token:
            url, guarded = self._xrpc("com.atproto.server.deleteSession", credentials)
            self._client.call(
                "POST",
                url,
                guarded=guarded,
                headers={"Authorization": f"Bearer {credentials.refresh_token}"},
                idempotent=True,
            )


def _reset_in(response: requests.Response) -> float | None:
    """`RateLimit-Reset` is a Unix time."""
    try:
        reset = float(response.headers.get("RateLimit-Reset", ""))
    except ValueError:
        return None
    return max(0.0, reset - timezone.now().timestamp())
