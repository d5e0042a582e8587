"""YouTube's publishing (networks/youtube.md): a post is one video with a title, its text the
description. `video_upload` opens the upload's session (its URI kept in the record's state);
`video_ready`, from the scheduler's processing looks (social.md section 10), sends the bytes
(a file larger than one chunk only once the record stores the session: its first look sends
nothing) and then reads YouTube's processing until the video is processed; `publish` names it.

Exactly once: an init whose answer was lost made nothing (the channel's uploads are looked up,
then a new session opens); bytes sent to a kept session are never sent again before the session
is asked where it stands (done: that video; 308: the rest; gone: the uploads looked up)."""

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
from social.providers.text import HASHTAG, Problem
from social.providers.youtube.upload import YouTubeUploads, stored_size, watch_url

MAX_TITLE = 100
MAX_DESCRIPTION_BYTES = 5000
MAX_TAGS = 500  # characters of all tags together, as YouTube counts them
SHORT_SECONDS = 180  # a square or vertical video at most this long is a Short
TAGS = "variants.youtube.options.tags"  # options come from the variant only
DEFAULTS = {"privacyStatus": "public", "madeForKids": False, "categoryId": "22"}


def tags_length(tags: list[Any]) -> int:
    """YouTube's count of tags: their characters, a comma between two, a tag with a space 2
    more (its quotes)."""
    texts = [str(tag) for tag in tags]
    return sum(len(t) + (2 if " " in t else 0) for t in texts) + max(0, len(texts) - 1)


def _short(media: MediaFile) -> bool:
    upright = bool(media.width and media.height and media.height >= media.width)
    return upright and media.duration is not None and media.duration <= SHORT_SECONDS


