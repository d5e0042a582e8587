"""TikTok's posting flows (Content Posting API, Direct Post; networks/tiktok.md): the creator's
info asked before each post, a video's init (`FILE_UPLOAD`: a `publish_id` and the upload URL,
kept in the record's state before any byte goes) and its chunks (`PUT` with `Content-Range`,
206 until the last, 201), a photo post's init (`PULL_FROM_URL`: TikTok fetches the images), and
the post's status (`publish/status/fetch`) read until TikTok published or failed it."""

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core.files.storage import default_storage
from django.utils import timezone

from core import outbound
from social.providers.base import Credentials, MediaFile, QuotaReached
from social.providers.media import stored_range
from social.providers.tiktok.connection import CAP_CODES, TikTokConnection, classify

CHUNK_BYTES = 10 * 1024 * 1024  # TikTok takes chunks of 5 MB to 64 MB (the last up to 128 MB)
MAX_CHUNKS = 1000
WAITING = frozenset({"PROCESSING_UPLOAD", "PROCESSING_DOWNLOAD"})
# What a FAILED post's `fail_reason` means to us; any other reason is the media's.
AUTH_REASONS = frozenset({"auth_removed"})
CAP_REASONS = frozenset({"spam_risk_too_many_posts"})
BANNED_REASONS = frozenset({"spam_risk_user_banned_from_posting"})


