"""Bluesky (AT Protocol): posts, threads and first comments as the author's replies, each
created under its chosen record key, so the lookup of an unknown outcome is one `getRecord`."""

from typing import Any

from django.utils import timezone

from core import outbound
from core.times import iso
from social.providers.base import Attempt, Content, Credentials, Draft, Metrics, Published
from social.providers.bluesky.media import BlueskyMedia
from social.providers.bluesky.records import POST, facets, record_key
from social.providers.counting import graphemes
from social.providers.lookup import same_text
from social.providers.text import Problem

NOT_FOUND = "RecordNotFound"
MAX_BYTES = 3000  # a post's text, UTF-8
MAX_IMAGE_BYTES = 1_000_000


class BlueskyAdapter(BlueskyMedia):
    provider = "bluesky"
    name = "Bluesky"
    comment_limit = 300  # a reply is a post: graphemes, as the post's own limit

    def length(self, text: str, limits: dict[str, Any]) -> int:
        return graphemes(text)

    def problems(self, draft: Draft, content: Content, limits: dict[str, Any]) -> list[Problem]:
        """Graphemes, not characters, and at most 3,000 bytes; images up to 1,000,000 bytes."""
        found: list[Problem] = []
        text = content.text
        count, size = graphemes(text), len(text.encode())
        if count > int(limits["maxCharacters"]):
            found.append(
                (
                    "content",
                    f"Bluesky posts are at most {limits['maxCharacters']} "
                    f"characters; this one is {count}.",
                )
            )
        if size > MAX_BYTES:
            found.append(
                ("content", f"Bluesky posts are at most {MAX_BYTES} bytes; this one is {size}.")
            )
        if any((media.size or 0) > MAX_IMAGE_BYTES for media in draft.media if not media.video):
            found.append(("media", "Bluesky images are at most 1,000,000 bytes."))
        return found

    def _resolve_handle(self, credentials: Credentials, handle: str) -> str:
        try:
            answer = self._call(
                "GET", "com.atproto.identity.resolveHandle", credentials, params={"handle": handle}
            )
        except outbound.PermanentError:
            return ""  # not a Bluesky handle: plain text
        return str(answer.get("did") or "")

    def _published(self, credentials: Credentials, uri: str, cid: str = "") -> Published:
        rkey = uri.rsplit("/", 1)[-1]
        handle = credentials.username or credentials.provider_user_id
        return Published(
            provider_post_id=uri, url=f"https://bsky.app/profile/{handle}/post/{rkey}", ref=cid
        )

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        return self._create(credentials, content, attempt)

    def reply(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published:
        """A reply names its thread's root and its parent by uri and cid."""
        refs = {
            "root": {"uri": root.provider_post_id, "cid": root.ref},
            "parent": {"uri": parent.provider_post_id, "cid": parent.ref},
        }
        return self._create(credentials, content, attempt, reply=refs)

    def reply_lookup(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published | None:
        return self.lookup(credentials, content, attempt)

    def comment(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published:
        """The author's reply to the post."""
        return self.reply(credentials, Content(text=text), attempt, parent=on, root=on)

    def comment_lookup(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published | None:
        return self.lookup(credentials, Content(text=text), attempt)

    def _create(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        reply: dict[str, Any] | None = None,
    ) -> Published:
        self.refresh(credentials)
        record: dict[str, Any] = {
            "$type": POST,
            "text": content.text,
            "createdAt": iso(timezone.now()),
            "facets": facets(
                content.text, lambda handle: self._resolve_handle(credentials, handle)
            ),
        }
        if reply is not None:
            record["reply"] = reply
        embed = self._embed(credentials, content)
        if embed is not None:
            record["embed"] = embed
        try:
            created: dict[str, Any] = self._call(
                "POST",
                "com.atproto.repo.createRecord",
                credentials,
                json={
                    "repo": credentials.provider_user_id,
                    "collection": POST,
                    "rkey": record_key(attempt),
                    "record": record,
                },
            )
        except outbound.PermanentError as error:
            if isinstance(error, outbound.AuthenticationError):
                raise
            # The key is taken: an earlier attempt created it (or this is not ours to take).
            found = self.lookup(credentials, content, attempt)
            if found is not None:
                return found
            raise
        return self._published(credentials, str(created["uri"]), str(created.get("cid") or ""))

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        self.refresh(credentials)
        try:
            found: dict[str, Any] = self._call(
                "GET",
                "com.atproto.repo.getRecord",
                credentials,
                params={
                    "repo": credentials.provider_user_id,
                    "collection": POST,
                    "rkey": record_key(attempt),
                },
            )
        except outbound.PermanentError as error:
            if isinstance(error, outbound.AuthenticationError) or NOT_FOUND not in error.excerpt:
                raise
            return None
        if not same_text(str((found.get("value") or {}).get("text") or ""), content.text):
            return None
        return self._published(credentials, str(found["uri"]), str(found.get("cid") or ""))

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        self.refresh(credentials)
        answer: dict[str, Any] = self._call(
            "GET",
            "app.bsky.feed.getPosts",
            credentials,
            params={"uris": published.provider_post_id},
        )
        posts = answer.get("posts") or [{}]
        likes, reposts, replies, quotes = (
            int(posts[0].get(name) or 0)
            for name in ("likeCount", "repostCount", "replyCount", "quoteCount")
        )
        return Metrics(
            engagement=likes + reposts + replies + quotes,
            reactions=likes,
            comments=replies,
            shares=reposts + quotes,
        )
