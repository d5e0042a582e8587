"""YouTube's resumable upload (developers.google.com/youtube/v3/guides/
using_resumable_upload_protocol): an init (`POST /upload/youtube/v3/videos`,
`uploadType=resumable`) answers a session URI, kept in the record's state before any byte is
sent; the bytes go in chunks of CHUNK_BYTES (a multiple of 256 KiB) with `Content-Range`, each
answered 308 with the `Range` confirmed so far, the last 200 or 201 with the video. After an
interruption the session is asked first (`Content-Range: bytes */total`, no body): the video
(done), 308 and where to continue, or 404/410 (gone: the video is looked up among the
channel's uploads, else a new session starts)."""

import re
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.files.storage import default_storage

from core import outbound
from social.providers.base import Attempt, Credentials, MediaFile, Published, QuotaReached
from social.providers.client import json_of, moment
from social.providers.lookup import Page, lookup_pages, same_text
from social.providers.media import stored_range
from social.providers.oauth import bearer
from social.providers.youtube.connection import (
    QUOTA_REASONS,
    YouTubeConnection,
    classify,
    next_midnight_pacific,
)

CHUNK_BYTES = 32 * 256 * 1024  # 8 MiB: YouTube takes chunks in multiples of 256 KiB
UPLOADS_PAGE = 50  # playlistItems' largest page


class Incomplete(outbound.PermanentError):
    """308 Resume Incomplete: the bytes YouTube holds so far (`confirmed`, the next byte's
    offset). Not a failure: the upload goes on from there."""

    confirmed = 0


def classify_upload(response: outbound.Response) -> outbound.OutboundError | None:
    if response.status_code == 308:
        incomplete = Incomplete("YouTube holds part of the upload.", status=308)
        found = re.fullmatch(r"bytes=(\d+)-(\d+)", str(response.headers.get("Range") or ""))
        incomplete.confirmed = int(found[2]) + 1 if found else 0
        return incomplete
    if response.status_code in (404, 410):
        return outbound.PermanentError("YouTube's upload session is gone.", status=404)
    return classify(response)


