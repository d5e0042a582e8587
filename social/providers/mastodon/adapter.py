"""Mastodon: statuses, threads and first comments as the author's replies. Statuses are
created with an `Idempotency-Key` (the target's key), so the next attempt after a lost answer,
within an hour, gets the original status back instead of a second one (the create itself is
sent once per attempt, never retried within it: core/outbound.py)."""

import html
import re
from collections.abc import Callable
from typing import Any

from social.providers.base import Attempt, Content, Credentials, Draft, Metrics, Published
from social.providers.client import moment
from social.providers.lookup import LOOKUP_PAGE_SIZE, Page, lookup_pages, same_text
from social.providers.mastodon.connection import int_or
from social.providers.mastodon.media import MastodonMedia
from social.providers.text import URL, Problem

TAG = re.compile(r"<[^>]+>")
BREAK = re.compile(r"<br\s*/?>|</p>\s*<p>", re.IGNORECASE)


def status_text(content_html: str) -> str:
    """A status's HTML as plain text (paragraphs and breaks as newlines)."""
    return html.unescape(TAG.sub("", BREAK.sub("\n", content_html)))


class MastodonAdapter(MastodonMedia):
    provider = "mastodon"
    name = "Mastodon"
    comment_limit = 500  # a reply is a status: the common instance limit

    def length(self, text: str, limits: dict[str, Any]) -> int:
        """Each link counts as `charactersPerUrl`, whatever its length."""
        return len(URL.sub("x" * int(limits.get("charactersPerUrl") or 23), text))

    def problems(self, draft: Draft, content: Content, limits: dict[str, Any]) -> list[Problem]:
        """The instance's own limit, each link counted as `charactersPerUrl`."""
        per_url = int(limits.get("charactersPerUrl") or 23)
        count = self.length(content.text, limits)
        maximum = int(limits.get("maxCharacters") or 500)
        if count > maximum:
            return [
                (
                    "content",
                    f"This Mastodon server takes at most {maximum} characters "
                    f"(links count as {per_url}); this post is {count}.",
                )
            ]
        return []

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        return self._status(credentials, content, attempt)

    def _status(
        self, credentials: Credentials, content: Content, attempt: Attempt, in_reply_to: str = ""
    ) -> Published:
        media_ids = (
            [str(content.video["mediaId"])]
            if content.video
            else [self._upload(credentials, media) for media in content.media]
        )
        body: dict[str, Any] = {
            "status": content.text,
            "media_ids": media_ids,
            "visibility": "public",
        }
        if in_reply_to:
            body["in_reply_to_id"] = in_reply_to
        status: dict[str, Any] = self._call(
            "POST",
            credentials.instance,
            "/api/v1/statuses",
            headers={**self._auth(credentials), "Idempotency-Key": attempt.key},
            json=body,
            # A create is sent once per attempt (social.md section 5); the key (one per part)
            # makes the next attempt's repeat return this status if this one reached the
            # instance.
        )
        return Published(provider_post_id=str(status["id"]), url=str(status.get("url") or ""))

    def reply(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published:
        return self._status(credentials, content, attempt, in_reply_to=parent.provider_post_id)

    def reply_lookup(
        self,
        credentials: Credentials,
        content: Content,
        attempt: Attempt,
        *,
        parent: Published,
        root: Published,
    ) -> Published | None:
        """Among the account's statuses, replies included: the one answering `parent` with
        this text."""

        def answers(status: dict[str, Any]) -> bool:
            text = status_text(str(status.get("content") or ""))
            replied = str(status.get("in_reply_to_id") or "")
            return replied == parent.provider_post_id and same_text(text, content.text)

        return self._find(credentials, attempt, replies=True, matches=answers)

    def comment(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published:
        """The author's reply to the post."""
        return self.reply(credentials, Content(text=text), attempt, parent=on, root=on)

    def comment_lookup(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published | None:
        return self.reply_lookup(credentials, Content(text=text), attempt, parent=on, root=on)

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        return self._find(
            credentials,
            attempt,
            replies=False,
            matches=lambda status: same_text(
                status_text(str(status.get("content") or "")), content.text
            ),
        )

    def _find(
        self,
        credentials: Credentials,
        attempt: Attempt,
        *,
        replies: bool,
        matches: Callable[[dict[str, Any]], bool],
    ) -> Published | None:
        """The account's status that `matches` and no other record holds, its statuses read
        page after page (`max_id`) back to the attempt's window (lookup.lookup_pages)."""

        def page(max_id: str | None) -> Page:
            params = {
                "limit": LOOKUP_PAGE_SIZE,
                "exclude_reblogs": "true",
                **({} if replies else {"exclude_replies": "true"}),
                **({"max_id": max_id} if max_id else {}),
            }
            statuses: list[dict[str, Any]] = self._call(
                "GET",
                credentials.instance,
                f"/api/v1/accounts/{credentials.provider_user_id}/statuses",
                params=params,
                headers=self._auth(credentials),
            )
            more = len(statuses) >= LOOKUP_PAGE_SIZE
            return statuses, str(statuses[-1]["id"]) if more else None

        status = lookup_pages(
            "Mastodon",
            page,
            attempt=attempt,
            created=lambda status: moment(status.get("created_at")),
            matches=lambda status: attempt.ours(str(status.get("id"))) and matches(status),
        )
        if status is None:
            return None
        return Published(provider_post_id=str(status["id"]), url=str(status.get("url") or ""))

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        status: dict[str, Any] = self._call(
            "GET",
            credentials.instance,
            f"/api/v1/statuses/{published.provider_post_id}",
            headers=self._auth(credentials),
        )
        replies, reblogs, favourites = (
            int_or(status.get(name), 0)
            for name in ("replies_count", "reblogs_count", "favourites_count")
        )
        return Metrics(
            engagement=replies + reblogs + favourites,
            reactions=favourites,
            comments=replies,
            shares=reblogs,
        )
