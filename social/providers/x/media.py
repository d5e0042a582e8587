"""What an X post carries: images uploaded one-shot (`POST /2/media/upload`) with their alt
text set (`POST /2/media/metadata`) before the post is created; a video through the chunked
upload (initialize, append, finalize), processed by X and polled by a task."""

from typing import Any

from core import outbound
from social.providers.base import Attempt, Content, Credentials, MediaFile
from social.providers.media import media_bytes, stored_range
from social.providers.x.connection import XConnection

SEGMENT_BYTES = 5 * 1024 * 1024  # one appended segment (X's maximum is 8 MB)
UPLOAD_TIMEOUT_SECONDS = 300.0  # one segment's upload
MAX_ALT = 1000  # characters of an image's alt text on X


class XMedia(XConnection):
    """The adapter's uploads (social.providers.x.XAdapter builds on it)."""

    def _upload_image(self, credentials: Credentials, media: MediaFile) -> str:
        """The image's bytes, then its alt text; the media id the post names."""
        category = "tweet_gif" if media.mime == "image/gif" else "tweet_image"
        uploaded: dict[str, Any] = self._call(
            "POST",
            "/2/media/upload",
            credentials,
            files={"media": ("media", media_bytes(media), media.mime)},
            data={"media_category": category, "media_type": media.mime},
        )
        media_id = str(uploaded["data"]["id"])
        if media.alt:
            self._alt(credentials, media_id, media.alt)
        return media_id

    def _alt(self, credentials: Credentials, media_id: str, alt: str) -> None:
        self._call(
            "POST",
            "/2/media/metadata",
            credentials,
            json={"id": media_id, "metadata": {"alt_text": {"text": alt[:MAX_ALT]}}},
        )

    def media_ids(self, credentials: Credentials, content: Content) -> list[str]:
        """What a part's create names: its processed video, or its images uploaded now."""
        if content.video:
            return [str(content.video["mediaId"])]
        return [self._upload_image(credentials, media) for media in content.media]

    def video_upload(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> dict[str, Any]:
        """The chunked upload: `initialize` with the size and type, each segment of at most
        SEGMENT_BYTES read from storage and appended in order (`segment_index` 0, 1, ...,
        every byte once), then `finalize`, whose `processing_info` says whether X still
        processes it."""
        video = next(media for media in content.media if media.video)
        size = int(video.size or 0)
        if size <= 0:
            raise outbound.PermanentError(
                "X needs the video's bytes and size: upload it to the media library."
            )
        initialized: dict[str, Any] = self._call(
            "POST",
            "/2/media/upload/initialize",
            credentials,
            json={"media_type": video.mime, "total_bytes": size, "media_category": "tweet_video"},
        )
        media_id = str(initialized["data"]["id"])
        for index, first in enumerate(range(0, size, SEGMENT_BYTES)):
            last = min(first + SEGMENT_BYTES, size) - 1
            self._call(
                "POST",
                f"/2/media/upload/{media_id}/append",
                credentials,
                files={"media": ("segment", stored_range(video, first, last), video.mime)},
                data={"segment_index": str(index)},
                timeout=UPLOAD_TIMEOUT_SECONDS,
            )
        finalized: dict[str, Any] = self._call(
            "POST", f"/2/media/upload/{media_id}/finalize", credentials
        )
        processing = finalized["data"].get("processing_info") or {}
        return {"mediaId": media_id, **_state_of(processing)}

    def video_ready(self, credentials: Credentials, state: dict[str, Any]) -> bool:
        """One look at X's processing (`command=STATUS`): `succeeded` is done, `pending` and
        `in_progress` not yet, `failed` a permanent failure with X's message."""
        if state.get("done"):
            return True
        found: dict[str, Any] = self._call(
            "GET",
            "/2/media/upload",
            credentials,
            params={"command": "STATUS", "media_id": state["mediaId"]},
        )
        state.update(_state_of(found["data"].get("processing_info") or {}))
        return bool(state["done"])


def _state_of(processing: dict[str, Any]) -> dict[str, Any]:
    """Whether X is done with an upload (no `processing_info` at all: nothing to process)."""
    phase = str(processing.get("state") or "succeeded")
    if phase == "failed":
        error = processing.get("error") or {}
        reason = error.get("message") or error.get("name") or "no reason given"
        raise outbound.PermanentError(f"X could not process the video: {reason}.")
    return {"done": phase == "succeeded", "checkAfter": processing.get("check_after_secs")}