class YouTubeUploads(YouTubeConnection):
    _uploads = outbound.Client("youtube-upload", read_timeout=60.0, classify=classify_upload)

    def _open(self, credentials: Credentials, state: dict[str, Any]) -> None:
        """The upload's session, kept in `state` (the record stores it before any byte goes:
        see the adapter's `video_ready`). A used-up quota defers the record (QuotaReached):
        an init creates nothing."""
        url = f"{settings.YOUTUBE_API_URL}/upload/youtube/v3/videos"
        params = {
            "uploadType": "resumable",
            "part": "snippet,status",
            "notifySubscribers": "true" if state.get("notify", True) else "false",
        }
        headers = {
            **bearer(credentials),
            "Content-Type": "application/json; charset=UTF-8",
            "X-Upload-Content-Length": str(state["total"]),
            "X-Upload-Content-Type": str(state["mime"]),
        }
        try:
            try:
                answer = self._client.call(
                    "POST", url, params=params, json=state["init"], headers=headers
                )
            except outbound.AuthenticationError:
                if not self._renewed(credentials):
                    raise
                headers.update(bearer(credentials))
                answer = self._client.call(
                    "POST", url, params=params, json=state["init"], headers=headers
                )
        except outbound.TransientError as error:
            if any(reason in error.message for reason in QUOTA_REASONS):
                raise QuotaReached(
                    "YouTube's daily quota is used up (quotaExceeded): the upload waits for "
                    "midnight Pacific Time.",
                    until=next_midnight_pacific(),
                ) from None
            raise
        session = str(answer.headers.get("Location") or "")
        if not session:
            raise outbound.TransientError(
                "YouTube answered in a shape its API does not document (no upload session)."
            )
        state.update(session=session, confirmed=0, sending=False)

    def _put(
        self, credentials: Credentials, state: dict[str, Any], headers: dict[str, str], body: bytes
    ) -> Any:
        """One PUT to the session: the video resource (done), or Incomplete raised. Never
        repeated here: after a failure the session is asked where it stands."""
        budget = float(settings.SOCIAL_HTTP_TIMEOUT_SECONDS) * 3
        response = self._uploads.request(
            "PUT",
            state["session"],
            data=body,
            headers={**bearer(credentials), **headers},
            timeout=budget,
            idempotent=False,
        )
        return json_of(response)

    def _ask(self, credentials: Credentials, state: dict[str, Any]) -> dict[str, Any] | None:
        """Where the kept session stands: the video when it is complete, None when it goes on
        (`confirmed` updated); a gone session raises PermanentError."""
        headers = {"Content-Length": "0", "Content-Range": f"bytes */{state['total']}"}
        try:
            video: dict[str, Any] = self._put(credentials, state, headers, b"")
        except Incomplete as incomplete:
            state["confirmed"] = incomplete.confirmed
            return None
        return video

    def send(self, credentials: Credentials, state: dict[str, Any]) -> dict[str, Any]:
        """The file's bytes to the kept session, from where YouTube's count stands; the video
        resource once complete. A session an earlier attempt sent bytes to is asked first; a
        gone one is looked up among the uploads, else opened again."""
        if state.get("sending"):
            try:
                video = self._ask(credentials, state)
            except outbound.PermanentError as error:
                if error.status != 404:
                    raise
                found = self.uploaded(credentials, state)
                if found is not None:
                    return {"id": found.provider_post_id, "status": {}}
                self._open(credentials, state)
                video = None
            if video is not None:
                return video
        state["sending"] = True  # from here on, an interrupted upload is asked first
        total = int(state["total"])
        media = MediaFile(url="", stored=str(state["file"]), mime=str(state["mime"]))
        while True:
            first = int(state.get("confirmed") or 0)
            last = min(first + CHUNK_BYTES, total) - 1
            headers = {
                "Content-Type": str(state["mime"]),
                "Content-Range": f"bytes {first}-{last}/{total}",
            }
            try:
                return dict(
                    self._put(credentials, state, headers, stored_range(media, first, last))
                )
            except Incomplete as incomplete:
                if incomplete.confirmed <= first:
                    raise outbound.TransientError(
                        "YouTube kept none of the bytes sent: the outcome could not be "
                        "established.",
                        maybe_delivered=True,
                    ) from None
                state["confirmed"] = incomplete.confirmed

    def uploaded(self, credentials: Credentials, state: dict[str, Any]) -> Published | None:
        """The video an upload of this record made, among the channel's uploads since its
        first attempt (its title and description); None when it is not there."""
        attempt = Attempt(
            key="",
            after=datetime.fromisoformat(str(state["after"])),
            taken=frozenset(state.get("taken") or ()),
        )
        snippet = state["init"]["snippet"]
        return self.find(credentials, snippet["title"], snippet["description"], attempt)

    def find(
        self, credentials: Credentials, title: str, description: str, attempt: Attempt
    ) -> Published | None:
        """`playlistItems` of the channel's uploads playlist (1 unit a page; `search` costs
        100), newest first, read back to the attempt's window."""
        channel = self.get(credentials, "channels", part="contentDetails", mine="true")
        items = channel.get("items") or [{}]
        playlist = ((items[0].get("contentDetails") or {}).get("relatedPlaylists") or {}).get(
            "uploads"
        )
        if not playlist:
            return None

        def page(token: str | None) -> Page:
            found = self.get(
                credentials,
                "playlistItems",
                part="snippet,contentDetails",
                playlistId=playlist,
                maxResults=UPLOADS_PAGE,
                **({"pageToken": token} if token else {}),
            )
            return list(found.get("items") or []), found.get("nextPageToken") or None

        def matches(item: dict[str, Any]) -> bool:
            snippet = item.get("snippet") or {}
            return (
                attempt.ours(_video_id(item))
                and same_text(str(snippet.get("title") or ""), title)
                and same_text(str(snippet.get("description") or ""), description)
            )

        item = lookup_pages(
            "YouTube",
            page,
            attempt=attempt,
            created=lambda item: moment((item.get("snippet") or {}).get("publishedAt")),
            matches=matches,
        )
        if item is None:
            return None
        return Published(provider_post_id=_video_id(item), url=watch_url(_video_id(item)))


def _video_id(item: dict[str, Any]) -> str:
    return str((item.get("contentDetails") or {}).get("videoId") or "")


def watch_url(video: str, *, short: bool = False) -> str:
    if short:
        return f"https://www.youtube.com/shorts/{video}"
    return f"https://www.youtube.com/watch?v={video}"


def stored_size(media: MediaFile) -> int:
    """The video's bytes, as stored."""
    return int(default_storage.size(media.stored)) if media.stored else int(media.size or 0)


__all__ = ["CHUNK_BYTES", "Incomplete", "YouTubeUploads", "watch_url"]
