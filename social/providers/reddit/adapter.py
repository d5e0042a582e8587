"""Reddit's publishing (networks/reddit.md): a post is submitted to a subreddit (the account's
default, or `options.subreddit`; a profile is `u_{name}`) as a text (`self`) post, a link post,
or an image post (social.providers.reddit.media), with an optional first comment; what the
subreddit requires is checked before the first submit to it (social.providers.reddit.rules).

Exactly once: Reddit keeps no idempotency key, so after a lost answer the user's submitted
posts (`/user/{name}/submitted`, newest first) are read for one in the same subreddit with the
same title made since the attempt began (less a minute for Reddit's clock) before anything is
submitted again; a lost comment is looked for among the user's comments (`/user/{name}/comments`)
on that post with the same body."""

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from core import outbound
from social.providers.base import (
    Attempt,
    Content,
    Credentials,
    Draft,
    Metrics,
    Published,
)
from social.providers.client import moment
from social.providers.lookup import Page, lookup_pages, same_text
from social.providers.reddit import rules
from social.providers.reddit.media import RedditMedia
from social.providers.text import Problem

LOOKUP_PAGE = 25
WEB_URL = "https://www.reddit.com"


def permalink_url(permalink: str) -> str:
    return permalink if permalink.startswith("http") else f"{WEB_URL}{permalink}"


def _flag(value: Any) -> str:
    return "true" if value else "false"


