"""What a LinkedIn post carries: images through the Images API, a video through the Videos
API in parts, a document (a PDF) through the Documents API; LinkedIn processes videos and
documents after their upload (polled by a task)."""

from typing import Any
from urllib.parse import quote

from django.conf import settings

from core import outbound
from social.providers.base import Attempt, Content, Credentials
from social.providers.linkedin.connection import LinkedInConnection
from social.providers.media import document_body, media_bytes, stored_range

UPLOAD_TIMEOUT_SECONDS = 300.0  # one part of a video upload


class LinkedInMedia(LinkedInConnection):
    """The adapter's uploads (social.providers.linkedin.LinkedInAdapter builds on it)."""

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
        part in memory at a time), then `finalizeUpload` with the parts' ETags. A document
        goes through the Documents API instead (`_document_upload`)."""
        document = next((media for media in content.media if media.document), None)
        if document is not None:
            return self._document_upload(credentials, document)
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

    def _document_upload(self, credentials: Credentials, document: Any) -> dict[str, Any]:
        """The Documents API: `initializeUpload` for the author names the document's URN and
        one upload URL, where the whole file is PUT (streamed from storage). The PUT is not
        repeated inside the call (its stream is spent): a failure is the attempt's, and the
        next attempt starts a new upload."""
        initialized: dict[str, Any] = self._client.json(
            "POST",
            f"{settings.LINKEDIN_API_URL}/rest/documents",
            params={"action": "initializeUpload"},
            headers=self._rest_headers(credentials),
            json={"initializeUploadRequest": {"owner": self._author(credentials)}},
        )
        value = initialized["value"]
        with document_body(document) as body:
            self._client.call(
                "PUT",
                str(value["uploadUrl"]),
                data=body,
                headers={
                    "Authorization": f"Bearer {credentials.access_token}",
                    "Content-Type": "application/octet-stream",
                },
                timeout=UPLOAD_TIMEOUT_SECONDS,
                idempotent=False,
            )
        return {"document": str(value["document"])}

    def video_ready(self, credentials: Credentials, state: dict[str, Any]) -> bool:
        """`GET /rest/videos/{urn}` (`/rest/documents/{urn}` for a document): `AVAILABLE`
        once processed, `PROCESSING_FAILED` with a reason (a document also passes through
        `WAITING_UPLOAD` before LinkedIn has its bytes)."""
        kind = "document" if "document" in state else "video"
        found: dict[str, Any] = self._client.json(
            "GET",
            f"{settings.LINKEDIN_API_URL}/rest/{kind}s/{quote(state[kind], safe='')}",
            headers=self._rest_headers(credentials),
        )
        status = str(found.get("status") or "")
        if status == "PROCESSING_FAILED":
            reason = found.get("processingFailureReason") or "no reason given"
            if kind == "document":
                raise outbound.PermanentError(f"LinkedIn could not process the document: {reason}.")
            raise outbound.PermanentError(f"LinkedIn could not process the video: {reason}.")
        return status == "AVAILABLE"