def chunking(size: int) -> tuple[int, int]:
    """(chunk_size, total_chunk_count) for a file of `size` bytes: one chunk of its whole
    size when it is at most CHUNK_BYTES (TikTok: a file under 5 MB is one chunk), else
    CHUNK_BYTES each, the remainder in the last (`floor(size / chunk_size)` chunks)."""
    chunk = min(CHUNK_BYTES, size)
    return chunk, max(1, min(MAX_CHUNKS, size // max(chunk, 1)))


def chunk_range(state: dict[str, Any], index: int) -> tuple[int, int]:
    """The first and last byte (inclusive) of chunk `index`: the last takes the remainder."""
    chunk, count, total = int(state["chunk"]), int(state["count"]), int(state["total"])
    first = index * chunk
    return first, (total if index == count - 1 else first + chunk) - 1


def classify_upload(response: outbound.Response) -> outbound.OutboundError | None:
    """The upload host: 206 (more to come) and 201 (complete) are its successes."""
    if response.status_code in (200, 201, 206):
        return None
    return classify(response)


class TikTokUploads(TikTokConnection):
    _uploads = outbound.Client("tiktok-upload", read_timeout=60.0, classify=classify_upload)

    def _init(self, credentials: Credentials, path: str, body: dict[str, Any]) -> dict[str, Any]:
        """An init (video or photos): never sent twice by the client (it may post). TikTok's
        daily cap of the creator's posts, or the app's users a day, answered here (nothing
        was made) defers the record a day (QuotaReached)."""
        try:
            return self.call(credentials, "POST", path, json=body, idempotent=False)
        except outbound.TransientError as error:
            if any(f"({code})" in error.message for code in CAP_CODES):
                raise QuotaReached(
                    "TikTok's daily quota is used up (spam_risk_too_many_posts: the creator's "
                    "Direct Posts for 24 hours): the post waits a day.",
                    until=timezone.now() + timedelta(hours=24),
                ) from None
            raise

    def video_init(self, credentials: Credentials, state: dict[str, Any]) -> None:
        """`video/init/` with FILE_UPLOAD: the `publish_id` and upload URL kept in `state`."""
        data = self._init(credentials, "post/publish/video/init/", state["init"])
        if not data.get("publish_id") or not data.get("upload_url"):
            raise outbound.TransientError(
                "TikTok answered in a shape its API does not document (no upload URL)."
            )
        state.update(publish_id=str(data["publish_id"]), upload_url=str(data["upload_url"]))
        state.update(next=0, sending=False, sent=False)

    def photo_init(self, credentials: Credentials, state: dict[str, Any]) -> None:
        """`content/init/` with PULL_FROM_URL: TikTok fetches the images itself. Its answer
        lost, the post may exist and cannot be looked up: `photoInit` says it went."""
        state["photoInit"] = True
        try:
            data = self._init(credentials, "post/publish/content/init/", state["init"])
        except QuotaReached:
            state.pop("photoInit", None)  # TikTok's daily cap: nothing was made
            raise
        except outbound.OutboundError as error:
            if not (isinstance(error, outbound.TransientError) and error.maybe_delivered):
                state.pop("photoInit", None)  # refused, or never sent: nothing was made
            raise
        if not data.get("publish_id"):
            raise outbound.TransientError(
                "TikTok answered in a shape its API does not document (no publish_id).",
                maybe_delivered=True,
            )
        state.update(publish_id=str(data["publish_id"]), sent=True)

    def send(self, credentials: Credentials, state: dict[str, Any]) -> None:
        """The file's chunks, in order, from the next one not confirmed. `sending` stays set
        once a byte may have gone: an interrupted upload is asked about before anything is
        sent again (`resume`)."""
        state["sending"] = True
        media = MediaFile(url="", stored=str(state["file"]), mime=str(state["mime"]))
        total = int(state["total"])
        budget = float(settings.SOCIAL_HTTP_TIMEOUT_SECONDS) * 3
        for index in range(int(state.get("next") or 0), int(state["count"])):
            first, last = chunk_range(state, index)
            self._uploads.request(
                "PUT",
                str(state["upload_url"]),
                data=stored_range(media, first, last),
                headers={
                    "Content-Type": str(state["mime"]),
                    "Content-Range": f"bytes {first}-{last}/{total}",
                },
                timeout=budget,
                idempotent=False,
            )
            state["next"] = index + 1
        state.update(sent=True, sending=False)

    def resume(self, credentials: Credentials, state: dict[str, Any]) -> dict[str, Any]:
        """After an upload was interrupted: the post's status. TikTok holding every byte (or
        past the upload) means it is sent; fewer bytes, it is sent again from the first chunk
        within the same upload URL."""
        status = self.status(credentials, state)
        said = str(status.get("status") or "")
        uploaded = int(status.get("uploaded_bytes") or 0)
        if said != "PROCESSING_UPLOAD" or uploaded >= int(state["total"]):
            state.update(sent=True, sending=False)
        else:
            state.update(next=0, sending=False)
        return status

    def status(self, credentials: Credentials, state: dict[str, Any]) -> dict[str, Any]:
        """`publish/status/fetch/` of the kept `publish_id`: FAILED raised with its reason."""
        found = self.call(
            credentials,
            "POST",
            "post/publish/status/fetch/",
            json={"publish_id": state["publish_id"]},
            idempotent=True,
        )
        if str(found.get("status") or "") == "FAILED":
            _failed(str(found.get("fail_reason") or "unknown"), photo=bool(state.get("photo")))
        ids = found.get("publicaly_available_post_id") or []  # TikTok's spelling
        if isinstance(ids, list) and ids:
            state["postId"] = str(ids[0])
        return found

    def done(self, credentials: Credentials, state: dict[str, Any]) -> bool:
        """One look at the post's status: True once TikTok published it."""
        found = self.status(credentials, state)
        said = str(found.get("status") or "")
        state["status"] = said
        return said == "PUBLISH_COMPLETE"


def _failed(reason: str, *, photo: bool) -> None:
    """A post TikTok failed: the creator's authorization removed (auth_expired), the daily
    cap met (account_limit), the creator banned from posting (permission_missing), or the
    media refused (media_invalid)."""
    if reason in AUTH_REASONS:
        raise outbound.AuthenticationError(
            f"TikTok refused to renew the access token: the creator removed the app ({reason})."
        )
    if reason in CAP_REASONS:
        raise outbound.PermanentError(
            f"TikTok's daily quota is used up: it failed the post ({reason})."
        )
    if reason in BANNED_REASONS:
        raise outbound.PermanentError(
            f"TikTok refused the post: the creator cannot post ({reason})."
        )
    if photo:
        raise outbound.PermanentError(f"TikTok could not process the image: {reason}.")
    raise outbound.PermanentError(f"TikTok could not process the video: {reason}.")


def stored_size(media: MediaFile) -> int:
    """The video's bytes, as stored."""
    return int(default_storage.size(media.stored)) if media.stored else int(media.size or 0)