class RedditAdapter(RedditMedia):
    provider = "reddit"
    name = "Reddit"
    link_field = False  # a text post carries its link in its body; a link post in `url`
    comment_limit = rules.MAX_COMMENT

    def compose(self, draft: Draft) -> Content:
        """A text post's body is the composed text (markdown, as typed; its link in it); a link
        or an image post sends no text."""
        kind = rules.kind_of(draft.options, draft.media)
        if kind == "self":
            return replace(super().compose(draft), media=())
        return Content(
            text="", link=draft.link, title=draft.title, media=draft.media, options=draft.options
        )

    def problems(self, draft: Draft, content: Content, limits: dict[str, Any]) -> list[Problem]:
        return super().problems(draft, content, limits) + rules.draft_problems(draft, content)

    def processed(self, content: Content) -> bool:
        return bool(content.media)  # an image: leased, uploaded, submitted, then looked for

    def target(self, credentials: Credentials, content: Content) -> str:
        subreddit = str(content.options.get("subreddit") or "")
        return subreddit or str(credentials.options.get("subreddit") or "")

    def _requests(self, credentials: Credentials) -> Any:
        def call(method: str, path: str) -> Any:
            return self.call(method, path, credentials, publishing=True)

        return call

    def submit(
        self, credentials: Credentials, content: Content, subreddit: str, kind: str, **more: str
    ) -> dict[str, Any]:
        """`POST /api/submit` (resubmit allowed: the same link may be posted again); the
        answer's `json.data` (a refusal in `json.errors` is raised by classify)."""
        options = content.options
        form: dict[str, str] = {
            "api_type": "json",
            "sr": subreddit,
            "kind": kind,
            "title": content.title.strip(),
            "nsfw": _flag(options.get("nsfw")),
            "spoiler": _flag(options.get("spoiler")),
            "sendreplies": _flag(options.get("sendReplies", True)),
            "resubmit": "true",
            **more,
        }
        if options.get("flairId"):
            form["flair_id"] = str(options["flairId"])
        if options.get("flairText"):
            form["flair_text"] = str(options["flairText"])
        answer = self.call("POST", "api/submit", credentials, publishing=True, data=form)
        data = ((answer or {}).get("json") or {}).get("data")
        if not isinstance(data, dict):
            raise outbound.TransientError(
                "Reddit did not name the created post.", maybe_delivered=True
            )
        return data

    def publish(self, credentials: Credentials, content: Content, attempt: Attempt) -> Published:
        if content.video:  # an image post, found once Reddit listed it (media)
            return Published(
                provider_post_id=str(content.video["postId"]), url=str(content.video["url"])
            )
        subreddit = self.target(credentials, content)
        if not subreddit:
            raise outbound.PermanentError("Reddit needs a subreddit: reconnect the account.")
        kind = rules.kind_of(content.options, content.media)
        rules.subreddit_check(self._requests(credentials), subreddit, content, kind)
        more = {"url": content.link} if kind == "link" else {"text": content.text}
        data = self.submit(credentials, content, subreddit, kind, **more)
        name = str(data.get("name") or "")
        if not name and data.get("id"):
            name = f"t3_{data['id']}"
        if not name:
            raise outbound.TransientError(
                "Reddit did not name the created post.", maybe_delivered=True
            )
        return Published(provider_post_id=name, url=str(data.get("url") or ""))

    # --- Exactly once ----------------------------------------------------------------------------

    def find(
        self,
        credentials: Credentials,
        *,
        subreddit: str,
        title: str,
        attempt: Attempt,
    ) -> Published | None:
        """The user's submitted posts, newest first, back to the attempt's window: the one no
        other record holds, in this subreddit (case aside), with this title."""

        def matches(item: dict[str, Any]) -> bool:
            return (
                attempt.ours(str(item.get("name")))
                and str(item.get("subreddit") or "").lower() == subreddit.lower()
                and same_text(str(item.get("title") or ""), title)
            )

        item = self._listed(credentials, "submitted", attempt=attempt, matches=matches)
        if item is None:
            return None
        name = str(item.get("name") or f"t3_{item.get('id')}")
        return Published(provider_post_id=name, url=permalink_url(str(item.get("permalink"))))

    def lookup(
        self, credentials: Credentials, content: Content, attempt: Attempt
    ) -> Published | None:
        subreddit = self.target(credentials, content)
        found = self.find(
            credentials, subreddit=subreddit, title=content.title.strip(), attempt=attempt
        )
        if found is None and attempt.state.get("submitted"):
            # An image post Reddit accepted is never submitted again: not listed yet.
            raise outbound.TransientError(
                "Reddit has not listed the image post it accepted: its outcome could not be "
                "established.",
                maybe_delivered=True,
            )
        return found

    # --- The first comment -----------------------------------------------------------------------

    def comment(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published:
        """`POST /api/comment` on the post: the comment's `t1_` name and permalink."""
        answer = self.call(
            "POST",
            "api/comment",
            credentials,
            publishing=True,
            data={"api_type": "json", "thing_id": on.provider_post_id, "text": text},
        )
        things = (((answer or {}).get("json") or {}).get("data") or {}).get("things") or []
        data = (things[0].get("data") or {}) if things and isinstance(things[0], dict) else {}
        if not data.get("name") and not data.get("id"):
            raise outbound.TransientError(
                "Reddit did not name the created comment.", maybe_delivered=True
            )
        name = str(data.get("name") or f"t1_{data.get('id')}")
        return Published(provider_post_id=name, url=permalink_url(str(data.get("permalink"))))

    def comment_lookup(
        self, credentials: Credentials, text: str, attempt: Attempt, *, on: Published
    ) -> Published | None:
        """The user's comments, newest first, back to the attempt's window: the one on this
        post (`link_id`) with this body."""
        item = self._listed(
            credentials,
            "comments",
            attempt=attempt,
            matches=lambda item: (
                str(item.get("link_id")) == on.provider_post_id
                and same_text(str(item.get("body") or ""), text)
            ),
        )
        if item is None:
            return None
        name = str(item.get("name") or f"t1_{item.get('id')}")
        return Published(provider_post_id=name, url=permalink_url(str(item.get("permalink"))))

    def _listed(
        self,
        credentials: Credentials,
        listing: str,
        *,
        attempt: Attempt,
        matches: Callable[[dict[str, Any]], bool],
    ) -> dict[str, Any] | None:
        """The first of the user's `listing` (`submitted`, `comments`), newest first, back to
        the attempt's window, that `matches`."""

        def page(after: str | None) -> Page:
            params: dict[str, Any] = {"sort": "new", "limit": LOOKUP_PAGE, "raw_json": 1}
            if after:
                params["after"] = after
            found = self.call(
                "GET",
                f"user/{credentials.username}/{listing}",
                credentials,
                publishing=True,
                params=params,
            )
            data = (found or {}).get("data") or {}
            items = [child.get("data") or {} for child in data.get("children") or []]
            return items, data.get("after") or None

        return lookup_pages(
            self.name,
            page,
            attempt=attempt,
            created=lambda item: moment(item.get("created_utc")),
            matches=matches,
        )

    # --- Metrics ---------------------------------------------------------------------------------

    def metrics(self, credentials: Credentials, published: Published) -> Metrics:
        """`GET /api/info?id=t3_…`: upvotes and comments the engagement, views (where Reddit
        gives them) the impressions."""
        found = self.call("GET", "api/info", credentials, params={"id": published.provider_post_id})
        children = ((found or {}).get("data") or {}).get("children") or []
        if not children:
            raise outbound.PermanentError(
                "Reddit: the post is no longer among the user's posts (deleted or removed)."
            )
        data = children[0].get("data") or {}

        def number(name: str) -> int:
            try:
                return int(data.get(name) or 0)
            except (TypeError, ValueError):
                return 0

        ups, comments = number("ups"), number("num_comments")
        return Metrics(
            impressions=number("view_count"),
            engagement=ups + comments,
            reactions=ups,
            comments=comments,
        )
