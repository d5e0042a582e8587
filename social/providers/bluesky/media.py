"""What a Bluesky post carries: images uploaded as blobs, a video sent to the video service
and processed there (polled by a task), a link card."""

from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.utils import timezone

from core import outbound
from social.providers.base import Attempt, Content, Credentials
from social.providers.bluesky.connection import BlueskyConnection
from social.providers.bluesky.records import record_key
from social.providers.client import json_of_excerpt
from social.providers.media import media_bytes, stored_file

SERVICE_TOKEN_SECONDS = 1800  # the video service's token: the upload must start within it
UPLOAD_TIMEOUT_SECONDS = 300.0


class BlueskyMedia(BlueskyConnection):
    """The adapter's uploads (social.providers.bluesky.BlueskyAdapter builds on it)."""

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
                        "name": f"{record_key(attempt)}.mp4",
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
