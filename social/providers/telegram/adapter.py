"""Telegram (Bot API): messages to the account's channel or group as its bot. A text is
`sendMessage`, one image `sendPhoto`, 2 to 10 images `sendMediaGroup` (the caption on the
first), a video `sendVideo`, each with the file's bytes (no public URL needed); a thread's
parts and a first comment reply to the message before (`reply_parameters`).

Exactly once without a key or a read: the Bot API takes no idempotency key and a bot cannot
read a chat's history, so a message whose answer was lost cannot be looked up. The lookups
say so (the outcome could not be established, maybe delivered): the record is `Unconfirmed`
at once, never sent again until the user says (networks/telegram.md, "Exactly once")."""

from typing import Any

from core import outbound
from social.providers.base import Attempt, Content, Credentials, Draft, Metrics, Published
from social.providers.media import media_bytes, stored_file
from social.providers.telegram.connection import TelegramConnection, bot_of
from social.providers.text import Problem

MAX_CAPTION = 1024  # characters of a caption (a text with media)
MAX_PHOTO_BYTES = 10 * 1024 * 1024
MAX_PHOTO_SIDES = 10_000  # width + height
MAX_PHOTO_RATIO = 20
PHOTO_TYPES = ("image/jpeg", "image/png", "image/webp")


def post_url(chat: str, username: str, message_id: str) -> str:
    """A message's public link: `t.me/{username}/{id}` for a public chat, `t.me/c/{id}/...`
    (members only) for a private channel or supergroup; none for a basic group."""
    if username:
        return f"https://t.me/{username}/{message_id}"
    if chat.startswith("-100"):
        return f"https://t.me/c/{chat[4:]}/{message_id}"
    return ""


class TelegramAdapter(TelegramConnection):
    provider = "telegram"
    name = "Telegram"
    comment_limit = 4096  # a comment is a message replying to the post

    def problems(self, draft: Draft, content: Content, limits: dict[str, Any]) -> list[Problem]:
        """The text's 4,096 characters (the default rule), a caption's 1,024 with media, and
        the photos Telegram takes (JPEG, PNG, WebP; 10 MB; width + height at most 10,000, a
        side at most 20 times the other)."""
        found = super().problems(draft, content, limits)
        length = self.length(content.text, limits)
        if draft.media and length > MAX_CAPTION:
            found.append(
                (
                    "content",
                    f"With media, Telegram takes a caption of at most {MAX_CAPTION} "
                    f"characters; this one is {length}.",
                )
            )
        if not content.text.strip() and not draft.media:
            found.append(("content", "Telegram needs a text or media."))
        for media in draft.media:
            if media.video:
                continue
            if media.mime not in PHOTO_TYPES:
                found.append(("media", "Telegram takes JPEG, PNG and WebP images."))
            if (media.size or 0) > MAX_PHOTO_BYTES:
                found.append(
                    ("media", f"Telegram takes images of at most {MAX_PHOTO_BYTES} bytes.")
                )
            width, height = media.width or 0, media.height or 0
            if width + height > MAX_PHOTO_SIDES:
                found.append(("media", "Telegram takes images whose width and height add up to "
                                       f"at most {MAX_PHOTO_SIDES}."))  # fmt: skip
            elif width and height and max(width, height) > MAX_PHOTO_RATIO * min(width, height):
                found.append(("media", "Telegram takes images at most 20 times as wide as "
                                       "high, or as high as wide."))  # fmt: skip
        return found

    def processed(self, content: Content) -> bool:
        return False  # a video is sent with its message: nothing to wait for

    # --- Creating (each part once: never looked up, so never sent again by itself) -----------

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        return self._send(credentials, content)

    def reply(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published:
        return self._send(credentials, content, reply_to=parent.provider_post_id)

    def comment(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published:
        """One more message, replying to the post."""
        return self._send(credentials, Content(text=text), reply_to=on.provider_post_id)

    def _send(self, credentials: Credentials, content: Content, reply_to: str = "") -> Published:
        fields: dict[str, Any] = {}
        options = content.options
        if options.get("disableNotification"):
            fields["disable_notification"] = True
        if options.get("protectContent"):
            fields["protect_content"] = True
        if reply_to:
            fields["reply_parameters"] = {"message_id": int(reply_to)}
        videos = [media for media in content.media if media.video]
        photos = [media for media in content.media if not media.video]
        if videos:
            (video,) = videos
            fields.update(caption=content.text, supports_streaming=True)
            fields.update({k: v for k, v in (("duration", round(video.duration or 0)),
                                             ("width", video.width), ("height", video.height))
                           if v})  # fmt: skip
            with stored_file(video) as stored:
                files = {"video": ("video.mp4", stored, video.mime)}
                message = self._call(credentials, "sendVideo", fields, files)
        elif len(photos) == 1:
            fields["caption"] = content.text
            files = {"photo": ("photo", media_bytes(photos[0]), photos[0].mime)}
            message = self._call(credentials, "sendPhoto", fields, files)
        elif photos:
            items: list[dict[str, Any]] = [
                {"type": "photo", "media": f"attach://photo{index}"} for index in range(len(photos))
            ]
            items[0]["caption"] = content.text
            fields["media"] = items
            files = {
                f"photo{index}": (f"photo{index}", media_bytes(photo), photo.mime)
                for index, photo in enumerate(photos)
            }
            messages = self._call(credentials, "sendMediaGroup", fields, files)
            message = messages[0] if isinstance(messages, list) and messages else {}
        else:
            fields["text"] = content.text
            if options.get("disableLinkPreview"):
                fields["link_preview_options"] = {"is_disabled": True}
            message = self._call(credentials, "sendMessage", fields)
        message_id = str((message or {}).get("message_id") or "")
        if not message_id:
            raise outbound.TransientError(
                "Telegram did not name the created message.", maybe_delivered=True
            )
        chat = (message.get("chat") or {}) if isinstance(message, dict) else {}
        sealed = bot_of(credentials)
        return Published(
            provider_post_id=message_id,
            url=post_url(str(chat.get("id") or sealed.chat), credentials.username, message_id),
        )

    # --- Lookups: there are none -------------------------------------------------------------

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        return _unknowable()

    def reply_lookup(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published | None:
        return _unknowable()

    def comment_lookup(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published | None:
        return _unknowable()

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        """None: the Bot API gives a bot no view counts (its records are not collected)."""
        raise outbound.PermanentError("Telegram gives a bot no counters of its messages.")


def _unknowable() -> Published | None:
    raise outbound.TransientError(
        "Telegram cannot be asked whether the message arrived (a bot cannot read the chat's "
        "history): the outcome could not be established.",
        maybe_delivered=True,
    )
