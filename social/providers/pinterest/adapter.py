"""Pinterest's publishing (networks/pinterest.md): a post is a Pin saved to a board (the
account's default, or `options.boardId`): one image or a carousel of 2 to 5 by their public
URLs (Pinterest fetches them), or one video through the media flow: `video_upload` registers
it (`POST /v5/media`) and sends its bytes to the upload address the answer names (a signed
form, no token), `video_ready` reads Pinterest's processing from the scheduler's looks
(social.md section 10), and `publish` creates the Pin naming the media.

Exactly once: Pinterest keeps no idempotency key, so after a lost answer the board's newest
Pins are read (`GET /v5/boards/{id}/pins`) for one made since the first attempt with this
title, description, link and kind of media before anything is created again. A lost media
registration or upload made no Pin: the next attempt does it again."""

from datetime import UTC, datetime, timedelta
from typing import Any

from django.utils import timezone

from core import outbound
from social.providers.base import (
    Attempt,
    Content,
    Credentials,
    Draft,
    MediaFile,
    Metrics,
    Published,
)
from social.providers.client import classify_upload_refusals, moment
from social.providers.lookup import Page, lookup_pages, same_text
from social.providers.media import stored_file
from social.providers.pinterest.connection import PinterestConnection
from social.providers.text import Problem

MAX_TITLE = 100
MAX_LINK = 2048
MAX_ALT = 500
MAX_IMAGE_BYTES = 20 * 1024 * 1024  # unverified
LOOKUP_PAGE = 25  # the board's newest Pins a lookup reads a page of
ANALYTICS_DAYS = 90  # how far back Pin analytics go
METRIC_TYPES = "IMPRESSION,SAVE,PIN_CLICK,OUTBOUND_CLICK"
OPTIONS = "variants.pinterest.options"  # options come from the variant only
UPLOAD_TIMEOUT_SECONDS = 300.0  # the video's bytes in one signed form


def pin_url(pin_id: str) -> str:
    return f"https://www.pinterest.com/pin/{pin_id}/"


# The upload address answers 204 (an S3 form): another 4xx refuses the file.
classify_upload = classify_upload_refusals("Pinterest", "video")


def _kind(media: tuple[MediaFile, ...]) -> str:
    """The kind of media a Pin of these files is, as Pinterest names it on the Pin."""
    if any(item.video for item in media):
        return "video"
    return "multiple_images" if len(media) > 1 else "image"