class YouTubeAdapter(YouTubeUploads):
    provider = "youtube"
    name = "YouTube"
    comment_limit = 0  # no first comment (it needs a scope not asked)

    def problems(self, draft: Draft, content: Content, limits: dict[str, Any]) -> list[Problem]:
        found: list[Problem] = []
        videos = [media for media in draft.media if media.video]
        if not videos:
            found.append(("mediaIds", "YouTube publishes videos: attach one video (mp4 or mov)."))
        if any(media.mime.startswith("image/") for media in draft.media):
            found.append(("mediaIds", "YouTube takes one video, without images."))
        title = content.title.strip()
        if not title:
            found.append(("title", "A YouTube video needs a title: add one."))
        elif len(title) > MAX_TITLE:
            found.append(("title", f"YouTube titles are at most {MAX_TITLE} characters."))
        if "<" in title or ">" in title:
            found.append(("title", "YouTube titles cannot contain '<' or '>'."))
        maximum = int(limits["maxCharacters"])
        if len(content.text) > maximum:
            found.append(
                (
                    "content",
                    f"YouTube descriptions are at most {maximum} characters; this one is "
                    f"{len(content.text)}.",
                )
            )
        elif len(content.text.encode()) > MAX_DESCRIPTION_BYTES:
            found.append(
                ("content", f"YouTube descriptions are at most {MAX_DESCRIPTION_BYTES} bytes.")
            )
        if "<" in content.text or ">" in content.text:
            found.append(("content", "YouTube descriptions cannot contain '<' or '>'."))
        most = limits.get("maxHashtags")
        if most and len(HASHTAG.findall(content.text)) > int(most):
            found.append(
                ("content", f"YouTube ignores every hashtag of a video with more than {most}.")
            )
        tags = draft.options.get("tags")
        if isinstance(tags, list):
            if any(not isinstance(tag, str) or not tag.strip() for tag in tags):
                found.append((TAGS, "Each tag is a non-empty text."))
            elif tags_length(tags) > MAX_TAGS:
                found.append((TAGS, f"YouTube takes tags of {MAX_TAGS} characters together."))
        return found

    def processed(self, content: Content) -> bool:
        return True  # every post is a video YouTube processes

    # --- The upload and its processing -----------------------------------------------------

    def video_upload(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> dict[str, Any]:
        """The upload's session, opened once (a kept one is reused), with what the later
        looks need: the stored file, its size and type, the metadata, the lookup's window."""
        state = attempt.state
        if state.get("session"):
            return {}
        video = next(media for media in content.media if media.video)
        options = {**DEFAULTS, **content.options}
        snippet: dict[str, Any] = {
            "title": content.title.strip(),
            "description": content.text,
            "categoryId": str(options["categoryId"]),
        }
        if options.get("tags"):
            snippet["tags"] = list(options["tags"])
        state.update(
            file=video.stored,
            mime=video.mime,
            total=stored_size(video),
            short=_short(video),
            notify=bool(options.get("notifySubscribers", True)),
            init={
                "snippet": snippet,
                "status": {
                    "privacyStatus": options["privacyStatus"],
                    "selfDeclaredMadeForKids": bool(options["madeForKids"]),
                },
            },
            after=attempt.window.isoformat(),
            taken=sorted(attempt.taken)[:200],
        )
        self._open(credentials, state)
        return {}

    def video_ready(self, credentials: Credentials, state: dict[str, Any]) -> bool:
        """One look: the bytes first (a file of more than one chunk waits for its session to
        be stored: its first look sends nothing), then YouTube's processing. Failed or
        rejected: a permanent failure with YouTube's reason."""
        if not state.get("video"):
            if not state.get("kept") and int(state["total"]) > self._at_once():
                state["kept"] = True
                return False
            video = self.send(credentials, state)
            state["video"] = str(video["id"])
            _refused(video)
        found = self.get(credentials, "videos", part="processingDetails,status", id=state["video"])
        items = found.get("items") or []
        if not items:
            return False  # not listed yet
        item = items[0]
        _refused(item)
        processing = item.get("processingDetails") or {}
        status = str(processing.get("processingStatus") or "")
        if status in ("failed", "terminated"):
            reason = processing.get("processingFailureReason") or status
            raise outbound.PermanentError(f"YouTube could not process the video: {reason}.")
        upload = str((item.get("status") or {}).get("uploadStatus") or "")
        state["privacy"] = str((item.get("status") or {}).get("privacyStatus") or "")
        return upload == "processed" and status in ("succeeded", "")

    def _at_once(self) -> int:
        from social.providers.youtube import upload

        return upload.CHUNK_BYTES  # read at each look: tests make it smaller

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        """The processed video: uploading published it (at its privacy status)."""
        state = content.video or {}
        if not state.get("video"):
            raise outbound.PermanentError("YouTube could not process the video: the post has none.")
        video = str(state["video"])
        return Published(
            provider_post_id=video, url=watch_url(video, short=bool(state.get("short")))
        )

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        """After a lost answer: an upload done is that video; bytes sent to a kept session
        ask the session (done: the video; going on: None, the upload resumes; gone: the
        uploads); no session kept: the channel's uploads."""
        state = attempt.state
        if state.get("video"):
            return self.publish(credentials, Content(text="", video=state), attempt)
        if state.get("session") and state.get("sending"):
            try:
                video = self._ask(credentials, state)
            except outbound.PermanentError as error:
                if error.status != 404:
                    raise
                state.pop("session", None)
                return self.uploaded(credentials, state)
            if video is None:
                state["sending"] = False  # just asked: the upload goes on from `confirmed`
                return None
            state["video"] = str(video["id"])
            return self.publish(credentials, Content(text="", video=state), attempt)
        if state.get("session"):
            return None  # no byte went: nothing can exist
        return self.find(credentials, content.title.strip(), content.text, attempt)

    # --- Metrics --------------------------------------------------------------------------

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        """`statistics`: views are the impressions, likes and comments the engagement."""
        found = self.get(credentials, "videos", part="statistics", id=published.provider_post_id)
        items = found.get("items") or [{}]
        counts = items[0].get("statistics") or {}

        def number(name: str) -> int:
            try:
                return int(counts.get(name) or 0)
            except (TypeError, ValueError):
                return 0

        return Metrics(
            impressions=number("viewCount"),
            engagement=number("likeCount") + number("commentCount"),
        )


def _refused(video: dict[str, Any]) -> None:
    """A video YouTube failed or rejected (a duplicate, too long for an unverified channel)."""
    status = video.get("status") or {}
    upload = str(status.get("uploadStatus") or "")
    if upload == "failed":
        reason = status.get("failureReason") or upload
        raise outbound.PermanentError(f"YouTube could not process the video: {reason}.")
    if upload == "rejected":
        reason = status.get("rejectionReason") or upload
        raise outbound.PermanentError(f"YouTube could not process the video: rejected, {reason}.")
