"""X (API v2): posts, threads and first comments as the author's replies (`reply:
{in_reply_to_tweet_id}`), each part created once. X keeps no idempotency key, so the next
attempt after a lost answer looks the part up among the account's own recent posts (an owned
read, the cheapest) before creating anything; X's refusal of the same text twice (403
duplicate content) after a lost answer means the earlier create landed."""

from datetime import UTC
from typing import Any

from core import outbound
from social.providers.base import Attempt, Content, Credentials, Draft, Metrics, Published
from social.providers.client import moment
from social.providers.lookup import same_text
from social.providers.text import Problem
from social.providers.x.connection import DUPLICATE
from social.providers.x.media import MAX_ALT, XMedia

LOOKUP_RESULTS = 10  # X's owned read costs per post read: one page of the newest
MAX_IMAGE_BYTES = 5 * 1024 * 1024
MAX_GIF_BYTES = 15 * 1024 * 1024
IMAGE_TYPES = ("image/jpeg", "image/png", "image/webp", "image/gif")


def post_url(username: str, post_id: str) -> str:
    return f"https://x.com/{username or 'i'}/status/{post_id}"


def expanded_text(post: dict[str, Any]) -> str:
    """A post's text as it was sent: X answers with every URL replaced by a t.co link; its
    `entities.urls` map each back to the URL written."""
    text = str(post.get("text") or "")
    for entity in (post.get("entities") or {}).get("urls") or []:
        short, expanded = entity.get("url"), entity.get("expanded_url")
        if short and expanded:
            text = text.replace(str(short), str(expanded))
    return text


class XAdapter(XMedia):
    provider = "x"
    name = "X"
    comment_limit = 280  # a reply is a post: its weighted limit

    def problems(self, draft: Draft, content: Content, limits: dict[str, Any]) -> list[Problem]:
        """The weighted length (the default rule, by `countsBy`), images X takes (JPEG, PNG,
        WebP up to 5 MB, GIF up to 15 MB) and their alt text (up to 1,000 characters)."""
        found = super().problems(draft, content, limits)
        for media in draft.media:
            if media.video:
                continue
            if media.mime not in IMAGE_TYPES:
                found.append(("media", "X takes JPEG, PNG, WebP and GIF images."))
            ceiling = MAX_GIF_BYTES if media.mime == "image/gif" else MAX_IMAGE_BYTES
            if (media.size or 0) > ceiling:
                found.append(("media", f"X takes images of at most {ceiling} bytes."))
            if len(media.alt) > MAX_ALT:
                found.append(("media", f"X takes alt text of at most {MAX_ALT} characters."))
        return found

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        return self._create(credentials, content, attempt, first=True)

    def _create(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        first: bool = False,
        parent: str = "",
    ) -> Published:
        body: dict[str, Any] = {"text": content.text}
        media_ids = self.media_ids(credentials, content)
        if media_ids:
            body["media"] = {"media_ids": media_ids}
        if parent:
            body["reply"] = {"in_reply_to_tweet_id": parent}
        reply_settings = content.options.get("replySettings")
        if first and reply_settings:
            body["reply_settings"] = reply_settings
        try:
            created: dict[str, Any] = self._call("POST", "/2/tweets", credentials, json=body)
        except outbound.PermanentError as error:
            # X refuses a text it has just published. After a lost answer that is the earlier
            # create having landed: found among the account's posts, or in doubt (never sent
            # again). Otherwise the same text was published before: refused.
            if error.status == 403 and DUPLICATE in error.message and attempt.unknown:
                found = self._find(credentials, content, attempt, parent=parent)
                if found is not None:
                    return found
                raise outbound.TransientError(
                    "X says this text was just published, but it is not among the account's "
                    "posts: the outcome could not be established.",
                    maybe_delivered=True,
                ) from None
            raise
        post_id = str((created.get("data") or {}).get("id") or "")
        if not post_id:
            raise outbound.TransientError("X did not name the created post.", maybe_delivered=True)
        return Published(provider_post_id=post_id, url=post_url(credentials.username, post_id))

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        return self._find(credentials, content, attempt)

    def _find(
        self, credentials: Credentials, content: Content, attempt: Attempt, *, parent: str = ""
    ) -> Published | None:
        """`GET /2/users/{id}/tweets` since the attempt's window (one page of the newest, an
        owned read): the post with this text (t.co links mapped back) that no other record
        holds and, for a reply, answers `parent`."""
        start = attempt.window.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        found: dict[str, Any] = self._call(
            "GET",
            f"/2/users/{credentials.provider_user_id}/tweets",
            credentials,
            params={
                "max_results": LOOKUP_RESULTS,
                "start_time": start,
                "tweet.fields": "created_at,entities,referenced_tweets",
            },
        )
        posts = list(found.get("data") or [])
        for post in posts:
            post_id = str(post.get("id") or "")
            replied = [
                str(ref.get("id"))
                for ref in post.get("referenced_tweets") or []
                if ref.get("type") == "replied_to"
            ]
            if parent and parent not in replied:
                continue
            if attempt.ours(post_id) and same_text(expanded_text(post), content.text):
                return Published(post_id, post_url(credentials.username, post_id))
        if len(posts) >= LOOKUP_RESULTS and (found.get("meta") or {}).get("next_token"):
            oldest = moment(posts[-1].get("created_at"))
            if oldest is None or oldest > attempt.window:
                raise outbound.TransientError(
                    "X lists more posts since the attempt than a lookup reads: its outcome "
                    "could not be established.",
                    maybe_delivered=True,
                )
        return None

    def reply(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published:
        return self._create(credentials, content, attempt, parent=parent.provider_post_id)

    def reply_lookup(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published | None:
        return self._find(credentials, content, attempt, parent=parent.provider_post_id)

    def comment(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published:
        """The author's reply to the post."""
        return self._create(credentials, Content(text=text), attempt, parent=on.provider_post_id)

    def comment_lookup(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published | None:
        return self._find(credentials, Content(text=text), attempt, parent=on.provider_post_id)

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        """`GET /2/tweets?ids=` with public and non-public metrics (the author's own post,
        under 30 days old): impressions, likes + reposts + replies + quotes, link clicks."""
        found: dict[str, Any] = self._call(
            "GET",
            "/2/tweets",
            credentials,
            params={
                "ids": published.provider_post_id,
                "tweet.fields": "public_metrics,non_public_metrics",
            },
        )
        posts = list(found.get("data") or [])
        if not posts:
            raise outbound.PermanentError("X has this post no longer among its posts (deleted).")
        public = posts[0].get("public_metrics") or {}
        private = posts[0].get("non_public_metrics") or {}
        counts = ("like_count", "retweet_count", "reply_count", "quote_count")
        return Metrics(
            impressions=int(private.get("impression_count") or public.get("impression_count") or 0),
            engagement=sum(int(public.get(name) or 0) for name in counts),
            clicks=int(private.get("url_link_clicks") or 0),
            reactions=int(public.get("like_count") or 0),
            comments=int(public.get("reply_count") or 0),
            shares=int(public.get("retweet_count") or 0) + int(public.get("quote_count") or 0),
        )