class PinterestAdapter(PinterestConnection):
    provider = "pinterest"
    name = "Pinterest"
    comment_limit = 0  # no comment API in v5
    _upload = outbound.Client(
        "pinterest-upload", read_timeout=UPLOAD_TIMEOUT_SECONDS, classify=classify_upload
    )

    def problems(self, draft: Draft, content: Content, limits: dict[str, Any]) -> list[Problem]:
        """The description's length (the default rule), media required, the title, the link,
        images (size, alt text) and the options that only a video takes."""
        found = super().problems(draft, content, limits)
        if not draft.media:
            found.append(("mediaIds", "A Pin is an image or a video: attach one."))
        if len(content.title.strip()) > MAX_TITLE:
            found.append(("title", f"Pinterest titles are at most {MAX_TITLE} characters."))
        if len(content.link) > MAX_LINK:
            found.append(("link", f"Pinterest links are at most {MAX_LINK} characters."))
        for media in draft.media:
            if media.video:
                continue
            if len(media.alt) > MAX_ALT:
                found.append(
                    ("mediaIds", f"Pinterest takes alt text of at most {MAX_ALT} characters.")
                )
            if (media.size or 0) > MAX_IMAGE_BYTES:
                found.append(
                    ("mediaIds", f"Pinterest takes images of at most {MAX_IMAGE_BYTES} bytes.")
                )
        video = any(media.video for media in draft.media)
        for key in ("coverImageUrl", "coverFrameSeconds"):
            if key in draft.options and not video:
                found.append((f"{OPTIONS}.{key}", "Only a video Pin has a cover."))
        seconds = draft.options.get("coverFrameSeconds")
        if isinstance(seconds, int) and seconds < 0:
            found.append((f"{OPTIONS}.coverFrameSeconds", "A frame's time is 0 or more seconds."))
        return found

    def processed(self, content: Content) -> bool:
        return any(media.video for media in content.media)

    # --- The video ---------------------------------------------------------------------------

    def video_upload(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> dict[str, Any]:
        """The media registered, then its bytes sent to the address Pinterest named, with
        every field it gave and the file last (the form is signed: no token)."""
        video = next(media for media in content.media if media.video)
        registered = self.call("POST", "media", credentials, json={"media_type": "video"})
        media_id = str(registered["media_id"])
        fields = {str(k): str(v) for k, v in (registered.get("upload_parameters") or {}).items()}
        with stored_file(video) as stored:
            self._upload.request(
                "POST",
                str(registered["upload_url"]),
                data=fields,
                files={"file": ("video", stored, video.mime)},
                timeout=UPLOAD_TIMEOUT_SECONDS,
                idempotent=False,
            )
        return {"mediaId": media_id}

    def video_ready(self, credentials: Credentials, state: dict[str, Any]) -> bool:
        """One look at the media: `succeeded` is done, `registered` and `processing` not yet,
        `failed` a permanent failure."""
        found = self.call("GET", f"media/{state['mediaId']}", credentials)
        status = str(found.get("status") or "")
        if status == "failed":
            raise outbound.PermanentError("Pinterest could not process the video: failed.")
        return status == "succeeded"

    # --- The Pin -------------------------------------------------------------------------------

    def board(self, credentials: Credentials, content: Content) -> str:
        return str(content.options.get("boardId") or credentials.options.get("boardId") or "")

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        board = self.board(credentials, content)
        if not board:
            raise outbound.PermanentError("Pinterest needs a board: reconnect the account.")
        body: dict[str, Any] = {"board_id": board, "media_source": self._source(content)}
        if content.options.get("boardSectionId"):
            body["board_section_id"] = str(content.options["boardSectionId"])
        for name, value in (
            ("title", content.title.strip()),
            ("description", content.text),
            ("link", content.link),
        ):
            if value:
                body[name] = value
        images = [media for media in content.media if not media.video]
        if images and images[0].alt:
            body["alt_text"] = images[0].alt
        created: dict[str, Any] = self.call("POST", "pins", credentials, json=body)
        pin = str(created.get("id") or "")
        if not pin:
            raise outbound.TransientError(
                "Pinterest did not name the created Pin.", maybe_delivered=True
            )
        return Published(provider_post_id=pin, url=pin_url(pin))

    def _source(self, content: Content) -> dict[str, Any]:
        if content.video:
            media_id = content.video["mediaId"]
            source: dict[str, Any] = {"source_type": "video_id", "media_id": media_id}
            if content.options.get("coverImageUrl"):
                source["cover_image_url"] = str(content.options["coverImageUrl"])
            else:
                source["cover_image_key_frame_time"] = int(
                    content.options.get("coverFrameSeconds") or 0
                )
            return source
        if len(content.media) == 1:
            return {"source_type": "image_url", "url": content.media[0].url}
        return {
            "source_type": "multiple_image_urls",
            "items": [{"url": media.url} for media in content.media],
            "index": 0,
        }

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        """The board's newest Pins (`bookmark` pages) back to the attempt's window: the one no
        other record holds with this title, description, link and kind of media."""
        board = self.board(credentials, content)
        if not board:
            return None
        kind = _kind(content.media)

        def page(bookmark: str | None) -> Page:
            params: dict[str, Any] = {"page_size": LOOKUP_PAGE}
            if bookmark:
                params["bookmark"] = bookmark
            found = self.call("GET", f"boards/{board}/pins", credentials, params=params)
            return list(found.get("items") or []), found.get("bookmark") or None

        def matches(item: dict[str, Any]) -> bool:
            said = str((item.get("media") or {}).get("media_type") or kind)
            return (
                attempt.ours(str(item.get("id")))
                and same_text(str(item.get("title") or ""), content.title.strip())
                and same_text(str(item.get("description") or ""), content.text)
                and str(item.get("link") or "") == content.link
                and said == kind
            )

        item = lookup_pages(
            self.name,
            page,
            attempt=attempt,
            created=lambda item: moment(item.get("created_at")),
            matches=matches,
        )
        if item is None:
            return None
        return Published(provider_post_id=str(item["id"]), url=pin_url(str(item["id"])))

    # --- Metrics -------------------------------------------------------------------------------

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        """The Pin's analytics from its creation (at most 90 days back) to today, UTC:
        impressions, saves and Pin clicks the engagement, outbound clicks the clicks."""
        pin = published.provider_post_id
        today = timezone.now().astimezone(UTC).date()
        start = today - timedelta(days=ANALYTICS_DAYS - 1)
        found = self.call("GET", f"pins/{pin}", credentials)
        created = moment(found.get("created_at"))
        if isinstance(created, datetime):
            start = max(start, created.astimezone(UTC).date())
        analytics = self.call(
            "GET",
            f"pins/{pin}/analytics",
            credentials,
            params={
                "start_date": start.isoformat(),
                "end_date": today.isoformat(),
                "metric_types": METRIC_TYPES,
                "app_types": "ALL",
            },
        )
        summary = ((analytics.get("all") or {}).get("summary_metrics")) or {}

        def number(name: str) -> int:
            try:
                return int(summary.get(name) or 0)
            except (TypeError, ValueError):
                return 0

        return Metrics(
            impressions=number("IMPRESSION"),
            engagement=number("SAVE") + number("PIN_CLICK"),
            clicks=number("OUTBOUND_CLICK"),
        )
