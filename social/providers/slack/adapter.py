"""Slack's publishing (networks/slack.md): messages to the account's channel as its bot.

- Text is mrkdwn: `&`, `<` and `>` escaped (in that order) and nothing else, so `*bold*` stays
  formatting and no `<!channel>`-style mention can be injected (`escape`, which preview shows).
- A text is `chat.postMessage` (no `blocks`), with `unfurl_links`/`unfurl_media` (the options)
  and `metadata` naming the part: `{event_type: "fgp_publication", event_payload: {key:
  "<record id>:<part index>"}}`.
- Files (images with alt text, or one video): each `files.getUploadURLExternal`, its bytes to
  the upload address, then one `files.completeUploadExternal` sharing them to the channel with
  the text as `initial_comment`; the message that shares them is read back for its `ts`
  (`files[].id`; it may take a few seconds to appear: SHARE_READS).
- Threads are flat: every later part, and the first comment, is a reply with `thread_ts` = the
  first part's `ts`.

Exactly once: before any retry after an unknown outcome, the channel's history since the
attempt's window (`conversations.history`, `oldest` = its start less 60 s) or the thread's
replies (`conversations.replies`) are read for the message carrying this part's key, or, for a
file share, one of the attempt's file ids (kept in the attempt's state before the share).
Found: published; absent: created again; undecidable: the outcome stays unknown."""

import time
from collections.abc import Callable
from typing import Any

from django.core.files.storage import default_storage

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
from social.providers.client import classify_upload_refusals
from social.providers.lookup import LOOKUP_PAGES
from social.providers.media import media_bytes, stored_file
from social.providers.slack.connection import SlackConnection, bot_of
from social.providers.text import Problem

EVENT_TYPE = "fgp_publication"
MAX_ALT = 1000  # `alt_txt` of an image
MAX_FILE_BYTES = 1024**3  # a file's, each
HISTORY_LIMIT = 15  # messages a history read asks for (what unlisted apps may read)
# A file share's message read back: at once, then after these waits (5 reads over 10 s);
# never past SHARE_WAIT_SECONDS from the share, and done at the first read that shows it.
SHARE_READS = (0.0, 1.0, 2.0, 3.0, 4.0)
SHARE_WAIT_SECONDS = 10.0
UPLOAD_TIMEOUT_SECONDS = 300.0
EXTENSIONS = {
    "image/jpeg": "jpg",
    "image/png": "png",
    "image/gif": "gif",
    "image/webp": "webp",
    "video/mp4": "mp4",
    "video/quicktime": "mov",
    "video/webm": "webm",
}


def escape(text: str) -> str:
    """mrkdwn's three control characters escaped, `&` first; nothing else touched."""
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def part_key(attempt: Attempt) -> str:
    """`<record id>:<part index>` (the post's part is 0)."""
    return f"{attempt.key.split(':', 1)[0]}:{attempt.part}"


# The upload address answers 200 `OK - <length>`; another 4xx refuses the file.
classify_upload = classify_upload_refusals("Slack", "file")


def _filename(media: MediaFile, index: int) -> str:
    kind = "video" if media.video else "image"
    return f"{kind}-{index + 1}.{EXTENSIONS.get(media.mime, 'bin')}"


def _files_of(message: dict[str, Any]) -> set[str]:
    return {str(f.get("id")) for f in message.get("files") or [] if isinstance(f, dict)}


def _key_of(message: dict[str, Any]) -> str:
    metadata = message.get("metadata") or {}
    if not isinstance(metadata, dict) or metadata.get("event_type") != EVENT_TYPE:
        return ""
    return str((metadata.get("event_payload") or {}).get("key") or "")


