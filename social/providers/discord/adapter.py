"""Discord's publishing (networks/discord.md): one message to the webhook's channel,
`POST /webhooks/{id}/{token}?wait=true` (the answer is the message), its text as typed with
mentions kept from pinging (`allowed_mentions.parse: []`), images (with their alt text as the
attachment's `description`) or one video sent as files of a multipart body, the options as the
message's `username`, `avatar_url`, `thread_name` (a forum's post title) and `flags`.

Exactly once: executing a webhook takes no idempotency key and a webhook cannot list its
channel, so a create that may have reached Discord is never sent again: its lookup answers
"unknown", and the record is `Unconfirmed` at once (social.networks.discord, `none`); error
answers (429, 5xx) did nothing and are retried."""

import json
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
from social.providers.discord.connection import DiscordConnection, Webhook, webhook_of
from social.providers.media import media_bytes, stored_file
from social.providers.text import Problem

MAX_MESSAGE_BYTES = 10 * 1024 * 1024  # a message's files together, on a server without boosts
MAX_DESCRIPTION = 1024  # an attachment's description (the alt text)
VIDEO_TYPES = ("video/mp4", "video/quicktime")
SUPPRESS_EMBEDS = 4  # the message flag that hides link previews
EXTENSIONS = {
    "image/jpeg": "jpg",
    "image/png": "png",
    "image/gif": "gif",
    "image/webp": "webp",
    "video/mp4": "mp4",
    "video/quicktime": "mov",
}


def message_url(webhook: Webhook, message: dict[str, Any]) -> str:
    """The message's link; in a forum the answer's `channel_id` is the new post's thread."""
    channel = str(message.get("channel_id") or webhook.channel_id)
    guild = webhook.guild_id or "@me"
    return f"https://discord.com/channels/{guild}/{channel}/{message['id']}"


class DiscordAdapter(DiscordConnection):
    provider = "discord"
    name = "Discord"
    comment_limit = 0  # a webhook cannot reply: no first comment

    def problems(self, draft: Draft, content: Content, limits: dict[str, Any]) -> list[Problem]:
        """The 2,000 characters (the default rule), a video of Discord's types, alt text
        within an attachment's description, and the message's files within 10 MiB."""
        found = super().problems(draft, content, limits)
        for media in draft.media:
            if media.video and media.mime not in VIDEO_TYPES:
                found.append(("mediaIds", "Discord plays MP4 and MOV videos: attach one of those."))
            if len(media.alt) > MAX_DESCRIPTION:
                found.append(
                    ("mediaIds", f"Discord takes alt text of at most {MAX_DESCRIPTION} characters.")
                )
        total = sum(media.size or 0 for media in draft.media)
        if total > MAX_MESSAGE_BYTES:
            found.append(
                (
                    "mediaIds",
                    f"Discord takes at most {MAX_MESSAGE_BYTES} bytes of files in a message; "
                    f"these are {total}.",
                )
            )
        return found

    def processed(self, content: Content) -> bool:
        return False  # a video is an attachment: Discord has nothing to process first

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        webhook = webhook_of(credentials)
        payload = _payload(content)
        url = self.hook_url(webhook)
        params = {"wait": "true"}  # without it the answer is 204, without the message
        if content.media:
            payload["attachments"] = [
                {"id": index, "filename": _filename(media, index), "description": media.alt}
                if media.alt
                else {"id": index, "filename": _filename(media, index)}
                for index, media in enumerate(content.media)
            ]
            files: dict[str, Any] = {
                "payload_json": (None, json.dumps(payload), "application/json")
            }
            for index, media in enumerate(content.media):
                files[f"files[{index}]"] = (_filename(media, index), _bytes(media), media.mime)
            message = self._client.json("POST", url, params=params, files=files)
        else:
            message = self._client.json("POST", url, params=params, json=payload)
        if not isinstance(message, dict) or not message.get("id"):
            raise outbound.TransientError(
                "Discord did not name the created message.", maybe_delivered=True
            )
        return Published(provider_post_id=str(message["id"]), url=message_url(webhook, message))

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        """A webhook reads only the messages whose id it knows and a lost answer never told
        it: the outcome cannot be established (never "not found", so never sent again)."""
        raise outbound.TransientError(
            "Discord cannot be asked whether the message was posted (a webhook cannot list its "
            "channel): the outcome could not be established.",
            maybe_delivered=True,
        )

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        """The message read back: its reactions are the engagement (Discord counts no views
        or clicks). A deleted message answers 404 `Unknown Message` (a refusal)."""
        webhook = webhook_of(credentials)
        message: dict[str, Any] = self._client.json(
            "GET", self.hook_url(webhook, f"/messages/{published.provider_post_id}")
        )
        reactions = 0
        for reaction in message.get("reactions") or []:
            try:
                reactions += int(reaction.get("count") or 0)
            except (AttributeError, TypeError, ValueError):
                continue
        return Metrics(engagement=reactions, reactions=reactions)


def _payload(content: Content) -> dict[str, Any]:
    """The message's JSON: the text as typed, no mention pinging, the options."""
    options = content.options
    payload: dict[str, Any] = {"content": content.text, "allowed_mentions": {"parse": []}}
    if options.get("username"):
        payload["username"] = str(options["username"])
    if options.get("avatarUrl"):
        payload["avatar_url"] = str(options["avatarUrl"])
    if options.get("threadName"):
        payload["thread_name"] = str(options["threadName"])
    if options.get("disableLinkPreview"):
        payload["flags"] = SUPPRESS_EMBEDS
    return payload


def _filename(media: MediaFile, index: int) -> str:
    kind = "video" if media.video else "image"
    return f"{kind}-{index + 1}.{EXTENSIONS.get(media.mime, 'bin')}"


def _bytes(media: MediaFile) -> bytes:
    """A file's bytes: a video we store read from storage (at most a message's 10 MiB),
    anything else as every adapter reads it (an image fetched through the guard)."""
    if media.video and media.stored and media.data is None:
        with stored_file(media) as stored:
            data = bytes(stored.read(MAX_MESSAGE_BYTES + 1))
        if len(data) > MAX_MESSAGE_BYTES:
            raise outbound.PermanentError("The media file is too large to publish.")
        return data
    return media_bytes(media)
