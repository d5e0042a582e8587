"""TikTok's publishing (networks/tiktok.md): a post is one video or 1 to 35 photos, never text
alone, always asynchronous. `video_upload` asks the creator's info (privacy levels offered,
settings disabled, the longest video) and initializes the post, its `publish_id` kept in the
record's state; `video_ready`, from the scheduler's processing looks (social.md section 10),
sends a video's chunks (a file of more than one chunk only once the record stores the upload:
its first look sends nothing) and then reads the post's status until TikTok published it.

Exactly once: a lost video init made nothing TikTok posts (the next attempt initializes again);
chunks sent to a kept upload are never sent again before its status is asked; a photo init
whose answer was lost may have posted and cannot be looked up: it stays `Unconfirmed`."""

from typing import Any

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
from social.providers.text import Problem
from social.providers.tiktok.upload import TikTokUploads, chunking, stored_size

NAME = "variants.tiktok.options"
MAX_PHOTO_TITLE = 90
PHOTO_TYPES = ("image/jpeg", "image/webp")
PRIVACY_LEVELS = (
    "PUBLIC_TO_EVERYONE",
    "MUTUAL_FOLLOW_FRIENDS",
    "FOLLOWER_OF_CREATOR",
    "SELF_ONLY",
)
VIDEO_ONLY = ("disableDuet", "disableStitch", "videoCoverTimestampMs")
PHOTO_ONLY = ("autoAddMusic",)
METRIC_FIELDS = "id,view_count,like_count,comment_count,share_count"


def utf16_length(text: str) -> int:
    """How TikTok counts a caption: UTF-16 code units (an emoji outside the BMP is 2)."""
    return len(text.encode("utf-16-le")) // 2


def post_url(username: str, post_id: str, *, photo: bool) -> str:
    """The post's page, or the creator's profile while TikTok gives no public id."""
    if not post_id:
        return f"https://www.tiktok.com/@{username}"
    return f"https://www.tiktok.com/@{username}/{'photo' if photo else 'video'}/{post_id}"


