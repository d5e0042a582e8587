"""What a Mastodon status carries: media uploaded to the instance (`POST /api/v2/media`), an
image waited for briefly, a video processed by the instance (polled by a task)."""

import time
from typing import Any

from requests_toolbelt import MultipartEncoder

from core import outbound
from social.providers.base import Attempt, Content, Credentials
from social.providers.client import json_of_excerpt
from social.providers.mastodon.connection import MastodonConnection
from social.providers.media import media_bytes, stored_file

UPLOAD_TIMEOUT_SECONDS = 300.0  # a video's upload: the whole body, then the answer
MEDIA_POLL_SECONDS = (0.5, 1.0, 2.0, 4.0)


class MastodonMedia(MastodonConnection):
    """The adapter's uploads (social.providers.mastodon.MastodonAdapter builds on it)."""

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