class SlackAdapter(SlackConnection):
    provider = "slack"
    name = "Slack"
    comment_limit = 40_000  # a comment is one more message in the thread
    _uploads = outbound.Client(
        "slack-upload", read_timeout=UPLOAD_TIMEOUT_SECONDS, classify=classify_upload
    )

    def length(self, text: str, limits: dict[str, Any]) -> int:
        """The text as Slack counts it: after escaping (`&` is five characters there)."""
        return super().length(escape(text), limits)

    def sent_text(self, text: str, *, kind: str) -> str:
        return escape(text)

    def problems(self, draft: Draft, content: Content, limits: dict[str, Any]) -> list[Problem]:
        """40,000 characters after escaping (the default rule, by `length`), alt text within
        1,000 characters, each file within 1 GB."""
        found = super().problems(draft, content, limits)
        for media in draft.media:
            if not media.video and len(media.alt) > MAX_ALT:
                found.append(("mediaIds", f"Slack takes alt text of at most {MAX_ALT} characters."))
            if (media.size or 0) > MAX_FILE_BYTES:
                found.append(("mediaIds", f"Slack takes files of at most {MAX_FILE_BYTES} bytes."))
        return found

    def processed(self, content: Content) -> bool:
        return False  # Slack processes a video for playback by itself: nothing to await

    # --- Creating --------------------------------------------------------------------------

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        return self._send(credentials, content, attempt, thread="")

    def reply(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published:
        """Slack's threads are flat: a reply names the first part's `ts`, never a reply's."""
        return self._send(credentials, content, attempt, thread=root.provider_post_id)

    def comment(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published:
        """One more reply in the post's thread."""
        return self._send(credentials, Content(text=text), attempt, thread=on.provider_post_id)

    def _send(
        self, credentials: Credentials, content: Content, attempt: Attempt, *, thread: str
    ) -> Published:
        if content.media:
            return self._share(credentials, content, attempt, thread=thread)
        bot = bot_of(credentials)
        body: dict[str, Any] = {
            "channel": bot.channel,
            "text": escape(content.text),
            "unfurl_links": bool(content.options.get("unfurlLinks", True)),
            "unfurl_media": bool(content.options.get("unfurlMedia", True)),
            "metadata": {"event_type": EVENT_TYPE, "event_payload": {"key": part_key(attempt)}},
        }
        if thread:
            body["thread_ts"] = thread
        sent = self.call("POST", "chat.postMessage", credentials, json_body=body)
        ts = str(sent.get("ts") or "")
        if not ts:
            raise outbound.TransientError(
                "Slack did not name the created message.", maybe_delivered=True
            )
        return self._published(credentials, ts)

    def _share(
        self, credentials: Credentials, content: Content, attempt: Attempt, *, thread: str
    ) -> Published:
        """Each file uploaded, then shared to the channel in one message (kept: the file ids,
        before the share, so a lost answer is looked up by them), read back for its `ts`."""
        files = [
            {"id": self._upload(credentials, media, index), "title": _filename(media, index)}
            for index, media in enumerate(content.media)
        ]
        ids = [str(file["id"]) for file in files]
        attempt.state["files"] = ids
        body: dict[str, Any] = {"files": files, "channel_id": bot_of(credentials).channel}
        if content.text.strip():
            body["initial_comment"] = escape(content.text)
        if thread:
            body["thread_ts"] = thread
        self.call("POST", "files.completeUploadExternal", credentials, json_body=body)
        found = self._shared(credentials, attempt, thread, set(ids))
        if found is None:
            raise outbound.TransientError(
                "Slack shared the files but does not list their message yet: the outcome "
                "could not be established.",
                maybe_delivered=True,
            )
        return found

    def _upload(self, credentials: Credentials, media: MediaFile, index: int) -> str:
        """`files.getUploadURLExternal` (name, length, alt text), then the bytes to the address
        it names (no token: the address is the upload's); the file's id."""
        name = _filename(media, index)
        streamed = media.video and media.stored and media.data is None
        data = b"" if streamed else media_bytes(media)
        length = (media.size or default_storage.size(media.stored)) if streamed else len(data)
        form: dict[str, Any] = {"filename": name, "length": str(length)}
        if media.alt and not media.video:
            form["alt_txt"] = media.alt
        answer = self.call("POST", "files.getUploadURLExternal", credentials, form=form)
        url, file_id = str(answer["upload_url"]), str(answer["file_id"])
        if streamed:
            with stored_file(media) as stored:
                self._to(url, (name, stored, media.mime))
        else:
            self._to(url, (name, data, media.mime))
        return file_id

    def _to(self, url: str, file: tuple[str, Any, str]) -> None:
        self._uploads.request(
            "POST", url, files={"file": file}, timeout=UPLOAD_TIMEOUT_SECONDS, idempotent=False
        )

    def _published(self, credentials: Credentials, ts: str) -> Published:
        """The message's permalink (`chat.getPermalink`); a failure to get it does not undo
        the post: the channel's archive link then."""
        bot = bot_of(credentials)
        try:
            found = self.call(
                "GET",
                "chat.getPermalink",
                credentials,
                params={"channel": bot.channel, "message_ts": ts},
            )
            url = str(found.get("permalink") or "")
        except outbound.OutboundError:
            url = ""
        return Published(
            provider_post_id=ts,
            url=url or f"https://slack.com/archives/{bot.channel}/p{ts.replace('.', '')}",
        )

    # --- Exactly once ----------------------------------------------------------------------

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        return self._lookup(credentials, attempt, thread="")

    def reply_lookup(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published | None:
        return self._lookup(credentials, attempt, thread=root.provider_post_id)

    def comment_lookup(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published | None:
        return self._lookup(credentials, attempt, thread=on.provider_post_id)

    def _lookup(
        self, credentials: Credentials, attempt: Attempt, *, thread: str
    ) -> Published | None:
        """The message carrying this part's key, or sharing one of the files an earlier
        attempt uploaded (re-read as a share is: it may take seconds to appear)."""
        files = {str(i) for i in attempt.state.get("files") or []}
        if files:  # a share carries no metadata: only its files tell it
            return self._shared(credentials, attempt, thread, files)
        key = part_key(attempt)
        message = self._find(credentials, attempt, thread, lambda m: _key_of(m) == key)
        return None if message is None else self._published(credentials, str(message["ts"]))

    def _shared(
        self, credentials: Credentials, attempt: Attempt, thread: str, ids: set[str]
    ) -> Published | None:
        """The message sharing one of `ids`, read up to len(SHARE_READS) times."""
        until = time.monotonic() + SHARE_WAIT_SECONDS
        for delay in SHARE_READS:
            if delay:
                if time.monotonic() + delay > until:
                    break
                time.sleep(delay)
            message = self._find(credentials, attempt, thread, lambda m: bool(_files_of(m) & ids))
            if message is not None:
                return self._published(credentials, str(message["ts"]))
        return None

    def _find(
        self,
        credentials: Credentials,
        attempt: Attempt,
        thread: str,
        matches: Callable[[dict[str, Any]], bool],
    ) -> dict[str, Any] | None:
        """The first message no other record holds that `matches`: the channel's history since
        the attempt's window, or the thread's replies, page after page; a window not covered
        after LOOKUP_PAGES pages leaves the outcome unknown."""
        channel = bot_of(credentials).channel
        if thread:
            method = "conversations.replies"
            params: dict[str, Any] = {"channel": channel, "ts": thread}
        else:
            method = "conversations.history"
            oldest = f"{attempt.window.timestamp():.6f}"
            params = {"channel": channel, "oldest": oldest, "inclusive": "true"}
        params.update(include_all_metadata="true", limit=HISTORY_LIMIT)
        for _ in range(LOOKUP_PAGES):
            page = self.call("GET", method, credentials, params=params)
            for message in page.get("messages") or []:
                if not isinstance(message, dict) or not attempt.ours(str(message.get("ts"))):
                    continue
                if matches(message):
                    return message
            cursor = str((page.get("response_metadata") or {}).get("next_cursor") or "")
            if not cursor or not page.get("has_more"):
                return None
            params["cursor"] = cursor
        raise outbound.TransientError(
            "Slack lists more messages since the attempt than a lookup reads: the outcome "
            "could not be established.",
            maybe_delivered=True,
        )

    # --- Metrics ---------------------------------------------------------------------------

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        """The message read back (`conversations.history` at its `ts`): its reactions and
        replies are the engagement (Slack counts no views or clicks)."""
        ts = published.provider_post_id
        params = {"channel": bot_of(credentials).channel, "latest": ts, "oldest": ts,
                  "inclusive": "true", "limit": 1}  # fmt: skip
        page = self.call("GET", "conversations.history", credentials, params=params)
        message = next(
            (m for m in page.get("messages") or [] if isinstance(m, dict) and m.get("ts") == ts),
            None,
        )
        if message is None:
            raise outbound.PermanentError(
                "The message is no longer in the Slack channel (deleted): its counters stop."
            )
        reactions = 0
        for reaction in message.get("reactions") or []:
            try:
                reactions += int(reaction.get("count") or 0)
            except (AttributeError, TypeError, ValueError):
                continue
        try:
            replies = int(message.get("reply_count") or 0)
        except (TypeError, ValueError):
            replies = 0
        return Metrics(engagement=reactions + replies, reactions=reactions, comments=replies)