class TikTokAdapter(TikTokUploads):
    provider = "tiktok"
    name = "TikTok"
    comment_limit = 0  # no first comment

    def problems(self, draft: Draft, content: Content, limits: dict[str, Any]) -> list[Problem]:
        found: list[Problem] = []
        videos = [media for media in draft.media if media.video]
        images = [media for media in draft.media if media.mime.startswith("image/")]
        if not draft.media:
            found.append(("mediaIds", "TikTok posts a video or photos: attach one or the other."))
        if images and any(media.mime not in PHOTO_TYPES for media in images):
            found.append(("mediaIds", "TikTok takes JPEG or WebP photos."))
        maximum, length = int(limits["maxCharacters"]), utf16_length(content.text)
        if length > maximum:
            message = f"TikTok captions are at most {maximum} characters; this one is {length}."
            found.append(("content", message))
        if images and not videos and len(content.title.strip()) > MAX_PHOTO_TITLE:
            message = f"TikTok photo titles are at most {MAX_PHOTO_TITLE} characters."
            found.append(("title", message))
        most = limits.get("maxVideoSeconds")
        for video in videos:
            if most and video.duration is not None and video.duration > float(most):
                message = f"This TikTok creator may post videos of at most {most} seconds."
                found.append(("media", message))
        return found + _option_problems(draft.options, videos=videos, images=images)

    def processed(self, content: Content) -> bool:
        return True  # every TikTok post is initialized, then its status read until published

    # --- The post's init, its upload and its status ----------------------------------------

    def video_upload(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> dict[str, Any]:
        """The creator's info checked, then the post initialized once (a kept one is reused):
        a video's upload (its chunks go in the looks), or the photos TikTok fetches."""
        state = attempt.state
        if state.get("publish_id"):
            return {}
        info = self.creator_info(credentials)
        options = content.options
        privacy = str(options.get("privacyLevel") or "")
        offered = [str(level) for level in info.get("privacy_level_options") or []]
        if privacy not in offered:
            raise outbound.PermanentError(
                f"TikTok refused the post (privacy_level_not_allowed): the creator cannot use "
                f"{NAME}.privacyLevel {privacy or '(none)'}; offered: {', '.join(offered)}."
            )
        state["username"] = str(info.get("creator_username") or credentials.username)
        post_info: dict[str, Any] = {
            "privacy_level": privacy,
            "disable_comment": bool(options.get("disableComment"))
            or bool(info.get("comment_disabled")),
            "brand_content_toggle": bool(options.get("brandContentToggle")),
            "brand_organic_toggle": bool(options.get("brandOrganicToggle")),
        }
        video = next((media for media in content.media if media.video), None)
        if video is None:
            state["photo"] = True
            state["init"] = _photo_init(content, post_info, options)
            self.photo_init(credentials, state)
            return {}
        _check_length(video, info)
        total = stored_size(video)
        chunk, count = chunking(total)
        post_info.update(
            title=content.text,
            disable_duet=bool(options.get("disableDuet")) or bool(info.get("duet_disabled")),
            disable_stitch=bool(options.get("disableStitch")) or bool(info.get("stitch_disabled")),
        )
        if options.get("videoCoverTimestampMs") is not None:
            post_info["video_cover_timestamp_ms"] = int(options["videoCoverTimestampMs"])
        state.update(
            file=video.stored,
            mime=video.mime,
            total=total,
            chunk=chunk,
            count=count,
            init={
                "post_info": post_info,
                "source_info": {
                    "source": "FILE_UPLOAD",
                    "video_size": total,
                    "chunk_size": chunk,
                    "total_chunk_count": count,
                },
            },
        )
        self.video_init(credentials, state)
        return {}

    def video_ready(self, credentials: Credentials, state: dict[str, Any]) -> bool:
        """One look: a video's chunks first (a file of more than one chunk waits for its
        upload to be stored: its first look sends nothing; an interrupted one is asked about
        first), then the post's status. FAILED: a permanent failure with TikTok's reason."""
        if not state.get("sent"):
            if not state.get("kept") and int(state.get("count") or 1) > 1:
                state["kept"] = True
                return False
            if state.get("sending"):
                self.resume(credentials, state)
            if not state.get("sent"):
                self.send(credentials, state)
        return self.done(credentials, state)

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        """The published post: its public id (else the publish id: a private post, or one
        still in moderation) and its URL."""
        state = content.video or {}
        if not state.get("publish_id"):
            raise outbound.PermanentError("TikTok could not process the video: the post has none.")
        post_id = str(state.get("postId") or "")
        username = str(state.get("username") or credentials.username)
        return Published(
            provider_post_id=post_id or str(state["publish_id"]),
            url=post_url(username, post_id, photo=bool(state.get("photo"))),
        )

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        """After a lost answer: a kept post is asked for its status (an interrupted upload
        first: complete, or sent again); no kept post, a lost video init made nothing (None:
        initialized again), a lost photo init cannot be told (never resent)."""
        state = attempt.state
        if state.get("publish_id"):
            if not state.get("sent"):
                if state.get("sending"):
                    self.resume(credentials, state)
                return None  # the upload goes on in the looks
            if self.done(credentials, state):
                return self.publish(credentials, Content(text="", video=state), attempt)
            return None
        if state.get("photoInit"):
            raise outbound.TransientError(
                "TikTok lists no private post and a public one only after moderation: the "
                "photo post's outcome could not be established.",
                maybe_delivered=True,
            )
        return None

    # --- Metrics --------------------------------------------------------------------------

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        """`video/query/` of a public post: views the impressions, likes, comments and shares
        the engagement; a post without a public id (a publish id) has none."""
        post_id = published.provider_post_id
        if not post_id.isdigit():
            return Metrics()
        data = self.call(
            credentials,
            "POST",
            "video/query/",
            params={"fields": METRIC_FIELDS},
            json={"filters": {"video_ids": [post_id]}},
            idempotent=True,
        )
        videos = data.get("videos") or [{}]
        counts = videos[0] if isinstance(videos[0], dict) else {}

        def number(name: str) -> int:
            try:
                return int(counts.get(name) or 0)
            except (TypeError, ValueError):
                return 0

        likes, comments = number("like_count"), number("comment_count")
        shares = number("share_count")
        return Metrics(
            impressions=number("view_count"),
            engagement=likes + comments + shares,
            reactions=likes,
            comments=comments,
            shares=shares,
        )


def _check_length(video: MediaFile, info: dict[str, Any]) -> None:
    """A video longer than the creator may post now: refused before anything is sent."""
    most = info.get("max_video_post_duration_sec")
    if isinstance(most, int | float) and video.duration is not None and video.duration > most:
        raise outbound.PermanentError(
            f"TikTok could not process the video: it is longer than the creator's {most:g} seconds."
        )


def _photo_init(content: Content, post_info: dict[str, Any], options: dict[str, Any]) -> Any:
    return {
        "post_info": {
            **post_info,
            "title": content.title.strip()[:MAX_PHOTO_TITLE],
            "description": content.text,
            "auto_add_music": bool(options.get("autoAddMusic", True)),
        },
        "source_info": {
            "source": "PULL_FROM_URL",
            "photo_images": [media.url for media in content.media],
            "photo_cover_index": 0,
        },
        "post_mode": "DIRECT_POST",
        "media_type": "PHOTO",
    }


def _option_problems(
    options: dict[str, Any], *, videos: list[MediaFile], images: list[MediaFile]
) -> list[Problem]:
    """What the options schema cannot say: a privacy level chosen (required), a paid
    partnership not private, the options of one kind of post, a cover within the video."""
    found: list[Problem] = []
    privacy = options.get("privacyLevel")
    if privacy is None:
        levels = ", ".join(PRIVACY_LEVELS)
        message = f"Choose who may see the post (TikTok forbids a preset one): one of {levels}."
        found.append((f"{NAME}.privacyLevel", message))
    elif privacy == "SELF_ONLY" and options.get("brandContentToggle") is True:
        message = "A paid partnership (brandContentToggle) cannot be private (SELF_ONLY)."
        found.append((f"{NAME}.privacyLevel", message))
    if images and not videos:
        for key in VIDEO_ONLY:
            if key in options:
                found.append((f"{NAME}.{key}", f"TikTok takes {key} for videos only."))
    if videos:
        for key in PHOTO_ONLY:
            if key in options:
                found.append((f"{NAME}.{key}", f"TikTok takes {key} for photo posts only."))
    cover = options.get("videoCoverTimestampMs")
    if isinstance(cover, int) and not isinstance(cover, bool) and videos:
        seconds = videos[0].duration
        if cover < 0 or (seconds is not None and cover > seconds * 1000):
            message = "The cover's moment is within the video: 0 to its length in milliseconds."
            found.append((f"{NAME}.videoCoverTimestampMs", message))
    return found
